"""Reads that build the metrics' plain data from the database, in a few queries whatever the scale.

A citation's label for a judge (or for all human judges together) is the newest judgment of that judge on
that very citation, else the newest on its pair (DESIGN §2). The results that cost the most are cached
under a key that includes the newest judgment's id, so a new judgment makes a new key.
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
from django.db.models import Case, Count, Exists, IntegerField, Max, OuterRef, Q, Value, When
from django.db.models.functions import Coalesce

from assess.models import Answer, Citation, Passage, Run, Sentence
from judging.models import Campaign, CampaignPair, Condition, Judge, JudgeKind, Judgment, Pair
from judging.services import normalize_sentence_text, text_hash
from metrics.scores import LABELS, AnswerSupport, support_arrays

HUMAN = "human"  # the judge name that means every human judge together
CACHE_SECONDS = 3600
CHUNK = 5000
EVERY_CITATION = 0  # as a depth: every citation of each sentence


class UnknownJudge(ValueError):
    pass


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


@dataclass(frozen=True)
class JudgeSelection:
    name: str
    ids: tuple[int, ...]
    kind: str


def judge_select(name: str) -> JudgeSelection:
    """A judge by name, or `human`: every human judge together."""
    if name == HUMAN and not Judge.objects.filter(name=HUMAN).exists():
        ids = tuple(Judge.objects.filter(kind=JudgeKind.HUMAN).order_by("pk").values_list("pk", flat=True))
        return JudgeSelection(HUMAN, ids, JudgeKind.HUMAN)
    judge = Judge.objects.filter(name=name).first()
    if judge is None:
        raise UnknownJudge(f"no judge named {name!r}")
    return JudgeSelection(judge.name, (judge.pk,), judge.kind)


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


def _int_columns(rows: list[tuple[Any, ...]], width: int) -> list[np.ndarray]:
    if not rows:
        return [np.zeros(0, dtype=np.int64) for _ in range(width)]
    table = np.array(rows, dtype=np.int64).reshape(len(rows), width)
    return [table[:, i] for i in range(width)]


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
    citation_id, answer, sentence_index, slot, passage, sentence = _int_columns(
        _rows(
            citations_qs.order_by("sentence__answer_id", "sentence__index", "slot").values_list(
                "pk", "sentence__answer_id", "sentence__index", "slot", "passage_id", "sentence_id"
            )
        ),
        6,
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
        runs=runs,
        topics=topics,
        key=f"{material_version()}:{scope.key}",
    )


# --- labels ---------------------------------------------------------------------------------------

LABEL_CODE = {label: code for code, label in enumerate(LABELS)}  # NS 0, PS 1, FS 2
CONDITIONS: tuple[str, ...] = ("", *Condition.values)


@dataclass
class Labels:
    """One judge's label of each citation of a material: arrays aligned with the material's citations."""

    codes: np.ndarray  # -1: no label; else an index into LABELS
    judgment_ids: np.ndarray  # the judgment that gave the label (0: none)
    pair_ids: np.ndarray  # that judgment's pair (0: none)
    direct: np.ndarray  # the judgment was made on this very citation
    conditions: np.ndarray  # that judgment's condition, an index into CONDITIONS
    # The judge's newest judgment on each pair it judged with no citation (pre-labels), for Table 3:
    pair_only_ids: np.ndarray
    pair_only_codes: np.ndarray
    pair_only_conditions: np.ndarray

    def as_dict(self, material: Material) -> dict[int, tuple[str, int]]:
        """citation id -> (label, judgment id), for the paths that handle few citations."""
        labelled = np.nonzero(self.codes >= 0)[0]
        return {int(material.citation_id[i]): (LABELS[int(self.codes[i])], int(self.judgment_ids[i])) for i in labelled}


INCREMENTAL_LIMIT = 2_000  # more new judgments than this: read the judge's labels afresh


def citation_labels(judge: JudgeSelection, material: Material, *, condition: str | None = None) -> Labels:
    """The judge's label of each citation in the material (newest on the citation, else newest on its pair).

    Kept per judge (in process and in the shared cache) with the id of the judge's newest judgment; when
    that judge has new judgments, only those are read and applied to the kept labels."""
    judgments = _judgments_of(judge, condition)
    version = judgments.aggregate(m=Max("pk"))["m"] or 0
    key = f"metrics:labels:{material.key}:{','.join(map(str, judge.ids))}:{condition or ''}"
    kept = _MEMO.get(key) or cache.get(key)
    if kept is not None and kept[0] == version:
        _remember(key, kept)
        return kept[1]  # type: ignore[no-any-return]
    labels = None
    if kept is not None and kept[0] < version:
        labels = _labels_update(kept[1], material, judgments.filter(pk__gt=kept[0]))
    if labels is None:
        labels = _citation_labels(judge, material, condition)
    _remember(key, (version, labels))
    cache.set(key, (version, labels), CACHE_SECONDS)
    return labels


def _judgments_of(judge: JudgeSelection, condition: str | None) -> Any:
    qs = Judgment.objects.filter(judge_id__in=judge.ids)
    return qs.filter(condition=condition) if condition else qs


def _label_columns(qs: Any) -> list[np.ndarray]:
    """(pk, citation or 0, pair, label code, condition code) of the judgments, oldest first."""
    label_code = Case(*(When(label=k, then=Value(v)) for k, v in LABEL_CODE.items()), output_field=IntegerField())
    condition_code = Case(
        *(When(Q(condition=k), then=Value(v)) for v, k in enumerate(CONDITIONS)),
        default=Value(0),
        output_field=IntegerField(),
    )
    return _int_columns(
        _rows(
            qs.order_by("pk")
            .annotate(
                code=label_code, condition_code=condition_code, citation_or_zero=Coalesce("citation_id", Value(0))
            )
            .values_list("pk", "citation_or_zero", "pair_id", "code", "condition_code")
        ),
        5,
    )


def _labels_update(labels: Labels, material: Material, new: Any) -> Labels | None:
    """Apply a judge's judgments newer than the kept labels, oldest first; None when there are too many."""
    if new.count() > INCREMENTAL_LIMIT:
        return None
    codes, judgment_ids, pair_ids = labels.codes.copy(), labels.judgment_ids.copy(), labels.pair_ids.copy()
    direct, conditions = labels.direct.copy(), labels.conditions.copy()
    only_ids, only_codes, only_conditions = (
        list(labels.pair_only_ids.tolist()),
        list(labels.pair_only_codes.tolist()),
        list(labels.pair_only_conditions.tolist()),
    )
    rows = list(zip(*(c.tolist() for c in _label_columns(new)), strict=True))
    # Citations with no label yet that hold one of the newly judged pairs.
    missing = np.nonzero(codes < 0)[0]
    fresh: dict[int, list[int]] = {}
    if len(missing):
        for position, pair in _pairs_of(material, missing, {row[2]: 0 for row in rows}).items():
            fresh.setdefault(pair, []).append(position)
    for pk, citation, pair, label, cond in rows:
        # The pair's newest judgment labels every citation that is labelled through that pair.
        through_pair = np.nonzero(~direct & (pair_ids == pair))[0].tolist()
        through_pair += [p for p in fresh.get(pair, []) if not direct[p]]
        for p in through_pair:
            codes[p], judgment_ids[p], pair_ids[p], conditions[p] = label, pk, pair, cond
        if citation:
            position = int(material.positions_of(np.array([citation]))[0])
            if position >= 0:
                codes[position], judgment_ids[position], pair_ids[position] = label, pk, pair
                conditions[position], direct[position] = cond, True
        elif pair in only_ids:
            i = only_ids.index(pair)
            only_codes[i], only_conditions[i] = label, cond
        else:
            only_ids.append(pair)
            only_codes.append(label)
            only_conditions.append(cond)
    return Labels(
        codes,
        judgment_ids,
        pair_ids,
        direct,
        conditions,
        np.array(only_ids, dtype=np.int64),
        np.array(only_codes, dtype=np.int64),
        np.array(only_conditions, dtype=np.int64),
    )


def _citation_labels(judge: JudgeSelection, material: Material, condition: str | None) -> Labels:
    n = len(material.citation_id)
    codes = np.full(n, -1, dtype=np.int8)
    judgment_ids = np.zeros(n, dtype=np.int64)
    pair_ids = np.zeros(n, dtype=np.int64)
    direct = np.zeros(n, dtype=bool)
    conditions = np.zeros(n, dtype=np.int8)
    pk, citation, pair, label, cond = _label_columns(_judgments_of(judge, condition))
    # Newest first: np.unique then keeps each citation's (or pair's) newest judgment.
    pk, citation, pair, label, cond = pk[::-1], citation[::-1], pair[::-1], label[::-1], cond[::-1]
    on_citation = citation > 0
    unique_citations, first = np.unique(citation[on_citation], return_index=True)
    chosen = np.nonzero(on_citation)[0][first]
    positions = material.positions_of(unique_citations)
    hit = positions >= 0
    codes[positions[hit]] = label[chosen[hit]]
    judgment_ids[positions[hit]] = pk[chosen[hit]]
    pair_ids[positions[hit]] = pair[chosen[hit]]
    conditions[positions[hit]] = cond[chosen[hit]]
    direct[positions[hit]] = True
    missing = np.nonzero(codes < 0)[0]
    if len(missing) and len(pk):
        unique_pairs, first_pair = np.unique(pair, return_index=True)
        by_pair = {int(p): int(i) for p, i in zip(unique_pairs, first_pair, strict=True)}
        for position, pair_id in _pairs_of(material, missing, by_pair).items():
            i = by_pair[pair_id]
            codes[position], judgment_ids[position], conditions[position] = label[i], pk[i], cond[i]
            pair_ids[position] = pair_id
    only_pairs, first_only = np.unique(pair[~on_citation], return_index=True)
    chosen_only = np.nonzero(~on_citation)[0][first_only]
    return Labels(codes, judgment_ids, pair_ids, direct, conditions, only_pairs, label[chosen_only], cond[chosen_only])


def _pairs_of(material: Material, missing: np.ndarray, by_pair: dict[int, int]) -> dict[int, int]:
    """For citations with no judgment of their own: position -> the judged pair they hold."""
    passages = set(material.citation_passage[missing].tolist())
    pair_of: dict[tuple[str, int], int] = {}
    pair_ids = list(by_pair)
    for start in range(0, len(pair_ids), CHUNK):
        for pk, hashed, passage_id in Pair.objects.filter(
            pk__in=pair_ids[start : start + CHUNK], passage_id__in=passages
        ).values_list("pk", "text_hash", "passage_id"):
            pair_of[(hashed, passage_id)] = pk
    if not pair_of:
        return {}
    judged_passages = np.array(sorted({p for _, p in pair_of}), dtype=np.int64)
    candidates = missing[np.isin(material.citation_passage[missing], judged_passages)].tolist()
    hashes = _sentence_hashes({int(material.citation_sentence[i]) for i in candidates})
    found: dict[int, int] = {}
    for i in candidates:
        pair_id = pair_of.get((hashes.get(int(material.citation_sentence[i]), ""), int(material.citation_passage[i])))
        if pair_id is not None:
            found[i] = pair_id
    return found


def _sentence_hashes(sentence_ids: set[int]) -> dict[int, str]:
    ids = list(sentence_ids)
    hashes: dict[int, str] = {}
    for start in range(0, len(ids), CHUNK):
        for pk, text in Sentence.objects.filter(pk__in=ids[start : start + CHUNK]).values_list("pk", "text"):
            hashes[pk] = text_hash(normalize_sentence_text(text))
    return hashes


def answer_support(material: Material, labels: Labels) -> AnswerSupport:
    """Per-answer precision and recall (in `material.answer_order`) from the labels."""
    sentence_of, sentence_answer = material.sentence_positions
    counts = material.answer_columns[2]
    return support_arrays(
        codes=labels.codes,
        citation_sentence=sentence_of,
        sentence_answer=sentence_answer,
        sentence_counts=counts,
    )


# --- Table 3: descriptive statistics -----------------------------------------------------------------


def support_stats(scope: Scope) -> list[dict[str, Any]]:
    """Per judge and condition (the paper's Table 3): topics; `judged`, the judge's current labels of the
    citations in scope (plus its labels made on pairs alone, in a campaign's pool or anywhere when no
    campaign is chosen, whose pair it did not also label on a citation in scope); the citations in scope
    it did not label; distinct pairs; FS / PS / NS counts. Counted in the database."""
    return cached(f"stats:{scope.key}", lambda: _support_stats(scope))  # type: ignore[no-any-return]


def _distinct_count(values: np.ndarray) -> int:
    """How many distinct values (by sorting: numpy's hash-based unique is slow on large integer arrays)."""
    if len(values) == 0:
        return 0
    ordered = np.sort(values)
    return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def _support_stats(scope: Scope) -> list[dict[str, Any]]:
    material = material_get(scope)
    answer_topic = material.answer_columns[1]
    citation_topic = answer_topic[material.citation_answer_position] if len(answer_topic) else np.zeros(0, dtype=int)
    pool: np.ndarray | None = None
    if scope.campaign is not None:
        pool = np.array(
            sorted(CampaignPair.objects.filter(campaign__name=scope.campaign).values_list("pair_id", flat=True)),
            dtype=np.int64,
        )
    rows = []
    judges = Judge.objects.filter(Exists(Judgment.objects.filter(judge_id=OuterRef("pk"))))
    for judge in judges.order_by("kind", "name"):
        labels = citation_labels(JudgeSelection(judge.name, (judge.pk,), judge.kind), material)
        direct = labels.direct
        only = ~np.isin(labels.pair_only_ids, labels.pair_ids[direct])
        if pool is not None:
            only &= np.isin(labels.pair_only_ids, pool)
        for c, condition in enumerate(CONDITIONS):
            on_citation = direct & (labels.conditions == c)
            on_pair = only & (labels.pair_only_conditions == c)
            judged = int(on_citation.sum() + on_pair.sum())
            if not judged:
                continue
            counts = np.bincount(labels.codes[on_citation], minlength=3) + np.bincount(
                labels.pair_only_codes[on_pair], minlength=3
            )
            pairs = _distinct_count(np.concatenate([labels.pair_ids[on_citation], labels.pair_only_ids[on_pair]]))
            rows.append(
                {
                    "judge": judge.name,
                    "kind": judge.kind,
                    "condition": condition,
                    "topics": _distinct_count(citation_topic[on_citation]),
                    "judged": judged,
                    "unlabelled": max(0, len(material.citation_id) - judged),
                    "distinct_pairs": pairs,
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


def disagreements(*, a: str, b: str, scope: Scope, topic_id: str) -> list[Disagreement]:
    """The pairs of one topic on which the two judges' labels differ, with sentence and passage."""
    topic_scope = scope.narrowed(topic_ids=[topic_id])
    material = material_get(topic_scope)
    labels_a = citation_labels(judge_select(a), material).as_dict(material)
    labels_b = citation_labels(judge_select(b), material).as_dict(material)
    differ = [
        cid
        for cid in material.citation_ids
        if cid in labels_a and cid in labels_b and labels_a[cid][0] != labels_b[cid][0]
    ]
    grouped: dict[tuple[str, int, str, str], list[Citation]] = {}
    for citation in (
        Citation.objects.filter(pk__in=differ)
        .select_related("sentence__answer__run", "passage")
        .order_by("sentence__answer__run__run_id", "sentence__index", "slot")
    ):
        key = (
            normalize_sentence_text(citation.sentence.text),
            citation.passage_id,
            labels_a[citation.pk][0],
            labels_b[citation.pk][0],
        )
        grouped.setdefault(key, []).append(citation)
    result = []
    for (text, _passage, label_a, label_b), cites in grouped.items():
        first = cites[0]
        result.append(
            Disagreement(
                run_id=first.sentence.answer.run.run_id,
                sentence_index=first.sentence.index,
                sentence=text,
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
)


def exchange_rows(*, scope: Scope, judges: Iterable[str] | None = None) -> Iterator[dict[str, Any]]:
    """The judgments exchange rows: each judge's label of each citation in scope that it labelled."""
    material = material_get(scope)
    names = list(judges) if judges else [name for name, _ in judge_names()]
    passage_ids = _passage_ids({c[4] for c in material.citations})
    for name in names:
        judge = judge_select(name)
        labels = citation_labels(judge, material).as_dict(material)
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
                "judge": judge_name if judge.name == HUMAN else judge.name,
                "judge_kind": judge_kind,
                "condition": condition,
                "label": label,
                "shown_label": shown,
                "seconds": seconds,
                "created_at": created.isoformat(),
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


def nist_rows(*, scope: Scope, judge: str) -> Iterator[dict[str, Any]]:
    """NIST-style support judgments, one object per (topic, run) the judge labelled; `citationId` indexes the
    run's references and `support` is "2", "1", "0", or "-1" for a citation the judge did not label."""
    material = material_get(scope)
    labels = citation_labels(judge_select(judge), material).as_dict(material)
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
            if not any(c[0] in labels for c in by_answer.get(answer_id, [])):
                continue  # an answer the judge did not judge at all
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
                "sentences": [
                    {"sentenceId": i, "text": text, "citations": cites.get(i, [])}
                    for i, text in enumerate(texts.get(answer_id, []))
                ],
            }
