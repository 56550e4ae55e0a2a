"""Admin for LLM judges, their results and pre-label jobs."""

from __future__ import annotations

from django.contrib import admin

from judging.llm.models import LLMJudge, LLMResult, PrelabelJob


@admin.register(LLMJudge)
class LLMJudgeAdmin(admin.ModelAdmin):
    list_display = ["judge", "provider", "model", "prompt_version", "max_concurrency", "requests_per_minute"]
    list_filter = ["provider", "prompt_version"]
    search_fields = ["judge__name", "model"]
    list_select_related = ["judge"]


@admin.register(LLMResult)
class LLMResultAdmin(admin.ModelAdmin):
    list_display = ["judge", "prompt_version", "pair", "status", "label", "latency_ms", "cost", "attempts"]
    list_filter = ["status", "prompt_version", "judge"]
    raw_id_fields = ["pair"]
    list_select_related = ["judge", "pair"]
    readonly_fields = ["raw_output", "error", "claim", "created_at", "updated_at"]


@admin.register(PrelabelJob)
class PrelabelJobAdmin(admin.ModelAdmin):
    list_display = ["pk", "campaign", "judge", "mode", "status", "total", "created_at", "finished_at"]
    list_filter = ["status", "mode"]
    list_select_related = ["campaign", "judge"]
    readonly_fields = ["batch_id", "batch_status", "message", "started_at", "finished_at"]
