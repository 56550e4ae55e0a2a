"""The one home of a download's file name: `<campaign>-<label set>-<what>-<date>.<ext>`, so two exports of
different campaigns, label sets or days never overwrite each other in a Downloads folder (issue 24).

Every page and API answer that sends a file calls `attachment`; a part that does not apply (a list of passage
ids has no label set) is left out, never filled with a placeholder."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import TypeVar

from django.http import HttpResponseBase
from django.utils import timezone
from django.utils.http import content_disposition_header

ALL_CAMPAIGNS = "all-loaded"  # what a download over everything loaded (no campaign chosen) is called
_UNSAFE = re.compile(r"[^A-Za-z0-9._]+")
R = TypeVar("R", bound=HttpResponseBase)
PART_MAX = 60  # characters a part keeps: a name stays readable and far below any file system's limit


def _part(text: str) -> str:
    """A name part: letters, digits, dots and underscores; every other run of characters one hyphen."""
    return _UNSAFE.sub("-", text).strip("-.")[:PART_MAX].strip("-.")


def label_set_part(specs: Sequence[str]) -> str:
    """`nist` for `nist/none`, `campaign-demo-from_scratch` for `campaign:demo/from_scratch`; several joined
    by `-vs-` (each named once, in order)."""
    unique = list(dict.fromkeys(s.removesuffix("/none") for s in specs if s))
    return "-vs-".join(_part(s) for s in unique)


def download_name(
    *, what: str, ext: str, campaign: str | None = None, label_sets: Sequence[str] = (), on: date | None = None
) -> str:
    """`demo-nist-vs-opus-4.8-nist-scores-2026-12-04.csv`. `campaign=""` is everything loaded; `None`, a
    download that belongs to no campaign."""
    parts = [
        _part(campaign) if campaign else (ALL_CAMPAIGNS if campaign == "" else ""),
        label_set_part(label_sets),
        _part(what),
        (on or timezone.localdate()).isoformat(),
    ]
    return "-".join(p for p in parts if p) + "." + ext.lstrip(".")


def attachment(
    response: R,
    *,
    what: str,
    ext: str,
    campaign: str | None = None,
    label_sets: Sequence[str] = (),
) -> R:
    """The response, sent as a download named by `download_name`."""
    name = download_name(what=what, ext=ext, campaign=campaign, label_sets=label_sets)
    response["Content-Disposition"] = content_disposition_header(True, name) or f'attachment; filename="{name}"'
    return response
