"""Batch mode: the same job through the OpenAI Batch API (half the price), results in the same records.

Submit: claim the pairs under the job's own claim, build the JSONL, upload it, create the batch.
Poll (from a Celery task): when the batch ends, read its output and error files and write the outcomes.
Cancel: ask the provider to stop the batch, and go on polling until it has ended, so that the requests it
finished (and charged for) are stored; the pairs it did not do go back to be done by a later job.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

import openai
from django.conf import settings
from django.utils import timezone

from judging.llm.calls import CallOutcome, outcome_from_body
from judging.llm.client import batch_endpoint, client_for
from judging.llm.models import LLMResult, LLMResultStatus, PrelabelJob, PrelabelStatus
from judging.llm.services import (
    call_requests,
    job_cancelled,
    llm_config,
    results_claim,
    results_release,
    results_write,
)

CUSTOM_ID_PREFIX = "pair-"
FINISHED = {"completed", "failed", "expired", "cancelled"}


def job_claim(job: PrelabelJob) -> uuid.UUID:
    """Deterministic, so a resubmitted or re-polled job finds the pairs it claimed."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"assess:prelabel-job:{job.pk}")


def batch_jsonl(*, job: PrelabelJob, pair_ids: Sequence[int]) -> bytes:
    llm = llm_config(job.judge)
    lines = []
    for request in call_requests(prompt_version=job.prompt_version, pair_ids=pair_ids):
        body: dict[str, Any] = {"model": llm.model, "messages": request.messages, "temperature": llm.temperature}
        lines.append(
            json.dumps(
                {
                    "custom_id": f"{CUSTOM_ID_PREFIX}{request.pair_id}",
                    "method": "POST",
                    "url": batch_endpoint(llm),
                    "body": body,
                }
            )
        )
    return ("\n".join(lines) + "\n").encode()


def batch_submit(*, job: PrelabelJob, pair_ids: Sequence[int]) -> str:
    """Upload the requests and create the batch; idempotent once the job holds a batch id."""
    if job.batch_id:
        return job.batch_id
    llm = llm_config(job.judge)
    claimed, _ = results_claim(
        judge=job.judge,
        prompt_version=job.prompt_version,
        pair_ids=pair_ids,
        claim=job_claim(job),
        retry_errors=job.retry_errors,
    )
    if not claimed:
        PrelabelJob.objects.filter(pk=job.pk).update(status=PrelabelStatus.DONE, finished_at=timezone.now())
        return ""
    client = client_for(llm)
    uploaded = client.files.create(
        file=(f"prelabel-job-{job.pk}.jsonl", batch_jsonl(job=job, pair_ids=claimed)), purpose="batch"
    )
    batch = client.batches.create(
        input_file_id=uploaded.id,
        endpoint=batch_endpoint(llm),  # type: ignore[arg-type]
        completion_window="24h",
        metadata={"prelabel_job": str(job.pk)},
    )
    PrelabelJob.objects.filter(pk=job.pk).update(batch_id=batch.id, batch_status=batch.status)
    job.batch_id, job.batch_status = batch.id, batch.status
    if job_cancelled(job.pk):
        # Cancelled while the batch was being created: the cancel found no batch to stop.
        job.refresh_from_db()
        batch_cancel(job=job)
    return batch.id


def batch_cancel(*, job: PrelabelJob) -> None:
    """Ask the provider to stop the job's batch; the polling goes on until the batch has ended."""
    try:
        batch = client_for(llm_config(job.judge)).batches.cancel(job.batch_id)
    except openai.APIError as error:
        message = f"{job.message}; the provider did not cancel batch {job.batch_id}: {error}"
        PrelabelJob.objects.filter(pk=job.pk).update(message=message[:4000])
        return
    PrelabelJob.objects.filter(pk=job.pk).update(batch_status=batch.status)


def poll_interval() -> float:
    """Seconds between two looks at a batch."""
    return float(settings.LLM_BATCH_POLL_SECONDS)


def polling(job: PrelabelJob) -> bool:
    """Whether the job's batch is still to be polled: the job runs, or it was cancelled and its batch
    has not ended yet (what the batch finished is still stored)."""
    if job.status == PrelabelStatus.RUNNING:
        return True
    return job.status == PrelabelStatus.CANCELLED and bool(job.batch_id) and job.batch_status not in FINISHED


def _pair_id(custom_id: str) -> int | None:
    if not custom_id.startswith(CUSTOM_ID_PREFIX):
        return None
    try:
        return int(custom_id[len(CUSTOM_ID_PREFIX) :])
    except ValueError:
        return None


def outcomes_from_output(text: str) -> list[CallOutcome]:
    """One outcome per line of a batch output or error file."""
    outcomes = []
    for line in text.splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        pair_id = _pair_id(str(row.get("custom_id", "")))
        if pair_id is None:
            continue
        response = row.get("response") or {}
        body = response.get("body") or {}
        if row.get("error") or response.get("status_code", 0) != 200:
            error = row.get("error") or body.get("error") or {}
            message = error.get("message") if isinstance(error, dict) else str(error)
            status = response.get("status_code", "")
            outcomes.append(
                CallOutcome(pair_id, LLMResultStatus.ERROR, error=f"batch {status}: {message}".strip(), attempts=1)
            )
            continue
        outcome = outcome_from_body(pair_id=pair_id, body=body)
        outcome.attempts = 1
        outcomes.append(outcome)
    return outcomes


def batch_poll(*, job: PrelabelJob) -> bool:
    """Check the batch once; when it has ended, store every outcome. True when the job is finished."""
    job.refresh_from_db()
    if not job.batch_id:
        return job.status != PrelabelStatus.RUNNING
    if not polling(job):
        return True
    llm = llm_config(job.judge)
    client = client_for(llm)
    batch = client.batches.retrieve(job.batch_id)
    PrelabelJob.objects.filter(pk=job.pk).update(batch_status=batch.status)
    if batch.status not in FINISHED:
        return False
    outcomes: list[CallOutcome] = []
    for file_id in (batch.output_file_id, batch.error_file_id):
        if file_id:
            outcomes.extend(outcomes_from_output(client.files.content(file_id).text))
    claim = job_claim(job)
    seen = {o.pair_id for o in outcomes}
    cancelled = job.status == PrelabelStatus.CANCELLED
    if not cancelled:
        missing = LLMResult.objects.filter(
            judge=job.judge, prompt_version=job.prompt_version, status=LLMResultStatus.PENDING, claim=claim
        ).exclude(pair_id__in=seen)
        outcomes.extend(
            CallOutcome(pid, LLMResultStatus.ERROR, error=f"no result in the batch ({batch.status})", attempts=1)
            for pid in missing.values_list("pair_id", flat=True)
        )
    results_write(llm=llm, prompt_version=job.prompt_version, claim=claim, outcomes=outcomes, batch=True)
    if cancelled:
        # The pairs the cancelled batch did not do are not errors: a later job does them.
        results_release(judge=job.judge, prompt_version=job.prompt_version, claim=claim)
        PrelabelJob.objects.filter(pk=job.pk).update(batch_status=batch.status)
        return True
    PrelabelJob.objects.filter(pk=job.pk, status=PrelabelStatus.RUNNING).update(
        status=PrelabelStatus.DONE if batch.status == "completed" else PrelabelStatus.FAILED,
        batch_status=batch.status,
        message="" if batch.status == "completed" else f"the batch ended {batch.status}",
        finished_at=timezone.now(),
    )
    return True
