"""One line of a TREC RAG run (2024 and 2025 forms), checked as the track's own checker does.

The checks follow ragnarok's `rag24_validation` / `rag25_validation`: where that checker only warns or
fixes, so do we, and what it rejects we reject.
"""

from __future__ import annotations

from typing import Any

from assess.importers.fields import (
    MAX_GROUP,
    MAX_INT,
    MAX_PASSAGE_ID,
    SEGMENT_ID,
    ParsedAnswer,
    Sentences,
    count_words,
    run_id_value,
    sentence_text,
    topic_id_value,
)
from assess.importers.report import Line

MAX_REFERENCES_2024 = 20
MAX_REFERENCES_2025 = 100
MAX_RESPONSE_WORDS = 400


def parse_trec_line(line: Line, obj: dict[str, Any]) -> ParsedAnswer | None:
    """One line of a TREC RAG run. 2024: {run_id, topic_id, topic, references, response_length, answer}, all
    required. 2025: {metadata: {team_id, run_id, narrative_id, narrative, type, prompt}, references, answer},
    where the run and topic may come from the metadata and response_length is optional."""
    n_errors = line.error_count
    metadata: dict[str, Any] = {}
    if "metadata" in obj:
        if not isinstance(obj["metadata"], dict):
            line.error("metadata", "expected an object")
        else:
            metadata = obj["metadata"]
    is_2025 = "metadata" in obj
    run_id = _run_id(line, obj, metadata, is_2025)
    topic_id = _topic_id(line, obj, metadata, is_2025)
    topic_text = _topic_text(line, obj, metadata, is_2025)
    group = metadata.get("team_id")
    if group is not None and (not isinstance(group, str) or len(group) > MAX_GROUP):
        line.error("metadata.team_id", f"expected a string of at most {MAX_GROUP} characters")
        group = None
    references = _references(line, obj, MAX_REFERENCES_2025 if is_2025 else MAX_REFERENCES_2024)
    response_length = _response_length(line, obj, is_2025)
    sentences, words = _answer_sentences(line, obj, references)
    if words > MAX_RESPONSE_WORDS:
        line.warn("answer", f"the answer has {words} words (more than {MAX_RESPONSE_WORDS})")
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
        topic_text=topic_text.strip() if isinstance(topic_text, str) else None,
        references=references or [],
        response_length=response_length,
        sentences=sentences,
        group=group,
    )


def _run_id(line: Line, obj: dict[str, Any], metadata: dict[str, Any], is_2025: bool) -> str | None:
    if "run_id" in obj:
        run_id = run_id_value(line, "run_id", obj["run_id"])
        if run_id is not None and "run_id" in metadata and metadata["run_id"] != obj["run_id"]:
            line.error("metadata.run_id", f"{metadata['run_id']!r} differs from run_id {run_id!r}")
        return run_id
    if "run_id" in metadata:
        return run_id_value(line, "metadata.run_id", metadata["run_id"])
    line.error("metadata.run_id" if is_2025 else "run_id", "missing field")
    return None


def _topic_id(line: Line, obj: dict[str, Any], metadata: dict[str, Any], is_2025: bool) -> str | None:
    if "topic_id" in obj:
        return topic_id_value(line, "topic_id", obj["topic_id"])
    if "narrative_id" in metadata:
        return topic_id_value(line, "metadata.narrative_id", metadata["narrative_id"])
    line.error("metadata.narrative_id" if is_2025 else "topic_id", "missing field")
    return None


def _topic_text(line: Line, obj: dict[str, Any], metadata: dict[str, Any], is_2025: bool) -> Any:
    """The topic's text as the line gives it (checked to be a string; None when it gives none)."""
    if "topic" in obj:
        if not isinstance(obj["topic"], str):
            line.error("topic", f"expected a string, got {obj['topic']!r}")
        return obj["topic"]
    if "narrative" in metadata:
        if not isinstance(metadata["narrative"], str):
            line.error("metadata.narrative", f"expected a string, got {metadata['narrative']!r}")
        return metadata["narrative"]
    if not is_2025:
        line.error("topic", "missing field")
    return None


def _response_length(line: Line, obj: dict[str, Any], is_2025: bool) -> int | None:
    if "response_length" not in obj:
        if not is_2025:
            line.error("response_length", "missing field")
        return None
    value = obj["response_length"]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT:
        line.error("response_length", f"expected a non-negative integer, got {value!r}")
        return None
    return value


def _references(line: Line, obj: dict[str, Any], limit: int) -> list[str] | None:
    """The answer's references, checked; None when there is no list (the citations cannot be checked)."""
    if "references" not in obj:
        line.error("references", "missing field")
        return None
    references = obj["references"]
    if not isinstance(references, list):
        line.error("references", "expected a list of segment ids")
        return None
    seen: dict[str, int] = {}
    odd_ids = 0
    for i, ref in enumerate(references):
        if not isinstance(ref, str):
            line.error(f"references[{i}]", f"expected a string segment id, got {ref!r}")
        elif ref in seen:
            line.error(f"references[{i}]", f"duplicate reference {ref} (also references[{seen[ref]}])")
        elif len(ref) > MAX_PASSAGE_ID or not ref.strip():
            line.error(f"references[{i}]", f"expected a segment id of 1 to {MAX_PASSAGE_ID} characters")
        else:
            seen[ref] = i
            if SEGMENT_ID.match(ref) is None:
                odd_ids += 1
                if odd_ids == 1:
                    line.warn(f"references[{i}]", f"{ref} is not an MS MARCO V2.1 segment id")
    if len(references) > limit:
        line.warn("references", f"{len(references)} references (more than {limit})")
    return references


def _answer_sentences(line: Line, obj: dict[str, Any], references: list[Any] | None) -> tuple[Sentences | None, int]:
    """The answer's sentences with their citations resolved, and the number of words; None on error."""
    if "answer" not in obj:
        line.error("answer", "missing field")
        return None, 0
    answer = obj["answer"]
    if not isinstance(answer, list):
        line.error("answer", "expected a list of sentences")
        return None, 0
    n_errors = line.error_count
    sentences: Sentences = []
    words = 0
    for s, sent in enumerate(answer):
        where = f"answer[{s}]"
        if not isinstance(sent, dict):
            line.error(where, "expected an object {text, citations}")
            continue
        text = sentence_text(line, where, sent)
        if text is None:
            continue
        words += count_words(text)
        if "citations" not in sent:
            line.error(f"{where}.citations", "missing field")
            continue
        cites = sent["citations"]
        if not isinstance(cites, list):
            line.error(f"{where}.citations", "expected a list of reference indexes")
            continue
        sentences.append((text, _sentence_citations(line, where, cites, references)))
    return (sentences if line.error_count == n_errors else None), words


def _sentence_citations(
    line: Line, where: str, cites: list[Any], references: list[Any] | None
) -> list[tuple[int, str]]:
    """(reference index, passage id) of each citation of a sentence, checked against the references."""
    n_refs = len(references) if references is not None else None
    cited: list[tuple[int, str]] = []
    seen: set[int] = set()
    for c, idx in enumerate(cites):
        if isinstance(idx, bool) or not isinstance(idx, int):
            line.error(f"{where}.citations[{c}]", f"expected an integer index, got {idx!r}")
        elif n_refs is None:
            continue  # no references to check against; that error is already reported
        elif not 0 <= idx < n_refs:
            line.error(f"{where}.citations[{c}]", f"citation index {idx} is out of range ({n_refs} references)")
        elif idx in seen:
            # The track's checker warns and drops the repeat; so do we (the first one keeps its slot).
            line.warn(f"{where}.citations[{c}]", f"duplicate citation {idx}; dropped")
        else:
            seen.add(idx)
            ref = references[idx] if references is not None else None
            if isinstance(ref, str):
                cited.append((idx, ref))
    return cited
