"""Malformed fields of every kind of file (issue 22, point 3): a huge number in a field the importer does not
read, and misspelled fields."""

from __future__ import annotations

from tests.judging.malformed.files import GOOD_ROW, REF, Bad, csv_rows, exchange_row, jl, nist_line, run_line

FIELD_FILES: list[Bad] = [
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
