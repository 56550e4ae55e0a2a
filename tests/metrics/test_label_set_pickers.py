"""Label-set pickers list each set once, by its name in words (issue 24): a campaign's one assessor and the
campaign's assessor set hold the same labels and are one entry; no entry is named by its spec."""

from __future__ import annotations

import pytest
from django.test import Client

from judging import queue, services
from judging.label_set_pickers import label_set_choices
from judging.models import Condition
from metrics.forms import MetricsFilterForm
from metrics.study.forms import StudyForm
from tests.factories import JudgeFactory, OrganizerFactory, PairJudgmentFactory, UserFactory, judging_campaign_build

pytestmark = pytest.mark.usefixtures("fresh_cache")


@pytest.fixture
def one_assessor(db):
    """Campaign "spring": alice, its only assessor, judged 2 pairs from scratch; an LLM labelled one pair."""
    campaign = judging_campaign_build(n_sentences=3, passages_per_topic=3, name="spring")
    (assignment,) = services.assignments_create(
        campaign=campaign,
        assessor=UserFactory(username="alice"),
        topics=list(campaign.topics.all()),
        condition=Condition.FROM_SCRATCH,
    )
    for _ in range(2):
        card = queue.queue_state(assignment=assignment).card
        services.judgment_submit(
            assignment=assignment, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
        )
    PairJudgmentFactory(judge=JudgeFactory(name="gpt-x", kind="llm"), label="NS")
    return campaign


def test_it_lists_the_campaigns_one_assessor_once_by_name(one_assessor):
    # when
    choices = label_set_choices()

    # then
    assert choices == [
        ("gpt-x/none", "gpt-x (llm, no condition)"),
        ("campaign:spring/from_scratch", "campaign spring, from scratch: alice"),
    ]


def test_it_keeps_both_when_the_assessor_also_judged_outside_the_campaign(one_assessor):
    # given: alice's own set now holds a label the campaign's does not
    alice = services.assessor_judge(user=one_assessor.assignments.get().assessor)
    PairJudgmentFactory(judge=alice, label="PS", condition="from_scratch")

    # when
    specs = [spec for spec, _ in label_set_choices()]

    # then
    assert "alice/from_scratch" in specs
    assert "campaign:spring/from_scratch" in specs


def test_the_dashboard_and_study_pickers_list_each_set_once(one_assessor):
    # when
    dashboard = [name for spec, name in MetricsFilterForm().fields["a"].widget.choices if spec]
    study = [name for _, name in StudyForm().fields["a"].choices]

    # then
    for names in (dashboard, study):
        assert names == ["gpt-x (llm, no condition)", "campaign spring, from scratch: alice"]
        assert not any("/" in name for name in names)


def test_a_chosen_set_the_picker_lists_once_is_shown_by_its_name(one_assessor):
    # given
    client = Client()
    client.force_login(OrganizerFactory())

    # when
    html = client.get("/metrics/", {"a": "alice/from_scratch", "b": "gpt-x"}).content.decode()

    # then
    assert '<option value="alice/from_scratch" selected>alice (human, from scratch)</option>' in html
