"""Reads that build the metrics' plain data from the database, in a few queries whatever the scale.

A citation's label for a judge (or for all human judges together) is the newest judgment of that judge on
that very citation, else the newest on its pair (DESIGN §2). The results that cost the most are cached
under a key that includes the newest judgment's id, so a new judgment makes a new key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max

from assess.models import Answer, Citation, Passage, Run, Sentence, Topic
from judging.models import Campaign, CampaignPair, Judge, JudgeKind, Judgment, Pair
from judging.services import normalize_sentence_text, text_hash
from metrics.scores import AnswerLabels

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


def data_version() -> str:
    """Changes whenever a judgment is added or the loaded material changes: part of every cache key."""
    judgments = Judgment.objects.aggregate(m=Max("pk"))["m"]
    citations = Citation.objects.aggregate(m=Max("pk"))["m"]
    return f"{judgments}:{citations}:{Answer.objects.count()}:{Passage.objects.filter(has_text=True).count()}"


def cached(key: str, compute: Any) -> Any:
    full = f"metrics:{data_version()}:{key}"
    value = cache.get(full)
    if value is None:
        value = compute()
        cache.set(full, value, CACHE_SECONDS)
    return value


# --- the material in scope ------------------------------------------------------------------------


@dataclass
class Material:
    """The answers and the citations within the depth, as plain rows."""

    answers: dict[int, tuple[str, str, int]]  # answer id -> (topic_id, run_id, sentence count)
    citations: list[tuple[int, int, int, int, int, int]]  # (citation, answer, sentence index, slot, passage, sentence)
    runs: dict[str, tuple[str, str]]  # run_id -> (group, task), every run in scope
    topics: list[str]  # every topic in scope that has an answer

    @property
    def citation_ids(self) -> list[int]:
        return [c[0] for c in self.citations]


def _answers_in(scope: Scope) -> Any:
    qs = Answer.objects.all()
    if scope.topic_ids is not None:
        qs = qs.filter(topic__topic_id__in=scope.topic_ids)
    if scope.run_ids is not None:
        qs = qs.filter(run__run_id__in=scope.run_ids)
    return qs


def material_get(scope: Scope) -> Material:
    answers = {
        pk: (topic_id, run_id, n)
        for pk, topic_id, run_id, n in _answers_in(scope)
        .order_by()
        .values_list("pk", "topic__topic_id", "run__run_id")
        .annotate(n=Count("sentences"))
    }
    citations_qs = Citation.objects.filter(sentence__answer__in=_answers_in(scope))
    if scope.depth is not None:
        citations_qs = citations_qs.filter(slot__lt=scope.depth)
    citations = list(
        citations_qs.order_by("sentence__answer_id", "sentence__index", "slot").values_list(
            "pk", "sentence__answer_id", "sentence__index", "slot", "passage_id", "sentence_id"
        )
    )
    runs_qs = Run.objects.all() if scope.run_ids is None else Run.objects.filter(run_id__in=scope.run_ids)
    if scope.run_ids is None:
        runs_qs = runs_qs.filter(pk__in=_answers_in(scope).values("run_id"))
    runs = {r: (g, t) for r, g, t in runs_qs.values_list("run_id", "group", "task")}
    topics = sorted({t for t, _, _ in answers.values()})
    return Material(answers=answers, citations=citations, runs=runs, topics=topics)


# --- labels ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CitationLabel:
    label: str
    condition: str
    judgment_id: int
    direct: bool  # made on this citation (else on its pair)


def citation_labels(
    judge: JudgeSelection, material: Material, *, condition: str | None = None
) -> dict[int, CitationLabel]:
    """The judge's label of each citation in the material that has one."""
    in_scope = {c[0] for c in material.citations}
    direct: dict[int, CitationLabel] = {}
    by_pair: dict[int, CitationLabel] = {}
    qs = Judgment.objects.filter(judge_id__in=judge.ids)
    if condition:
        qs = qs.filter(condition=condition)
    for pk, citation_id, pair_id, label, cond in qs.order_by("pk").values_list(
        "pk", "citation_id", "pair_id", "label", "condition"
    ):
        by_pair[pair_id] = CitationLabel(label, cond, pk, False)
        if citation_id is not None and citation_id in in_scope:
            direct[citation_id] = CitationLabel(label, cond, pk, True)
    missing = [c for c in material.citations if c[0] not in direct]
    if missing and by_pair:
        direct.update(_labels_through_pairs(missing, by_pair))
    return direct


def _labels_through_pairs(
    missing: list[tuple[int, int, int, int, int, int]], by_pair: dict[int, CitationLabel]
) -> dict[int, CitationLabel]:
    """Labels for citations with no judgment of their own, from the judge's newest judgment on their pair."""
    passages = {c[4] for c in missing}
    pair_of: dict[tuple[str, int], int] = {}
    pair_ids = list(by_pair)
    for start in range(0, len(pair_ids), CHUNK):
        for pk, hashed, passage_id in Pair.objects.filter(
            pk__in=pair_ids[start : start + CHUNK], passage_id__in=passages
        ).values_list("pk", "text_hash", "passage_id"):
            pair_of[(hashed, passage_id)] = pk
    if not pair_of:
        return {}
    judged_passages = {p for _, p in pair_of}
    candidates = [c for c in missing if c[4] in judged_passages]
    hashes = _sentence_hashes({c[5] for c in candidates})
    found: dict[int, CitationLabel] = {}
    for c in candidates:
        pair_id = pair_of.get((hashes.get(c[5], ""), c[4]))
        if pair_id is not None:
            found[c[0]] = by_pair[pair_id]
    return found


def _sentence_hashes(sentence_ids: set[int]) -> dict[int, str]:
    ids = list(sentence_ids)
    hashes: dict[int, str] = {}
    for start in range(0, len(ids), CHUNK):
        for pk, text in Sentence.objects.filter(pk__in=ids[start : start + CHUNK]).values_list("pk", "text"):
            hashes[pk] = text_hash(normalize_sentence_text(text))
    return hashes


def answer_labels(material: Material, labels: dict[int, CitationLabel]) -> list[AnswerLabels]:
    """Plain per-answer data for `metrics.scores`: labels by sentence, in slot order."""
    cited: dict[int, dict[int, list[str | None]]] = {}
    for citation_id, answer_id, sentence_index, _slot, _passage, _sentence in material.citations:
        found = labels.get(citation_id)
        cited.setdefault(answer_id, {}).setdefault(sentence_index, []).append(found.label if found else None)
    return [
        AnswerLabels(
            topic_id=topic_id,
            run_id=run_id,
            sentence_count=n,
            cited=tuple(tuple(v) for v in cited.get(answer_id, {}).values()),
        )
        for answer_id, (topic_id, run_id, n) in material.answers.items()
    ]


# --- Table 3: descriptive statistics -----------------------------------------------------------------


@dataclass
class StatsRow:
    judge: str
    kind: str
    condition: str
    topics: set[str] = field(default_factory=set)
    judged: int = 0  # labelled citations (a pair judged on its own counts once)
    citations: int = 0  # citations in scope
    pairs: set[int] = field(default_factory=set)
    FS: int = 0
    PS: int = 0
    NS: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "kind": self.kind,
            "condition": self.condition,
            "topics": len(self.topics),
            "judged": self.judged,
            "unlabelled": max(0, self.citations - self.judged),
            "distinct_pairs": len(self.pairs),
            "FS": self.FS,
            "PS": self.PS,
            "NS": self.NS,
        }


def support_stats(scope: Scope) -> list[dict[str, Any]]:
    """Per judge and condition: topics, labels (each judge's current labels on the citations in scope, and
    its labels made on pairs alone), the citations in scope it did not label, distinct pairs and
    FS / PS / NS counts (the paper's Table 3)."""
    return cached(f"stats:{scope.key}", lambda: _support_stats(scope))  # type: ignore[no-any-return]


def _support_stats(scope: Scope) -> list[dict[str, Any]]:
    material = material_get(scope)
    topic_of = {c[0]: material.answers[c[1]][0] for c in material.citations}
    judges = {pk: (name, kind) for pk, name, kind in Judge.objects.values_list("pk", "name", "kind")}
    on_citation: dict[tuple[int, int], tuple[str, str, int]] = {}
    on_pair: dict[tuple[int, int], tuple[str, str]] = {}
    for judge_id, citation_id, pair_id, label, condition in Judgment.objects.order_by("pk").values_list(
        "judge_id", "citation_id", "pair_id", "label", "condition"
    ):
        if citation_id is None:
            on_pair[(judge_id, pair_id)] = (label, condition)
        elif citation_id in topic_of:
            on_citation[(judge_id, citation_id)] = (label, condition, pair_id)
    if scope.campaign is not None:
        pool = set(CampaignPair.objects.filter(campaign__name=scope.campaign).values_list("pair_id", flat=True))
        on_pair = {k: v for k, v in on_pair.items() if k[1] in pool}
    rows: dict[tuple[int, str], StatsRow] = {}
    for (judge_id, citation_id), (label, condition, pair_id) in on_citation.items():
        row = rows.setdefault((judge_id, condition), StatsRow(*judges[judge_id], condition))
        row.topics.add(topic_of[citation_id])
        row.judged += 1
        row.pairs.add(pair_id)
        setattr(row, label, getattr(row, label) + 1)
    for (judge_id, pair_id), (label, condition) in on_pair.items():
        row = rows.setdefault((judge_id, condition), StatsRow(*judges[judge_id], condition))
        if pair_id in row.pairs:
            continue
        row.judged += 1
        row.pairs.add(pair_id)
        setattr(row, label, getattr(row, label) + 1)
    for row in rows.values():
        row.citations = len(material.citations)
    return [rows[k].as_dict() for k in sorted(rows, key=lambda k: (judges[k[0]][1], judges[k[0]][0], k[1]))]


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
    labels_a = citation_labels(judge_select(a), material)
    labels_b = citation_labels(judge_select(b), material)
    differ = [
        cid
        for cid in material.citation_ids
        if cid in labels_a and cid in labels_b and labels_a[cid].label != labels_b[cid].label
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
            labels_a[citation.pk].label,
            labels_b[citation.pk].label,
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
        labels = citation_labels(judge, material)
        details = _judgment_details({lab.judgment_id for lab in labels.values()})
        for citation_id, answer_id, sentence_index, slot, passage, _sentence in material.citations:
            found = labels.get(citation_id)
            if found is None:
                continue
            topic_id, run_id, _ = material.answers[answer_id]
            judge_name, judge_kind, shown, seconds, created = details[found.judgment_id]
            yield {
                "topic_id": topic_id,
                "run_id": run_id,
                "sentence_index": sentence_index,
                "citation_slot": slot,
                "passage_id": passage_ids[passage],
                "judge": judge_name if judge.name == HUMAN else judge.name,
                "judge_kind": judge_kind,
                "condition": found.condition,
                "label": found.label,
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


def _judgment_details(pks: set[int]) -> dict[int, tuple[str, str, str, float | None, Any]]:
    ids = list(pks)
    found: dict[int, tuple[str, str, str, float | None, Any]] = {}
    for start in range(0, len(ids), CHUNK):
        for pk, name, kind, shown, seconds, created in Judgment.objects.filter(
            pk__in=ids[start : start + CHUNK]
        ).values_list("pk", "judge__name", "judge__kind", "shown_label", "seconds", "created_at"):
            found[pk] = (name, kind, shown, seconds, created)
    return found


NIST_SUPPORT_CODE = {"FS": "2", "PS": "1", "NS": "0"}


def nist_rows(*, scope: Scope, judge: str) -> Iterator[dict[str, Any]]:
    """NIST-style support judgments, one object per (topic, run) the judge labelled; `citationId` indexes the
    run's references and `support` is "2", "1", "0", or "-1" for a citation the judge did not label."""
    material = material_get(scope)
    labels = citation_labels(judge_select(judge), material)
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
                        "support": NIST_SUPPORT_CODE[found.label] if found else "-1",
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


def topic_list_for(scope: Scope) -> list[str]:
    qs = Topic.objects.filter(answers__in=_answers_in(scope)).distinct().order_by("topic_id")
    return list(qs.values_list("topic_id", flat=True))
