"""The relevance report of two label sets (issue 26, point 3): how often they give a (topic, passage) the same
grade (exact agreement, Cohen's kappa, linearly weighted kappa, the 4x4 confusion matrix: metrics.agreement),
and the runs ranked by nDCG@10 and nDCG@20 under each, with Kendall's tau between the two rankings."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from assess.models import Answer, Run
from judging.models import Campaign
from kinds.relevance.scores import MEASURES, ndcg_of_runs, ranking_of
from kinds.relevance.selectors import label_set_qrels
from kinds.relevance.vocabulary import RELEVANCE
from metrics.agreement import LabelAgreement, kendall_tau, label_agreement

UNIT = "topic-passage"


@dataclass(frozen=True)
class Coverage:
    pairs_a: int
    pairs_b: int
    pairs_both: int  # the agreement's items
    topics_a: int
    topics_b: int
    topics_both: int  # the topics nDCG is averaged over


@dataclass(frozen=True)
class RunRow:
    run_id: str
    scores_a: dict[str, float]
    scores_b: dict[str, float]
    rank_a: dict[str, int]
    rank_b: dict[str, int]


@dataclass(frozen=True)
class RelevanceReport:
    a: str
    b: str
    unit: str
    coverage: Coverage
    agreement: LabelAgreement
    runs: list[RunRow]
    tau: dict[str, float | None] = field(default_factory=dict)
    measures: tuple[str, ...] = MEASURES

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_rankings(*, campaign: Campaign | None, topic_ids: set[str]) -> dict[str, dict[str, list[str]]]:
    """Each run's references per topic (the campaign's runs, or every run), as its ranking."""
    runs = campaign.runs.all() if campaign is not None else Run.objects.all()
    rankings: dict[str, dict[str, list[str]]] = {r.run_id: {} for r in runs}
    answers = Answer.objects.filter(run__in=runs, topic__topic_id__in=topic_ids)
    for run_id, topic_id, references in answers.values_list("run__run_id", "topic__topic_id", "references"):
        rankings[run_id][topic_id] = list(references)
    return rankings


def relevance_report(a: str, b: str, *, campaign: Campaign | None = None, resamples: int = 1000) -> RelevanceReport:
    """The report of label sets `a` and `b` (LabelSetError when one does not exist). Agreement over the pairs
    both graded; nDCG over the topics both graded (of the campaign's, when given)."""
    qrels_a, qrels_b = label_set_qrels(a), label_set_qrels(b)
    both = sorted(set(qrels_a) & set(qrels_b))
    agreement = label_agreement(
        [str(qrels_a[k]) for k in both], [str(qrels_b[k]) for k in both], vocabulary=RELEVANCE, resamples=resamples
    )
    topics_a, topics_b = {t for t, _ in qrels_a}, {t for t, _ in qrels_b}
    topics = topics_a & topics_b
    if campaign is not None:
        topics &= set(campaign.topics.values_list("topic_id", flat=True))
    rankings = run_rankings(campaign=campaign, topic_ids=topics)
    ndcg_a = ndcg_of_runs(qrels_a, rankings, topics)
    ndcg_b = ndcg_of_runs(qrels_b, rankings, topics)
    ranks = {
        (side, m): {r: i for i, r in enumerate(ranking_of({r: s[m] for r, s in ndcg.items()}), start=1)}
        for side, ndcg in (("a", ndcg_a), ("b", ndcg_b))
        for m in MEASURES
    }
    rows = [
        RunRow(
            run_id=r,
            scores_a=ndcg_a[r],
            scores_b=ndcg_b[r],
            rank_a={m: ranks["a", m][r] for m in MEASURES},
            rank_b={m: ranks["b", m][r] for m in MEASURES},
        )
        for r in ranking_of({r: s[MEASURES[0]] for r, s in ndcg_a.items()})
    ]
    tau = {m: kendall_tau([row.scores_a[m] for row in rows], [row.scores_b[m] for row in rows]) for m in MEASURES}
    coverage = Coverage(len(qrels_a), len(qrels_b), len(both), len(topics_a), len(topics_b), len(topics))
    return RelevanceReport(a, b, UNIT, coverage, agreement, rows, tau)
