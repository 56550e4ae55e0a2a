"""Evidence highlight: mark the passage's words and phrases that the sentence shares.

Server-side and escape-safe: the passage is split into words and gaps, every piece is escaped, and only
our own <mark> tags are added."""

from __future__ import annotations

import itertools
import re
import unicodedata

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_WORD = re.compile(r"\w+(?:[.,'\u2019]\w+)*", re.UNICODE)

# Words too common to count as shared evidence on their own (they still join a shared phrase).
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
    ]
)


def _key(word: str) -> str:
    return unicodedata.normalize("NFKC", word).casefold()


def highlight_evidence(passage: str, sentence: str) -> SafeString:
    """The passage as HTML with shared content words, and shared phrases of two or more words, in <mark>."""
    sentence_words = [_key(w) for w in _WORD.findall(sentence)]
    content = {w for w in sentence_words if w not in STOPWORDS}
    bigrams = set(itertools.pairwise(sentence_words))

    matches = list(_WORD.finditer(passage))
    keys = [_key(m.group()) for m in matches]
    marked = [k in content for k in keys]
    for i in range(len(keys) - 1):
        if (keys[i], keys[i + 1]) in bigrams:
            marked[i] = marked[i + 1] = True

    out: list[str] = []
    pos = 0
    i = 0
    while i < len(matches):
        if not marked[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(matches) and marked[j + 1] and passage[matches[j].end() : matches[j + 1].start()].isspace():
            j += 1
        start, end = matches[i].start(), matches[j].end()
        out.append(escape(passage[pos:start]))
        out.append(f"<mark>{escape(passage[start:end])}</mark>")
        pos = end
        i = j + 1
    out.append(escape(passage[pos:]))
    return mark_safe("".join(out))
