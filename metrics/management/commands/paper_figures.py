from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.management.arguments import LABEL_SET_HELP, add_scope_arguments, label_set_from, scope_from
from metrics.figure_data import FIGURES, FigureUnavailable, figure_make, file_stem
from metrics.figures import FORMATS, figure_bytes


class Command(BaseCommand):
    help = (
        "Write the paper's Figures 2-5 as PDF and PNG into OUT_DIR: figure2-scatter (run scores of A against B, "
        "per-topic means, Kendall tau), figure3-confusion (A's labels against B's), figure4-kappa (Cohen's kappa "
        "between the judges of a disagreement study, with --study) and figure5-distribution (each set's labels). "
        "The numbers are the dashboard's."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out_dir", help="the directory to write into (made if missing)")
        parser.add_argument("--a", required=True, help=LABEL_SET_HELP + " (x axis, rows)")
        parser.add_argument("--b", required=True, help="the second label set (y axis, columns)")
        parser.add_argument(
            "--study", type=int, help="a disagreement study's id, for Figure 4 (and Figure 5's third panel)"
        )
        add_scope_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        a, b = label_set_from(options["a"]), label_set_from(options["b"])
        scope = scope_from(options)
        out = Path(options["out_dir"])
        if out.exists() and not out.is_dir():
            raise CommandError(f"{out}: not a directory")
        out.mkdir(parents=True, exist_ok=True)
        written = 0
        for name, (number, what) in FIGURES.items():
            try:
                figure = figure_make(name, a=a, b=b, scope=scope, study_id=options["study"])
            except FigureUnavailable as exc:
                if name != "kappa" and options["study"] is not None:
                    raise CommandError(str(exc)) from exc
                self.stderr.write(self.style.WARNING(f"{number} skipped: {exc}"))
                continue
            for fmt in FORMATS:
                path = out / f"{file_stem(name)}.{fmt}"
                data = figure_bytes(figure, fmt)
                # Written whole or not at all: a file is renamed into place only once it is complete.
                partial = path.with_name(path.name + ".partial")
                partial.write_bytes(data)
                partial.replace(path)
                written += 1
                self.stdout.write(f"{number} ({what}): {path} ({len(data):,} bytes)")
        self.stdout.write(self.style.SUCCESS(f"{written} files written to {out}"))
