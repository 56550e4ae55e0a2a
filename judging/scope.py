"""What labels are read over: a campaign's topics and runs, or everything loaded, down to a depth.

Scores, agreement and the judgment exports all take a `Scope`; which answers and citations it holds is
written here once."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.db.models import QuerySet

from assess.models import Answer, Citation
from judging.models import Campaign

EVERY_CITATION = 0  # as a depth: every citation of each sentence
MAX_DEPTH = 1000  # the largest depth a page or the API accepts: beyond any sentence's citations


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
        return qs.filter(slot__lt=self.depth) if self.depth is not None else qs


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
