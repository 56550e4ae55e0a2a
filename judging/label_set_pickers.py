"""How a label set is offered to a person: a picker's entries, one per distinct set, each named in words (never by
its spec), and what a figure names as its source. The sets themselves are `judging.labels`'."""

from __future__ import annotations

from typing import Any

from judging.label_set_names import LabelSetKind
from judging.labels import LabelSet, label_sets_available
from judging.models import Condition, FinalLabel, Judge


def label_set_picker_name(label_set: LabelSet) -> str:
    """How a picker names a set, in words (never its spec): a one-assessor campaign set by its assessor."""
    if label_set.kind == LabelSetKind.CAMPAIGN and len(label_set.judge_ids) == 1:
        condition = dict(Condition.choices).get(label_set.condition, "no condition").lower()
        name = Judge.objects.filter(pk=label_set.judge_ids[0]).values_list("name", flat=True).first()
        return f"campaign {label_set.name}, {condition}: {name}"
    return label_set.title


def label_set_choices(sets: list[LabelSet] | None = None) -> list[tuple[str, str]]:
    """The one home of a label-set picker's entries, (spec, name in words), one per distinct set: a one-judge
    set whose every label was made in one campaign, where its judge is the campaign's only assessor in that
    condition, holds the same labels as the campaign's set, and is listed once, as the campaign's. So does a
    final set nobody has reviewed in yet over one assessor's labels: it is listed once a final label is set."""
    sets = label_sets_available() if sets is None else sets
    same: set[str] = set()
    for f in sets:
        one_assessor = f.kind == LabelSetKind.FINAL and len(f.judge_ids) == 1
        if one_assessor and not FinalLabel.objects.filter(campaign_id=f.campaign_id or 0).exists():
            same.add(f.spec)
    for c in sets:
        if c.kind != LabelSetKind.CAMPAIGN or len(c.judge_ids) != 1:
            continue
        for j in sets:
            twin = j.kind == LabelSetKind.JUDGE and j.judge_ids == c.judge_ids and j.condition == c.condition
            if twin and j.judgments().count() == c.judgments().count():
                same.add(j.spec)
    return [(s.spec, label_set_picker_name(s)) for s in sets if s.spec not in same]


def label_set_describe(label_set: LabelSet) -> dict[str, Any]:
    """What a figure names as its source: the spec, a title, the rule for several judges."""
    return {"spec": label_set.spec, "title": label_set.title, "rule": label_set.rule, "condition": label_set.condition}
