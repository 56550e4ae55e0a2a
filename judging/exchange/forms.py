from __future__ import annotations

from django import forms

from assess.forms import MultipleFileField
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.models import Condition, JudgeKind


class JudgmentUploadForm(forms.Form):
    uploads = MultipleFileField(label="Files", help_text="NIST JSONL, or exchange CSV / JSONL; all or nothing.")
    format = forms.ChoiceField(
        choices=[(JudgmentFormat.NIST, "NIST support judgments"), (JudgmentFormat.EXCHANGE, "Judgments exchange")]
    )
    judge = forms.CharField(
        max_length=128, required=False, help_text="Every label's judge (required for NIST; else the judge column)."
    )
    kind = forms.ChoiceField(choices=[("", "human (default)"), *JudgeKind.choices], required=False)
    condition = forms.ChoiceField(choices=[("", "from the file, or none"), *Condition.choices], required=False)
    label_field = forms.CharField(
        max_length=64, required=False, initial="label", help_text="Exchange: the label column."
    )
    run_map = forms.FileField(
        required=False,
        help_text="Optional: two columns, the file's run id and the loaded run id (docs/formats.md).",
    )
    skip_unplaced = forms.BooleanField(
        required=False, help_text="Import what can be placed; list the labels that cannot (default: refuse)."
    )

    def options(self) -> JudgmentImportOptions:
        data = self.cleaned_data
        return JudgmentImportOptions(
            judge=(data.get("judge") or "").strip() or None,
            kind=data.get("kind") or None,
            condition=data.get("condition") or None,
            label_field=(data.get("label_field") or "").strip() or "label",
            skip_unplaced=bool(data.get("skip_unplaced")),
        )
