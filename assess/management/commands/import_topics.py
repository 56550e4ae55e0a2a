from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from assess.importers.topics import topics_import
from assess.management.base import run_import


class Command(BaseCommand):
    help = "Import topics: TSV `topic_id<TAB>text` (the track's topics file) or JSONL {topic_id, text}."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+")

    def handle(self, *args: Any, **options: Any) -> None:
        run_import(self, topics_import, files=options["files"], verbosity=options["verbosity"])
