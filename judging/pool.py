"""The pool and the next-pair rule: which pairs an assignment judges (its topic's pairs in the campaign, or its
sample's), which are left to judge, in which order (by topic: pairs citing the same passage together;
uncertain first; a sample in its own order), and which a post-edit queue holds back. One implementation, in SQL
(`pending_sql`), that the judging page, the API, the status and the tests all run; the rule in words is
`queue.md`. The card and the progress built on it are `judging.queue`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from judging.models import Assignment, CampaignPair, Condition, Judgment, QueueOrder, SampleItem


def assignment_pool(*, assignment: Assignment) -> QuerySet[CampaignPair]:
    """Every pair this assignment may judge (its queue before held-back and done pairs are taken out)."""
    return topic_pool(assignment)


def topic_pool(assignment: Assignment) -> QuerySet[CampaignPair]:
    """The pool as a queryset, for the counts: the same rows as `pool_sql`."""
    pool = CampaignPair.objects.filter(campaign_id=assignment.campaign_id, topic_id=assignment.topic_id)
    if assignment.sample_id is not None:
        drawn = SampleItem.objects.filter(
            sample_id=assignment.sample_id, topic_id=OuterRef("topic_id"), pair_id=OuterRef("pair_id")
        )
        pool = pool.filter(Exists(drawn))
        if assignment.condition == Condition.FROM_SCRATCH:
            pool = pool.exclude(judged_elsewhere(assessor=assignment.assessor_id, assignment=assignment.pk))
    return pool


def judged_elsewhere(*, assessor: Any, assignment: Any) -> Exists:
    """For rows with a `pair_id`: the assessor judged the pair from scratch in another assignment."""
    return Exists(
        Judgment.objects.filter(
            pair_id=OuterRef("pair_id"), condition=Condition.FROM_SCRATCH, assignment__assessor_id=assessor
        ).exclude(assignment_id=assignment)
    )


def has_llm_label(assignment: Assignment) -> Q:
    judge_id = assignment.campaign.post_edit_judge_id
    if judge_id is None:
        return Q(pk__in=[])
    return Q(Exists(Judgment.objects.filter(judge_id=judge_id, pair_id=OuterRef("pair_id"))))


# The order of a topic's pool (`Campaign.queue_order`). By topic: the stored position (by passage, then pair).
# Uncertain first: the pairs where two LLM judges' current labels differ (rank 0), then those an LLM judge's
# current label calls PS or NS (rank 1), then the rest (rank 2), each rank in position order. A judge's current
# label is its newest that is not "cannot judge". Read when the queue is, so labels that arrive reorder what is
# still pending. In portable SQL (the demo runs on SQLite); `{pair}` is the pool row's pair id column.
_LLM_CURRENT = (
    "FROM judging_judgment l JOIN judging_judge g ON g.id = l.judge_id"
    " WHERE l.pair_id = {pair} AND g.kind = 'llm' AND l.label <> ''"
    " AND NOT EXISTS (SELECT 1 FROM judging_judgment m WHERE m.judge_id = l.judge_id AND m.pair_id = l.pair_id"
    " AND m.label <> '' AND (m.created_at > l.created_at OR (m.created_at = l.created_at AND m.id > l.id)))"
)
_UNCERTAINTY_RANK = (
    f"(CASE WHEN (SELECT count(DISTINCT l.label) {_LLM_CURRENT}) > 1 THEN 0"
    f" WHEN EXISTS (SELECT 1 {_LLM_CURRENT} AND l.label IN ('PS', 'NS')) THEN 1 ELSE 2 END)"
)


def uncertainty_rank_sql(pair_column: str) -> str:
    """The uncertain-first rank of a pool row whose pair id is `pair_column` (0 first)."""
    return _UNCERTAINTY_RANK.replace("{pair}", pair_column)


def _uncertain_first(assignment: Assignment) -> bool:
    return assignment.campaign.queue_order == QueueOrder.UNCERTAIN_FIRST


# The pool and the next pending pairs, in plain SQL: they are read on every keystroke, and composing them with
# the ORM cost more CPU than everything the database does for a submit. `pool_sql` is the pool, `pending_sql`
# the pending pairs in queue order: the one implementation of the rule (judging/queue.md) that the page, the API,
# the status and `assignment_pending` all run.


@dataclass(frozen=True)
class PendingSql:
    sql: str
    params: list[Any]


def pool_sql(assignment: Assignment) -> tuple[str, list[str], list[Any]]:
    """The assignment's pool as rows `cp` of judging_campaignpair (with `si`, its sample item, when it judges a
    sample): a FROM clause, its WHERE conditions and their parameters in order."""
    source = "judging_campaignpair cp"
    params: list[Any] = []
    if assignment.sample_id is not None:
        source += (
            " JOIN judging_sampleitem si ON si.sample_id = %s AND si.topic_id = cp.topic_id AND si.pair_id = cp.pair_id"
        )
        params.append(assignment.sample_id)
    where = ["cp.campaign_id = %s", "cp.topic_id = %s"]
    params += [assignment.campaign_id, assignment.topic_id]
    if assignment.sample_id is not None and assignment.condition == Condition.FROM_SCRATCH:
        where.append(
            "NOT EXISTS (SELECT 1 FROM judging_judgment e JOIN judging_assignment ea ON ea.id = e.assignment_id"
            " WHERE e.pair_id = cp.pair_id AND e.condition = %s AND ea.assessor_id = %s AND ea.id <> %s)"
        )
        params += [Condition.FROM_SCRATCH.value, assignment.assessor_id, assignment.pk]
    return source, where, params


def pending_sql(assignment: Assignment, *, limit: int | None = None, skip: Sequence[int] = ()) -> PendingSql | None:
    """The first `limit` (None: all) pending pairs of the queue, in queue order: rows `cp.*` with their order
    keys `queue_key`, `queue_tie`; None when every pair is held back. `skip`: pairs taken as judged."""
    source, where, params = pool_sql(assignment)
    where.append("NOT EXISTS (SELECT 1 FROM judging_judgment j WHERE j.assignment_id = %s AND j.pair_id = cp.pair_id)")
    params.append(assignment.pk)
    if skip:
        where.append("NOT (cp.pair_id = ANY(%s))")
        params.append(list(skip))
    if assignment.condition == Condition.POST_EDIT:
        judge_id = assignment.campaign.post_edit_judge_id
        if judge_id is None:
            return None
        where.append("EXISTS (SELECT 1 FROM judging_judgment l WHERE l.judge_id = %s AND l.pair_id = cp.pair_id)")
        params.append(judge_id)
    if assignment.sample_id is not None:
        # A sample comes in its own order (the feature that drew it shuffled it, so order says nothing of labels).
        key, tie = 'si."order"', "cp.pair_id"
    elif _uncertain_first(assignment):
        key, tie = uncertainty_rank_sql("cp.pair_id"), "cp.position"
    else:
        key, tie = "cp.position", "cp.pair_id"
    sql = (
        f"SELECT cp.*, {key} AS queue_key, {tie} AS queue_tie FROM {source}"
        f" WHERE {' AND '.join(where)} ORDER BY queue_key, queue_tie"
    )
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return PendingSql(sql, params)


def assignment_pending(*, assignment: Assignment) -> list[CampaignPair]:
    """The pairs still to judge, in queue order: pairs citing the same passage come together (uncertain first:
    after the pairs the LLM judges are least sure of; a sample: in its order). A post-edit queue holds back the
    pairs that have no LLM label yet."""
    pending = pending_sql(assignment)
    return [] if pending is None else list(CampaignPair.objects.raw(pending.sql, pending.params))
