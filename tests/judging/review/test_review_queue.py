"""The review queue, final labels and their history (issue 23, point 3)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from judging.models import FinalLabel
from judging.review import selectors, services
from tests.judging.review.conftest import ReviewWorld

pytestmark = pytest.mark.django_db


def test_it_queues_each_kind_of_disagreement(world: ReviewWorld) -> None:
    # when
    items = {i.pair_id: i for i in selectors.review_queue(campaign=world.campaign)}

    # then
    p = world.pairs
    assert set(items) == {p[2], p[3], p[4], p[5]}
    assert items[p[2]].reasons == (selectors.DIFFER, selectors.LLM)
    assert items[p[3]].reasons == (selectors.CANNOT_JUDGE,)
    assert items[p[4]].reasons == (selectors.FLAGGED,)
    assert items[p[5]].reasons == (selectors.LLM,)


def test_the_detail_shows_each_label_with_its_assessor_seconds_comment_and_reason(world: ReviewWorld) -> None:
    # when
    detail = selectors.review_detail(campaign=world.campaign, pair_id=world.pairs[4])

    # then
    assert detail is not None
    bob = next(a for a in detail.assessors if a.assessor == world.bob.username)
    assert (bob.label, bob.seconds, bob.flagged, bob.comment) == ("FS", 8.0, True, "passage cut short")
    cannot = selectors.review_detail(campaign=world.campaign, pair_id=world.pairs[3])
    assert cannot is not None
    assert [a.not_judged_reason for a in cannot.assessors if a.assessor == world.bob.username] == [
        "passage is not in English"
    ]
    assert [(llm.judge, llm.label) for llm in detail.llm] == [(world.llm.name, "FS")]


def test_a_final_label_keeps_who_when_from_what_to_what_and_why(world: ReviewWorld) -> None:
    # given
    pair = world.pairs[2]  # alice FS, bob NS: a tie, so the set has no label yet

    # when
    services.final_label_set(campaign=world.campaign, pair_id=pair, label="PS", reason="half", reviewer=world.reviewer)
    services.final_label_set(campaign=world.campaign, pair_id=pair, label="NS", reason="no", reviewer=world.reviewer)

    # then
    history = selectors.pair_history(campaign=world.campaign, pair_id=pair)
    assert [(h.previous_label, h.label, h.reason, h.reviewer, h.current) for h in history] == [
        ("PS", "NS", "no", world.reviewer.username, True),
        ("", "PS", "half", world.reviewer.username, False),
    ]
    assert history[0].created_at >= history[1].created_at
    item = next(i for i in selectors.review_queue(campaign=world.campaign) if i.pair_id == pair)
    assert item.final_label == "NS"


def test_the_database_holds_one_current_final_label_per_pair_and_campaign(world: ReviewWorld) -> None:
    # given
    services.final_label_set(
        campaign=world.campaign, pair_id=world.pairs[2], label="PS", reason="half", reviewer=world.reviewer
    )

    # when / then
    with pytest.raises(IntegrityError), transaction.atomic():
        FinalLabel.objects.create(
            campaign=world.campaign, pair_id=world.pairs[2], label="FS", reason="x", reviewer=world.reviewer
        )


@pytest.mark.parametrize(
    ("label", "reason", "words"),
    [("XX", "why", "expected FS, PS or NS"), ("FS", "   ", "give a reason"), ("FS", "a\x00b", "without NUL")],
)
def test_a_bad_final_label_is_refused_and_writes_nothing(
    world: ReviewWorld, label: str, reason: str, words: str
) -> None:
    # when
    with pytest.raises(services.ReviewError, match=words):
        services.final_label_set(
            campaign=world.campaign, pair_id=world.pairs[2], label=label, reason=reason, reviewer=world.reviewer
        )

    # then
    assert not FinalLabel.objects.exists()


def test_an_assessor_cannot_set_a_final_label(world: ReviewWorld) -> None:
    # when / then
    with pytest.raises(services.ReviewNotAllowed):
        services.final_label_set(
            campaign=world.campaign, pair_id=world.pairs[2], label="FS", reason="mine", reviewer=world.alice
        )
    assert not FinalLabel.objects.exists()


def test_a_reviewer_who_assesses_the_campaign_cannot_review_it(world: ReviewWorld) -> None:
    # given
    from django.contrib.auth.models import Group

    world.alice.groups.add(Group.objects.get_or_create(name="reviewer")[0])

    # when / then
    with pytest.raises(services.ReviewNotAllowed, match="you hold assignments"):
        services.final_label_set(
            campaign=world.campaign, pair_id=world.pairs[2], label="FS", reason="mine", reviewer=world.alice
        )
