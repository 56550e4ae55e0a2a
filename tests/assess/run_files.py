"""The run files of the run-import tests: the organisers' full runs and NIST's support files, our own counts of
them (independent of the importer), and small files written in a test's folder."""

from __future__ import annotations

import json
import math

FULL_RUNS = (
    "baseline_rag24.test_gpt-4o_top20.jsonl.fixed",
    "baseline_rag24.test_command-r-plus_top20.jsonl.fixed",
    "baseline_rag24.test_l31_70b_instruct_top20.jsonl.fixed",
)
NIST_22 = (
    "final.citation_judgments_without_prediction.20241025.jsonl",
    "final.citation_judgments_Webassess.20241031.jsonl",
)
NIST_14 = "final.citation_judgments_with_prediction.20241025.jsonl"


def count_trec(path):
    """Our own count of a TREC run file, independent of the importer."""
    answers = sentences = citations = 0
    run_ids, cited = set(), set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            obj = json.loads(line)
            answers += 1
            run_ids.add(obj["run_id"])
            for sentence in obj["answer"]:
                sentences += 1
                citations += len(sentence["citations"])
                cited.update(obj["references"][i] for i in sentence["citations"])
    return {"answers": answers, "sentences": sentences, "citations": citations, "run_ids": run_ids, "cited": cited}


def count_nist(paths):
    rows, sentences, citations, missing_text = 0, 0, 0, 0
    runs = set()
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                obj = json.loads(line)
                rows += 1
                runs.add(obj["run_id"])
                for sentence in obj["sentences"]:
                    sentences += 1
                    citations += len(sentence["citations"])
                    text = sentence["text"]
                    missing_text += isinstance(text, float) and math.isnan(text)
    return {"rows": rows, "sentences": sentences, "citations": citations, "missing_text": missing_text, "runs": runs}


def write_file(path, text):
    path.write_text(text, encoding="utf-8")
    return path
