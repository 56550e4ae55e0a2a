"""A small sentence campaign: one topic, two runs; each answer has a sentence citing two passages, one citing
one, and one citing none. An LLM judge labelled every sentence (condition ""); alice has an assignment in
each condition."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from assess.models import Sentence
from judging.models import Assignment, Campaign, Condition, Judge
from kinds.sentence.kind import KIND
from kinds.sentence.services import llm_labels_store
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    LLMJudgeFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
    answer_build,
)

# What the LLM said of each sentence (by its place: run, index): distinctive, so a blindness test can search.
LLM_LABELS = {0: (True, "PS"), 1: (True, "FS"), 2: (True, ""), 3: (False, ""), 4: (True, "NS"), 5: (True, "")}


@dataclass
class SentenceCampaign:
    campaign: Campaign
    llm: Judge
    sentences: list[Sentence]  # in pool order
    scratch: Assignment
    post_edit: Assignment
    user: Any


@pytest.fixture
def sentence_campaign(db: Any) -> SentenceCampaign:
    topic = TopicFactory(text="How did Marius reform the Roman army?")
    runs = [RunFactory(run_id="alpha.run"), RunFactory(run_id="beta.run")]
    p = [PassageFactory() for _ in range(4)]
    for k, run in enumerate(runs):
        answer_build(
            run=run,
            topic=topic,
            sentences=[
                (f"Marius opened the legions to the landless poor ({k}).", [p[0], p[1 + k]]),
                (f"The state paid for arms and armour ({k}).", [p[3]]),
                (f"Soldiers received land on retirement ({k}).", []),
            ],
        )
    llm = LLMJudgeFactory(name="gpt-sentences")
    campaign = CampaignFactory(name="sentences", kind="sentence", post_edit_judge=llm)
    campaign.runs.set(runs)
    campaign.topics.set([topic])
    KIND.build(campaign)
    sentences = list(
        Sentence.objects.filter(answer__topic=topic).order_by("answer__run__run_id", "index").select_related("answer")
    )
    llm_labels_store(llm, {s.pk: LLM_LABELS[i] for i, s in enumerate(sentences)})
    user = UserFactory(username="alice")
    scratch = AssignmentFactory(campaign=campaign, assessor=user, topic=topic, condition=Condition.FROM_SCRATCH)
    post_edit = AssignmentFactory(campaign=campaign, assessor=user, topic=topic, condition=Condition.POST_EDIT, order=1)
    return SentenceCampaign(campaign, llm, sentences, scratch, post_edit, user)
