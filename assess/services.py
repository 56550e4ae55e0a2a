"""Writes for the material under assessment: topic, passage and run imports (DESIGN §7).

Every import streams its files line by line and writes in batches inside one transaction. Errors are
collected for the whole input; if there is any, the transaction is rolled back and nothing changes.
Warnings are reported and the input is imported.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction

from assess.models import Answer, Citation, Passage, Run, Sentence, Task, Topic
from assess.reading import (
    FileUnreadable,
    ImportRejected,
    ImportReport,
    ProgressCallback,
    display_name,
    files_total_size,
    iter_lines,
    read_json_lines,
)

BATCH_ANSWERS = 500
BATCH_PASSAGES = 2000
MAX_REFERENCES_2024 = 20
MAX_REFERENCES_2025 = 100


@dataclass(frozen=True)
class InputFile:
    """A file to import and the name its messages use (the upload's name, not the stored path)."""

    path: Path
    name: str

    @classmethod
    def of(cls, path: str | Path, name: str | None = None) -> InputFile:
        return cls(Path(path), display_name(path, name))


def _as_inputs(files: Iterable[InputFile | str | Path]) -> list[InputFile]:
    return [f if isinstance(f, InputFile) else InputFile.of(f) for f in files]


def _reject_if_errors(report: ImportReport) -> None:
    if report.errors:
        raise ImportRejected(report)


# --- topics ---------------------------------------------------------------------------------------


def topics_import(*, files: Iterable[InputFile | str | Path], progress: ProgressCallback | None = None) -> ImportReport:
    """Import topics from TSV (`id<TAB>text`, the track's topics file) or JSONL (`{topic_id, text}`)."""
    inputs = _as_inputs(files)
    report = ImportReport()
    rows: dict[str, str] = {}
    where: dict[str, tuple[str, int]] = {}
    total, offset = files_total_size([f.path for f in inputs]), 0
    for f in inputs:
        for number, topic_id, text in _topic_rows(report, f, progress, offset, total):
            if topic_id in where and rows[topic_id] != text:
                first_file, first_line = where[topic_id]
                report.error(
                    f.name,
                    number,
                    "topic_id",
                    f"topic {topic_id!r} appears again with another text (first at {first_file}:{first_line})",
                )
                continue
            rows[topic_id] = text
            where.setdefault(topic_id, (f.name, number))
        offset += f.path.stat().st_size
    if not rows and not report.errors:
        report.error(inputs[0].name if inputs else "", None, "", "no topics found")
    _reject_if_errors(report)
    with transaction.atomic():
        existing = set(Topic.objects.filter(topic_id__in=rows).values_list("topic_id", flat=True))
        Topic.objects.bulk_create(
            [Topic(topic_id=t, text=x) for t, x in rows.items()],
            update_conflicts=True,
            unique_fields=["topic_id"],
            update_fields=["text"],
            batch_size=1000,
        )
    report.add("topics", len(rows))
    report.add("topics_new", len(rows) - len(existing))
    return report


def _topic_rows(
    report: ImportReport, f: InputFile, progress: ProgressCallback | None, offset: int, total: int
) -> Iterator[tuple[int, str, str]]:
    try:
        for number, line in iter_lines(f.path, progress=progress, offset=offset, total=total):
            if not line.strip():
                continue
            if line.lstrip().startswith("{"):
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    report.error(f.name, number, "", f"invalid JSON: {exc.msg} at column {exc.colno}")
                    continue
                topic_id = _first_present(obj, ("topic_id", "qid", "id"))
                text = _first_present(obj, ("text", "topic", "query", "title"))
                if topic_id is None:
                    report.error(f.name, number, "topic_id", "missing field (topic_id, qid or id)")
                    continue
                if not isinstance(text, str):
                    report.error(f.name, number, "text", "missing field or not a string")
                    continue
                yield number, str(topic_id).strip(), text.strip()
            else:
                parts = line.split("\t", 1)
                if len(parts) != 2 or not parts[0].strip():
                    report.error(f.name, number, "topic_id", "expected `topic_id<TAB>text` or a JSON object")
                    continue
                yield number, parts[0].strip(), parts[1].strip()
    except FileUnreadable as exc:
        report.error(f.name, exc.line, "", exc.text)


def _first_present(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in obj and obj[key] is not None:
            return obj[key]
    return None


# --- passages -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PassageRow:
    passage_id: str
    text: str
    title: str = ""
    url: str = ""
    headings: str = ""


def passages_import(
    *, files: Iterable[InputFile | str | Path], progress: ProgressCallback | None = None
) -> ImportReport:
    """Load passage texts from MS MARCO V2.1 segmented JSONL (plain or .gz), `{docid, segment}` lines,
    ragnarok retrieval results (`{query, candidates:[{docid, doc}]}`) or the Webis crowd retrieval file
    (`{references_ids, references_texts}`). Existing rows are filled or updated."""
    inputs = _as_inputs(files)
    report = ImportReport()
    total, offset = files_total_size([f.path for f in inputs]), 0
    with transaction.atomic():
        batch: dict[str, PassageRow] = {}
        for f in inputs:
            for number, obj in read_json_lines(report, f.path, f.name, progress=progress, offset=offset, total=total):
                for row in _passage_rows(report, f.name, number, obj):
                    batch[row.passage_id] = row
                if len(batch) >= BATCH_PASSAGES and not report.errors:
                    _passages_upsert(report, batch.values())
                    batch = {}
            offset += f.path.stat().st_size
        if not report.counts.get("passages") and not batch and not report.errors:
            report.error(inputs[0].name if inputs else "", None, "", "no passages found")
        _reject_if_errors(report)
        _passages_upsert(report, batch.values())
    return report


def _passage_rows(report: ImportReport, file: str, number: int, obj: dict[str, Any]) -> Iterator[PassageRow]:
    if "candidates" in obj:
        candidates = obj["candidates"]
        if not isinstance(candidates, list):
            report.error(file, number, "candidates", "expected a list")
            return
        for i, cand in enumerate(candidates):
            if not isinstance(cand, dict):
                report.error(file, number, f"candidates[{i}]", "expected an object")
                continue
            doc = cand.get("doc")
            if not isinstance(doc, dict):
                report.error(file, number, f"candidates[{i}].doc", "missing field or not an object")
                continue
            row = _segment_row(report, file, number, {"docid": cand.get("docid"), **doc}, f"candidates[{i}].")
            if row is not None:
                yield row
    elif "references_ids" in obj:
        ids, texts = obj.get("references_ids"), obj.get("references_texts")
        if not isinstance(ids, list) or not isinstance(texts, list) or len(ids) != len(texts):
            report.error(file, number, "references_texts", "expected two lists of the same length")
            return
        for i, (pid, text) in enumerate(zip(ids, texts, strict=True)):
            row = _segment_row(report, file, number, {"docid": pid, "segment": text}, f"references_ids[{i}].")
            if row is not None:
                yield row
    else:
        row = _segment_row(report, file, number, obj, "")
        if row is not None:
            yield row


def _segment_row(report: ImportReport, file: str, number: int, obj: dict[str, Any], prefix: str) -> PassageRow | None:
    pid = obj.get("docid", obj.get("segment_id", obj.get("passage_id")))
    if not isinstance(pid, str) or not pid.strip():
        report.error(file, number, prefix + "docid", "missing field or not a string")
        return None
    text = obj.get("segment", obj.get("text"))
    if not isinstance(text, str):
        report.error(file, number, prefix + "segment", "missing field or not a string")
        return None
    if not text.strip():
        report.warn(file, number, prefix + "segment", f"passage {pid} has empty text; left without text")
        return None
    extra = {}
    for key in ("title", "url", "headings"):
        value = obj.get(key, "")
        extra[key] = value if isinstance(value, str) else ""
    return PassageRow(passage_id=pid.strip(), text=text, **extra)


def _passages_upsert(report: ImportReport, rows: Iterable[PassageRow]) -> None:
    objs = [
        Passage(passage_id=r.passage_id, text=r.text, title=r.title, url=r.url, headings=r.headings, has_text=True)
        for r in rows
    ]
    if not objs:
        return
    Passage.objects.bulk_create(
        objs,
        update_conflicts=True,
        unique_fields=["passage_id"],
        update_fields=["text", "title", "url", "headings", "has_text"],
        batch_size=1000,
    )
    report.add("passages", len(objs))


SEGMENT_ID = re.compile(r"^msmarco_v2\.1_doc_(?P<shard>\d+)_(?P<doc_offset>\d+)#(?P<index>\d+)_(?P<offset>\d+)$")


def passages_fill_from_corpus(*, corpus_dir: str | Path, progress: ProgressCallback | None = None) -> ImportReport:
    """Fill cited passages that have no text from an MS MARCO V2.1 segmented corpus directory.

    The segment id carries the byte offset of its line in its shard
    (`msmarco_v2.1_doc_<shard>_<doc offset>#<index>_<offset>`), so each passage costs one seek and one
    line read; the 25 GB corpus is never scanned.
    """
    corpus = Path(corpus_dir)
    report = ImportReport()
    missing = list(Passage.objects.filter(has_text=False).values_list("passage_id", flat=True))
    by_shard: dict[str, list[tuple[int, str]]] = {}
    for pid in missing:
        m = SEGMENT_ID.match(pid)
        if m is None:
            report.warn(str(corpus), None, "passage_id", f"{pid}: not an MS MARCO V2.1 segment id; skipped")
            continue
        by_shard.setdefault(m["shard"], []).append((int(m["offset"]), pid))
    rows: list[PassageRow] = []
    done = 0
    for shard, wanted in sorted(by_shard.items()):
        path = _shard_path(corpus, shard)
        if path is None:
            report.warn(
                str(corpus),
                None,
                "shard",
                f"no shard file msmarco_v2.1_doc_segmented_{shard}.json; {len(wanted)} passages left without text",
            )
            done += len(wanted)
            continue
        with open(path, "rb") as fh:
            for offset, pid in sorted(wanted):
                fh.seek(offset)
                raw = fh.readline()
                done += 1
                if progress is not None:
                    progress(done, len(missing))
                try:
                    obj = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    report.error(path.name, None, "offset", f"{pid}: no JSON line at byte {offset}")
                    continue
                if not isinstance(obj, dict) or obj.get("docid") != pid:
                    found = obj.get("docid") if isinstance(obj, dict) else None
                    report.error(path.name, None, "docid", f"{pid}: the line at byte {offset} is {found!r}")
                    continue
                row = _segment_row(report, path.name, None, obj, "")  # type: ignore[arg-type]
                if row is not None:
                    rows.append(row)
    _reject_if_errors(report)
    with transaction.atomic():
        for start in range(0, len(rows), BATCH_PASSAGES):
            _passages_upsert(report, rows[start : start + BATCH_PASSAGES])
    report.add("passages_missing_before", len(missing))
    return report


def _shard_path(corpus: Path, shard: str) -> Path | None:
    for name in (f"msmarco_v2.1_doc_segmented_{shard}.json", f"msmarco_v2.1_doc_segmented_{shard}.jsonl"):
        if (corpus / name).is_file():
            return corpus / name
    return None


# --- runs -----------------------------------------------------------------------------------------


class RunFormat:
    TREC = "trec"
    NIST = "nist"


@dataclass
class ParsedAnswer:
    """One validated answer line, ready to be written."""

    line: int
    run_id: str
    topic_id: str
    topic_text: str
    references: list[str]
    response_length: int | None
    sentences: list[tuple[str, list[tuple[int, str]]]]  # (text, [(reference index, passage id)])
    group: str | None = None


@dataclass
class RunOptions:
    group: str | None = None
    task: str | None = None
    priority: int | None = None
    replace: bool = False
    topics: frozenset[str] | None = None  # only answers to these topics are imported


def runs_import(
    *,
    files: Iterable[InputFile | str | Path],
    fmt: str = RunFormat.TREC,
    options: RunOptions | None = None,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import run files, all or nothing. TREC RAG 2024/2025 JSONL, or NIST's support-judgment JSONL
    (`fmt="nist"`: the runs, answers, sentences and citations it describes; its labels are not read)."""
    inputs = _as_inputs(files)
    options = options or RunOptions()
    report = ImportReport()
    total, offset = files_total_size([f.path for f in inputs]), 0
    writer = _RunWriter(report, options, fmt)
    with transaction.atomic():
        for f in inputs:
            writer.start_file(f.name)
            parse = _parse_trec_line if fmt == RunFormat.TREC else _parse_nist_line
            for number, obj in read_json_lines(report, f.path, f.name, progress=progress, offset=offset, total=total):
                parsed = parse(report, f.name, number, obj)
                if parsed is None:
                    continue
                if options.topics is not None and parsed.topic_id not in options.topics:
                    continue
                writer.add(f.name, parsed)
            writer.end_file(f.name)
            offset += f.path.stat().st_size
        writer.flush()
        _reject_if_errors(report)
    return report


def _is_missing_text(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _topic_id_of(report: ImportReport, file: str, number: int, obj: dict[str, Any]) -> str | None:
    if "topic_id" not in obj:
        report.error(file, number, "topic_id", "missing field")
        return None
    topic_id = obj["topic_id"]
    if isinstance(topic_id, bool) or not isinstance(topic_id, (str, int)) or str(topic_id).strip() == "":
        report.error(file, number, "topic_id", f"expected a string or a number, got {topic_id!r}")
        return None
    return str(topic_id).strip()


def _parse_trec_line(report: ImportReport, file: str, number: int, obj: dict[str, Any]) -> ParsedAnswer | None:
    n_errors = len(report.errors)
    metadata: dict[str, Any] = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
    run_id = obj.get("run_id", metadata.get("run_id"))
    if run_id is None:
        report.error(file, number, "run_id", "missing field")
    elif not isinstance(run_id, str) or not run_id.strip():
        report.error(file, number, "run_id", f"expected a non-empty string, got {run_id!r}")
    topic_id = _topic_id_of(report, file, number, obj)
    topic_text = obj.get("topic", metadata.get("narrative", ""))
    if not isinstance(topic_text, str):
        report.error(file, number, "topic", "expected a string")
    references = obj.get("references")
    if references is None:
        report.error(file, number, "references", "missing field")
        references = []
    elif not isinstance(references, list):
        report.error(file, number, "references", "expected a list of segment ids")
        references = []
    seen: dict[str, int] = {}
    for i, ref in enumerate(references):
        if not isinstance(ref, str):
            report.error(file, number, f"references[{i}]", f"expected a string segment id, got {ref!r}")
        elif ref in seen:
            report.error(file, number, f"references[{i}]", f"duplicate reference {ref} (also references[{seen[ref]}])")
        else:
            seen[ref] = i
    limit = MAX_REFERENCES_2025 if metadata else MAX_REFERENCES_2024
    if len(references) > limit:
        report.warn(file, number, "references", f"{len(references)} references (more than {limit})")
    response_length = obj.get("response_length")
    if response_length is not None and (isinstance(response_length, bool) or not isinstance(response_length, int)):
        report.error(file, number, "response_length", f"expected an integer, got {response_length!r}")
        response_length = None
    answer = obj.get("answer")
    if answer is None:
        report.error(file, number, "answer", "missing field")
        answer = []
    elif not isinstance(answer, list):
        report.error(file, number, "answer", "expected a list of sentences")
        answer = []
    sentences: list[tuple[str, list[tuple[int, str]]]] = []
    words = 0
    for s, sent in enumerate(answer):
        where = f"answer[{s}]"
        if not isinstance(sent, dict):
            report.error(file, number, where, "expected an object {text, citations}")
            continue
        if "text" not in sent:
            report.error(file, number, f"{where}.text", "missing field")
            continue
        text = sent["text"]
        if _is_missing_text(text):
            report.warn(file, number, f"{where}.text", "sentence text is missing; kept with empty text")
            text = ""
        elif not isinstance(text, str):
            report.error(file, number, f"{where}.text", f"expected a string, got {text!r}")
            continue
        words += len(text.split())
        if "citations" not in sent:
            report.error(file, number, f"{where}.citations", "missing field")
            continue
        cites = sent["citations"]
        if not isinstance(cites, list):
            report.error(file, number, f"{where}.citations", "expected a list of reference indexes")
            continue
        cited: list[tuple[int, str]] = []
        for c, idx in enumerate(cites):
            if isinstance(idx, bool) or not isinstance(idx, int):
                report.error(file, number, f"{where}.citations[{c}]", f"expected an integer index, got {idx!r}")
            elif not 0 <= idx < len(references):
                report.error(
                    file,
                    number,
                    f"{where}.citations[{c}]",
                    f"citation index {idx} is out of range ({len(references)} references)",
                )
            elif isinstance(references[idx], str):
                cited.append((idx, references[idx]))
        sentences.append((text, cited))
    if response_length is not None and answer and response_length != words:
        report.warn(file, number, "response_length", f"says {response_length} words; the sentences have {words}")
    if len(report.errors) > n_errors or topic_id is None or not isinstance(run_id, str):
        return None
    return ParsedAnswer(
        line=number,
        run_id=run_id.strip(),
        topic_id=topic_id,
        topic_text=topic_text if isinstance(topic_text, str) else "",
        references=[r for r in references if isinstance(r, str)],
        response_length=response_length,
        sentences=sentences,
        group=metadata.get("team_id") if isinstance(metadata.get("team_id"), str) else None,
    )


def _parse_nist_line(report: ImportReport, file: str, number: int, obj: dict[str, Any]) -> ParsedAnswer | None:
    n_errors = len(report.errors)
    run_id = obj.get("run_id")
    if run_id is None:
        report.error(file, number, "run_id", "missing field")
    elif not isinstance(run_id, str) or not run_id.strip():
        report.error(file, number, "run_id", f"expected a non-empty string, got {run_id!r}")
    topic_id = _topic_id_of(report, file, number, obj)
    raw_sentences = obj.get("sentences")
    if raw_sentences is None:
        report.error(file, number, "sentences", "missing field")
        raw_sentences = []
    elif not isinstance(raw_sentences, list):
        report.error(file, number, "sentences", "expected a list")
        raw_sentences = []
    references: list[str] = []
    ref_index: dict[str, int] = {}
    by_index: dict[int, tuple[str, list[tuple[int, str]]]] = {}
    for s, sent in enumerate(raw_sentences):
        where = f"sentences[{s}]"
        if not isinstance(sent, dict):
            report.error(file, number, where, "expected an object")
            continue
        sid = sent.get("sentenceID", sent.get("sentenceId", s))
        if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0:
            report.error(file, number, f"{where}.sentenceID", f"expected a non-negative integer, got {sid!r}")
            continue
        if sid in by_index:
            report.error(file, number, f"{where}.sentenceID", f"sentence {sid} appears twice")
            continue
        text = sent.get("text")
        if _is_missing_text(text):
            report.warn(file, number, f"{where}.text", "sentence text is missing; kept with empty text")
            text = ""
        elif not isinstance(text, str):
            report.error(file, number, f"{where}.text", f"expected a string, got {text!r}")
            continue
        cites = sent.get("citations", [])
        if not isinstance(cites, list):
            report.error(file, number, f"{where}.citations", "expected a list")
            continue
        cited: list[tuple[int, str]] = []
        seen_refs: set[str] = set()
        for c, cit in enumerate(cites):
            ref = cit.get("reference") if isinstance(cit, dict) else None
            if not isinstance(ref, str) or not ref.strip():
                report.error(file, number, f"{where}.citations[{c}].reference", "missing field or not a string")
                continue
            if ref in seen_refs:
                report.error(file, number, f"{where}.citations[{c}].reference", f"duplicate reference {ref}")
                continue
            seen_refs.add(ref)
            if ref not in ref_index:
                ref_index[ref] = len(references)
                references.append(ref)
            cited.append((ref_index[ref], ref))
        by_index[sid] = (text, cited)
    if by_index and sorted(by_index) != list(range(len(by_index))):
        report.error(file, number, "sentences", f"sentence ids are not 0..{len(by_index) - 1}: {sorted(by_index)}")
    if len(report.errors) > n_errors or topic_id is None or not isinstance(run_id, str):
        return None
    return ParsedAnswer(
        line=number,
        run_id=run_id.strip(),
        topic_id=topic_id,
        topic_text="",
        references=references,
        response_length=None,
        sentences=[by_index[i] for i in sorted(by_index)],
    )


def group_of_run_id(run_id: str) -> str:
    """NIST's run ids are `group.run`."""
    return run_id.split(".", 1)[0] if "." in run_id else ""


class _RunWriter:
    """Writes parsed answers in batches; stops writing (but keeps validating) at the first error."""

    def __init__(self, report: ImportReport, options: RunOptions, fmt: str) -> None:
        self.report = report
        self.options = options
        self.fmt = fmt
        self.pending: list[ParsedAnswer] = []
        self.topics: dict[str, int] = dict(Topic.objects.values_list("topic_id", "pk"))
        self.runs: dict[str, Run] = {}
        self.file_run_id: str | None = None
        self.file_first_line = 0
        self.file_topics: dict[str, int] = {}
        self.nist_answers_seen: dict[tuple[str, str], tuple[str, int]] = {}

    def start_file(self, name: str) -> None:
        self.file_run_id = None
        self.file_topics = {}

    def end_file(self, name: str) -> None:
        if (
            self.fmt == RunFormat.TREC
            and self.file_run_id is None
            and not any(e.file == name for e in self.report.errors)
        ):
            self.report.error(name, None, "", "no answers found")

    def add(self, file: str, parsed: ParsedAnswer) -> None:
        report = self.report
        if self.fmt == RunFormat.TREC:
            if self.file_run_id is None:
                self.file_run_id, self.file_first_line = parsed.run_id, parsed.line
                if not self._open_run(file, parsed):
                    return
            elif parsed.run_id != self.file_run_id:
                report.error(
                    file,
                    parsed.line,
                    "run_id",
                    f"run_id changes within the file: {parsed.run_id!r} (line {self.file_first_line} has "
                    f"{self.file_run_id!r})",
                )
                return
            if parsed.topic_id in self.file_topics:
                report.error(
                    file,
                    parsed.line,
                    "topic_id",
                    f"topic {parsed.topic_id} answered twice in this run (first at line {self.file_topics[parsed.topic_id]})",
                )
                return
            self.file_topics[parsed.topic_id] = parsed.line
        else:
            key = (parsed.run_id, parsed.topic_id)
            if key in self.nist_answers_seen:
                first_file, first_line = self.nist_answers_seen[key]
                report.error(
                    file,
                    parsed.line,
                    "topic_id",
                    f"run {parsed.run_id} answers topic {parsed.topic_id} twice (first at {first_file}:{first_line})",
                )
                return
            self.nist_answers_seen[key] = (file, parsed.line)
            if parsed.run_id not in self.runs and not self._open_run(file, parsed):
                return
        if parsed.topic_id not in self.topics:
            report.warn(file, parsed.line, "topic_id", f"topic {parsed.topic_id} is not loaded; it was created")
            if not report.errors:
                topic = Topic.objects.create(topic_id=parsed.topic_id, text=parsed.topic_text)
                self.topics[parsed.topic_id] = topic.pk
            else:
                self.topics[parsed.topic_id] = -1
        if report.errors:
            return
        self.pending.append(parsed)
        if len(self.pending) >= BATCH_ANSWERS:
            self.flush()

    def _open_run(self, file: str, parsed: ParsedAnswer) -> bool:
        opts = self.options
        existing = Run.objects.filter(run_id=parsed.run_id).first()
        if existing is not None:
            if self.fmt == RunFormat.NIST:
                clash = Answer.objects.filter(run=existing, topic__topic_id=parsed.topic_id).exists()
                if clash and not opts.replace:
                    self.report.error(
                        file,
                        parsed.line,
                        "run_id",
                        f"run {parsed.run_id} already has an answer to topic {parsed.topic_id} (use --replace)",
                    )
                    return False
                self.runs[parsed.run_id] = existing
                return True
            if not opts.replace:
                self.report.error(file, parsed.line, "run_id", f"run {parsed.run_id} is already loaded (use --replace)")
                return False
            if self.report.errors:
                return True
            try:
                with transaction.atomic():
                    existing.delete()
            except Exception as exc:  # ProtectedError: judgments were made on its citations
                self.report.error(file, parsed.line, "run_id", f"run {parsed.run_id} cannot be replaced: {exc}")
                return False
        if self.report.errors:
            self.runs[parsed.run_id] = Run(run_id=parsed.run_id)
            return True
        group = opts.group if opts.group is not None else (parsed.group or group_of_run_id(parsed.run_id))
        task = opts.task or Task.RAG
        self.runs[parsed.run_id] = Run.objects.create(
            run_id=parsed.run_id,
            group=group,
            task=task,
            priority=opts.priority,
            source_file=file,
        )
        self.report.add("runs")
        return True

    def flush(self) -> None:
        if self.report.errors or not self.pending:
            self.pending = []
            return
        batch, self.pending = self.pending, []
        if self.fmt == RunFormat.NIST and self.options.replace:
            Answer.objects.filter(
                run__run_id__in={p.run_id for p in batch}, topic_id__in={self.topics[p.topic_id] for p in batch}
            ).delete()
        cited = {pid for p in batch for _, cites in p.sentences for _, pid in cites}
        Passage.objects.bulk_create([Passage(passage_id=pid) for pid in cited], ignore_conflicts=True, batch_size=2000)
        passage_pk = dict(Passage.objects.filter(passage_id__in=cited).values_list("passage_id", "pk"))
        answers = Answer.objects.bulk_create(
            [
                Answer(
                    run=self.runs[p.run_id],
                    topic_id=self.topics[p.topic_id],
                    references=p.references,
                    response_length=p.response_length,
                )
                for p in batch
            ]
        )
        sentences = Sentence.objects.bulk_create(
            [
                Sentence(answer=a, index=i, text=text)
                for a, p in zip(answers, batch, strict=True)
                for i, (text, _) in enumerate(p.sentences)
            ],
            batch_size=5000,
        )
        citations: list[Citation] = []
        it = iter(sentences)
        for p in batch:
            for _, cites in p.sentences:
                sentence = next(it)
                citations.extend(
                    Citation(sentence=sentence, slot=slot, passage_id=passage_pk[pid], reference_index=idx)
                    for slot, (idx, pid) in enumerate(cites)
                )
        Citation.objects.bulk_create(citations, batch_size=5000)
        self.report.add("answers", len(answers))
        self.report.add("sentences", len(sentences))
        self.report.add("citations", len(citations))
        self.report.add("cited_passages", len(cited))
