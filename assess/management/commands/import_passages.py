from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assess.importers.passages import passages_fill_from_corpus, passages_import
from assess.importers.report import ImportReport
from assess.management.base import run_import
from assess.selectors import passages_missing_text


class Command(BaseCommand):
    help = (
        "Import passage texts: MS MARCO V2.1 segmented JSONL (plain or .gz), {docid, segment} lines, or "
        "ragnarok retrieval results. With --corpus DIR --missing, fill only the cited passages that have no "
        "text from the byte offset in each segment id (plain shards: one seek each; gzipped shards: one "
        "streaming pass), then list the ids not found."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*")
        parser.add_argument(
            "--corpus",
            help="MS MARCO V2.1 segmented corpus directory: msmarco_v2.1_doc_segmented_NN.json shards, plain or .gz",
        )
        parser.add_argument("--missing", action="store_true", help="with --corpus: fill passages without text")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["corpus"]:
            if not options["missing"] or options["files"]:
                raise CommandError("use --corpus DIR --missing, without files")
            report = run_import(
                self,
                passages_fill_from_corpus,
                corpus_dir=options["corpus"],
                verbosity=options["verbosity"],
                unit="passage",
            )
            self._print_not_found(report)
            return
        if not options["files"]:
            raise CommandError("give passage files, or --corpus DIR --missing")
        run_import(self, passages_import, files=options["files"], verbosity=options["verbosity"])

    def _print_not_found(self, report: ImportReport) -> None:
        """How many of the wanted passages the corpus held, and the id of each one it did not."""
        wanted = report.counts.get("passages_missing_before", 0)
        not_found = list(passages_missing_text().order_by("passage_id").values_list("passage_id", flat=True))
        self.stdout.write(
            f"found {wanted - len(not_found)} of {wanted} cited passages without text; "
            f"{len(not_found)} not found" + (":" if not_found else "")
        )
        for pid in not_found:
            self.stdout.write(pid)
