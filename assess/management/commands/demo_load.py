from __future__ import annotations

import importlib
from typing import Any

from django.core.management.base import BaseCommand

from assess import demo

# Each app that adds to the demo has a `demo` module with `load(out)`; they run in this order.
DEMO_MODULES = ("assess.demo", "judging.demo", "metrics.demo", "judging.study_demo")


class Command(BaseCommand):
    help = "Load the demo set (real TREC 2024 RAG files) and the demo accounts (organizer, assessors)."

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
        accounts = [
            ("organizer", demo.ORGANIZER),
            ("from scratch", demo.ASSESSOR),
            ("post-edit", demo.EDITOR),
            ("adjudication", demo.ADJUDICATOR),
        ]
        for role, (username, password) in accounts:
            self.stdout.write(f"  {role + ':':14}{username} / {password}")
