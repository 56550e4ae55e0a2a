from __future__ import annotations

import importlib
from typing import Any

from django.core.management.base import BaseCommand

from assess import demo

# Each app that adds to the demo has a `demo` module with `load(out)`; they run in this order.
DEMO_MODULES = ("assess.demo", "judging.demo", "metrics.demo", "judging.study_demo")


class Command(BaseCommand):
    help = "Load the demo set (real TREC 2024 RAG files) and the demo organizer and assessor accounts."

    def handle(self, *args: Any, **options: Any) -> None:
        for name in DEMO_MODULES:
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name != name:
                    raise
                continue
            module.load(self.stdout)
        self.stdout.write(self.style.SUCCESS("demo ready"))
        self.stdout.write(f"  organizer: {demo.ORGANIZER[0]} / {demo.ORGANIZER[1]}")
        self.stdout.write(f"  assessor:  {demo.ASSESSOR[0]} / {demo.ASSESSOR[1]}")
