from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterator
from typing import Any, TextIO, cast

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from assess import demo as assess_demo
from assess.data import DataDirError, data_dir
from judging import demo as judging_demo
from judging.kinds import Kind, kinds_registered
from metrics import demo as metrics_demo
from metrics.study import demo as study_demo


def kind_demos() -> Iterator[tuple[Kind, Callable[[TextIO], None]]]:
    """Each registered kind's demo `load(out)`, in the registry's order: `Kind.extras["demo"]` if it names one,
    else the `demo` module beside the kind's `kind.py` (kinds/<name>/demo.py). A kind with neither has no demo
    of its own (support's is the parts above)."""
    for kind in kinds_registered():
        if "demo" in kind.extras:
            yield kind, kind.extras["demo"]
            continue
        package = settings.JUDGMENT_KINDS[kind.name].rsplit(".", 2)[0]  # "kinds.sentence.kind.KIND"
        if importlib.util.find_spec(f"{package}.demo") is not None:
            yield kind, importlib.import_module(f"{package}.demo").load


class Command(BaseCommand):
    help = (
        "Load the demo set (real TREC 2024 RAG files), a campaign of each judgment kind and the demo accounts "
        "(organizer, assessors). Run again, it changes nothing but the demo passwords."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        out = cast(TextIO, self.stdout)  # the demos only write lines to it
        try:
            data_dir()
        except DataDirError as error:
            raise CommandError(str(error)) from None
        # Each part builds on the one before: material and accounts, the campaign, the labels, the study; then
        # a campaign of each other kind on the same material.
        assess_demo.load(out)
        judging_demo.load(out)
        metrics_demo.load(out)
        study_demo.load(out)
        for _, load in kind_demos():
            load(out)
        self.stdout.write(self.style.SUCCESS("demo ready"))
        accounts = [
            ("organizer", assess_demo.ORGANIZER),
            ("from scratch", assess_demo.ASSESSOR),
            ("post-edit", assess_demo.EDITOR),
            ("adjudication", assess_demo.ADJUDICATOR),
        ]
        for role, (username, password) in accounts:
            self.stdout.write(f"  {role + ':':14}{username} / {password}")
