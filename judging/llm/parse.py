"""Reading a label out of the model's reply: case, quotes and punctuation do not matter; order is Full, Partial, No."""

from __future__ import annotations

import re

from judging.vocabulary import SUPPORT

_NOT_WORD = re.compile(r"[^a-z]+")
# Checked in this order: "No Support" never hides inside "Full Support", but a reply naming several
# labels takes the first of Full, Partial, No, as the track's script did.
_LABELS = tuple((SUPPORT.titles[label].lower(), label) for label in SUPPORT.highest_first)


def label_parse(text: str) -> str | None:
    """The label code (FS, PS, NS) the reply names, or None: a parse error, never silently No support."""
    words = f" {_NOT_WORD.sub(' ', text.lower()).strip()} "
    for phrase, label in _LABELS:
        if f" {phrase} " in words:
            return str(label)
    return None
