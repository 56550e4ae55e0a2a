"""Writes for the material under assessment: topic, passage and run imports (DESIGN §7).

Every import streams its files line by line and writes in batches inside one transaction. Errors are
collected for the whole input; if there is any, the transaction is rolled back and nothing changes.
Warnings are reported and the input is imported. The run checks follow the track's own checker
(ragnarok's `rag24_validation` / `rag25_validation`); where that checker only warns or fixes, so do we,
and what it rejects we reject, except an unknown topic, which is created with a warning.
"""

from __future__ import annotations

import json
import math
import queue
import re
import threading
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import connection, transaction
from django.db.models import Model, ProtectedError, RestrictedError

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
from assess.selectors import passages_missing_text

BATCH_ANSWERS = 1000
BATCH_PASSAGES = 2000
MAX_REFERENCES_2024 = 20
MAX_REFERENCES_2025 = 100
MAX_RESPONSE_WORDS = 400
MAX_INT = 2**31 - 1  # PositiveIntegerField's upper bound on PostgreSQL
PASSAGE_CACHE_LIMIT = 500_000
COPY_ON_POSTGRESQL = True  # False: write runs with bulk_create on PostgreSQL too (the SQLite path)

# Column widths of the models, checked up front so that a long id is a clear error, not a database one.
MAX_TOPIC_ID = Topic._meta.get_field("topic_id").max_length or 64
MAX_PASSAGE_ID = Passage._meta.get_field("passage_id").max_length or 128
MAX_RUN_ID = Run._meta.get_field("run_id").max_length or 255
MAX_GROUP = Run._meta.get_field("group").max_length or 128

SEGMENT_ID = re.compile(r"^msmarco_v2\.1_doc_(?P<shard>\d+)_(?P<doc_offset>\d+)#(?P<index>\d+)_(?P<offset>\d+)$")


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
    if not report.ok:
        raise ImportRejected(report)


def _empty_file_error(report: ImportReport, f: InputFile, what: str) -> None:
    """A file that gave no rows: say whether it is empty or only holds nothing usable."""
    if f.path.stat().st_size == 0:
        report.error(f.name, None, "", "the file is empty")
    else:
        report.error(f.name, None, "", f"no {what} found")


def _clean_text(report: ImportReport, file: str, line: int | None, where: str, text: str) -> str:
    """PostgreSQL cannot store NUL characters in text: drop them, with a warning."""
    if "\x00" in text:
        report.warn(file, line, where, "NUL characters removed from the text")
        return text.replace("\x00", "")
    return text


# --- topics ---------------------------------------------------------------------------------------


def topics_import(*, files: Iterable[InputFile | str | Path], progress: ProgressCallback | None = None) -> ImportReport:
    """Import topics from TSV (`id<TAB>text`, the track's topics file) or JSONL (`{topic_id, text}`).

    A topic that is already loaded gets the new text; the same topic twice with two texts is an error.
    """
    inputs = _as_inputs(files)
    report = ImportReport()
    rows: dict[str, str] = {}
    where: dict[str, tuple[str, int]] = {}
    total, offset = files_total_size([f.path for f in inputs]), 0
    for f in inputs:
        found = 0
        for number, topic_id, text in _topic_rows(report, f, progress, offset, total):
            found += 1
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
        if not found and not any(e.file == f.name for e in report.errors):
            _empty_file_error(report, f, "topics")
        offset += f.path.stat().st_size
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
                if isinstance(topic_id, bool) or not isinstance(topic_id, (str, int)):
                    report.error(f.name, number, "topic_id", f"expected a string or a number, got {topic_id!r}")
                    continue
                if not isinstance(text, str):
                    report.error(f.name, number, "text", "missing field or not a string")
                    continue
                topic_id, text = str(topic_id).strip(), text.strip()
            else:
                parts = line.split("\t", 1)
                if len(parts) != 2 or not parts[0].strip():
                    report.error(f.name, number, "topic_id", "expected `topic_id<TAB>text` or a JSON object")
                    continue
                topic_id, text = parts[0].strip(), parts[1].strip()
            if not _topic_id_ok(report, f.name, number, "topic_id", topic_id):
                continue
            yield number, topic_id, _clean_text(report, f.name, number, "text", text)
    except FileUnreadable as exc:
        report.error(f.name, exc.line, "", exc.text)


def _topic_id_ok(report: ImportReport, file: str, number: int, where: str, topic_id: str) -> bool:
    if not topic_id:
        report.error(file, number, where, "empty topic id")
        return False
    if len(topic_id) > MAX_TOPIC_ID:
        report.error(file, number, where, f"topic id is longer than {MAX_TOPIC_ID} characters")
        return False
    return True


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
            found = 0
            for number, obj in read_json_lines(report, f.path, f.name, progress=progress, offset=offset, total=total):
                for row in _passage_rows(report, f.name, number, obj):
                    found += 1
                    batch[row.passage_id] = row
                if len(batch) >= BATCH_PASSAGES and report.ok:
                    _passages_upsert(report, batch.values())
                    batch = {}
            if not found and not any(e.file == f.name for e in report.errors):
                _empty_file_error(report, f, "passages")
            offset += f.path.stat().st_size
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


def _segment_row(
    report: ImportReport, file: str, number: int | None, obj: dict[str, Any], prefix: str
) -> PassageRow | None:
    pid = _first_present(obj, ("docid", "segment_id", "passage_id"))
    if not isinstance(pid, str) or not pid.strip():
        report.error(file, number, prefix + "docid", "missing field or not a string")
        return None
    pid = pid.strip()
    if len(pid) > MAX_PASSAGE_ID:
        report.error(file, number, prefix + "docid", f"passage id is longer than {MAX_PASSAGE_ID} characters")
        return None
    text = _first_present(obj, ("segment", "text"))
    if not isinstance(text, str):
        report.error(file, number, prefix + "segment", "missing field or not a string")
        return None
    if not text.strip():
        report.warn(file, number, prefix + "segment", f"passage {pid} has empty text; left without text")
        return None
    extra = {}
    for key in ("title", "url", "headings"):
        value = obj.get(key, "")
        extra[key] = _clean_text(report, file, number, prefix + key, value) if isinstance(value, str) else ""
    return PassageRow(passage_id=pid, text=_clean_text(report, file, number, prefix + "segment", text), **extra)


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


def passages_fill_from_corpus(*, corpus_dir: str | Path, progress: ProgressCallback | None = None) -> ImportReport:
    """Fill the cited passages that have no text from an MS MARCO V2.1 segmented corpus directory.

    The segment id carries the byte offset of its line in its shard
    (`msmarco_v2.1_doc_<shard>_<doc offset>#<index>_<offset>`), so each passage costs one seek and one
    line read; the 25 GB corpus is never scanned. A line at that offset that is not this passage's JSON
    line is an error, and nothing is filled.
    """
    corpus = Path(corpus_dir)
    report = ImportReport()
    if not corpus.is_dir():
        report.error(str(corpus), None, "corpus", "not a directory")
        raise ImportRejected(report)
    by_shard: dict[str, list[tuple[int, str]]] = {}
    n_missing = 0
    for pid in passages_missing_text().values_list("passage_id", flat=True).iterator(chunk_size=10_000):
        n_missing += 1
        m = SEGMENT_ID.match(pid)
        if m is None:
            report.warn(corpus.name, None, "passage_id", f"{pid}: not an MS MARCO V2.1 segment id; skipped")
            continue
        by_shard.setdefault(m["shard"], []).append((int(m["offset"]), pid))
    done = 0
    with transaction.atomic():
        rows: list[PassageRow] = []
        for shard, wanted in sorted(by_shard.items()):
            path = _shard_path(corpus, shard)
            if path is None:
                report.warn(
                    corpus.name,
                    None,
                    "shard",
                    f"no shard file msmarco_v2.1_doc_segmented_{shard}.json; {len(wanted)} passages left without text",
                )
                done += len(wanted)
                continue
            size = path.stat().st_size
            with open(path, "rb") as fh:
                for offset, pid in sorted(wanted):
                    done += 1
                    if progress is not None and done % 1000 == 0:
                        progress(done, n_missing)
                    row = _read_segment_at(report, fh, path.name, size, offset, pid)
                    if row is not None:
                        rows.append(row)
                    if len(rows) >= BATCH_PASSAGES and report.ok:
                        _passages_upsert(report, rows)
                        rows = []
        _reject_if_errors(report)
        _passages_upsert(report, rows)
    if progress is not None:
        progress(n_missing, n_missing)
    report.add("passages_missing_before", n_missing)
    return report


def _read_segment_at(report: ImportReport, fh: Any, shard: str, size: int, offset: int, pid: str) -> PassageRow | None:
    """Read the one corpus line at `offset` (a line is at most a few kB: read no more than 1 MB)."""
    if offset >= size:
        report.error(shard, None, "offset", f"{pid}: byte {offset} is past the end of the shard ({size} bytes)")
        return None
    fh.seek(offset)
    raw = fh.readline(1 << 20)
    try:
        obj = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        report.error(shard, None, "offset", f"{pid}: no JSON line starts at byte {offset}")
        return None
    found = obj.get("docid") if isinstance(obj, dict) else None
    if found != pid:
        report.error(shard, None, "docid", f"{pid}: the line at byte {offset} is {found!r}")
        return None
    return _segment_row(report, shard, None, obj, "")


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
    topic_text: str | None  # None: the line does not give it (NIST, 2025 without narrative)
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
    parse = _parse_trec_line if fmt == RunFormat.TREC else _parse_nist_line
    with transaction.atomic():
        writer = _RunWriter(report, options, fmt)
        try:
            for f in inputs:
                writer.start_file(f)
                for number, obj in read_json_lines(
                    report, f.path, f.name, progress=progress, offset=offset, total=total
                ):
                    parsed = parse(report, f.name, number, obj)
                    if parsed is None:
                        continue
                    writer.add(f.name, parsed)
                writer.end_file(f)
                offset += f.path.stat().st_size
            writer.flush()
        finally:
            writer.close()
        _reject_if_errors(report)
    tables_analyze(models=[Answer, Sentence, Citation, Passage])
    return report


def tables_analyze(*, models: Iterable[type[Model]]) -> None:
    """Refresh PostgreSQL's planner statistics after a bulk write.

    Without them (autovacuum off, or not yet run) the planner takes a freshly filled table for empty and
    picks plans that cost seconds instead of milliseconds. A no-op on other databases."""
    if connection.vendor != "postgresql":
        return
    tables = ", ".join(connection.ops.quote_name(m._meta.db_table) for m in models)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {tables}")


def _is_missing_text(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def count_words(text: str) -> int:
    """Words as the track's checker counts them: NFKC-normalised, stripped, split on whitespace."""
    return len(unicodedata.normalize("NFKC", text.strip()).split())


def _topic_id_value(report: ImportReport, file: str, number: int, where: str, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        report.error(file, number, where, f"expected a string or a number, got {value!r}")
        return None
    topic_id = str(value).strip()
    return topic_id if _topic_id_ok(report, file, number, where, topic_id) else None


def _run_id_value(report: ImportReport, file: str, number: int, where: str, value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        report.error(file, number, where, f"expected a non-empty string, got {value!r}")
        return None
    if len(value.strip()) > MAX_RUN_ID:
        report.error(file, number, where, f"run id is longer than {MAX_RUN_ID} characters")
        return None
    return value.strip()


def _parse_trec_line(report: ImportReport, file: str, number: int, obj: dict[str, Any]) -> ParsedAnswer | None:
    """One line of a TREC RAG run. 2024: {run_id, topic_id, topic, references, response_length, answer}, all
    required. 2025: {metadata: {team_id, run_id, narrative_id, narrative, type, prompt}, references, answer},
    where the run and topic may come from the metadata and response_length is optional."""
    n_errors = report.error_count
    metadata: dict[str, Any] = {}
    if "metadata" in obj:
        if not isinstance(obj["metadata"], dict):
            report.error(file, number, "metadata", "expected an object")
        else:
            metadata = obj["metadata"]
    is_2025 = "metadata" in obj

    run_id: str | None = None
    if "run_id" in obj:
        run_id = _run_id_value(report, file, number, "run_id", obj["run_id"])
        if run_id is not None and "run_id" in metadata and metadata["run_id"] != obj["run_id"]:
            report.error(file, number, "metadata.run_id", f"{metadata['run_id']!r} differs from run_id {run_id!r}")
    elif "run_id" in metadata:
        run_id = _run_id_value(report, file, number, "metadata.run_id", metadata["run_id"])
    else:
        report.error(file, number, "metadata.run_id" if is_2025 else "run_id", "missing field")

    topic_id: str | None = None
    if "topic_id" in obj:
        topic_id = _topic_id_value(report, file, number, "topic_id", obj["topic_id"])
    elif "narrative_id" in metadata:
        topic_id = _topic_id_value(report, file, number, "metadata.narrative_id", metadata["narrative_id"])
    else:
        report.error(file, number, "metadata.narrative_id" if is_2025 else "topic_id", "missing field")

    topic_text: str | None = None
    if "topic" in obj:
        topic_text = obj["topic"]
        if not isinstance(topic_text, str):
            report.error(file, number, "topic", f"expected a string, got {topic_text!r}")
    elif "narrative" in metadata:
        topic_text = metadata["narrative"]
        if not isinstance(topic_text, str):
            report.error(file, number, "metadata.narrative", f"expected a string, got {topic_text!r}")
    elif not is_2025:
        report.error(file, number, "topic", "missing field")

    group = metadata.get("team_id")
    if group is not None and (not isinstance(group, str) or len(group) > MAX_GROUP):
        report.error(file, number, "metadata.team_id", f"expected a string of at most {MAX_GROUP} characters")
        group = None

    references = _references(report, file, number, obj, MAX_REFERENCES_2025 if is_2025 else MAX_REFERENCES_2024)

    response_length: int | None = None
    if "response_length" in obj:
        value = obj["response_length"]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT:
            report.error(file, number, "response_length", f"expected a non-negative integer, got {value!r}")
        else:
            response_length = value
    elif not is_2025:
        report.error(file, number, "response_length", "missing field")

    sentences, words = _answer_sentences(report, file, number, obj, references)
    if words > MAX_RESPONSE_WORDS:
        report.warn(file, number, "answer", f"the answer has {words} words (more than {MAX_RESPONSE_WORDS})")
    if response_length is not None and sentences is not None and response_length != words:
        report.warn(
            file,
            number,
            "response_length",
            f"says {response_length} words; the sentences have {words} (NFKC-normalised, split on whitespace)",
        )
    if report.error_count > n_errors or run_id is None or topic_id is None or sentences is None:
        return None
    return ParsedAnswer(
        line=number,
        run_id=run_id,
        topic_id=topic_id,
        topic_text=topic_text.strip() if isinstance(topic_text, str) else None,
        references=references or [],
        response_length=response_length,
        sentences=sentences,
        group=group,
    )


def _references(report: ImportReport, file: str, number: int, obj: dict[str, Any], limit: int) -> list[str] | None:
    """The answer's references, checked; None when there is no list (the citations cannot be checked)."""
    if "references" not in obj:
        report.error(file, number, "references", "missing field")
        return None
    references = obj["references"]
    if not isinstance(references, list):
        report.error(file, number, "references", "expected a list of segment ids")
        return None
    seen: dict[str, int] = {}
    odd_ids = 0
    for i, ref in enumerate(references):
        if not isinstance(ref, str):
            report.error(file, number, f"references[{i}]", f"expected a string segment id, got {ref!r}")
        elif ref in seen:
            report.error(file, number, f"references[{i}]", f"duplicate reference {ref} (also references[{seen[ref]}])")
        elif len(ref) > MAX_PASSAGE_ID or not ref.strip():
            report.error(file, number, f"references[{i}]", f"expected a segment id of 1 to {MAX_PASSAGE_ID} characters")
        else:
            seen[ref] = i
            if SEGMENT_ID.match(ref) is None:
                odd_ids += 1
                if odd_ids == 1:
                    report.warn(file, number, f"references[{i}]", f"{ref} is not an MS MARCO V2.1 segment id")
    if len(references) > limit:
        report.warn(file, number, "references", f"{len(references)} references (more than {limit})")
    return references


def _answer_sentences(
    report: ImportReport, file: str, number: int, obj: dict[str, Any], references: list[Any] | None
) -> tuple[list[tuple[str, list[tuple[int, str]]]] | None, int]:
    """The answer's sentences with their citations resolved, and the number of words; None on error."""
    if "answer" not in obj:
        report.error(file, number, "answer", "missing field")
        return None, 0
    answer = obj["answer"]
    if not isinstance(answer, list):
        report.error(file, number, "answer", "expected a list of sentences")
        return None, 0
    n_errors = report.error_count
    sentences: list[tuple[str, list[tuple[int, str]]]] = []
    words = 0
    n_refs = len(references) if references is not None else None
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
        text = _clean_text(report, file, number, f"{where}.text", text)
        words += count_words(text)
        if "citations" not in sent:
            report.error(file, number, f"{where}.citations", "missing field")
            continue
        cites = sent["citations"]
        if not isinstance(cites, list):
            report.error(file, number, f"{where}.citations", "expected a list of reference indexes")
            continue
        cited: list[tuple[int, str]] = []
        seen: set[int] = set()
        for c, idx in enumerate(cites):
            if isinstance(idx, bool) or not isinstance(idx, int):
                report.error(file, number, f"{where}.citations[{c}]", f"expected an integer index, got {idx!r}")
            elif n_refs is None:
                continue  # no references to check against; that error is already reported
            elif not 0 <= idx < n_refs:
                report.error(
                    file,
                    number,
                    f"{where}.citations[{c}]",
                    f"citation index {idx} is out of range ({n_refs} references)",
                )
            elif idx in seen:
                # The track's checker warns and drops the repeat; so do we (the first one keeps its slot).
                report.warn(file, number, f"{where}.citations[{c}]", f"duplicate citation {idx}; dropped")
            else:
                seen.add(idx)
                ref = references[idx] if references is not None else None
                if isinstance(ref, str):
                    cited.append((idx, ref))
        sentences.append((text, cited))
    return (sentences if report.error_count == n_errors else None), words


def _parse_nist_line(report: ImportReport, file: str, number: int, obj: dict[str, Any]) -> ParsedAnswer | None:
    """One row of NIST's support judgments: {topic_id, run_id, sentences:[{sentenceID|sentenceId, text,
    citations:[{citationID|citationId, reference, support}]}]}. The answer's references are the cited
    passages in order of first citation; the labels are not read here."""
    n_errors = report.error_count
    run_id = None
    if "run_id" not in obj:
        report.error(file, number, "run_id", "missing field")
    else:
        run_id = _run_id_value(report, file, number, "run_id", obj["run_id"])
    topic_id = None
    if "topic_id" not in obj:
        report.error(file, number, "topic_id", "missing field")
    else:
        topic_id = _topic_id_value(report, file, number, "topic_id", obj["topic_id"])
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
        id_key = "sentenceID" if "sentenceID" in sent else "sentenceId"
        sid = sent.get(id_key, s)
        if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0:
            report.error(file, number, f"{where}.{id_key}", f"expected a non-negative integer, got {sid!r}")
            continue
        if sid in by_index:
            report.error(file, number, f"{where}.{id_key}", f"sentence {sid} appears twice")
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
        text = _clean_text(report, file, number, f"{where}.text", text)
        cites = sent.get("citations", [])
        if not isinstance(cites, list):
            report.error(file, number, f"{where}.citations", "expected a list")
            continue
        cited: list[tuple[int, str]] = []
        seen_refs: dict[str, int] = {}
        for c, cit in enumerate(cites):
            if not isinstance(cit, dict):
                report.error(file, number, f"{where}.citations[{c}]", "expected an object {reference, support}")
                continue
            if "reference" not in cit:
                report.error(file, number, f"{where}.citations[{c}].reference", "missing field")
                continue
            ref = cit["reference"]
            if not isinstance(ref, str) or not ref.strip() or len(ref) > MAX_PASSAGE_ID:
                report.error(
                    file,
                    number,
                    f"{where}.citations[{c}].reference",
                    f"expected a segment id of 1 to {MAX_PASSAGE_ID} characters, got {ref!r}",
                )
                continue
            if ref in seen_refs:
                report.error(
                    file,
                    number,
                    f"{where}.citations[{c}].reference",
                    f"duplicate reference {ref} (also citations[{seen_refs[ref]}])",
                )
                continue
            seen_refs[ref] = c
            if ref not in ref_index:
                ref_index[ref] = len(references)
                references.append(ref)
            cited.append((ref_index[ref], ref))
        by_index[sid] = (text, cited)
    if by_index and sorted(by_index) != list(range(len(by_index))):
        report.error(file, number, "sentences", f"sentence ids are not 0..{len(by_index) - 1}: {sorted(by_index)}")
    if report.error_count > n_errors or topic_id is None or run_id is None:
        return None
    return ParsedAnswer(
        line=number,
        run_id=run_id,
        topic_id=topic_id,
        topic_text=None,
        references=references,
        response_length=None,
        sentences=[by_index[i] for i in sorted(by_index)],
    )


def group_of_run_id(run_id: str) -> str:
    """NIST's run ids are `group.run`: the group is what comes before the first dot."""
    return run_id.split(".", 1)[0] if "." in run_id else ""


@dataclass
class _OpenRun:
    run: Run
    file: str
    existing_topics: set[str] = field(default_factory=set)  # NIST: answers the run had before this import


class _RunWriter:
    """Checks what only the whole input shows (run ids, repeated topics, runs already loaded) and writes the
    parsed answers in batches. After the first error it stops writing but keeps checking, so that the report
    lists every error; the caller's transaction then rolls back what was written."""

    def __init__(self, report: ImportReport, options: RunOptions, fmt: str) -> None:
        self.report = report
        self.options = options
        self.fmt = fmt
        self.pending: list[ParsedAnswer] = []
        self.topics: dict[str, tuple[int, str]] = {
            t: (pk, text) for t, pk, text in Topic.objects.values_list("topic_id", "pk", "text")
        }
        self.runs: dict[str, _OpenRun] = {}
        self.file_run_id: str | None = None
        self.file_first_line = 0
        self.file_topics: dict[str, int] = {}
        self.file_answers = 0
        self.nist_answers_seen: dict[tuple[str, str], tuple[str, int]] = {}
        self.replace_answers: list[tuple[int, int, str, int]] = []  # (run pk, topic pk, file, line)
        self.passage_pks: dict[str, int] = {}
        self.copier = _CopyWriter() if COPY_ON_POSTGRESQL and connection.vendor == "postgresql" else None

    def start_file(self, f: InputFile) -> None:
        self.file_run_id = None
        self.file_topics = {}
        self.file_answers = 0

    def end_file(self, f: InputFile) -> None:
        if self.file_answers == 0 and not any(e.file == f.name for e in self.report.errors):
            _empty_file_error(self.report, f, "answers")

    def add(self, file: str, parsed: ParsedAnswer) -> None:
        report = self.report
        self.file_answers += 1
        if self.options.topics is not None and parsed.topic_id not in self.options.topics:
            return
        if self.fmt == RunFormat.TREC:
            if not self._check_trec(file, parsed):
                return
        elif not self._check_nist(file, parsed):
            return
        self._topic_pk(file, parsed)
        if not report.ok:
            return
        self.pending.append(parsed)
        if len(self.pending) >= BATCH_ANSWERS:
            self.flush()

    def _check_trec(self, file: str, parsed: ParsedAnswer) -> bool:
        report = self.report
        if self.file_run_id is None:
            self.file_run_id, self.file_first_line = parsed.run_id, parsed.line
            if not self._open_run(file, parsed):
                return False
        elif parsed.run_id != self.file_run_id:
            report.error(
                file,
                parsed.line,
                "run_id",
                f"run_id changes within the file: {parsed.run_id!r} (line {self.file_first_line} has "
                f"{self.file_run_id!r})",
            )
            return False
        elif parsed.run_id not in self.runs:
            return False  # the run could not be opened; that error is already reported
        if parsed.topic_id in self.file_topics:
            report.error(
                file,
                parsed.line,
                "topic_id",
                f"topic {parsed.topic_id} answered twice in this run (first at line {self.file_topics[parsed.topic_id]})",
            )
            return False
        self.file_topics[parsed.topic_id] = parsed.line
        return True

    def _check_nist(self, file: str, parsed: ParsedAnswer) -> bool:
        report = self.report
        key = (parsed.run_id, parsed.topic_id)
        if key in self.nist_answers_seen:
            first_file, first_line = self.nist_answers_seen[key]
            report.error(
                file,
                parsed.line,
                "topic_id",
                f"run {parsed.run_id} answers topic {parsed.topic_id} twice (first at {first_file}:{first_line})",
            )
            return False
        self.nist_answers_seen[key] = (file, parsed.line)
        if parsed.run_id not in self.runs and not self._open_run(file, parsed):
            return False
        open_run = self.runs.get(parsed.run_id)
        if open_run is not None and parsed.topic_id in open_run.existing_topics:
            if not self.options.replace:
                report.error(
                    file,
                    parsed.line,
                    "topic_id",
                    f"run {parsed.run_id} already has an answer to topic {parsed.topic_id} (use --replace)",
                )
                return False
            topic_pk = self.topics[parsed.topic_id][0]
            self.replace_answers.append((open_run.run.pk, topic_pk, file, parsed.line))
        return open_run is not None

    def _topic_pk(self, file: str, parsed: ParsedAnswer) -> None:
        known = self.topics.get(parsed.topic_id)
        if known is None:
            self.report.warn(file, parsed.line, "topic_id", f"topic {parsed.topic_id} is not loaded; it was created")
            pk = -1
            if self.report.ok:
                pk = Topic.objects.create(topic_id=parsed.topic_id, text=parsed.topic_text or "").pk
            self.topics[parsed.topic_id] = (pk, parsed.topic_text or "")
        elif parsed.topic_text is not None and known[1] and parsed.topic_text != known[1]:
            self.report.warn(
                file, parsed.line, "topic", f"differs from the loaded text of topic {parsed.topic_id}: {known[1]!r}"
            )

    def _open_run(self, file: str, parsed: ParsedAnswer) -> bool:
        opts, report = self.options, self.report
        if parsed.run_id in self.runs:
            other = self.runs[parsed.run_id].file
            report.error(file, parsed.line, "run_id", f"run {parsed.run_id} is also in {other} of this import")
            return False
        existing = Run.objects.filter(run_id=parsed.run_id).first()
        if existing is not None:
            if self.fmt == RunFormat.NIST:
                topics = set(Answer.objects.filter(run=existing).values_list("topic__topic_id", flat=True))
                self.runs[parsed.run_id] = _OpenRun(existing, file, topics)
                return True
            if not opts.replace:
                report.error(file, parsed.line, "run_id", f"run {parsed.run_id} is already loaded (use --replace)")
                return False
            if report.ok:
                self._quiesce()
                try:
                    with transaction.atomic():
                        existing.delete()
                except (ProtectedError, RestrictedError):
                    report.error(
                        file,
                        parsed.line,
                        "run_id",
                        f"run {parsed.run_id} cannot be replaced: judgments were made on its citations",
                    )
                    return False
        if opts.group is not None:
            group = opts.group
        elif self.fmt == RunFormat.NIST:
            group = group_of_run_id(parsed.run_id)
        else:
            group = parsed.group or group_of_run_id(parsed.run_id)
        run = Run(
            run_id=parsed.run_id,
            group=group[:MAX_GROUP],
            task=opts.task or Task.RAG,
            priority=opts.priority,
            source_file=file[:512],
        )
        if report.ok:
            run.save()
            report.add("runs")
        self.runs[parsed.run_id] = _OpenRun(run, file)
        return True

    # --- writing ---

    def flush(self) -> None:
        if not self.report.ok or not self.pending:
            self.pending = []
            return
        batch, self.pending = self.pending, []
        if self.replace_answers:
            self._delete_replaced()
            if not self.report.ok:
                return
        if self.copier is not None:
            self.copier.submit(
                [
                    (
                        self.runs[p.run_id].run.pk,
                        self.topics[p.topic_id][0],
                        json.dumps(p.references),
                        p.response_length,
                        p.sentences,
                    )
                    for p in batch
                ]
            )
            return
        passage_pk = self._passage_pks({pid for p in batch for _, cites in p.sentences for _, pid in cites})
        n_sentences, n_citations = self._write_orm(batch, passage_pk)
        self.report.add("answers", len(batch))
        self.report.add("sentences", n_sentences)
        self.report.add("citations", n_citations)

    def close(self) -> None:
        """Wait for the batches still being written; raise what the writer thread met."""
        if self.copier is not None:
            copier, self.copier = self.copier, None
            counts = copier.close()
            for key, n in counts.items():
                self.report.add(key, n)

    def _quiesce(self) -> None:
        """Before a savepoint on the shared connection: let the writer thread finish what it has."""
        if self.copier is not None:
            self.copier.wait_idle()

    def _delete_replaced(self) -> None:
        pending, self.replace_answers = self.replace_answers, []
        self._quiesce()
        for run_pk, topic_pk, file, line in pending:
            try:
                with transaction.atomic():
                    Answer.objects.filter(run_id=run_pk, topic_id=topic_pk).delete()
            except (ProtectedError, RestrictedError):
                self.report.error(
                    file, line, "topic_id", "this answer cannot be replaced: judgments were made on its citations"
                )
        if pending and self.report.ok:
            self.report.add("answers_replaced", len(pending))

    def _passage_pks(self, cited: set[str]) -> dict[str, int]:
        """Primary keys of the cited passages, creating rows (without text) for those not yet known."""
        cache = self.passage_pks
        wanted = sorted(pid for pid in cited if pid not in cache)
        if len(cache) + len(wanted) > PASSAGE_CACHE_LIMIT:
            cache.clear()  # keeps memory flat on inputs that cite millions of passages
            wanted = sorted(cited)
        self.report.add("passages_created", self._passages_ensure_orm(wanted, cache) if wanted else 0)
        return cache

    def _passages_ensure_orm(self, wanted: list[str], cache: dict[str, int]) -> int:
        created = 0
        for start in range(0, len(wanted), 5000):
            chunk = wanted[start : start + 5000]
            known = dict(Passage.objects.filter(passage_id__in=chunk).values_list("passage_id", "pk"))
            new = [Passage(passage_id=pid) for pid in chunk if pid not in known]
            Passage.objects.bulk_create(new, ignore_conflicts=True, batch_size=1000)
            created += len(new)
            if new:
                known = dict(Passage.objects.filter(passage_id__in=chunk).values_list("passage_id", "pk"))
            cache.update(known)
        return created

    def _write_orm(self, batch: list[ParsedAnswer], passage_pk: dict[str, int]) -> tuple[int, int]:
        """The portable path (SQLite): bulk_create, which returns the new primary keys."""
        answers = Answer.objects.bulk_create(
            [
                Answer(
                    run=self.runs[p.run_id].run,
                    topic_id=self.topics[p.topic_id][0],
                    references=p.references,
                    response_length=p.response_length,
                )
                for p in batch
            ],
            batch_size=1000,
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
        return len(sentences), len(citations)


class _CopyWriter:
    """The PostgreSQL write path: a thread that sends batches with COPY while the caller parses the next.

    It uses the import's own connection (psycopg connections may be shared between threads; each thread has
    its own cursor), so everything stays in the one transaction and a rejection rolls it all back. Ids are
    taken from the tables' sequences up front, so answers, sentences and citations need no round trip to
    learn their keys. The assess foreign keys are made IMMEDIATE for the import: their checks, about half of
    the server's work, then run at the end of each COPY, alongside the parsing, instead of all at commit.
    """

    def __init__(self) -> None:
        connection.ensure_connection()
        self.conn: Any = connection.connection
        self.passage_pks: dict[str, int] = {}
        self.counts = {"answers": 0, "sentences": 0, "citations": 0, "passages_created": 0}
        self.error: BaseException | None = None
        self.queue: queue.Queue[list[Any] | None] = queue.Queue(maxsize=1)
        self.deferred = self._constraints_immediate()
        self.thread = threading.Thread(target=self._run, name="runs-import-copy", daemon=True)
        self.thread.start()

    def submit(self, rows: list[Any]) -> None:
        self._raise()
        self.queue.put(rows)

    def wait_idle(self) -> None:
        self.queue.join()
        self._raise()

    def close(self) -> dict[str, int]:
        self.queue.put(None)
        self.thread.join()
        self._raise()
        if self.deferred:
            with connection.cursor() as cur:
                cur.execute(f"SET CONSTRAINTS {', '.join(self.deferred)} DEFERRED")
        return self.counts

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def _constraints_immediate(self) -> list[str]:
        tables = [m._meta.db_table for m in (Answer, Sentence, Citation)]
        with connection.cursor() as cur:
            cur.execute(
                "SELECT conname FROM pg_constraint WHERE contype = 'f' AND condeferrable AND condeferred "
                "AND conrelid IN (%s::regclass, %s::regclass, %s::regclass)",
                tables,
            )
            names = [connection.ops.quote_name(row[0]) for row in cur.fetchall()]
            if names:
                cur.execute(f"SET CONSTRAINTS {', '.join(names)} IMMEDIATE")
        return names

    def _run(self) -> None:
        while True:
            rows = self.queue.get()
            try:
                if rows is None:
                    return
                if self.error is None:
                    self._write(rows)
            except BaseException as exc:  # handed to the caller's thread, which raises it
                self.error = exc
            finally:
                self.queue.task_done()

    def _write(self, rows: list[Any]) -> None:
        q = connection.ops.quote_name
        with self.conn.cursor() as cur:
            passage_pk = self._passage_ids(cur, {pid for row in rows for _, cites in row[4] for _, pid in cites})
            n_sentences = sum(len(row[4]) for row in rows)
            answer_ids = _next_ids(cur, Answer._meta.db_table, len(rows))
            sentence_ids = _next_ids(cur, Sentence._meta.db_table, n_sentences)
            with cur.copy(
                f"COPY {q(Answer._meta.db_table)} (id, run_id, topic_id, {q('references')}, response_length) FROM STDIN"
            ) as copy:
                for answer_id, (run_pk, topic_pk, references, response_length, _) in zip(answer_ids, rows, strict=True):
                    copy.write_row((answer_id, run_pk, topic_pk, references, response_length))
            with cur.copy(f"COPY {q(Sentence._meta.db_table)} (id, answer_id, {q('index')}, text) FROM STDIN") as copy:
                ids = iter(sentence_ids)
                for answer_id, row in zip(answer_ids, rows, strict=True):
                    for i, (text, _) in enumerate(row[4]):
                        copy.write_row((next(ids), answer_id, i, text))
            n_citations = 0
            with cur.copy(
                f"COPY {q(Citation._meta.db_table)} (sentence_id, slot, passage_id, reference_index) FROM STDIN"
            ) as copy:
                ids = iter(sentence_ids)
                for row in rows:
                    for _, cites in row[4]:
                        sentence_id = next(ids)
                        for slot, (idx, pid) in enumerate(cites):
                            copy.write_row((sentence_id, slot, passage_pk[pid], idx))
                        n_citations += len(cites)
        self.counts["answers"] += len(rows)
        self.counts["sentences"] += n_sentences
        self.counts["citations"] += n_citations

    def _passage_ids(self, cur: Any, cited: set[str]) -> dict[str, int]:
        cache = self.passage_pks
        wanted = sorted(pid for pid in cited if pid not in cache)
        if len(cache) + len(wanted) > PASSAGE_CACHE_LIMIT:
            cache.clear()  # keeps memory flat on inputs that cite millions of passages
            wanted = sorted(cited)
        if wanted:
            self.counts["passages_created"] += self._passages_ensure(cur, wanted, cache)
        return cache

    def _passages_ensure(self, cur: Any, wanted: list[str], cache: dict[str, int]) -> int:
        """Insert the passage ids not yet in the table and read back every wanted id's key, in one statement
        (the SELECT does not see the CTE's new rows, so the two halves do not overlap). The ids go as one
        JSON string: quoting a 10,000-element array parameter client-side is slow."""
        table = connection.ops.quote_name(Passage._meta.db_table)
        ids = json.dumps(wanted)
        cur.execute(
            f"WITH new AS (INSERT INTO {table} (passage_id, title, text, url, headings, has_text) "
            f"SELECT p, '', '', '', '', false FROM jsonb_array_elements_text(%s::jsonb) AS p "
            f"ON CONFLICT (passage_id) DO NOTHING RETURNING passage_id, id) "
            f"SELECT passage_id, id, true FROM new UNION ALL SELECT passage_id, id, false FROM {table} "
            f"WHERE passage_id IN (SELECT jsonb_array_elements_text(%s::jsonb))",
            [ids, ids],
        )
        created = 0
        for pid, pk, is_new in cur.fetchall():
            cache[pid] = pk
            created += is_new
        return created


def _next_ids(cur: Any, table: str, n: int) -> list[int]:
    """Take `n` ids from a table's id sequence (safe alongside other writers: nextval never repeats)."""
    if n == 0:
        return []
    cur.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [table, n])
    return [row[0] for row in cur.fetchall()]
