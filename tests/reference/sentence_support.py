"""Independent reference computation of the sentence support scores (issue 26) from NIST's Webassess file.

Standard library only; it imports nothing from the project. Per run, over the run's sentences in the file:
- combined_judged: sentences whose `citationsCombibed` (NIST's spelling) is "0", "1" or "2";
- combined_full / combined_partial_or_full: of those, the share with "2", and with "1" or "2";
- needs_citation_uncited: sentences with verification_worthy "1" and an empty citation list, of all the
  run's sentences in the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

DATA = Path(os.environ.get("ASSESS_DATA_DIR", "").strip() or Path(__file__).resolve().parents[2] / "data/trec-rag-2024")
WEBASSESS = DATA / "nist-support" / "final.citation_judgments_Webassess.20241031.jsonl"
COLUMNS = ("run_id", "combined_judged", "combined_full", "combined_partial_or_full", "needs_citation_uncited")


def sentence_scores(path: str | Path = WEBASSESS) -> dict[str, dict[str, float | int | None]]:
    counts: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            c = counts.setdefault(row["run_id"], {"sentences": 0, "judged": 0, "full": 0, "partial": 0, "uncited": 0})
            for s in row["sentences"]:
                c["sentences"] += 1
                combined = str(s.get("citationsCombibed"))
                if combined in ("0", "1", "2"):
                    c["judged"] += 1
                    c["full"] += combined == "2"
                    c["partial"] += combined in ("1", "2")
                if str(s.get("verification_worthy")) == "1" and not s.get("citations"):
                    c["uncited"] += 1
    return {
        run: {
            "run_id": run,
            "combined_judged": c["judged"],
            "combined_full": c["full"] / c["judged"] if c["judged"] else None,
            "combined_partial_or_full": c["partial"] / c["judged"] if c["judged"] else None,
            "needs_citation_uncited": c["uncited"] / c["sentences"] if c["sentences"] else None,
        }
        for run, c in counts.items()
    }


if __name__ == "__main__":
    print(",".join(COLUMNS))
    for _run, r in sorted(sentence_scores().items()):
        print(",".join("" if r[k] is None else str(r[k]) for k in COLUMNS))
