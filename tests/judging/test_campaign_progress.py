"""A campaign's progress per condition (issue 24): from scratch, post-edit and adjudication are never added
together, an empty campaign is "—", and the list, the campaign page and the API read the one selector."""

from __future__ import annotations

import pytest
from django.test import Client

from judging import queue, selectors, services
from judging.models import CampaignPair, Condition
from tests.factories import (
    CampaignFactory,
    LLMJudgeFactory,
    OrganizerFactory,
    PairJudgmentFactory,
    UserFactory,
    judging_campaign_build,
)


def _judge_from_scratch(assignment, n: int) -> None:
    for _ in range(n):
        card = queue.queue_state(assignment=assignment).card
        services.judgment_submit(
            assignment=assignment, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
        )


@pytest.fixture
def two_conditions(db):
    """4 pairs on one topic: alice judged 2 from scratch, bob post-edited 1 of them and 0 others."""
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=4, name="two-conditions")
    campaign.post_edit_judge = LLMJudgeFactory(name="llm-progress")
    campaign.save()
    topics = list(campaign.topics.all())
    (scratch,) = services.assignments_create(
        campaign=campaign, assessor=UserFactory(username="alice"), topics=topics, condition=Condition.FROM_SCRATCH
    )
    (edit,) = services.assignments_create(
        campaign=campaign, assessor=UserFactory(username="bob"), topics=topics, condition=Condition.POST_EDIT
    )
    _judge_from_scratch(scratch, 2)
    pair = CampaignPair.objects.filter(campaign=campaign).order_by("pk").first().pair
    PairJudgmentFactory(
        judge=services.assessor_judge(user=edit.assessor), pair=pair, assignment=edit, condition="post_edit"
    )
    return campaign


def test_it_counts_each_condition_apart_and_never_adds_them(two_conditions):
    # when
    progress = selectors.campaign_progress(campaign=two_conditions)

    # then
    assert progress.pairs == 4
    assert [(c.condition, c.share.done, c.share.total, c.share.text) for c in progress.conditions] == [
        ("from_scratch", 2, 4, "50.0%"),
        ("post_edit", 1, 4, "25.0%"),
    ]


@pytest.mark.django_db
def test_it_shows_a_dash_for_a_campaign_without_pairs_not_0_or_100():
    # given
    empty = CampaignFactory(name="empty")

    # when
    progress = selectors.campaign_progress(campaign=empty)

    # then
    assert progress.pairs == 0
    assert [(c.share.percent, c.share.text) for c in progress.conditions] == [(None, "—"), (None, "—")]


@pytest.mark.django_db
def test_it_lists_adjudication_only_where_it_is_assigned():
    # given
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=4, name="adjudicated")
    services.assignments_create(
        campaign=campaign, assessor=UserFactory(), topics=list(campaign.topics.all()), condition=Condition.ADJUDICATION
    )

    # when
    progress = selectors.campaign_progress(campaign=campaign)

    # then
    assert [(c.condition, c.share.text) for c in progress.conditions] == [
        ("from_scratch", "—"),
        ("post_edit", "—"),
        ("adjudication", "0.0%"),
    ]


def test_the_campaign_list_shows_each_conditions_share(two_conditions):
    # given
    CampaignFactory(name="empty")
    client = Client()
    client.force_login(OrganizerFactory())

    # when
    html = client.get("/organize/campaigns/").content.decode()

    # then
    row = html[html.index(f'id="campaign-{two_conditions.pk}"') :]
    row = row[: row.index("</tr>")]
    assert "From scratch" in row
    assert "50.0%" in row
    assert "Post-edit" in row
    assert "25.0%" in row
    assert "37.5%" not in row
    assert "75.0%" not in row
    empty = html[html.index('<a href="/organize/campaigns/') :]
    assert "—" in empty


def test_the_campaign_page_shows_each_conditions_share(two_conditions):
    client = Client()
    client.force_login(OrganizerFactory())

    html = client.get(f"/organize/campaigns/{two_conditions.pk}/").content.decode()

    block = html[html.index('id="campaign-progress"') :]
    block = block[: block.index("</ul>")]
    assert '<li data-condition="from_scratch">' in block
    assert "50.0%" in block
    assert "2 / 4" in block
    assert '<li data-condition="post_edit">' in block
    assert "25.0%" in block
    assert "1 / 4" in block


def test_the_api_gives_each_conditions_progress_in_the_list_and_the_campaign(two_conditions):
    client = Client()
    client.force_login(OrganizerFactory())

    one = client.get(f"/api/campaigns/{two_conditions.pk}/").json()
    listed = client.get("/api/campaigns/").json()

    expected = [
        {"condition": "from_scratch", "done": 2, "total": 4, "percent": 50.0},
        {"condition": "post_edit", "done": 1, "total": 4, "percent": 25.0},
    ]
    assert one["progress"] == expected
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert next(r for r in rows if r["id"] == two_conditions.pk)["progress"] == expected
