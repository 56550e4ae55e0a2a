"""LLM pre-labelling's records: how to call a judge, one result per (judge, prompt version, pair), and the jobs.

The tables kept the names they had when these models lived in `judging.models` (no row moved)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from judging.models import Campaign, Judge, Label, Pair


class Provider(models.TextChoices):
    OPENAI = "openai", "OpenAI"
    AZURE = "azure", "Azure OpenAI"
    COMPATIBLE = "openai-compatible", "OpenAI-compatible (vLLM, Ollama, LiteLLM, ...)"


class LLMJudge(models.Model):
    """How to call an LLM judge. Keys come from the environment, never from the database."""

    judge = models.OneToOneField(Judge, on_delete=models.CASCADE, related_name="llm")
    provider = models.CharField(max_length=32, choices=Provider.choices, default=Provider.OPENAI)
    base_url = models.URLField(blank=True, default="")
    model = models.CharField(max_length=128, help_text="Model name, or the deployment name on Azure.")
    prompt_version = models.CharField(max_length=32, default="v1")
    temperature = models.FloatField(default=0.0)
    max_concurrency = models.PositiveIntegerField(default=8)
    requests_per_minute = models.PositiveIntegerField(null=True, blank=True)
    tokens_per_minute = models.PositiveIntegerField(null=True, blank=True)
    price_input_per_million = models.DecimalField(max_digits=10, decimal_places=4, default=0)
    price_output_per_million = models.DecimalField(max_digits=10, decimal_places=4, default=0)

    class Meta:
        db_table = "judging_llmjudge"

    def __str__(self) -> str:
        return f"{self.judge.name} ({self.provider}:{self.model})"


class LLMResultStatus(models.TextChoices):
    LABELLED = "labelled", "Labelled"
    PARSE_ERROR = "parse_error", "Parse error"
    ERROR = "error", "Error"
    # Claimed by a worker whose call is in flight; reclaimable once stale (the worker died).
    PENDING = "pending", "Pending"


class LLMResult(models.Model):
    """One (judge, prompt version, unit) result with its call record. Unique: a unit is never paid twice.

    The unit is a support pair (`pair`, `label`), or the unit of another judgment kind (`kind`, `unit_id`: the
    id the kind's PRELABEL gives it, docs/kinds.md; its parsed label in `unit_label`, stored by the kind)."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="llm_results")
    prompt_version = models.CharField(max_length=32)
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="llm_results", null=True, blank=True)
    kind = models.CharField(max_length=16, blank=True, default="", db_default="", help_text="empty for a pair")
    unit_id = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=LLMResultStatus.choices)
    label = models.CharField(max_length=2, choices=Label.choices, blank=True, default="")
    unit_label = models.JSONField(null=True, blank=True, help_text="a kind's unit: the label parsed from the reply")
    raw_output = models.TextField(blank=True, default="")
    error = models.TextField(blank=True, default="")
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    attempts = models.PositiveIntegerField(default=1)
    claim = models.UUIDField(null=True, blank=True, help_text="The task execution that owns a pending call.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "judging_llmresult"
        constraints = [
            models.UniqueConstraint(fields=["judge", "prompt_version", "pair"], name="llmresult_unique"),
            models.UniqueConstraint(
                fields=["judge", "prompt_version", "kind", "unit_id"], name="llmresult_unit_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(pair__isnull=False, kind="", unit_id__isnull=True)
                | (models.Q(pair__isnull=True, unit_id__isnull=False) & ~models.Q(kind="")),
                name="llmresult_pair_or_unit",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="labelled") | ~models.Q(label="") | models.Q(unit_label__isnull=False),
                name="llmresult_labelled_has_label",
            ),
        ]

    def __str__(self) -> str:
        unit = self.pair_id if self.pair_id is not None else f"{self.kind}:{self.unit_id}"
        return f"{self.judge_id}/{self.prompt_version}/{unit}: {self.status} {self.label or self.unit_label or ''}"


class PrelabelMode(models.TextChoices):
    LIVE = "live", "Live calls"
    BATCH = "batch", "Batch API"


class PrelabelStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class PrelabelJob(models.Model):
    """One pre-labelling of a campaign's pairs by an LLM judge; progress is read from its LLMResult rows."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="prelabel_jobs")
    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="prelabel_jobs")
    prompt_version = models.CharField(max_length=32)
    mode = models.CharField(max_length=8, choices=PrelabelMode.choices, default=PrelabelMode.LIVE)
    status = models.CharField(max_length=16, choices=PrelabelStatus.choices, default=PrelabelStatus.PENDING)
    retry_errors = models.BooleanField(default=False, help_text="Also call again the pairs whose call failed.")
    total = models.PositiveIntegerField(default=0)
    chunks = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True, default="")
    batch_id = models.CharField(max_length=128, blank=True, default="")
    batch_status = models.CharField(max_length=32, blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "judging_prelabeljob"
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"prelabel #{self.pk} {self.campaign_id}/{self.judge_id} ({self.status})"
