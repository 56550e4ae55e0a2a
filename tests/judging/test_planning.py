"""Assignment by plan (issue 23, point 1): `campaign_assign` and the plan behind it."""

from __future__ import annotations

import io
import random

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from judging.models import Assignment, Campaign, CampaignPair, Condition
from judging.planning.balance import load_ratio, plan_balance
from judging.planning.services import assignment_plan
from tests.factories import JudgmentFactory, campaign_of_sizes_build

FIVE = ["p1", "p2", "p3", "p4", "p5"]


def _assessors(names=FIVE):
    # No password: hashing five of them cost more than the rest of a test.
    return [User.objects.create(username=name) for name in names]


def _sizes_campaign(name="plan"):
    # 16 topics of 6 to 40 pairs, drawn with a seed: uneven, as a track's topics are.
    sizes = tuple(random.Random(7).randint(6, 40) for _ in range(16))
    return campaign_of_sizes_build(sizes=sizes, name=name)


def _loads(campaign, condition=Condition.FROM_SCRATCH):
    sizes = {}
    for cp in CampaignPair.objects.filter(campaign=campaign):
        sizes[cp.topic_id] = sizes.get(cp.topic_id, 0) + 1
    loads = {}
    for a in Assignment.objects.filter(campaign=campaign, condition=condition).select_related("assessor"):
        loads[a.assessor.username] = loads.get(a.assessor.username, 0) + sizes[a.topic_id]
    return loads


def _assign(campaign, *names, overlap="2", extra=()):
    out = io.StringIO()
    call_command(
        "campaign_assign",
        campaign.name,
        "--assessors",
        *names,
        "--condition",
        "from_scratch",
        "--overlap",
        overlap,
        *extra,
        stdout=out,
    )
    return out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_overlap_two_over_five_assessors_on_the_demo_campaign_gives_each_topic_two_and_a_rerun_writes_nothing():
    # given: the demo, whose `assessor` already works both topics from scratch
    call_command("demo_load", stdout=io.StringIO())
    campaign = Campaign.objects.get(name="demo")
    _assessors()

    # when
    _assign(campaign, *FIVE)
    made = set(Assignment.objects.values_list("pk", flat=True))
    second = _assign(campaign, *FIVE)

    # then: two assessors per topic in the condition, counting the demo's own; the loaded ones within 1.25
    for topic in campaign.topics.all():
        assert Assignment.objects.filter(campaign=campaign, topic=topic, condition="from_scratch").count() == 2
    loads = {k: v for k, v in _loads(campaign).items() if k in FIVE}
    assert len(loads) == 2
    assert max(loads.values()) / min(loads.values()) <= 1.25
    assert set(Assignment.objects.values_list("pk", flat=True)) == made
    assert "nothing to write" in second


def test_overlap_two_over_five_assessors_balances_pairs_within_a_quarter(db):
    # given
    campaign = _sizes_campaign()
    _assessors()

    # when
    _assign(campaign, *FIVE)

    # then
    for topic in campaign.topics.all():
        assessors = Assignment.objects.filter(campaign=campaign, topic=topic).values_list("assessor", flat=True)
        assert len(set(assessors)) == 2
    loads = _loads(campaign)
    assert len(loads) == 5
    assert max(loads.values()) / min(loads.values()) <= 1.25


def test_a_second_run_writes_nothing(db):
    # given
    campaign = _sizes_campaign()
    _assessors()
    _assign(campaign, *FIVE)
    before = list(Assignment.objects.order_by("pk").values_list("pk", "assessor_id", "topic_id", "order"))

    # when
    out = _assign(campaign, *FIVE)

    # then
    assert list(Assignment.objects.order_by("pk").values_list("pk", "assessor_id", "topic_id", "order")) == before
    assert "0 new, 0 moved" in out


def test_rebalance_moves_only_untouched_topics_to_a_late_assessor(db):
    # given: four assessors with every topic twice, each with one judgment on their first topic; a fifth joins
    campaign = _sizes_campaign()
    _assessors()
    _assign(campaign, *FIVE[:4])
    touched = set()
    for name in FIVE[:4]:
        first = Assignment.objects.filter(assessor__username=name).order_by("order").first()
        cp = CampaignPair.objects.filter(campaign=campaign, topic=first.topic).first()
        JudgmentFactory(judge__name=name, pair=cp.pair, citation=cp.context_citation, assignment=first)
        touched.add((name, first.topic_id))
    before = set(Assignment.objects.values_list("assessor__username", "topic_id"))

    # when
    _assign(campaign, *FIVE, extra=["--rebalance"])

    # then: the late assessor got topics; nothing judged moved; still two per topic
    after = set(Assignment.objects.values_list("assessor__username", "topic_id"))
    assert any(name == "p5" for name, _ in after)
    assert touched <= after
    assert {(n, t) for n, t in before - after}
    assert all(p not in touched for p in before - after)
    for topic in campaign.topics.all():
        assert Assignment.objects.filter(campaign=campaign, topic=topic).count() == 2
    loads = _loads(campaign)
    assert max(loads.values()) / min(loads.values()) <= 1.25


def test_without_rebalance_a_late_assessor_gets_nothing(db):
    # given
    campaign = _sizes_campaign()
    _assessors()
    _assign(campaign, *FIVE[:4])

    # when
    _assign(campaign, *FIVE)

    # then
    assert not Assignment.objects.filter(assessor__username="p5").exists()


def test_a_seeded_share_of_the_topics_gets_the_overlap_and_the_rest_one_assessor(db):
    # given
    campaign = _sizes_campaign()
    _assessors()

    # when
    _assign(campaign, *FIVE, extra=["--overlap-share", "0.25", "--seed", "3"])

    # then
    per_topic = sorted(Assignment.objects.filter(campaign=campaign, topic=t).count() for t in campaign.topics.all())
    assert per_topic == [1] * 12 + [2] * 4


def test_the_share_drawn_depends_on_the_seed(db):
    # given
    campaign = _sizes_campaign()
    users = _assessors()

    # when
    one = assignment_plan(campaign=campaign, assessors=users, condition="from_scratch", overlap=2, overlap_share=0.25)
    other = assignment_plan(
        campaign=campaign, assessors=users, condition="from_scratch", overlap=2, overlap_share=0.25, seed=5
    )

    # then
    def twice(plan):
        seen = [n.topic_id for n in plan.new]
        return {t for t in seen if seen.count(t) == 2}

    assert len(twice(one)) == 4
    assert twice(one) != twice(other)


def test_an_assessor_working_a_topic_in_the_other_condition_is_skipped_with_the_reason(db):
    # given: p1 post-edits topic 0 of the campaign (the campaign has an LLM post-edit judge)
    campaign = _sizes_campaign()
    users = _assessors()
    topic = campaign.topics.order_by("topic_id").first()
    Assignment.objects.create(campaign=campaign, assessor=users[0], topic=topic, condition=Condition.POST_EDIT)

    # when
    plan = assignment_plan(campaign=campaign, assessors=users, condition="from_scratch", overlap=2)

    # then
    assert [(s.assessor, s.topic_id) for s in plan.skipped] == [("p1", topic.topic_id)]
    assert "post-edit" in plan.skipped[0].reason
    assert ("p1", topic.topic_id) not in {(n.assessor, n.topic_id) for n in plan.new}


def test_an_unknown_campaign_is_one_line_and_writes_nothing(db):
    _assessors()
    with pytest.raises(CommandError, match=r"^no campaign named 'nope'$"):
        call_command("campaign_assign", "nope", "--assessors", "p1", "--condition", "from_scratch", "--overlap", "1")
    assert not Assignment.objects.exists()


def test_an_unknown_assessor_is_one_line_and_writes_nothing(db):
    campaign = _sizes_campaign()
    _assessors()
    with pytest.raises(CommandError, match="unknown assessors: ghost"):
        _assign(campaign, "p1", "ghost", overlap="1")
    assert not Assignment.objects.exists()


def test_an_overlap_above_the_assessors_given_is_one_line_and_writes_nothing(db):
    campaign = _sizes_campaign()
    _assessors()
    with pytest.raises(CommandError, match="--overlap 3 is more than the 2 assessors given"):
        _assign(campaign, "p1", "p2", overlap="3")
    assert not Assignment.objects.exists()


def test_an_overlap_above_the_eligible_assessors_is_one_line_and_writes_nothing(db):
    # given: p1 works topic 0 post-edit, so only p2 may take it from scratch
    campaign = _sizes_campaign()
    users = _assessors()
    topic = campaign.topics.order_by("topic_id").first()
    Assignment.objects.create(campaign=campaign, assessor=users[0], topic=topic, condition=Condition.POST_EDIT)

    # when / then
    with pytest.raises(CommandError, match=f"topic {topic.topic_id} needs 2 assessors from_scratch, only 1 can"):
        _assign(campaign, "p1", "p2")
    assert Assignment.objects.filter(condition="from_scratch").count() == 0


def test_the_plan_estimates_hours_from_the_default_pace_before_any_judgment(db):
    campaign = _sizes_campaign()
    users = _assessors(["p1"])

    plan = assignment_plan(campaign=campaign, assessors=users, condition="from_scratch", overlap=1)

    total = CampaignPair.objects.filter(campaign=campaign).count()
    assert plan.seconds_measured == 0
    assert plan.loads[0].pairs == total
    assert plan.loads[0].hours == pytest.approx(total * 30 / 3600)


def test_the_balance_rule_keeps_a_quarter_where_sizes_allow_it():
    # given: 40 topics of 5 to 60 pairs, overlap 3 over 7 assessors
    rng = random.Random(1)
    sizes = {t: rng.randint(5, 60) for t in range(40)}
    assessors = list(range(100, 107))

    # when
    balance = plan_balance(
        assessors=assessors,
        sizes=sizes,
        need={t: 3 for t in sizes},
        fixed=[],
        movable=[],
        eligible={(t, a) for t in sizes for a in assessors},
    )

    # then
    ratio = load_ratio(balance.loads)
    assert ratio is not None
    assert ratio <= 1.25
    assert all(len({s.assessor for s in balance.slots if s.topic == t}) == 3 for t in sizes)
