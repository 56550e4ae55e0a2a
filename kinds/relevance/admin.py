"""The relevance kind's rows, read-only (settings made with the campaign, the pool by its build, judgments
append-only). Imported and LLM grades are not here: they are assess's Relevance rows, one source per name."""

from __future__ import annotations

from django.contrib import admin

from core.admin import ReadOnlyAdmin

from .models import RelevanceItem, RelevanceJudgment, RelevanceSettings


@admin.register(RelevanceSettings)
class RelevanceSettingsAdmin(ReadOnlyAdmin):
    list_display = ["campaign", "pool", "pool_source", "depth"]
    list_filter = ["pool"]
    list_select_related = ["campaign"]


@admin.register(RelevanceItem)
class RelevanceItemAdmin(ReadOnlyAdmin):
    list_display = ["pk", "campaign", "topic", "position", "passage"]
    list_filter = ["campaign"]
    search_fields = ["topic__topic_id", "passage__passage_id"]
    list_select_related = ["campaign", "topic", "passage"]


@admin.register(RelevanceJudgment)
class RelevanceJudgmentAdmin(ReadOnlyAdmin):
    list_display = ["pk", "judge", "item", "condition", "grade", "shown_grade", "changed", "seconds", "created_at"]
    list_filter = ["condition", "grade", "changed", "judge__kind", "item__campaign"]
    search_fields = ["judge__name", "item__passage__passage_id"]
    list_select_related = ["judge", "item"]
