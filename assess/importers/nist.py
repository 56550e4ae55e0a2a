"""The one reader of NIST's support-judgment JSONL: per line, the answer and the labels of its citations.

A line is `{topic_id, run_id, sentences:[{sentenceID|sentenceId, text, citations:[{citationID|citationId,
reference, support}]}]}`. The answer's references are the cited passages in order of first citation. The
run import writes the answers; the judgment import (`judging.exchange`) reads the labels, and writes the
answers it needs that are not loaded yet. Both read the file through `nist_lines`, once.
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
class NistLine:
    line: Line
    run_id: str
    topic_id: str
    answer: ParsedAnswer | None  # None when the line has an error
    labels: list[NistLabel]


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
    return NistLine(line=line, run_id=run_id, topic_id=topic_id, answer=parsed, labels=answer.labels)


@dataclass
class _NistAnswer:
    """The sentences of one line as they are read, with the references in order of first citation."""

    line: Line
    references: list[str] = field(default_factory=list)
    ref_index: dict[str, int] = field(default_factory=dict)
    by_index: dict[int, tuple[str, list[tuple[int, str]]]] = field(default_factory=dict)
    labels: list[NistLabel] = field(default_factory=list)

    def add_sentence(self, s: int, sent: dict[str, Any], checked_text: str | None) -> None:
        line, where = self.line, f"sentences[{s}]"
        id_key = "sentenceID" if "sentenceID" in sent else "sentenceId"
        sid = sent.get(id_key, s)
        if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0:
            line.error(f"{where}.{id_key}", f"expected a non-negative integer, got {sid!r}")
            return
        if sid in self.by_index:
            line.error(f"{where}.{id_key}", f"sentence {sid} appears twice")
            return
        text = sentence_text(line, where, checked_text)
        cites = sent.get("citations", [])
        cited: list[tuple[int, str]] = []
        seen_refs: dict[str, int] = {}
        for c, cit in enumerate(cites):
            ref = self._reference(f"{where}.citations[{c}]", cit, seen_refs)
            if ref is None:
                continue
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

    def _reference(self, where: str, cit: dict[str, Any], seen_refs: dict[str, int]) -> str | None:
        """The cited passage id (its type and length checked by the schema): not twice in one sentence."""
        line = self.line
        ref = str(cit["reference"]).strip()
        if ref in seen_refs:
            line.error(f"{where}.reference", f"duplicate reference {ref} (also citations[{seen_refs[ref]}])")
            return None
        return ref
