"""Reads that build the metrics' plain data from the database, in a few queries whatever the scale.

Every figure is computed from a label set (`judging.labels`: which labels, and the rule that gives each
citation its label, live there alone). The results that cost the most are cached under a key that includes
the newest judgment's id, so a new judgment makes a new key.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Max, Value
from django.db.models.functions import Coalesce

from assess.arrays import int_columns
from assess.models import Answer, Citation, Passage, Run, Sentence
from judging.labels import (
    LABEL_CODE,
    NO_LABEL,
    CitationLabels,
    LabelSet,
    citation_labels,
    label_sets_available,
    labels_as_dict,
)
from judging.models import NOT_JUDGED, Campaign, Judge, Judgment, JudgmentOrigin
from metrics.scores import LABELS, AnswerSupport, support_arrays

CACHE_SECONDS = 3600
CHUNK = 5000
EVERY_CITATION = 0  # as a depth: every citation of each sentence


@dataclass(frozen=True)
class Scope:
    """What the metrics are computed over: a campaign's topics and runs, or everything loaded."""

    campaign: str | None = None
    topic_ids: frozenset[str] | None = None
    run_ids: frozenset[str] | None = None
    depth: int | None = 1  # citations per sentence; None = every citation

    @property
    def key(self) -> str:
        parts = [
            self.campaign or "",
            ",".join(sorted(self.topic_ids)) if self.topic_ids is not None else "*",
            ",".join(sorted(self.run_ids)) if self.run_ids is not None else "*",
            str(self.depth),
        ]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:24]

    def narrowed(self, *, topic_ids: Iterable[str] | None = None, depth: int | str | None = "same") -> Scope:
        topics = self.topic_ids
        if topic_ids is not None:
            wanted = frozenset(topic_ids)
            topics = wanted if topics is None else topics & wanted
        return Scope(
            campaign=self.campaign,
            topic_ids=topics,
            run_ids=self.run_ids,
            depth=self.depth if depth == "same" else depth,  # type: ignore[arg-type]
        )


def scope_for(
    *, campaign: str | Campaign | None = None, depth: int | None = None, topics: Iterable[str] | None = None
) -> Scope:
    """A campaign's topics, runs and depth (a given depth overrides it), or all loaded material at depth 1.
    Depth `EVERY_CITATION` (0) takes every citation of each sentence."""
    topic_ids = frozenset(topics) if topics is not None else None
    if depth == EVERY_CITATION:
        return replace(scope_for(campaign=campaign, topics=topics), depth=None)
    if campaign is None or campaign == "":
        return Scope(topic_ids=topic_ids, depth=depth if depth is not None else 1)
    c = campaign if isinstance(campaign, Campaign) else Campaign.objects.filter(name=campaign).first()
    if c is None:
        raise ValueError(f"no campaign named {campaign!r}")
    campaign_topics = frozenset(c.topics.values_list("topic_id", flat=True))
    return Scope(
        campaign=c.name,
        topic_ids=campaign_topics & topic_ids if topic_ids is not None else campaign_topics,
        run_ids=frozenset(c.runs.values_list("run_id", flat=True)),
        depth=depth if depth is not None else c.depth,
    )


def judge_names() -> list[tuple[str, str]]:
    return list(Judge.objects.order_by("kind", "name").values_list("name", "kind"))


def material_version() -> str:
    """Changes when runs are loaded or replaced (new citations) or removed (fewer answers)."""
    citations = Citation.objects.aggregate(m=Max("pk"))["m"]
    return f"{citations}:{Answer.objects.count()}"


def data_version() -> str:
    """Changes whenever a judgment is added or the loaded material changes: part of every cache key."""
    judgments = Judgment.objects.aggregate(m=Max("pk"))["m"]
    return f"{judgments}:{material_version()}:{Passage.objects.filter(has_text=True).count()}"


def cached(key: str, compute: Any) -> Any:
    full = f"metrics:{data_version()}:{key}"
    value = cache.get(full)
    if value is None:
        value = compute()
        cache.set(full, value, CACHE_SECONDS)
    return value


# --- the material in scope ------------------------------------------------------------------------

_MEMO: OrderedDict[str, Any] = OrderedDict()
_MEMO_SIZE = 12


def _memo(key: str, compute: Callable[[], Any]) -> Any:
    """An in-process memo for the large arrays one request or command reuses (the version is in the key)."""
    if key in _MEMO:
        _MEMO.move_to_end(key)
        return _MEMO[key]
    value = compute()
    _MEMO[key] = value
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)
    return value


def _remember(key: str, value: Any) -> None:
    _MEMO[key] = value
    _MEMO.move_to_end(key)
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)


def _rows(qs: Any) -> list[tuple[Any, ...]]:
    """A values_list queryset's rows through a plain cursor: the ORM's per-row work is too slow at TREC scale."""
    sql, params = qs.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


@dataclass
class Material:
    """The answers and the citations within the depth; citation columns are numpy arrays in
    (answer, sentence index, slot) order."""

    answers: dict[int, tuple[str, str, int]]  # answer id -> (topic_id, run_id, sentence count)
    citation_id: np.ndarray
    citation_answer: np.ndarray  # answer id
    citation_sentence_index: np.ndarray
    citation_slot: np.ndarray
    citation_passage: np.ndarray  # passage pk
    citation_sentence: np.ndarray  # sentence pk
    citation_pair: np.ndarray  # the citation's stored pair (0: none stored)
    runs: dict[str, tuple[str, str]]  # run_id -> (group, task), every run in scope
    topics: list[str]  # every topic in scope that has an answer
    key: str = ""  # the scope and data version it was read at

    @property
    def citation_ids(self) -> list[int]:
        return [int(c) for c in self.citation_id]

    @property
    def citations(self) -> list[tuple[int, int, int, int, int, int]]:
        """(citation, answer, sentence index, slot, passage, sentence) rows, for the small paths."""
        return list(
            zip(
                self.citation_id.tolist(),
                self.citation_answer.tolist(),
                self.citation_sentence_index.tolist(),
                self.citation_slot.tolist(),
                self.citation_passage.tolist(),
                self.citation_sentence.tolist(),
                strict=True,
            )
        )

    @cached_property
    def answer_order(self) -> np.ndarray:
        return np.array(sorted(self.answers), dtype=np.int64)

    @cached_property
    def run_names(self) -> list[str]:
        return sorted(self.runs)

    @cached_property
    def topic_names(self) -> list[str]:
        return sorted(self.topics)

    @cached_property
    def answer_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each answer in `answer_order`: its run (index into run_names, -1 if out of scope), its topic
        (index into topic_names) and its number of sentences."""
        run_index = {r: i for i, r in enumerate(self.run_names)}
        topic_index = {t: i for i, t in enumerate(self.topic_names)}
        rows = [self.answers[a] for a in self.answer_order.tolist()]
        return (
            np.array([run_index.get(r, -1) for _, r, _ in rows], dtype=np.int64),
            np.array([topic_index[t] for t, _, _ in rows], dtype=np.int64),
            np.array([n for _, _, n in rows], dtype=np.int64),
        )

    @cached_property
    def citation_answer_position(self) -> np.ndarray:
        """Each citation's answer as an index into `answer_order`."""
        return np.searchsorted(self.answer_order, self.citation_answer)

    @cached_property
    def sentence_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """(each citation's sentence as a dense index, each such sentence's answer position)."""
        _unique, first, inverse = np.unique(self.citation_sentence, return_index=True, return_inverse=True)
        return inverse, self.citation_answer_position[first]

    @cached_property
    def citation_order(self) -> np.ndarray:
        """Positions that sort `citation_id`, to find citations by id."""
        return np.argsort(self.citation_id, kind="stable")

    def positions_of(self, citation_ids: np.ndarray) -> np.ndarray:
        """Each given citation id's position in the material, or -1 when it is not in scope."""
        sorted_ids = self.citation_id[self.citation_order]
        found = np.searchsorted(sorted_ids, citation_ids)
        found = np.clip(found, 0, max(len(sorted_ids) - 1, 0))
        if len(sorted_ids) == 0:
            return np.full(len(citation_ids), -1, dtype=np.int64)
        hit = sorted_ids[found] == citation_ids
        return np.where(hit, self.citation_order[found], -1)


def _answers_in(scope: Scope) -> Any:
    qs = Answer.objects.all()
    if scope.topic_ids is not None:
        qs = qs.filter(topic__topic_id__in=scope.topic_ids)
    if scope.run_ids is not None:
        qs = qs.filter(run__run_id__in=scope.run_ids)
    return qs


def material_get(scope: Scope) -> Material:
    """The material in scope; judgments do not change it, so it is kept (in process and in the shared
    cache) until runs change."""
    key = f"metrics:material:{material_version()}:{scope.key}"

    def load() -> Material:
        material = cache.get(key)
        if material is None:
            material = _material(scope)
            cache.set(key, material, CACHE_SECONDS)
        return material  # type: ignore[no-any-return]

    return _memo(key, load)  # type: ignore[no-any-return]


def _material(scope: Scope) -> Material:
    counts = dict(
        _rows(
            Sentence.objects.filter(answer__in=_answers_in(scope))
            .order_by()
            .values_list("answer_id")
            .annotate(n=Count("pk"))
        )
    )
    answers = {
        pk: (topic_id, run_id, counts.get(pk, 0))
        for pk, topic_id, run_id in _rows(
            _answers_in(scope).order_by().values_list("pk", "topic__topic_id", "run__run_id")
        )
    }
    citations_qs = Citation.objects.filter(sentence__answer__in=_answers_in(scope))
    if scope.depth is not None:
        citations_qs = citations_qs.filter(slot__lt=scope.depth)
    citation_id, answer, sentence_index, slot, passage, sentence, pair = int_columns(
        citations_qs.order_by("sentence__answer_id", "sentence__index", "slot")
        .annotate(pair_or_zero=Coalesce("stored_pair__pair_id", Value(0)))
        .values_list(
            "pk", "sentence__answer_id", "sentence__index", "slot", "passage_id", "sentence_id", "pair_or_zero"
        ),
        7,
    )
    runs_qs = Run.objects.all() if scope.run_ids is None else Run.objects.filter(run_id__in=scope.run_ids)
    if scope.run_ids is None:
        runs_qs = runs_qs.filter(pk__in=_answers_in(scope).values("run_id"))
    runs = {r: (g, t) for r, g, t in runs_qs.values_list("run_id", "group", "task")}
    topics = sorted({t for t, _, _ in answers.values()})
    return Material(
        answers=answers,
        citation_id=citation_id,
        citation_answer=answer,
        citation_sentence_index=sentence_index,
        citation_slot=slot,
        citation_passage=passage,
        citation_sentence=sentence,
        citation_pair=pair,
        runs=runs,
        topics=topics,
        key=f"{material_version()}:{scope.key}",
    )


# --- labels ---------------------------------------------------------------------------------------

INCREMENTAL_LIMIT = 2_000  # more new judgments than this: read the set's labels afresh


def labels_get(label_set: LabelSet, material: Material) -> CitationLabels:
    """The set's label of each citation in the material (`judging.labels.citation_labels`).

    Kept (in process and in the shared cache) with the set's version; a one-judge set with a few new
    judgments has only those applied (each is newer than every label kept, so it wins where it applies)."""
    version = label_set.version()
    key = f"metrics:labels:{material.key}:{label_set.key}"
    kept = _MEMO.get(key) or cache.get(key)
    if kept is not None and kept[0] == version:
        _remember(key, kept)
        return kept[1]  # type: ignore[no-any-return]
    labels = None
    if kept is not None and kept[0] < version and not label_set.several:
        labels = _labels_update(kept[1], material, label_set.judgments().filter(pk__gt=kept[0]))
    if labels is None:
        labels = citation_labels(label_set, citation_ids=material.citation_id, citation_pairs=material.citation_pair)
    _remember(key, (version, labels))
    cache.set(key, (version, labels), CACHE_SECONDS)
    return labels


def _labels_update(labels: CitationLabels, material: Material, new: Any) -> CitationLabels | None:
    """Apply a one-judge set's judgments newer than the kept labels, oldest first; None when too many.
    A newer judgment on a citation replaces its label; one on a pair only that of the pair's citations that
    have no judgment of their own."""
    if new.count() > INCREMENTAL_LIMIT:
        return None
    updated = replace(
        labels,
        codes=labels.codes.copy(),
        judgment_ids=labels.judgment_ids.copy(),
        direct=labels.direct.copy(),
        not_judged=labels.not_judged.copy(),
    )
    for pk, citation, pair, label, platform in new.order_by("pk").values_list(
        "pk", "citation_id", "pair_id", "label", "origin"
    ):
        hit = np.zeros(len(material.citation_id), dtype=bool)
        if platform == JudgmentOrigin.PLATFORM:
            hit |= (material.citation_pair == pair) & ~updated.direct
        on_citation = np.zeros_like(hit)
        if citation:
            position = int(material.positions_of(np.array([citation]))[0])
            if position >= 0:
                on_citation[position] = True
        hit |= on_citation
        code = LABEL_CODE.get(label, NO_LABEL)
        updated.codes[hit] = code
        updated.not_judged[hit] = label == NOT_JUDGED
        updated.judgment_ids[hit] = pk
        updated.direct[hit] = on_citation[hit]
    return updated


def answer_support(material: Material, labels: CitationLabels) -> AnswerSupport:
    """Per-answer precision and recall (in `material.answer_order`) from the labels."""
    sentence_of, sentence_answer = material.sentence_positions
    counts = material.answer_columns[2]
    return support_arrays(
        codes=labels.codes,
        citation_sentence=sentence_of,
        sentence_answer=sentence_answer,
        sentence_counts=counts,
    )


def citation_topics(material: Material) -> np.ndarray:
    """Each citation's topic, as an index into `material.topic_names`."""
    answer_topic = material.answer_columns[1]
    return answer_topic[material.citation_answer_position] if len(answer_topic) else np.zeros(0, dtype=np.int64)


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


# --- drill-down and exports -------------------------------------------------------------------------


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


EXCHANGE_COLUMNS = (
    "topic_id",
    "run_id",
    "sentence_index",
    "citation_slot",
    "passage_id",
    "judge",
    "judge_kind",
    "condition",
    "label",
    "shown_label",
    "seconds",
    "created_at",
    "label_set",
)


def exchange_rows(*, scope: Scope, label_sets: Iterable[LabelSet]) -> Iterator[dict[str, Any]]:
    """The judgments exchange rows: each set's label of each citation in scope that it labelled, with the
    judgment that decided it and the set it comes from."""
    material = material_get(scope)
    passage_ids = _passage_ids({c[4] for c in material.citations})
    for label_set in label_sets:
        labels = labels_as_dict(labels_get(label_set, material), material.citation_id)
        details = _judgment_details({judgment_id for _, judgment_id in labels.values()})
        for citation_id, answer_id, sentence_index, slot, passage, _sentence in material.citations:
            found = labels.get(citation_id)
            if found is None:
                continue
            label, judgment_id = found
            topic_id, run_id, _ = material.answers[answer_id]
            judge_name, judge_kind, condition, shown, seconds, created = details[judgment_id]
            yield {
                "topic_id": topic_id,
                "run_id": run_id,
                "sentence_index": sentence_index,
                "citation_slot": slot,
                "passage_id": passage_ids[passage],
                "judge": judge_name,
                "judge_kind": judge_kind,
                "condition": condition,
                "label": label,
                "shown_label": shown,
                "seconds": seconds,
                "created_at": created.isoformat(),
                "label_set": label_set.spec,
            }


def _passage_ids(pks: set[int]) -> dict[int, str]:
    ids = list(pks)
    found: dict[int, str] = {}
    for start in range(0, len(ids), CHUNK):
        found.update(Passage.objects.filter(pk__in=ids[start : start + CHUNK]).values_list("pk", "passage_id"))
    return found


def _judgment_details(pks: set[int]) -> dict[int, tuple[str, str, str, str, float | None, Any]]:
    ids = list(pks)
    found: dict[int, tuple[str, str, str, str, float | None, Any]] = {}
    for start in range(0, len(ids), CHUNK):
        for pk, name, kind, condition, shown, seconds, created in Judgment.objects.filter(
            pk__in=ids[start : start + CHUNK]
        ).values_list("pk", "judge__name", "judge__kind", "condition", "shown_label", "seconds", "created_at"):
            found[pk] = (name, kind, condition, shown, seconds, created)
    return found


NIST_SUPPORT_CODE = {"FS": "2", "PS": "1", "NS": "0"}


def nist_rows(*, scope: Scope, label_set: LabelSet) -> Iterator[dict[str, Any]]:
    """NIST-style support judgments, one object per (topic, run) the set labelled; `citationId` indexes the
    run's references and `support` is "2", "1", "0", or "-1" for a citation the set did not label."""
    material = material_get(scope)
    citation_labels_ = labels_get(label_set, material)
    labels = labels_as_dict(citation_labels_, material.citation_id)
    touched = {
        int(c)
        for c in material.citation_id[citation_labels_.labelled | citation_labels_.not_judged | citation_labels_.tied]
    }
    passage_ids = _passage_ids({c[4] for c in material.citations})
    by_answer: dict[int, list[tuple[int, int, int, int, int, int]]] = {}
    for c in material.citations:
        by_answer.setdefault(c[1], []).append(c)
    answer_ids = sorted(material.answers, key=lambda pk: (material.answers[pk][0], material.answers[pk][1]))
    for start in range(0, len(answer_ids), 500):
        batch = answer_ids[start : start + 500]
        texts: dict[int, list[str]] = {}
        for answer_id, text in (
            Sentence.objects.filter(answer_id__in=batch).order_by("answer_id", "index").values_list("answer_id", "text")
        ):
            texts.setdefault(answer_id, []).append(text)
        reference_index = dict(
            Citation.objects.filter(sentence__answer_id__in=batch).values_list("pk", "reference_index")
        )
        for answer_id in batch:
            topic_id, run_id, _ = material.answers[answer_id]
            if not any(c[0] in touched for c in by_answer.get(answer_id, [])):
                continue  # an answer the set did not judge at all
            cites: dict[int, list[dict[str, Any]]] = {}
            for citation_id, _a, sentence_index, _slot, passage, _s in by_answer.get(answer_id, []):
                found = labels.get(citation_id)
                cites.setdefault(sentence_index, []).append(
                    {
                        "citationId": reference_index[citation_id],
                        "reference": passage_ids[passage],
                        "support": NIST_SUPPORT_CODE[found[0]] if found else "-1",
                    }
                )
            yield {
                "topic_id": topic_id,
                "run_id": run_id,
                "label_set": label_set.spec,
                "sentences": [
                    {"sentenceId": i, "text": text, "citations": cites.get(i, [])}
                    for i, text in enumerate(texts.get(answer_id, []))
                ],
            }


# --- trec_eval qrels --------------------------------------------------------------------------------


class QrelsLevel:
    SENTENCE = "sentence"
    TOPIC = "topic"
    CHOICES = (SENTENCE, TOPIC)


QRELS_LEVEL_HELP = (
    "sentence: qid topic_id/run_id/sentence_index, docid the cited passage, grade 2 FS, 1 PS, 0 NS; "
    "topic: qid topic_id, docid the passage, grade the highest any labelled citation of that passage in the "
    "topic got. Only labelled citations (not judged, ties and unlabelled ones are left out)"
)


def qrels_rows(*, scope: Scope, label_set: LabelSet, level: str) -> list[tuple[str, str, int]]:
    """(qid, docid, grade) of one label set's labelled citations, sorted; see `QRELS_LEVEL_HELP`. A (qid,
    docid) that several citations give (one passage cited twice in a sentence, or in several sentences or
    runs of a topic) gets the highest of their grades."""
    if level not in QrelsLevel.CHOICES:
        raise ValueError(f"unknown qrels level {level!r}: {' or '.join(QrelsLevel.CHOICES)}")
    material = material_get(scope)
    labels = labels_get(label_set, material)
    labelled = np.flatnonzero(labels.labelled)
    passage_ids = _passage_ids({int(p) for p in material.citation_passage[labelled]})
    best: dict[tuple[str, str, int, str], int] = {}
    for position in labelled.tolist():
        topic_id, run_id, _ = material.answers[int(material.citation_answer[position])]
        key = (
            (topic_id, run_id, int(material.citation_sentence_index[position]))
            if level == QrelsLevel.SENTENCE
            else (topic_id, "", -1)
        ) + (passage_ids[int(material.citation_passage[position])],)
        grade = int(NIST_SUPPORT_CODE[LABELS[int(labels.codes[position])]])  # NIST's grades: FS 2, PS 1, NS 0
        if grade > best.get(key, -1):
            best[key] = grade
    return [
        (f"{topic_id}/{run_id}/{index}" if level == QrelsLevel.SENTENCE else topic_id, docid, grade)
        for (topic_id, run_id, index, docid), grade in sorted(best.items())
    ]
