"""bench/judge.py's data, in its own database: real TREC 2024 RAG test topics and, for each, the 20 real MS MARCO
V2.1 segments retrieved for it (webis-de/ir_axioms, see data/trec-rag-2024/SOURCES.md); 40 runs of one
10-sentence answer per topic, each sentence citing one of those segments; one from-scratch campaign at depth 1;
and each phase's assessors, with 8 topics each."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("ASSESS_DATA_DIR", "").strip() or ROOT / "data" / "trec-rag-2024")
PASSWORD = "bench-judge-password"
TOPICS_PER_ASSESSOR = 8
RUNS = 40
SENTENCES = 10


def real_topics(n: int) -> list[dict[str, Any]]:
    """The first n test topics of the Webis retrieval file, each with its 20 segments' ids and texts."""
    out = []
    with gzip.open(DATA / "retrieve" / "webis-crowd" / "study1_retrieval.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            out.append(row)
            if len(out) == n:
                break
    if len(out) < n:
        raise SystemExit(f"the retrieval file has {len(out)} topics, {n} needed")
    return out


def claim_from(text: str, rng: random.Random) -> str:
    """A sentence an answer might state from a segment: a run of its words."""
    words = text.split()
    start = rng.randrange(max(1, len(words) - 14))
    return " ".join(words[start : start + rng.randint(8, 14)]).rstrip(".,;:") + "."


def populate(n_topics: int, phases: list[int]) -> dict[str, Any]:
    """Topics, passages, runs, answers, the campaign and its pairs, and each phase's assessors."""
    from django.db import transaction

    from judging import build

    rng = random.Random(2024)
    rows = real_topics(n_topics)
    with transaction.atomic():
        topics, runs = answers_create(rows, rng)
        campaign = build.campaign_create(
            name="bench-judge", runs=runs, topics=topics, depth=1, guidelines=""
        )  # no start overlay: it measures keystrokes
    summary = build.campaign_build_pairs(campaign=campaign)
    accounts: dict[int, list[str]] = {}
    for n in phases:
        accounts[n] = assessors_create(campaign, topics, [f"bench-judge-n{n:02d}-{k + 1:02d}" for k in range(n)])
    return {"pairs": summary["pairs"], "accounts": accounts}


def answers_create(rows: list[dict[str, Any]], rng: random.Random) -> tuple[list[Any], list[Any]]:
    """The topics and their segments, the runs, and one answer per run and topic whose every sentence cites one of
    the topic's segments. Returns the topics and the runs."""
    from assess.models import Answer, Citation, Passage, Run, Sentence, Topic

    topics = Topic.objects.bulk_create([Topic(topic_id=r["topic"], text=r["query"]) for r in rows])
    texts: dict[str, str] = {}
    for r in rows:
        texts.update(zip(r["references_ids"], r["references_texts"], strict=True))
    passages = {
        p.passage_id: p
        for p in Passage.objects.bulk_create(
            [Passage(passage_id=pid, text=t, has_text=True) for pid, t in texts.items()], batch_size=2000
        )
    }
    runs = Run.objects.bulk_create(
        [Run(run_id=f"bench-team{r // 4:02d}.judge_run_{r:02d}", group=f"bench-team{r // 4:02d}") for r in range(RUNS)]
    )
    answers = Answer.objects.bulk_create(
        [Answer(run=run, topic=t, references=rows[i]["references_ids"]) for i, t in enumerate(topics) for run in runs],
        batch_size=2000,
    )
    sentences: list[Sentence] = []
    cites: list[tuple[int, str]] = []
    for a in answers:
        refs = a.references
        for s in range(SENTENCES):
            ref = rng.randrange(len(refs))
            sentences.append(Sentence(answer=a, index=s, text=claim_from(texts[refs[ref]], rng)))
            cites.append((ref, refs[ref]))
    Sentence.objects.bulk_create(sentences, batch_size=5000)
    Citation.objects.bulk_create(
        [
            Citation(sentence=s, slot=0, passage=passages[pid], reference_index=ref)
            for s, (ref, pid) in zip(sentences, cites, strict=True)
        ],
        batch_size=5000,
    )
    return topics, runs


def assessors_create(campaign: Any, topics: list[Any], names: list[str], shift: int = 0) -> list[str]:
    """An assessor of each name, the k-th with `topics_of(k, topics, shift)` to judge from scratch."""
    from judging import services
    from judging.models import Condition

    for k, name in enumerate(names):
        user = services.assessor_create(username=name, password=PASSWORD)
        mine = topics_of(k, topics, shift)
        services.assignments_create(campaign=campaign, assessor=user, topics=mine, condition=Condition.FROM_SCRATCH)
    return names


def topics_of(k: int, topics: list[Any], shift: int = 0) -> list[Any]:
    """The k-th assessor's topics, in order: assessors of one phase start on different topics and go on through
    the next ones (fewer when the campaign has fewer topics)."""
    return [
        topics[(k * TOPICS_PER_ASSESSOR + j + shift) % len(topics)]
        for j in range(min(TOPICS_PER_ASSESSOR, len(topics)))
    ]


def setup_database(database_url: str) -> None:
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True)


def paced_accounts(n: int, rate: float) -> list[str]:
    """n more assessors, like a phase's, for a paced run."""
    from judging.models import Assignment, Campaign

    campaign = Campaign.objects.get(name="bench-judge")
    topics = list(campaign.topics.order_by("topic_id"))
    names = assessors_create(campaign, topics, [f"bench-judge-paced{rate:g}-{k + 1:02d}" for k in range(n)], shift=3)
    assert Assignment.objects.filter(assessor__username__in=names).count() == n * min(TOPICS_PER_ASSESSOR, len(topics))
    from django.db import connections

    connections.close_all()
    return names
