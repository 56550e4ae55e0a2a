"""Issue 27, the rest: JSON without NaN, the active design (unbiased, every π > 0), rank sets from pairwise
differences (joint coverage, tighter than Bonferroni's), Kendall's τ with an interval, the active draw of a campaign."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from django.core.management import call_command
from scipy import stats

from metrics.budget import report
from metrics.budget import services as budget_services
from metrics.budget.estimators import (
    Design,
    IntervalKind,
    active_probabilities,
    difference_estimate,
    expected_errors,
    full_scores,
    interval_quantile,
    poisson_sample,
)
from metrics.budget.ranking import (
    intervals_above,
    kendall_tau,
    pairwise_rank_sets,
    rank_sets,
    run_unit_matrix,
    true_ranks,
)
from metrics.budget.simulation import active_draw, simulate
from tests.factories import study_campaign_build, study_labels_seed
from tests.metrics.budget.test_budget_designs import _uneven
from tests.metrics.budget.test_budget_estimators import _synthetic


def _strict(text: str) -> dict:
    def refuse(name: str) -> None:
        raise ValueError(f"invalid JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.django_db
def test_the_simulation_json_writes_null_where_tau_is_undefined():
    # given: two runs answering alike, so the full-human scores tie every run and τ is undefined
    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-tie")
    study_labels_seed(campaign, human="nist-tie", llm="gpt-tie")
    out, table = io.StringIO(), io.StringIO()

    # when
    args = ["--truth", "nist-tie/from_scratch", "--llm", "gpt-tie", "--designs", "uniform", "--budgets", "0.5"]
    call_command("budget_simulate", *args, "--repeats", "2", "--format", "json", stdout=out)
    call_command("budget_simulate", *args, "--repeats", "2", stdout=table)

    # then: valid JSON (no NaN), null for the undefined τ, and "—" in the table
    (row,) = _strict(out.getvalue())["rows"]
    assert row["tau_llm_only"] is None
    assert row["by_metric"]["precision"]["tau_llm_only"] is None
    assert "NaN" not in out.getvalue()
    assert "nan" not in table.getvalue()
    assert "—" in table.getvalue()


def test_active_probabilities_spend_the_budget_where_weight_times_error_is_and_leave_no_unit_out():
    error = np.array([0.1] * 50 + [0.5] * 50)
    weight = np.array([1.0, 2.0] * 50)

    pi = active_probabilities(error, budget=0.2, weight=weight, floor=0.1)

    assert pi.mean() == pytest.approx(0.2)
    assert pi.min() >= 0.1 * 0.2  # the uniform floor: every unit can be drawn
    assert pi[51] > pi[50] > pi[1] > pi[0]  # error and weight both raise π
    assert pi[51] > 2 * pi[1]


def test_expected_errors_shrink_a_thin_label_toward_the_pooled_error():
    labels = np.array([0] * 40 + [1] * 40 + [2] * 4)
    known = np.ones(84, dtype=bool)
    residual = np.where(labels == 1, 0.5, 0.0)
    residual[80:] = 1.0  # label 2: four known units, all wrong

    error = expected_errors(labels, known=known, residual=residual, shrink=10)

    pooled = np.sqrt(np.mean(residual**2))
    assert error[0] < error[40]
    assert pooled < error[80] < 1.0  # four units do not make the error theirs alone


def test_the_active_estimate_is_unbiased_for_the_full_human_scores():
    # given: one pilot (π = 1 given it), the rest drawn with their active π; the LLM taken as it is
    population = _uneven(seed=3, runs=6, topics=6)
    rng = np.random.default_rng(5)
    pi, first = active_draw(population, budget=0.2, rng=rng)
    pilot = first & (pi == 1)
    rest_pi = np.where(pilot, 0.0, pi)
    truth = full_scores(population, metric="precision")

    # when
    draws = np.array([
        difference_estimate(
            population, sampled=pilot | poisson_sample(rest_pi, rng), pi=pi, metric="precision", calibrate=False
        ).score
        for _ in range(3000)
    ])  # fmt: skip

    # then: each run's mean within 4 standard errors of its truth, and within 0.01
    assert pi.min() > 0
    assert pi.mean() == pytest.approx(0.2, abs=0.02)
    error = draws.mean(axis=0) - truth
    assert np.all(np.abs(error) <= 4 * draws.std(axis=0) / np.sqrt(len(draws)))
    assert np.abs(error).max() < 0.01


def test_the_active_design_covers_and_narrows_the_intervals_where_answers_are_uneven():
    population = _uneven(seed=0)

    uniform, active = simulate(
        population, budgets=[0.2], designs=["uniform", "active"], metrics=("precision",), repeats=150
    )

    assert active.coverage >= 0.93
    assert active.judged_share == pytest.approx(0.2, abs=0.01)
    assert active.width < 0.8 * uniform.width


def test_pairwise_rank_sets_hold_jointly_and_are_tighter_than_bonferronis():
    # given: six runs whose scores differ, drawn many times at 30%
    population = _synthetic(seed=0, runs=6, topics=8, per_answer=60)
    truth = full_scores(population, metric="precision")
    ranks = true_ranks(truth)
    pi = np.full(len(population.answer), 0.3)
    rng = np.random.default_rng(2)
    held, pairwise_size, bonferroni_size = [], [], []

    # when
    for _ in range(150):
        sampled = poisson_sample(pi, rng)
        sets = pairwise_rank_sets(run_unit_matrix(population, sampled=sampled, pi=pi, metric="precision"), rng=rng)
        held.append(np.all((sets.best <= ranks) & (ranks <= sets.worst)))
        pairwise_size.append(np.mean(sets.worst - sets.best + 1))
        e = difference_estimate(population, sampled=sampled, pi=pi, metric="precision", level=1 - 0.05 / 6)
        best, worst = rank_sets(intervals_above(e.low, e.high))
        bonferroni_size.append(np.mean(worst - best + 1))

    # then
    assert np.mean(held) >= 0.9
    assert np.mean(pairwise_size) < np.mean(bonferroni_size)


def test_runs_sharing_a_drawn_pair_are_told_apart_by_their_difference():
    # given: two runs citing the same 200 pairs, run 1 with 20 more Full support citations than run 0
    from metrics.budget.estimators import Population

    rng = np.random.default_rng(0)
    human = rng.choice([0, 2], size=200)
    llm = np.where(rng.random(200) < 0.7, human, 2 - human)
    population = Population(
        answer=np.repeat([0, 1], 200),
        llm_code=np.concatenate([llm, llm]),
        human_code=np.concatenate([human, np.where(np.arange(200) < 20, 2, human)]),
        answer_run=np.array([0, 1]),
        answer_judged=np.array([200.0, 200.0]),
        answer_sentences=np.array([200.0, 200.0]),
        n_runs=2,
        n_topics=1,
        unit=np.concatenate([np.arange(200), np.arange(200)]),
    )
    sampled = np.tile(rng.random(200) < 0.5, 2)
    pi = np.full(400, 0.5)

    # when
    runs = run_unit_matrix(population, sampled=sampled, pi=pi, metric="precision")

    # then: the difference's se is far below what two independent intervals would give
    se = runs.difference_se()[0, 1]
    var = np.diag(runs.covariance)
    assert se < 0.7 * np.sqrt(var[0] + var[1])
    e = difference_estimate(population, sampled=sampled, pi=pi, metric="precision", interval=IntervalKind.NORMAL)
    assert np.sqrt(var) == pytest.approx(e.se)


def test_kendall_tau_is_scipys_tau_b_and_nan_when_a_side_ties_everything():
    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 5, 30).astype(float), rng.integers(0, 5, 30).astype(float)

    assert float(kendall_tau(x, y)) == pytest.approx(stats.kendalltau(x, y).statistic)
    assert np.isnan(float(kendall_tau(x, np.ones(30))))
    assert kendall_tau(x, np.vstack([y, x])).tolist() == pytest.approx([stats.kendalltau(x, y).statistic, 1.0])


def test_the_tau_interval_covers_in_simulation():
    population = _synthetic(seed=1, runs=8, topics=8, per_answer=40)

    (row,) = simulate(population, budgets=[0.2], designs=["uniform"], metrics=("precision",), repeats=150)

    assert row.tau_interval_coverage is not None
    assert row.tau_interval_coverage >= 0.95


def test_the_t_quantile_helper_is_untouched():
    assert interval_quantile(np.array([1, 30]))[1] == pytest.approx(stats.t.ppf(0.975, 29))


@pytest.mark.django_db
def test_an_active_draw_learns_the_llms_errors_from_a_human_set_and_is_refused_without_one(organizer):
    # given
    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-active")
    study_labels_seed(campaign, human="nist-active", llm="gpt-active")

    # when / then: refused without a reference set, drawn with one (recorded, every π in (0, 1])
    with pytest.raises(budget_services.BudgetError, match="learn the LLM's errors"):
        budget_services.budget_sample_draw(campaign=campaign, llm="gpt-active", design=Design.ACTIVE, share=0.3)
    sample = budget_services.budget_sample_draw(
        campaign=campaign, llm="gpt-active", design=Design.ACTIVE, share=0.3, reference="nist-active/from_scratch"
    )
    probabilities = list(sample.items.values_list("inclusion_probability", flat=True))
    assert sample.design == "active"
    assert sample.reference == "nist-active/from_scratch"
    assert sample.expected == pytest.approx(0.3 * sample.frame)
    assert all(0 < p <= 1 for p in probabilities)


@pytest.mark.django_db
def test_the_sample_data_and_page_show_tau_and_the_plan_compares_designs(client, organizer):
    from tests.metrics.budget.test_budget_figures import overdrawn_sample_judged

    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-tau")
    study_labels_seed(campaign, human="nist", llm="gpt-budget")
    sample = overdrawn_sample_judged(campaign)
    client.force_login(organizer)

    data = report.budget_estimates(sample=sample)
    html = client.get(f"/metrics/budget/{sample.pk}/?plan_human=nist/from_scratch&plan_llm=gpt-budget").content.decode()

    for metric in report.METRICS:
        assert "kendall_tau_llm" in data["metrics"][metric]  # None here: the two runs tie in the truth and the LLM
    assert "Kendall's τ between the LLM-only ranking" in html
    assert 'id="budget-designs"' in html
    assert html.count("<td title=") >= 3  # one row per design and budget
