"""The sentence kind's rows, read-only (the build makes the pool; judgments are append-only)."""

from __future__ import annotations

from django.contrib import admin
from django.utils.text import Truncator

from core.admin import ReadOnlyAdmin

from .models import SentenceItem, SentenceJudgment


@admin.display(description="text")
def sentence_text(obj: SentenceItem | SentenceJudgment) -> str:
    return Truncator(obj.sentence.text).chars(80)


@admin.register(SentenceItem)
class SentenceItemAdmin(ReadOnlyAdmin):
    list_display = ["pk", "campaign", "topic", "position", "sentence", sentence_text]
    list_filter = ["campaign"]
    search_fields = ["topic__topic_id", "sentence__text"]
    list_select_related = ["campaign", "topic", "sentence"]


@admin.register(SentenceJudgment)
class SentenceJudgmentAdmin(ReadOnlyAdmin):
    list_display = [
        "pk",
        "judge",
        "campaign",
        "condition",
        "sentence",
        sentence_text,
        "worthy",
        "combined",
        "shown_worthy",
        "shown_combined",
        "changed",
        "seconds",
        "created_at",
    ]
    list_filter = ["condition", "worthy", "combined", "changed", "judge__kind", "campaign"]
    search_fields = ["judge__name", "sentence__text"]
    list_select_related = ["judge", "campaign", "sentence"]
