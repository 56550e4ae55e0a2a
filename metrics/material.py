"""The material the metrics read: the answers and citations in a scope as numpy arrays, each label set's
label of every citation, and the caches that keep both.

The material changes only when runs are loaded or removed, so it is kept until then; a label set's labels
are kept with the set's version, and the reports built on them under a key that includes the newest
judgment's id, so a new judgment makes a new key.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np
from django.core.cache import cache
from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import Count, Model, Value
from django.db.models.functions import Coalesce

from assess.models import Answer, Citation, Passage, Relevance, Run
from core.arrays import int_columns
from core.sql import aware
from judging.labels import LABEL_CODE, NO_LABEL, CitationLabels, LabelSet, citation_labels
from judging.models import NOT_JUDGED, FinalLabel, Judgment, JudgmentOrigin
from judging.scope import Scope
from metrics.scores import AnswerSupport, support_arrays

CACHE_SECONDS = 3600


# A page that builds several reports reads the versions once (`versions_pinned`): they are read again on every
# report otherwise, and a dashboard builds five. Only for the length of one request, never across requests.
_PINNED: ContextVar[dict[str, Any] | None] = ContextVar("metrics_versions_pinned", default=None)


@contextmanager
def versions_pinned() -> Iterator[None]:
    """Within: the material and data versions, and each label set's, are read once (one page's reports)."""
    token = _PINNED.set({})
    try:
        yield
    finally:
        _PINNED.reset(token)


def _pinned(key: str, read: Callable[[], Any]) -> Any:
    pinned = _PINNED.get()
    if pinned is None:
        return read()
    if key not in pinned:
        pinned[key] = read()
    return pinned[key]


def label_set_version(label_set: LabelSet) -> int:
    return _pinned(f"labels:{label_set.key}", label_set.version)  # type: ignore[no-any-return]


def _versions() -> tuple[str, str]:
    return _pinned("versions", _versions_read)  # type: ignore[no-any-return]


def _versions_read() -> tuple[str, str]:
    """(material version, data version), read in one query: they are part of every metrics cache key."""
    qn = connection.ops.quote_name

    def table(model: type[Model]) -> str:
        return qn(model._meta.db_table)

    def newest(model: type[Model]) -> str:
        return f"(SELECT max({qn(model._meta.pk.column)}) FROM {table(model)})"

    def count(model: type[Model], where: str = "") -> str:
        return f"(SELECT count(*) FROM {table(model)}{where})"

    def column(model: type[Model], name: str) -> str:
        return qn(next(f.column for f in model._meta.concrete_fields if f.name == name))

    def newest_made(model: type[Model]) -> str:
        # The newest row's creation time beside its id: a key built on ids alone is met again when ids are
        # given out again (a recreated database; SQLite after a rolled-back test), and would find the old
        # figures in the cache, which outlives both.
        made = column(model, "created_at")
        return f"(SELECT {made} FROM {table(model)} ORDER BY {qn(model._meta.pk.column)} DESC LIMIT 1)"

    has_text = column(Passage, "has_text")
    sql = (
        f"SELECT {newest(Citation)}, {count(Answer)}, {newest(Relevance)}, {count(Relevance)},"
        f" (SELECT max({column(Run, 'created_at')}) FROM {table(Run)}),"
        f" {newest(Judgment)}, {newest_made(Judgment)}, {newest(FinalLabel)}, {newest_made(FinalLabel)},"
        f" {count(Passage, f' WHERE {has_text}')}"
    )
    with connection.cursor() as cur:
        cur.execute(sql)
        citations, answers, relevance, graded, runs_made, *judged, with_text = cur.fetchone()
    material = f"{citations}:{answers}:{relevance}:{graded}:{_stamp(runs_made)}"
    judgments, judgment_made, finals, final_made = judged
    data = f"{judgments}.{_stamp(judgment_made)}:{finals}.{_stamp(final_made)}"
    return material, f"{data}:{material}:{with_text}"


def _stamp(value: Any) -> str:
    """A creation time in a cache key (SQLite gives it as text, PostgreSQL as a datetime)."""
    made = aware(value)
    return f"{made.timestamp():.6f}" if made is not None else "-"


def material_version() -> str:
    """Changes when runs are loaded or replaced (new citations) or removed (fewer answers), or relevance
    grades are imported (a scope's relevance filter reads them)."""
    return _versions()[0]


def data_version() -> str:
    """Changes whenever a judgment or a final label (`final/<campaign>`) is added or the loaded material
    changes: part of every cache key."""
    return _versions()[1]


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


def memo_clear() -> None:
    """Forget the in-process memo, as a new worker process starts without it (a cold page, in the tests)."""
    _MEMO.clear()


def _remember(key: str, value: Any) -> None:
    _MEMO[key] = value
    _MEMO.move_to_end(key)
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)


def _rows(qs: Any) -> list[tuple[Any, ...]]:
    """A values_list queryset's rows through a plain cursor: the ORM's per-row work is too slow at TREC scale."""
    try:
        sql, params = qs.query.sql_with_params()
    except EmptyResultSet:  # the ORM knows there are no rows (a scope of no topic, `__in=[]`) and writes no SQL
        return []
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
    return scope.answers()


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
    answers = {
        pk: (topic_id, run_id, n)
        for pk, topic_id, run_id, n in _rows(
            _answers_in(scope)
            .order_by()
            .annotate(n=Count("sentences"))
            .values_list("pk", "topic__topic_id", "run__run_id", "n")
        )
    }
    citations_qs = scope.citations()
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
    version = label_set_version(label_set)
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


def labelled_topics(material: Material, labels: CitationLabels) -> list[str]:
    """The topics in which the set gives at least one citation in scope a label: what every page, report and
    export means by a label set's "topics" (not judged and ties do not count)."""
    topics = np.unique(citation_topics(material)[labels.labelled])
    return [material.topic_names[int(t)] for t in topics]


def material_summary(material: Material, unit: str) -> dict[str, Any]:
    """What a page's scope holds, for the line that names it."""
    return {
        "topics": len(material.topics),
        "runs": len(material.runs),
        "citations": len(material.citation_id),
        "unit": unit,
    }


def citation_cards(material: Material, labels_a: CitationLabels, labels_b: CitationLabels) -> np.ndarray:
    """Each citation's card in a drill-down of two sets: (topic, stored pair or minus the citation's id when
    none is stored, A's code, B's code). Citations with equal rows are one card: a pair judged in several
    runs is shown once per pair of labels it gets."""
    group = np.where(material.citation_pair > 0, material.citation_pair, -material.citation_id)
    return np.stack([citation_topics(material), group, labels_a.codes, labels_b.codes], axis=1).astype(np.int64)
