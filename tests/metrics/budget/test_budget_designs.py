"""Issue 27: a valid human-only baseline, the Neyman-stratified design, the design comparison in the simulation."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.budget.estimators import (
    Interval,
    Population,
    difference_estimate,
    full_scores,
    inclusion_probabilities,
    poisson_sample,
)
from tests.metrics.budget.test_budget_estimators import _synthetic


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
        interval=Interval.NORMAL,
    )  # fmt: skip

    assert e.score == pytest.approx(full_scores(population, metric="recall"))
    assert e.high - e.low == pytest.approx(0.0)
