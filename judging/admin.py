from __future__ import annotations

from django.contrib import admin

from core.admin import ReadOnlyAdmin
from judging.models import Assignment, Campaign, Judge, Judgment, Pair


@admin.register(Judge)
class JudgeAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "user", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "depth", "post_edit_judge", "highlight_evidence", "built_at"]
    filter_horizontal = ["runs", "topics"]
    readonly_fields = ["built_at", "build_summary"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["assessor", "campaign", "topic", "condition", "order", "status"]
    list_filter = ["campaign", "condition", "status"]
    search_fields = ["assessor__username", "topic__topic_id"]
    raw_id_fields = ["topic"]


@admin.register(Judgment)
class JudgmentAdmin(ReadOnlyAdmin):
    """Read-only: judgments are append-only (a correction is a new row, made on the judging page)."""

    list_display = ["pk", "judge", "pair", "label", "condition", "shown_label", "seconds", "flagged", "created_at"]
    list_filter = ["condition", "label", "flagged", "judge__kind"]
    search_fields = ["judge__name", "comment"]
    list_select_related = ["judge", "pair"]


@admin.register(Pair)
class PairAdmin(admin.ModelAdmin):
    list_display = ["pk", "text", "passage"]
    search_fields = ["text", "passage__passage_id"]
    raw_id_fields = ["passage"]
