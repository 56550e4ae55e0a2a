"""The quality report as plain data (the API and the command's JSON) and as CSV, one row per assessor and
condition. A figure over nothing is null in JSON and an empty cell in CSV, never 0."""

from __future__ import annotations

import io
from dataclasses import asdict
from typing import Any

from core.csvsafe import SafeCsvWriter
from judging.vocabulary import SUPPORT
from metrics.quality.selectors import CITATION_UNIT, PAIR_UNIT, QualityReport
from metrics.quality.stats import Agreement

FIXED_COLUMNS = [
    "assessor",
    "condition",
    "label_set",
    "judgments",
    "pairs",
    "median_seconds",
    "p90_seconds",
    "active_hours",
    *(f"share_{label}" for label in SUPPORT.highest_first),
    "cannot_judge",
    "cannot_judge_rate",
    "flags",
    "gold_labelled",
    "gold_correct",
    "gold_accuracy",
    "drift_first_median_seconds",
    "drift_last_median_seconds",
    "drift_first_agreement",
    "drift_last_agreement",
]
AGREEMENT_FIELDS = ("n", "exact", "kappa", "kappa_low", "kappa_high")


def _agreement(figure: Agreement, *, label_set: str, unit: str) -> dict[str, Any]:
    return {"label_set": label_set, "unit": unit, **asdict(figure)}


def quality_as_dict(report: QualityReport) -> dict[str, Any]:
    ref = report.drift_reference
    return {
        "campaign": report.campaign.name,
        "depth": report.depth,
        "gold_items": report.gold_items,
        "drift_block": report.drift_block,
        "drift_reference": ref.spec if ref else None,
        "references": [
            {"label_set": r.spec, "title": r.label_set.title, "source": r.source, "unit": CITATION_UNIT}
            for r in report.references
        ],
        "assessors": [
            {
                "assessor": row.rater.username,
                "condition": row.rater.condition,
                "label_set": row.rater.spec,
                **{k: v for k, v in asdict(row.figures).items()},
                "gold": asdict(row.gold) if row.gold is not None else None,
                "agreement_with_assessors": [
                    _agreement(figure, label_set=spec, unit=PAIR_UNIT) for spec, figure in row.assessors.items()
                ],
                "agreement_with_references": [
                    _agreement(figure, label_set=spec, unit=CITATION_UNIT) for spec, figure in row.references.items()
                ],
                "drift": [asdict(block) for block in row.drift],
            }
            for row in report.rows
        ],
    }


def quality_columns(report: QualityReport) -> list[str]:
    """The fixed columns, then five per other assessor (unit: pairs) and per reference label set (citations)."""
    columns = list(FIXED_COLUMNS)
    for rater in report.raters:
        columns += [f"vs {rater.spec} ({PAIR_UNIT}s) {f}" for f in AGREEMENT_FIELDS]
    for ref in report.references:
        columns += [f"vs {ref.spec} ({CITATION_UNIT}s) {f}" for f in AGREEMENT_FIELDS]
    return columns


def quality_csv(report: QualityReport) -> str:
    out = io.StringIO()
    writer = SafeCsvWriter(out)
    writer.writerow(quality_columns(report))
    for row in report.rows:
        f, gold, drift = row.figures, row.gold, row.drift
        cells: list[Any] = [
            row.rater.username,
            row.rater.condition,
            row.rater.spec,
            f.judgments,
            f.pairs,
            f.median_seconds,
            f.p90_seconds,
            f.active_hours,
            *(f.shares[label] for label in SUPPORT.highest_first),
            f.cannot_judge,
            f.cannot_judge_rate,
            f.flags,
            gold.labelled if gold else None,
            gold.correct if gold else None,
            gold.accuracy if gold else None,
            drift[0].median_seconds if drift else None,
            drift[-1].median_seconds if drift else None,
            drift[0].agreement if drift else None,
            drift[-1].agreement if drift else None,
        ]
        for rater in report.raters:
            other = row.assessors.get(rater.spec)
            cells += [getattr(other, k) if other else None for k in AGREEMENT_FIELDS]
        for ref in report.references:
            figure = row.references.get(ref.spec)
            cells += [getattr(figure, k) if figure else None for k in AGREEMENT_FIELDS]
        writer.writerow(round(c, 6) if isinstance(c, float) else c for c in cells)
    return out.getvalue()
