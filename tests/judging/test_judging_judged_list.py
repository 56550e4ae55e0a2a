"""An assessor's own judgments in a topic: listed newest first, each opened again to change it; nobody else's."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from judging import queue, selectors, services
from judging.models import Condition, Judgment
from tests.factories import UserFactory, judging_campaign_build

pytestmark = pytest.mark.django_db


def _assign(campaign, name):
    user = UserFactory(username=name)
    (made,) = services.assignments_create(
        campaign=campaign, assessor=user, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    return selectors.assessor_assignment_get(user=user, assignment_id=made.pk)


def _judge(assignment, label, **kw):
    card = queue.queue_state(assignment=assignment).card
    services.judgment_submit_and_next(
        assignment=assignment, pair_id=card.campaign_pair.pair_id, label=label, token=card.token_uuid, **kw
    )
    return card.campaign_pair.pair_id


def test_the_list_holds_my_judgments_newest_first_with_my_newest_answer(client):
    # given: alice judges three pairs, changes the second; bob judges the same pairs differently
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=4)
    alice, bob = _assign(campaign, "alice"), _assign(campaign, "bob")
    pairs = [
        _judge(alice, "FS"),
        _judge(alice, "PS", flagged=True, comment="?"),
        _judge(alice, "", not_judged_reason="unclear"),
    ]
    state = queue.judged_state(assignment=alice, pair_id=pairs[1])
    services.judgment_submit_and_next(assignment=alice, pair_id=pairs[1], label="NS", token=state.card.token_uuid)
    for _ in range(3):
        _judge(bob, "FS")
    client.force_login(alice.assessor)

    # when
    html = client.get(reverse("judging:judged", args=[alice.pk])).content.decode()

    # then
    assert [int(p) for p in re.findall(r'data-pair="(\d+)"', html)] == [pairs[1], pairs[2], pairs[0]]
    rows = dict(zip(re.findall(r'data-pair="(\d+)"', html), html.split('data-pair="')[1:], strict=True))
    assert "No support" in rows[str(pairs[1])]
    assert "(changed 1\N{MULTIPLICATION SIGN})" in rows[str(pairs[1])]
    assert "Cannot judge" in rows[str(pairs[2])]
    assert "Full support" in rows[str(pairs[0])]
    assert "bob" not in html


def test_a_listed_pair_opens_on_the_judging_page_and_a_new_answer_is_a_new_judgment(client):
    campaign = judging_campaign_build(n_sentences=3, passages_per_topic=3)
    alice = _assign(campaign, "alice")
    first = _judge(alice, "FS")
    _judge(alice, "PS")
    client.force_login(alice.assessor)

    page = client.get(reverse("judging:judged_pair", args=[alice.pk, first])).content.decode()

    assert f'name="pair_id" value="{first}"' in page
    assert "you said <b>Full support</b>" in page
    token = re.search(r'name="token" value="([0-9a-f-]+)"', page).group(1)
    client.post(reverse("judging:submit", args=[alice.pk]), {"pair_id": first, "token": token, "label": "NS"})
    assert list(
        Judgment.objects.filter(assignment=alice, pair_id=first).order_by("pk").values_list("label", flat=True)
    ) == [
        "FS",
        "NS",
    ]


def test_a_pair_i_have_not_judged_and_anothers_list_are_not_found(client):
    campaign = judging_campaign_build(n_sentences=3, passages_per_topic=3)
    alice, bob = _assign(campaign, "alice"), _assign(campaign, "bob")
    judged = _judge(bob, "FS")
    client.force_login(alice.assessor)

    assert client.get(reverse("judging:judged_pair", args=[alice.pk, judged])).status_code == 404
    assert client.get(reverse("judging:judged", args=[bob.pk])).status_code == 404
