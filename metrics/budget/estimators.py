"""Run scores from LLM labels on every citation corrected by people on a sample, as pure functions.

The estimator is the **difference estimator** under Poisson sampling (each unit drawn independently with a
known inclusion probability π, so the design is exact and recorded): with LLM weights ŵ on every citation
and human weights w on the sampled ones,

    score_r = Σ_i c_ri · (ŵ_i + s_i (w_i - ŵ_i) / π_i)

where c_ri is the citation's coefficient in run r's score (1 / (topics · judged citations of its answer) for
weighted precision, 1 / (topics · sentences of its answer) for recall at depth 1) and s_i says whether it
was sampled. It is unbiased for the full-human score whatever the LLM labels are (E[s_i] = π_i); good LLM
labels only make it tighter. With ŵ the sample's mean human weight (a constant: no LLM) it is the human-only
estimate of the same sample (`_sample_mean`).
Its variance, Σ_u (1 - π_u) D_ru² / π_u over sampling units u (a citation, or a pair and all its citations)
with D_ru = Σ_i∈u c_ri d_i and d = w - ŵ, is estimated unbiasedly from the sample by
Σ_sampled (1 - π_u) D_ru² / π_u²; the 95% interval is estimate ± t · se, with Student's t at the run's drawn
units less one degrees of freedom (`IntervalKind.NORMAL`: 1.96). This is the
prediction-powered mean of Angelopoulos et al. (Science 2023) with λ = 1 under a known sampling design, in
the form survey statistics calls the model-assisted difference estimator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db.models import TextChoices
from scipy import stats

from judging.vocabulary import SUPPORT


class Design(TextChoices):
    """How a sample's inclusion probabilities are set (`inclusion_probabilities`); a sample stores its design."""

    UNIFORM = "uniform", "Uniform: every pair alike"
    # more of the LLM's Partial labels, where it is most often wrong
    STRATIFIED = "stratified", "Stratified: more of the LLM's Partial labels"
    # more of the pairs where two LLM judges disagree (needs a second LLM set)
    DISAGREEMENT = "disagreement", "Weighted: more of the pairs where two LLM judges disagree"
    # π from the LLM's expected error per pair and the pair's weight in the run scores (`active_probabilities`)
    ACTIVE = "active", "Active: more of the pairs where the LLM's expected error weighs most"


# The designs that need one LLM set: the ones a simulation or a plan can compare (in this order: the simulation's
# generator is seeded with the design's place here).
ONE_LLM_DESIGNS = (Design.UNIFORM, Design.STRATIFIED)


# Relative inclusion weight per LLM label code (NS, PS, FS) in the stratified design.
STRATIFIED_WEIGHTS = np.array([1.5, 2.5, 1.0])
# Relative inclusion weight of a pair where two LLM judges disagree (or the second has no label), against 1.
DISAGREEMENT_WEIGHT = 3.0


@dataclass(frozen=True)
class Population:
    """Every citation of the scores (one row each) with its answer, and each answer's run and denominators."""

    answer: np.ndarray  # each citation's answer, an index into the answer columns
    llm_code: np.ndarray  # the LLM's label code (0 NS, 1 PS, 2 FS; -1 none: the LLM's mean weight is used)
    human_code: np.ndarray  # the human label code (only read where sampled, and for the full-human score)
    answer_run: np.ndarray  # each answer's run (index into runs)
    answer_judged: np.ndarray  # each answer's judged citations (precision's denominator)
    answer_sentences: np.ndarray  # each answer's sentences less those not judged (recall's denominator)
    n_runs: int
    n_topics: int
    # Each citation's sampling unit (an index): in a platform campaign the pair, judged once for every run that
    # holds it, so its citations are drawn together. None: each citation is its own unit (NIST's files).
    unit: np.ndarray | None = None

    @property
    def units(self) -> np.ndarray:
        return self.unit if self.unit is not None else np.arange(len(self.answer))

    @property
    def n_units(self) -> int:
        return len(np.unique(self.units))

    def coefficients(self, metric: str) -> np.ndarray:
        denominator = self.answer_judged if metric == "precision" else self.answer_sentences
        per_answer = np.divide(1.0, denominator * self.n_topics, out=np.zeros(len(denominator)), where=denominator > 0)
        return per_answer[self.answer]

    @property
    def citation_run(self) -> np.ndarray:
        return self.answer_run[self.answer]

    def llm_weights(self) -> np.ndarray:
        known = self.llm_code >= 0
        mean = float(SUPPORT.weight_of_code[self.llm_code[known]].mean()) if known.any() else 0.5
        return np.where(known, SUPPORT.weight_of_code[np.clip(self.llm_code, 0, None)], mean)

    def human_weights(self) -> np.ndarray:
        """The human weight of each citation; NaN where the human set has no label (not drawn yet)."""
        return np.where(self.human_code >= 0, SUPPORT.weight_of_code[np.clip(self.human_code, 0, None)], np.nan)


def inclusion_probabilities(
    llm_code: np.ndarray,
    *,
    budget: float,
    design: str = Design.UNIFORM,
    second_code: np.ndarray | None = None,
    expected_error: np.ndarray | None = None,
    weight: np.ndarray | None = None,
) -> np.ndarray:
    """Each unit's inclusion probability, averaging `budget` (a share, 0 < budget ≤ 1) over the units.

    stratified: proportional to STRATIFIED_WEIGHTS by the LLM's label; disagreement: DISAGREEMENT_WEIGHT where
    `second_code` (a second LLM's label) differs from `llm_code`, 1 elsewhere; active: `active_probabilities`
    of `expected_error` (the LLM's expected error per unit, `expected_errors`) and `weight` (|c|). Units that would pass 1 are
    taken for sure and the rest scaled again, so the mean stays the budget."""
    if not 0 < budget <= 1:
        raise ValueError("the budget is a share of the pairs, above 0 and at most 1")
    n = len(llm_code)
    if design == Design.UNIFORM:
        return np.full(n, budget)
    if design == Design.STRATIFIED:
        raw = np.where(llm_code >= 0, STRATIFIED_WEIGHTS[np.clip(llm_code, 0, None)], STRATIFIED_WEIGHTS.max())
    elif design == Design.DISAGREEMENT:
        if second_code is None:
            raise ValueError("the disagreement design needs a second LLM label set")
        raw = np.where(second_code != llm_code, DISAGREEMENT_WEIGHT, 1.0)
    elif design == Design.ACTIVE:
        if expected_error is None:
            raise ValueError(
                "the active design needs the LLM's expected error on each pair (a human label set to learn it from)"
            )
        return active_probabilities(expected_error, budget=budget, weight=weight)
    else:
        raise ValueError(f"unknown design {design!r} ({', '.join(Design.values)})")
    return _scaled(raw, budget)


def _scaled(raw: np.ndarray, budget: float) -> np.ndarray:
    n = len(raw)
    # Scale to the budget; units that would pass 1 are taken for sure and the rest scaled again.
    pi = np.zeros(n)
    free = np.ones(n, dtype=bool)
    target = budget * n
    for _ in range(n + 1):
        scale = (target - (~free).sum()) / raw[free].sum()
        pi[free] = raw[free] * scale
        over = free & (pi >= 1)
        if not over.any():
            break
        pi[over] = 1.0
        free &= ~over
    return np.clip(pi, 0, 1)


MIN_PILOT = 5  # pilot units a stratum needs for its own residual spread (fewer: the pooled one)


def neyman_probabilities(
    strata: np.ndarray,
    *,
    budget: float,
    pilot: np.ndarray,
    residual: np.ndarray,
    weight: np.ndarray | None = None,
) -> np.ndarray:
    """Each unit's inclusion probability under Neyman allocation, averaging `budget` over the units.

    The difference estimator's design variance is Σ_u (1 - π_u) c_u² d_u² / π_u; for a fixed expected sample
    size it is least when π_u ∝ |c_u| · sqrt(E d_u²). Units are grouped in `strata` (e.g. the LLM's label, or
    label and topic) and E d² of a stratum is the mean squared `residual` (human weight less the prediction)
    over its `pilot` units (a small sample whose human labels are known), pooled over all pilot units where a
    stratum has fewer than MIN_PILOT; `weight` is |c_u| (1 by default: strata alone). A stratum whose pilot
    residuals are all 0 keeps a tenth of the pooled spread, so that every unit can be drawn (π > 0 keeps the
    estimate unbiased). Units that would pass 1 are taken for sure (`_scaled`)."""
    if not 0 < budget <= 1:
        raise ValueError("the budget is a share of the pairs, above 0 and at most 1")
    if not pilot.any():
        raise ValueError("Neyman allocation needs a pilot: at least one unit with a known human label")
    squared = np.where(pilot, residual, 0.0) ** 2
    pooled = float(squared[pilot].mean())
    spread = np.full(len(strata), pooled)
    for stratum in np.unique(strata):
        members = strata == stratum
        if (pilot & members).sum() >= MIN_PILOT:
            spread[members] = squared[pilot & members].mean()
    floor = 0.1 * np.sqrt(pooled) if pooled > 0 else 1.0
    raw = np.maximum(np.sqrt(spread), floor) * (np.ones(len(strata)) if weight is None else np.abs(weight))
    return _scaled(np.maximum(raw, 1e-12), budget)


ACTIVE_FLOOR = 0.1  # the share of the budget an active design spreads uniformly (every π > 0)


def expected_errors(labels: np.ndarray, *, known: np.ndarray, residual: np.ndarray, shrink: float = 10.0) -> np.ndarray:
    """Each unit's expected error of the LLM, √E[d²], from the units whose human label is `known`: the mean
    squared `residual` of the known units with the same LLM label, shrunk toward the pooled mean with the
    weight of `shrink` units (a label seen on 3 known units is mostly the pooled value)."""
    if not known.any():
        return np.ones(len(labels))
    squared = np.where(known, residual, 0.0) ** 2
    pooled = float(squared[known].mean())
    expected = np.full(len(labels), pooled)
    for label in np.unique(labels):
        members = known & (labels == label)
        expected[labels == label] = (squared[members].sum() + shrink * pooled) / (members.sum() + shrink)
    return np.sqrt(expected)


def active_probabilities(
    expected_error: np.ndarray,
    *,
    budget: float,
    weight: np.ndarray | None = None,
    run: np.ndarray | None = None,
    floor: float = ACTIVE_FLOOR,
) -> np.ndarray:
    """Each unit's inclusion probability in the active design (Zrnic & Candès, "Active Statistical Inference",
    ICML 2024), averaging `budget`: π*_u ∝ |c_u| · e_u with e_u the LLM's expected error on the unit and c_u its
    weight in the run scores (`weight`; 1 by default), mixed with uniform, π = (1 - floor) π* + floor · budget,
    so that every unit can be drawn and a poor error model costs at most a factor 1 / floor in variance.

    With `run` (each unit's run), π* minimizes the mean over runs of the interval width, Σ_r √V_r, rather than
    the summed variance: the Lagrangian gives π*_u ∝ |c_u| e_u / V_r^¼, V_r the run's expected design variance
    Σ_u∈r c_u² e_u² (1 - π_u) / π_u, found by a few fixed-point steps from the uniform design."""
    if not 0 < budget <= 1:
        raise ValueError("the budget is a share of the pairs, above 0 and at most 1")
    raw = np.maximum(np.abs(np.ones(len(expected_error)) if weight is None else weight) * expected_error, 1e-12)
    focused = _scaled(raw, budget)
    if run is not None:
        for _ in range(3):
            pi = np.maximum(focused, 1e-9)
            variance = np.bincount(run, weights=raw**2 * (1 - pi) / pi)
            focused = _scaled(raw / np.maximum(variance[run], 1e-18) ** 0.25, budget)
    return np.clip((1 - floor) * focused + floor * budget, 1e-9, 1.0)


def poisson_sample(pi: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each unit drawn independently with its probability (the design the estimator assumes)."""
    return rng.random(len(pi)) < pi


class IntervalKind:
    NORMAL = "normal"  # estimate ± z se
    T = "t"  # estimate ± t se, with the run's drawn units less one as degrees of freedom
    CHOICES = (T, NORMAL)


@dataclass(frozen=True)
class RunEstimates:
    score: np.ndarray  # per run
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    drawn: np.ndarray  # per run: the sampling units drawn that hold one of its citations
    interval: str = IntervalKind.T


def _unit_sums(population: Population, values: np.ndarray, sampled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per (run, sampled unit): the run of the key and the sum of `values` over the unit's citations of that run."""
    units = population.units
    key = population.citation_run[sampled].astype(np.int64) * (int(units.max(initial=0)) + 1) + units[sampled]
    keys, inverse = np.unique(key, return_inverse=True)
    sums = np.bincount(inverse, weights=values[sampled], minlength=len(keys))
    return keys // (int(units.max(initial=0)) + 1), sums


def _prediction_and_residual(
    population: Population, *, sampled: np.ndarray, pi: np.ndarray, use_llm: bool, calibrate: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Each citation's prediction (the LLM's weight, recalibrated on the sample; for the human-only estimate the
    sample's mean human weight, `_sample_mean`) and its residual d, the human weight less the prediction where
    sampled (0 elsewhere)."""
    human = population.human_weights()
    if not use_llm:
        prediction = np.full(len(population.answer), _sample_mean(human, sampled, pi))
        return prediction, np.where(sampled, np.nan_to_num(human) - prediction, 0.0)
    prediction = population.llm_weights()
    if use_llm and calibrate:
        prediction = _calibrated(prediction, human, sampled, pi)
    return prediction, np.where(sampled, np.nan_to_num(human) - prediction, 0.0)


def difference_estimate(
    population: Population,
    *,
    sampled: np.ndarray,
    pi: np.ndarray,
    metric: str,
    use_llm: bool = True,
    calibrate: bool = True,
    level: float = 0.95,
    interval: str = IntervalKind.T,
) -> RunEstimates:
    """Each run's score estimated from the LLM's labels on all citations and the human labels of the
    sampled ones (`use_llm=False`: the human-only estimate of the same sample), with its interval.

    `pi` and `sampled` are per citation (a unit's citations share them). The variance sums over the drawn
    units, Σ (1 - π_u) (Σ_i∈u c_i d_i)² / π_u², so a pair that counts several times in a run counts as the
    one draw it is. With `interval="t"` the quantile is Student's t with (drawn units of the run - 1) degrees
    of freedom: the variance is itself estimated from those few draws (about 15 per run at a 10% budget),
    and the normal quantile ignores that."""
    c = population.coefficients(metric)
    prediction, residual = _prediction_and_residual(
        population, sampled=sampled, pi=pi, use_llm=use_llm, calibrate=calibrate
    )
    safe_pi = np.where(sampled, pi, 1.0)
    runs = population.citation_run
    score = np.bincount(runs, weights=c * (prediction + residual / safe_pi), minlength=population.n_runs)
    key_run, sums = _unit_sums(population, c * residual, sampled)
    unit_pi = _unit_sums(population, np.where(sampled, pi, 0.0), sampled)[1]
    counts = _unit_sums(population, np.ones(len(c)), sampled)[1]
    unit_pi = unit_pi / np.maximum(counts, 1)  # the unit's π (all its citations share it)
    variance = np.bincount(key_run, weights=(1 - unit_pi) * sums**2 / unit_pi**2, minlength=population.n_runs)
    drawn = np.bincount(key_run, minlength=population.n_runs)
    se = np.sqrt(variance)
    quantile = interval_quantile(drawn, level=level, interval=interval)
    return RunEstimates(score, se, score - quantile * se, score + quantile * se, drawn, interval)


def interval_quantile(drawn: np.ndarray, *, level: float = 0.95, interval: str = IntervalKind.T) -> np.ndarray:
    """The two-sided quantile per run: normal, or t with (drawn units - 1) degrees of freedom (at least 1)."""
    if interval == IntervalKind.NORMAL:
        return np.full(len(drawn), float(stats.norm.ppf(0.5 + level / 2)))
    if interval != IntervalKind.T:
        raise ValueError(f"unknown interval {interval!r} ({', '.join(IntervalKind.CHOICES)})")
    return np.asarray(stats.t.ppf(0.5 + level / 2, np.maximum(drawn - 1, 1)), dtype=float)


def _sample_mean(human: np.ndarray, sampled: np.ndarray, pi: np.ndarray) -> float:
    """The sample's mean human weight, weighted 1/π (0 when nothing is drawn): the human-only estimate's
    prediction. Horvitz-Thompson (prediction 0) varies with how many units a run happens to draw and its
    variance estimate shrinks with the estimate, so its t interval covered 0.887-0.933 at 5-20%; centring
    on a constant fitted to the whole sample removes that (issue 27, point 3; docs/budget.md)."""
    drawn = sampled & ~np.isnan(human)
    if not drawn.any():
        return 0.0
    return float(np.average(human[drawn], weights=1.0 / pi[drawn]))


def _calibrated(llm: np.ndarray, human: np.ndarray, sampled: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """The LLM's weights recalibrated on the sample (a + b·ŵ by least squares weighted 1/π): the PPI++ idea of
    trusting the LLM only as far as the sample shows it tracks people. Any fixed recalibration keeps the
    estimator unbiased; fitting it on the sample costs a bias of order 1/sample size."""
    if sampled.sum() < 10:
        return llm
    x, y, weight = llm[sampled], human[sampled], 1.0 / pi[sampled]
    mx, my = np.average(x, weights=weight), np.average(y, weights=weight)
    var = np.average((x - mx) ** 2, weights=weight)
    if var <= 0:
        return llm
    slope = np.average((x - mx) * (y - my), weights=weight) / var
    return my + slope * (llm - mx)


def full_scores(population: Population, *, metric: str, human: bool = True) -> np.ndarray:
    """Each run's score from the human labels of every citation (the truth) or the LLM's alone."""
    weights = population.human_weights() if human else population.llm_weights()
    c = population.coefficients(metric)
    return np.bincount(population.citation_run, weights=c * weights, minlength=population.n_runs)


# --- planning before judging -------------------------------------------------------------------------------


def _planned_probabilities(population: Population, *, budget: float, design: str, expected: np.ndarray) -> np.ndarray:
    """A plan's π: the design's; for the active one from the expected squared residuals (`expected`), the units'
    weights and runs (`active_probabilities`), as a draw learning from the same known labels would set them."""
    if design != Design.ACTIVE:
        return inclusion_probabilities(population.llm_code, budget=budget, design=design)
    weight = (population.coefficients("precision") + population.coefficients("recall")) / 2
    return active_probabilities(np.sqrt(expected), budget=budget, weight=weight, run=population.citation_run)


@dataclass(frozen=True)
class PlanPoint:
    budget: float  # share of the sampling units
    units: float  # expected number of units to judge
    width: float  # expected 95% interval width, mean over runs: LLM labels + sample
    width_human_only: float  # the same budget without the LLM labels (the sample alone, centred on its mean)


def plan(
    population: Population,
    *,
    known: np.ndarray,
    budgets: list[float],
    metric: str,
    design: str = Design.UNIFORM,
    level: float = 0.95,
) -> list[PlanPoint]:
    """Expected interval width against budget, before anyone judges, from citations that already have a human
    label (`known`, e.g. an earlier campaign's or NIST's) beside the LLM's label on every citation.

    The design variance of the difference estimator is Σ_u (1 - π_u) D_u² / π_u² per run; D is unknown where
    no person judged, so each citation's squared residual (human - calibrated LLM weight)² is taken as the
    mean over the known citations with the same LLM label (pooled over all if a label has fewer than 10), and
    the width is 2 z sqrt(variance), averaged over runs. Citations of a unit are taken as one citation each
    (the residuals of one pair in one run are the same label, so this is exact when a pair counts once per
    run, as nearly always). The normal quantile is used: the plan is for the design, not one draw."""
    c = population.coefficients(metric)
    llm = population.llm_weights()
    human = population.human_weights()
    if known.sum() < 10:
        raise ValueError("planning needs at least 10 citations with both a human and an LLM label")
    calibrated = _calibrated(llm, np.nan_to_num(human), known, np.ones(len(c)))
    squared = (np.nan_to_num(human) - calibrated) ** 2
    human_squared = (np.nan_to_num(human) - float(np.nan_to_num(human)[known].mean())) ** 2  # see _sample_mean
    pooled, pooled_human = float(squared[known].mean()), float(human_squared[known].mean())
    expected = np.full(len(c), pooled)
    expected_human = np.full(len(c), pooled_human)
    for code in (-1, 0, 1, 2):
        same = population.llm_code == code
        if (known & same).sum() >= 10:
            expected[same] = squared[known & same].mean()
            expected_human[same] = human_squared[known & same].mean()
    z = float(stats.norm.ppf(0.5 + level / 2))
    units = population.units
    n_units = len(np.unique(units))
    points = []
    for budget in budgets:
        pi = _planned_probabilities(population, budget=budget, design=design, expected=expected)
        factor = (1 - pi) / np.maximum(pi, 1e-12)
        runs = population.citation_run
        variance = np.bincount(runs, weights=c**2 * factor * expected, minlength=population.n_runs)
        variance_human = np.bincount(runs, weights=c**2 * factor * expected_human, minlength=population.n_runs)
        held = np.bincount(runs, minlength=population.n_runs) > 0
        points.append(
            PlanPoint(
                budget=budget,
                units=budget * n_units,
                width=float(np.mean(2 * z * np.sqrt(variance[held]))),
                width_human_only=float(np.mean(2 * z * np.sqrt(variance_human[held]))),
            )
        )
    return points
