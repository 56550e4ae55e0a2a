"""Weighted support precision and recall (DESIGN §5), as pure functions over plain data (numpy arrays).

Precision = Σ weights / judged citations. Recall = mean over sentences of the best judged weight; a sentence
with no citation counts 0, one whose citations are all unjudged is left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WEIGHTS: dict[str, float] = {"FS": 1.0, "PS": 0.5, "NS": 0.0}
LABELS: tuple[str, ...] = ("NS", "PS", "FS")  # the ordinal order, lowest first


@dataclass(frozen=True)
class AnswerScore:
    topic_id: str
    run_id: str
    sentences: int
    judged: int  # judged citations: precision's denominator
    precision: float
    recall: float


@dataclass(frozen=True)
class RunScore:
    run_id: str
    group: str
    task: str
    judge: str
    weighted_precision: float
    weighted_recall: float
    mean_sentences: float
    topics: int


@dataclass(frozen=True)
class AnswerSupport:
    """Per-answer figures as arrays (one entry per answer)."""

    precision: np.ndarray
    recall: np.ndarray
    judged: np.ndarray  # judged citations
    sentences: np.ndarray


WEIGHT_OF_CODE = np.array([WEIGHTS[label] for label in LABELS])  # codes index LABELS: NS 0, PS 1, FS 2


def support_arrays(
    *, codes: np.ndarray, citation_sentence: np.ndarray, sentence_answer: np.ndarray, sentence_counts: np.ndarray
) -> AnswerSupport:
    """Every answer's precision and recall at once. `codes`: each citation's label (-1: not judged);
    `citation_sentence`: each citation's sentence as an index into `sentence_answer`, which gives that
    sentence's answer as an index into `sentence_counts` (every answer's number of sentences)."""
    n_sentences, n_answers = len(sentence_answer), len(sentence_counts)
    judged = codes >= 0
    weights = np.where(judged, WEIGHT_OF_CODE[np.clip(codes, 0, None)], 0.0)
    sentence_judged = np.bincount(citation_sentence, weights=judged, minlength=n_sentences)
    sentence_sum = np.bincount(citation_sentence, weights=weights, minlength=n_sentences)
    sentence_best = np.zeros(n_sentences)
    np.maximum.at(sentence_best, citation_sentence[judged], weights[judged])
    unjudged = (sentence_judged == 0).astype(float)  # cited, but none of its citations judged
    answer_judged = np.bincount(sentence_answer, weights=sentence_judged, minlength=n_answers)
    answer_sum = np.bincount(sentence_answer, weights=sentence_sum, minlength=n_answers)
    answer_best = np.bincount(sentence_answer, weights=sentence_best, minlength=n_answers)
    recall_denominator = sentence_counts - np.bincount(sentence_answer, weights=unjudged, minlength=n_answers)
    precision = np.divide(answer_sum, answer_judged, out=np.zeros(n_answers), where=answer_judged > 0)
    recall = np.divide(answer_best, recall_denominator, out=np.zeros(n_answers), where=recall_denominator > 0)
    return AnswerSupport(precision, recall, answer_judged.astype(int), sentence_counts)


@dataclass(frozen=True)
class TopicMatrix:
    """Per (run, topic) scores as arrays, rows in `runs` order, columns in `topics` order; 0 where no answer."""

    runs: list[str]
    topics: list[str]
    precision: np.ndarray
    recall: np.ndarray
    sentences: np.ndarray


def run_scores(
    matrix: TopicMatrix, *, judge: str, run_info: dict[str, tuple[str, str]] | None = None
) -> list[RunScore]:
    """Each run's mean over the topics (a topic it did not answer counts 0), best precision first."""
    n = len(matrix.topics)
    info = run_info or {}
    scores = []
    for i, run_id in enumerate(matrix.runs):
        group, task = info.get(run_id, ("", ""))
        scores.append(
            RunScore(
                run_id=run_id,
                group=group,
                task=task,
                judge=judge,
                weighted_precision=float(matrix.precision[i].sum() / n) if n else 0.0,
                weighted_recall=float(matrix.recall[i].sum() / n) if n else 0.0,
                mean_sentences=float(matrix.sentences[i].sum() / n) if n else 0.0,
                topics=n,
            )
        )
    return sorted(scores, key=lambda s: (-s.weighted_precision, -s.weighted_recall, s.run_id))
