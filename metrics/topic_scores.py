"""Per-topic scores (what `trec_eval -q` users expect): one row per (run, topic), the figures a run score is the
mean of, cached until the next judgment like the other reports (`metrics.reports`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from judging.label_set_pickers import label_set_describe
from judging.labels import LabelSet
from judging.scope import Scope
from metrics.material import cached, labelled_topics, material_get
from metrics.reports import depth_unit, label_support, topic_matrix

TOPIC_SCORE_COLUMNS = (
    "run_id",
    "topic_id",
    "label_set",
    "weighted_precision",
    "weighted_recall",
    "sentences",
    "judged_citations",
    "citations",
)


@dataclass(frozen=True)
class TopicScoreRow:
    run_id: str
    topic_id: str
    label_set: str
    weighted_precision: float
    weighted_recall: float
    sentences: int
    judged_citations: int
    citations: int = 0  # the answer's citations in the unit: judged_citations of citations were judged

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TopicScoresReport:
    label_set: dict[str, Any]
    depth: int | None
    topics: list[str]
    rows: list[TopicScoreRow]  # by run, then topic

    def as_dict(self) -> dict[str, Any]:
        return {
            "label_set": self.label_set,
            "depth": self.depth,
            "unit": depth_unit(self.depth),
            "topics": self.topics,
            "columns": list(TOPIC_SCORE_COLUMNS),
            "rows": [r.as_dict() for r in self.rows],
        }


def topic_scores_report(*, label_set: LabelSet, scope: Scope) -> TopicScoresReport:
    """One row per (run, topic) over the set's judged topics, the very figures a run score is the mean of: a
    topic the run did not answer is there with 0 and no sentences, as the run score counts it."""
    key = f"topic-scores:{scope.key}:{label_set.key}"
    return cached(key, lambda: _topic_scores_report(label_set, scope))  # type: ignore[no-any-return]


def _topic_scores_report(label_set: LabelSet, scope: Scope) -> TopicScoresReport:
    material = material_get(scope)
    labels, support = label_support(label_set, material)
    topics = labelled_topics(material, labels)
    matrix = topic_matrix(support, material, topics)
    rows = [
        TopicScoreRow(
            run_id=run_id,
            topic_id=topic_id,
            label_set=label_set.spec,
            weighted_precision=float(matrix.precision[i, j]),
            weighted_recall=float(matrix.recall[i, j]),
            sentences=int(matrix.sentences[i, j]),
            judged_citations=int(matrix.judged[i, j]),
            citations=int(matrix.citations[i, j]),
        )
        for i, run_id in enumerate(matrix.runs)
        for j, topic_id in enumerate(matrix.topics)
    ]
    return TopicScoresReport(label_set_describe(label_set), scope.depth, topics, rows)
