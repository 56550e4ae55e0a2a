from __future__ import annotations

from django.contrib import admin

from assess.models import Answer, Citation, ImportJob, Passage, Run, Sentence, Topic


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["topic_id", "text"]
    search_fields = ["topic_id", "text"]


@admin.register(Passage)
class PassageAdmin(admin.ModelAdmin):
    list_display = ["passage_id", "title", "has_text"]
    list_filter = ["has_text"]
    search_fields = ["passage_id", "title"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["run_id", "group", "task", "priority", "source_file", "created_at"]
    list_filter = ["task", "group"]
    search_fields = ["run_id", "group"]


class SentenceInline(admin.TabularInline):
    model = Sentence
    extra = 0
    fields = ["index", "text"]


@admin.register(Answer)
class AnswerAdmin(admin.ModelAdmin):
    list_display = ["run", "topic", "response_length"]
    list_select_related = ["run", "topic"]
    search_fields = ["run__run_id", "topic__topic_id"]
    raw_id_fields = ["run", "topic"]
    inlines = [SentenceInline]


@admin.register(Sentence)
class SentenceAdmin(admin.ModelAdmin):
    list_display = ["answer", "index", "text"]
    raw_id_fields = ["answer"]
    list_select_related = ["answer__run", "answer__topic"]


@admin.register(Citation)
class CitationAdmin(admin.ModelAdmin):
    list_display = ["sentence", "slot", "passage", "reference_index"]
    raw_id_fields = ["sentence", "passage"]


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    list_display = ["pk", "kind", "status", "created_by", "created_at", "finished_at"]
    list_filter = ["kind", "status"]
    readonly_fields = ["errors", "warnings", "summary"]
