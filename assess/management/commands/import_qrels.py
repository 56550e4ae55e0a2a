from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from assess.importers.qrels import relevance_import
from assess.management.base import run_import


class Command(BaseCommand):
    help = (
        "Import graded relevance qrels (`topic_id <ignored> passage_id grade`, grades 0-3; the track's NIST or "
        "UMBRELA qrels) as one source's grades, all or nothing. Shown beside support in the drill-down and "
        "usable as a scope filter (--relevance SOURCE:MIN on the metrics commands)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+")
        parser.add_argument("--source", required=True, help="the grades' source, e.g. nist or umbrela")
        parser.add_argument("--replace", action="store_true", help="replace the source's grades already loaded")

    def handle(self, *args: Any, **options: Any) -> None:
        run_import(
            self,
            relevance_import,
            files=options["files"],
            source=options["source"],
            replace=options["replace"],
            verbosity=options["verbosity"],
        )
