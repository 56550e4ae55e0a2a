"""The guidelines a campaign shows its assessors: the default text (Markdown, our own wording of what NIST
asked of the TREC 2024 RAG support assessors, with worked examples of our own), and the one place that
turns a campaign's Markdown into the HTML the judging page shows."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from typing import Any

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

DEFAULT_GUIDELINES = """\
## What you are judging

A computer system answered a question in several sentences, and for each sentence it named a web passage as
its source. You see **one sentence and one passage it cites** at a time. Decide whether the passage backs up
what the sentence says.

You are *not* asked whether the sentence needed a source, whether it is true in the world, or whether it
answers the question well.

## Read the sentence in its answer

The whole answer is shown with the sentence in **bold**. Use it to understand the sentence: what "it" or
"they" refers to, or what was said just before.

## The test

Ask yourself: is it accurate to say *"According to the passage, ..."* followed by the sentence?
Check **every** piece of information in the sentence (names, numbers, dates, places, causes), not only its
main point.

| answer | key | when |
|---|---|---|
| **Full support** | `1` or `f` | everything the sentence states can be found in the passage |
| **Partial support** | `2` or `p` | some of what it states is in the passage, other parts are not |
| **No support** | `3` or `n` | the passage backs up no part of the sentence |
| Cannot judge | `0` or `s` | you cannot read or understand the pair; choose the reason beside the button |

## Worked examples

### Full support
- **Sentence:** *The Eiffel Tower was finished in 1889 for the World's Fair held in Paris.*
- **Passage:** Built for the Exposition Universelle of 1889 in Paris, the Eiffel Tower was completed in March
  of that year.
- **Why:** every part is in the passage: the year, the fair, the city. "World's Fair" and "Exposition
  Universelle" name the same event; the words need not be the same.

### Partial support
- **Sentence:** *Honeybees tell each other where flowers are with a waggle dance, first decoded by Karl von
  Frisch in 1927.*
- **Passage:** Forager honeybees perform a waggle dance that tells their nestmates the direction and
  distance of a food source.
- **Why:** the dance is supported; who decoded it, and when, is not in the passage.

### No support
- **Sentence:** *Vitamin C cuts the length of a common cold in half.*
- **Passage:** Vitamin C is found in citrus fruits, peppers and broccoli, and the body cannot make it on its
  own.
- **Why:** the passage is about vitamin C but says nothing about colds. Being on the same subject is not
  support.

### A small error: that part is not supported
- **Sentence:** *The Great Fire of London began in 1766 and destroyed about 13,200 houses.*
- **Passage:** The fire of September 1666 burned 13,200 houses and 87 parish churches.
- **Why:** Partial support. The houses are supported, the year is wrong. With "1666" it would be Full
  support.

### Read the sentence in its answer
- **Answer:** Marie Curie moved to Paris in 1891. **She won the Nobel Prize in Chemistry in 1911.**
- **Passage:** In 1911 Marie Curie received the Nobel Prize in Chemistry.
- **Why:** "she" is Marie Curie (the sentence before says so): Full support.

## Things to keep in mind

- The answers read smoothly and sound confident, yet contain small errors: a wrong year, a number slightly
  off, a name swapped. Read closely, as if you were proofreading.
- Judge each passage on its own: whether another passage supports the same sentence does not matter here.
- Ignore whether the sentence or the passage is on topic for the question: support is a separate matter.
- When the same sentence and the same passage come back, give them the same answer.
- Some cases are grey. Make your best call from what the passage says and what the sentence says, and apply
  the same standard every time.

## Working on the page

- One key stores your answer and shows the next pair. `u` or Backspace goes back to the previous pair so you
  can change your answer; the earlier answer is kept in the history. `l` lists your judgments in the topic.
- `x` flags a pair for an organizer, with a short comment (unreadable passage, broken sentence, a question);
  then give your best answer as usual.
- `g` opens and closes these guidelines; `Esc` closes them too.
- Only active time is counted: time with the page hidden or with no activity for over a minute is not.
"""


def _link_open(renderer: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    # A link in the guidelines opens in a new tab, so the card (and its keys) stay where they are.
    tokens[idx].attrSet("target", "_blank")
    tokens[idx].attrSet("rel", "noopener noreferrer")
    return str(renderer.renderToken(tokens, idx, options, env))


@functools.cache
def _markdown() -> MarkdownIt:
    # CommonMark with tables, and raw HTML off: any HTML in the text is shown as text, never run. markdown-it's
    # own link check refuses javascript:, vbscript:, file: and data: (except images) URLs.
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")
    md.add_render_rule("link_open", _link_open)
    return md


def guidelines_html(text: str) -> SafeString:
    """A campaign's guidelines (Markdown) as safe HTML."""
    # Safe: raw HTML is disabled above, so every tag in the output is markdown-it's own.
    return mark_safe(_markdown().render(text or ""))


def guidelines_version(text: str) -> str:
    """What an assessor is recorded as having read: changed guidelines are shown again at the start."""
    return hashlib.sha256((text or "").encode()).hexdigest()
