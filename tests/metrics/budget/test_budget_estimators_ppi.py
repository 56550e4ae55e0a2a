"""The budget estimator (metrics/budget/estimators.py) against prediction-powered inference's own implementation
(`ppi_py`, Angelopoulos et al.), where both apply: one mean (one run, one answer, every citation weighing 1/N), uniform
sampling with π = n/N (the realised share), the LLM's weights on all N citations as `Yhat_unlabeled`.

- λ = 1 (no recalibration): the point estimates are the same number.
- The intervals differ only by what each targets, and the test checks the exact relation: ppi_py's variance is
  var(Yhat_all)/N + var(Y - Yhat)/n (a superpopulation mean, population variances), ours is the finite-population
  design variance (1 - π) Σ_s d² / n² (the full-human score of these very citations), so
  ours / (1 - π) = ppi_var - var(Yhat_all)/N + mean(d)²/n.
- Recalibration (ours: a + b·ŵ fitted on the sample) is PPI with λ = b, the sample's least-squares slope; PPI++'s
  tuned λ is b / (1 + n/N) (clipped to [0, 1]), so the two tuned estimates are close, not equal.

Run on synthetic data and on the real files: NIST's labels and Claude Opus 4.8's in
`llm-judges/opus48_nist_verdicts.jsonl` (each row holds both; read here straight from the file)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
from scipy import stats

from metrics.budget.estimators import IntervalKind, Population, difference_estimate, poisson_sample

CODE = {"NS": 0, "PS": 1, "FS": 2}
WEIGHT = np.array([0.0, 0.5, 1.0])


def _one_mean(human: np.ndarray, llm: np.ndarray) -> Population:
    n = len(human)
    return Population(
        answer=np.zeros(n, dtype=np.int64),
        llm_code=llm,
        human_code=human,
        answer_run=np.zeros(1, dtype=np.int64),
        answer_judged=np.array([float(n)]),
        answer_sentences=np.array([float(n)]),
        n_runs=1,
        n_topics=1,
    )


def _synthetic(seed: int, n: int = 3000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.choice(3, size=n, p=[0.35, 0.25, 0.4])
    llm = np.where(rng.random(n) < 0.65, human, rng.integers(0, 3, n))
    return human, llm


def _real(data_dir) -> tuple[np.ndarray, np.ndarray]:
    human, llm = [], []
    with (data_dir / "llm-judges" / "opus48_nist_verdicts.jsonl").open() as lines:
        for line in lines:
            row = json.loads(line)
            if row.get("human_label") in CODE and row.get("opus_nist_label") in CODE:
                human.append(CODE[row["human_label"]])
                llm.append(CODE[row["opus_nist_label"]])
    return np.array(human), np.array(llm)


def _scalar(value) -> float:
    return float(np.asarray(value).reshape(-1)[0])


def _check_against_ppi(human: np.ndarray, llm: np.ndarray, *, seed: int, budget: float) -> None:
    population = _one_mean(human, llm)
    sampled = poisson_sample(np.full(len(human), budget), np.random.default_rng(seed))
    n, big_n = int(sampled.sum()), len(human)
    pi = np.full(big_n, n / big_n)
    y, yhat, yhat_all = WEIGHT[human[sampled]], WEIGHT[llm[sampled]], WEIGHT[llm]
    z = float(stats.norm.ppf(0.975))

    # λ = 1: the same point estimate
    ours = difference_estimate(
        population, sampled=sampled, pi=pi, metric="precision", calibrate=False, interval=IntervalKind.NORMAL
    )
    assert ours.score[0] == pytest.approx(_scalar(ppi_mean_pointestimate(y, yhat, yhat_all, lam=1)), abs=1e-12)

    # the intervals: the exact relation between the two variances
    low, high = ppi_mean_ci(y, yhat, yhat_all, alpha=0.05, lam=1)
    ppi_var = ((_scalar(high) - _scalar(low)) / 2 / z) ** 2
    d = y - yhat
    assert ours.se[0] ** 2 / (1 - n / big_n) == pytest.approx(
        ppi_var - yhat_all.var() / big_n + d.mean() ** 2 / n, rel=1e-9
    )
    assert (ours.high - ours.low)[0] == pytest.approx(2 * z * ours.se[0])

    # recalibration is PPI with λ = the sample's least-squares slope of the human weight on the LLM's
    slope = float(np.polyfit(yhat, y, 1)[0])
    tuned = difference_estimate(population, sampled=sampled, pi=pi, metric="precision", interval=IntervalKind.NORMAL)
    assert tuned.score[0] == pytest.approx(_scalar(ppi_mean_pointestimate(y, yhat, yhat_all, lam=slope)), abs=1e-12)
    # and PPI++'s own tuned λ lands well inside our interval (within half its half-width)
    ppi_tuned = _scalar(ppi_mean_pointestimate(y, yhat, yhat_all, lam=None))
    assert abs(ppi_tuned - tuned.score[0]) < 0.5 * z * tuned.se[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("budget", [0.05, 0.2])
def test_it_matches_ppi_py_on_synthetic_data(seed, budget):
    human, llm = _synthetic(seed)
    _check_against_ppi(human, llm, seed=seed + 100, budget=budget)


@pytest.mark.parametrize("budget", [0.05, 0.1, 0.3])
def test_it_matches_ppi_py_on_nist_and_opus_labels(data_dir, budget):
    human, llm = _real(data_dir)
    assert len(human) > 6000  # NIST and Opus both labelled these citations
    _check_against_ppi(human, llm, seed=0, budget=budget)
