"""The blindness rules guarded at assignment (DESIGN §3, judging/blindness.py): the service, the campaign page,
the API and the commands refuse alike, with one message and nothing made; the campaign page lists existing
assignments that break a rule; the demo keeps the rules."""

from __future__ import annotations

import html
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from assess.models import Topic
from judging import blindness, build, services
from judging.blindness import BlindnessViolation, blindness_violations
from judging.models import Assignment, Campaign, CampaignPair, Condition, Judgment
from metrics.study.models import StudyItem
from metrics.study.services import study_assign, study_create
from tests.factories import (
    AssignmentFactory,
    JudgeFactory,
    LLMJudgeFactory,
    OrganizerFactory,
    PairJudgmentFactory,
    StudyFactory,
    UserFactory,
    campaign_apart_build,
    campaign_sharing_build,
    study_campaign_build,
    study_labels_seed,
)


@dataclass
class World:
    campaign: Campaign
    t1: Topic
    t2: Topic
    alice: User
    organizer: Client


@dataclass(frozen=True)
class Ask:
    """An assignment asked for, and what the refusal must say."""

    assessor: User
    topic: Topic
    condition: str
    says: str


@pytest.fixture
def world(db: Any) -> World:
    campaign = study_campaign_build(pairs_per_topic=(4, 3), runs=1, name="c1")
    campaign.post_edit_judge = LLMJudgeFactory(name="gpt-post-edit")
    campaign.save()
    t1, t2 = campaign.topics.order_by("pk")
    organizer = Client()
    organizer.force_login(OrganizerFactory(username="org"))
    return World(campaign=campaign, t1=t1, t2=t2, alice=UserFactory(username="alice"), organizer=organizer)


def _assign(w: World, condition: str, *, topic: Topic | None = None, campaign: Campaign | None = None) -> Assignment:
    return services.assignments_create(
        campaign=campaign or w.campaign, assessor=w.alice, topics=[topic or w.t1], condition=condition
    )[0]


def _judgment(w: World, *, condition: str) -> Judgment:
    """A judgment of alice's on a pair of topic 1's pool, made outside any assignment (an import, say)."""
    pair = CampaignPair.objects.filter(campaign=w.campaign, topic=w.t1).select_related("pair")[0].pair
    return PairJudgmentFactory(judge=services.assessor_judge(user=w.alice), pair=pair, label="FS", condition=condition)


# --- each guard, through each path ------------------------------------------------------------------


def _second_condition(w: World) -> Ask:
    scratch = _assign(w, Condition.FROM_SCRATCH)
    return Ask(w.alice, w.t1, Condition.POST_EDIT, f"already works it from scratch (assignment #{scratch.pk}")


def _second_condition_reversed(w: World) -> Ask:
    edit = _assign(w, Condition.POST_EDIT)
    return Ask(w.alice, w.t1, Condition.FROM_SCRATCH, f"already works it post-edit (assignment #{edit.pk}")


def _condition_in_a_campaign_sharing_pairs(w: World) -> Ask:
    other = campaign_sharing_build(campaign=w.campaign, topic=w.t1, name="c2")
    _assign(w, Condition.FROM_SCRATCH, campaign=other)
    return Ask(w.alice, w.t1, Condition.POST_EDIT, "in campaign c2, which shares pairs with c1 on this topic")


def _judged_in_another_condition(w: World) -> Ask:
    _judgment(w, condition=Condition.POST_EDIT)
    return Ask(w.alice, w.t1, Condition.FROM_SCRATCH, "1 judgment(s) post-edit on this topic's pairs")


def _adjudicator_assigned_the_topic(w: World) -> Ask:
    _assign(w, Condition.FROM_SCRATCH)
    return Ask(w.alice, w.t1, Condition.ADJUDICATION, "also works it from scratch")


def _adjudicator_judged_the_topic(w: World) -> Ask:
    _judgment(w, condition="")
    return Ask(w.alice, w.t1, Condition.ADJUDICATION, "has 1 judgment(s) no condition on this topic's pairs")


def _adjudicator_is_a_study_judge(w: World) -> Ask:
    services.assessor_judge(user=w.alice)
    study = StudyFactory(campaign=w.campaign, a="alice", b="gpt-post-edit")
    return Ask(w.alice, w.t1, Condition.ADJUDICATION, f"is in label set a (alice) of study #{study.pk}")


def _post_edit_without_post_edit_judge(w: World) -> Ask:
    services.campaign_update(campaign=w.campaign, guidelines="", post_edit_judge=None, highlight_evidence=False)
    return Ask(
        w.alice, w.t1, Condition.POST_EDIT, "campaign c1 has no post-edit judge: set one before assigning post-edit"
    )


def _post_edit_judge_not_an_llm(w: World) -> Ask:
    services.campaign_update(
        campaign=w.campaign, guidelines="", post_edit_judge=JudgeFactory(name="nist"), highlight_evidence=False
    )
    return Ask(w.alice, w.t1, Condition.POST_EDIT, "post-edit judge nist is not an LLM judge")


CASES: dict[str, Callable[[World], Ask]] = {
    "second condition": _second_condition,
    "second condition, reversed": _second_condition_reversed,
    "campaign sharing pairs": _condition_in_a_campaign_sharing_pairs,
    "judged in another condition": _judged_in_another_condition,
    "adjudicator assigned the topic": _adjudicator_assigned_the_topic,
    "adjudicator judged the topic": _adjudicator_judged_the_topic,
    "adjudicator is a study judge": _adjudicator_is_a_study_judge,
    "post-edit without post-edit judge": _post_edit_without_post_edit_judge,
    "post-edit judge not an LLM": _post_edit_judge_not_an_llm,
}


def _through_the_service(w: World, ask: Ask) -> str:
    with pytest.raises(BlindnessViolation) as refused:
        services.assignments_create(
            campaign=w.campaign, assessor=ask.assessor, topics=[ask.topic], condition=ask.condition
        )
    return refused.value.message


def _through_the_page(w: World, ask: Ask) -> str:
    response = w.organizer.post(
        f"/organize/campaigns/{w.campaign.pk}/assign/",
        {"assessor": ask.assessor.pk, "topics": [ask.topic.pk], "condition": ask.condition},
        follow=True,
    )
    assert response.status_code == 200
    text = html.unescape(response.content.decode())
    assert "Not assigned: " in text
    return text


def _through_the_api(w: World, ask: Ask) -> str:
    response = w.organizer.post(
        "/api/assignments/",
        {
            "campaign": w.campaign.pk,
            "assessor": ask.assessor.username,
            "topics": [ask.topic.topic_id],
            "condition": ask.condition,
        },
        content_type="application/json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["violations"][0]["topic_id"] == ask.topic.topic_id
    return str(body["detail"])


def _through_the_command(w: World, ask: Ask) -> str:
    with pytest.raises(CommandError) as refused:
        call_command(
            "assign",
            w.campaign.name,
            "--assessors",
            ask.assessor.username,
            "--topics",
            ask.topic.topic_id,
            "--condition",
            ask.condition,
            stdout=io.StringIO(),
        )
    return str(refused.value)


PATHS: dict[str, Callable[[World, Ask], str]] = {
    "service": _through_the_service,
    "page": _through_the_page,
    "api": _through_the_api,
    "command": _through_the_command,
}


@pytest.mark.parametrize("path", PATHS.values(), ids=PATHS.keys())
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_each_guard_refuses_through_every_path_with_its_message_and_makes_nothing(
    world: World, case: Callable[[World], Ask], path: Callable[[World, Ask], str]
) -> None:
    # given
    ask = case(world)
    before = sorted(Assignment.objects.values_list("pk", flat=True))
    # when
    said = path(world, ask)
    # then
    assert ask.says in said
    assert ask.assessor.username in said
    assert ask.topic.topic_id in said
    assert sorted(Assignment.objects.values_list("pk", flat=True)) == before


def test_the_refusal_says_what_to_do(world: World) -> None:
    # given
    scratch = _assign(world, Condition.FROM_SCRATCH)
    # when
    with pytest.raises(BlindnessViolation) as refused:
        _assign(world, Condition.POST_EDIT)
    # then
    assert refused.value.message == (
        f"alice cannot work topic {world.t1.topic_id} post-edit in campaign c1: alice already works it from scratch "
        f"(assignment #{scratch.pk} in campaign c1). One assessor works one condition per topic: give topic "
        f"{world.t1.topic_id} post-edit to another assessor, or remove assignment #{scratch.pk}."
    )
    assert [v.rule for v in refused.value.violations] == [blindness.ONE_CONDITION]


def test_it_makes_none_of_the_topics_when_one_of_them_is_refused(world: World) -> None:
    # given
    _assign(world, Condition.FROM_SCRATCH, topic=world.t2)
    # when
    with pytest.raises(BlindnessViolation):
        services.assignments_create(
            campaign=world.campaign, assessor=world.alice, topics=[world.t1, world.t2], condition=Condition.POST_EDIT
        )
    # then
    assert list(world.alice.assignments.values_list("condition", flat=True)) == [Condition.FROM_SCRATCH]


def test_the_command_assigns_no_one_when_one_assessor_is_refused(world: World) -> None:
    # given
    UserFactory(username="bob")
    _assign(world, Condition.FROM_SCRATCH)
    # when
    with pytest.raises(CommandError, match="nothing assigned: alice cannot work topic"):
        call_command(
            "assign", "c1", "--assessors", "bob", "alice", "--topics", world.t1.topic_id, "--condition", "post_edit",
            stdout=io.StringIO(),
        )  # fmt: skip
    # then
    assert not Assignment.objects.filter(assessor__username="bob").exists()


# --- what the rules allow ----------------------------------------------------------------------------


def test_it_gives_another_assessor_the_other_condition_on_the_same_topic(world: World) -> None:
    _assign(world, Condition.FROM_SCRATCH)
    bob = UserFactory(username="bob")
    made = services.assignments_create(
        campaign=world.campaign, assessor=bob, topics=[world.t1], condition=Condition.POST_EDIT
    )
    assert [a.condition for a in made] == [Condition.POST_EDIT]


def test_it_gives_one_assessor_different_conditions_on_different_topics(world: World) -> None:
    _assign(world, Condition.FROM_SCRATCH, topic=world.t1)
    made = _assign(world, Condition.POST_EDIT, topic=world.t2)
    assert made.condition == Condition.POST_EDIT


def test_it_keeps_an_assignment_given_again_in_its_own_condition(world: World) -> None:
    first = _assign(world, Condition.FROM_SCRATCH)
    _judgment(world, condition=Condition.FROM_SCRATCH)
    assert _assign(world, Condition.FROM_SCRATCH) == first


def test_it_allows_another_condition_in_a_campaign_that_shares_no_pair_on_the_topic(world: World) -> None:
    # given alice judges topic 1 from scratch in a campaign whose pool on it has none of c1's pairs
    apart = campaign_apart_build(topic=world.t1, name="apart")
    _assign(world, Condition.FROM_SCRATCH, campaign=apart)
    # when
    made = _assign(world, Condition.POST_EDIT)
    # then
    assert made.condition == Condition.POST_EDIT


def test_an_adjudicator_may_be_given_the_studys_topics_again_after_adjudicating(db: Any) -> None:
    # given carol has adjudicated part of a study's sample
    campaign = study_campaign_build(pairs_per_topic=(6, 4), name="study-c")
    study_labels_seed(campaign, human="nist-probe", llm="llm-probe")
    study = study_create(campaign=campaign, a="nist-probe", b="llm-probe", per_topic=3, seed=1)
    carol = UserFactory(username="carol")
    first = study_assign(study=study, assessor=carol)
    item = StudyItem.objects.filter(study=study, topic=first[0].topic).first()
    PairJudgmentFactory(
        judge=services.assessor_judge(user=carol),
        pair=item.pair,
        label="NS",
        condition=Condition.ADJUDICATION,
        assignment=first[0],
    )
    # when
    again = study_assign(study=study, assessor=carol)
    # then
    assert again == first


# --- the campaign page lists what breaks a rule -----------------------------------------------------


def test_the_campaign_page_lists_the_assignments_that_break_a_rule(world: World) -> None:
    # given two conditions on one topic, made before the rules held (straight in the table)
    scratch = AssignmentFactory(
        campaign=world.campaign, assessor=world.alice, topic=world.t1, condition=Condition.FROM_SCRATCH
    )
    edit = AssignmentFactory(
        campaign=world.campaign, assessor=world.alice, topic=world.t1, condition=Condition.POST_EDIT
    )
    # when
    text = html.unescape(world.organizer.get(f"/organize/campaigns/{world.campaign.pk}/").content.decode())
    # then
    assert 'id="blindness-violations"' in text
    assert f"#{scratch.pk}" in text
    assert f"already works it post-edit (assignment #{edit.pk} in campaign c1)" in text
    assert f"already works it from scratch (assignment #{scratch.pk} in campaign c1)" in text


def test_the_campaign_page_has_no_warning_when_every_assignment_keeps_the_rules(world: World) -> None:
    _assign(world, Condition.FROM_SCRATCH)
    text = world.organizer.get(f"/organize/campaigns/{world.campaign.pk}/").content.decode()
    assert "blindness-violations" not in text


def test_it_lists_post_edit_assignments_once_their_campaign_lost_its_post_edit_judge(world: World) -> None:
    # given
    edit = _assign(world, Condition.POST_EDIT)
    services.campaign_update(campaign=world.campaign, guidelines="", post_edit_judge=None, highlight_evidence=False)
    # when
    found = blindness_violations(campaign=world.campaign)
    # then
    assert [(v.assignment_id, v.rule) for v in found] == [(edit.pk, blindness.POST_EDIT_JUDGE)]


def test_it_lists_an_assignment_that_conflicts_with_a_campaign_sharing_its_pairs(world: World) -> None:
    # given alice from scratch in c1, and post-edit on the same topic in c2, built later on the same runs
    scratch = _assign(world, Condition.FROM_SCRATCH)
    other = campaign_apart_build(topic=world.t1, name="c2")
    AssignmentFactory(campaign=other, assessor=world.alice, topic=world.t1, condition=Condition.POST_EDIT)
    assert blindness_violations(campaign=world.campaign) == []
    # when c2 is rebuilt over c1's runs, so that its pool shares c1's pairs
    other.runs.set(world.campaign.runs.all())
    build.campaign_build_pairs(campaign=other)
    # then
    found = blindness_violations(campaign=world.campaign)
    assert [(v.assignment_id, v.rule) for v in found] == [(scratch.pk, blindness.ONE_CONDITION)]
    assert "which shares pairs with c1 on this topic" in found[0].message


def test_it_lists_violations_in_the_same_number_of_queries_however_many_assignments(world: World) -> None:
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            blindness_violations(campaign=world.campaign)
        return len(captured)

    StudyFactory(campaign=world.campaign, a="nobody-here", b="gpt-post-edit")
    for name in ("u1", "u2"):
        user = UserFactory(username=name)
        services.assessor_judge(user=user)
        AssignmentFactory(campaign=world.campaign, assessor=user, topic=world.t1, condition="adjudication")
    few = queries()
    for name in ("u3", "u4", "u5", "u6"):
        user = UserFactory(username=name)
        services.assessor_judge(user=user)
        for condition in (Condition.FROM_SCRATCH, Condition.ADJUDICATION):
            AssignmentFactory(campaign=world.campaign, assessor=user, topic=world.t2, condition=condition)
    assert queries() == few


# --- the demo ---------------------------------------------------------------------------------------


def test_the_demo_gives_the_login_account_no_judgments_and_no_conflicting_assignment(
    db: Any, settings: Any, data_dir: Any
) -> None:
    # given
    from assess import demo as assess_demo
    from judging import demo as judging_demo
    from metrics import demo as metrics_demo
    from metrics.study import demo as study_demo

    settings.ASSESS_DATA_DIR = data_dir
    # when
    for module in (assess_demo, judging_demo, metrics_demo, study_demo):
        module.load(io.StringIO())
    # then
    campaign = Campaign.objects.get(name="demo")
    assert not Judgment.objects.filter(judge__user__username__in=["assessor", "editor"]).exists()
    assert set(Assignment.objects.filter(assessor__username="assessor").values_list("condition", flat=True)) == {
        Condition.FROM_SCRATCH
    }
    assert set(Assignment.objects.filter(assessor__username="editor").values_list("condition", flat=True)) == {
        Condition.POST_EDIT
    }
    adjudications = Judgment.objects.filter(judge__user__username="adjudicator")
    assert adjudications.count() == 12
    assert set(adjudications.values_list("condition", flat=True)) == {Condition.ADJUDICATION}
    assert blindness_violations(campaign=campaign) == []
