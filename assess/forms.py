from __future__ import annotations

from pathlib import Path
from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile

from assess.importers.runs import RunFormat
from assess.models import ImportKind, Task


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    widget = MultipleFileInput

    def clean(self, data: Any, initial: Any = None) -> list[UploadedFile]:
        single = super().clean
        items = [d for d in (data if isinstance(data, (list, tuple)) else [data]) if d]
        if not items:
            single(None, initial)  # raises "required" when the field is required
            return []
        return [single(d, initial) for d in items]


UPLOAD_KIND_CHOICES = [
    (ImportKind.TOPICS.value, "Topics (TSV or JSONL)"),
    (ImportKind.PASSAGES.value, "Passages (MS MARCO V2.1 segments, .jsonl or .gz)"),
    (ImportKind.RUNS.value, "Runs"),
]
RUN_FORMAT_CHOICES = [
    (RunFormat.TREC, "TREC RAG 2024/2025 run JSONL"),
    (RunFormat.NIST, "NIST support-judgment JSONL (runs, answers and citations only)"),
]


def run_options(
    *, fmt: str | None, group: str | None, task: str | None, priority: int | None, replace: bool
) -> dict[str, Any]:
    """The options a runs ImportJob stores; the form and the API build them the same way."""
    return {
        "format": fmt or RunFormat.TREC,
        "group": (group or "").strip() or None,
        "task": task or None,
        "priority": priority,
        "replace": bool(replace),
    }


class UploadForm(forms.Form):
    kind = forms.ChoiceField(choices=UPLOAD_KIND_CHOICES, initial=ImportKind.RUNS.value)
    uploads = MultipleFileField(
        label="Files", help_text="One or more files; all of them are imported together, all or nothing."
    )
    format = forms.ChoiceField(choices=RUN_FORMAT_CHOICES, initial=RunFormat.TREC, required=False, label="Run format")
    group = forms.CharField(
        max_length=128, required=False, help_text="The team; default: metadata.team_id or the run id's prefix."
    )
    task = forms.ChoiceField(choices=[("", "RAG (default)"), *Task.choices], required=False)
    priority = forms.IntegerField(min_value=1, required=False, help_text="1 = the group's highest-priority run")
    replace = forms.BooleanField(required=False, help_text="Replace runs that are already loaded.")

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        if data["kind"] != ImportKind.RUNS:
            return {}
        return run_options(
            fmt=data.get("format"),
            group=data.get("group"),
            task=data.get("task"),
            priority=data.get("priority"),
            replace=data.get("replace", False),
        )


class CorpusFillForm(forms.Form):
    corpus_dir = forms.CharField(
        max_length=1024,
        label="Corpus directory on the server",
        help_text="A directory of msmarco_v2.1_doc_segmented_XX.json shards, plain or gzipped (.json.gz, as distributed).",
    )

    def clean_corpus_dir(self) -> str:
        value: str = self.cleaned_data["corpus_dir"].strip()
        if not Path(value).is_dir():
            raise forms.ValidationError("no such directory on the server")
        return value
