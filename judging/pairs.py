"""Pair identity (DESIGN §2): what is judged is a (sentence text, passage) pair, the text compared after
Unicode NFKC and whitespace normalisation. This module is the one place that computes it; every citation it
pairs has its pair stored (`CitationPair`), and every other path reads the stored pair."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

from django.db import transaction

from assess.models import Citation
from judging.models import CitationPair, Pair

_SPACE = re.compile(r"\s+")
BATCH = 2000


def normalize_sentence_text(text: str) -> str:
    """Unicode NFKC, whitespace runs collapsed to one space, trimmed: how pair identity compares text."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def text_hash(normalized: str) -> str:
    return hashlib.sha256(normalized.encode("utf-8")).hexdigest()


@transaction.atomic
def pairs_for_citations(*, citations: Iterable[Citation]) -> dict[int, Pair]:
    """The pair of each citation (created when new), keyed by citation id, and stored for each citation.

    Each citation must come with `sentence` loaded (select_related) for its text.
    """
    keyed: dict[int, tuple[str, int]] = {}
    wanted: dict[tuple[str, int], str] = {}
    for c in citations:
        normalized = normalize_sentence_text(c.sentence.text)
        key = (text_hash(normalized), c.passage_id)
        keyed[c.pk] = key
        wanted[key] = normalized
    if not wanted:
        return {}
    Pair.objects.bulk_create(
        [Pair(text=t, text_hash=h, passage_id=p) for (h, p), t in wanted.items()],
        ignore_conflicts=True,
        batch_size=BATCH,
    )
    found: dict[tuple[str, int], Pair] = {}
    hashes = list({h for h, _ in wanted})
    for start in range(0, len(hashes), BATCH):
        for pair in Pair.objects.filter(text_hash__in=hashes[start : start + BATCH]):
            found[(pair.text_hash, pair.passage_id)] = pair
    pair_of = {cid: found[key] for cid, key in keyed.items()}
    CitationPair.objects.bulk_create(
        [CitationPair(citation_id=cid, pair_id=pair.pk) for cid, pair in pair_of.items()],
        ignore_conflicts=True,
        batch_size=BATCH,
    )
    return pair_of
