"""The reports the commands, pages and API show: scores per judge, agreement between two judges.

Each report joins the selectors' plain data with the pure metric functions, and is cached until the next
judgment (see `selectors.cached`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from metrics import agreement as agreement_fns
from metrics import bootstrap
from metrics.scores import AnswerScore, AnswerSupport, TopicMatrix, run_scores
from metrics.selectors import (
    JudgeSelection,
    Labels,
    Material,
    Scope,
    answer_support,
    cached,
    citation_labels,
    judge_select,
    material_get,
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
    precision_low: float | None = None
    precision_high: float | None = None
    recall_low: float | None = None
    recall_high: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ScoresReport:
    judge: str
    condition: str
    depth: int | None
    topics: list[str]
    rows: list[ScoreRow]
    resamples: int
    seed: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "condition": self.condition,
            "depth": self.depth,
            "topics": self.topics,
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "level": 0.95},
            "runs": [r.as_dict() for r in self.rows],
        }


def _support(judge: JudgeSelection, material: Material, condition: str | None) -> tuple[Labels, AnswerSupport]:
    labels = citation_labels(judge, material, condition=condition)
    return labels, answer_support(material, labels)


def _judged_topics(material: Material, support: AnswerSupport) -> list[str]:
    topics = np.unique(material.answer_columns[1][support.judged > 0])
    return [material.topic_names[int(t)] for t in topics]


def _matrix(support: AnswerSupport, material: Material, topics: list[str]) -> TopicMatrix:
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
    rows = answer_run[keep]
    precision[rows, columns[keep]] = support.precision[keep]
    recall[rows, columns[keep]] = support.recall[keep]
    sentences[rows, columns[keep]] = support.sentences[keep]
    return TopicMatrix(list(material.run_names), list(topics), precision, recall, sentences)


def answer_scores(*, judge: str, scope: Scope, condition: str | None = None) -> list[AnswerScore]:
    """Per (topic, run) precision and recall for one judge."""
    material = material_get(scope)
    _, support = _support(judge_select(judge), material, condition)
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
    judge: str,
    scope: Scope,
    condition: str | None = None,
    resamples: int = bootstrap.DEFAULT_RESAMPLES,
    seed: int = bootstrap.DEFAULT_SEED,
) -> ScoresReport:
    """Every run's weighted precision and recall for one judge, over the topics it judged, with 95%
    bootstrap intervals (resampling those topics); sorted by weighted precision."""
    key = f"scores:{scope.key}:{judge}:{condition or ''}:{resamples}:{seed}"
    return cached(key, lambda: _scores_report(judge, scope, condition, resamples, seed))  # type: ignore[no-any-return]


def _scores_report(judge: str, scope: Scope, condition: str | None, resamples: int, seed: int) -> ScoresReport:
    selection = judge_select(judge)
    material = material_get(scope)
    _, support = _support(selection, material, condition)
    topics = _judged_topics(material, support)
    matrix = _matrix(support, material, topics)
    runs = run_scores(matrix, judge=selection.name, run_info=material.runs)
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
    return ScoresReport(selection.name, condition or "", scope.depth, topics, rows, resamples, seed)


def agreement_report(
    *,
    a: str,
    b: str,
    scope: Scope,
    condition_a: str | None = None,
    condition_b: str | None = None,
    resamples: int = bootstrap.DEFAULT_RESAMPLES,
    seed: int = bootstrap.DEFAULT_SEED,
) -> dict[str, Any]:
    key = f"agreement:{scope.key}:{a}:{condition_a or ''}:{b}:{condition_b or ''}:{resamples}:{seed}"
    return cached(  # type: ignore[no-any-return]
        key, lambda: _agreement_report(a, b, scope, condition_a, condition_b, resamples, seed)
    )


def _agreement_report(
    a: str,
    b: str,
    scope: Scope,
    condition_a: str | None,
    condition_b: str | None,
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    judge_a, judge_b = judge_select(a), judge_select(b)
    material = material_get(scope)
    labels_a, support_a = _support(judge_a, material, condition_a)
    labels_b, support_b = _support(judge_b, material, condition_b)
    both = (labels_a.codes >= 0) & (labels_b.codes >= 0)
    labels = agreement_fns.label_agreement(labels_a.codes[both], labels_b.codes[both])
    topic_names = material.topic_names
    answer_topic = material.answer_columns[1]
    citation_topic = answer_topic[material.citation_answer_position] if len(answer_topic) else np.zeros(0, dtype=int)
    both_per_topic = np.bincount(citation_topic[both], minlength=len(topic_names))
    differ = both & (labels_a.codes != labels_b.codes)
    differ_per_topic = np.bincount(citation_topic[differ], minlength=len(topic_names))
    per_topic = {
        t: [int(both_per_topic[i]), int(differ_per_topic[i])] for i, t in enumerate(topic_names) if both_per_topic[i]
    }

    # τ compares the two judges on the same footing: the topics both judged.
    topics = sorted(set(_judged_topics(material, support_a)) & set(_judged_topics(material, support_b)))
    matrix_a, matrix_b = _matrix(support_a, material, topics), _matrix(support_b, material, topics)
    runs = matrix_a.runs
    n = len(topics)

    def means(m: np.ndarray) -> list[float]:
        return [float(v) for v in (m.sum(axis=1) / n if n else np.zeros(len(runs)))]

    run_precision_a, run_precision_b = means(matrix_a.precision), means(matrix_b.precision)
    run_recall_a, run_recall_b = means(matrix_a.recall), means(matrix_b.recall)
    run_points = {
        "run_id": runs,
        "precision_a": run_precision_a,
        "precision_b": run_precision_b,
        "recall_a": run_recall_a,
        "recall_b": run_recall_b,
    }
    answered = _answered(material, runs, topics)

    def topic_means(m: np.ndarray) -> list[float]:
        counts = answered.sum(axis=0)
        return [float(v) for v in np.divide(m.sum(axis=0), counts, out=np.zeros(len(topics)), where=counts > 0)]

    topic_points = {
        "topic_id": topics,
        "precision_a": topic_means(matrix_a.precision),
        "precision_b": topic_means(matrix_b.precision),
        "recall_a": topic_means(matrix_a.recall),
        "recall_b": topic_means(matrix_b.recall),
    }
    tau = {
        "precision": agreement_fns.kendall_tau(run_precision_a, run_precision_b),
        "recall": agreement_fns.kendall_tau(run_recall_a, run_recall_b),
    }
    tau_ci: dict[str, Any] = {"precision": None, "recall": None}
    if resamples > 0:
        for metric, (ma, mb) in {
            "precision": (matrix_a.precision, matrix_b.precision),
            "recall": (matrix_a.recall, matrix_b.recall),
        }.items():
            interval = bootstrap.tau_interval(ma, mb, resamples=resamples, seed=seed)
            tau_ci[metric] = [interval.low, interval.high]
    return {
        "a": judge_a.name,
        "b": judge_b.name,
        "condition_a": condition_a or "",
        "condition_b": condition_b or "",
        "depth": scope.depth,
        "labels": labels.as_dict(),
        "tau": tau,
        "tau_ci": tau_ci,
        "bootstrap": {"resamples": resamples, "seed": seed, "level": 0.95},
        "topics": topics,
        "runs": run_points,
        "topic_means": topic_points,
        "per_topic": {t: {"both": n, "disagree": d} for t, (n, d) in sorted(per_topic.items())},
        "self_consistency": {
            judge_a.name: _self_consistency(labels_a).as_dict(),
            judge_b.name: _self_consistency(labels_b).as_dict(),
        },
    }


def _answered(material: Material, runs: list[str], topics: list[str]) -> np.ndarray:
    run_index = {r: i for i, r in enumerate(runs)}
    topic_index = {t: i for i, t in enumerate(topics)}
    answered = np.zeros((len(runs), len(topics)))
    for topic_id, run_id, _ in material.answers.values():
        if run_id in run_index and topic_id in topic_index:
            answered[run_index[run_id], topic_index[topic_id]] = 1
    return answered


def _self_consistency(labels: Labels) -> agreement_fns.SelfConsistency:
    """How often the judge's labels of one pair differ between the citations (runs) in scope it labelled."""
    direct = labels.direct
    return agreement_fns.self_consistency_arrays(labels.pair_ids[direct], labels.codes[direct])
