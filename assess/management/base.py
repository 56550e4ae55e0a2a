"""What the import commands share: a progress bar and the printing of an import report."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from assess.importers.report import ImportRejected, ImportReport


@contextmanager
def progress_bar(
    command: BaseCommand, *, unit: str = "B", desc: str = "import"
) -> Iterator[Callable[[int, int], None]]:
    """A tqdm bar on stderr, fed by the importers' (done, total) callback; silent at verbosity 0."""
    verbosity = getattr(command, "verbosity", 1)
    bar: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if verbosity < 1:
            return
        if bar is None:
            bar = tqdm(total=total, unit=unit, unit_scale=unit == "B", desc=desc, leave=True)
        bar.n = done
        bar.refresh()

    try:
        yield update
    finally:
        if bar is not None:
            bar.close()


def print_report(command: BaseCommand, report: ImportReport) -> None:
    for warning in report.warnings:
        command.stderr.write(command.style.WARNING(f"warning: {warning}"))
    if report.warning_count > len(report.warnings):
        command.stderr.write(command.style.WARNING(f"... {report.warning_count - len(report.warnings)} more warnings"))
    summary = ", ".join(f"{k} {v}" for k, v in report.counts.items())
    command.stdout.write(command.style.SUCCESS(f"imported: {summary}" if summary else "imported"))


def run_import(command: BaseCommand, fn: Callable[..., ImportReport], **kwargs: Any) -> ImportReport:
    """Call an import service with a progress bar (in `unit`, bytes by default); on rejection, print every
    error and fail."""
    command.verbosity = kwargs.pop("verbosity", 1)  # type: ignore[attr-defined]
    unit = kwargs.pop("unit", "B")
    try:
        with progress_bar(command, unit=unit) as progress:
            report = fn(progress=progress, **kwargs)
    except ImportRejected as exc:
        for error in exc.report.errors:
            command.stderr.write(command.style.ERROR(f"error: {error}"))
        if exc.report.error_count > len(exc.report.errors):
            command.stderr.write(f"... {exc.report.error_count - len(exc.report.errors)} more errors")
        raise CommandError(f"rejected: {exc.report.error_count} error(s); nothing was imported") from exc
    print_report(command, report)
    return report
