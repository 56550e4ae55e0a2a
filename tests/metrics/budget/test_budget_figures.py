"""The budget page's figures never mislead (issue 24): estimates shown inside [0, 1] with the raw value in the API,
runs without an estimate ranked below those with, pairs the assessor already judged left out of their queue, and
the planning curve before any draw."""

from __future__ import annotations

import numpy as np
import pytest

from judging import counts, services
from judging.build import campaign_build_pairs, campaign_create
from judging.models import CampaignPair, Condition
from judging.pool import assignment_pending
from judging.tokens import submission_token
from metrics.budget import report
from metrics.budget.estimators import Population
from metrics.budget.ranking import ranking
from metrics.budget.services import budget_assign, budget_sample_draw
from tests.factories import UserFactory, study_campaign_build, study_labels_seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-campaign")
    study_labels_seed(campaign, human="nist", llm="gpt-budget")
    return campaign


def _judge_all(assignment, label: str) -> None:
    for i, cp in enumerate(assignment_pending(assignment=assignment)):
        services.judgment_submit(
            assignment=assignment,
            pair_id=cp.pair_id,
            label=label if i % 8 else "PS",  # one pair in eight PS (by queue place, not id): the intervals have a width
            token=submission_token(assignment_id=assignment.pk, pair_id=cp.pair_id, nth=0),
        )


def overdrawn_sample_judged(campaign, *, label: str = "FS"):
    """A 30% sample drawn with the first seed that draws more pairs of each topic than expected, judged `label`
    (one pair in eight PS): the intervals of these generous people then reach past 1. (Issue 27 replaced the human-only
    Horvitz-Thompson estimate, which lay above 1 here, by one centred on the sample's mean: on a uniform sample
    whose pairs every run shares it cannot leave [0, 1], so the clipping is shown on the intervals.)"""
    for seed in range(50):
        sample = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.3, seed=seed)
        per_topic = {
            t: sample.items.filter(topic_id=t).count()
            / CampaignPair.objects.filter(campaign=campaign, topic_id=t).count()
            for t in campaign.topics.values_list("pk", flat=True)
        }
        if all(share > 0.3 for share in per_topic.values()):
            break
        sample.delete()
    for assignment in budget_assign(sample=sample, assessor=UserFactory(username="alice")):
        _judge_all(assignment, label)
    return sample


def test_an_estimate_past_1_is_shown_clipped_and_given_raw_in_the_api_with_why(campaign):
    # given
    sample = overdrawn_sample_judged(campaign)

    # when
    data = report.budget_estimates(sample=sample)

    # then
    estimates = [r["human_only"] for m in report.METRICS for r in data["metrics"][m]["runs"] if r["human_only"]]
    assert any(e["estimate"] + 1.96 * e["se"] > 1 for e in estimates)  # the raw interval passes 1
    for e in estimates:
        assert 0 <= e["shown"] <= 1
        assert e["clipped"] == (e["shown"] != e["estimate"])
        assert 0 <= e["low"] <= e["high"] <= 1
    assert "clipped to [0, 1]" in data["clipping_note"]


def test_the_page_shows_no_estimate_outside_0_1(campaign, client, organizer):
    # given
    sample = overdrawn_sample_judged(campaign)
    client.force_login(organizer)

    # when
    html = client.get(f"/metrics/budget/{sample.pk}/").content.decode()

    # then
    shown = [float(chunk.split('"')[0]) for chunk in html.split('data-estimate="')[1:]]
    assert shown
    assert all(0 <= v <= 1 for v in shown)
    bounds = [float(b) for chunk in html.split('<td class="interval">[')[1:] for b in chunk.split("]")[0].split(", ")]
    assert bounds
    assert all(0 <= b <= 1 for b in bounds)
    assert "clipped to [0, 1]" in html


def test_a_run_without_an_estimate_is_never_ranked_above_one_with():
    # given: run 0 has every pair FS by the LLM but none judged; run 1 NS by the LLM, two pairs judged NS
    population = Population(
        answer=np.array([0, 0, 0, 1, 1, 1]),
        llm_code=np.array([2, 2, 2, 0, 0, 0]),
        human_code=np.array([-1, -1, -1, 0, 0, 0]),
        answer_run=np.array([0, 1]),
        answer_judged=np.array([3.0, 3.0]),
        answer_sentences=np.array([3.0, 3.0]),
        n_runs=2,
        n_topics=1,
    )
    sampled = np.array([False, False, False, True, True, False])
    pi = np.where(sampled, 0.5, 0.0)

    # when
    plain, _ = ranking(population, sampled=sampled, pi=pi, metric="precision")
    ranked, steps = ranking(population, sampled=sampled, pi=pi, metric="precision", eligible=np.array([False, True]))

    # then: by score alone the unjudged run would lead
    assert plain.tolist() == [0, 1]
    assert ranked.tolist() == [1, 0]
    assert (steps[0].upper, steps[0].lower) == (1, 0)


def test_the_sample_leaves_out_pairs_the_assessor_already_judged_from_scratch_elsewhere(campaign):
    # given: alice judged topic 1 from scratch in another campaign over the same runs (the same pairs)
    alice = UserFactory(username="alice")
    other = campaign_create(
        name="earlier", runs=list(campaign.runs.all()), topics=list(campaign.topics.all()), depth=1, guidelines=""
    )
    campaign_build_pairs(campaign=other)
    topic = campaign.topics.order_by("topic_id").first()
    (earlier,) = services.assignments_create(
        campaign=other, assessor=alice, topics=[topic], condition=Condition.FROM_SCRATCH
    )
    judged = [cp.pair_id for cp in assignment_pending(assignment=earlier)][:5]
    for pair_id in judged:
        services.judgment_submit(
            assignment=earlier,
            pair_id=pair_id,
            label="PS",
            token=submission_token(assignment_id=earlier.pk, pair_id=pair_id, nth=0),
        )
    sample = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=1.0, seed=0)

    # when
    made = budget_assign(sample=sample, assessor=alice)

    # then
    (on_topic,) = [a for a in made if a.topic_id == topic.pk]
    pending = {cp.pair_id for cp in assignment_pending(assignment=on_topic)}
    drawn = set(sample.items.filter(topic=topic).values_list("pair_id", flat=True))
    assert set(judged) <= drawn
    assert pending == drawn - set(judged)
    progress = counts.assignments_with_progress(type(on_topic).objects.filter(pk=on_topic.pk)).get()
    assert (progress.done, progress.total) == (0, len(drawn) - len(judged))


def test_the_plan_curve_is_on_the_samples_page_before_any_draw(campaign, client, organizer):
    # given
    client.force_login(organizer)

    # when: no sample drawn yet
    html = client.get(
        "/metrics/budget/", {"campaign": campaign.name, "plan_human": "nist/from_scratch"}
    ).content.decode()

    # then
    plots = html[html.index('id="budget-plan-plots"') :]
    assert plots.count("<svg") == 2
    assert "budget: share of the pairs judged by people (%)" in plots
    assert "95% interval width (score, 0 to 1)" in plots
    assert "No sample yet." in html
