from __future__ import annotations

import json
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.kinds import UnknownKind, kind_get
from judging.management.arguments import LABEL_SET_HELP, add_scope_arguments, label_set_from, scope_from
from metrics.exports import scores_csv, topic_scores_csv
from metrics.reports import depth_unit, interval_note, scores_report
from metrics.topic_scores import TopicScoresReport, topic_scores_report


class Command(BaseCommand):
    help = (
        "Weighted support precision and recall per run for one label set, sorted by precision, as the paper's "
        "Tables 5-8. --per-topic: one row per (run, topic) of the set's judged topics instead (a topic the run "
        "did not answer with 0 and no sentences), sorted by run then topic; a run's score is the mean of its rows."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--labels", "--judge", dest="labels", required=True, help=LABEL_SET_HELP)
        add_scope_arguments(parser)
        parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
        parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (0: no intervals)")
        parser.add_argument("--seed", type=int, default=20241025)
        parser.add_argument(
            "--per-topic",
            action="store_true",
            help="per (run, topic): weighted_precision, weighted_recall, sentences, judged_citations",
        )
        parser.add_argument(
            "--kind",
            default="support",
            help="judgment kind (settings.JUDGMENT_KINDS): support per citation (default), or a kind whose scores "
            "command this runs with --labels, --format, --resamples and --seed (sentence: unit sentence)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["kind"] != "support":
            self._other_kind(options)
            return
        scope = scope_from(options)
        if options["per_topic"]:
            self._per_topic(topic_scores_report(label_set=label_set_from(options["labels"]), scope=scope), options)
            return
        report = scores_report(
            label_set=label_set_from(options["labels"]),
            scope=scope,
            resamples=options["resamples"],
            seed=options["seed"],
        )
        if options["format"] == "json":
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
            return
        if options["format"] == "csv":
            scores_csv(self.stdout, [report], intervals=options["resamples"] > 0)
            return
        self.stdout.write(
            f"labels {report.label_set['title']}  [{report.label_set['spec']}]  unit: {depth_unit(report.depth)}  "
            f"{len(report.topics)} judged topics  ({interval_note(len(report.topics), report.resamples)}, "
            f"seed {report.seed})"
            + (
                f"  only citations of passages {scope.relevance.source} graded >= {scope.relevance.min_grade}"
                if scope.relevance is not None
                else ""
            )
        )
        self.stdout.write(report.coverage["note"])
        width = max([len(r.run_id) for r in report.rows] + [6])
        self.stdout.write(
            f"{'run_id':<{width}}  {'group':<14} {'task':<4} {'labels':<14} {'w.prec':>7} {'95% CI':>15} "
            f"{'w.recall':>8} {'95% CI':>15} {'#sent':>6} {'topics':>6}  coverage"
        )
        for r in report.rows:
            if not r.coverage.any:
                self.stdout.write(
                    f"{r.run_id:<{width}}  {r.group[:14]:<14} {r.task:<4} {r.judge[:14]:<14} {'':>7} {'':>15} "
                    f"{'':>8} {'':>15} {r.mean_sentences:6.2f} {r.topics:6d}  {r.coverage.words}"
                )
                continue
            self.stdout.write(
                f"{r.run_id:<{width}}  {r.group[:14]:<14} {r.task:<4} {r.judge[:14]:<14} {r.weighted_precision:7.3f} "
                f"{_ci(r.precision_low, r.precision_high):>15} {r.weighted_recall:8.3f} "
                f"{_ci(r.recall_low, r.recall_high):>15} {r.mean_sentences:6.2f} {r.topics:6d}  {r.coverage.words}"
            )

    def _other_kind(self, options: dict[str, Any]) -> None:
        """A kind's own scores, through the registry (metrics does not import the kinds)."""
        try:
            command = kind_get(options["kind"]).extras.get("scores_command")
        except UnknownKind as exc:
            raise CommandError(str(exc)) from None
        if not command:
            raise CommandError(f"the {options['kind']} kind has no scores command")
        if options["per_topic"]:
            raise CommandError(f"--per-topic is for support per citation; the {options['kind']} kind scores per run")
        passed = {k: options[k] for k in ("labels", "format", "resamples", "seed")}
        call_command(command, stdout=self.stdout, stderr=self.stderr, **passed)

    def _per_topic(self, report: TopicScoresReport, options: dict[str, Any]) -> None:
        if options["format"] == "json":
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
            return
        if options["format"] == "csv":
            topic_scores_csv(self.stdout, [report])
            return
        self.stdout.write(
            f"labels {report.label_set['title']}  [{report.label_set['spec']}]  unit: {depth_unit(report.depth)}  "
            f"{len(report.topics)} judged topics"
        )
        run_width = max([len(r.run_id) for r in report.rows] + [6])
        topic_width = max([len(r.topic_id) for r in report.rows] + [8])
        self.stdout.write(
            f"{'run_id':<{run_width}}  {'topic_id':<{topic_width}} {'w.prec':>7} {'w.recall':>8} {'#sent':>6} "
            f"{'judged':>6}"
        )
        for r in report.rows:
            self.stdout.write(
                f"{r.run_id:<{run_width}}  {r.topic_id:<{topic_width}} {r.weighted_precision:7.3f} "
                f"{r.weighted_recall:8.3f} {r.sentences:6d} {r.judged_citations:6d}"
            )


def _ci(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"
