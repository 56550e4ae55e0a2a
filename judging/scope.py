"""What labels are read over: a campaign's topics and runs, or everything loaded, down to a depth.

Scores, agreement and the judgment exports all take a `Scope`; which answers and citations it holds is
written here once."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.db.models import Exists, OuterRef, QuerySet

from assess.models import Answer, Citation, Relevance
from judging.models import Campaign

EVERY_CITATION = 0  # as a depth: every citation of each sentence
MAX_DEPTH = 1000  # the largest depth a page or the API accepts: beyond any sentence's citations
RELEVANCE_HELP = (
    "only citations of passages that SOURCE graded at least MIN (0-3) for the answer's topic, as SOURCE:MIN "
    "(import_qrels); the depth is applied first, and a sentence left without a citation counts 0 in recall"
)


@dataclass(frozen=True)
class RelevanceFilter:
    """Keep the citations whose passage `source` graded at least `min_grade` for the answer's topic."""

    source: str
    min_grade: int

    @property
    def spec(self) -> str:
        return f"{self.source}:{self.min_grade}"


def relevance_filter_parse(spec: str) -> RelevanceFilter:
    """`SOURCE:MIN` (e.g. `nist:1`); ValueError naming what is wrong."""
    source, _, grade = spec.strip().rpartition(":")
    if not source or grade not in ("0", "1", "2", "3"):
        raise ValueError(f"relevance filter {spec!r}: expected SOURCE:MIN with MIN 0, 1, 2 or 3 (e.g. nist:1)")
    if not Relevance.objects.filter(source=source).exists():
        raise ValueError(f"relevance filter {spec!r}: no grades of source {source!r} are loaded (import_qrels)")
    return RelevanceFilter(source, int(grade))


@dataclass(frozen=True)
class Scope:
    """What the metrics are computed over: a campaign's topics and runs, or everything loaded."""

    campaign: str | None = None
    topic_ids: frozenset[str] | None = None
    run_ids: frozenset[str] | None = None
    depth: int | None = 1  # citations per sentence; None = every citation
    relevance: RelevanceFilter | None = None

    @property
    def key(self) -> str:
        parts = [
            self.campaign or "",
            ",".join(sorted(self.topic_ids)) if self.topic_ids is not None else "*",
            ",".join(sorted(self.run_ids)) if self.run_ids is not None else "*",
            str(self.depth),
        ] + ([self.relevance.spec] if self.relevance is not None else [])
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
            relevance=self.relevance,
        )

    def answers(self) -> QuerySet[Answer]:
        qs = Answer.objects.all()
        if self.topic_ids is not None:
            qs = qs.filter(topic__topic_id__in=self.topic_ids)
        if self.run_ids is not None:
            qs = qs.filter(run__run_id__in=self.run_ids)
        return qs

    def citations(self) -> QuerySet[Citation]:
        """The citations of the answers in scope within the depth."""
        qs = Citation.objects.filter(sentence__answer__in=self.answers())
        if self.depth is not None:
            qs = qs.filter(slot__lt=self.depth)
        if self.relevance is not None:
            qs = qs.filter(
                Exists(
                    Relevance.objects.filter(
                        source=self.relevance.source,
                        grade__gte=self.relevance.min_grade,
                        topic_id=OuterRef("sentence__answer__topic__topic_id"),
                        passage_id=OuterRef("passage__passage_id"),
                    )
                )
            )
        return qs


def scope_for(
    *,
    campaign: str | Campaign | None = None,
    depth: int | None = None,
    topics: Iterable[str] | None = None,
    relevance: RelevanceFilter | None = None,
) -> Scope:
    """A campaign's topics, runs and depth (a given depth overrides it), or all loaded material at depth 1.
    Depth `EVERY_CITATION` (0) takes every citation of each sentence."""
    topic_ids = frozenset(topics) if topics is not None else None
    if relevance is not None:
        return replace(scope_for(campaign=campaign, depth=depth, topics=topics), relevance=relevance)
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
