"""The LLM pre-labeller's prompt for relevance: UMBRELA's.

UMBRELA (Upadhyay, Pradeep, Thakur, Craswell and Lin, "UMBRELA: UMbrela is the (Open-Source Reproduction of the)
Bing RELevance Assessor", arXiv 2406.06519, 2024) reproduces with open tools the prompt Thomas et al. used at
Bing (Thomas, Spielman, Craswell and Mitra, "Large language models can accurately predict searcher
preferences", SIGIR 2024): a zero-shot prompt that asks for a 0-3 grade with the scale's definitions, a
step-by-step instruction (intent, match M, trustworthiness T, final score O), and the answer written as
`##final score: N`. The text below is written from the paper's description of the prompt (its Figure 1); the
reference implementation is castorini/umbrela (`qrel_zeroshot_bing.txt`), of which no code is copied here. The
TREC 2024 RAG track's UMBRELA grades (data/trec-rag-2024/segments/*.qrels.txt) were made with it.
"""

from __future__ import annotations

import re

from assess.models import Passage

PROMPT_VERSION = "umbrela-bing-zeroshot-1"

PROMPT = """Given a query and a passage, you must provide a score on an integer scale of 0 to 3 with the following meanings:
0 = represent that the passage has nothing to do with the query,
1 = represents that the passage seems related to the query but does not answer it,
2 = represents that the passage has some answer for the query, but the answer may be a bit unclear, or hidden amongst extraneous information and
3 = represents that the passage is dedicated to the query and contains the exact answer.

Important Instruction: Assign category 1 if the passage is somewhat related to the topic but not completely, category 2 if passage presents something very important related to the entire topic but also has some extra information and category 3 if the passage only and entirely refers to the topic. If none of the above satisfies give it category 0.

Query: {query}
Passage: {passage}

Split this problem into steps:
Consider the underlying intent of the search.
Measure how well the content matches a likely intent of the query (M).
Measure how trustworthy the passage is (T).
Consider the aspects above and the relative importance of each, and decide on a final score (O). Final score must be an integer value only.
Do not provide any code in result. Provide each score in the format of: ##final score: score without providing any reasoning."""

# The last `##final score: N` of the reply (a model may restate the format before answering).
_FINAL = re.compile(r"##\s*final\s+score\s*:\s*\**\s*(-?\d+)", re.IGNORECASE)


def passage_text(passage: Passage) -> str:
    return passage.citation_text if passage.title else passage.text


def messages_for(query: str, passage: Passage) -> list[dict[str, str]]:
    """The chat messages asking for one (topic, passage)'s grade: UMBRELA's prompt as one user message."""
    return [{"role": "user", "content": PROMPT.format(query=query.strip(), passage=passage_text(passage).strip())}]


def label_parse(reply: str) -> int | None:
    """The grade of a reply `... ##final score: N`: 0 to 3, or None (a parse error, never a made-up grade) when
    the reply has no such line or its number is out of the scale."""
    found = _FINAL.findall(reply or "")
    if not found:
        return None
    grade = int(found[-1])
    return grade if 0 <= grade <= 3 else None
