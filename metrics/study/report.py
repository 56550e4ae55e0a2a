"""The disagreement study's report (DESIGN §6): Cohen's κ between every pair of judges on the sample (the
paper's Figure 4), exact-match rates, each judge's label distribution (Figure 5, a grouped bar chart) and
the table of sampled pairs as CSV.

Pure functions over the plain rows of `selectors.study_table`; κ is scikit-learn's (through
`metrics.agreement.label_agreement`)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from core.csvsafe import SafeCsvWriter
from judging.vocabulary import SUPPORT
from metrics.agreement import label_agreement
from metrics.figures import BAR_COLOURS
from metrics.study.selectors import StudyRow, StudyTable


@dataclass(frozen=True)
class Column:
    key: str  # the StudyRow attribute holding this judge's label
    name: str  # what the report calls the judge
    role: str  # a, b, independent, second


def columns_of(table: StudyTable) -> list[Column]:
    study = table.study
    columns = [Column("label_a", study.a, "a"), Column("label_b", study.b, "b")]
    independent = ", ".join(table.adjudicators) if table.adjudicators else "not assigned"
    columns.append(Column("independent", f"independent ({independent})", "independent"))
    if study.second_judge is not None:
        columns.append(Column("second", study.second_judge.name, "second"))
    return columns


@dataclass(frozen=True)
class PairAgreement:
    a: str
    b: str
    role_a: str
    role_b: str
    n: int  # sampled pairs both judges labelled
    kappa: float | None
    kappa_linear: float | None
    exact_match: float | None
    matrix: list[list[int]]  # rows: judge a, columns: judge b, in NS, PS, FS order

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# The paper's Figure 4 first: the independent assessor against each original judge, then the second LLM.
PAIR_ORDER = (
    ("independent", "b"),
    ("independent", "a"),
    ("second", "a"),
    ("second", "b"),
    ("second", "independent"),
    ("a", "b"),
)


def agreements(rows: Sequence[StudyRow], columns: Sequence[Column]) -> list[PairAgreement]:
    """κ (unweighted and linear), exact match and confusion matrix for every pair of judges, over the
    sampled pairs both have labelled."""
    by_role = {c.role: c for c in columns}
    found = []
    for role_x, role_y in PAIR_ORDER:
        if role_x not in by_role or role_y not in by_role:
            continue
        x, y = by_role[role_x], by_role[role_y]
        both = [(getattr(r, x.key), getattr(r, y.key)) for r in rows if getattr(r, x.key) and getattr(r, y.key)]
        result = label_agreement([p[0] for p in both], [p[1] for p in both])
        found.append(
            PairAgreement(
                a=x.name,
                b=y.name,
                role_a=role_x,
                role_b=role_y,
                n=result.n,
                kappa=result.kappa,
                kappa_linear=result.kappa_linear,
                exact_match=result.agreement,
                matrix=result.matrix,
            )
        )
    return found


def distributions(rows: Sequence[StudyRow], columns: Sequence[Column]) -> dict[str, dict[str, int]]:
    """Each judge's label counts on the sample (pairs it has not labelled yet are left out)."""
    return {
        c.name: {label: sum(1 for r in rows if getattr(r, c.key) == label) for label in SUPPORT.highest_first}
        for c in columns
    }


def study_report(table: StudyTable) -> dict[str, Any]:
    """The whole report as plain data (JSON-ready)."""
    columns = columns_of(table)
    study = table.study
    dist = distributions(table.rows, columns)
    return {
        "study": study.pk,
        "campaign": study.campaign.name,
        "a": study.a,
        "b": study.b,
        "second_judge": study.second_judge.name if study.second_judge else None,
        "adjudicators": table.adjudicators,
        "per_topic": study.per_topic,
        "seed": study.seed,
        "sampled": len(table.rows),
        "adjudicated": sum(1 for r in table.rows if r.independent),
        "second_labelled": sum(1 for r in table.rows if r.second),
        "topics": table.topics,
        "short_topics": [t["topic_id"] for t in table.topics if t.get("short")],
        "judges": [{"name": c.name, "role": c.role} for c in columns],
        "agreement": [p.as_dict() for p in agreements(table.rows, columns)],
        "distributions": {name: {"counts": counts, "percent": _percent(counts)} for name, counts in dist.items()},
    }


def _percent(counts: Mapping[str, int]) -> dict[str, float | None]:
    total = sum(counts.values())
    return {k: (round(100.0 * v / total, 1) if total else None) for k, v in counts.items()}


CSV_BASE = (
    "topic_id",
    "order",
    "pair_id",
    "run_id",
    "sentence_index",
    "citation_slot",
    "passage_id",
    "sentence",
)


def study_csv(table: StudyTable) -> str:
    """The sampled pairs with every judge's label: one line per pair, in topic and queue order."""
    columns = columns_of(table)
    out = io.StringIO()
    writer = SafeCsvWriter(out)
    header = [*CSV_BASE, *(f"label:{c.name}" for c in columns), "independent_assessor"]
    writer.writerow(header)
    for r in table.rows:
        cells = [
            r.topic_id,
            r.order,
            r.pair_id,
            r.run_id,
            r.sentence_index,
            r.citation_slot,
            r.passage_id,
            r.sentence,
            *(getattr(r, c.key) for c in columns),
            r.independent_judge,
        ]
        writer.writerow(cells)
    return out.getvalue()


# --- plots ----------------------------------------------------------------------------------------


def distribution_chart(dist: Mapping[str, Mapping[str, int]]) -> SafeString:
    """Figure 5: per label (FS, PS, NS) a group of bars, one per judge, the share of that judge's labels."""
    judges = list(dist)
    group_width, bar_gap, left, top, height = 64 + 26 * len(judges), 4, 46, 24, 200
    bar = max(14, (group_width - 24) // max(1, len(judges)) - bar_gap)
    width = left + group_width * len(SUPPORT.highest_first) + 16
    legend_top = top + height + 44
    total_height = legend_top + 20 * len(judges) + 8
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot bars" viewBox="0 0 {width} {total_height}" '
        f'width="{width}" height="{total_height}" role="img" aria-label="label distribution per judge on the sample">',
    ]
    for tick in (0, 25, 50, 75, 100):
        y = top + height - height * tick / 100
        parts.append(f'<line x1="{left}" y1="{y}" x2="{width - 8}" y2="{y}" stroke="#e3e6ea"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end" font-size="11">{tick}%</text>')
    for g, label in enumerate(SUPPORT.highest_first):
        x0 = left + g * group_width + 12
        for j, judge in enumerate(judges):
            counts = dist[judge]
            total = sum(counts.values())
            share = counts.get(label, 0) / total if total else 0.0
            h = height * share
            x = x0 + j * (bar + bar_gap)
            parts.append(
                f'<rect class="bar" x="{x}" y="{top + height - h:.1f}" width="{bar}" height="{h:.1f}" '
                f'fill="{BAR_COLOURS[j % len(BAR_COLOURS)]}"><title>{escape(judge)}: {escape(SUPPORT.titles[label])} '
                f"{counts.get(label, 0)} of {total} ({100 * share:.1f}%)</title></rect>"
            )
            parts.append(
                f'<text x="{x + bar / 2}" y="{top + height - h - 4:.1f}" text-anchor="middle" font-size="10">'
                f"{100 * share:.0f}</text>"
            )
        parts.append(
            f'<text x="{x0 + (len(judges) * (bar + bar_gap)) / 2}" y="{top + height + 18}" text-anchor="middle">'
            f"{escape(SUPPORT.titles[label])}</text>"
        )
    for j, judge in enumerate(judges):
        y = legend_top + 20 * j
        parts.append(
            f'<rect x="{left}" y="{y - 10}" width="12" height="12" fill="{BAR_COLOURS[j % len(BAR_COLOURS)]}"/>'
            f'<text x="{left + 18}" y="{y}" font-size="12">{escape(judge)} ({sum(dist[judge].values())} labels)</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))


def kappa_grid(pairs: Sequence[PairAgreement], names: Sequence[str]) -> list[list[float | str | None]]:
    """Figure 4 as a symmetric table: κ of every pair of judges ('' on the diagonal, None when undefined)."""
    value = {(p.a, p.b): p.kappa for p in pairs} | {(p.b, p.a): p.kappa for p in pairs}
    return [[("" if x == y else value.get((x, y))) for y in names] for x in names]
