from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.management.arguments import LABEL_SET_HELP, label_set_from
from judging.models import Campaign
from metrics.deliverables.build import deliverables_write


class Command(BaseCommand):
    help = (
        "Write a campaign's deliverables as one zip: trec_eval qrels, NIST-style JSONL, the judgment sheet (the "
        "label set's label, the final label, one column per assessor, flags, comments, cannot-judge reasons), run "
        "and per-(topic, run) scores with intervals, the agreement report (JSON and CSV), the paper's figures (PDF "
        "and PNG) and manifest.json (every file's SHA-256, the label sets' counts, the campaign's settings, the "
        "platform's version and git commit, the date)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="the campaign's name")
        parser.add_argument("--labels", required=True, help=LABEL_SET_HELP + "; e.g. final/CAMPAIGN")
        parser.add_argument("--out", required=True, help="the zip file to write (replaced once complete)")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.filter(name=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {options['campaign']!r}")
        label_set = label_set_from(options["labels"])
        out = Path(options["out"])
        if out.is_dir():
            raise CommandError(f"{out}: is a directory; give a file name such as {out / 'deliverables.zip'}")
        if not out.parent.is_dir():
            raise CommandError(f"{out.parent}: no such directory")
        partial = out.with_name(out.name + ".partial")
        try:
            done = deliverables_write(partial, campaign=campaign, label_set=label_set)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        partial.replace(out)
        for entry in done.files:
            self.stdout.write(f"{entry['name']}: {entry['bytes']:,} bytes")
        for skipped in done.skipped:
            self.stderr.write(self.style.WARNING(f"left out: {skipped['what']}: {skipped['why']}"))
        self.stdout.write(
            self.style.SUCCESS(f"{out}: {len(done.files)} files and manifest.json ({out.stat().st_size:,} bytes)")
        )
