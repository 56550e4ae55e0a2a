"""Issue 27: a valid human-only baseline, the Neyman-stratified design, the design comparison in the simulation."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from metrics.budget import report
from metrics.budget.estimators import (
    IntervalKind,
    Population,
    difference_estimate,
    full_scores,
    inclusion_probabilities,
    neyman_probabilities,
    poisson_sample,
)
from metrics.budget.ranking import intervals_above, rank_sets, true_ranks
from metrics.budget.simulation import SimulationRow, judgments_for_width, neyman_draw, simulate
from tests.factories import study_campaign_build, study_labels_seed
from tests.metrics.budget.test_budget_estimators import _synthetic
from tests.metrics.budget.test_budget_figures import overdrawn_sample_judged


def _uneven(seed: int, runs: int = 20, topics: int = 10) -> Population:
    """Answers of 1 to about 40 judged citations (geometric, mean 8), as in NIST's runs: a citation of a short
    answer weighs far more in its run's precision than one of a long answer."""
    rng = np.random.default_rng(seed)
    sizes = rng.geometric(1 / 8, runs * topics)
    answer = np.repeat(np.arange(runs * topics), sizes)
    quality = np.repeat(rng.uniform(0.3, 0.9, runs), topics)
    human = np.where(rng.random(len(answer)) < quality[answer], 2, 0)
    llm = np.where(rng.random(len(answer)) < 0.8, human, 2 - human)
    return Population(
        answer=answer,
        llm_code=llm,
        human_code=human,
        answer_run=np.repeat(np.arange(runs), topics),
        answer_judged=sizes.astype(float),
        answer_sentences=sizes + 1.0,
        n_runs=runs,
        n_topics=topics,
    )


def _coverage(population, *, budget: float, use_llm: bool, draws: int, seed: int) -> float:
    truth = full_scores(population, metric="precision")
    pi = inclusion_probabilities(population.llm_code, budget=budget)
    rng = np.random.default_rng(seed)
    hits = []
    for _ in range(draws):
        sampled = poisson_sample(pi, rng)
        e = difference_estimate(population, sampled=sampled, pi=pi, metric="precision", use_llm=use_llm)
        hits.append(np.mean((e.low <= truth) & (truth <= e.high)))
    return float(np.mean(hits))


@pytest.mark.parametrize("budget", [0.05, 0.1])
def test_the_human_only_interval_covers_on_uneven_answers(budget):
    # given: 4 to 9 drawn citations per run (the Horvitz-Thompson t interval covered 0.82-0.86 here)
    population = _uneven(seed=0)

    # when
    coverage = _coverage(population, budget=budget, use_llm=False, draws=300, seed=1)

    # then
    assert coverage >= 0.93


def test_the_human_only_estimate_of_a_full_draw_is_the_truth_with_no_width():
    population = _synthetic(seed=2)
    everything = np.ones(len(population.answer), dtype=bool)

    e = difference_estimate(
        population, sampled=everything, pi=np.ones(len(everything)), metric="recall", use_llm=False,
        interval=IntervalKind.NORMAL,
    )  # fmt: skip

    assert e.score == pytest.approx(full_scores(population, metric="recall"))
    assert e.high - e.low == pytest.approx(0.0)


@pytest.mark.django_db
def test_the_simulation_prints_one_object_per_design_and_budget():
    # given
    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-simulate")
    study_labels_seed(campaign, human="nist-sim", llm="gpt-sim")
    out = io.StringIO()

    # when
    call_command(
        "budget_simulate", "--truth", "nist-sim/from_scratch", "--llm", "gpt-sim", "--designs", "uniform",
        "stratified", "--budgets", "0.2", "0.5", "--repeats", "3", "--seed", "1", "--format", "json", stdout=out,
    )  # fmt: skip
    rows = json.loads(out.getvalue())["rows"]

    # then
    assert [(r["design"], r["budget"]) for r in rows] == [
        ("uniform", 0.2), ("uniform", 0.5), ("stratified", 0.2), ("stratified", 0.5)
    ]  # fmt: skip
    for r in rows:
        assert {"coverage", "width", "rank_set_coverage", "rank_set_size", "judgments_for_target_width"} <= set(r)
        assert 0 <= r["rank_set_coverage"] <= 1
        assert 1 <= r["rank_set_size"] <= 2  # two runs
        assert set(r["by_metric"]) == {"precision", "recall"}


def test_the_judgments_for_a_width_scale_with_the_design_variance():
    # given: a row at a 10% share whose intervals are 0.4 wide, over 1,000 units
    row = SimulationRow(0.1, "uniform", "precision", 1, 0.95, 0.4, 0.5, 0.95, 0, 0, 0, 0, 0, judged_share=0.1)

    # when / then: the same width takes the same judgments; half the width, (1 - π') / π' = 9 / 4
    assert judgments_for_width(row, units=1000, target_width=0.4) == pytest.approx(100)
    assert judgments_for_width(row, units=1000, target_width=0.2) == pytest.approx(1000 / (1 + 9 / 4))


@pytest.mark.django_db
def test_the_simulation_refuses_two_ways_of_naming_the_designs():
    with pytest.raises(CommandError, match="not both"):
        call_command(
            "budget_simulate", "--truth", "x/from_scratch", "--llm", "y", "--design", "uniform", "--designs", "uniform"
        )  # fmt: skip


def test_neyman_allocation_spends_the_budget_where_the_residuals_are_and_leaves_no_unit_out():
    # given: stratum 0's pilot residuals are 0, stratum 1's ±0.5, stratum 2 has too few pilot units to count
    strata = np.array([0] * 40 + [1] * 40 + [2] * 20)
    pilot = np.zeros(100, dtype=bool)
    pilot[:10] = pilot[40:50] = pilot[80:82] = True
    residual = np.where(strata == 1, np.where(np.arange(100) % 2, 0.5, -0.5), 0.0)

    # when
    pi = neyman_probabilities(strata, budget=0.2, pilot=pilot, residual=residual)

    # then
    assert pi.mean() == pytest.approx(0.2)
    assert pi.min() > 0  # stratum 0 keeps a floor: every unit can be drawn
    assert pi[strata == 1].min() > pi[strata == 2].max() > pi[strata == 0].max()  # 2 takes the pooled spread
    with pytest.raises(ValueError, match="pilot"):
        neyman_probabilities(strata, budget=0.2, pilot=np.zeros(100, dtype=bool), residual=residual)


def test_the_neyman_estimate_is_unbiased_for_the_full_human_scores():
    # given: a pilot, its π fixed; the LLM taken as it is (no recalibration: exactly unbiased)
    population = _uneven(seed=3, runs=6, topics=6)
    rng = np.random.default_rng(11)
    pi, _pilot = neyman_draw(population, budget=0.2, rng=rng)
    truth = full_scores(population, metric="precision")

    # when
    draws = np.array([
        difference_estimate(
            population, sampled=poisson_sample(pi, rng), pi=pi, metric="precision", calibrate=False
        ).score
        for _ in range(3000)
    ])  # fmt: skip

    # then: each run's mean within 4 standard errors of the mean of its truth, and within 0.01
    error = draws.mean(axis=0) - truth
    assert np.all(np.abs(error) <= 4 * draws.std(axis=0) / np.sqrt(len(draws)))
    assert np.abs(error).max() < 0.01


def test_the_neyman_design_covers_in_simulation():
    population = _synthetic(seed=0)

    (row,) = simulate(population, budgets=[0.2], designs=["neyman"], metrics=("precision",), repeats=200)

    assert row.coverage >= 0.93
    assert row.judged_share == pytest.approx(0.2, abs=0.01)  # the pilot and the draw together spend the budget


def test_the_neyman_design_narrows_the_intervals_where_answers_are_uneven():
    population = _uneven(seed=0)

    uniform, neyman = simulate(
        population, budgets=[0.2], designs=["uniform", "neyman"], metrics=("precision",), repeats=100
    )

    assert neyman.width < 0.8 * uniform.width


def test_a_rank_set_spans_the_runs_whose_intervals_overlap_its_own():
    # given: run 0 clear at the top, runs 1 and 2 overlapping, run 3 overlapping 2 only
    low, high = np.array([0.8, 0.5, 0.4, 0.1]), np.array([0.9, 0.7, 0.6, 0.45])

    # when
    best, worst = rank_sets(intervals_above(low, high))

    # then
    assert best.tolist() == [1, 2, 2, 3]
    assert worst.tolist() == [1, 3, 4, 4]
    assert true_ranks(np.array([0.3, 0.5, 0.5, 0.1])).tolist() == [3, 1, 1, 4]


def test_the_rank_sets_hold_every_true_rank_jointly_in_simulation():
    # given: runs far enough apart that the sets are informative
    population = _synthetic(seed=0, runs=6, topics=8, per_answer=60)

    # when
    rows = simulate(population, budgets=[0.3], designs=["uniform", "neyman"], metrics=("precision",), repeats=200)

    # then
    for row in rows:
        assert row.rank_set_coverage >= 0.9
        assert row.rank_set_size < 4  # of 6: informative (about 2.5 here)


@pytest.mark.django_db
def test_the_sample_page_and_its_data_show_each_runs_rank_set(client, organizer):
    # given: two runs answering alike (the same pairs, the same labels): neither is surely above the other
    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-campaign")
    study_labels_seed(campaign, human="nist", llm="gpt-budget")
    sample = overdrawn_sample_judged(campaign)
    client.force_login(organizer)

    # when
    data = report.budget_estimates(sample=sample)
    html = client.get(f"/metrics/budget/{sample.pk}/").content.decode()

    # then
    for metric in report.METRICS:
        for row in data["metrics"][metric]["runs"]:
            assert row["rank_set"] == {"best": 1, "worst": 2}
    assert html.count('<td class="num rank-set">1\u20132</td>') == 2 * len(report.METRICS)
    assert "Rank set" in html
