"""The judging commands (campaign_create, add_assessor, assign) and the judging part of the demo."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from judging.models import Assignment, Campaign, CampaignPair, Condition, Judge, JudgeKind
from tests.factories import JudgeFactory, PassageFactory, RunFactory, TopicFactory, UserFactory, answer_build


def _material():
    topic = TopicFactory(topic_id="2024-1")
    p1, p2 = PassageFactory(), PassageFactory()
    for group, priority in (("g1", 1), ("g1", 2), ("g2", 1)):
        run = RunFactory(run_id=f"{group}.p{priority}", group=group, priority=priority)
        answer_build(run=run, topic=topic, sentences=[("Shared.", [p1, p2]), (f"Own to {run.run_id}.", [p1])])
    return topic


def test_it_creates_and_builds_a_campaign_from_the_command_line(db):
    _material()
    out = io.StringIO()

    call_command("campaign_create", "c1", "--runs", "all", "--topics", "2024-1", "--depth", "1", stdout=out)

    campaign = Campaign.objects.get(name="c1")
    assert campaign.build_summary["citations_kept"] == 6
    assert campaign.build_summary["pairs"] == 4
    assert "6 citations -> 4 pairs (2 judgments saved)" in out.getvalue()


def test_it_keeps_the_top_runs_per_group_by_priority(db):
    _material()

    call_command("campaign_create", "c1", "--top-per-group", "1", "--depth", "2", stdout=io.StringIO())

    campaign = Campaign.objects.get(name="c1")
    assert sorted(campaign.runs.values_list("run_id", flat=True)) == ["g1.p1", "g2.p1"]
    assert campaign.build_summary["citations"] == 6


def test_it_fails_the_command_when_passages_lack_text_unless_allowed(db):
    topic = _material()
    bare = PassageFactory(text="", has_text=False)
    answer_build(run=RunFactory(run_id="g3.p1"), topic=topic, sentences=[("Bare.", [bare])])

    with pytest.raises(CommandError, match="1 cited passages have no text"):
        call_command("campaign_create", "c1", stdout=io.StringIO())
    call_command("campaign_create", "c2", "--allow-missing-text", stdout=io.StringIO())

    assert Campaign.objects.get(name="c2").build_summary["citations_left_out"] == 1


def test_it_adds_an_assessor_who_can_log_in_and_is_not_staff(db):
    out = io.StringIO()

    call_command("add_assessor", "carol", "--password", "carol-pass-1", stdout=out)

    user = User.objects.get(username="carol")
    assert user.check_password("carol-pass-1")
    assert not user.is_staff
    assert Judge.objects.get(user=user).kind == JudgeKind.HUMAN


def test_it_assigns_topics_to_assessors_in_order(db):
    _material()
    JudgeFactory(name="gpt-post-edit", kind=JudgeKind.LLM)
    call_command("campaign_create", "c1", "--post-edit-judge", "gpt-post-edit", stdout=io.StringIO())
    UserFactory(username="alice")
    UserFactory(username="bob")

    call_command(
        "assign",
        "c1",
        "--assessors",
        "alice",
        "bob",
        "--topics",
        "2024-1",
        "--condition",
        "post_edit",
        stdout=io.StringIO(),
    )

    rows = list(Assignment.objects.values_list("assessor__username", "topic__topic_id", "condition"))
    assert sorted(rows) == [("alice", "2024-1", "post_edit"), ("bob", "2024-1", "post_edit")]


def test_it_loads_a_demo_campaign_with_one_account_per_condition(db, settings, data_dir):
    # given the demo material
    from assess import demo as assess_demo
    from judging import demo

    settings.ASSESS_DATA_DIR = data_dir
    assess_demo.load(io.StringIO())

    # when
    demo.load(io.StringIO())
    demo.load(io.StringIO())

    # then
    campaign = Campaign.objects.get(name=demo.CAMPAIGN)
    assert sorted(campaign.topics.values_list("topic_id", flat=True)) == ["2024-129925", "2024-32912"]
    assert campaign.post_edit_judge == Judge.objects.get(name="opus-4.8-nist", kind=JudgeKind.LLM)
    assert not CampaignPair.objects.filter(campaign=campaign, pair__passage__has_text=False).exists()
    assert campaign.build_summary["citations_left_out"] > 0
    assignments = Assignment.objects.filter(campaign=campaign).order_by("assessor__username", "order")
    assert [(a.assessor.username, a.topic.topic_id, a.condition) for a in assignments] == [
        ("assessor", "2024-129925", Condition.FROM_SCRATCH),
        ("assessor", "2024-32912", Condition.FROM_SCRATCH),
        ("editor", "2024-129925", Condition.POST_EDIT),
        ("editor", "2024-32912", Condition.POST_EDIT),
    ]
