"""Reads the pages and commands show beside the reports: the judges, each label set's descriptive statistics,
and the citations two label sets disagree on, in a few queries whatever the scale.

Every figure is computed from a label set (`judging.labels`: which labels, and the rule that gives each
citation its label, live there alone) over the material of `metrics.material`, which keeps both cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assess.models import Citation
from judging.labels import LabelSet, label_sets_available, labels_as_dict
from judging.models import Campaign, Judge
from judging.scope import Scope
from metrics.material import cached, citation_topics, labels_get, material_get
from metrics.scores import LABELS


def judge_names() -> list[tuple[str, str]]:
    return list(Judge.objects.order_by("kind", "name").values_list("name", "kind"))


# --- Table 3: descriptive statistics -----------------------------------------------------------------


def support_stats(scope: Scope) -> list[dict[str, Any]]:
    """Per label set (the paper's Table 3): the topics it labelled; `judged`, the citations in scope it gives a
    label (exactly the labels its scores use); those it recorded as not judged; ties left out; the other
    citations of its topics it did not label; distinct pairs; FS / PS / NS counts."""
    return cached(f"stats:{scope.key}", lambda: _support_stats(scope))  # type: ignore[no-any-return]


def _distinct_count(values: np.ndarray) -> int:
    """How many distinct values (by sorting: numpy's hash-based unique is slow on large integer arrays)."""
    if len(values) == 0:
        return 0
    ordered = np.sort(values)
    return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def _support_stats(scope: Scope) -> list[dict[str, Any]]:
    material = material_get(scope)
    topic_of = citation_topics(material)
    campaign = Campaign.objects.filter(name=scope.campaign).first() if scope.campaign else None
    rows = []
    for label_set in label_sets_available(campaign=campaign):
        labels = labels_get(label_set, material)
        labelled = labels.labelled
        touched = labelled | labels.not_judged | labels.tied
        if not touched.any():
            continue
        topics = np.unique(topic_of[touched])
        in_topics = np.isin(topic_of, topics)
        counts = np.bincount(labels.codes[labelled], minlength=3)
        pairs = labels.pair_ids[labelled]
        rows.append(
            {
                "label_set": label_set.spec,
                "title": label_set.title,
                "judge": label_set.name,
                "kind": label_set.judge_kind,
                "condition": label_set.condition,
                "topics": len(topics),
                "judged": int(labelled.sum()),
                "not_judged": int(labels.not_judged.sum()),
                "ties": int(labels.tied.sum()),
                "unlabelled": int((in_topics & ~touched).sum()),
                # A citation with no stored pair (imported, outside any campaign) is a pair of its own.
                "distinct_pairs": _distinct_count(pairs[pairs > 0]) + int((pairs == 0).sum()),
                **{label: int(counts[code]) for code, label in enumerate(LABELS)},
            }
        )
    return rows


# --- drill-down ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Disagreement:
    run_id: str
    sentence_index: int
    sentence: str
    passage_id: str
    passage_title: str
    passage_text: str
    label_a: str
    label_b: str
    runs: tuple[str, ...]  # every run in which this same pair disagrees


def disagreements(*, a: LabelSet, b: LabelSet, scope: Scope, topic_id: str) -> list[Disagreement]:
    """The citations of one topic on which the two label sets differ, grouped by stored pair (a citation
    with no stored pair is its own group), with sentence and passage."""
    topic_scope = scope.narrowed(topic_ids=[topic_id])
    material = material_get(topic_scope)
    labels_a = labels_as_dict(labels_get(a, material), material.citation_id)
    labels_b = labels_as_dict(labels_get(b, material), material.citation_id)
    pair_of = dict(zip(material.citation_id.tolist(), material.citation_pair.tolist(), strict=True))
    differ = [c for c in labels_a if c in labels_b and labels_a[c][0] != labels_b[c][0]]
    grouped: dict[tuple[Any, str, str], list[Citation]] = {}
    for citation in (
        Citation.objects.filter(pk__in=differ)
        .select_related("sentence__answer__run", "passage")
        .order_by("sentence__answer__run__run_id", "sentence__index", "slot")
    ):
        pair = pair_of.get(citation.pk) or f"citation {citation.pk}"
        key = (pair, labels_a[citation.pk][0], labels_b[citation.pk][0])
        grouped.setdefault(key, []).append(citation)
    result = []
    for (_pair, label_a, label_b), cites in grouped.items():
        first = cites[0]
        result.append(
            Disagreement(
                run_id=first.sentence.answer.run.run_id,
                sentence_index=first.sentence.index,
                sentence=first.sentence.text,
                passage_id=first.passage.passage_id,
                passage_title=first.passage.title,
                passage_text=first.passage.text,
                label_a=label_a,
                label_b=label_b,
                runs=tuple(c.sentence.answer.run.run_id for c in cites),
            )
        )
    return result
