"""A small known campaign for the quality tests: 8 pairs (one citation each) on one topic, three assessors
from scratch with set labels, seconds and times, an LLM judge's pair labels and NIST's citation labels."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from assess.models import Citation
from judging import services
from judging.models import Campaign, CampaignPair, Condition, JudgeKind, Judgment, JudgmentOrigin, Pair
from judging.tokens import submission_token
from tests.factories import JudgeFactory, JudgmentFactory, PairJudgmentFactory, UserFactory, judging_campaign_build

START = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

# In queue order (pair 0..7). "" is "cannot judge".
LABELS = {
    "alice": ["FS", "PS", "NS", "FS", "FS", "NS", "PS", "FS"],
    "bob": ["FS", "NS", "NS", "FS", "PS", "NS", "PS", ""],
    "carol": ["PS", "PS", "NS", "FS", "FS"],
}
SECONDS = {
    "alice": [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0],
    "bob": [5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 17.0, 19.0],
    "carol": [30.0, 31.0, 33.0, 36.0, 40.0],
}
# Minutes after START of each judgment: alice breaks 30 minutes after her 4th.
MINUTES = {
    "alice": [0, 1, 2, 3, 33, 34, 35, 36],
    "bob": [0, 2, 4, 6, 8, 10, 12, 14],
    "carol": [0, 5, 10, 21, 22],
}
ALICE_CORRECTION = ("PS", 95.0, 40)  # alice changes pair 7 (FS -> PS) 40 minutes after START
LLM = ["FS", "NS", "NS", "FS", "FS", "PS", "PS", "NS"]  # per pair
NIST = ["FS", "PS", "PS", "FS", "FS", "NS", "NS", "FS"]  # per citation (one citation per pair)


@dataclass
class KnownCampaign:
    campaign: Campaign
    pairs: list[int]  # pair ids in queue order
    citations: list[int]  # the one citation of each pair
    assignments: dict[str, Any]


def known_campaign_build() -> KnownCampaign:
    campaign = judging_campaign_build(n_sentences=8, passages_per_topic=8, name="quality-known")
    topic = campaign.topics.get()
    pool = list(CampaignPair.objects.filter(campaign=campaign).order_by("position"))
    pairs = [cp.pair_id for cp in pool]
    citations = [cp.context_citation_id for cp in pool]
    assignments = {}
    for name, labels in LABELS.items():
        user = UserFactory(username=name)
        (assignment,) = services.assignments_create(
            campaign=campaign, assessor=user, topics=[topic], condition=Condition.FROM_SCRATCH
        )
        assignments[name] = assignment
        for k, label in enumerate(labels):
            result = services.judgment_submit(
                assignment=assignment,
                pair_id=pairs[k],
                label=label,
                token=submission_token(assignment_id=assignment.pk, pair_id=pairs[k], nth=0),
                seconds=SECONDS[name][k],
                not_judged_reason="" if label else "the passage is cut off",
                flagged=(name == "bob" and k == 7),
            )
            Judgment.objects.filter(pk=result.judgment.pk).update(
                created_at=START + timedelta(minutes=MINUTES[name][k])
            )
    label, seconds, minutes = ALICE_CORRECTION
    result = services.judgment_submit(
        assignment=assignments["alice"],
        pair_id=pairs[7],
        label=label,
        token=submission_token(assignment_id=assignments["alice"].pk, pair_id=pairs[7], nth=1),
        seconds=seconds,
    )
    Judgment.objects.filter(pk=result.judgment.pk).update(created_at=START + timedelta(minutes=minutes))
    llm = JudgeFactory(name="gpt-known", kind=JudgeKind.LLM)
    for pair, label in zip(pairs, LLM, strict=True):
        PairJudgmentFactory(judge=llm, pair=Pair.objects.get(pk=pair), label=label)
    nist = JudgeFactory(name="nist", kind=JudgeKind.HUMAN)
    for citation, pair, label in zip(citations, pairs, NIST, strict=True):
        JudgmentFactory(
            judge=nist,
            citation=Citation.objects.get(pk=citation),
            pair=Pair.objects.get(pk=pair),
            label=label,
            condition=Condition.FROM_SCRATCH,
            origin=JudgmentOrigin.IMPORT,
        )
    return KnownCampaign(campaign, pairs, citations, assignments)


@pytest.fixture
def known(db: Any, fresh_cache: Any) -> KnownCampaign:
    return known_campaign_build()
