"""Reads for LLM pre-labelling: judges, jobs and their live progress."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, ExpressionWrapper, IntegerField, OuterRef, Q, QuerySet, Sum, Value
from django.db.models.functions import Length
from django.utils import timezone

from judging.kinds import SUPPORT_KIND, kind_of
from judging.llm.errors import PrelabelError
from judging.llm.meter import meter_read
from judging.llm.models import LLMResult, LLMResultStatus, PrelabelJob, PrelabelStatus
from judging.llm.pricing import cost_of, is_priced
from judging.llm.prompt import (
    CHARS_PER_TOKEN,
    CITATION_SEPARATOR,
    REPLY_TOKENS,
    input_tokens_estimate,
    prompt_fixed_chars,
)
from judging.models import Campaign, CampaignPair, Judge, JudgeKind, Judgment, Pair
from judging.progress import percent_done


@dataclass(frozen=True)
class JobProgress:
    """A job's figures. Results are counted as they are written, from the job's start on; `in_flight`
    and `calls_per_minute` are HTTP requests to the judge (retries included), from `meter`."""

    total: int
    labelled: int
    parse_errors: int
    call_errors: int
    in_flight: int
    cost: Decimal
    calls_per_minute: int
    eta_seconds: float | None
    status: str

    @property
    def errors(self) -> int:
        """Pairs without a label: the call failed, or its reply named no label. "Retry errors" calls both."""
        return self.parse_errors + self.call_errors

    @property
    def done(self) -> int:
        """Pairs with a result written: labelled or an error."""
        return self.labelled + self.errors

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.done)

    @property
    def percent(self) -> float | None:
        return percent_done(self.done, self.total)

    @property
    def finished(self) -> bool:
        return self.status in (PrelabelStatus.DONE, PrelabelStatus.FAILED, PrelabelStatus.CANCELLED)


@dataclass(frozen=True)
class CostEstimate:
    """What a job would call before it starts, from the prompts' length (see `prompt`) and the judge's prices."""

    pairs: int
    retryable_errors: int
    input_tokens: int
    output_tokens: int
    cost: Decimal
    batch_cost: Decimal
    priced: bool
    chars_per_token: int = CHARS_PER_TOKEN
    reply_tokens: int = REPLY_TOKENS


def llm_judges() -> QuerySet[Judge]:
    """Every LLM judge: the callable ones (with `llm`) and imported label sources (without)."""
    return Judge.objects.filter(kind=JudgeKind.LLM).select_related("llm").order_by("name")


def campaign_jobs(campaign: Campaign) -> QuerySet[PrelabelJob]:
    return PrelabelJob.objects.filter(campaign=campaign).select_related("judge", "created_by", "campaign")


def results_for(job: PrelabelJob) -> QuerySet[LLMResult]:
    prelabel = kind_prelabel(job.campaign)
    if prelabel is not None:
        return LLMResult.objects.filter(
            judge=job.judge,
            prompt_version=job.prompt_version,
            kind=job.campaign.kind,
            unit_id__in=prelabel.units(job.campaign),
        )
    return LLMResult.objects.filter(
        judge=job.judge,
        prompt_version=job.prompt_version,
        pair_id__in=CampaignPair.objects.filter(campaign=job.campaign_id).values("pair_id"),
    )


def stale_after() -> timedelta:
    """How long a claim holds its pairs without news before its worker is taken for dead."""
    return timedelta(seconds=float(settings.LLM_CLAIM_STALE_SECONDS))


def _in_flight(now: datetime) -> Q:
    """Pending and held by a live claim: a call is on its way or about to be. A released pair, or one
    whose claim went stale (its worker died), is only still to do."""
    return Q(status=LLMResultStatus.PENDING, claim__isnull=False, updated_at__gte=now - stale_after())


def pairs_held(job: PrelabelJob) -> int:
    """Pairs a live chunk still holds: its calls are under way, or it has not yet given back the rest."""
    return results_for(job).filter(_in_flight(timezone.now())).count()


def job_results(job: PrelabelJob) -> QuerySet[LLMResult]:
    """The results this job wrote: its campaign's, for its judge, settled since it was created."""
    return results_for(job).exclude(status=LLMResultStatus.PENDING).filter(updated_at__gte=job.created_at)


def job_settled(job: PrelabelJob) -> dict[str, Any]:
    return job_results(job).aggregate(
        labelled=Count("pk", filter=Q(status=LLMResultStatus.LABELLED)),
        parse_errors=Count("pk", filter=Q(status=LLMResultStatus.PARSE_ERROR)),
        call_errors=Count("pk", filter=Q(status=LLMResultStatus.ERROR)),
        cost=Sum("cost"),
    )


def pairs_unsettled(job: PrelabelJob) -> int:
    """Pairs of the job without a result yet: still to call, or in flight."""
    return max(0, job.total - job_results(job).count())


def prelabel_progress(job: PrelabelJob) -> JobProgress:
    counts = job_settled(job)
    in_flight, calls_last_minute = meter_read(job.pk)
    progress = JobProgress(
        total=job.total,
        labelled=counts["labelled"],
        parse_errors=counts["parse_errors"],
        call_errors=counts["call_errors"],
        in_flight=in_flight,
        cost=counts["cost"] or Decimal(0),
        calls_per_minute=calls_last_minute,
        eta_seconds=None,
        status=job.status,
    )
    if job.status == PrelabelStatus.RUNNING and job.started_at and progress.done and progress.remaining:
        # The measured pace in pairs settled (labelled or an error) since the job started, not in HTTP calls:
        # a call retried after a 429 or a timeout is several calls for one pair, and its waits count too.
        seconds = max(1.0, (timezone.now() - job.started_at).total_seconds())
        return replace(progress, eta_seconds=progress.remaining * seconds / progress.done)
    return progress


def pairs_to_call(
    *, campaign: Campaign, judge: Judge, retry_errors: bool = False, prompt_version: str | None = None
) -> list[int]:
    """Pairs of the campaign without a result from this judge and prompt version (its current one by
    default); with `retry_errors`, also those whose call failed or whose reply named no label. For a campaign of
    another kind: its units (`units_to_call`)."""
    prelabel = kind_prelabel(campaign)
    if prelabel is not None:
        return units_to_call(campaign=campaign, judge=judge, prelabel=prelabel, retry_errors=retry_errors)
    settled = _settled(retry_errors)
    finished = LLMResult.objects.filter(
        judge=judge,
        prompt_version=prompt_version or judge.llm.prompt_version,
        status__in=settled,
        pair_id=OuterRef("pair_id"),
    )
    return list(
        CampaignPair.objects.filter(campaign=campaign)
        .exclude(Exists(finished))
        .order_by("pair_id")
        .values_list("pair_id", flat=True)
        .distinct()
    )


def retryable_errors(*, campaign: Campaign, judge: Judge) -> int:
    prelabel = kind_prelabel(campaign)
    if prelabel is not None:
        return unit_results(campaign=campaign, judge=judge, prelabel=prelabel).filter(status__in=ERRORS).count()
    return LLMResult.objects.filter(
        judge=judge,
        prompt_version=judge.llm.prompt_version,
        status__in=(LLMResultStatus.PARSE_ERROR, LLMResultStatus.ERROR),
        pair_id__in=CampaignPair.objects.filter(campaign=campaign).values("pair_id"),
    ).count()


def prelabel_estimate(*, campaign: Campaign, judge: Judge, retry_errors: bool = False) -> CostEstimate:
    """The pairs a job would call now, their estimated tokens (each prompt's characters over
    CHARS_PER_TOKEN, a reply at REPLY_TOKENS) and what they would cost live and through the Batch API."""
    llm = judge.llm
    pair_ids = pairs_to_call(campaign=campaign, judge=judge, retry_errors=retry_errors)
    prelabel = kind_prelabel(campaign)
    if prelabel is not None:  # a kind's units: their prompts, built
        input_tokens = unit_input_tokens(prelabel=prelabel, unit_ids=pair_ids)
    else:
        fixed = prompt_fixed_chars(llm.prompt_version) + len(CITATION_SEPARATOR)
        prompt_chars = Value(fixed) + Length("text") + Length("passage__title") + Length("passage__text")
        # Integer division per pair, as the calls estimate each prompt.
        per_pair = ExpressionWrapper(prompt_chars / Value(CHARS_PER_TOKEN), output_field=IntegerField())
        input_tokens = Pair.objects.filter(pk__in=pair_ids).aggregate(tokens=Sum(per_pair))["tokens"] or 0
    output_tokens = REPLY_TOKENS * len(pair_ids)
    return CostEstimate(
        pairs=len(pair_ids),
        retryable_errors=0 if retry_errors else retryable_errors(campaign=campaign, judge=judge),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost=cost_of(llm, input_tokens=input_tokens, output_tokens=output_tokens),
        batch_cost=cost_of(llm, input_tokens=input_tokens, output_tokens=output_tokens, batch=True),
        priced=is_priced(llm),
    )


def imported_label_count(*, campaign: Campaign, judge: Judge) -> int:
    """Judgments an imported LLM source holds on the campaign's pairs."""
    return Judgment.objects.filter(
        judge=judge, pair_id__in=CampaignPair.objects.filter(campaign=campaign).values("pair_id")
    ).count()


def campaigns_recent(limit: int = 50) -> QuerySet[Campaign]:
    return Campaign.objects.select_related("post_edit_judge").order_by("-created_at")[:limit]


# -- the units of another judgment kind (judging/llm/units.py) ------------------------------------------

ERRORS = (LLMResultStatus.PARSE_ERROR, LLMResultStatus.ERROR)


def kind_prelabel(campaign: Campaign) -> Any | None:
    """The campaign's kind's PRELABEL, or None for support (its pairs). A kind without one cannot be pre-labelled."""
    if campaign.kind == SUPPORT_KIND:
        return None
    kind = kind_of(campaign)
    prelabel = kind.extras.get("prelabel")
    if prelabel is None:
        raise PrelabelError(f"the kind {kind.name!r} of campaign {campaign.name!r} has no LLM pre-labeller")
    return prelabel


def _settled(retry_errors: bool) -> list[str]:
    settled: list[str] = [LLMResultStatus.LABELLED]
    if not retry_errors:
        settled += [LLMResultStatus.PARSE_ERROR, LLMResultStatus.ERROR]
    return settled


def unit_results(
    *, campaign: Campaign, judge: Judge, prelabel: Any, unit_ids: Sequence[int] | None = None
) -> QuerySet[LLMResult]:
    """The judge's results on the campaign's units (all of them unless `unit_ids`), at the kind's prompt version."""
    units = prelabel.units(campaign) if unit_ids is None else unit_ids
    return LLMResult.objects.filter(
        judge=judge, prompt_version=prelabel.version, kind=campaign.kind, unit_id__in=list(units)
    )


def units_to_call(*, campaign: Campaign, judge: Judge, prelabel: Any, retry_errors: bool = False) -> list[int]:
    """The kind's units of the campaign, in its order, without a result of this judge at the kind's prompt
    version (with `retry_errors`, also those whose call failed or whose reply the kind could not read)."""
    units = prelabel.units(campaign)
    finished = set(
        unit_results(campaign=campaign, judge=judge, prelabel=prelabel, unit_ids=units)
        .filter(status__in=_settled(retry_errors))
        .values_list("unit_id", flat=True)
    )
    return [u for u in units if u not in finished]


def unit_input_tokens(*, prelabel: Any, unit_ids: Sequence[int]) -> int:
    """The prompts' estimated tokens, as the calls charge the rate limit (their characters over CHARS_PER_TOKEN)."""
    messages = prelabel.messages(list(unit_ids))
    return sum(input_tokens_estimate(sum(len(m["content"]) for m in ms)) for ms in messages.values())
