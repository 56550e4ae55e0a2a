from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from assess.models import Answer, Run, Topic
from judging import build, selectors
from judging.kinds import SUPPORT_KIND, build_summary_text
from judging.models import Judge


class Command(BaseCommand):
    help = "Create a campaign (runs x topics x depth) and build its pairs."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--runs", nargs="+", default=["all"], help="run ids, or `all` (default)")
        parser.add_argument("--topics", nargs="+", default=["all"], help="topic ids, or `all` answered by the runs")
        parser.add_argument("--depth", type=int, default=1, help="citations judged per sentence (1 = sparse)")
        parser.add_argument("--top-per-group", type=int, default=None, help="keep the N best-priority runs per group")
        parser.add_argument("--allow-missing-text", action="store_true", help="leave out passages without text")
        parser.add_argument("--guidelines-file", type=Path, default=None)
        parser.add_argument("--post-edit-judge", default=None, help="name of the LLM judge post-editing shows")
        parser.add_argument("--highlight-evidence", action="store_true")
        parser.add_argument("--kind", default=SUPPORT_KIND, help="what the campaign judges (docs/kinds.md)")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="a build option of the kind (docs/kinds.md), repeated for several",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        runs = self._runs(options["runs"])
        if options["top_per_group"]:
            runs = selectors.runs_top_per_group(runs=runs, n=options["top_per_group"])
        topics = self._topics(options["topics"], runs)
        judge = None
        if options["post_edit_judge"]:
            judge = Judge.objects.filter(name=options["post_edit_judge"]).first()
            if judge is None:
                raise CommandError(f"no judge named {options['post_edit_judge']!r}")
        guidelines = options["guidelines_file"].read_text() if options["guidelines_file"] else None
        if selectors.Campaign.objects.filter(name=options["name"]).exists():
            raise CommandError(f"a campaign named {options['name']!r} exists")
        try:
            campaign, summary = build.campaign_create_and_build(
                name=options["name"],
                runs=runs,
                topics=topics,
                depth=options["depth"],
                guidelines=guidelines,
                post_edit_judge=judge,
                highlight_evidence=options["highlight_evidence"],
                allow_missing_text=options["allow_missing_text"],
                kind=options["kind"],
                build_options=self._build_options(options["option"]),
            )
        except build.CampaignNotCreated as exc:
            raise CommandError(f"{exc.message} (--allow-missing-text)") from exc
        except ValueError as exc:  # an unknown kind, or a bad build option of the kind: nothing created
            raise CommandError(str(exc)) from exc
        if campaign.kind != SUPPORT_KIND:
            self.stdout.write(
                f"campaign {campaign.name} (id {campaign.pk}, {campaign.kind}): {build_summary_text(summary)}"
            )
            return
        self.stdout.write(
            f"campaign {campaign.name} (id {campaign.pk}): {summary['runs']} runs, {summary['topics']} topics, "
            f"depth {summary['depth']}\n"
            f"  {summary['sentences']} sentences ({summary['sentences_uncited']} without citation)\n"
            f"  {summary['citations_kept']} citations -> {summary['pairs']} pairs "
            f"({summary['judgments_saved']} judgments saved)\n"
            f"  {summary['citations_left_out']} citations left out ({summary['passages_without_text']} passages "
            f"without text, {summary['citations_without_sentence_text']} citations of sentences without text)"
        )

    def _build_options(self, pairs: list[str]) -> dict[str, str]:
        bad = [p for p in pairs if "=" not in p]
        if bad:
            raise CommandError(f"--option takes NAME=VALUE, not {', '.join(map(repr, bad))}")
        return dict(p.split("=", 1) for p in pairs)

    def _runs(self, wanted: list[str]) -> list[Run]:
        if wanted == ["all"]:
            return list(Run.objects.all())
        found = {r.run_id: r for r in Run.objects.filter(run_id__in=wanted)}
        missing = [r for r in wanted if r not in found]
        if missing:
            raise CommandError(f"unknown runs: {', '.join(missing)}")
        return [found[r] for r in wanted]

    def _topics(self, wanted: list[str], runs: list[Run]) -> list[Topic]:
        if wanted == ["all"]:
            answered = Answer.objects.filter(run__in=runs).values("topic_id")
            return list(Topic.objects.filter(pk__in=answered))
        found = {t.topic_id: t for t in Topic.objects.filter(topic_id__in=wanted)}
        missing = [t for t in wanted if t not in found]
        if missing:
            raise CommandError(f"unknown topics: {', '.join(missing)}")
        return [found[t] for t in wanted]
