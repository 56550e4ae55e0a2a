"""Submitting judgments: one per token, post-edit records, queue order, going back, concurrency."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db import connection

from judging import build, counts, queue, services
from judging.models import AssignmentStatus, CampaignPair, Condition, Judgment
from judging.pool import assignment_pending
from judging.progress import Share
from tests.factories import LLMJudgeFactory, PairJudgmentFactory, UserFactory, judging_campaign_build


def _assign(campaign, user, condition=Condition.FROM_SCRATCH):
    return services.assignments_create(
        campaign=campaign, assessor=user, topics=list(campaign.topics.all()), condition=condition
    )[0]


def _submit_next(assignment, label="FS", seconds=3.0):
    card = queue.queue_state(assignment=assignment).card
    assert card is not None
    return services.judgment_submit(
        assignment=assignment,
        pair_id=card.campaign_pair.pair_id,
        label=label,
        token=uuid.UUID(card.token),
        seconds=seconds,
    )


def test_it_stores_one_judgment_when_the_same_token_is_submitted_twice(db):
    # given
    assignment = _assign(judging_campaign_build(), UserFactory(username="alice"))
    card = queue.queue_state(assignment=assignment).card

    # when
    first = services.judgment_submit(
        assignment=assignment, pair_id=card.campaign_pair.pair_id, label="PS", token=uuid.UUID(card.token)
    )
    again = services.judgment_submit(
        assignment=assignment, pair_id=card.campaign_pair.pair_id, label="NS", token=uuid.UUID(card.token)
    )

    # then
    assert first.created
    assert not again.created
    assert again.judgment.pk == first.judgment.pk
    assert Judgment.objects.filter(assignment=assignment).count() == 1
    assert Judgment.objects.get(assignment=assignment).label == "PS"


def test_it_rejects_a_token_it_did_not_issue(db):
    assignment = _assign(judging_campaign_build(), UserFactory(username="alice"))
    card = queue.queue_state(assignment=assignment).card

    with pytest.raises(services.SubmissionRejected):
        services.judgment_submit(
            assignment=assignment, pair_id=card.campaign_pair.pair_id, label="FS", token=uuid.uuid4()
        )

    assert not Judgment.objects.exists()


def test_it_rejects_another_assignments_token(db):
    # given two assessors on the same topic (overlap)
    campaign = judging_campaign_build()
    alice = _assign(campaign, UserFactory(username="alice"))
    bob = _assign(campaign, UserFactory(username="bob"))
    card = queue.queue_state(assignment=alice).card
    services.judgment_submit(
        assignment=alice, pair_id=card.campaign_pair.pair_id, label="FS", token=uuid.UUID(card.token)
    )

    # when bob replays alice's token
    with pytest.raises(services.SubmissionRejected):
        services.judgment_submit(
            assignment=bob, pair_id=card.campaign_pair.pair_id, label="NS", token=uuid.UUID(card.token)
        )

    # then
    assert Judgment.objects.count() == 1


def test_it_gives_overlapping_assessors_their_own_judgments(db):
    campaign = judging_campaign_build(n_sentences=3)
    alice = _assign(campaign, UserFactory(username="alice"))
    bob = _assign(campaign, UserFactory(username="bob"))

    _submit_next(alice, "FS")
    _submit_next(bob, "NS")

    assert counts.topic_progress(assignment=alice).done == 1
    assert counts.topic_progress(assignment=bob).done == 1
    assert set(Judgment.objects.values_list("judge__name", "label")) == {("alice", "FS"), ("bob", "NS")}


def test_it_resumes_at_the_first_pair_not_yet_judged(db):
    assignment = _assign(judging_campaign_build(n_sentences=6), UserFactory(username="alice"))
    judged = [_submit_next(assignment).judgment.pair_id for _ in range(3)]

    state = queue.queue_state(assignment=assignment)

    assert state.card is not None
    assert state.card.campaign_pair.pair_id not in judged
    assert state.topic_progress.done == 3
    assert state.topic_progress.total == 6


def test_it_queues_pairs_citing_the_same_passage_together(db):
    assignment = _assign(judging_campaign_build(n_sentences=12, passages_per_topic=3), UserFactory(username="alice"))

    order = [cp.pair.passage_id for cp in assignment_pending(assignment=assignment)]

    runs = [order[0]]
    for passage_id in order[1:]:
        if passage_id != runs[-1]:
            runs.append(passage_id)
    assert len(order) == 12
    assert len(runs) == 3


def test_it_marks_the_assignment_done_after_the_last_pair(db):
    assignment = _assign(judging_campaign_build(n_sentences=2), UserFactory(username="alice"))

    _submit_next(assignment)
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.OPEN
    _submit_next(assignment)
    assignment.refresh_from_db()

    assert assignment.status == AssignmentStatus.DONE
    assert queue.queue_state(assignment=assignment).card is None


def test_it_stores_a_change_made_by_going_back_as_a_new_row(db):
    # given
    assignment = _assign(judging_campaign_build(n_sentences=4), UserFactory(username="alice"))
    first = _submit_next(assignment, "FS").judgment
    _submit_next(assignment, "PS")

    # when the assessor goes back twice and changes the first pair
    back = queue.back_state(assignment=assignment)
    back = queue.back_state(assignment=assignment, before=back.card.back_of)
    services.judgment_submit(
        assignment=assignment, pair_id=back.card.campaign_pair.pair_id, label="NS", token=uuid.UUID(back.card.token)
    )

    # then
    assert back.card.campaign_pair.pair_id == first.pair_id
    assert back.card.previous_label == "FS"
    rows = list(Judgment.objects.filter(assignment=assignment, pair_id=first.pair_id).values_list("label", flat=True))
    assert rows == ["FS", "NS"]
    assert counts.topic_progress(assignment=assignment).done == 2


def _llm_label(campaign, pair, label):
    return PairJudgmentFactory(judge=campaign.post_edit_judge, pair=pair, label=label)


def test_it_records_the_shown_llm_label_and_whether_it_changed_in_post_edit(db):
    # given
    campaign = judging_campaign_build(n_sentences=2)
    campaign.post_edit_judge = LLMJudgeFactory(name="opus-test")
    campaign.save()
    for cp in CampaignPair.objects.filter(campaign=campaign):
        _llm_label(campaign, cp.pair, "PS")
    assignment = _assign(campaign, UserFactory(username="alice"), Condition.POST_EDIT)

    # when
    card = queue.queue_state(assignment=assignment).card
    kept = _submit_next(assignment, "PS").judgment
    changed = _submit_next(assignment, "FS").judgment

    # then
    assert card.shown_label == "PS"
    assert card.preselected == "PS"
    assert (kept.shown_label, kept.label_changed) == ("PS", False)
    assert (changed.shown_label, changed.label_changed) == ("PS", True)
    assert kept.condition == changed.condition == Condition.POST_EDIT


def test_it_holds_back_post_edit_pairs_without_an_llm_label(db):
    campaign = judging_campaign_build(n_sentences=5, passages_per_topic=5)
    campaign.post_edit_judge = LLMJudgeFactory(name="opus-test")
    campaign.save()
    labelled = list(CampaignPair.objects.filter(campaign=campaign).order_by("pk")[:2])
    for cp in labelled:
        _llm_label(campaign, cp.pair, "NS")
    assignment = _assign(campaign, UserFactory(username="alice"), Condition.POST_EDIT)

    state = queue.queue_state(assignment=assignment)

    assert state.held_back == 3
    assert {cp.pk for cp in assignment_pending(assignment=assignment)} == {cp.pk for cp in labelled}


def test_it_shows_the_newest_llm_label_in_post_edit(db):
    campaign = judging_campaign_build(n_sentences=1)
    campaign.post_edit_judge = LLMJudgeFactory(name="opus-test")
    campaign.save()
    cp = CampaignPair.objects.get(campaign=campaign)
    _llm_label(campaign, cp.pair, "NS")
    _llm_label(campaign, cp.pair, "FS")
    assignment = _assign(campaign, UserFactory(username="alice"), Condition.POST_EDIT)

    assert queue.queue_state(assignment=assignment).card.shown_label == "FS"


def test_it_shows_no_llm_label_in_from_scratch(db):
    campaign = judging_campaign_build(n_sentences=1)
    campaign.post_edit_judge = LLMJudgeFactory(name="opus-test")
    campaign.save()
    _llm_label(campaign, CampaignPair.objects.get(campaign=campaign).pair, "FS")
    assignment = _assign(campaign, UserFactory(username="alice"))

    card = queue.queue_state(assignment=assignment).card
    judgment = _submit_next(assignment, "NS").judgment

    assert card.shown_label == ""
    assert card.preselected == ""
    assert judgment.shown_label == ""
    assert judgment.label_changed is None


@pytest.mark.django_db(transaction=True)
def test_it_stores_exactly_one_judgment_per_token_under_8_concurrent_threads():
    # given 4 pairs, each submitted by 8 threads at once with the same token
    assignment = _assign(judging_campaign_build(n_sentences=4, passages_per_topic=4), UserFactory(username="alice"))
    tokens = [
        (cp.pair_id, services.submission_token(assignment_id=assignment.pk, pair_id=cp.pair_id, nth=0))
        for cp in CampaignPair.objects.filter(campaign=assignment.campaign)
    ]
    barrier = threading.Barrier(8)
    results: list[tuple[int, int, bool]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        try:
            for pair_id, token in tokens:
                barrier.wait(timeout=30)
                r = services.judgment_submit(
                    assignment=assignment, pair_id=pair_id, label="FS", token=token, seconds=float(n)
                )
                with lock:
                    results.append((pair_id, r.judgment.pk, r.created))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    # when
    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)

    # then
    assert errors == []
    assert len(results) == 32
    assert Judgment.objects.filter(assignment=assignment).count() == 4
    for pair_id, _ in tokens:
        mine = [r for r in results if r[0] == pair_id]
        assert len({pk for _, pk, _ in mine}) == 1
        assert sum(created for _, _, created in mine) == 1


def test_it_reopens_a_finished_assignment_when_a_rebuild_adds_pairs(db):
    # given a finished assignment
    campaign = judging_campaign_build(n_sentences=1)
    assignment = _assign(campaign, UserFactory(username="alice"))
    _submit_next(assignment)
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.DONE

    # when the campaign gets a deeper pool
    from tests.factories import PassageFactory

    sentence = CampaignPair.objects.get(campaign=campaign).context_citation.sentence
    sentence.citations.create(slot=1, passage=PassageFactory(), reference_index=1)
    campaign.depth = 2
    campaign.save()
    build.campaign_build_pairs(campaign=campaign)

    # then
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.OPEN
    # and the page counts the new pool at once (the counts of the old one were kept in the cache)
    assert counts.topic_counts(assignment=assignment).progress == Share(done=1, total=2)
    assert queue.queue_state(assignment=assignment).overall_progress == Share(done=1, total=2)
