"""Support per citation, TREC 2024 (DESIGN §2): does the cited passage support the sentence? The platform's first
kind; its rules live where they always have (judging, metrics), and this names them for the registry."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judging.build import campaign_build_pairs
from judging.counts import assignments_with_progress
from judging.guidelines import DEFAULT_GUIDELINES
from judging.kinds import Kind
from judging.models import Assignment, Campaign
from judging.progress import Share
from judging.vocabulary import SUPPORT


def _build(campaign: Campaign, *, allow_missing_text: bool = False) -> dict[str, Any]:
    return campaign_build_pairs(campaign=campaign, allow_missing_text=allow_missing_text)


def _progress(assignments: Sequence[Assignment]) -> dict[int, Share]:
    ids = [a.pk for a in assignments]
    rows = assignments_with_progress(Assignment.objects.filter(pk__in=ids))
    return {a.pk: Share(done=a.done, total=a.total) for a in rows}  # type: ignore[attr-defined]


KIND = Kind(
    name="support",
    title="Support per citation (TREC 2024)",
    unit="citation",
    steps=(SUPPORT,),
    judge_url="judging:judge",
    build=_build,
    progress=_progress,
    counted_as="pairs",
    default_guidelines=DEFAULT_GUIDELINES,
)
