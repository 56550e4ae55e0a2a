"""The malformed inputs of tests/assess/test_import_malformed.py: each with the errors it must be rejected with,
and the inputs that are imported with a warning."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field

REF = [f"msmarco_v2.1_doc_00_{i}#0_{i * 100}" for i in range(3)]


def line(**overrides):
    """A valid TREC RAG 2024 answer line of run team.new to topic 2024-1; keys set to DROP are removed."""
    obj = {
        "run_id": "team.new",
        "topic_id": "2024-1",
        "topic": "first question",
        "references": REF[:2],
        "response_length": 4,
        "answer": [{"text": "Alpha beta.", "citations": [0]}, {"text": "Gamma delta.", "citations": [1, 0]}],
    }
    obj.update(overrides)
    return {k: v for k, v in obj.items() if v is not DROP}


def sentence(**overrides):
    obj = {"text": "Alpha beta.", "citations": [0]}
    obj.update(overrides)
    return {k: v for k, v in obj.items() if v is not DROP}


def nist_row(**overrides):
    obj = {
        "topic_id": "2024-1",
        "run_id": "grp.nistrun",
        "sentences": [
            {"sentenceID": 0, "text": "One.", "citations": [{"citationID": 0, "reference": REF[0], "support": "2"}]},
            {"sentenceID": 1, "text": "Two.", "citations": []},
        ],
    }
    obj.update(overrides)
    return {k: v for k, v in obj.items() if v is not DROP}


DROP = object()


def jl(*objs):
    return "".join(o if isinstance(o, str) else json.dumps(o) + "\n" for o in objs).encode("utf-8")


def gz_truncated(data):
    packed = gzip.compress(data)
    return packed[: len(packed) // 2]


@dataclass
class Case:
    id: str
    files: list[tuple[str, bytes]]
    errors: list[str]
    kind: str = "runs"
    options: dict = field(default_factory=dict)


TWO_LINES = jl(line(), line(topic_id="2024-2", topic="second question"))
MANY_LINES = "".join(
    json.dumps(line(topic_id=f"2024-{i}", topic=f"question {i}", answer=[{"text": "x " * 40, "citations": [0]}])) + "\n"
    for i in range(300)
).encode()

CASES = [
    # --- run files: JSON and file-level problems
    Case(
        "invalid-json",
        [("r.jsonl", jl(line(), '{"run_id": "team.new", "topic_id": \n'))],
        ["r.jsonl:2: invalid JSON: Expecting value at column 36"],
    ),
    Case(
        "json-not-an-object",
        [("r.jsonl", jl(line(), "[1, 2]\n"))],
        ["r.jsonl:2: expected a JSON object, got list"],
    ),
    Case("empty-file", [("r.jsonl", b"")], ["r.jsonl: the file is empty"]),
    Case("blank-lines-only", [("r.jsonl", b"\n  \n\n")], ["r.jsonl: no answers found"]),
    Case(
        "non-utf8-bytes",
        [("r.jsonl", jl(line()) + b'{"run_id": "team.new", "topic": "caf\xe9"}\n')],
        ["r.jsonl:2: not UTF-8 text (byte 37 of the line: invalid continuation byte)"],
    ),
    Case(
        "truncated-gzip",
        [("r.jsonl.gz", gz_truncated(MANY_LINES))],
        [],  # the exact line depends on where the cut falls; checked in its own test below
    ),
    # --- run files: a missing field, each required one
    *[
        Case(f"missing-{name}", [("r.jsonl", jl(line(**{name: DROP})))], [f"r.jsonl:1: {name}: missing field"])
        for name in ("run_id", "topic_id", "topic", "references", "response_length", "answer")
    ],
    Case(
        "missing-sentence-text",
        [("r.jsonl", jl(line(answer=[sentence(text=DROP)])))],
        ["r.jsonl:1: answer[0].text: missing field"],
    ),
    Case(
        "missing-sentence-citations",
        [("r.jsonl", jl(line(answer=[sentence(), sentence(citations=DROP)])))],
        ["r.jsonl:1: answer[1].citations: missing field"],
    ),
    Case(
        "missing-2025-run-id",
        [("r.jsonl", jl({"metadata": {"narrative_id": "2024-1"}, "references": REF, "answer": []}))],
        ["r.jsonl:1: metadata.run_id: missing field"],
    ),
    Case(
        "missing-2025-narrative-id",
        [("r.jsonl", jl({"metadata": {"run_id": "team.new"}, "references": REF, "answer": []}))],
        ["r.jsonl:1: metadata.narrative_id: missing field"],
    ),
    Case(
        "run-id-differs-from-metadata",
        [("r.jsonl", jl(line(metadata={"run_id": "team.other"})))],
        ["r.jsonl:1: metadata.run_id: 'team.other' differs from run_id 'team.new'"],
    ),
    # --- run files: wrong types
    Case(
        "topic-id-not-a-string",
        [("r.jsonl", jl(line(topic_id=["2024-1"])))],
        ["r.jsonl:1: topic_id: expected a string or a number, got ['2024-1']"],
    ),
    Case(
        "response-length-negative",
        [("r.jsonl", jl(line(response_length=-4)))],
        ["r.jsonl:1: response_length: expected a non-negative integer, got -4"],
    ),
    Case(
        "answer-not-a-list",
        [("r.jsonl", jl(line(answer="Alpha beta.")))],
        ["r.jsonl:1: answer: expected a list, got 'Alpha beta.'"],
    ),
    Case(
        "sentence-text-not-a-string",
        [("r.jsonl", jl(line(answer=[sentence(text=12)])))],
        ["r.jsonl:1: answer[0].text: expected a string, got 12"],
    ),
    Case(
        "metadata-not-an-object",
        [("r.jsonl", jl(line(metadata="team")))],
        ["r.jsonl:1: metadata: expected an object, got 'team'"],
    ),
    Case(
        "run-id-too-long",
        [("r.jsonl", jl(line(run_id="r" * 300)))],
        ["r.jsonl:1: run_id: longer than 255 characters (the column's limit)"],
    ),
    # --- run files: the track checker's errors
    Case(
        "run-id-changes",
        [("r.jsonl", jl(line(), line(run_id="team.other", topic_id="2024-2", topic="second question")))],
        ["r.jsonl:2: run_id: run_id changes within the file: 'team.other' (line 1 has 'team.new')"],
    ),
    Case(
        "run-already-loaded",
        [("r.jsonl", jl(line(run_id="team.old")))],
        ["r.jsonl:1: run_id: run team.old is already loaded (use --replace)"],
    ),
    Case(
        "same-topic-twice",
        [("r.jsonl", jl(line(), line(topic_id="2024-2", topic="second question"), line()))],
        ["r.jsonl:3: topic_id: topic 2024-1 answered twice in this run (first at line 1)"],
    ),
    Case(
        "citation-out-of-range",
        [("r.jsonl", jl(line(answer=[sentence(citations=[0, 2])])))],
        ["r.jsonl:1: answer[0].citations[1]: citation index 2 is out of range (2 references)"],
    ),
    Case(
        "citation-negative",
        [("r.jsonl", jl(line(answer=[sentence(citations=[-1])])))],
        ["r.jsonl:1: answer[0].citations[0]: citation index -1 is out of range (2 references)"],
    ),
    Case(
        "citation-not-an-int",
        [("r.jsonl", jl(line(answer=[sentence(citations=["0"])])))],
        ["r.jsonl:1: answer[0].citations[0]: expected an integer, got '0'"],
    ),
    Case(
        "citation-a-float",
        [("r.jsonl", jl(line(answer=[sentence(citations=[1.0])])))],
        ["r.jsonl:1: answer[0].citations[0]: expected an integer, got 1.0"],
    ),
    Case(
        "citation-a-boolean",
        [("r.jsonl", jl(line(answer=[sentence(citations=[True])])))],
        ["r.jsonl:1: answer[0].citations[0]: expected an integer, got True"],
    ),
    Case(
        "duplicate-reference",
        [("r.jsonl", jl(line(references=[REF[0], REF[1], REF[0]])))],
        [f"r.jsonl:1: references[2]: duplicate reference {REF[0]} (also references[0])"],
    ),
    Case(
        "reference-not-a-string",
        [("r.jsonl", jl(line(references=[REF[0], 123])))],
        ["r.jsonl:1: references[1]: expected a string, got 123"],
    ),
    Case(
        "every-error-of-a-file-listed",
        [("r.jsonl", jl(line(run_id=DROP), line(topic_id="2024-2", topic="second question"), "{oops\n"))],
        [
            "r.jsonl:1: run_id: missing field",
            "r.jsonl:3: invalid JSON: Expecting property name enclosed in double quotes at column 2",
        ],
    ),
    Case(
        "same-run-in-two-files",
        [("a.jsonl", jl(line())), ("b.jsonl", jl(line(topic_id="2024-2", topic="second question")))],
        ["b.jsonl:1: run_id: run team.new is also in a.jsonl of this import"],
    ),
    Case(
        "second-file-bad",
        [("a.jsonl", TWO_LINES), ("b.jsonl", jl(line(run_id="team.b"), "not json\n"))],
        ["b.jsonl:2: invalid JSON: Expecting value at column 1"],
    ),
    # --- NIST support files
    Case(
        "nist-missing-sentences",
        [("n.jsonl", jl(nist_row(sentences=DROP)))],
        ["n.jsonl:1: sentences: missing field"],
        kind="nist",
    ),
    Case(
        "nist-missing-run-id",
        [("n.jsonl", jl(nist_row(run_id=DROP)))],
        ["n.jsonl:1: run_id: missing field"],
        kind="nist",
    ),
    Case(
        "nist-duplicate-reference-in-a-sentence",
        [
            (
                "n.jsonl",
                jl(
                    nist_row(
                        sentences=[{"sentenceID": 0, "text": "x", "citations": [{"reference": REF[0]}] * 2}],
                    )
                ),
            )
        ],
        [f"n.jsonl:1: sentences[0].citations[1].reference: duplicate reference {REF[0]} (also citations[0])"],
        kind="nist",
    ),
    Case(
        "nist-reference-not-a-string",
        [("n.jsonl", jl(nist_row(sentences=[{"sentenceId": 0, "text": "x", "citations": [{"reference": 7}]}])))],
        ["n.jsonl:1: sentences[0].citations[0].reference: expected a string, got 7"],
        kind="nist",
    ),
    Case(
        "nist-sentence-ids-with-a-gap",
        [
            (
                "n.jsonl",
                jl(nist_row(sentences=[{"sentenceID": 0, "text": "a"}, {"sentenceID": 2, "text": "b"}])),
            )
        ],
        ["n.jsonl:1: sentences: sentence ids are not 0..1: [0, 2]"],
        kind="nist",
    ),
    Case(
        "nist-same-answer-twice",
        [("n.jsonl", jl(nist_row())), ("m.jsonl", jl(nist_row()))],
        ["m.jsonl:1: topic_id: run grp.nistrun answers topic 2024-1 twice (first at n.jsonl:1)"],
        kind="nist",
    ),
    Case(
        "nul-character-in-a-sentence",
        [("r.jsonl", jl(line(answer=[sentence(text="Alpha\u0000 beta.")], response_length=2)))],
        ["r.jsonl:1: answer[0].text: holds the control character U+0000 at character 6; it cannot be stored"],
    ),
    Case("nist-empty-file", [("n.jsonl", b"")], ["n.jsonl: the file is empty"], kind="nist"),
    # --- topics
    Case(
        "topics-same-topic-two-texts",
        [("t.tsv", b"2024-7\tseven\n2024-8\teight\n2024-7\tsept\n")],
        ["t.tsv:3: topic_id: topic '2024-7' appears again with another text (first at t.tsv:1)"],
        kind="topics",
    ),
    Case(
        "topics-jsonl-missing-id",
        [("t.jsonl", jl({"topic_id": "2024-7", "text": "a"}, {"text": "b"}))],
        ["t.jsonl:2: topic_id: missing field"],
        kind="topics",
    ),
    Case("topics-empty-file", [("t.tsv", b"")], ["t.tsv: the file is empty"], kind="topics"),
    Case(
        "topics-non-utf8",
        [("t.tsv", b"2024-7\tseven\n2024-8\tna\xefve\n")],
        ["t.tsv:2: not UTF-8 text (byte 10 of the line: invalid continuation byte)"],
        kind="topics",
    ),
    # --- passages
    Case(
        "passages-missing-docid",
        [("p.jsonl", jl({"docid": REF[2], "segment": "ok"}, {"segment": "no id"}))],
        ["p.jsonl:2: docid: missing field"],
        kind="passages",
    ),
    Case(
        "passages-segment-not-a-string",
        [("p.jsonl", jl({"docid": REF[2], "segment": ["a", "b"]}))],
        ["p.jsonl:1: segment: expected a string, got ['a', 'b']"],
        kind="passages",
    ),
    Case(
        "passages-candidate-without-doc",
        [
            (
                "p.jsonl",
                jl({"query": {"qid": "1"}, "candidates": [{"docid": REF[2], "doc": {"segment": "x"}}, {"docid": "y"}]}),
            )
        ],
        ["p.jsonl:1: candidates[1].doc: missing field"],
        kind="passages",
    ),
    Case(
        "passages-webis-lists-of-two-lengths",
        [("p.jsonl", jl({"topic": "1", "references_ids": [REF[2]], "references_texts": []}))],
        ["p.jsonl:1: references_texts: expected two lists of the same length"],
        kind="passages",
    ),
    Case(
        "passages-truncated-gzip",
        [("p.jsonl.gz", gzip.compress(jl({"docid": REF[2], "segment": "x"}))[:-12])],
        [
            "p.jsonl.gz:1: the file ends early (truncated gzip?): Compressed file ended before the end-of-stream "
            "marker was reached"
        ],
        kind="passages",
    ),
    Case("passages-empty-file", [("p.jsonl", b"")], ["p.jsonl: the file is empty"], kind="passages"),
    Case(
        "passages-second-file-bad",
        [("p.jsonl", jl({"docid": REF[2], "segment": "new text"})), ("q.jsonl", b"{]\n")],
        ["q.jsonl:1: invalid JSON: Expecting property name enclosed in double quotes at column 2"],
        kind="passages",
    ),
]


# --- warnings: reported, and the file is imported ----------------------------------------------------

WARNING_CASES = [
    (
        "unknown-topic-created",
        jl(line(topic_id="2024-99", topic="a new question")),
        ["w.jsonl:1: topic_id: topic 2024-99 is not loaded; it was created"],
    ),
    (
        "more-than-20-references",
        jl(line(references=[f"msmarco_v2.1_doc_01_{i}#0_{i}" for i in range(21)])),
        ["w.jsonl:1: references: 21 references (more than 20)"],
    ),
    (
        "more-than-100-references-in-2025",
        jl(
            {
                "metadata": {"team_id": "team", "run_id": "team.new", "narrative_id": "2024-1"},
                "references": [f"msmarco_v2.1_doc_01_{i}#0_{i}" for i in range(101)],
                "answer": [sentence()],
            }
        ),
        ["w.jsonl:1: references: 101 references (more than 100)"],
    ),
    (
        "response-length-mismatch",
        jl(line(response_length=7)),
        ["w.jsonl:1: response_length: says 7 words; the sentences have 4 (NFKC-normalised, split on whitespace)"],
    ),
    (
        "sentence-text-null",
        jl(line(answer=[sentence(text=None)], response_length=0)),
        ["w.jsonl:1: answer[0].text: sentence text is missing; kept with empty text"],
    ),
    (
        "sentence-text-nan",
        b'{"run_id": "team.new", "topic_id": "2024-1", "topic": "first question", "references": [], '
        b'"response_length": 0, "answer": [{"text": NaN, "citations": []}]}\n',
        ["w.jsonl:1: answer[0].text: sentence text is missing; kept with empty text"],
    ),
    (
        "not-an-ms-marco-id",
        jl(line(references=["doc-1", "doc-2"])),
        ["w.jsonl:1: references[0]: doc-1 is not an MS MARCO V2.1 segment id"],
    ),
    (
        "answer-longer-than-400-words",
        jl(line(answer=[sentence(text="word " * 401)], response_length=401)),
        ["w.jsonl:1: answer: the answer has 401 words (more than 400)"],
    ),
]
