"""The one reader of NIST's support-judgment JSONL: per line, the answer and the labels of its citations.

A line is `{topic_id, run_id, sentences:[{sentenceID|sentenceId, [verification_worthy, citationsCombibed,]
text, citations:[{citationID|citationId, reference, support}]}]}`. The answer's references are the cited
passages in order of first citation. The run import writes the answers; the judgment import
(`judging.exchange`) reads the labels and what the file says of each sentence (`NistSentenceRead`: the key
spelling, `verification_worthy`, `citationsCombibed` and NIST's `citationId`s, so that the export can write
the file back as it came), and writes the answers it needs that are not loaded yet. Both read the file
through `nist_lines`, once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from assess.importers.fields import ParsedAnswer, sentence_text
from assess.importers.lines import InputFile, ProgressCallback, read_json_lines
from assess.importers.report import ImportReport, Line
from assess.importers.schema import NistSupportLine, line_check


@dataclass(frozen=True)
class NistLabel:
    """One citation's label as the file writes it; the run import does not read it."""

    sentence_index: int
    reference: str
    support: Any  # as written; NIST's values are "2", "1", "0" and "-1" (checked by the judgment import)
    field: str  # where the support is: sentences[s].citations[c].support
    sentence_field: str  # where the sentence's id is: sentences[s].sentenceID (or .sentenceId, as the file spells it)


@dataclass(frozen=True)
class NistSentenceRead:
    """What the file says of one sentence beside the labels, as written (values checked, not translated)."""

    sentence_index: int
    keys: str  # "sentenceId" (Webassess: citationId indexes the references) or "sentenceID" (2024-10-25 files)
    verification_worthy: str  # "0", "1", or "" when the file has no such field
    citations_combined: str  # citationsCombibed (NIST's spelling): "-1", "0", "1", "2", or "" when absent
    citations: list[tuple[int | None, str]]  # (citationId as written, or None; reference), in the file's order
    field: str  # where the sentence is: sentences[s]


@dataclass(frozen=True)
class NistLine:
    line: Line
    run_id: str
    topic_id: str
    answer: ParsedAnswer | None  # None when the line has an error
    labels: list[NistLabel]
    sentences: list[NistSentenceRead]


def nist_lines(
    report: ImportReport,
    f: InputFile,
    *,
    topics: frozenset[str] | None = None,
    progress: ProgressCallback | None = None,
    offset: int = 0,
    total: int | None = None,
) -> Iterator[NistLine]:
    """Each line of a NIST file with a valid run and topic; lines of topics not in `topics` are skipped
    unchecked past their run and topic. Every problem is recorded in `report` with file, line and field."""
    for line, obj in read_json_lines(report, f, progress=progress, offset=offset, total=total):
        parsed = parse_nist_line(line, obj, topics=topics)
        if parsed is not None:
            yield parsed


def parse_nist_line(line: Line, obj: dict[str, Any], *, topics: frozenset[str] | None = None) -> NistLine | None:
    """The line checked against `schema.NistSupportLine` (types, lengths, control characters), then read."""
    shape = line_check(line, NistSupportLine, obj)
    if shape is None:
        return None
    n_errors = line.error_count
    run_id, topic_id = shape.run_id, shape.topic_id
    if topics is not None and topic_id not in topics:
        return None
    answer = _NistAnswer(line)
    for s, sent in enumerate(obj["sentences"]):
        answer.add_sentence(s, sent, shape.sentences[s].text)
    by_index = answer.by_index
    if by_index and sorted(by_index) != list(range(len(by_index))):
        line.error("sentences", f"sentence ids are not 0..{len(by_index) - 1}: {sorted(by_index)}")
    parsed = None
    if line.error_count == n_errors:
        parsed = ParsedAnswer(
            line=line.number or 0,
            run_id=run_id,
            topic_id=topic_id,
            topic_text=None,
            references=answer.references,
            response_length=None,
            sentences=[by_index[i] for i in sorted(by_index)],
        )
    return NistLine(
        line=line, run_id=run_id, topic_id=topic_id, answer=parsed, labels=answer.labels, sentences=answer.sentences
    )


@dataclass
class _NistAnswer:
    """The sentences of one line as they are read, with the references in order of first citation."""

    line: Line
    references: list[str] = field(default_factory=list)
    ref_index: dict[str, int] = field(default_factory=dict)
    by_index: dict[int, tuple[str, list[tuple[int, str]]]] = field(default_factory=dict)
    labels: list[NistLabel] = field(default_factory=list)
    sentences: list[NistSentenceRead] = field(default_factory=list)

    def add_sentence(self, s: int, sent: dict[str, Any], checked_text: str | None) -> None:
        line, where = self.line, f"sentences[{s}]"
        id_key = "sentenceID" if "sentenceID" in sent else "sentenceId"
        keys = id_key if id_key in sent else _keys_of_citations(sent.get("citations"))
        sid = sent.get(id_key, s)
        if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0:
            line.error(f"{where}.{id_key}", f"expected a non-negative integer, got {sid!r}")
            return
        if sid in self.by_index:
            line.error(f"{where}.{id_key}", f"sentence {sid} appears twice")
            return
        text = sentence_text(line, where, checked_text)
        worthy = _code(line, f"{where}.verification_worthy", sent.get("verification_worthy"), ("0", "1"))
        combined = _code(line, f"{where}.citationsCombibed", sent.get("citationsCombibed"), ("-1", "0", "1", "2"))
        cites = sent.get("citations", [])
        cited: list[tuple[int, str]] = []
        nist_citations: list[tuple[int | None, str]] = []
        seen_refs: dict[str, int] = {}
        for c, cit in enumerate(cites):
            ref = self._reference(f"{where}.citations[{c}]", cit, seen_refs)
            if ref is None:
                continue
            citation_id = _citation_id(line, f"{where}.citations[{c}]", cit)
            nist_citations.append((citation_id, ref))
            seen_refs[ref] = c
            if ref not in self.ref_index:
                self.ref_index[ref] = len(self.references)
                self.references.append(ref)
            cited.append((self.ref_index[ref], ref))
            self.labels.append(
                NistLabel(
                    sentence_index=sid,
                    reference=ref,
                    support=cit.get("support"),
                    field=f"{where}.citations[{c}].support",
                    sentence_field=f"{where}.{id_key}",
                )
            )
        self.by_index[sid] = (text, cited)
        if worthy is not None and combined is not None:
            self.sentences.append(
                NistSentenceRead(
                    sentence_index=sid,
                    keys=keys,
                    verification_worthy=worthy,
                    citations_combined=combined,
                    citations=nist_citations,
                    field=where,
                )
            )

    def _reference(self, where: str, cit: dict[str, Any], seen_refs: dict[str, int]) -> str | None:
        """The cited passage id (its type and length checked by the schema): not twice in one sentence."""
        line = self.line
        ref = str(cit["reference"]).strip()
        if ref in seen_refs:
            line.error(f"{where}.reference", f"duplicate reference {ref} (also citations[{seen_refs[ref]}])")
            return None
        return ref


def _keys_of_citations(cites: Any) -> str:
    """A sentence without an id key: the spelling its citations use, else the 2024-10-25 one."""
    if isinstance(cites, list) and any(isinstance(c, dict) and "citationId" in c for c in cites):
        return "sentenceId"
    return "sentenceID"


def _code(line: Line, where: str, value: Any, allowed: tuple[str, ...]) -> str | None:
    """One of NIST's string codes ("" when the field is absent); NIST writes them as strings, a number is
    accepted. None, with an error, for anything else."""
    if value is None:
        return ""
    code = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(code, str) or code.strip() not in allowed:
        line.error(where, f"expected one of {', '.join(repr(a) for a in allowed)}, got {value!r}")
        return None
    return code.strip()


def _citation_id(line: Line, where: str, cit: dict[str, Any]) -> int | None:
    """NIST's citationID / citationId as written (None when absent): a non-negative integer."""
    key = "citationID" if "citationID" in cit else "citationId"
    value = cit.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        line.error(f"{where}.{key}", f"expected a non-negative integer, got {value!r}")
        return None
    return value
