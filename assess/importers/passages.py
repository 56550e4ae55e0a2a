"""Passage texts: loaded from JSON lines files, or filled from an MS MARCO V2.1 segmented corpus."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from assess.importers.fields import SEGMENT_ID, empty_file_error
from assess.importers.lines import InputFile, ProgressCallback, as_inputs, read_json_lines, with_offsets
from assess.importers.report import ImportRejected, ImportReport, Line, reject_if_errors
from assess.importers.schema import PassageLine, RetrievalLine, RetrievedDoc, WebisLine, line_check
from assess.models import Passage
from assess.selectors import passages_missing_text

BATCH_PASSAGES = 2000


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
                    row = _read_segment_at(report.at(path.name, None), fh, size, offset, pid)
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


def _read_segment_at(shard: Line, fh: Any, size: int, offset: int, pid: str) -> PassageRow | None:
    """Read the one corpus line at `offset` (a line is at most a few kB: read no more than 1 MB)."""
    if offset >= size:
        shard.error("offset", f"{pid}: byte {offset} is past the end of the shard ({size} bytes)")
        return None
    fh.seek(offset)
    raw = fh.readline(1 << 20)
    try:
        obj = json.loads(raw)
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
    for name in (f"msmarco_v2.1_doc_segmented_{shard}.json", f"msmarco_v2.1_doc_segmented_{shard}.jsonl"):
        if (corpus / name).is_file():
            return corpus / name
    return None
