from __future__ import annotations

from django import forms

MAX_GOLD_BYTES = 20 * 1024 * 1024


class GoldUploadForm(forms.Form):
    gold = forms.FileField(
        label="Gold file",
        help_text="CSV or JSONL: topic_id, run_id, sentence_index, citation_slot, label (FS, PS or NS). "
        "Replaces the campaign's gold items; all or nothing.",
    )

    def clean_gold(self) -> object:
        upload = self.cleaned_data["gold"]
        if upload.size > MAX_GOLD_BYTES:
            raise forms.ValidationError(f"the file is larger than {MAX_GOLD_BYTES // (1024 * 1024)} MB")
        return upload
