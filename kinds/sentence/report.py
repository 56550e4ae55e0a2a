"""The sentence scores of one label set, per run, with their coverage: what the command, the API-less panel and
the CSV write (`sentence_scores`, `support_scores --kind sentence`)."""

from __future__ import annotations

import csv
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from core.writable import Writable
from metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MIN_TOPICS

from .scores import SHARES, RunSentenceScores, run_sentence_scores
from .selectors import SentenceLabelSet, sentence_labels, sentences_in_answers
from .vocabulary import COMBINED, WORTHY

UNIT = "sentence"
CSV_COLUMNS = ["run_id", "combined_judged", "combined_full", "combined_partial_or_full", "needs_citation_uncited"]
INTERVAL_METHOD = f"topic bootstrap of each share (percentile; none from fewer than {MIN_TOPICS} topics it counts)"


@dataclass(frozen=True)
class SentenceScoresReport:
    label_set: dict[str, str]
    rows: list[RunSentenceScores]
    coverage: dict[str, Any]
    resamples: int
    seed: int
    unit: str = UNIT

    def as_dict(self) -> dict[str, Any]:
        rows = []
        for r in self.rows:
            row = asdict(r)
            row["intervals"] = {k: [v.low, v.high] for k, v in r.intervals.items()}
            row["coverage"] = self.coverage["runs"].get(r.run_id)
            rows.append(row)
        return {
            "unit": self.unit,
            "label_set": self.label_set,
            "labels": {"worthy": list(WORTHY.names), "combined": list(COMBINED.highest_first)},
            "coverage": {k: v for k, v in self.coverage.items() if k != "runs"},
            "intervals": {"method": INTERVAL_METHOD, "resamples": self.resamples, "seed": self.seed},
            "rows": rows,
        }


def sentence_scores_report(
    label_set: SentenceLabelSet, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> SentenceScoresReport:
    labels = sentence_labels(label_set)
    run_ids = np.array(labels.run_ids, dtype=object)
    topics = np.array(labels.topic_ids, dtype=object)
    _, topic_index = np.unique(topics, return_inverse=True) if len(topics) else (None, np.zeros(0, dtype=int))
    rows = []
    for run_id in sorted(set(labels.run_ids)):
        mask = run_ids == run_id
        rows.append(
            run_sentence_scores(
                run_id,
                topic_index[mask],
                labels.worthy[mask],
                labels.combined[mask],
                labels.cited[mask],
                resamples=resamples,
                seed=seed,
            )
        )
    in_answers = sentences_in_answers(set(zip(labels.run_ids, labels.topic_ids, strict=True)))
    judged = {r.run_id: r.sentences for r in rows}
    total = sum(in_answers.values())
    coverage = {
        "sentences_judged": len(labels),
        "sentences_in_answers": total,
        "note": f"coverage: {len(labels)} of {total} sentences of the judged answers carry a label of this set",
        "runs": {run: {"judged": judged[run], "sentences": in_answers.get(run, 0)} for run in judged},
    }
    return SentenceScoresReport(label_set.as_dict(), rows, coverage, resamples, seed)


def _share(value: float | None, digits: int = 6) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def sentence_scores_csv(out: Writable, report: SentenceScoresReport, *, intervals: bool = True) -> None:
    """The issue's columns in its order, then each share's interval (low, high) when asked."""
    writer = csv.writer(out, lineterminator="\n")
    extra = [f"{name}_{end}" for name in SHARES for end in ("low", "high")] if intervals else []
    writer.writerow(CSV_COLUMNS + extra)
    for r in report.rows:
        row = [r.run_id, r.combined_judged, _share(r.combined_full), _share(r.combined_partial_or_full)]
        row.append(_share(r.needs_citation_uncited))
        for name in SHARES if intervals else ():
            interval = r.intervals[name]
            row += [_share(interval.low), _share(interval.high)]
        writer.writerow(row)


def _ci(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def sentence_scores_table(out: Writable, report: SentenceScoresReport) -> None:
    out.write(
        f"labels {report.label_set['title']}  [{report.label_set['spec']}]  unit: {report.unit}  "
        f"labels: worthy {'/'.join(WORTHY.names)}, combined {'/'.join(COMBINED.highest_first)}  "
        f"({INTERVAL_METHOD}, {report.resamples} resamples, seed {report.seed})\n"
    )
    out.write(report.coverage["note"] + "\n")
    width = max([len(r.run_id) for r in report.rows] + [6])
    out.write(
        f"{'run_id':<{width}}  {'#sent':>5} {'judged':>6} {'full':>6} {'95% CI':>15} {'p|full':>6} {'95% CI':>15} "
        f"{'uncited':>7} {'95% CI':>15}\n"
    )
    for r in report.rows:
        cis = [_ci(r.intervals[n].low, r.intervals[n].high) for n in SHARES]
        out.write(
            f"{r.run_id:<{width}}  {r.sentences:5d} {r.combined_judged:6d} {_share(r.combined_full, 3):>6} "
            f"{cis[0]:>15} {_share(r.combined_partial_or_full, 3):>6} {cis[1]:>15} "
            f"{_share(r.needs_citation_uncited, 3):>7} {cis[2]:>15}\n"
        )
