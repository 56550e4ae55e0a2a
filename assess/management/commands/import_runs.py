from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from assess.importers.runs import RunFormat, RunOptions, runs_import
from assess.management.base import run_import
from assess.models import Task


class Command(BaseCommand):
    help = (
        "Import runs: TREC RAG 2024/2025 JSONL (one answer per line), or with --format nist the runs, answers, "
        "sentences and citations that NIST's support-judgment files describe (their labels are not imported)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+")
        parser.add_argument("--format", choices=[RunFormat.TREC, RunFormat.NIST], default=RunFormat.TREC)
        parser.add_argument("--group", help="the team; default: from metadata.team_id, or the run id's `group.` prefix")
        parser.add_argument("--task", choices=Task.values)
        parser.add_argument("--priority", type=int, help="1 = the group's highest-priority run")
        parser.add_argument("--replace", action="store_true", help="replace a run that is already loaded")
        parser.add_argument("--topics", help="import only answers to these topic ids (comma-separated)")

    def handle(self, *args: Any, **options: Any) -> None:
        topics = frozenset(t.strip() for t in options["topics"].split(",") if t.strip()) if options["topics"] else None
        run_import(
            self,
            runs_import,
            files=options["files"],
            fmt=options["format"],
            options=RunOptions(
                group=options["group"],
                task=options["task"],
                priority=options["priority"],
                replace=options["replace"],
                topics=topics,
            ),
            verbosity=options["verbosity"],
        )
