from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from assess.selectors import passages_missing_text


class Command(BaseCommand):
    help = "Print the ids of cited passages that have no text, one per line (for `> ids.txt`)."

    def handle(self, *args: Any, **options: Any) -> None:
        for pid in passages_missing_text().order_by("passage_id").values_list("passage_id", flat=True).iterator():
            self.stdout.write(pid)
