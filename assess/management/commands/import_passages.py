from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assess.importers.passages import passages_fill_from_corpus, passages_import
from assess.management.base import run_import


class Command(BaseCommand):
    help = (
        "Import passage texts: MS MARCO V2.1 segmented JSONL (plain or .gz), {docid, segment} lines, or "
        "ragnarok retrieval results. With --corpus DIR --missing, fill only the cited passages that have no "
        "text by seeking to the byte offset in each segment id."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*")
        parser.add_argument("--corpus", help="MS MARCO V2.1 segmented corpus directory (uncompressed shards)")
        parser.add_argument("--missing", action="store_true", help="with --corpus: fill passages without text")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["corpus"]:
            if not options["missing"] or options["files"]:
                raise CommandError("use --corpus DIR --missing, without files")
            run_import(
                self,
                passages_fill_from_corpus,
                corpus_dir=options["corpus"],
                verbosity=options["verbosity"],
                unit="passage",
            )
            return
        if not options["files"]:
            raise CommandError("give passage files, or --corpus DIR --missing")
        run_import(self, passages_import, files=options["files"], verbosity=options["verbosity"])
