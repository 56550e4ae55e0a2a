"""My judgments (issue 24, point 4): a filter by answer (or cannot judge), topic and flag, pages of 50, and a way
back to the card the assessor left (the pair being changed), never a "finished" page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from judging import queue, selectors, services
from judging.build import campaign_build_pairs, campaign_create
from judging.models import Condition
from tests.factories import PassageFactory, RunFactory, TopicFactory, UserFactory, answer_build, judging_campaign_build

pytestmark = pytest.mark.django_db


def _assign(campaign, name="alice"):
    user = UserFactory(username=name)
    made = services.assignments_create(
        campaign=campaign, assessor=user, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    return [selectors.assessor_assignment_get(user=user, assignment_id=a.pk) for a in made]


def _judge(assignment, label, **kw):
    card = queue.queue_state(assignment=assignment).card
    services.judgment_submit_and_next(
        assignment=assignment, pair_id=card.campaign_pair.pair_id, label=label, token=card.token_uuid, **kw
    )
    return card.campaign_pair.pair_id


def _listed(html: str) -> list[int]:
    return [int(p) for p in re.findall(r'data-pair="(\d+)"', html)]


def test_the_list_filters_by_answer_cannot_judge_and_flag(client):
    # given: four answers of alice's
    (alice,) = _assign(judging_campaign_build(n_sentences=4, passages_per_topic=4))
    full = _judge(alice, "FS")
    flagged = _judge(alice, "NS", flagged=True, comment="odd")
    skipped = _judge(alice, "", not_judged_reason="I do not know enough about the topic")
    _judge(alice, "NS")
    client.force_login(alice.assessor)
    url = reverse("judging:judged", args=[alice.pk])

    # when / then
    assert _listed(client.get(url, {"label": "FS"}).content.decode()) == [full]
    cannot = client.get(url, {"label": "NJ"}).content.decode()
    assert _listed(cannot) == [skipped]
    assert "I do not know enough about the topic" in cannot
    assert _listed(client.get(url, {"flagged": "on"}).content.decode()) == [flagged]
    assert "None of your judgments matches" in client.get(url, {"label": "PS"}).content.decode()


def test_the_list_comes_in_pages_of_fifty_newest_first(client):
    # given: 60 pairs judged
    (alice,) = _assign(judging_campaign_build(n_sentences=60, passages_per_topic=6))
    judged = [_judge(alice, "FS") for _ in range(60)]
    client.force_login(alice.assessor)
    url = reverse("judging:judged", args=[alice.pk])

    # when
    first = client.get(url).content.decode()
    second = client.get(url, {"page": "2"}).content.decode()

    # then
    assert _listed(first) == judged[::-1][:50]
    assert _listed(second) == judged[::-1][50:]
    assert "page 1 of 2" in first
    assert 'rel="next"' in first


def test_the_topic_filter_lists_another_of_my_topics_or_all(client):
    # given: alice has two topics in the campaign, one pair judged in each
    run, topics = RunFactory(), [TopicFactory(), TopicFactory()]
    for topic in topics:
        answer_build(run=run, topic=topic, sentences=[("A claim.", [PassageFactory()])])
    campaign = campaign_create(name="two topics", runs=[run], topics=topics, depth=1, guidelines="")
    campaign_build_pairs(campaign=campaign)
    first, second = _assign(campaign)
    a, b = _judge(first, "FS"), _judge(second, "PS")
    client.force_login(first.assessor)
    url = reverse("judging:judged", args=[first.pk])

    assert _listed(client.get(url).content.decode()) == [a]
    other = client.get(url, {"topic": str(second.pk)}).content.decode()
    assert _listed(other) == [b]
    assert reverse("judging:judged_pair", args=[second.pk, b]) in other
    assert sorted(_listed(client.get(url, {"topic": "all"}).content.decode())) == sorted([a, b])


def test_back_to_judging_returns_to_the_pair_being_changed_even_when_the_topic_is_finished(client):
    # given: every pair of the topic judged; alice changes the first one and opens her list from it
    (alice,) = _assign(judging_campaign_build(n_sentences=2, passages_per_topic=2))
    first = _judge(alice, "FS")
    _judge(alice, "PS")
    client.force_login(alice.assessor)
    changing = client.get(reverse("judging:judged_pair", args=[alice.pk, first])).content.decode()
    link = re.search(r'id="judged-list" href="([^"]+)"', changing).group(1).replace("&amp;", "&")

    # when
    listed = client.get(link).content.decode()

    # then: back to judging is that pair's card, not the finished page
    back = re.search(r'href="([^"]+)" id="back-to-judging"', listed).group(1)
    assert back == reverse("judging:judged_pair", args=[alice.pk, first])
    assert 'data-state="pair"' in client.get(back).content.decode()


def test_a_filter_that_is_not_one_reads_as_none(client):
    (alice,) = _assign(judging_campaign_build(n_sentences=2, passages_per_topic=2))
    judged = _judge(alice, "FS")
    client.force_login(alice.assessor)

    response = client.get(
        reverse("judging:judged", args=[alice.pk]), {"label": "XX", "topic": "999", "page": "x", "from_pair": "-1"}
    )

    assert response.status_code == 200
    assert _listed(response.content.decode()) == [judged]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("size", [(1366, 768), (1024, 768)])
def test_my_judgments_fits_the_window_without_horizontal_overflow(live_server, page, size):
    # given: a page of judgments with long passage ids, a flag and a cannot-judge reason
    from tests.conftest import browser_login

    (alice,) = _assign(judging_campaign_build(n_sentences=12, passages_per_topic=4))
    _judge(alice, "", not_judged_reason="The passage is unreadable, empty or not in a language I read")
    _judge(alice, "PS", flagged=True, comment="?")
    for _ in range(10):
        _judge(alice, "FS")
    page.set_viewport_size({"width": size[0], "height": size[1]})
    browser_login(page, live_server, "alice")

    # when
    page.goto(f"{live_server.url}{reverse('judging:judged', args=[alice.pk])}?topic=all")

    # then
    assert page.locator("#judged tbody tr").count() == 12
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
