"""Writes for LLM pre-labelling: judges, claims and results, and a job's status.

A result is keyed by (judge, prompt version, pair). A worker first *claims* the pairs of its chunk
(inserting `pending` rows, or taking over stale ones), calls only for what it claimed, and writes each
outcome under that claim. So a re-run, a duplicate delivery or a restarted worker never pays twice
for a pair: finished rows are never claimed again (call and parse errors only when asked to retry them).

Starting, cancelling and resuming jobs is `jobs`; the work of a job (its chunks and their calls, or its
batch) is `chunks` and `batch`; the Celery tasks that run that work are `tasks`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from judging.llm.calls import CallOutcome, CallRequest
from judging.llm.errors import PrelabelError
from judging.llm.models import LLMJudge, LLMResult, LLMResultStatus, PrelabelJob, PrelabelMode, PrelabelStatus, Provider
from judging.llm.pricing import cost_of
from judging.llm.prompt import (
    CURRENT_VERSION,
    PROMPTS,
    REPLY_TOKENS,
    citation_text,
    input_tokens_estimate,
    messages_for,
)
from judging.llm.selectors import pairs_unsettled, stale_after
from judging.models import Campaign, CampaignPair, Judge, JudgeKind, Judgment, Pair

__all__ = ["PrelabelError"]  # its home is judging.llm.errors; callers read it here

# A job still to run or running; done, failed and cancelled jobs have ended.
JOB_OPEN = (PrelabelStatus.PENDING, PrelabelStatus.RUNNING)


# -- judges ---------------------------------------------------------------------------------------


@transaction.atomic
def llm_judge_create(
    *,
    name: str,
    model: str,
    provider: str = Provider.OPENAI,
    base_url: str = "",
    prompt_version: str = CURRENT_VERSION,
    temperature: float = 0.0,
    max_concurrency: int = 8,
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
    price_input_per_million: Decimal | float | str = 0,
    price_output_per_million: Decimal | float | str = 0,
) -> LLMJudge:
    """A judge that can be called. An imported LLM label source of the same name gets this configuration."""
    name = name.strip()
    if not name or not model.strip():
        raise PrelabelError("an LLM judge needs a name and a model")
    if provider not in Provider.values:
        raise PrelabelError(f"unknown provider {provider!r}; one of {', '.join(Provider.values)}")
    if prompt_version not in PROMPTS:
        raise PrelabelError(f"unknown prompt version {prompt_version!r}; known: {', '.join(PROMPTS)}")
    if max_concurrency < 1:
        raise PrelabelError("maximum concurrency must be at least 1")
    judge, _ = Judge.objects.get_or_create(name=name, defaults={"kind": JudgeKind.LLM})
    if judge.kind != JudgeKind.LLM:
        raise PrelabelError(f"{name!r} is a human judge")
    if LLMJudge.objects.filter(judge=judge).exists():
        raise PrelabelError(f"the LLM judge {name!r} already exists")
    return LLMJudge.objects.create(
        judge=judge,
        provider=provider,
        base_url=base_url.strip(),
        model=model.strip(),
        prompt_version=prompt_version,
        temperature=temperature,
        max_concurrency=max_concurrency,
        requests_per_minute=requests_per_minute or None,
        tokens_per_minute=tokens_per_minute or None,
        price_input_per_million=Decimal(str(price_input_per_million)),
        price_output_per_million=Decimal(str(price_output_per_million)),
    )


def campaign_post_edit_judge_set(*, campaign: Campaign, judge: Judge) -> Campaign:
    if judge.kind != JudgeKind.LLM:
        raise PrelabelError("post-editing shows an LLM judge's labels")
    campaign.post_edit_judge = judge
    campaign.save(update_fields=["post_edit_judge"])
    return campaign


def llm_config(judge: Judge) -> LLMJudge:
    try:
        return judge.llm
    except LLMJudge.DoesNotExist:
        raise PrelabelError(
            f"{judge.name!r} is an imported label source with no call configuration; there is nothing to call"
        ) from None


# -- a job's pairs and status ----------------------------------------------------------------------


def campaign_pair_ids(campaign: Campaign) -> list[int]:
    return list(
        CampaignPair.objects.filter(campaign=campaign).order_by("pair_id").values_list("pair_id", flat=True).distinct()
    )


def job_cancelled(job_id: int) -> bool:
    return PrelabelJob.objects.filter(pk=job_id, status=PrelabelStatus.CANCELLED).exists()


def prelabel_job_fail(*, job: PrelabelJob, message: str) -> None:
    PrelabelJob.objects.filter(pk=job.pk).exclude(status=PrelabelStatus.CANCELLED).update(
        status=PrelabelStatus.FAILED, message=message[:4000], finished_at=timezone.now()
    )


def prelabel_job_refresh(*, job: PrelabelJob) -> PrelabelJob:
    """Mark a live job done once none of its pairs is left unprocessed or in flight."""
    job.refresh_from_db()
    if job.status != PrelabelStatus.RUNNING or job.mode != PrelabelMode.LIVE:
        return job
    if not pairs_unsettled(job):
        PrelabelJob.objects.filter(pk=job.pk, status=PrelabelStatus.RUNNING).update(
            status=PrelabelStatus.DONE, finished_at=timezone.now()
        )
        job.refresh_from_db()
    return job


# -- claims and results ---------------------------------------------------------------------------


def results_claim(
    *, judge: Judge, prompt_version: str, pair_ids: Sequence[int], claim: uuid.UUID, retry_errors: bool = False
) -> tuple[list[int], int]:
    """Claim the pairs that nobody finished or holds; return (claimed pair ids, pairs held by a live claim)."""
    now = timezone.now()
    if connection.vendor == "postgresql":
        _results_insert_pending_postgresql(
            judge=judge, prompt_version=prompt_version, pair_ids=pair_ids, claim=claim, now=now
        )
    else:
        LLMResult.objects.bulk_create(
            [
                LLMResult(
                    judge=judge,
                    prompt_version=prompt_version,
                    pair_id=pid,
                    status=LLMResultStatus.PENDING,
                    claim=claim,
                    attempts=0,
                )
                for pid in pair_ids
            ],
            ignore_conflicts=True,
            batch_size=1000,
        )
    # Pending rows nobody holds: released by a cancelled chunk, or held by a claim gone stale.
    claimable = Q(status=LLMResultStatus.PENDING) & (Q(claim__isnull=True) | Q(updated_at__lt=now - stale_after()))
    if retry_errors:
        claimable |= Q(status__in=(LLMResultStatus.ERROR, LLMResultStatus.PARSE_ERROR))
    mine = LLMResult.objects.filter(judge=judge, prompt_version=prompt_version, pair_id__in=pair_ids)
    mine.filter(claimable).exclude(claim=claim).update(status=LLMResultStatus.PENDING, claim=claim, updated_at=now)
    claimed = list(mine.filter(status=LLMResultStatus.PENDING, claim=claim).values_list("pair_id", flat=True))
    held = mine.filter(status=LLMResultStatus.PENDING).exclude(claim=claim).count()
    return claimed, held


def results_release(*, judge: Judge, prompt_version: str, claim: uuid.UUID) -> int:
    """Give back the pending pairs of a claim that will not call them (its job was cancelled)."""
    return LLMResult.objects.filter(
        judge=judge, prompt_version=prompt_version, status=LLMResultStatus.PENDING, claim=claim
    ).update(claim=None, updated_at=timezone.now())


def _results_insert_pending_postgresql(
    *, judge: Judge, prompt_version: str, pair_ids: Sequence[int], claim: uuid.UUID, now: object
) -> None:
    """The pending rows of a chunk in one statement (an ORM bulk_create costs more CPU than the calls'
    own bookkeeping at high concurrency)."""
    table = LLMResult._meta.db_table
    sql = (
        f"INSERT INTO {table} (judge_id, prompt_version, pair_id, status, label, raw_output, error, latency_ms, "
        "input_tokens, output_tokens, cost, attempts, claim, created_at, updated_at) "
        "SELECT %s, %s, pair_id, %s, '', '', '', NULL, 0, 0, 0, 0, %s, %s, %s FROM unnest(%s::bigint[]) AS pair_id "
        "ON CONFLICT (judge_id, prompt_version, pair_id) DO NOTHING"
    )
    params: list[Any] = [judge.pk, prompt_version, LLMResultStatus.PENDING.value, claim, now, now, list(pair_ids)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@transaction.atomic
def results_write(
    *, llm: LLMJudge, prompt_version: str, claim: uuid.UUID, outcomes: Iterable[CallOutcome], batch: bool = False
) -> int:
    """Store outcomes under their claim; a labelled one also becomes a Judgment of the LLM judge.

    An outcome whose claim was lost (a stale claim taken over) is dropped: the new owner writes it.
    """
    outcomes = list(outcomes)
    if not outcomes:
        return 0
    now = timezone.now()
    costs = [cost_of(llm, input_tokens=o.input_tokens, output_tokens=o.output_tokens, batch=batch) for o in outcomes]
    if connection.vendor == "postgresql":
        written = _results_update_postgresql(
            llm=llm, prompt_version=prompt_version, claim=claim, outcomes=outcomes, costs=costs, now=now
        )
    else:
        written = set()
        for outcome, cost in zip(outcomes, costs, strict=True):
            if LLMResult.objects.filter(
                judge_id=llm.judge_id,
                prompt_version=prompt_version,
                pair_id=outcome.pair_id,
                status=LLMResultStatus.PENDING,
                claim=claim,
            ).update(
                status=outcome.status,
                label=outcome.label,
                raw_output=outcome.raw_output[:20000],
                error=outcome.error,
                latency_ms=outcome.latency_ms,
                input_tokens=outcome.input_tokens,
                output_tokens=outcome.output_tokens,
                cost=cost,
                attempts=F("attempts") + outcome.attempts,
                claim=None,
                updated_at=now,
            ):
                written.add(outcome.pair_id)
    Judgment.objects.bulk_create(
        [
            Judgment(judge_id=llm.judge_id, pair_id=o.pair_id, label=o.label, condition="")
            for o in outcomes
            if o.pair_id in written and o.status == LLMResultStatus.LABELLED
        ],
        batch_size=1000,
    )
    return len(written)


def _results_update_postgresql(
    *,
    llm: LLMJudge,
    prompt_version: str,
    claim: uuid.UUID,
    outcomes: list[CallOutcome],
    costs: list[Decimal],
    now: object,
) -> set[int]:
    """One UPDATE ... FROM unnest(arrays) for all outcomes: the worker's one writing thread keeps up with
    hundreds of calls a second, where a statement per outcome would not (and ten array parameters
    cost the driver less than ten per outcome)."""
    table = LLMResult._meta.db_table
    rows = [
        (
            o.pair_id,
            o.status,
            o.label,
            o.raw_output[:20000],
            o.error,
            o.latency_ms,
            o.input_tokens,
            o.output_tokens,
            cost,
            o.attempts,
        )
        for o, cost in zip(outcomes, costs, strict=True)
    ]
    columns = zip(*rows, strict=True)
    params: list[Any] = [now, *(list(column) for column in columns)]
    params += [llm.judge_id, prompt_version, LLMResultStatus.PENDING.value, claim]
    sql = (
        f"UPDATE {table} AS r SET status = v.status, label = v.label, raw_output = v.raw_output, error = v.error, "
        "latency_ms = v.latency_ms, input_tokens = v.input_tokens, output_tokens = v.output_tokens, cost = v.cost, "
        "attempts = r.attempts + v.attempts, claim = NULL, updated_at = %s "
        "FROM unnest(%s::bigint[], %s::varchar[], %s::varchar[], %s::text[], %s::text[], %s::integer[], "
        "%s::integer[], %s::integer[], %s::numeric[], %s::integer[]) "
        "AS v(pair_id, status, label, raw_output, error, latency_ms, input_tokens, output_tokens, cost, attempts) "
        "WHERE r.pair_id = v.pair_id AND r.judge_id = %s AND r.prompt_version = %s AND r.status = %s AND r.claim = %s "
        "RETURNING r.pair_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {pair_id for (pair_id,) in cursor.fetchall()}


def call_requests(*, prompt_version: str, pair_ids: Sequence[int]) -> list[CallRequest]:
    requests = []
    for pair in Pair.objects.filter(pk__in=pair_ids).select_related("passage").order_by("pk"):
        messages = messages_for(version=prompt_version, statement=pair.text, citation=citation_text(pair.passage))
        # What the TPM budget is charged: the prompt's estimated tokens and the reply's.
        estimated = input_tokens_estimate(sum(len(m["content"]) for m in messages)) + REPLY_TOKENS
        requests.append(CallRequest(pair_id=pair.pk, messages=messages, estimated_tokens=estimated))
    return requests
