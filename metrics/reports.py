"""The reports the commands, pages and API show: scores per label set, agreement between two label sets.

Each report joins the material's plain data (`metrics.material`) with the pure metric functions, and is cached
until the next judgment (see `material.cached`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from judging.label_set_pickers import label_set_describe
from judging.labels import CitationLabels, LabelSet
from judging.scope import Scope
from metrics import agreement as agreement_fns
from metrics import bootstrap
from metrics.material import (
    Material,
    answer_support,
    cached,
    citation_cards,
    citation_topics,
    labelled_topics,
    labels_get,
    material_get,
    material_summary,
)
from metrics.scores import (
    MIN_COVERAGE,
    AnswerScore,
    AnswerSupport,
    Coverage,
    TopicMatrix,
    coverage_words,
    run_scores,
    shown,
)

SCORE_COLUMNS = (
    "run_id",
    "group",
    "task",
    "judge",
    "weighted_precision",
    "weighted_recall",
    "mean_sentences",
    "topics",
    "judged_citations",
    "citations",
)


@dataclass(frozen=True)
class ScoreRow:
    run_id: str
    group: str
    task: str
    judge: str
    weighted_precision: float
    weighted_recall: float
    mean_sentences: float
    topics: int
    judged_citations: int = 0  # of `citations`, those the set labels (precision's denominator)
    citations: int = 0  # the run's citations in the unit, over the report's topics
    precision_low: float | None = None
    precision_high: float | None = None
    recall_low: float | None = None
    recall_high: float | None = None

    @property
    def coverage(self) -> Coverage:
        return Coverage(self.judged_citations, self.citations)

    def as_dict(self) -> dict[str, Any]:
        """As the API, the commands and the exports give it: a run the set judged none of has no scores (null,
        an empty cell), never 0; `coverage` says how much of it was judged, in words."""
        values = asdict(self)
        coverage = self.coverage
        for name in (
            "weighted_precision",
            "weighted_recall",
            "precision_low",
            "precision_high",
            "recall_low",
            "recall_high",
        ):
            values[name] = shown(values[name], coverage)
        values["coverage"] = coverage.words
        return values


def depth_unit(depth: int | None) -> str:
    """The unit a citation-level figure counts, in words."""
    if depth is None:
        return "every citation"
    return "first citations" if depth == 1 else f"first {depth} citations of each sentence"


def interval_note(n_topics: int, resamples: int) -> str:
    """Why a report has no intervals, or how they were made."""
    if resamples <= 0:
        return "no intervals asked for"
    if n_topics < bootstrap.MIN_TOPICS:
        return f"no intervals: {n_topics} topics, fewer than the {bootstrap.MIN_TOPICS} an interval needs"
    return f"95% intervals: runs by {bootstrap.RUN_INTERVAL_METHOD}, τ by {bootstrap.TAU_INTERVAL_METHOD}"


@dataclass(frozen=True)
class ScoresReport:
    label_set: dict[str, Any]
    depth: int | None
    topics: list[str]
    rows: list[ScoreRow]
    resamples: int
    seed: int

    @property
    def judge(self) -> str:
        return str(self.label_set["spec"])

    def as_dict(self) -> dict[str, Any]:
        return {
            "label_set": self.label_set,
            "depth": self.depth,
            "unit": depth_unit(self.depth),
            "topics": self.topics,
            "intervals": {
                "resamples": self.resamples,
                "seed": self.seed,
                "level": 0.95,
                "method": bootstrap.RUN_INTERVAL_METHOD,
                "note": interval_note(len(self.topics), self.resamples),
            },
            "coverage": self.coverage,
            "runs": [r.as_dict() for r in self.rows],
        }

    @property
    def coverage(self) -> dict[str, Any]:
        """How many runs the set judged, and the rule that ranks the others below them."""
        judged = sum(1 for r in self.rows if r.coverage.any)
        enough = sum(1 for r in self.rows if r.coverage.enough(MIN_COVERAGE))
        return {
            "min_share": MIN_COVERAGE,
            "runs_judged": judged,
            "runs_enough": enough,
            "runs_total": len(self.rows),
            "note": (
                f"{judged} of {len(self.rows)} runs judged ({enough} {coverage_words(MIN_COVERAGE)}, ranked first); "
                "a run with no judged citation is not judged and has no score"
            ),
        }


def label_support(label_set: LabelSet, material: Material) -> tuple[CitationLabels, AnswerSupport]:
    """The set's labels of the scope's citations and each answer's support from them."""
    labels = labels_get(label_set, material)
    return labels, answer_support(material, labels)


def topic_matrix(support: AnswerSupport, material: Material, topics: list[str]) -> TopicMatrix:
    """Runs (all in scope, sorted) x the given topics; 0 where a run did not answer."""
    answer_run, answer_topic, _ = material.answer_columns
    column_of = np.full(len(material.topic_names), -1, dtype=np.int64)
    position = {t: i for i, t in enumerate(material.topic_names)}
    for j, topic in enumerate(topics):
        if topic in position:
            column_of[position[topic]] = j
    columns = column_of[answer_topic] if len(answer_topic) else np.zeros(0, dtype=np.int64)
    keep = (columns >= 0) & (answer_run >= 0)
    shape = (len(material.run_names), len(topics))
    precision, recall, sentences = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    judged, citations = np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)
    rows = answer_run[keep]
    precision[rows, columns[keep]] = support.precision[keep]
    recall[rows, columns[keep]] = support.recall[keep]
    sentences[rows, columns[keep]] = support.sentences[keep]
    judged[rows, columns[keep]] = support.judged[keep]
    citations[rows, columns[keep]] = support.citations[keep]
    return TopicMatrix(list(material.run_names), list(topics), precision, recall, sentences, judged, citations)


def answer_scores(*, label_set: LabelSet, scope: Scope) -> list[AnswerScore]:
    """Per (topic, run) precision and recall for one label set."""
    material = material_get(scope)
    _, support = label_support(label_set, material)
    return [
        AnswerScore(
            topic_id=material.answers[answer_id][0],
            run_id=material.answers[answer_id][1],
            sentences=int(support.sentences[k]),
            judged=int(support.judged[k]),
            precision=float(support.precision[k]),
            recall=float(support.recall[k]),
        )
        for k, answer_id in enumerate(material.answer_order.tolist())
    ]


def scores_report(
    *,
    label_set: LabelSet,
    scope: Scope,
    resamples: int = bootstrap.DEFAULT_RESAMPLES,
    seed: int = bootstrap.DEFAULT_SEED,
) -> ScoresReport:
    """Every run's weighted precision and recall for one label set, over the topics it judged, with 95%
    topic-bootstrap intervals (none with fewer than 5 topics); sorted by weighted precision."""
    key = f"scores:{scope.key}:{label_set.key}:{resamples}:{seed}"
    return cached(key, lambda: _scores_report(label_set, scope, resamples, seed))  # type: ignore[no-any-return]


def _scores_report(label_set: LabelSet, scope: Scope, resamples: int, seed: int) -> ScoresReport:
    material = material_get(scope)
    labels, support = label_support(label_set, material)
    topics = labelled_topics(material, labels)
    matrix = topic_matrix(support, material, topics)
    runs = run_scores(matrix, judge=label_set.spec, run_info=material.runs)
    index = {r: i for i, r in enumerate(matrix.runs)}
    p_ci = r_ci = [bootstrap.Interval(None, None)] * len(matrix.runs)
    if resamples > 0:
        p_ci = bootstrap.run_intervals(matrix.precision, resamples=resamples, seed=seed)
        r_ci = bootstrap.run_intervals(matrix.recall, resamples=resamples, seed=seed)
    rows = [
        ScoreRow(
            **asdict(r),
            precision_low=p_ci[index[r.run_id]].low,
            precision_high=p_ci[index[r.run_id]].high,
            recall_low=r_ci[index[r.run_id]].low,
            recall_high=r_ci[index[r.run_id]].high,
        )
        for r in runs
    ]
    return ScoresReport(label_set_describe(label_set), scope.depth, topics, rows, resamples, seed)


def agreement_report(
    *,
    a: LabelSet,
    b: LabelSet,
    scope: Scope,
    resamples: int = bootstrap.DEFAULT_RESAMPLES,
    seed: int = bootstrap.DEFAULT_SEED,
) -> dict[str, Any]:
    key = f"agreement:{scope.key}:{a.key}:{b.key}:{resamples}:{seed}"
    return cached(key, lambda: _agreement_report(a, b, scope, resamples, seed))  # type: ignore[no-any-return]


def _agreement_report(a: LabelSet, b: LabelSet, scope: Scope, resamples: int, seed: int) -> dict[str, Any]:
    material = material_get(scope)
    labels_a, support_a = label_support(a, material)
    labels_b, support_b = label_support(b, material)
    both = labels_a.labelled & labels_b.labelled
    labels = agreement_fns.label_agreement(labels_a.codes[both], labels_b.codes[both], seed=seed)
    unit = depth_unit(scope.depth)
    # τ compares the two judges on the same footing: the topics both judged.
    topics = sorted(set(labelled_topics(material, labels_a)) & set(labelled_topics(material, labels_b)))
    whole_a, whole_b = topic_matrix(support_a, material, topics), topic_matrix(support_b, material, topics)
    # τ, the scatter and the topic means are over the runs both sets judged enough of (`Coverage.enough`).
    covered = _covered(whole_a, whole_b)
    matrix_a, matrix_b = whole_a.rows(covered), whole_b.rows(covered)
    run_points = _run_points(matrix_a, matrix_b)
    tau, tau_ci = _taus(matrix_a, matrix_b, run_points, resamples=resamples, seed=seed)
    return {
        "a": a.spec,
        "b": b.spec,
        "label_set_a": label_set_describe(a),
        "label_set_b": label_set_describe(b),
        "depth": scope.depth,
        "unit": unit,
        "n_label": f"{unit} both labelled: {labels.n:,}",
        "labels": labels.as_dict(),
        "pairs": _pair_view(labels_a, labels_b, both),
        "tau": tau,
        "tau_ci": tau_ci,
        "intervals": {
            "resamples": resamples,
            "seed": seed,
            "level": 0.95,
            "method": bootstrap.TAU_INTERVAL_METHOD,
            "note": interval_note(len(topics), resamples),
        },
        "topics": topics,
        "runs": run_points,
        "coverage": _coverage_summary(whole_a, whole_b, covered),
        "topic_means": _topic_points(material, matrix_a, matrix_b),
        "per_topic": _per_topic(material, labels_a, labels_b, both),
        "labels_unit": f"{unit} both labelled",
        "self_consistency_unit": "pairs the set labelled on several citations (runs) in scope",
        "per_topic_units": {
            "both": f"{unit} both labelled",
            "disagree": f"{unit} labelled differently",
            "disagree_pairs": "pairs labelled differently (a pair once per pair of labels)",
        },
        "scope": material_summary(material, unit),
        "self_consistency": {
            a.spec: _self_consistency(labels_a).as_dict(),
            b.spec: _self_consistency(labels_b).as_dict(),
        },
    }


def _per_topic(
    material: Material, labels_a: CitationLabels, labels_b: CitationLabels, both: np.ndarray
) -> dict[str, dict[str, int]]:
    """Per topic with citations both sets labelled: how many, on how many they differ, and how many cards
    the drill-down shows for those (`citation_cards`)."""
    topic_names = material.topic_names
    citation_topic = citation_topics(material)
    both_per_topic = np.bincount(citation_topic[both], minlength=len(topic_names))
    differ = both & (labels_a.codes != labels_b.codes)
    differ_per_topic = np.bincount(citation_topic[differ], minlength=len(topic_names))
    cards = np.unique(citation_cards(material, labels_a, labels_b)[differ], axis=0)
    groups_per_topic = np.bincount(cards[:, 0], minlength=len(topic_names))
    return {
        t: {
            "both": int(both_per_topic[i]),
            "disagree": int(differ_per_topic[i]),
            "disagree_pairs": int(groups_per_topic[i]),
        }
        for i, t in enumerate(topic_names)  # in topic order: topic_names is sorted
        if both_per_topic[i]
    }


def _covered(matrix_a: TopicMatrix, matrix_b: TopicMatrix, minimum: float = MIN_COVERAGE) -> np.ndarray:
    """Per run (in the matrices' order): whether both sets judged enough of it to place it in a ranking."""
    return np.array(
        [
            matrix_a.coverage(i).enough(minimum) and matrix_b.coverage(i).enough(minimum)
            for i in range(len(matrix_a.runs))
        ],
        dtype=bool,
    )


def _coverage_summary(matrix_a: TopicMatrix, matrix_b: TopicMatrix, covered: np.ndarray) -> dict[str, Any]:
    """Which runs τ and the scatter use, and why the others are left out, in words."""
    left_out = [
        {"run_id": run_id, "a": matrix_a.coverage(i).words, "b": matrix_b.coverage(i).words}
        for i, run_id in enumerate(matrix_a.runs)
        if not covered[i]
    ]
    used, total = int(covered.sum()), len(matrix_a.runs)
    return {
        "min_share": MIN_COVERAGE,
        "rule": coverage_words(MIN_COVERAGE) + " by both sets, over the topics both judged",
        "runs_used": used,
        "runs_total": total,
        "note": f"τ and the scatter use {used} of {total} runs: {coverage_words(MIN_COVERAGE)} by both sets",
        "left_out": left_out,
    }


def _run_points(matrix_a: TopicMatrix, matrix_b: TopicMatrix) -> dict[str, list[Any]]:
    """Each run's mean over the topics under either set (a topic it did not answer counts 0)."""
    n = len(matrix_a.topics)

    def means(m: np.ndarray) -> list[float]:
        return [float(v) for v in (m.sum(axis=1) / n if n else np.zeros(len(matrix_a.runs)))]

    return {
        "run_id": matrix_a.runs,
        "precision_a": means(matrix_a.precision),
        "precision_b": means(matrix_b.precision),
        "recall_a": means(matrix_a.recall),
        "recall_b": means(matrix_b.recall),
    }


def _topic_points(material: Material, matrix_a: TopicMatrix, matrix_b: TopicMatrix) -> dict[str, list[Any]]:
    """Each topic's mean over the runs that answered it, under either set."""
    topics = matrix_a.topics
    counts = _answered(material, matrix_a.runs, topics).sum(axis=0)

    def topic_means(m: np.ndarray) -> list[float]:
        return [float(v) for v in np.divide(m.sum(axis=0), counts, out=np.zeros(len(topics)), where=counts > 0)]

    return {
        "topic_id": topics,
        "precision_a": topic_means(matrix_a.precision),
        "precision_b": topic_means(matrix_b.precision),
        "recall_a": topic_means(matrix_a.recall),
        "recall_b": topic_means(matrix_b.recall),
    }


def _taus(
    matrix_a: TopicMatrix, matrix_b: TopicMatrix, run_points: dict[str, list[Any]], *, resamples: int, seed: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Kendall's τ between the two sets' run orders, and its topic-bootstrap interval when resamples are asked."""
    tau = {
        metric: agreement_fns.kendall_tau(run_points[f"{metric}_a"], run_points[f"{metric}_b"])
        for metric in ("precision", "recall")
    }
    tau_ci: dict[str, Any] = {"precision": None, "recall": None}
    if resamples > 0:
        for metric, (ma, mb) in {
            "precision": (matrix_a.precision, matrix_b.precision),
            "recall": (matrix_a.recall, matrix_b.recall),
        }.items():
            interval = bootstrap.tau_interval(ma, mb, resamples=resamples, seed=seed)
            tau_ci[metric] = [interval.low, interval.high]
    return tau, tau_ci


def _pair_view(labels_a: CitationLabels, labels_b: CitationLabels, both: np.ndarray) -> dict[str, Any]:
    """Agreement per distinct pair: a pair counts once, where each set gives all its citations in scope one
    label; pairs a set labels differently on different citations are counted and left out."""
    pairs = labels_a.pair_ids[both]
    stored = pairs > 0
    if not stored.any():
        return {"n": 0, "inconsistent": 0, "labels": agreement_fns.label_agreement([], []).as_dict()}
    order = np.argsort(pairs[stored], kind="stable")
    p = pairs[stored][order]
    ca, cb = labels_a.codes[both][stored][order], labels_b.codes[both][stored][order]
    starts = np.flatnonzero(np.r_[True, p[1:] != p[:-1]])
    consistent = (np.minimum.reduceat(ca, starts) == np.maximum.reduceat(ca, starts)) & (
        np.minimum.reduceat(cb, starts) == np.maximum.reduceat(cb, starts)
    )
    result = agreement_fns.label_agreement(ca[starts][consistent], cb[starts][consistent])
    return {
        "n": int(consistent.sum()),
        "inconsistent": int((~consistent).sum()),
        "unit": "distinct pairs both labelled, one label each",
        "labels": result.as_dict(),
    }


def _answered(material: Material, runs: list[str], topics: list[str]) -> np.ndarray:
    run_index = {r: i for i, r in enumerate(runs)}
    topic_index = {t: i for i, t in enumerate(topics)}
    answered = np.zeros((len(runs), len(topics)))
    for topic_id, run_id, _ in material.answers.values():
        if run_id in run_index and topic_id in topic_index:
            answered[run_index[run_id], topic_index[topic_id]] = 1
    return answered


def _self_consistency(labels: CitationLabels) -> agreement_fns.SelfConsistency:
    """How often the set's own labels of one pair differ between the citations (runs) in scope it labelled."""
    own = labels.direct & labels.labelled & (labels.pair_ids > 0)
    return agreement_fns.self_consistency_arrays(labels.pair_ids[own], labels.codes[own])
