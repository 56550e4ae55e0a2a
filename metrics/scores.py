"""Weighted support precision and recall (DESIGN §5), as pure functions over plain data (numpy arrays).

Precision = Σ weights / judged citations. Recall = mean over sentences of the best judged weight; a sentence
with no citation counts 0, one whose citations are all unjudged is left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judging.vocabulary import SUPPORT


@dataclass(frozen=True)
class AnswerScore:
    topic_id: str
    run_id: str
    sentences: int
    judged: int  # judged citations: precision's denominator
    precision: float
    recall: float


MIN_COVERAGE = 0.5  # the share of its citations a set must judge for a run to enter τ, the scatter and rankings


@dataclass(frozen=True)
class Coverage:
    """How much of a run a label set judged: its judged citations of all its citations (in the unit, over the
    topics the figure is computed on). A run with none judged is "not judged": it has no score, never 0."""

    judged: int
    citations: int

    @property
    def any(self) -> bool:
        return self.judged > 0

    @property
    def share(self) -> float | None:
        return self.judged / self.citations if self.citations else None

    def enough(self, minimum: float = MIN_COVERAGE) -> bool:
        """Judged completely, or at least `minimum` of it (and something judged)."""
        return self.any and self.share is not None and self.share >= minimum

    @property
    def words(self) -> str:
        if not self.any:
            return "not judged"
        return f"{self.judged:,} of {self.citations:,} citations judged"


def coverage_words(minimum: float = MIN_COVERAGE) -> str:
    """The rule, as the pages and reports state it."""
    return f"runs with at least {minimum:.0%} of their citations judged"


@dataclass(frozen=True)
class RunScore:
    run_id: str
    group: str
    task: str
    judge: str
    # The arithmetic of DESIGN §5 (a run the set judged none of sums to 0); what is shown and exported of a run
    # that is not judged is `coverage.words`, never this 0 (`reports.ScoreRow.as_dict`).
    weighted_precision: float
    weighted_recall: float
    mean_sentences: float
    topics: int
    judged_citations: int = 0
    citations: int = 0

    @property
    def coverage(self) -> Coverage:
        return Coverage(self.judged_citations, self.citations)


def rank_key(*, score: float | None, coverage: Coverage, minimum: float = MIN_COVERAGE) -> tuple[int, float]:
    """Sorts runs best first: those judged enough by score, then those judged too little, then those not judged
    (a run without a score is never ranked above one with)."""
    if score is None or not coverage.any:
        return (2, 0.0)
    return (0 if coverage.enough(minimum) else 1, -score)


def shown(value: float | None, coverage: Coverage) -> float | None:
    """A score as it is shown and exported: None (empty, "not judged") for a run with no judged citation."""
    return value if coverage.any else None


@dataclass(frozen=True)
class AnswerSupport:
    """Per-answer figures as arrays (one entry per answer)."""

    precision: np.ndarray
    recall: np.ndarray
    judged: np.ndarray  # judged citations
    sentences: np.ndarray
    citations: np.ndarray  # citations in the unit, judged or not


def support_arrays(
    *, codes: np.ndarray, citation_sentence: np.ndarray, sentence_answer: np.ndarray, sentence_counts: np.ndarray
) -> AnswerSupport:
    """Every answer's precision and recall at once. `codes`: each citation's label (-1: not judged);
    `citation_sentence`: each citation's sentence as an index into `sentence_answer`, which gives that
    sentence's answer as an index into `sentence_counts` (every answer's number of sentences)."""
    n_sentences, n_answers = len(sentence_answer), len(sentence_counts)
    judged = codes >= 0
    weights = np.where(judged, SUPPORT.weight_of_code[np.clip(codes, 0, None)], 0.0)
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
    citations = np.bincount(
        sentence_answer, weights=np.bincount(citation_sentence, minlength=n_sentences), minlength=n_answers
    )
    return AnswerSupport(precision, recall, answer_judged.astype(int), sentence_counts, citations.astype(int))


@dataclass(frozen=True)
class TopicMatrix:
    """Per (run, topic) scores as arrays, rows in `runs` order, columns in `topics` order; 0 where no answer."""

    runs: list[str]
    topics: list[str]
    precision: np.ndarray
    recall: np.ndarray
    sentences: np.ndarray
    judged: np.ndarray  # judged citations per (run, topic)
    citations: np.ndarray  # citations per (run, topic), judged or not

    def coverage(self, row: int) -> Coverage:
        return Coverage(int(self.judged[row].sum()), int(self.citations[row].sum()))

    def rows(self, keep: np.ndarray) -> TopicMatrix:
        """The matrix of the runs where `keep` (a boolean per run) holds."""
        picked = [r for r, k in zip(self.runs, keep.tolist(), strict=True) if k]
        return TopicMatrix(
            picked,
            list(self.topics),
            self.precision[keep],
            self.recall[keep],
            self.sentences[keep],
            self.judged[keep],
            self.citations[keep],
        )


def run_scores(
    matrix: TopicMatrix, *, judge: str, run_info: dict[str, tuple[str, str]] | None = None
) -> list[RunScore]:
    """Each run's mean over the topics (a topic it did not answer counts 0) with its coverage, ranked by
    `rank_key`: a run the set judged none of comes last."""
    n = len(matrix.topics)
    info = run_info or {}
    scores = []
    for i, run_id in enumerate(matrix.runs):
        group, task = info.get(run_id, ("", ""))
        coverage = matrix.coverage(i)
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
                judged_citations=coverage.judged,
                citations=coverage.citations,
            )
        )
    return sorted(
        scores,
        key=lambda s: (rank_key(score=s.weighted_precision, coverage=s.coverage), -s.weighted_recall, s.run_id),
    )
