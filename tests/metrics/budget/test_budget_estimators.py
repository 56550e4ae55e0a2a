"""The human-budget estimator (metrics/budget/estimators.py): unbiased under its design, intervals near nominal."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metrics.budget.estimators import (
    ONE_LLM_DESIGNS,
    Design,
    IntervalKind,
    Population,
    difference_estimate,
    full_scores,
    inclusion_probabilities,
    plan,
    poisson_sample,
)
from metrics.budget.ranking import ranking


def _synthetic(seed: int = 0, runs: int = 6, topics: int = 8, per_answer: int = 40) -> Population:
    """Runs x topics answers; the human labels drift from an LLM that is right 60% of the time."""
    rng = np.random.default_rng(seed)
    n_answers = runs * topics
    answer = np.repeat(np.arange(n_answers), per_answer)
    quality = np.repeat(rng.uniform(0.2, 0.8, runs), topics)  # each run's share of FS
    human = np.where(rng.random(len(answer)) < quality[answer], 2, rng.integers(0, 2, len(answer)))
    llm = np.where(rng.random(len(answer)) < 0.6, human, rng.integers(0, 3, len(answer)))
    return Population(
        answer=answer,
        llm_code=llm,
        human_code=human,
        answer_run=np.repeat(np.arange(runs), topics),
        answer_judged=np.full(n_answers, float(per_answer)),
        answer_sentences=np.full(n_answers, per_answer + 5.0),
        n_runs=runs,
        n_topics=topics,
    )


@pytest.mark.parametrize("design", ONE_LLM_DESIGNS)
@pytest.mark.parametrize("use_llm", [True, False])
def test_the_estimate_is_unbiased_for_the_full_human_scores(design, use_llm):
    # given
    population = _synthetic()
    truth = full_scores(population, metric="precision")
    pi = inclusion_probabilities(population.llm_code, budget=0.2, design=design)
    rng = np.random.default_rng(7)

    # when: many draws of the design, without recalibration (exactly unbiased)
    draws = np.array(
        [
            difference_estimate(
                population, sampled=poisson_sample(pi, rng), pi=pi, metric="precision", use_llm=use_llm, calibrate=False
            ).score
            for _ in range(2000)
        ]
    )

    # then: the mean of the draws is within 4 standard errors of the truth, run by run
    tolerance = 4 * draws.std(axis=0) / np.sqrt(len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - truth) < tolerance)


def test_the_recalibrated_estimate_is_nearly_unbiased_and_narrower():
    population = _synthetic(seed=1)
    truth = full_scores(population, metric="recall")
    pi = inclusion_probabilities(population.llm_code, budget=0.2)
    rng = np.random.default_rng(3)
    plain, tuned = [], []
    for _ in range(1000):
        sampled = poisson_sample(pi, rng)
        plain.append(difference_estimate(population, sampled=sampled, pi=pi, metric="recall", calibrate=False))
        tuned.append(difference_estimate(population, sampled=sampled, pi=pi, metric="recall"))
    scores = np.array([t.score for t in tuned])
    assert np.all(np.abs(scores.mean(axis=0) - truth) < 5 * scores.std(axis=0) / np.sqrt(len(scores)) + 1e-3)
    assert np.mean([t.se for t in tuned]) < np.mean([p.se for p in plain])


def test_the_intervals_reach_their_nominal_coverage():
    population = _synthetic(seed=2, per_answer=80)
    truth = full_scores(population, metric="precision")
    pi = inclusion_probabilities(population.llm_code, budget=0.3, design=Design.STRATIFIED)
    rng = np.random.default_rng(11)
    covered = []
    for _ in range(500):
        estimate = difference_estimate(population, sampled=poisson_sample(pi, rng), pi=pi, metric="precision")
        covered.append((estimate.low <= truth) & (truth <= estimate.high))
    # 95% nominal; 3000 run-draws give a standard error of 0.004 on the share
    assert np.mean(covered) > 0.93


def test_the_stratified_design_spends_the_budget_and_favours_the_llms_partial_labels():
    llm = np.array([0] * 50 + [1] * 30 + [2] * 120)

    pi = inclusion_probabilities(llm, budget=0.25, design=Design.STRATIFIED)

    assert pi.mean() == pytest.approx(0.25)
    assert pi[llm == 1].min() > pi[llm == 0].max() > pi[llm == 2].max()
    assert inclusion_probabilities(llm, budget=0.9, design=Design.STRATIFIED).max() == 1.0
    assert inclusion_probabilities(llm, budget=0.9, design=Design.STRATIFIED).mean() == pytest.approx(0.9)
    with pytest.raises(ValueError, match="budget"):
        inclusion_probabilities(llm, budget=0)


def test_the_planned_width_is_the_width_the_draws_give():
    # given: the human labels of every citation known (the planning input), a uniform 20% design
    population = _synthetic(seed=4, per_answer=60)
    known = np.ones(len(population.answer), dtype=bool)

    # when
    planned = plan(population, known=known, budgets=[0.2], metric="precision")[0]
    pi = inclusion_probabilities(population.llm_code, budget=0.2)
    rng = np.random.default_rng(5)
    widths, human_widths = [], []
    for _ in range(400):
        sampled = poisson_sample(pi, rng)
        both = difference_estimate(population, sampled=sampled, pi=pi, metric="precision", interval=IntervalKind.NORMAL)
        human = difference_estimate(
            population, sampled=sampled, pi=pi, metric="precision", use_llm=False, interval=IntervalKind.NORMAL
        )
        widths.append(np.mean(both.high - both.low))
        human_widths.append(np.mean(human.high - human.low))

    # then: within 10% (the mean of a square root is below the root of the mean variance the plan takes)
    assert planned.width == pytest.approx(np.mean(widths), rel=0.1)
    assert planned.width_human_only == pytest.approx(np.mean(human_widths), rel=0.1)
    assert planned.width < planned.width_human_only


def test_a_pair_held_by_several_citations_is_one_draw_in_the_variance():
    # given: one run, one answer of 4 citations; citations 0 and 1 are one pair (one unit), 2 and 3 their own
    population = Population(
        answer=np.zeros(4, dtype=np.int64),
        llm_code=np.array([0, 0, 2, 2]),
        human_code=np.array([2, 2, 2, 0]),
        answer_run=np.zeros(1, dtype=np.int64),
        answer_judged=np.array([4.0]),
        answer_sentences=np.array([4.0]),
        n_runs=1,
        n_topics=1,
        unit=np.array([0, 0, 1, 2]),
    )
    sampled = np.array([True, True, False, True])
    pi = np.full(4, 0.5)

    estimate = difference_estimate(population, sampled=sampled, pi=pi, metric="precision", calibrate=False)

    # then: d = (1, 1, -, -1), c = 1/4: the pair's sum is 2/4, squared once; the third unit's is -1/4
    expected = (1 - 0.5) * (0.5**2) / 0.25 + (1 - 0.5) * (0.25**2) / 0.25
    assert estimate.se[0] ** 2 == pytest.approx(expected)
    assert estimate.drawn[0] == 2
    assert estimate.score[0] == pytest.approx(0.25 * (0 + 0 + 1 + 1) + 0.25 * (1 + 1 - 1) / 0.5)


def test_the_ranking_gives_each_adjacent_two_the_normal_probability_of_their_order():
    population = _synthetic(seed=6)
    pi = inclusion_probabilities(population.llm_code, budget=0.3)
    sampled = poisson_sample(pi, np.random.default_rng(8))

    order, steps = ranking(population, sampled=sampled, pi=pi, metric="precision")
    estimate = difference_estimate(population, sampled=sampled, pi=pi, metric="precision")

    assert list(estimate.score[order]) == sorted(estimate.score, reverse=True)
    for step in steps:
        # runs hold no citation in common here, so the difference's variance is the sum of the two
        assert step.se == pytest.approx(np.hypot(estimate.se[step.upper], estimate.se[step.lower]))
        assert step.probability == pytest.approx(stats.norm.cdf(step.difference / step.se))
        assert 0.5 <= step.probability <= 1


def test_t_intervals_are_wider_than_normal_ones_by_the_quantiles():
    population = _synthetic(seed=9)
    pi = inclusion_probabilities(population.llm_code, budget=0.1)
    sampled = poisson_sample(pi, np.random.default_rng(1))

    t = difference_estimate(population, sampled=sampled, pi=pi, metric="recall", interval=IntervalKind.T)
    normal = difference_estimate(population, sampled=sampled, pi=pi, metric="recall", interval=IntervalKind.NORMAL)

    ratio = (t.high - t.low) / (normal.high - normal.low)
    assert ratio == pytest.approx(stats.t.ppf(0.975, t.drawn - 1) / stats.norm.ppf(0.975))
    assert np.all(ratio > 1)
