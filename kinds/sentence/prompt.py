"""The LLM's combined-support prompt for one sentence (issue 26), versioned as judging.llm.prompt's: a change
to the text is a new version. The model is asked first whether the sentence needs a citation at all
(verification-worthy), then whether all its cited passages *together* support it; the reply is two lines."""

from __future__ import annotations

import re
from collections.abc import Sequence

from judging.llm.parse import label_parse as support_label_parse

PROMPT_VERSION = "sentence-v1"

PROMPT = """You will judge one sentence of a system's answer to a question, and the passages it cites. The answer may read fluently yet contain slight inaccuracies: read closely.

Step 1. Does the sentence need a citation? A sentence needs one when it states a fact that a reader could want to check (verification-worthy). Greetings, transitions, restatements of the question and pure opinions need none.

Step 2 (only if it needs one). Taking ALL the cited passages together, is the sentence supported?
- "Full Support": all of the information in the sentence is supported by the passages together.
- "Partial Support": some of the information is supported, other parts are missing from the passages.
- "No Support": the passages do not support any part of the sentence.
If the sentence needs a citation but cites nothing, answer "No Citations".

Reply with exactly two lines and nothing else:
Needs citation: Yes or No
Support: Full Support, Partial Support, No Support, No Citations, or None (when it needs no citation)

Answer so far: {context}

Sentence: {sentence}

Cited passages:
{passages}"""

_WORTHY = re.compile(r"needs\s+(?:a\s+)?citation\s*[:\-]\s*\W*(yes|no)\b", re.IGNORECASE)
_SUPPORT = re.compile(r"support\s*:\s*(.+)", re.IGNORECASE)
_NO_CITATIONS = re.compile(r"\bno\s+citations?\b", re.IGNORECASE)


def passages_text(passages: Sequence[tuple[str, str]]) -> str:
    """[k] title: text, one passage a paragraph, in the run's order; "(none)" when the sentence cites nothing."""
    if not passages:
        return "(none)"
    return "\n\n".join(f"[{k}] {title}: {text}" for k, (title, text) in enumerate(passages, start=1))


def messages_for(*, sentence: str, passages: Sequence[tuple[str, str]], context: str = "") -> list[dict[str, str]]:
    text = (
        PROMPT.replace("{passages}", passages_text(passages))
        .replace("{context}", context or "(this is the first sentence)", 1)
        .replace("{sentence}", sentence, 1)
    )
    return [{"role": "user", "content": text}]


def label_parse(reply: str) -> tuple[bool, str] | None:
    """(worthy, combined label or "") the reply names, or None: a parse error, never a silent label."""
    worthy = _WORTHY.search(reply)
    if worthy is None:
        return None
    if worthy.group(1).lower() == "no":
        return False, ""
    support = _SUPPORT.search(reply[worthy.end() :])
    if support is None:
        return None
    if _NO_CITATIONS.search(support.group(1)):
        return True, ""
    label = support_label_parse(support.group(1))
    return None if label is None else (True, label)
