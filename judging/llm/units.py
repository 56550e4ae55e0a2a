"""What a pre-label job calls the judge for: a support campaign's pairs, or the units of another judgment kind
(issue 26, point 4). Both go through the same chunks and Celery tasks, rate limits, cost meter and result cache
(LLMResult: a unit with a result is never paid twice); only the prompt, the reply's parser and where a label is
stored differ. A kind says those through its PRELABEL (Kind.extras["prelabel"], docs/kinds.md): `version`,
`units(campaign)`, `messages(unit_ids)`, `parse(reply)` and `store(judge, {unit id: label})`.

`results_store(job)` gives a chunk its store: `PairResults` (support: the services' statements, as before) or
`UnitResults` (a kind's units, keyed by (judge, prompt version, kind, unit id))."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from judging.llm.calls import SUPPORT_REPLIES, CallOutcome, CallRequest, ReplyParser
from judging.llm.models import LLMJudge, LLMResult, LLMResultStatus, PrelabelJob
from judging.llm.pricing import cost_of
from judging.llm.prompt import REPLY_TOKENS, input_tokens_estimate
from judging.llm.selectors import kind_prelabel, stale_after
from judging.llm.services import call_requests, results_claim, results_release, results_write


@dataclass(frozen=True)
class PairResults:
    """A support job's pairs: the services' claims, prompts and writes (their SQL), as before kinds."""

    job: PrelabelJob
    parser: ReplyParser = SUPPORT_REPLIES

    def claim(self, ids: Sequence[int], claim: uuid.UUID) -> tuple[list[int], int]:
        job = self.job
        return results_claim(
            judge=job.judge, prompt_version=job.prompt_version, pair_ids=ids, claim=claim, retry_errors=job.retry_errors
        )

    def requests(self, ids: Sequence[int]) -> list[CallRequest]:
        return call_requests(prompt_version=self.job.prompt_version, pair_ids=ids)

    def write(self, llm: LLMJudge, claim: uuid.UUID, outcomes: Iterable[CallOutcome]) -> int:
        return results_write(llm=llm, prompt_version=self.job.prompt_version, claim=claim, outcomes=outcomes)

    def release(self, claim: uuid.UUID) -> int:
        return results_release(judge=self.job.judge, prompt_version=self.job.prompt_version, claim=claim)


@dataclass(frozen=True)
class UnitResults:
    """A kind's job: its units' results keyed by (judge, prompt version, kind, unit id); the kind's prompt and
    parser; each label stored by the kind (PRELABEL.store) in the transaction that writes its result."""

    job: PrelabelJob
    prelabel: Any

    @property
    def parser(self) -> ReplyParser:
        return ReplyParser(parse=self.prelabel.parse, error=f"the reply holds no {self.job.campaign.kind} label")

    def _mine(self, ids: Iterable[int]) -> QuerySet[LLMResult]:
        job = self.job
        return LLMResult.objects.filter(
            judge=job.judge, prompt_version=job.prompt_version, kind=job.campaign.kind, unit_id__in=list(ids)
        )

    def claim(self, ids: Sequence[int], claim: uuid.UUID) -> tuple[list[int], int]:
        """Claim the units nobody finished or holds: (claimed unit ids, units held by a live claim)."""
        job, now = self.job, timezone.now()
        pending = LLMResultStatus.PENDING
        LLMResult.objects.bulk_create(
            [
                LLMResult(
                    judge=job.judge,
                    prompt_version=job.prompt_version,
                    kind=job.campaign.kind,
                    unit_id=unit,
                    status=pending,
                    claim=claim,
                    attempts=0,
                )
                for unit in ids
            ],
            ignore_conflicts=True,
            batch_size=1000,
        )
        claimable = Q(status=pending) & (Q(claim__isnull=True) | Q(updated_at__lt=now - stale_after()))
        if job.retry_errors:
            claimable |= Q(status__in=(LLMResultStatus.ERROR, LLMResultStatus.PARSE_ERROR))
        mine = self._mine(ids)
        mine.filter(claimable).exclude(claim=claim).update(status=pending, claim=claim, updated_at=now)
        claimed = [
            u for u in mine.filter(status=pending, claim=claim).values_list("unit_id", flat=True) if u is not None
        ]
        return claimed, mine.filter(status=pending).exclude(claim=claim).count()

    def requests(self, ids: Sequence[int]) -> list[CallRequest]:
        messages = self.prelabel.messages(list(ids))
        return [
            CallRequest(
                pair_id=unit,
                messages=messages[unit],
                estimated_tokens=input_tokens_estimate(sum(len(m["content"]) for m in messages[unit])) + REPLY_TOKENS,
            )
            for unit in sorted(messages)
        ]

    @transaction.atomic
    def write(self, llm: LLMJudge, claim: uuid.UUID, outcomes: Iterable[CallOutcome]) -> int:
        """Store outcomes under their claim (one lost to a takeover is dropped: its new owner writes it), and the
        labelled ones' labels through the kind."""
        now, written, labels = timezone.now(), 0, {}
        for o in outcomes:
            labelled = o.status == LLMResultStatus.LABELLED
            updated = (
                self._mine([o.pair_id])
                .filter(status=LLMResultStatus.PENDING, claim=claim)
                .update(
                    status=o.status,
                    unit_label=o.label if labelled else None,
                    raw_output=o.raw_output[:20000],
                    error=o.error,
                    latency_ms=o.latency_ms,
                    input_tokens=o.input_tokens,
                    output_tokens=o.output_tokens,
                    cost=cost_of(llm, input_tokens=o.input_tokens, output_tokens=o.output_tokens),
                    attempts=F("attempts") + o.attempts,
                    claim=None,
                    updated_at=now,
                )
            )
            written += updated
            if updated and labelled:
                labels[o.pair_id] = o.label
        if labels:
            self.prelabel.store(llm.judge, labels)
        return written

    def release(self, claim: uuid.UUID) -> int:
        job = self.job
        return LLMResult.objects.filter(
            judge=job.judge,
            prompt_version=job.prompt_version,
            kind=job.campaign.kind,
            status=LLMResultStatus.PENDING,
            claim=claim,
        ).update(claim=None, updated_at=timezone.now())


ResultStore = PairResults | UnitResults


def results_store(job: PrelabelJob) -> ResultStore:
    """The job's store: its campaign's pairs (support), or its kind's units."""
    prelabel = kind_prelabel(job.campaign)
    return PairResults(job) if prelabel is None else UnitResults(job, prelabel)
