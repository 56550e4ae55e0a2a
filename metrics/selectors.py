"""Reads the pages and commands show beside the reports: the judges, each label set's descriptive statistics,
and the citations two label sets disagree on, in a few queries whatever the scale.

Every figure is computed from a label set (`judging.labels`: which labels, and the rule that gives each
citation its label, live there alone) over the material of `metrics.material`, which keeps both cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assess.models import Citation, Relevance
from judging.labels import LabelSet, label_sets_available
from judging.models import Judge
from judging.scope import Scope
from metrics.material import (
    cached,
    citation_cards,
    citation_topics,
    labelled_topics,
    labels_get,
    material_get,
    material_summary,
)
from metrics.reports import depth_unit
from metrics.scores import LABELS


def judge_names() -> list[tuple[str, str]]:
    return list(Judge.objects.order_by("kind", "name").values_list("name", "kind"))


# --- Table 3: descriptive statistics -----------------------------------------------------------------


def support_stats(scope: Scope) -> list[dict[str, Any]]:
    """Per label set (the paper's Table 3), counted in the citations of the scope at its depth: the topics
    it labelled (`labelled_topics`, as the scores count them); `judged`, the citations it gives a label
    (exactly the labels its scores use); those it recorded as not judged; ties left out; the other
    citations in scope (the four add up to the scope's citations); distinct pairs; FS / PS / NS counts."""
    return cached(f"stats:{scope.key}", lambda: _support_stats(scope))  # type: ignore[no-any-return]


def _distinct_count(values: np.ndarray) -> int:
    """How many distinct values (by sorting: numpy's hash-based unique is slow on large integer arrays)."""
    if len(values) == 0:
        return 0
    ordered = np.sort(values)
    return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def _support_stats(scope: Scope) -> list[dict[str, Any]]:
    material = material_get(scope)
    unit = depth_unit(scope.depth)
    rows = []
    for label_set in label_sets_available(campaign=scope.campaign or None):
        labels = labels_get(label_set, material)
        labelled = labels.labelled
        touched = labelled | labels.not_judged | labels.tied
        if not touched.any():
            continue
        counts = np.bincount(labels.codes[labelled], minlength=3)
        pairs = labels.pair_ids[labelled]
        rows.append(
            {
                "label_set": label_set.spec,
                "title": label_set.title,
                "judge": label_set.name,
                "kind": label_set.judge_kind,
                "condition": label_set.condition,
                "unit": unit,
                "topics": len(labelled_topics(material, labels)),
                "judged": int(labelled.sum()),
                "not_judged": int(labels.not_judged.sum()),
                "ties": int(labels.tied.sum()),
                "unlabelled": int((~touched).sum()),
                # A citation with no stored pair (imported, outside any campaign) is a pair of its own.
                "distinct_pairs": _distinct_count(pairs[pairs > 0]) + int((pairs == 0).sum()),
                **{label: int(counts[code]) for code, label in enumerate(LABELS)},
            }
        )
    return rows


def topics_labelled_by(scope: Scope, label_sets: list[LabelSet]) -> list[str]:
    """The topics in scope in which any of the sets labels a citation: those the dashboard's figures are over."""
    material = material_get(scope)
    return sorted({t for s in label_sets for t in labelled_topics(material, labels_get(s, material))})


def table_3_scope(scope: Scope, label_sets: list[LabelSet]) -> Scope:
    """The scope Table 3 counts in: narrowed to the topics the sets label, as the scores and agreement are (a
    loaded topic none of them judged would only add its citations to every set's "not labelled")."""
    topics = topics_labelled_by(scope, label_sets)
    if topics and len(topics) < scope_summary(scope)["topics"]:
        return scope.narrowed(topic_ids=topics)
    return scope


def scope_summary(scope: Scope) -> dict[str, Any]:
    """How many topics, runs and citations (at the depth) the scope holds."""
    return material_summary(material_get(scope), depth_unit(scope.depth))


# --- drill-down ---------------------------------------------------------------------------------------

DRILL_DOWN_PAGE = 25  # cards per page, on the page and in the API


@dataclass(frozen=True)
class DisagreementGroup:
    """One card of the drill-down: the citations of one stored pair (or one citation with no stored pair)
    to which the two sets give the same two labels."""

    topic_id: str
    label_a: str
    label_b: str
    citation_ids: tuple[int, ...]  # in (run, sentence, slot) order
    direct_a: bool  # every label of A here was judged on the citation itself (not taken from its pair)
    direct_b: bool


@dataclass(frozen=True)
class DisagreementList:
    groups: list[DisagreementGroup]
    citations: int  # citations in the groups
    matrix: list[list[int]]  # citations both labelled, rows A's label, columns B's, in LABELS order


@dataclass(frozen=True)
class Disagreement:
    topic_id: str
    run_id: str
    sentence_index: int
    sentence: str
    passage_id: str
    passage_title: str
    passage_text: str
    label_a: str
    label_b: str
    direct_a: bool
    direct_b: bool
    runs: tuple[str, ...]  # every run in which this same pair has these two labels
    relevance: tuple[tuple[str, int], ...] = ()  # (source, grade 0-3) of the passage for the topic, by source


def disagreement_groups(
    *,
    a: LabelSet,
    b: LabelSet,
    scope: Scope,
    topic_id: str | None = None,
    label_a: str | None = None,
    label_b: str | None = None,
) -> DisagreementList:
    """The citations in scope (of one topic, when given) both sets label, in one confusion cell when both
    labels are given, else wherever they differ, grouped into cards; no row is read but the material's."""
    material = material_get(scope.narrowed(topic_ids=[topic_id]) if topic_id else scope)
    labels_a, labels_b = labels_get(a, material), labels_get(b, material)
    both = labels_a.labelled & labels_b.labelled
    matrix = np.zeros((len(LABELS), len(LABELS)), dtype=np.int64)
    np.add.at(matrix, (labels_a.codes[both], labels_b.codes[both]), 1)
    if label_a and label_b:
        chosen = both & (labels_a.codes == LABELS.index(label_a)) & (labels_b.codes == LABELS.index(label_b))
    else:
        chosen = both & (labels_a.codes != labels_b.codes)
    topic_of = citation_topics(material)
    cards = citation_cards(material, labels_a, labels_b)
    grouped: dict[tuple[int, ...], list[int]] = {}
    positions = np.flatnonzero(chosen).tolist()

    def order(k: int) -> tuple[str, str, int, int]:
        _, run_id, _ = material.answers[int(material.citation_answer[k])]
        topic = material.topic_names[int(topic_of[k])]
        return topic, run_id, int(material.citation_sentence_index[k]), int(material.citation_slot[k])

    for k in sorted(positions, key=order):
        grouped.setdefault(tuple(cards[k].tolist()), []).append(k)
    groups = [
        DisagreementGroup(
            topic_id=material.topic_names[topic],
            label_a=LABELS[code_a],
            label_b=LABELS[code_b],
            citation_ids=tuple(int(material.citation_id[k]) for k in members),
            direct_a=bool(labels_a.direct[members].all()),
            direct_b=bool(labels_b.direct[members].all()),
        )
        for (topic, _pair, code_a, code_b), members in grouped.items()
    ]
    return DisagreementList(groups=groups, citations=len(positions), matrix=matrix.tolist())


def disagreements_load(groups: list[DisagreementGroup]) -> list[Disagreement]:
    """The cards' sentences and passages, in one query."""
    wanted = [c for g in groups for c in g.citation_ids]
    citations = {
        c.pk: c for c in Citation.objects.filter(pk__in=wanted).select_related("sentence__answer__run", "passage")
    }
    grades = relevance_grades({(g.topic_id, c.passage.passage_id) for g in groups for c in _cited(g, citations)})
    result = []
    for group in groups:
        cites = _cited(group, citations)
        if not cites:
            continue
        first = cites[0]
        result.append(
            Disagreement(
                topic_id=group.topic_id,
                run_id=first.sentence.answer.run.run_id,
                sentence_index=first.sentence.index,
                sentence=first.sentence.text,
                passage_id=first.passage.passage_id,
                passage_title=first.passage.title,
                passage_text=first.passage.text,
                label_a=group.label_a,
                label_b=group.label_b,
                direct_a=group.direct_a,
                direct_b=group.direct_b,
                runs=tuple(c.sentence.answer.run.run_id for c in cites),
                relevance=grades.get((group.topic_id, first.passage.passage_id), ()),
            )
        )
    return result


def _cited(group: DisagreementGroup, citations: dict[int, Citation]) -> list[Citation]:
    return [citations[c] for c in group.citation_ids if c in citations]


def relevance_grades(pairs: set[tuple[str, str]]) -> dict[tuple[str, str], tuple[tuple[str, int], ...]]:
    """(topic id, passage id) -> ((source, grade), ...) sorted by source, for the given pairs: a passage's
    topical relevance (the imported qrels) to show beside its support."""
    found: dict[tuple[str, str], list[tuple[str, int]]] = {}
    if not pairs:
        return {}
    topics = {t for t, _ in pairs}
    passages = {p for _, p in pairs}
    for source, topic_id, passage_id, grade in Relevance.objects.filter(
        topic_id__in=topics, passage_id__in=passages
    ).values_list("source", "topic_id", "passage_id", "grade"):
        if (topic_id, passage_id) in pairs:
            found.setdefault((topic_id, passage_id), []).append((source, grade))
    return {key: tuple(sorted(value)) for key, value in found.items()}


def disagreements(*, a: LabelSet, b: LabelSet, scope: Scope, topic_id: str) -> list[Disagreement]:
    """Every card of one topic where the two sets differ, with sentence and passage."""
    return disagreements_load(disagreement_groups(a=a, b=b, scope=scope, topic_id=topic_id).groups)
