"""Independent reference computation of the TREC 2024 RAG support figures, from NIST's own files.

Data: TREC 2024 RAG Track human support labels made by NIST (https://trec.nist.gov/data/rag2024.html);
method as in Thakur et al., "Support Evaluation for the TREC 2024 RAG Track" (arXiv 2504.15205).
Copies and provenance: data/trec-rag-2024/SOURCES.md. Standard library only, so that tests
can check the platform against it; it imports nothing from the project.

Facts about the files this module relies on (checked by reading them):
- A row is one (topic_id, run_id) answer; sentence ids run 0..n-1 in list order.
- without_prediction / with_prediction: keys `sentenceID`/`citationID`; at most one citation, citationID 0.
- Webassess: keys `sentenceId`/`citationId`; up to 3 citations, and `citationId` indexes the run's
  `references`, so it is NOT the slot. The list is in the run's citation order (a prefix of it), with one
  exception seen in the baseline runs; "first citation" here is position 0 of the list, as in the paper.
- Webassess "-1" (not judged) occurs only on sentences with verification_worthy "0"; later citations
  (positions 1, 2) are judged too.
- The Opus verdict file's `citation_slot` is the position in NIST's citation list (matching by citationId
  disagrees with `human_label` on 2,634 of 6,706 lines, matching by position on 1).
"""

from __future__ import annotations

import json
import math
import os
import re
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

DATA = Path(os.environ.get("ASSESS_DATA_DIR", "").strip() or Path(__file__).resolve().parents[2] / "data/trec-rag-2024")
NIST = DATA / "nist-support"
FROM_SCRATCH = [
    NIST / "final.citation_judgments_without_prediction.20241025.jsonl",
    NIST / "final.citation_judgments_Webassess.20241031.jsonl",
]
POST_EDIT = [NIST / "final.citation_judgments_with_prediction.20241025.jsonl"]
VERDICTS = DATA / "llm-judges/opus48_nist_verdicts.jsonl"

WEIGHT = {"2": 1.0, "1": 0.5, "0": 0.0}  # "-1" = not judged, no weight
NAME = {"2": "FS", "1": "PS", "0": "NS", "-1": "-1"}
ORDER = ("NS", "PS", "FS")

Key = tuple[str, str, int, int]  # (run_id, topic_id, sentence_index, citation position)


def read_nist(path: str | Path) -> list[dict]:
    """One dict per line; json.loads accepts the files' bare `NaN` sentence texts."""
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    for r in rows:  # sentence ids are the list positions: match sentences by index
        ids = [s.get("sentenceID", s.get("sentenceId")) for s in r["sentences"]]
        assert [int(i) for i in ids] == list(range(len(ids))), (r["topic_id"], r["run_id"])
    return rows


def read_many(paths: list[Path]) -> list[dict]:
    return [r for p in paths for r in read_nist(p)]


def first_support(sentence: dict) -> str | None:
    """Support code of the sentence's first citation (position 0), or None if it cites nothing."""
    cits = sentence["citations"]
    return cits[0]["support"] if cits else None


def answer_scores(rows: list[dict]) -> dict[tuple[str, str], tuple[int, int, float, float]]:
    """(topic, run) -> (sentences, judged first citations, weighted precision, weighted recall)."""
    out = {}
    for r in rows:
        n, judged, dropped, total = len(r["sentences"]), 0, 0, 0.0
        for s in r["sentences"]:
            sup = first_support(s)
            if sup == "-1":
                dropped += 1
            elif sup is not None:
                judged += 1
                total += WEIGHT[sup]
        prec = total / judged if judged else 0.0
        rec = total / (n - dropped) if n - dropped else 0.0
        out[(r["topic_id"], r["run_id"])] = (n, judged, prec, rec)
    return out


def run_scores(rows: list[dict], topics: list[str] | None = None) -> dict[str, tuple[float, float, float, int]]:
    """run -> (precision, recall, mean sentences, topics): means over topics, a missing answer counts 0."""
    topics = sorted({r["topic_id"] for r in rows}) if topics is None else list(topics)
    per = answer_scores(rows)
    out = {}
    for run in sorted({r["run_id"] for r in rows}):
        got = [per.get((t, run), (0, 0, 0.0, 0.0)) for t in topics]
        k = len(topics)
        out[run] = (sum(g[2] for g in got) / k, sum(g[3] for g in got) / k, sum(g[0] for g in got) / k, k)
    return out


def table3_counts(rows: list[dict]) -> dict[str, int]:
    """First-citation label counts (the paper's Table 3), plus sentences without a citation."""
    c = Counter({"FS": 0, "PS": 0, "NS": 0, "-1": 0, "no_citation": 0})
    for r in rows:
        for s in r["sentences"]:
            sup = first_support(s)
            c["no_citation" if sup is None else NAME[sup]] += 1
    c["judged"] = c["FS"] + c["PS"] + c["NS"]
    c["sentences"] = c["judged"] + c["-1"] + c["no_citation"]
    return dict(c)


def every_citation_counts(rows: list[dict]) -> dict[str, int]:
    """Labels over all citations, and how many of them are later (non-first) citations."""
    c = Counter({"FS": 0, "PS": 0, "NS": 0, "-1": 0, "later": 0, "later_judged": 0})
    for r in rows:
        for s in r["sentences"]:
            for pos, cit in enumerate(s["citations"]):
                c[NAME[cit["support"]]] += 1
                if pos:
                    c["later"] += 1
                    c["later_judged"] += cit["support"] != "-1"
    c["judged"] = c["FS"] + c["PS"] + c["NS"]
    c["citations"] = c["judged"] + c["-1"]
    return dict(c)


def nist_labels(rows: list[dict]) -> dict[Key, str]:
    """(run, topic, sentence index, position) -> "FS"|"PS"|"NS"|"-1" for every NIST citation."""
    return {
        (r["run_id"], r["topic_id"], i, pos): NAME[c["support"]]
        for r in rows
        for i, s in enumerate(r["sentences"])
        for pos, c in enumerate(s["citations"])
    }


def agreement(pairs: list[tuple[str, str]]) -> dict:
    """n, exact agreement, unweighted Cohen's kappa, 3x3 confusion (rows first judge, cols second; NS PS FS)."""
    n = len(pairs)
    conf = [[0] * 3 for _ in ORDER]
    for a, b in pairs:
        conf[ORDER.index(a)][ORDER.index(b)] += 1
    p_o = sum(conf[i][i] for i in range(3)) / n
    rows_m = [sum(conf[i]) / n for i in range(3)]
    cols_m = [sum(conf[i][j] for i in range(3)) / n for j in range(3)]
    p_e = sum(r * c for r, c in zip(rows_m, cols_m, strict=False))
    kappa = (p_o - p_e) / (1 - p_e) if not math.isclose(p_e, 1.0) else 1.0
    return {"n": n, "agreement": p_o, "kappa": kappa, "confusion": conf}


def read_verdicts(path: str | Path) -> tuple[list[dict], dict[Key, dict]]:
    """All lines, and the lines deduplicated by key (duplicates must be identical)."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    unique: dict[Key, dict] = {}
    for v in lines:
        k = (v["run_id"], v["topic_id"], int(v["sentence_index"]), int(v["citation_slot"]))
        assert k not in unique or unique[k] == v, k
        unique[k] = v
    return lines, unique


def opus_agreement(verdict_path: str | Path, nist_rows: list[dict], unit: str = "first") -> dict:
    """NIST (from the NIST files) versus Opus, over citations both labelled; unit "first" or "every"."""
    assert unit in ("first", "every")
    lines, unique = read_verdicts(verdict_path)
    nist = nist_labels(nist_rows)
    pairs, differs, absent = [], 0, 0
    for k, v in sorted(unique.items()):
        if unit == "first" and k[3] != 0:
            continue
        label = nist.get(k)
        if label is None:
            absent += 1
            continue
        if label == "-1":
            continue
        differs += label != v["human_label"]
        pairs.append((label, v["opus_nist_label"]))
    out = agreement(pairs)
    out.update(
        unit=unit,
        lines=len(lines),
        duplicates=len(lines) - len(unique),
        human_label_differs=differs,
        not_in_nist=absent,
    )
    return out


def normalise(text: object) -> str | None:
    """NFKC and collapsed whitespace; None for a missing (NaN) text."""
    if not isinstance(text, str):
        return None
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def borrowed_labels(rows: list[dict]) -> dict[str, int]:
    """Sentences whose first citation is "-1" but whose (text, passage) pair is judged elsewhere in the topic."""
    anywhere: dict[str, set] = defaultdict(set)
    as_first: dict[str, set] = defaultdict(set)
    for r in rows:
        for s in r["sentences"]:
            for pos, c in enumerate(s["citations"]):
                if c["support"] != "-1" and normalise(s["text"]) is not None:
                    pair = (normalise(s["text"]), c["reference"])
                    anywhere[r["topic_id"]].add(pair)
                    if pos == 0:
                        as_first[r["topic_id"]].add(pair)
    c = Counter({"first_unjudged": 0, "judged_anywhere": 0, "judged_as_first": 0})
    for r in rows:
        for s in r["sentences"]:
            if first_support(s) == "-1":
                pair = (normalise(s["text"]), s["citations"][0]["reference"])
                c["first_unjudged"] += 1
                c["judged_anywhere"] += pair in anywhere[r["topic_id"]]
                c["judged_as_first"] += pair in as_first[r["topic_id"]]
    return dict(c)


def _print_runs(title: str, rows: list[dict]) -> None:
    scores = run_scores(rows)
    print(
        f"\n== {title}: {len(scores)} runs, {len({r['topic_id'] for r in rows})} topics, {len(rows)} (topic, run) rows"
    )
    print(f"{'#':>3} {'run':<64} {'precision':>9} {'recall':>9} {'sentences':>9}")
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1][0], kv[0]))
    for i, (run, (p, r, m, _)) in enumerate(ranked, 1):
        print(f"{i:>3} {run:<64} {p:9.6f} {r:9.6f} {m:9.6f}")


def _print_agreement(a: dict) -> None:
    print(
        f"  unit={a['unit']}: n={a['n']} agreement={a['agreement']:.4f} kappa={a['kappa']:.4f}"
        f" | verdict lines {a['lines']}, duplicates {a['duplicates']}, keys not in NIST {a['not_in_nist']},"
        f" human_label != NIST {a['human_label_differs']}"
    )
    for name, row in zip(ORDER, a["confusion"], strict=False):
        print(f"    NIST {name}: {row}")


if __name__ == "__main__":
    scratch, post = read_many(FROM_SCRATCH), read_many(POST_EDIT)
    _print_runs("Table 5, from scratch (without_prediction + Webassess)", scratch)
    _print_runs("Table 7, post-edit (with_prediction)", post)

    print("\n== First-citation counts (Table 3)")
    for name, rows in [("from scratch", scratch), ("post-edit", post)] + [(p.name, read_nist(p)) for p in FROM_SCRATCH]:
        print(f"  {name}: {table3_counts(rows)}")
    print("== Every-citation counts")
    for name, rows in [("from scratch", scratch), ("post-edit", post), ("Webassess", read_nist(FROM_SCRATCH[1]))]:
        print(f"  {name}: {every_citation_counts(rows)}")

    print("\n== Checks")
    fs = run_scores(scratch)
    print("  neu.neurag:", "precision {:.6f} recall {:.6f}".format(*fs["neu.neurag"][:2]))
    top = fs["IITD-IRL.ag_rag_gpt35_expansion_rrf_20"]
    print(f"  IITD-IRL.ag_rag_gpt35_expansion_rrf_20 precision {top[0]:.6f} over {top[3]} topics")
    print("  IRIT.ISIR-IRIT-zephyr_p2 mean sentences {:.6f}".format(fs["IRIT.ISIR-IRIT-zephyr_p2"][2]))
    n, j, p, r = answer_scores(scratch)[("2024-158677", "neu.neurag")]
    print(f"  2024-158677 / neu.neurag: sentences {n}, judged {j}, precision {p:.6f}, recall {r:.6f}")
    print("  Excerpts, per (topic, run): sentences, precision, recall")
    for f in ("final.citation_judgments_without_prediction.20241025", "final.citation_judgments_Webassess.20241031"):
        for (t, run), (n, _, p, r) in answer_scores(read_nist(DATA / f"excerpts/{f}.excerpt.jsonl")).items():
            print(f"    {t} {run:<55} {n:>3} {p:.6f} {r:.6f}")
    print("  Borrowed labels in Webassess:", borrowed_labels(read_nist(FROM_SCRATCH[1])))

    print("\n== Human (verdict file's own human_label column) versus Opus")
    for path in (VERDICTS, DATA / "excerpts/opus48_nist_verdicts.excerpt.jsonl"):
        lines, unique = read_verdicts(path)
        for label, vs in (("all lines", lines), ("unique keys", list(unique.values()))):
            a = agreement([(v["human_label"], v["opus_nist_label"]) for v in vs])
            print(
                f"  {path.name} {label}: n={a['n']} agreement={a['agreement']:.4f} kappa={a['kappa']:.4f} {a['confusion']}"
            )
    print("== NIST (from the NIST files) versus Opus")
    for unit in ("first", "every"):
        _print_agreement(opus_agreement(VERDICTS, scratch, unit))
