"""A reference for `metrics.scores.support_arrays`: one answer's weighted precision and recall by loops over
plain Python data, the definition written out the slow way for the tests to check the arrays against.

An answer is given as its sentence count and, for each sentence that has citations within the depth, the
labels of those citations in slot order (None: the citation exists but is not judged).
"""

from __future__ import annotations

from dataclasses import dataclass

from judging.vocabulary import SUPPORT
from metrics.scores import AnswerScore


@dataclass(frozen=True)
class AnswerLabels:
    topic_id: str
    run_id: str
    sentence_count: int
    cited: tuple[tuple[str | None, ...], ...]  # one entry per sentence with citations within the depth


def answer_score(answer: AnswerLabels) -> AnswerScore:
    """Precision = Σ weights / judged citations. Recall = mean over sentences of the best judged weight; a
    sentence with no citation counts 0, one whose citations are all unjudged is left out."""
    weight_sum = 0.0
    judged = 0
    support_sum = 0.0
    recall_denominator = answer.sentence_count
    for labels in answer.cited:
        weights = [SUPPORT.weight_of[label] for label in labels if label is not None]
        if not weights:
            recall_denominator -= 1
            continue
        weight_sum += sum(weights)
        judged += len(weights)
        support_sum += max(weights)
    return AnswerScore(
        topic_id=answer.topic_id,
        run_id=answer.run_id,
        sentences=answer.sentence_count,
        judged=judged,
        precision=weight_sum / judged if judged else 0.0,
        recall=support_sum / recall_denominator if recall_denominator > 0 else 0.0,
    )
