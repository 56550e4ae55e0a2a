"""The human-budget campaign mode (issue 16, point 1-2): the draw (known inclusion probabilities, a recorded seed,
the database's invariants), its assignment from scratch through the blindness guards, and the estimates."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import IntegrityError, transaction

from judging import counts, services
from judging.models import CampaignPair, Condition
from judging.pool import assignment_pending
from judging.tokens import submission_token
from metrics.budget import report
from metrics.budget.models import BudgetSample, BudgetSampleItem
from metrics.budget.services import BudgetError, budget_assign, budget_sample_draw
from tests.factories import JudgeFactory, PairJudgmentFactory, UserFactory, study_campaign_build, study_labels_seed

pytestmark = pytest.mark.django_db

WEIGHT = {"FS": 1.0, "PS": 0.5, "NS": 0.0}


@pytest.fixture
def campaign():
    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-campaign")
    study_labels_seed(campaign, human="nist", llm="gpt-budget")
    return campaign


def _items(sample: BudgetSample) -> list[tuple[int, int, float, int]]:
    return list(
        sample.items.order_by("topic_id", "order").values_list("topic_id", "pair_id", "inclusion_probability", "order")
    )


def test_it_draws_with_known_probabilities_and_the_seed_repeats_the_draw(campaign):
    # when
    first = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.4, seed=3)
    again = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.4, seed=3)
    other = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.4, seed=4)

    # then: uniform π = the share on every drawn pair; the same seed gives the same pairs in the same order
    assert first.frame == CampaignPair.objects.filter(campaign=campaign).count() == 42
    assert first.expected == pytest.approx(0.4 * 42)
    assert [p for _, _, p, _ in _items(first)] == pytest.approx([0.4] * first.items.count())
    assert _items(first) == _items(again)
    assert [i[:2] for i in _items(first)] != [i[:2] for i in _items(other)]
    assert 0 < first.items.count() < 42


def test_the_stratified_design_draws_the_llms_partial_labels_more_often(campaign):
    sample = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.3, design="stratified", seed=0)

    # every item's π follows the LLM's label on its pair (study_labels_seed: FS every 4th, else NS/PS alternating)
    llm = dict(PairJudgmentFactory._meta.model.objects.filter(judge__name="gpt-budget").values_list("pair_id", "label"))
    by_label: dict[str, set[float]] = {}
    for _topic, pair_id, pi, _order in _items(sample):
        by_label.setdefault(llm[pair_id], set()).add(round(pi, 9))
    assert all(len(v) == 1 for v in by_label.values())
    assert max(by_label["PS"]) > max(by_label["NS"]) > max(by_label["FS"])


def test_the_disagreement_design_needs_a_second_llm_and_favours_its_disagreements(campaign):
    second = JudgeFactory(name="llm-two", kind="llm")
    pool = list(CampaignPair.objects.filter(campaign=campaign).order_by("pk"))
    for i, cp in enumerate(pool):
        PairJudgmentFactory(judge=second, pair=cp.pair, label="FS" if i % 3 else "NS")
    with pytest.raises(BudgetError, match="second LLM"):
        budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.3, design="disagreement")

    sample = budget_sample_draw(
        campaign=campaign, llm="gpt-budget", second_llm="llm-two", share=0.3, design="disagreement", seed=1
    )

    assert sample.second_llm == "llm-two/none"
    probabilities = {round(p, 9) for _, _, p, _ in _items(sample)}
    assert len(probabilities) == 2
    assert max(probabilities) == pytest.approx(3 * min(probabilities))


def test_it_refuses_pairs_without_the_llms_label_unless_told_and_bad_budgets(campaign):
    unlabelled = CampaignPair.objects.filter(campaign=campaign).order_by("pk").first()
    PairJudgmentFactory._meta.model.objects.filter(judge__name="gpt-budget", pair=unlabelled.pair).delete()

    with pytest.raises(BudgetError, match="1 of the campaign's 42 pairs have no label from gpt-budget"):
        budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.2)
    with pytest.raises(BudgetError, match="not both"):
        budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.2, pairs=5, allow_unlabelled=True)
    with pytest.raises(BudgetError, match="between 1 and the campaign's 42 pairs"):
        budget_sample_draw(campaign=campaign, llm="gpt-budget", pairs=43, allow_unlabelled=True)
    with pytest.raises(BudgetError, match="not an LLM"):
        budget_sample_draw(campaign=campaign, llm="nist", share=0.2)

    sample = budget_sample_draw(campaign=campaign, llm="gpt-budget", pairs=10, allow_unlabelled=True)
    assert sample.unlabelled == 1
    assert sample.budget_text == "10 pairs"
    assert BudgetSample.objects.count() == 1


def test_the_database_holds_the_invariants(campaign):
    sample = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.5, seed=0)
    item = sample.items.first()
    for bad in (0.0, 1.5):
        with pytest.raises(IntegrityError), transaction.atomic():
            BudgetSampleItem.objects.filter(pk=item.pk).update(inclusion_probability=bad)
    with pytest.raises(IntegrityError), transaction.atomic():
        BudgetSample.objects.filter(pk=sample.pk).update(budget_pairs=5)  # a share and a number both
    with pytest.raises(IntegrityError), transaction.atomic():
        BudgetSampleItem.objects.create(
            sample=sample, topic_id=item.topic_id, pair_id=item.pair_id, inclusion_probability=0.5, order=999
        )


def test_an_assignment_of_the_sample_judges_the_drawn_pairs_only_in_the_drawn_order(campaign):
    sample = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.4, seed=2)
    alice = UserFactory(username="alice")

    made = budget_assign(sample=sample, assessor=alice)

    assert {a.condition for a in made} == {Condition.FROM_SCRATCH}
    for assignment in made:
        drawn = list(sample.items.filter(topic=assignment.topic).order_by("order").values_list("pair_id", flat=True))
        pending = [cp.pair_id for cp in assignment_pending(assignment=assignment)]
        assert pending == drawn
        progress = counts.assignments_with_progress(type(assignment).objects.filter(pk=assignment.pk)).get()
        assert progress.total == len(drawn)


def test_assigning_the_sample_goes_through_the_blindness_guards(campaign):
    sample = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.4, seed=2)
    editor, whole = UserFactory(username="editor"), UserFactory(username="whole")
    campaign.post_edit_judge = JudgeFactory._meta.model.objects.get(name="gpt-budget")
    campaign.save()
    services.assignments_create(
        campaign=campaign, assessor=editor, topics=campaign.topics.all(), condition=Condition.POST_EDIT
    )
    services.assignments_create(
        campaign=campaign, assessor=whole, topics=campaign.topics.all(), condition=Condition.FROM_SCRATCH
    )

    # someone who saw the LLM's labels on the topic cannot judge its sample blind
    with pytest.raises(BudgetError, match="editor"):
        budget_assign(sample=sample, assessor=editor)
    # someone who judges the topic's whole pool from scratch is not silently narrowed to the sample
    with pytest.raises(BudgetError, match="already judges all of topic"):
        budget_assign(sample=sample, assessor=whole)
    assert not sample.assignments.exists()


def _judge_all(assignment, labels_by_pair: dict[int, str]) -> None:
    for cp in assignment_pending(assignment=assignment):
        services.judgment_submit(
            assignment=assignment,
            pair_id=cp.pair_id,
            label=labels_by_pair[cp.pair_id],
            token=submission_token(assignment_id=assignment.pk, pair_id=cp.pair_id, nth=0),
        )


def test_a_full_draw_judged_gives_the_full_human_scores_with_no_width(campaign):
    # given: budget 100% (π = 1), everything judged; the human says PS on even pairs, FS on odd ones
    sample = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=1.0, seed=0)
    alice = UserFactory(username="alice")
    human = {
        cp.pair_id: ("PS" if cp.pair_id % 2 == 0 else "FS") for cp in CampaignPair.objects.filter(campaign=campaign)
    }
    for assignment in budget_assign(sample=sample, assessor=alice):
        _judge_all(assignment, human)

    # when
    data = report.budget_estimates(sample=sample)

    # then: every run's estimate is its full-human precision, computed here from the pool (each sentence one
    # first citation; each run answers every topic; the run score is the mean over the two topics)
    assert data["judged_pairs"] == data["drawn_pairs"] == 42
    expected = {}
    for run in campaign.runs.all():
        per_topic = []
        for topic in campaign.topics.all():
            pairs = CampaignPair.objects.filter(campaign=campaign, topic=topic).values_list("pair_id", flat=True)
            per_topic.append(np.mean([WEIGHT[human[p]] for p in pairs]))
        expected[run.run_id] = float(np.mean(per_topic))
    for row in data["metrics"]["precision"]["runs"]:
        assert row["ppi"]["estimate"] == pytest.approx(expected[row["run_id"]])
        assert row["human_only"]["estimate"] == pytest.approx(expected[row["run_id"]])
        assert row["ppi"]["high"] - row["ppi"]["low"] == pytest.approx(0.0)
    assert data["label_sets"] == {
        "llm": "gpt-budget/none",
        "human": "campaign:budget-campaign/from_scratch",
        "human_note": f"campaign:budget-campaign/from_scratch, read on the pairs of budget sample #{sample.pk} only",
    }


def test_estimates_appear_as_the_sample_is_judged_and_move_with_the_labels(campaign):
    sample = budget_sample_draw(campaign=campaign, llm="gpt-budget", share=0.5, seed=5)
    alice = UserFactory(username="alice")
    before = report.budget_estimates(sample=sample)
    assert before["judged_pairs"] == 0
    assert all(r["ppi"] is None and r["human_only"] is None for r in before["metrics"]["recall"]["runs"])
    llm_only = {r["run_id"]: r["llm_only"] for r in before["metrics"]["recall"]["runs"]}

    for assignment in budget_assign(sample=sample, assessor=alice):
        _judge_all(assignment, {cp.pair_id: "FS" for cp in CampaignPair.objects.filter(campaign=campaign)})
    after = report.budget_estimates(sample=sample)

    # the people say FS where the LLM mostly said NS or PS: the corrected recall rises above the LLM-only one
    assert after["judged_pairs"] == sample.items.count()
    for row in after["metrics"]["recall"]["runs"]:
        assert row["ppi"]["estimate"] > llm_only[row["run_id"]]
        assert row["ppi"]["low"] <= row["ppi"]["estimate"] <= row["ppi"]["high"]
    steps = [r["next_in_order_probability"] for r in after["metrics"]["recall"]["runs"][:-1]]
    assert all(0.5 <= p <= 1 for p in steps)
