"""The organizer edits assignments on the campaign page: remove one nobody judged in, reorder an assessor's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from judging import queue, selectors, services
from judging.models import Assignment, Condition
from tests.factories import TopicFactory, UserFactory, judging_campaign_build

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_topics():
    """alice has three topics of one campaign, in the order made."""
    campaign = judging_campaign_build(n_sentences=2, name="edits")
    extra = [TopicFactory(), TopicFactory()]
    campaign.topics.add(*extra)
    alice = UserFactory(username="alice")
    made = services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.order_by("pk")), condition=Condition.FROM_SCRATCH
    )
    return campaign, alice, made


def _order(alice) -> list[int]:
    return list(Assignment.objects.filter(assessor=alice).order_by("order", "pk").values_list("pk", flat=True))


def test_an_assignment_nobody_judged_in_is_removed(client, organizer, three_topics):
    campaign, alice, made = three_topics
    client.force_login(organizer)

    client.post(reverse("judging:assignment_remove", args=[campaign.pk, made[1].pk]))

    assert _order(alice) == [made[0].pk, made[2].pk]


def test_an_assignment_with_a_judgment_is_kept_and_the_page_says_why(client, organizer, three_topics):
    campaign, alice, made = three_topics
    first = selectors.assessor_assignment_get(user=alice, assignment_id=made[0].pk)
    card = queue.queue_state(assignment=first).card
    services.judgment_submit_and_next(
        assignment=first, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
    )
    client.force_login(organizer)

    response = client.post(reverse("judging:assignment_remove", args=[campaign.pk, made[0].pk]), follow=True)

    assert "Not removed" in response.content.decode()
    assert "has 1 judgment(s)" in response.content.decode()
    assert _order(alice) == [m.pk for m in made]
    with pytest.raises(services.AssignmentInUse):
        services.assignment_remove(assignment=made[0])


def test_reordering_moves_an_assignment_in_its_assessors_queue(client, organizer, three_topics):
    campaign, alice, made = three_topics
    client.force_login(organizer)
    url = reverse("judging:assignment_move", args=[campaign.pk, made[2].pk])

    client.post(url, {"direction": "up"})
    assert _order(alice) == [made[0].pk, made[2].pk, made[1].pk]
    client.post(url, {"direction": "up"})
    client.post(url, {"direction": "up"})  # already first: stays
    assert _order(alice) == [made[2].pk, made[0].pk, made[1].pk]
    client.post(url, {"direction": "down"})
    assert _order(alice) == [made[0].pk, made[2].pk, made[1].pk]
    # the assessor's page offers the topics in that order
    ids = [a.pk for a in selectors.assessor_assignments(user=alice)]
    assert ids == _order(alice)


def test_an_assignment_of_another_campaign_is_not_found_and_assessors_are_refused(client, organizer, three_topics):
    campaign, _, made = three_topics
    other = judging_campaign_build(n_sentences=1, name="other")
    client.force_login(organizer)
    assert client.post(reverse("judging:assignment_remove", args=[other.pk, made[0].pk])).status_code == 404

    client.force_login(UserFactory(username="carol"))
    assert client.post(reverse("judging:assignment_remove", args=[campaign.pk, made[0].pk])).status_code == 403
    assert Assignment.objects.filter(pk=made[0].pk).exists()
