from __future__ import annotations

from django.contrib import admin

from metrics.study.models import Study, StudyItem


class StudyItemInline(admin.TabularInline):
    model = StudyItem
    extra = 0
    fields = ["topic", "pair", "citation", "label_a", "label_b", "order"]
    raw_id_fields = ["pair", "citation"]


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["pk", "campaign", "a", "b", "per_topic", "seed", "second_judge"]
    list_select_related = ["campaign", "second_judge"]
    inlines = [StudyItemInline]
