"""Passage texts: loaded from JSON lines files, or filled from an MS MARCO V2.1 segmented corpus."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from assess.importers.fields import SEGMENT_ID, empty_file_error
from assess.importers.lines import (
    MAX_JSON_DEPTH,
    InputFile,
    ProgressCallback,
    as_inputs,
    json_depth_exceeds,
    read_json_lines,
    with_offsets,
)
from assess.importers.report import ImportRejected, ImportReport, Line, reject_if_errors
from assess.importers.schema import PassageLine, RetrievalLine, RetrievedDoc, WebisLine, line_check
from assess.models import Passage
from assess.selectors import passages_missing_text

BATCH_PASSAGES = 2000
# The corpus is distributed as gzipped shards (`msmarco_v2.1_doc_segmented_00.json.gz`); some unpack them.
SHARD_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")


@dataclass(frozen=True)
class PassageRow:
    passage_id: str
    text: str
    title: str = ""
    url: str = ""
    headings: str = ""
    where: str = field(default="docid", compare=False)  # where the id is, for messages


def passages_import(
    *, files: Iterable[InputFile | str | Path], progress: ProgressCallback | None = None
) -> ImportReport:
    """Load passage texts from MS MARCO V2.1 segmented JSONL (plain or .gz), `{docid, segment}` lines,
    ragnarok retrieval results (`{query, candidates:[{docid, doc}]}`) or the Webis crowd retrieval file
    (`{references_ids, references_texts}`). Existing rows are filled or updated. The same passage twice with
    the same content is read once; with another content it is an error naming both places."""
    report = ImportReport()
    seen = _SeenPassages()
    with transaction.atomic():
        batch: dict[str, PassageRow] = {}
        for f, offset, total in with_offsets(as_inputs(files)):
            found = 0
            for line, obj in read_json_lines(report, f, progress=progress, offset=offset, total=total):
                for row in _passage_rows(line, obj):
                    found += 1
                    if seen.first(line, row):
                        batch[row.passage_id] = row
                if len(batch) >= BATCH_PASSAGES and report.ok:
                    _passages_upsert(report, batch.values())
                    batch = {}
            if not found and not report.has_errors_in(f.name):
                empty_file_error(report, f, "passages")
        reject_if_errors(report)
        _passages_upsert(report, batch.values())
    return report


class _SeenPassages:
    """Each passage id read so far, with a digest of its content and where it was first read."""

    def __init__(self) -> None:
        self.where: dict[str, tuple[bytes, str, int | None]] = {}

    def first(self, line: Line, row: PassageRow) -> bool:
        """True for the first time an id is read; a repeat with another content is an error at the repeat."""
        digest = hashlib.blake2b(
            "\x1f".join((row.text, row.title, row.url, row.headings)).encode(), digest_size=16
        ).digest()
        known = self.where.get(row.passage_id)
        if known is None:
            self.where[row.passage_id] = (digest, line.file, line.number)
            return True
        if known[0] != digest:
            line.error(
                row.where,
                f"passage {row.passage_id} appears again with another content (first at {known[1]}:{known[2]})",
            )
        return False


def _passage_rows(line: Line, obj: dict[str, Any]) -> Iterator[PassageRow]:
    """The passages of one line, whichever of the three forms it has (each checked by its schema)."""
    if "candidates" in obj:
        retrieved = line_check(line, RetrievalLine, obj)
        if retrieved is not None:
            for i, cand in enumerate(retrieved.candidates):
                row = _row(line, cand.docid, cand.doc, f"candidates[{i}].docid")
                if row is not None:
                    yield row
    elif "references_ids" in obj:
        webis = line_check(line, WebisLine, obj)
        if webis is None:
            return
        if len(webis.references_ids) != len(webis.references_texts):
            line.error("references_texts", "expected two lists of the same length")
            return
        for i, (pid, text) in enumerate(zip(webis.references_ids, webis.references_texts, strict=True)):
            row = _row(line, pid, RetrievedDoc(segment=text), f"references_ids[{i}]")
            if row is not None:
                yield row
    else:
        segment = line_check(line, PassageLine, obj)
        if segment is not None:
            row = _row(line, segment.docid, segment, "docid")
            if row is not None:
                yield row


def _row(line: Line, pid: str, doc: PassageLine | RetrievedDoc, where: str) -> PassageRow | None:
    if not doc.segment.strip():
        line.warn(
            where.replace("docid", "segment").replace("references_ids", "references_texts"),
            f"passage {pid} has empty text; left without text",
        )
        return None
    return PassageRow(
        passage_id=pid, text=doc.segment, title=doc.title, url=doc.url, headings=doc.headings, where=where
    )


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


# --- the corpus fill ------------------------------------------------------------------------------


def passages_fill_from_corpus(*, corpus_dir: str | Path, progress: ProgressCallback | None = None) -> ImportReport:
    """Fill the cited passages that have no text from an MS MARCO V2.1 segmented corpus directory.

    The segment id carries the byte offset of its line in its (uncompressed) shard
    (`msmarco_v2.1_doc_<shard>_<doc offset>#<index>_<offset>`). In a plain shard each passage costs one
    seek and one line read; the 25 GB corpus is never scanned. A gzipped shard (the official distribution)
    cannot seek, so it is decompressed as a stream, in chunks, up to each wanted offset in order: never a
    whole shard in memory, and no line but the wanted ones parsed. A line at that offset that is not this
    passage's JSON line is an error, and nothing is filled. A shard that is not in the directory is a warning
    naming how many passages stay without text (`missing_passages` lists them).
    """
    corpus = Path(corpus_dir)
    report = ImportReport()
    if not corpus.is_dir():
        report.error(str(corpus), None, "corpus", "not a directory")
        raise ImportRejected(report)
    by_shard, n_missing = _missing_by_shard(report, corpus)
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
                    f"no shard file msmarco_v2.1_doc_segmented_{shard}.json (or .jsonl, .json.gz, .jsonl.gz); "
                    f"{len(wanted)} passages left without text",
                )
                done += len(wanted)
                continue
            with _ShardReader(path) as shard_file:
                for offset, pid in sorted(wanted):
                    done += 1
                    row = _read_segment_at(report.at(path.name, None), shard_file, offset, pid)
                    if progress is not None and (shard_file.compressed or done % 1000 == 0):
                        progress(done, n_missing)
                    if row is not None:
                        rows.append(row)
                    if len(rows) >= BATCH_PASSAGES and report.ok:
                        _passages_upsert(report, rows)
                        rows = []
        reject_if_errors(report)
        _passages_upsert(report, rows)
    if progress is not None:
        progress(n_missing, n_missing)
    report.add("passages_missing_before", n_missing)
    return report


class _ShardReader:
    """One shard, plain or gzipped, read at increasing byte offsets of its uncompressed text."""

    SKIP_CHUNK = 1 << 20

    def __init__(self, path: Path) -> None:
        self.compressed = path.name.endswith(".gz")
        self.fh: Any = gzip.open(path, "rb") if self.compressed else open(path, "rb")  # noqa: SIM115
        # A plain shard's size is known up front; a gzipped one's only once the stream has ended.
        self.size: int | None = None if self.compressed else path.stat().st_size

    def __enter__(self) -> _ShardReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()

    def line_at(self, offset: int) -> bytes | None:
        """The line that starts at `offset` (at most 1 MB: a line is a few kB), or None past the end."""
        if self.size is not None:
            if offset >= self.size:
                return None
            self.fh.seek(offset)
            return bytes(self.fh.readline(1 << 20))
        position = self.fh.tell()
        if offset < position:  # two ids with one offset, or out of order: start the stream again
            self.fh.seek(0)
            position = 0
        while position < offset:
            chunk = self.fh.read(min(self.SKIP_CHUNK, offset - position))
            if not chunk:
                self.size = position
                return None
            position += len(chunk)
        raw = bytes(self.fh.readline(1 << 20))
        if not raw:
            self.size = position
            return None
        return raw


def _missing_by_shard(report: ImportReport, corpus: Path) -> tuple[dict[str, list[tuple[int, str]]], int]:
    """The passages without text by shard, as (byte offset, id); and how many there are."""
    by_shard: dict[str, list[tuple[int, str]]] = {}
    n_missing = 0
    for pid in passages_missing_text().values_list("passage_id", flat=True).iterator(chunk_size=10_000):
        n_missing += 1
        m = SEGMENT_ID.match(pid)
        if m is None:
            report.warn(corpus.name, None, "passage_id", f"{pid}: not an MS MARCO V2.1 segment id; skipped")
            continue
        by_shard.setdefault(m["shard"], []).append((int(m["offset"]), pid))
    return by_shard, n_missing


def _read_segment_at(shard: Line, shard_file: _ShardReader, offset: int, pid: str) -> PassageRow | None:
    raw = shard_file.line_at(offset)
    if raw is None:
        size = f"{shard_file.size} bytes" + (" uncompressed" if shard_file.compressed else "")
        shard.error("offset", f"{pid}: byte {offset} is past the end of the shard ({size})")
        return None
    try:
        text = raw.decode("utf-8")
        if json_depth_exceeds(text) is not None:
            shard.error("offset", f"{pid}: the line at byte {offset} is nested deeper than {MAX_JSON_DEPTH} levels")
            return None
        obj = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        shard.error("offset", f"{pid}: no JSON line starts at byte {offset}")
        return None
    found = obj.get("docid") if isinstance(obj, dict) else None
    if found != pid:
        shard.error("docid", f"{pid}: the line at byte {offset} is {found!r}")
        return None
    segment = line_check(shard, PassageLine, obj)
    return _row(shard, segment.docid, segment, "docid") if segment is not None else None


def _shard_path(corpus: Path, shard: str) -> Path | None:
    """The shard's file: a plain one first (it can seek), else the gzipped one."""
    for suffix in SHARD_SUFFIXES:
        path = corpus / f"msmarco_v2.1_doc_segmented_{shard}{suffix}"
        if path.is_file():
            return path
    return None
