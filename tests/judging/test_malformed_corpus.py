"""A corpus of malformed files, each tried through the three channels an organizer has: the command, the
upload page and the API. Each must be refused cleanly: the first error names the file, the line (where
the file has one) and the field; every table keeps its row count; the server still answers.

The files are generated here, the large ones streaming (a 1 MB gzip that expands to 1 GiB is never held in
memory). Issue 17, point 1."""

from __future__ import annotations

import gzip
import html
import io
import json
import re
import tracemalloc
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from assess.importers.passages import passages_import
from assess.importers.runs import runs_import
from assess.importers.topics import topics_import
from tests.factories import JudgeFactory

REF = [f"msmarco_v2.1_doc_00_{i}#0_{i * 100}" for i in range(3)]
MB = 1 << 20
# Tables an attempt may write by design: the upload's own job record, the session of the signed-in client.
NOT_COMPARED = {"assess.importjob", "sessions.session"}


def run_line(**overrides):
    obj = {
        "run_id": "team.new",
        "topic_id": "2024-1",
        "topic": "first question",
        "references": REF[:2],
        "response_length": 4,
        "answer": [{"text": "Alpha beta.", "citations": [0]}, {"text": "Gamma delta.", "citations": [1, 0]}],
    }
    obj.update(overrides)
    return obj


def nist_line(**overrides):
    obj = {
        "topic_id": "2024-1",
        "run_id": "team.old",
        "sentences": [
            {"sentenceID": 0, "text": "Alpha beta.", "citations": [{"reference": REF[0], "support": "2"}]},
            {"sentenceID": 1, "text": "Gamma delta.", "citations": [{"reference": REF[1], "support": "1"}]},
        ],
    }
    obj.update(overrides)
    return obj


def jl(*objs) -> bytes:
    return "".join(o if isinstance(o, str) else json.dumps(o) + "\n" for o in objs).encode()


CSV_HEADER = "topic_id,run_id,sentence_index,citation_slot,judge,judge_kind,label,seconds\n"


def csv_rows(*rows: str) -> bytes:
    return (CSV_HEADER + "".join(r + "\n" for r in rows)).encode()


GOOD_ROW = "2024-1,team.old,0,0,ext,llm,FS,3"


def exchange_row(**overrides):
    obj = {
        "topic_id": "2024-1",
        "run_id": "team.old",
        "sentence_index": 0,
        "citation_slot": 0,
        "judge": "ext",
        "judge_kind": "llm",
        "label": "FS",
    }
    obj.update(overrides)
    return obj


def deep(n: int) -> str:
    return "[" * n + "]" * n


def gzip_bomb(path: Path, *, chunk: bytes, chunks: int) -> None:
    """A gzip of `chunk` repeated `chunks` times, written streaming: about 1 MB for 1 GiB of zeros."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        for _ in range(chunks):
            out.write(packer.compress(chunk))
        out.write(packer.flush())


def huge_line(path: Path, *, prefix: bytes, size: int) -> None:
    """One line of `size` bytes and no newline, written in pieces."""
    with open(path, "wb") as out:
        out.write(prefix)
        for _ in range(size // MB):
            out.write(b"a" * MB)


@dataclass(frozen=True)
class Bad:
    id: str
    kind: str  # topics, passages, runs, nist-runs, exchange, nist-judgments
    name: str
    data: bytes | Callable[[Path], None]
    first_error: str  # how the first error reads: `file:line: field: text` (its start), or `re:` a pattern
    options: dict = field(default_factory=dict)


NUL = "\u0000"
BOMB = lambda path: gzip_bomb(path, chunk=bytes(MB), chunks=1024)  # noqa: E731  1 MB -> 1 GiB, no newline
BLANK_BOMB = lambda path: gzip_bomb(path, chunk=(b" " * 1023 + b"\n") * 1024, chunks=1024)  # noqa: E731
LONG_LINE = 9 * MB
LINE_LIMIT = "the line is longer than 8,388,608 bytes (the limit)"

CORPUS: list[Bad] = [
    # --- topics
    Bad("topics-latin1", "topics", "t.tsv", "2024-7\tcafé\n".encode("latin-1"), "t.tsv:1: not UTF-8 text"),
    Bad("topics-utf16", "topics", "t.tsv", "2024-7\tseven\n".encode("utf-16"), "t.tsv:1: UTF-16 text"),
    Bad("topics-utf16-no-bom", "topics", "t.tsv", "2024-7\tseven\n".encode("utf-16-le"), "t.tsv:1: topic_id: holds"),
    Bad("topics-empty", "topics", "t.tsv", b"", "t.tsv: the file is empty"),
    Bad("topics-blank-lines", "topics", "t.tsv", b"\n \r\n\n", "t.tsv: no topics found"),
    Bad(
        "topics-nul-in-text",
        "topics",
        "t.tsv",
        b"2024-7\tse\x00ven\n",
        "t.tsv:1: text: holds the control character U+0000",
    ),
    Bad(
        "topics-control-in-id",
        "topics",
        "t.tsv",
        b"20\x0124-7\tseven\n",
        "t.tsv:1: topic_id: holds the control character U+0001",
    ),
    Bad(
        "topics-del-in-id",
        "topics",
        "t.tsv",
        b"2024-7\x7f\tseven\n",
        "t.tsv:1: topic_id: holds the control character U+007F",
    ),
    Bad(
        "topics-id-too-long",
        "topics",
        "t.tsv",
        b"7" * 65 + b"\tseven\n",
        "t.tsv:1: topic_id: longer than 64 characters",
    ),
    Bad(
        "topics-text-50-kb",
        "topics",
        "t.tsv",
        b"2024-7\t" + b"w " * 25_000 + b"\n",
        "t.tsv:1: text: longer than 20,000",
    ),
    Bad(
        "topics-json-nul-escape",
        "topics",
        "t.jsonl",
        jl({"topic_id": "2024-7", "text": f"a{NUL}b"}),
        "t.jsonl:1: text: holds the control character U+0000 at character 2",
    ),
    Bad(
        "topics-json-text-a-number",
        "topics",
        "t.jsonl",
        jl({"topic_id": "2024-7", "text": 5}),
        "t.jsonl:1: text: expected a string, got 5",
    ),
    Bad(
        "topics-json-id-a-list",
        "topics",
        "t.jsonl",
        jl({"topic_id": ["2024-7"], "text": "x"}),
        "t.jsonl:1: topic_id: expected a string or a number",
    ),
    Bad(
        "topics-json-id-5000-digits",
        "topics",
        "t.jsonl",
        b'{"topic_id": ' + b"9" * 5000 + b', "text": "x"}\n',
        "t.jsonl:1: topic_id: a number of 5000 digits is out of range",
    ),
    Bad(
        "topics-json-nested-50000",
        "topics",
        "t.jsonl",
        ('{"topic_id": "1", "text": ' + deep(50_000) + "}\n").encode(),
        "t.jsonl:1: JSON nested deeper than 32 levels",
    ),
    Bad(
        "topics-same-id-two-texts",
        "topics",
        "t.tsv",
        b"2024-7\tseven\n2024-7\tsept\n",
        "t.tsv:2: topic_id: topic '2024-7' appears again with another text",
    ),
    Bad(
        "topics-crlf-same-id-two-texts",
        "topics",
        "t.tsv",
        b"2024-7\tseven\r\n2024-7\tsept\r\n",
        "t.tsv:2: topic_id: topic '2024-7' appears again",
    ),
    Bad(
        "topics-huge-line",
        "topics",
        "t.tsv",
        lambda p: huge_line(p, prefix=b"2024-7\t", size=LONG_LINE),
        f"t.tsv:1: {LINE_LIMIT}",
    ),
    Bad("topics-gzip-bomb", "topics", "t.tsv.gz", BOMB, f"t.tsv.gz:1: {LINE_LIMIT}"),
    Bad(
        "topics-gz-not-gzip",
        "topics",
        "t.tsv.gz",
        b"2024-7\tseven\n",
        "t.tsv.gz:1: the file is named .gz but is not gzip-compressed",
    ),
    Bad(
        "topics-path-in-name",
        "topics",
        "../../etc/t.tsv",
        b"2024-7\t\x00\n",
        "t.tsv:1: text: holds the control character",
    ),
    # --- passages
    Bad(
        "passages-title-a-number",
        "passages",
        "p.jsonl",
        jl({"docid": REF[2], "segment": "x", "title": 5}),
        "p.jsonl:1: title: expected a string, got 5",
    ),
    Bad(
        "passages-same-id-two-texts",
        "passages",
        "p.jsonl",
        jl({"docid": REF[2], "segment": "one"}, {"docid": REF[2], "segment": "two"}),
        f"p.jsonl:2: docid: passage {REF[2]} appears again with another content (first at p.jsonl:1)",
    ),
    Bad(
        "passages-id-too-long",
        "passages",
        "p.jsonl",
        jl({"docid": "d" * 129, "segment": "x"}),
        "p.jsonl:1: docid: longer than 128 characters",
    ),
    Bad(
        "passages-nul-in-segment",
        "passages",
        "p.jsonl",
        jl({"docid": REF[2], "segment": f"a{NUL}"}),
        "p.jsonl:1: segment: holds the control character U+0000 at character 2",
    ),
    Bad(
        "passages-bell-in-url",
        "passages",
        "p.jsonl",
        jl({"docid": REF[2], "segment": "x", "url": "http://x/\u0007"}),
        "p.jsonl:1: url: holds the control character U+0007",
    ),
    Bad(
        "passages-escape-in-docid",
        "passages",
        "p.jsonl",
        jl({"docid": "doc\u001b[31m", "segment": "x"}),
        "p.jsonl:1: docid: holds the control character U+001B",
    ),
    Bad(
        "passages-start-char-negative",
        "passages",
        "p.jsonl",
        jl({"docid": REF[2], "segment": "x", "start_char": -1}),
        "p.jsonl:1: start_char: expected a non-negative integer, got -1",
    ),
    Bad(
        "passages-start-char-30-digits",
        "passages",
        "p.jsonl",
        b'{"docid": "d", "segment": "x", "start_char": ' + b"1" * 30 + b"}\n",
        "p.jsonl:1: start_char: a number of 30 digits is out of range",
    ),
    Bad(
        "passages-end-char-infinity",
        "passages",
        "p.jsonl",
        b'{"docid": "d", "segment": "x", "end_char": Infinity}\n',
        "p.jsonl:1: end_char: expected an integer, got inf",
    ),
    Bad(
        "passages-headings-nested",
        "passages",
        "p.jsonl",
        ('{"docid": "d", "segment": "x", "headings": ' + deep(40) + "}\n").encode(),
        "p.jsonl:1: JSON nested deeper than 32 levels at column 75",
    ),
    Bad(
        "passages-candidates-not-a-list",
        "passages",
        "p.jsonl",
        jl({"query": "q", "candidates": 5}),
        "p.jsonl:1: candidates: expected a list, got 5",
    ),
    Bad(
        "passages-candidate-nul-docid",
        "passages",
        "p.jsonl",
        jl({"query": "q", "candidates": [{"docid": f"d{NUL}", "doc": {"segment": "x"}}]}),
        "p.jsonl:1: candidates[0].docid: holds the control character U+0000",
    ),
    Bad(
        "passages-webis-text-a-number",
        "passages",
        "p.jsonl",
        jl({"references_ids": [REF[2]], "references_texts": [7]}),
        "p.jsonl:1: references_texts[0]: expected a string, got 7",
    ),
    Bad(
        "passages-latin1",
        "passages",
        "p.jsonl",
        '{"docid": "d", "segment": "né"}\n'.encode("latin-1"),
        "p.jsonl:1: not UTF-8 text",
    ),
    Bad(
        "passages-utf16",
        "passages",
        "p.jsonl",
        '{"docid": "d", "segment": "x"}\n'.encode("utf-16"),
        "p.jsonl:1: UTF-16 text",
    ),
    Bad("passages-empty-gzip", "passages", "p.jsonl.gz", gzip.compress(b""), "p.jsonl.gz: no passages found"),
    Bad(
        "passages-gz-not-gzip",
        "passages",
        "p.jsonl.gz",
        jl({"docid": "d", "segment": "x"}),
        "p.jsonl.gz:1: the file is named .gz but is not gzip-compressed",
    ),
    Bad("passages-gzip-bomb", "passages", "p.jsonl.gz", BOMB, f"p.jsonl.gz:1: {LINE_LIMIT}"),
    Bad(
        "passages-gzip-bomb-of-blank-lines",
        "passages",
        "p.jsonl.gz",
        BLANK_BOMB,
        r"re:p\.jsonl\.gz:\d+: the gzip file expands to more than [\d,]+ bytes \(32 times its size\)$",
    ),
    Bad(
        "passages-huge-line",
        "passages",
        "p.jsonl",
        lambda p: huge_line(p, prefix=b'{"docid": "d", "segment": "', size=LONG_LINE),
        f"p.jsonl:1: {LINE_LIMIT}",
    ),
    Bad(
        "passages-path-in-name",
        "passages",
        "/etc/cron.d/p.jsonl",
        jl({"docid": REF[2], "segment": 1}),
        "p.jsonl:1: segment: expected a string, got 1",
    ),
    # --- runs (TREC)
    Bad(
        "runs-latin1",
        "runs",
        "r.jsonl",
        json.dumps(run_line(topic="café"), ensure_ascii=False).encode("latin-1") + b"\n",
        "r.jsonl:1: not UTF-8 text",
    ),
    Bad("runs-utf16", "runs", "r.jsonl", jl(run_line()).decode().encode("utf-16"), "r.jsonl:1: UTF-16 text"),
    Bad("runs-empty", "runs", "r.jsonl", b"", "r.jsonl: the file is empty"),
    Bad(
        "runs-crlf-citation-out-of-range",
        "runs",
        "r.jsonl",
        jl(run_line()).replace(b"\n", b"\r\n")
        + json.dumps(
            run_line(topic_id="2024-2", topic="second question", answer=[{"text": "x", "citations": [5]}])
        ).encode()
        + b"\r\n",
        "r.jsonl:2: answer[0].citations[0]: citation index 5 is out of range",
    ),
    Bad(
        "runs-nul-in-sentence",
        "runs",
        "r.jsonl",
        jl(run_line(answer=[{"text": f"Alpha{NUL} beta.", "citations": [0]}])),
        "r.jsonl:1: answer[0].text: holds the control character U+0000 at character 6",
    ),
    Bad(
        "runs-nul-in-run-id",
        "runs",
        "r.jsonl",
        jl(run_line(run_id=f"team{NUL}.new")),
        "r.jsonl:1: run_id: holds the control character U+0000",
    ),
    Bad(
        "runs-nul-in-new-topic-text",
        "runs",
        "r.jsonl",
        jl(run_line(topic_id="2024-99", topic=f"new{NUL}")),
        "r.jsonl:1: topic: holds the control character U+0000",
    ),
    Bad(
        "runs-escape-in-reference",
        "runs",
        "r.jsonl",
        jl(run_line(references=[REF[0], "doc\u001b"])),
        "r.jsonl:1: references[1]: holds the control character U+001B",
    ),
    Bad(
        "runs-topic-text-too-long",
        "runs",
        "r.jsonl",
        jl(run_line(topic_id="2024-99", topic="q" * 20_001)),
        "r.jsonl:1: topic: longer than 20,000",
    ),
    Bad(
        "runs-sentence-too-long",
        "runs",
        "r.jsonl",
        jl(run_line(answer=[{"text": "w" * 20_001, "citations": []}])),
        "r.jsonl:1: answer[0].text: longer than 20,000",
    ),
    Bad(
        "runs-run-id-too-long",
        "runs",
        "r.jsonl",
        jl(run_line(run_id="r" * 256)),
        "r.jsonl:1: run_id: longer than 255 characters",
    ),
    Bad(
        "runs-response-length-40-digits",
        "runs",
        "r.jsonl",
        jl(run_line()).replace(b'"response_length": 4', b'"response_length": ' + b"4" * 40),
        "r.jsonl:1: response_length: a number of 40 digits is out of range",
    ),
    Bad(
        "runs-response-length-above-int",
        "runs",
        "r.jsonl",
        jl(run_line(response_length=2**31)),
        "r.jsonl:1: response_length: expected a number of at most 2,147,483,647",
    ),
    Bad(
        "runs-response-length-1e999",
        "runs",
        "r.jsonl",
        jl(run_line()).replace(b'"response_length": 4', b'"response_length": 1e999'),
        "r.jsonl:1: response_length: expected an integer, got inf",
    ),
    Bad(
        "runs-citation-nan",
        "runs",
        "r.jsonl",
        jl(run_line()).replace(b'"citations": [0]', b'"citations": [NaN]'),
        "r.jsonl:1: answer[0].citations[0]: expected an integer, got nan",
    ),
    Bad("runs-topic-a-number", "runs", "r.jsonl", jl(run_line(topic=5)), "r.jsonl:1: topic: expected a string, got 5"),
    Bad(
        "runs-answer-nested",
        "runs",
        "r.jsonl",
        jl(run_line()).replace(b'"answer": [', b'"answer": [' + deep(100).encode() + b", "),
        "r.jsonl:1: JSON nested deeper than 32 levels",
    ),
    Bad(
        "runs-same-topic-two-answers",
        "runs",
        "r.jsonl",
        jl(run_line(), run_line(answer=[{"text": "Other.", "citations": [0]}])),
        "r.jsonl:2: topic_id: topic 2024-1 answered twice in this run (first at line 1)",
    ),
    Bad(
        "runs-team-id-too-long",
        "runs",
        "r.jsonl",
        jl(
            {
                "metadata": {"team_id": "t" * 129, "run_id": "team.new", "narrative_id": "2024-1"},
                "references": REF[:1],
                "answer": [],
            }
        ),
        "r.jsonl:1: metadata.team_id: longer than 128 characters",
    ),
    Bad(
        "runs-huge-line",
        "runs",
        "r.jsonl",
        lambda p: huge_line(p, prefix=b'{"run_id": "', size=LONG_LINE),
        f"r.jsonl:1: {LINE_LIMIT}",
    ),
    Bad("runs-gzip-bomb", "runs", "r.jsonl.gz", BOMB, f"r.jsonl.gz:1: {LINE_LIMIT}"),
    Bad(
        "runs-gz-not-gzip",
        "runs",
        "r.jsonl.gz",
        b"\x00\x01garbage",
        "r.jsonl.gz:1: the file is named .gz but is not gzip-compressed",
    ),
    Bad(
        "runs-truncated-gzip",
        "runs",
        "r.jsonl.gz",
        gzip.compress(jl(run_line()))[:-12],
        "r.jsonl.gz:1: the file ends early (truncated gzip?)",
    ),
    Bad(
        "runs-path-in-name",
        "runs",
        "../../r.jsonl",
        jl(run_line(run_id=7)),
        "r.jsonl:1: run_id: expected a string, got 7",
    ),
    # --- runs in NIST's form
    Bad(
        "nist-runs-nul-in-reference",
        "nist-runs",
        "n.jsonl",
        jl(
            nist_line(
                run_id="grp.n", sentences=[{"sentenceID": 0, "text": "x", "citations": [{"reference": f"d{NUL}"}]}]
            )
        ),
        "n.jsonl:1: sentences[0].citations[0].reference: holds the control character U+0000",
    ),
    Bad(
        "nist-runs-sentence-id-huge",
        "nist-runs",
        "n.jsonl",
        jl(nist_line(run_id="grp.n")).replace(b'"sentenceID": 0', b'"sentenceID": ' + b"1" * 25),
        "n.jsonl:1: sentences[0].sentenceID: a number of 25 digits is out of range",
    ),
    Bad(
        "nist-runs-sentences-not-a-list",
        "nist-runs",
        "n.jsonl",
        jl(nist_line(run_id="grp.n", sentences={"0": "x"})),
        "n.jsonl:1: sentences: expected a list",
    ),
    # --- judgments exchange
    Bad(
        "exchange-seconds-1e999",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,ext,llm,FS,1e999"),
        "j.csv:2: seconds: expected a finite number, got '1e999'",
    ),
    Bad(
        "exchange-seconds-infinity-jsonl",
        "exchange",
        "j.jsonl",
        jl(exchange_row()).replace(b"}\n", b', "seconds": Infinity}\n'),
        "j.jsonl:1: seconds: expected a finite number, got inf",
    ),
    Bad(
        "exchange-seconds-negative",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,ext,llm,FS,-3"),
        "j.csv:2: seconds: expected a non-negative integer",
    ),
    Bad(
        "exchange-seconds-over-a-day",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,ext,llm,FS,86400"),
        "j.csv:2: seconds: expected a number below 86,400",
    ),
    Bad(
        "exchange-judge-200-characters",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0," + "j" * 200 + ",llm,FS,3"),
        "j.csv:2: judge: longer than 128 characters",
    ),
    Bad(
        "exchange-judge-human",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,human,human,FS,3"),
        "j.csv:2: judge: 'human' is a reserved name",
    ),
    Bad(
        "exchange-judge-a-label-set-kind",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,Campaign,llm,FS,3"),
        "j.csv:2: judge: 'Campaign' is a reserved name",
    ),
    Bad(
        "exchange-judge-campaign-prefix",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,campaign:demo,llm,FS,3"),
        "j.csv:2: judge: 'campaign:demo' would read as a campaign label set",
    ),
    Bad(
        "exchange-judge-an-assessor",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,alice,,FS,3"),
        "j.csv:2: judge: judge alice is a platform assessor's",
    ),
    Bad(
        "exchange-nul-in-judge",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,ex\x00t,llm,FS,3"),
        "j.csv:2: judge: holds the control character U+0000",
    ),
    Bad(
        "exchange-nul-escape-in-run-id",
        "exchange",
        "j.jsonl",
        jl(exchange_row(run_id=f"team{NUL}.old")),
        "j.jsonl:1: run_id: holds the control character U+0000",
    ),
    Bad(
        "exchange-index-a-boolean",
        "exchange",
        "j.jsonl",
        jl(exchange_row(sentence_index=True)),
        "j.jsonl:1: sentence_index: expected a non-negative integer, got True",
    ),
    Bad(
        "exchange-index-a-fraction",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0.5,0,ext,llm,FS,3"),
        "j.csv:2: sentence_index: expected a non-negative integer, got '0.5'",
    ),
    Bad(
        "exchange-slot-30-digits",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0," + "9" * 30 + ",ext,llm,FS,3"),
        "j.csv:2: citation_slot: expected a non-negative integer",
    ),
    Bad(
        "exchange-kind-unknown",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,ext,robot,FS,3"),
        "j.csv:2: judge_kind: expected 'human' or 'llm', got 'robot'",
    ),
    Bad(
        "exchange-label-unknown",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,ext,llm,XX,3"),
        "j.csv:2: label: expected FS, PS or NS, got 'XX'",
    ),
    Bad(
        "exchange-same-citation-two-labels",
        "exchange",
        "j.csv",
        csv_rows(GOOD_ROW, "2024-1,team.old,0,0,ext,llm,NS,3"),
        "j.csv:3: label: NS conflicts with FS for the same judge ext",
    ),
    Bad(
        "exchange-cell-above-csv-limit",
        "exchange",
        "j.csv",
        csv_rows('2024-1,team.old,0,0,ext,llm,FS,"' + "9" * 200_000 + '"'),
        "j.csv:2: not a CSV line: field larger than field limit",
    ),
    Bad(
        "exchange-latin1",
        "exchange",
        "j.csv",
        csv_rows("2024-1,team.old,0,0,exté,llm,FS,3").decode().encode("latin-1"),
        "j.csv:2: not UTF-8 text",
    ),
    Bad("exchange-utf16", "exchange", "j.csv", csv_rows(GOOD_ROW).decode().encode("utf-16"), "j.csv:1: UTF-16 text"),
    Bad("exchange-empty", "exchange", "j.csv", b"", "j.csv: no rows found"),
    Bad(
        "exchange-nested",
        "exchange",
        "j.jsonl",
        jl(exchange_row()).replace(b"}\n", b', "label_set": ' + deep(64).encode() + b"}\n"),
        "j.jsonl:1: JSON nested deeper than 32 levels",
    ),
    Bad(
        "exchange-gz-not-gzip",
        "exchange",
        "j.csv.gz",
        csv_rows(GOOD_ROW),
        "j.csv.gz:1: the file is named .gz but is not gzip-compressed",
    ),
    Bad("exchange-gzip-bomb", "exchange", "j.csv.gz", BOMB, f"j.csv.gz:1: {LINE_LIMIT}"),
    # --- NIST support judgments
    Bad(
        "nist-judgments-support-7",
        "nist-judgments",
        "n.jsonl",
        jl(nist_line()).replace(b'"support": "2"', b'"support": "7"'),
        'n.jsonl:1: sentences[0].citations[0].support: expected "2", "1", "0" or "-1", got \'7\'',
        {"judge": "nist"},
    ),
    Bad(
        "nist-judgments-nul-in-text",
        "nist-judgments",
        "n.jsonl",
        jl(nist_line()).replace(b'"Alpha beta."', b'"Alpha\\u0000 beta."'),
        "n.jsonl:1: sentences[0].text: holds the control character U+0000",
        {"judge": "nist"},
    ),
    Bad(
        "nist-judgments-judge-human",
        "nist-judgments",
        "n.jsonl",
        jl(nist_line()),
        "n.jsonl: judge: 'human' is a reserved name",
        {"judge": "human"},
    ),
    Bad(
        "nist-judgments-judge-an-assessor",
        "nist-judgments",
        "n.jsonl",
        jl(nist_line()),
        "n.jsonl:1: judge: judge alice is a platform assessor's",
        {"judge": "alice"},
    ),
    Bad(
        "nist-judgments-judge-ends-in-condition",
        "nist-judgments",
        "n.jsonl",
        jl(nist_line()),
        "n.jsonl: judge: 'nist/post_edit' ends in a condition",
        {"judge": "nist/post_edit"},
    ),
    # --- issue 22, point 3: a huge number in a field the importer does not read, and misspelled fields
    Bad(
        "topics-extra-field-5000-digits",
        "topics",
        "t.jsonl",
        b'{"topic_id": "2024-7", "text": "x", "score": ' + b"9" * 5000 + b"}\n",
        "t.jsonl:1: score: a number of 5000 digits is out of range",
    ),
    Bad(
        "passages-extra-field-30-digits",
        "passages",
        "p.jsonl",
        jl({"docid": REF[2], "segment": "x", "rank": 1}).replace(b'"rank": 1', b'"rank": ' + b"7" * 30),
        "p.jsonl:1: rank: a number of 30 digits is out of range",
    ),
    Bad(
        "runs-extra-field-5000-digits",
        "runs",
        "r.jsonl",
        jl(run_line(score=1)).replace(b'"score": 1', b'"score": ' + b"9" * 5000),
        "r.jsonl:1: score: a number of 5000 digits is out of range",
    ),
    Bad(
        "runs-extra-field-nested-in-a-sentence",
        "runs",
        "r.jsonl",
        jl(run_line(answer=[{"text": "Alpha.", "citations": [0], "confidence": [0.5, 1]}])).replace(
            b"0.5, 1]", b"0.5, " + b"3" * 40 + b"]"
        ),
        "r.jsonl:1: answer[0].confidence: a number of 40 digits is out of range (at [1])",
    ),
    Bad(
        "nist-runs-extra-field-25-digits",
        "nist-runs",
        "n.jsonl",
        jl(nist_line(run_id="grp.n", extra=1)).replace(b'"extra": 1', b'"extra": -' + b"1" * 25),
        "n.jsonl:1: extra: a number of 25 digits is out of range",
    ),
    Bad(
        "exchange-jsonl-extra-field-5000-digits",
        "exchange",
        "j.jsonl",
        jl(exchange_row(score=1)).replace(b'"score": 1', b'"score": ' + b"9" * 5000),
        "j.jsonl:1: score: a number of 5000 digits is out of range",
    ),
    Bad(
        "nist-judgments-support-30-digits",
        "nist-judgments",
        "n.jsonl",
        jl(nist_line()).replace(b'"support": "2"', b'"support": ' + b"2" * 30),
        "n.jsonl:1: sentences[0].citations[0].support: a number of 30 digits is out of range",
        {"judge": "nist"},
    ),
    Bad(
        "topics-json-id-misspelled",
        "topics",
        "t.jsonl",
        jl({"topicid": "2024-7", "text": "x"}),
        "t.jsonl:1: topic_id: missing field; found unknown field 'topicid'",
    ),
    Bad(
        "passages-segment-misspelled",
        "passages",
        "p.jsonl",
        jl({"docid": REF[2], "segmnt": "x"}),
        "p.jsonl:1: segment: missing field; found unknown field 'segmnt'",
    ),
    Bad(
        "runs-answer-misspelled",
        "runs",
        "r.jsonl",
        jl(run_line()).replace(b'"answer":', b'"answers":'),
        "r.jsonl:1: answer: missing field; found unknown field 'answers'",
    ),
    Bad(
        "runs-citations-misspelled",
        "runs",
        "r.jsonl",
        jl(run_line(answer=[{"text": "Alpha.", "citation": [0]}])),
        "r.jsonl:1: answer[0].citations: missing field; found unknown field 'citation'",
    ),
    Bad(
        "nist-runs-sentences-misspelled",
        "nist-runs",
        "n.jsonl",
        jl(nist_line(run_id="grp.n")).replace(b'"sentences":', b'"sentence":'),
        "n.jsonl:1: sentences: missing field; found unknown field 'sentence'",
    ),
    Bad(
        "exchange-sentence-index-misspelled",
        "exchange",
        "j.csv",
        csv_rows(GOOD_ROW).replace(b"sentence_index", b"sentence"),
        "j.csv:2: sentence_index: missing field; found unknown field 'sentence'",
    ),
    Bad(
        "exchange-judge-misspelled",
        "exchange",
        "j.csv",
        csv_rows(GOOD_ROW).replace(b",judge,", b",judges,"),
        "j.csv:2: judge: missing field (or give a judge name with --judge); found unknown field 'judges'",
    ),
    Bad(
        "exchange-judge-for-judge-kind",
        "exchange",
        "j.csv",
        b"topic_id,run_id,sentence_index,citation_slot,judge,label\n2024-1,team.old,0,0,llm,FS\n",
        "j.csv:2: judge: 'llm' is a reserved name: it is a judge kind, which goes in judge_kind",
    ),
]


@pytest.fixture
def material(db, tmp_path, organizer):
    """Topics, a run with one answer of two cited sentences, a passage with text, an assessor's judge."""
    src = tmp_path / "material"
    src.mkdir()
    (src / "t.tsv").write_text("2024-1\tfirst question\n2024-2\tsecond question\n")
    topics_import(files=[src / "t.tsv"])
    (src / "old.jsonl").write_bytes(jl(run_line(run_id="team.old")))
    runs_import(files=[src / "old.jsonl"])
    (src / "p.jsonl").write_bytes(jl({"docid": REF[0], "segment": "loaded text", "title": "T"}))
    passages_import(files=[src / "p.jsonl"])
    JudgeFactory(name="alice", kind="human", user=organizer)
    return src


def row_counts() -> dict[str, int]:
    return {
        m._meta.label_lower: m.objects.count()
        for m in apps.get_models()
        if m._meta.label_lower not in NOT_COMPARED and m._meta.managed
    }


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """The big files, generated once a session (a 1 GiB gzip takes seconds to compress)."""
    folder = tmp_path_factory.mktemp("generated")
    made: dict[str, Path] = {}

    def get(case: Bad) -> Path:
        if case.id not in made:
            made[case.id] = folder / case.id
            case.data(made[case.id])  # type: ignore[operator]
        return made[case.id]

    return get


def write(case: Bad, folder: Path, generated) -> Path:
    path = folder / Path(case.name).name
    if callable(case.data):
        path.symlink_to(generated(case))
    else:
        path.write_bytes(case.data)
    return path


def upload_of(case: Bad, path: Path) -> SimpleUploadedFile:
    """The file as a browser sends it; the big ones stream from disk."""
    upload = SimpleUploadedFile(case.name, b"")
    upload.file = open(path, "rb")  # noqa: SIM115 - closed with the request
    upload.size = path.stat().st_size
    return upload


# --- the three channels: each returns the errors as `file:line: field: text` ---------------------------


def via_channel(channel: str, case: Bad, path: Path, client, api, django_capture_on_commit_callbacks) -> list[str]:
    """The errors of one refused import, through the command, the upload page or the API."""
    if channel == "command":
        return via_command(case, path)
    if channel == "page":
        return via_page(case, path, client, django_capture_on_commit_callbacks)
    return via_api(case, path, api, django_capture_on_commit_callbacks)


def via_command(case: Bad, path: Path) -> list[str]:
    err = io.StringIO()
    if case.kind in ("exchange", "nist-judgments"):
        fmt = "nist" if case.kind == "nist-judgments" else "exchange"
        args = ["import_judgments", str(path), "--format", fmt]
        args += [x for k, v in case.options.items() for x in (f"--{k}", v)]
    else:
        command = {"topics": "import_topics", "passages": "import_passages"}.get(case.kind, "import_runs")
        args = [command, str(path)] + (["--format", "nist"] if case.kind == "nist-runs" else [])
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command(*args, stderr=err, stdout=io.StringIO(), verbosity=0)
    return [line.removeprefix("error: ") for line in err.getvalue().splitlines() if line.startswith("error: ")]


def via_page(case: Bad, path: Path, client, django_capture_on_commit_callbacks) -> list[str]:
    if case.kind in ("exchange", "nist-judgments"):
        fmt = "nist" if case.kind == "nist-judgments" else "exchange"
        response = client.post(
            "/judgments/import/", {"uploads": [upload_of(case, path)], "format": fmt, **case.options}
        )
        assert response.status_code == 400
        return [html.unescape(t) for t in _listed_errors(response.content.decode())]
    kind = "runs" if case.kind == "nist-runs" else case.kind
    data = {"kind": kind, "uploads": [upload_of(case, path)]}
    if case.kind == "nist-runs":
        data["format"] = "nist"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/organize/upload/", data)
    if response.status_code == 400:  # refused by the form, before any import
        return [html.unescape(t) for t in _listed_errors(response.content.decode())]
    assert response.status_code == 302, response.content[:2000]
    page = client.get(response["Location"])
    assert page.status_code == 200
    body = page.content.decode()
    assert "failed" in body.lower()
    return [html.unescape(t) for t in _listed_errors(body)]


def _listed_errors(body: str) -> list[str]:
    """The errors a page lists, as `file:line: field: text`: the judgment result's list items, or the import
    job's table rows (file, line, field, message)."""
    items = re.findall(r'<li class="error">(.*?)</li>', body, re.S) or (
        re.findall(r"<li>([^<>]+)</li>", body) if "errorlist" in body else []
    )
    if items:
        return items
    errors = []
    for file, line, field_name, text in re.findall(
        r'<tr class="error"><td>(.*?)</td><td class="num">(.*?)</td><td><code>(.*?)</code></td><td>(.*?)</td></tr>',
        body,
        re.S,
    ):
        where = f"{file}:{line}" if line else file
        errors.append(f"{where}: {field_name}: {text}" if field_name else f"{where}: {text}")
    return errors


def via_api(case: Bad, path: Path, api, django_capture_on_commit_callbacks) -> list[str]:
    if case.kind in ("exchange", "nist-judgments"):
        fmt = "nist" if case.kind == "nist-judgments" else "exchange"
        response = api.post(
            "/api/metrics/judgments/import/", {"files": [upload_of(case, path)], "format": fmt, **case.options}
        )
        assert response.status_code == 400
        body = response.json()
        return [e["text"] for e in body["errors"]] if "errors" in body else _serializer_errors(body)
    kind = "runs" if case.kind == "nist-runs" else case.kind
    data = {"files": [upload_of(case, path)]}
    if case.kind == "nist-runs":
        data["format"] = "nist"
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/imports/{kind}/", data)
    if response.status_code == 400:  # refused by the serializer, before any import
        return _serializer_errors(response.json())
    assert response.status_code == 202
    job = api.get(response["Location"]).json()
    assert job["status"] == "failed"
    return [e["text"] for e in job["errors"]]


def _serializer_errors(body) -> list[str]:
    """DRF's 400 body ({"files": {"0": ["..."]}}), flattened to its messages."""
    if isinstance(body, dict):
        return [m for v in body.values() for m in _serializer_errors(v)]
    if isinstance(body, list):
        return [m for v in body for m in _serializer_errors(v)]
    return [str(body)]


def expected_first_error(case: Bad, channel: str) -> str:
    """An empty file never reaches the importer through an upload: Django's file field refuses it."""
    if channel != "command" and case.data == b"":
        return "The submitted file is empty."
    return case.first_error


@pytest.fixture
def synchronous(settings, tmp_path):
    settings.BACKGROUND_IN_THREAD = False
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def api(organizer):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(organizer)
    return client


CHANNELS = ["command", "page", "api"]
CORPUS_BY_ID = {c.id: c for c in CORPUS}


def test_the_corpus_covers_every_importer_with_at_least_sixty_files():
    assert len(CORPUS) >= 60
    assert len({c.id for c in CORPUS}) == len(CORPUS)
    assert {c.kind for c in CORPUS} == {"topics", "passages", "runs", "nist-runs", "exchange", "nist-judgments"}


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c.id)
def test_it_refuses_a_malformed_file_cleanly_through_every_channel(
    material,
    synchronous,
    tmp_path,
    client,
    organizer,
    api,
    django_capture_on_commit_callbacks,
    generated,
    case,
    channel,
):
    # given
    folder = tmp_path / "in"
    folder.mkdir()
    path = write(case, folder, generated)
    client.force_login(organizer)
    before = row_counts()

    # when
    errors = via_channel(channel, case, path, client, api, django_capture_on_commit_callbacks)

    # then: refused at its file, line and field; nothing changed; the server answers
    assert errors, "refused without any error listed"
    expected = expected_first_error(case, channel)
    if expected.startswith("re:"):
        assert re.match(expected[3:], errors[0]), errors[:3]
    else:
        assert errors[0].startswith(expected), errors[:3]
    assert row_counts() == before
    assert client.get("/api/topics/").status_code == 200


def test_a_gzip_bomb_is_refused_with_bounded_memory(material, tmp_path):
    # given: 1 MB of gzip that expands to 1 GiB without a newline
    path = tmp_path / "bomb.jsonl.gz"
    gzip_bomb(path, chunk=bytes(MB), chunks=1024)
    assert path.stat().st_size < 2 * MB

    # when
    tracemalloc.start()
    try:
        errors = via_command(CORPUS_BY_ID["passages-gzip-bomb"], path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    # then: refused at the line limit, having held about one line (8 MiB) at a time
    assert errors == [f"bomb.jsonl.gz:1: {LINE_LIMIT}"]
    assert peak < 40 * MB


def test_a_crlf_file_imports_as_its_lf_twin(db, tmp_path):
    # given
    (tmp_path / "crlf.tsv").write_bytes(b"\xef\xbb\xbf2024-7\tseven\r\n2024-8\teight\r\n")

    # when
    report = topics_import(files=[tmp_path / "crlf.tsv"])

    # then
    assert report.counts["topics"] == 2
    from assess.models import Topic

    assert sorted(Topic.objects.values_list("topic_id", "text")) == [("2024-7", "seven"), ("2024-8", "eight")]


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_file_above_the_size_limit_is_refused_through_every_channel(
    material, synchronous, settings, tmp_path, client, organizer, api, django_capture_on_commit_callbacks, channel
):
    # given: a valid topics file of 2,000 bytes, and a limit of 1,000
    settings.IMPORT_MAX_FILE_BYTES = 1000
    case = Bad(
        "topics-too-big", "topics", "t.tsv", b"".join(b"2024-%03d\t%s\n" % (i, b"q" * 40) for i in range(40)), ""
    )
    path = write(case, tmp_path, None)
    client.force_login(organizer)
    before = row_counts()

    # when
    errors = via_channel(channel, case, path, client, api, django_capture_on_commit_callbacks)

    # then
    assert errors == [f"t.tsv: the file has {path.stat().st_size:,} bytes; the limit is 1,000"]
    assert row_counts() == before


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("--group", "g" * 129, "r.jsonl: group: longer than 128 characters (the column's limit)"),
        ("--priority", str(10**12), "r.jsonl: priority: expected a number from 1 to 2,147,483,647, got 1000000000000"),
    ],
)
def test_a_command_option_is_held_to_its_column(material, tmp_path, option, value, error):
    # given
    path = tmp_path / "r.jsonl"
    path.write_bytes(jl(run_line()))
    err = io.StringIO()
    before = row_counts()

    # when
    with pytest.raises(CommandError):
        call_command("import_runs", str(path), option, value, stderr=err, verbosity=0)

    # then
    assert err.getvalue().splitlines() == [f"error: {error}"]
    assert row_counts() == before


def test_a_judge_name_of_200_characters_is_refused_by_the_command(material, tmp_path):
    # given
    path = tmp_path / "n.jsonl"
    path.write_bytes(jl(nist_line()))
    err = io.StringIO()

    # when
    with pytest.raises(CommandError):
        call_command("import_judgments", str(path), "--format", "nist", "--judge", "j" * 200, stderr=err, verbosity=0)

    # then
    assert err.getvalue().splitlines() == ["error: n.jsonl: judge: longer than 128 characters (the column's limit)"]
