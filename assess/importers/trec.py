"""One line of a TREC RAG run (2024 and 2025 forms), checked as the track's own checker does.

The checks follow ragnarok's `rag24_validation` / `rag25_validation`: where that checker only warns or
fixes, so do we, and what it rejects we reject.
"""

from __future__ import annotations

from typing import Any

from assess.importers.fields import SEGMENT_ID, ParsedAnswer, Sentences, count_words, sentence_text
from assess.importers.report import Line
from assess.importers.schema import RunMetadata, RunSentence, TrecRun2025Line, TrecRunLine, line_check

MAX_REFERENCES_2024 = 20
MAX_REFERENCES_2025 = 100
MAX_RESPONSE_WORDS = 400


def parse_trec_line(line: Line, obj: dict[str, Any]) -> ParsedAnswer | None:
    """One line of a TREC RAG run. 2024: {run_id, topic_id, topic, references, response_length, answer}, all
    required. 2025: {metadata: {team_id, run_id, narrative_id, narrative, type, prompt}, references, answer},
    where the run and topic may come from the metadata and response_length is optional. The shape and
    every value are checked by `schema.TrecRunLine`; what follows checks the line as a whole."""
    is_2025 = "metadata" in obj
    shape = line_check(line, TrecRun2025Line if is_2025 else TrecRunLine, obj)
    if shape is None:
        return None
    n_errors = line.error_count
    metadata = shape.metadata or RunMetadata()
    run_id = _run_id(line, shape, metadata, is_2025)
    topic_id = _topic_id(line, shape, metadata, is_2025)
    topic_text = _topic_text(line, shape, metadata, is_2025)
    references = _references(line, shape.references, MAX_REFERENCES_2025 if is_2025 else MAX_REFERENCES_2024)
    sentences, words = _answer_sentences(line, shape.answer, references)
    if words > MAX_RESPONSE_WORDS:
        line.warn("answer", f"the answer has {words} words (more than {MAX_RESPONSE_WORDS})")
    response_length = shape.response_length
    if response_length is not None and sentences is not None and response_length != words:
        line.warn(
            "response_length",
            f"says {response_length} words; the sentences have {words} (NFKC-normalised, split on whitespace)",
        )
    if line.error_count > n_errors or run_id is None or topic_id is None or sentences is None:
        return None
    return ParsedAnswer(
        line=line.number or 0,
        run_id=run_id,
        topic_id=topic_id,
        topic_text=topic_text.strip() if topic_text is not None else None,
        references=references,
        response_length=response_length,
        sentences=sentences,
        group=metadata.team_id,
    )


def _run_id(line: Line, shape: TrecRun2025Line, metadata: RunMetadata, is_2025: bool) -> str | None:
    if shape.run_id is not None:
        if metadata.run_id is not None and metadata.run_id != shape.run_id:
            line.error("metadata.run_id", f"{metadata.run_id!r} differs from run_id {shape.run_id!r}")
        return shape.run_id
    if metadata.run_id is not None:
        return metadata.run_id
    line.error("metadata.run_id" if is_2025 else "run_id", "missing field")
    return None


def _topic_id(line: Line, shape: TrecRun2025Line, metadata: RunMetadata, is_2025: bool) -> str | None:
    if shape.topic_id is not None:
        return shape.topic_id
    if metadata.narrative_id is not None:
        return metadata.narrative_id
    line.error("metadata.narrative_id" if is_2025 else "topic_id", "missing field")
    return None


def _topic_text(line: Line, shape: TrecRun2025Line, metadata: RunMetadata, is_2025: bool) -> str | None:
    """The topic's text as the line gives it (None when it gives none)."""
    if shape.topic is not None:
        return shape.topic
    if metadata.narrative is not None:
        return metadata.narrative
    if not is_2025:
        line.error("topic", "missing field")
    return None


def _references(line: Line, references: list[str], limit: int) -> list[str]:
    """The answer's references (each a valid segment id, checked by the schema): no id twice."""
    seen: dict[str, int] = {}
    odd_ids = 0
    for i, ref in enumerate(references):
        if ref in seen:
            line.error(f"references[{i}]", f"duplicate reference {ref} (also references[{seen[ref]}])")
            continue
        seen[ref] = i
        if SEGMENT_ID.match(ref) is None:
            odd_ids += 1
            if odd_ids == 1:
                line.warn(f"references[{i}]", f"{ref} is not an MS MARCO V2.1 segment id")
    if len(references) > limit:
        line.warn("references", f"{len(references)} references (more than {limit})")
    return references


def _answer_sentences(line: Line, answer: list[RunSentence], references: list[str]) -> tuple[Sentences | None, int]:
    """The answer's sentences with their citations resolved, and the number of words; None on error."""
    n_errors = line.error_count
    sentences: Sentences = []
    words = 0
    for s, sent in enumerate(answer):
        where = f"answer[{s}]"
        text = sentence_text(line, where, sent.text)
        words += count_words(text)
        sentences.append((text, _sentence_citations(line, where, sent.citations, references)))
    return (sentences if line.error_count == n_errors else None), words


def _sentence_citations(line: Line, where: str, cites: list[int], references: list[str]) -> list[tuple[int, str]]:
    """(reference index, passage id) of each citation of a sentence, checked against the references."""
    n_refs = len(references)
    cited: list[tuple[int, str]] = []
    seen: set[int] = set()
    for c, idx in enumerate(cites):
        if not 0 <= idx < n_refs:
            line.error(f"{where}.citations[{c}]", f"citation index {idx} is out of range ({n_refs} references)")
        elif idx in seen:
            # The track's checker warns and drops the repeat; so do we (the first one keeps its slot).
            line.warn(f"{where}.citations[{c}]", f"duplicate citation {idx}; dropped")
        else:
            seen.add(idx)
            cited.append((idx, references[idx]))
    return cited
