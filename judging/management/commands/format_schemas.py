from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.exchange.schema import published_schemas


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class Command(BaseCommand):
    help = (
        "Write the JSON Schema of every file format (docs/formats/*.schema.json) from the models the importers "
        "check each line against; --check only says whether the written files are current."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "docs" / "formats"))
        parser.add_argument("--check", action="store_true", help="fail if a written schema differs")

    def handle(self, *args: Any, **options: Any) -> None:
        out = Path(options["out"])
        stale = []
        for name, schema in published_schemas().items():
            path = out / name
            text = schema_text(schema)
            if options["check"]:
                if not path.is_file() or path.read_text(encoding="utf-8") != text:
                    stale.append(name)
                continue
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            self.stdout.write(f"wrote {path}")
        if stale:
            raise CommandError(f"out of date (run manage.py format_schemas): {', '.join(stale)}")
