"""The demo's judgments: NIST's human labels and Opus 4.8's labels for the two demo topics, so that the
metrics pages show real figures on first start. Runs after `assess.demo` (which loads NIST's runs)."""

from __future__ import annotations

import time
from typing import TextIO

from assess.data import data_dir
from assess.demo import DEMO_TOPICS
from judging.demo import LLM_JUDGE
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.models import Condition, JudgeKind, Judgment

NIST_JUDGE = "nist"


def load(out: TextIO) -> None:
    if (
        Judgment.objects.filter(judge__name=NIST_JUDGE).exists()
        and Judgment.objects.filter(judge__name=LLM_JUDGE).exists()
    ):
        out.write("demo judgments already loaded\n")
        return
    started = time.monotonic()
    data = data_dir()
    topics = frozenset(DEMO_TOPICS)
    nist = judgments_import(
        files=[
            data / "nist-support" / "final.citation_judgments_without_prediction.20241025.jsonl",
            data / "nist-support" / "final.citation_judgments_Webassess.20241031.jsonl",
        ],
        fmt=JudgmentFormat.NIST,
        options=JudgmentImportOptions(
            judge=NIST_JUDGE, kind=JudgeKind.HUMAN, condition=Condition.FROM_SCRATCH, topics=topics
        ),
    )
    llm = judgments_import(
        files=[data / "llm-judges" / "opus48_nist_verdicts.jsonl"],
        fmt=JudgmentFormat.EXCHANGE,
        options=JudgmentImportOptions(
            judge=LLM_JUDGE, kind=JudgeKind.LLM, label_field="opus_nist_label", topics=topics
        ),
    )
    out.write(
        f"imported {nist.counts.get('judgments', 0)} NIST labels and {llm.counts.get('judgments', 0)} "
        f"{LLM_JUDGE} labels for topics {', '.join(DEMO_TOPICS)} in {time.monotonic() - started:.1f} s\n"
    )
