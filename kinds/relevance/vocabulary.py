"""The relevance grades, NIST's and UMBRELA's 0-3 scale (data/trec-rag-2024/SOURCES.md; Upadhyay et al., 2024,
who took it from Thomas et al.'s Bing prompt). A grade's name is its digit, as qrels write it; its weight is
its gain in nDCG (the grade itself, as trec_eval and ir_measures take a qrels grade)."""

from __future__ import annotations

from judging.vocabulary import Term, Vocabulary

RELEVANCE = Vocabulary(
    kind="relevance",
    terms=(
        Term(name="0", title="Irrelevant", weight=0.0),
        Term(name="1", title="Related", weight=1.0),
        Term(name="2", title="Highly relevant", weight=2.0),
        Term(name="3", title="Perfectly relevant", weight=3.0),
    ),
)

# What each grade means, in the words of the scale's definition (the card's key help and the LLM prompt).
MEANING: dict[str, str] = {
    "0": "the passage has nothing to do with the question",
    "1": "the passage seems related to the question but does not answer it",
    "2": "the passage has some answer for the question, but the answer may be a bit unclear, or hidden amongst "
    "extraneous information",
    "3": "the passage is dedicated to the question and contains the exact answer",
}

GRADES = tuple(int(name) for name in RELEVANCE.names)  # 0, 1, 2, 3
