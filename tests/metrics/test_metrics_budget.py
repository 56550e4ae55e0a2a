"""The human-budget estimator (metrics/budget.py): unbiased under its design, intervals near nominal."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.budget import (
    Design,
    Population,
    difference_estimate,
    full_scores,
    inclusion_probabilities,
    poisson_sample,
)


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


@pytest.mark.parametrize("design", Design.CHOICES)
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
