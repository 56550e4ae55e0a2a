"""The relevance part of the demo (issue 26, point 5): a campaign on the demo topics whose pool is UMBRELA's
pairs (the repository's UMBRELA qrels), `assessor` grading from scratch and `editor` post-editing UMBRELA's
grades. NIST's relevance qrels excerpt is loaded beside it as source `nist-qrels`, so that the report compares
UMBRELA with people (topic 2024-32912 is in both). Runs after the assess demo (its topics, runs and users)."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path
from typing import TextIO

from django.contrib.auth.models import User

from assess.data import data_dir
from assess.demo import ASSESSOR, DEMO_TOPICS, EDITOR
from assess.importers.passages import passages_import
from assess.importers.qrels import relevance_import
from assess.models import Relevance, Run, Topic
from judging.build import campaign_create_and_build
from judging.models import Campaign, Condition, JudgeKind
from judging.services import assignments_create, judge_get_or_create

CAMPAIGN = "demo-relevance"
UMBRELA = "umbrela"
NIST = "nist-qrels"
QRELS = "segments/rag24-test.umbrela-relevant.ljy03-51d3fc8.qrels.txt"
SEGMENTS = "segments/rag24-test.umbrela-relevant.ljy03-51d3fc8.jsonl.gz"
NIST_QRELS = "excerpts/qrels.rag24.test.excerpt.txt"
CONDITIONS = {ASSESSOR[0]: Condition.FROM_SCRATCH, EDITOR[0]: Condition.POST_EDIT}


def _segments_of_topics(data: Path, topics: tuple[str, ...], out: Path) -> None:
    """The UMBRELA segments file cut to the passages the topics' qrels name (the importer reads the cut)."""
    wanted = set(Relevance.objects.filter(source=UMBRELA, topic_id__in=topics).values_list("passage_id", flat=True))
    with gzip.open(data / SEGMENTS, "rt", encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for line in src:
            if json.loads(line)["docid"] in wanted:
                dst.write(line)


def load(out: TextIO) -> None:
    if Campaign.objects.filter(name=CAMPAIGN).exists():
        out.write(f"demo campaign {CAMPAIGN!r} already exists\n")
        return
    data = data_dir()
    for source, path in ((UMBRELA, QRELS), (NIST, NIST_QRELS)):
        if not Relevance.objects.filter(source=source).exists():
            relevance_import(files=[data / path], source=source)
    with tempfile.TemporaryDirectory() as tmp:
        cut = Path(tmp) / "umbrela-segments.jsonl"
        _segments_of_topics(data, DEMO_TOPICS, cut)
        passages_import(files=[cut])
    topics = list(Topic.objects.filter(topic_id__in=DEMO_TOPICS).order_by("topic_id"))
    # UMBRELA is an LLM assessor: post-editing shows its grades as it shows an LLM judge's labels.
    campaign, summary = campaign_create_and_build(
        name=CAMPAIGN,
        runs=Run.objects.all(),
        topics=topics,
        kind="relevance",
        build_options={"pool": "qrels", "source": UMBRELA},
        post_edit_judge=judge_get_or_create(name=UMBRELA, kind=JudgeKind.LLM),
    )
    for username, condition in CONDITIONS.items():
        assignments_create(
            campaign=campaign, assessor=User.objects.get(username=username), topics=topics, condition=condition
        )
    out.write(
        f"campaign {CAMPAIGN!r}: {summary['items']} (topic, passage) items of UMBRELA's qrels on "
        f"{', '.join(t.topic_id for t in topics)}; "
        + ", ".join(f"{u} {c.label.lower()}" for u, c in CONDITIONS.items())
        + "\n"
    )
