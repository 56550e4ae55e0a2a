"""Reads for LLM pre-labelling: judges, jobs and their live progress."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from judging.llm.models import LLMResult, LLMResultStatus, PrelabelJob, PrelabelStatus
from judging.models import Campaign, CampaignPair, Judge, JudgeKind, Judgment


@dataclass(frozen=True)
class Progress:
    total: int
    labelled: int
    parse_errors: int
    errors: int
    in_flight: int
    cost: Decimal
    calls_per_minute: float
    eta_seconds: float | None
    status: str

    @property
    def done(self) -> int:
        return self.labelled + self.parse_errors

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.done - self.errors)

    @property
    def percent(self) -> int:
        if not self.total:
            return 100
        return min(100, int(100 * (self.done + self.errors) / self.total))

    @property
    def finished(self) -> bool:
        return self.status in (PrelabelStatus.DONE, PrelabelStatus.FAILED, PrelabelStatus.CANCELLED)


def llm_judges() -> QuerySet[Judge]:
    """Every LLM judge: the callable ones (with `llm`) and imported label sources (without)."""
    return Judge.objects.filter(kind=JudgeKind.LLM).select_related("llm").order_by("name")


def campaign_jobs(campaign: Campaign) -> QuerySet[PrelabelJob]:
    return PrelabelJob.objects.filter(campaign=campaign).select_related("judge", "created_by")


def results_for(job: PrelabelJob) -> QuerySet[LLMResult]:
    return LLMResult.objects.filter(
        judge=job.judge,
        prompt_version=job.prompt_version,
        pair_id__in=CampaignPair.objects.filter(campaign=job.campaign_id).values("pair_id"),
    )


def stale_after() -> timedelta:
    """How long a claim holds its pairs without news before its worker is taken for dead."""
    return timedelta(seconds=float(settings.LLM_CLAIM_STALE_SECONDS))


def _in_flight(now: datetime) -> Q:
    """Pending and held by a live claim: a call is on its way. A released pair, or one whose claim went
    stale (its worker died), is only still to do."""
    return Q(status=LLMResultStatus.PENDING, claim__isnull=False, updated_at__gte=now - stale_after())


def calls_in_flight(job: PrelabelJob) -> int:
    return results_for(job).filter(_in_flight(timezone.now())).count()


def prelabel_progress(job: PrelabelJob) -> Progress:
    now = timezone.now()
    window_start = now - timedelta(seconds=60)
    counts = results_for(job).aggregate(
        labelled=Count("pk", filter=Q(status=LLMResultStatus.LABELLED)),
        parse_errors=Count("pk", filter=Q(status=LLMResultStatus.PARSE_ERROR)),
        errors=Count("pk", filter=Q(status=LLMResultStatus.ERROR)),
        in_flight=Count("pk", filter=_in_flight(now)),
        recent=Count("pk", filter=~Q(status=LLMResultStatus.PENDING) & Q(updated_at__gte=window_start)),
        cost=Sum("cost"),
    )
    errors = counts["errors"]
    if job.retry_errors and job.status == PrelabelStatus.RUNNING:
        # Errors from before this retry are still to do, not failures of this job.
        errors -= results_for(job).filter(status=LLMResultStatus.ERROR, updated_at__lt=job.created_at).count()
    rate = 0.0
    if job.started_at and job.status == PrelabelStatus.RUNNING:
        seconds = min(60.0, max(1.0, (now - job.started_at).total_seconds()))
        rate = counts["recent"] * 60.0 / seconds
    progress = Progress(
        total=job.total,
        labelled=counts["labelled"],
        parse_errors=counts["parse_errors"],
        errors=errors,
        in_flight=counts["in_flight"],
        cost=counts["cost"] or Decimal(0),
        calls_per_minute=rate,
        eta_seconds=None,
        status=job.status,
    )
    if rate > 0 and progress.remaining:
        return Progress(**{**progress.__dict__, "eta_seconds": progress.remaining * 60.0 / rate})
    return progress


def imported_label_count(*, campaign: Campaign, judge: Judge) -> int:
    """Judgments an imported LLM source holds on the campaign's pairs."""
    return Judgment.objects.filter(
        judge=judge, pair_id__in=CampaignPair.objects.filter(campaign=campaign).values("pair_id")
    ).count()


def campaigns_recent(limit: int = 50) -> QuerySet[Campaign]:
    return Campaign.objects.select_related("post_edit_judge").order_by("-created_at")[:limit]
