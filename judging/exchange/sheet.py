"""The campaign's judgment sheet (issue 23, points 3 and 4): one row per citation in scope, with the label of
the set asked for, the campaign's final label (`final/<campaign>`), one column per assessor (`assessor:NAME`,
or `assessor:NAME/CONDITION` for one who judged in several conditions), and the flags, comments and
cannot-judge reasons of the assessors' newest judgments on the citation's pair. The deliverables zip holds it;
every label comes from the label rule (`judging.labels`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from django.db.models import Exists, OuterRef, Q

from core.csvsafe import SafeCsvWriter
from core.writable import Writable
from judging.exchange.selectors import LABEL_OF_CODE, ExportMaterial, export_material
from judging.labels import LabelSet, LabelSetKind, label_set_final
from judging.models import Campaign, FinalLabel, JudgeKind, Judgment
from judging.scope import Scope

SHEET_COLUMNS = (
    "topic_id",
    "run_id",
    "sentence_index",
    "citation_slot",
    "passage_id",
    "label",
    "label_set",
    "final_label",
    "final_reason",
)
SHEET_TAIL = ("flagged_by", "comments", "cannot_judge_reasons")


def _assessor_sets(campaign: Campaign) -> list[tuple[str, LabelSet]]:
    """(column, one-assessor set within the campaign) for each assessor and condition they judged in."""
    rows = sorted(
        set(
            Judgment.objects.filter(assignment__campaign=campaign, judge__kind=JudgeKind.HUMAN)
            .values_list("judge_id", "judge__name", "condition")
            .distinct()
        ),
        key=lambda r: (r[1], r[2]),
    )
    several = {name for name in (r[1] for r in rows) if sum(1 for x in rows if x[1] == name) > 1}
    return [
        (
            f"assessor:{name}/{condition or 'none'}" if name in several else f"assessor:{name}",
            LabelSet(
                spec=f"{name}/{condition or 'none'}",
                kind=LabelSetKind.JUDGE,
                name=name,
                condition=condition,
                judge_ids=(judge_id,),
                judge_kind=JudgeKind.HUMAN,
                campaign_id=campaign.pk,
            ),
        )
        for judge_id, name, condition in rows
    ]


def _pair_notes(campaign: Campaign) -> dict[int, dict[str, list[str]]]:
    """pair -> flags, comments and cannot-judge reasons of the assessors' newest judgments on it."""
    newer = Judgment.objects.filter(
        assignment__campaign=campaign, judge_id=OuterRef("judge_id"), pair_id=OuterRef("pair_id"), pk__gt=OuterRef("pk")
    )
    notes: dict[int, dict[str, list[str]]] = defaultdict(lambda: {"flagged_by": [], "comments": [], "reasons": []})
    for pair, name, flagged, comment, reason in (
        Judgment.objects.filter(assignment__campaign=campaign, judge__kind=JudgeKind.HUMAN)
        .filter(Q(flagged=True) | ~Q(comment="") | ~Q(not_judged_reason=""))
        .filter(~Exists(newer))
        .order_by("judge__name", "pk")
        .values_list("pair_id", "judge__name", "flagged", "comment", "not_judged_reason")
    ):
        if flagged:
            notes[pair]["flagged_by"].append(name)
        if comment:
            notes[pair]["comments"].append(f"{name}: {comment}")
        if reason:
            notes[pair]["reasons"].append(f"{name}: {reason}")
    return notes


def sheet_write(
    out: Writable, *, campaign: Campaign, scope: Scope, label_set: LabelSet, material: ExportMaterial | None = None
) -> int:
    """Write the sheet as CSV (each cell safe in a spreadsheet); returns the rows written. `material`: the
    scope's citations (and the sets' labels), when they were read already (`selectors.export_material`)."""
    assessors = _assessor_sets(campaign)
    writer = SafeCsvWriter(out)
    writer.writerow([*SHEET_COLUMNS, *(column for column, _ in assessors), *SHEET_TAIL])
    count = 0
    for row in sheet_rows(campaign=campaign, scope=scope, label_set=label_set, assessors=assessors, material=material):
        writer.writerow(row)
        count += 1
    return count


def sheet_rows(
    *,
    campaign: Campaign,
    scope: Scope,
    label_set: LabelSet,
    assessors: list[tuple[str, LabelSet]] | None = None,
    material: ExportMaterial | None = None,
) -> Iterator[list[Any]]:
    """The sheet's rows, in (answer, sentence, slot) order: every citation in scope that any of its sets labelled
    or that an assessor commented on."""
    assessors = assessors if assessors is not None else _assessor_sets(campaign)
    material = material if material is not None else export_material(scope)
    chosen = _label_names(material.labels(label_set).codes)
    final_set = label_set if label_set.kind == LabelSetKind.FINAL and label_set.campaign_id == campaign.pk else None
    final = _label_names(material.labels(final_set or label_set_final(campaign)).codes)
    per_assessor = [_label_names(material.labels(s).codes) for _, s in assessors]
    notes = _pair_notes(campaign)
    reasons = dict(FinalLabel.objects.filter(campaign=campaign, current=True).values_list("pair_id", "reason"))
    passage_ids = material.passage_ids
    for answer, index, slot, passage, pair, chosen_label, final_label, *columns in zip(
        material.citation_answer.tolist(),
        material.citation_sentence_index.tolist(),
        material.citation_slot.tolist(),
        material.citation_passage.tolist(),
        material.citation_pair.tolist(),
        chosen,
        final,
        *per_assessor,
        strict=True,
    ):
        note = notes.get(pair)
        if not chosen_label and not final_label and not any(columns) and note is None:
            continue
        topic_id, run_id = material.answers[answer]
        yield [
            topic_id,
            run_id,
            index,
            slot,
            passage_ids[passage],
            chosen_label,
            label_set.spec,
            final_label,
            reasons.get(pair, ""),
            *columns,
            "; ".join(note["flagged_by"]) if note else "",
            " | ".join(note["comments"]) if note else "",
            " | ".join(note["reasons"]) if note else "",
        ]


def _label_names(codes: Any) -> list[str]:
    """Each code's label ("" for none), as a list: read per row, a list is much faster than a numpy array."""
    return [LABEL_OF_CODE.get(code, "") for code in codes.tolist()]
