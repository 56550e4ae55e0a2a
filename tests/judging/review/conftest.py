"""A campaign with two assessors who disagree, a flag, a cannot-judge and an LLM judge's labels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from judging.llm.models import LLMResult, LLMResultStatus
from judging.models import Campaign, CampaignPair, Condition, Judge, JudgeKind, Judgment
from judging.review.access import REVIEWER_GROUP
from judging.services import judgment_submit
from judging.tokens import submission_token
from tests.factories import AssignmentFactory, UserFactory, judging_campaign_build

RAW_REPLY = "No Support (the passage is about another war)"


@dataclass
class ReviewWorld:
    campaign: Campaign
    pairs: list[int]  # the pool's pairs in queue order
    alice: User
    bob: User
    reviewer: User
    llm: Judge


def review_world_build(name: str = "rev") -> ReviewWorld:
    """6 pairs, answered by 2 runs. alice: FS everywhere. bob: FS, FS, NS (differ), cannot judge, FS flagged, FS.
    The LLM: NS on the pair 5 (assessor vs LLM), FS elsewhere."""
    campaign = judging_campaign_build(name=name, n_sentences=6, passages_per_topic=6, runs=2)
    pairs = list(CampaignPair.objects.filter(campaign=campaign).order_by("position").values_list("pair_id", flat=True))
    topic = campaign.topics.get()
    alice, bob = UserFactory(username=f"{name}-alice"), UserFactory(username=f"{name}-bob")
    reviewer = UserFactory(username=f"{name}-reviewer")
    reviewer.groups.add(Group.objects.get_or_create(name=REVIEWER_GROUP)[0])  # a flushed test database lost it
    for user, labels in ((alice, ["FS"] * 6), (bob, ["FS", "FS", "NS", "", "FS", "FS"])):
        assignment = AssignmentFactory(campaign=campaign, assessor=user, topic=topic, condition=Condition.FROM_SCRATCH)
        for i, (pair_id, label) in enumerate(zip(pairs, labels, strict=True)):
            judgment_submit(
                assignment=assignment,
                pair_id=pair_id,
                label=label,
                token=submission_token(assignment_id=assignment.pk, pair_id=pair_id, nth=0),
                seconds=4.0 + i,
                flagged=user == bob and i == 4,
                comment="passage cut short" if user == bob and i == 4 else "",
                not_judged_reason="passage is not in English" if not label else "",
            )
    llm = Judge.objects.create(name=f"{name}-gpt", kind=JudgeKind.LLM)
    for i, pair_id in enumerate(pairs):
        Judgment.objects.create(judge=llm, pair_id=pair_id, label="NS" if i == 5 else "FS")
    LLMResult.objects.create(
        judge=llm,
        prompt_version="v1",
        pair_id=pairs[5],
        status=LLMResultStatus.LABELLED,
        label="NS",
        raw_output=RAW_REPLY,
    )
    return ReviewWorld(campaign, pairs, alice, bob, reviewer, llm)


@pytest.fixture
def world(db: Any) -> ReviewWorld:
    return review_world_build()
