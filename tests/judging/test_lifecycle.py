"""A campaign's lifecycle (issue 23, point 5): clone, archive and restore, delete; a failed build leaves nothing."""

from __future__ import annotations

import io
import uuid

import pytest
from django.core.management import CommandError, call_command

from judging import build, selectors, services
from judging.lifecycle.services import LifecycleError, campaign_archive, campaign_clone, campaign_delete
from judging.models import Assignment, Campaign, CampaignPair, Condition, Judgment, QueueOrder
from judging.tokens import submission_token
from tests.factories import (
    LLMJudgeFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
    answer_build,
    judging_campaign_build,
)


@pytest.fixture
def judged(db):
    """A built campaign with one assignment that has one human judgment."""
    campaign = judging_campaign_build(n_sentences=6, name="judged")
    campaign.post_edit_judge = LLMJudgeFactory(name="llm-life")
    campaign.queue_order = QueueOrder.UNCERTAIN_FIRST
    campaign.highlight_evidence = True
    campaign.guidelines = "Judge carefully."
    campaign.save()
    user = UserFactory(username="judger")
    (assignment,) = services.assignments_create(
        campaign=campaign, assessor=user, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    _submit(assignment)
    return campaign, assignment


def _submit(assignment, nth=0):
    cp = CampaignPair.objects.filter(campaign=assignment.campaign).order_by("position")[nth]
    token = submission_token(assignment_id=assignment.pk, pair_id=cp.pair_id, nth=0)
    return services.judgment_submit(assignment=assignment, pair_id=cp.pair_id, label="FS", token=token)


def test_clone_copies_runs_topics_settings_and_pool_without_assignments_or_judgments(judged):
    # given
    campaign, _ = judged

    # when
    clone = campaign_clone(campaign=campaign, name="judged-2")

    # then
    assert set(clone.runs.all()) == set(campaign.runs.all())
    assert set(clone.topics.all()) == set(campaign.topics.all())
    fields = ["depth", "guidelines", "post_edit_judge_id", "highlight_evidence", "queue_order", "build_summary"]
    assert [getattr(clone, f) for f in fields] == [getattr(campaign, f) for f in fields]
    pool = list(CampaignPair.objects.filter(campaign=campaign).values_list("topic_id", "pair_id", "position"))
    assert list(CampaignPair.objects.filter(campaign=clone).values_list("topic_id", "pair_id", "position")) == pool
    assert not clone.assignments.exists()
    assert not Judgment.objects.filter(assignment__campaign=clone).exists()


def test_clone_refuses_a_name_in_use(judged):
    campaign, _ = judged
    with pytest.raises(LifecycleError, match="a campaign named 'judged' exists"):
        campaign_clone(campaign=campaign, name="judged")


def test_archive_blocks_judging(judged):
    # given
    campaign, assignment = judged
    campaign_archive(campaign=campaign)
    assignment = Assignment.objects.select_related("campaign").get(pk=assignment.pk)
    before = Judgment.objects.count()

    # when / then
    with pytest.raises(services.SubmissionRejected, match="archived"):
        _submit(assignment, nth=1)
    assert Judgment.objects.count() == before


def test_archive_blocks_new_assignments(judged):
    campaign, _ = judged
    campaign_archive(campaign=campaign)
    with pytest.raises(services.CampaignArchived):
        services.assignments_create(
            campaign=campaign,
            assessor=UserFactory(username="late"),
            topics=campaign.topics.all(),
            condition="from_scratch",
        )
    assert not Assignment.objects.filter(assessor__username="late").exists()


def test_archived_campaigns_leave_the_default_lists_and_come_back_on_restore(judged):
    # given
    campaign, assignment = judged

    # when
    call_command("campaign_archive", campaign.name, stdout=io.StringIO())
    archived = (
        [c.name for c in selectors.campaign_list()],
        list(selectors.assessor_assignments(user=assignment.assessor)),
    )
    call_command("campaign_restore", campaign.name, stdout=io.StringIO())

    # then
    assert archived == ([], [])
    assert [c.name for c in selectors.campaign_list(archived=False)] == ["judged"]
    assert [a.pk for a in selectors.assessor_assignments(user=assignment.assessor)] == [assignment.pk]
    assert Judgment.objects.filter(assignment=assignment).count() == 1


def test_deleting_a_campaign_with_human_judgments_without_force_changes_nothing(judged):
    # given
    campaign, _ = judged
    counts = (
        Campaign.objects.count(),
        CampaignPair.objects.count(),
        Assignment.objects.count(),
        Judgment.objects.count(),
    )

    # when
    with pytest.raises(LifecycleError, match="holds 1 human judgments: export them first"):
        campaign_delete(campaign=campaign, confirm=campaign.name)

    # then
    assert (
        Campaign.objects.count(),
        CampaignPair.objects.count(),
        Assignment.objects.count(),
        Judgment.objects.count(),
    ) == counts


def test_deleting_needs_the_name_typed(db):
    campaign = judging_campaign_build(n_sentences=2, name="typed")
    with pytest.raises(LifecycleError, match=r"type the campaign's name \(typed\)"):
        campaign_delete(campaign=campaign, confirm="typo")
    assert Campaign.objects.filter(name="typed").exists()


def test_forced_delete_writes_the_export_first_then_deletes_the_campaign_and_its_judgments(judged, tmp_path):
    # given
    campaign, _ = judged
    out = tmp_path / "judged.csv"

    # when
    stdout = io.StringIO()
    call_command(
        "campaign_delete",
        campaign.name,
        "--confirm",
        campaign.name,
        "--force",
        "--export",
        str(out),
        stdout=stdout,
        stderr=io.StringIO(),
    )

    # then
    assert out.exists()
    assert out.stat().st_size > 0
    assert not Campaign.objects.filter(name="judged").exists()
    assert not Judgment.objects.filter(condition="from_scratch", judge__name="judger").exists()
    assert "1 human judgments made in its assignments" in stdout.getvalue()


def test_force_without_an_export_is_refused_and_deletes_nothing(judged):
    campaign, _ = judged
    with pytest.raises(CommandError, match="--force needs --export FILE"):
        call_command("campaign_delete", campaign.name, "--confirm", campaign.name, "--force")
    assert Campaign.objects.filter(name="judged").exists()


def test_a_campaign_without_human_judgments_is_deleted_with_its_pool_and_assignments(db):
    # given
    campaign = judging_campaign_build(n_sentences=3, name="empty")
    services.assignments_create(
        campaign=campaign, assessor=UserFactory(username="idle"), topics=campaign.topics.all(), condition="from_scratch"
    )

    # when
    deleted = campaign_delete(campaign=campaign, confirm="empty")

    # then
    assert deleted.losses.assignments == 1
    assert deleted.losses.pairs == 3
    assert not Campaign.objects.filter(name="empty").exists()
    assert not Assignment.objects.exists()


def test_a_campaign_whose_build_fails_leaves_nothing_behind(db):
    # given: a cited passage without text
    topic = TopicFactory(topic_id="2024-77")
    answer_build(
        run=RunFactory(run_id="r.1"), topic=topic, sentences=[("A claim.", [PassageFactory(without_text=True)])]
    )

    # when / then
    with pytest.raises(CommandError, match="nothing created: 1 cited passages have no text"):
        call_command("campaign_create", "broken", "--topics", "2024-77", stdout=io.StringIO())
    assert not Campaign.objects.filter(name="broken").exists()


def test_a_campaign_whose_build_breaks_half_way_leaves_nothing_behind(db, monkeypatch):
    # given: passages with text, and a pool whose writing fails
    topic = TopicFactory(topic_id="2024-78")
    answer_build(run=RunFactory(run_id="r.2"), topic=topic, sentences=[("A claim.", [PassageFactory()])])

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(CampaignPair.objects, "bulk_create", boom)

    # when / then
    with pytest.raises(RuntimeError):
        build.campaign_create_and_build(name="half", runs=[topic.answers.get().run], topics=[topic])
    assert not Campaign.objects.filter(name="half").exists()


def test_a_failed_clone_leaves_nothing_behind(judged, monkeypatch):
    # given: the pool's copy fails half way
    campaign, _ = judged

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(CampaignPair.objects, "bulk_create", boom)

    # when / then
    with pytest.raises(RuntimeError):
        campaign_clone(campaign=campaign, name=f"clone-{uuid.uuid4().hex[:6]}")
    assert Campaign.objects.count() == 1
