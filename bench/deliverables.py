"""Deliverables benchmark (issue 23, point 4): `campaign_deliverables` on a campaign of about a million judgments.

    python bench/deliverables.py [--runs 100] [--topics 301] [--regenerate]

Fills its own database (`BENCH_DELIVERABLES_DATABASE_URL`, default
postgres://postgres@127.0.0.1:5432/assess_bench_deliv; created here, refilled only when its size differs or
with --regenerate) with COPY: runs x topics answers of 10 sentences citing one passage each, every citation
its own pair in the campaign `bench`'s pool; each topic assigned from scratch to two of six assessors, who
label every pair (a third of them twice: a correction), 1% flagged with a comment, 0.5% "cannot judge" with
a reason; an LLM judge labels every pair; a reviewer gives 1,000 pairs a final label. Then it writes the zip
for `final/bench` (1000 bootstrap resamples, as the command does) and prints the seconds, the zip's size, and
the process's resident memory sampled while it runs (flat: it does not grow with the zip, which is written
to the file entry by entry).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from benchdb import setup_django  # noqa: E402  (bench/benchdb.py)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/assess_bench_deliv"
LABELS = ("FS", "PS", "NS")
ASSESSORS = 6
SENTENCES = 10


PER_TOPIC = 100  # passages per topic
COLUMNS = {  # rows key -> (table, columns) written by COPY
    "answer": ("assess_answer", 'id, run_id, topic_id, "references", response_length'),
    "sentence": ("assess_sentence", "id, answer_id, index, text"),
    "citation": ("assess_citation", "id, sentence_id, slot, passage_id, reference_index"),
    "pair": ("judging_pair", "id, text, text_hash, passage_id"),
    "cp": ("judging_citationpair", "citation_id, pair_id"),
    "cpool": (
        "judging_campaignpair",
        "campaign_id, pair_id, topic_id, context_citation_id, citation_count, position",
    ),
    "j": (
        "judging_judgment",
        "id, judge_id, pair_id, citation_id, label, not_judged_reason, origin, condition, assignment_id, "
        "shown_label, seconds, flagged, comment, created_at",
    ),
}


@dataclass
class Fill:
    """What `generate` writes: the people, the campaign, the rows waiting for COPY and the last id of each."""

    raw: Any  # psycopg 3 cursor, for COPY
    rng: random.Random
    campaign_id: int
    judge_ids: list[int]
    llm_id: int
    reviewer_id: int
    assignment_ids: dict[tuple[int, int], int]  # (topic, assessor) -> assignment
    rows: dict[str, list[tuple]] = field(default_factory=lambda: {key: [] for key in COLUMNS})
    answer_id: int = 0
    sentence_id: int = 0
    citation_id: int = 0
    judgment_id: int = 0

    def flush(self) -> None:
        for key, (table, cols) in COLUMNS.items():
            with self.raw.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                for row in self.rows[key]:
                    copy.write_row(row)
            self.rows[key].clear()


def generate(n_runs: int, n_topics: int, seed: int = 23) -> dict[str, int]:
    """The campaign, its pool, assignments and judgments; ids are assigned here."""
    from django.db import connection, transaction

    rng = random.Random(seed)
    with transaction.atomic():
        fill = _people_and_campaign(n_runs, n_topics, rng)
        for t in range(n_topics):
            _topic_rows(fill, t, n_runs)
            if len(fill.rows["j"]) > 200_000:
                fill.flush()
        fill.flush()
        _sequences_reset()
        _final_labels(fill)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {"answers": fill.answer_id, "citations": fill.citation_id, "judgments": fill.judgment_id}


def _people_and_campaign(n_runs: int, n_topics: int, rng: random.Random) -> Fill:
    """Empty the tables, then the assessors, the LLM judge, topics, passages, runs, the campaign, assignments."""
    from django.contrib.auth.models import Group, User
    from django.db import connection

    from judging.models import Assignment, Campaign, Condition, Judge, JudgeKind

    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE judging_finallabel, judging_judgment, judging_assignment, judging_campaignpair, "
            "judging_citationpair, judging_campaign_runs, judging_campaign_topics, judging_campaign, "
            "judging_pair, judging_judge, assess_citation, assess_sentence, assess_answer, assess_run, "
            "assess_passage, assess_topic RESTART IDENTITY CASCADE"
        )
    User.objects.filter(username__startswith="bench-").delete()
    assessors = [User.objects.create(username=f"bench-a{i}") for i in range(ASSESSORS)]
    reviewer = User.objects.create(username="bench-reviewer")
    reviewer.groups.add(Group.objects.get(name="reviewer"))
    judges = [Judge.objects.create(name=u.username, kind=JudgeKind.HUMAN, user=u) for u in assessors]
    llm = Judge.objects.create(name="bench-llm", kind=JudgeKind.LLM)
    raw = connection.cursor().cursor  # psycopg 3 cursor, for COPY
    _catalogue_copy(raw, n_runs, n_topics)
    campaign = Campaign.objects.create(name="bench", depth=1, post_edit_judge=llm, built_at="2026-12-04T00:00Z")
    campaign.runs.add(*range(1, n_runs + 1))
    campaign.topics.add(*range(1, n_topics + 1))
    assignments = {}
    for t in range(n_topics):
        for k in (t % ASSESSORS, (t + 1) % ASSESSORS):
            assignments[(t, k)] = Assignment(
                campaign=campaign, assessor=assessors[k], topic_id=t + 1, condition=Condition.FROM_SCRATCH
            )
    Assignment.objects.bulk_create(list(assignments.values()))
    return Fill(
        raw=raw,
        rng=rng,
        campaign_id=campaign.pk,
        judge_ids=[j.pk for j in judges],
        llm_id=llm.pk,
        reviewer_id=reviewer.pk,
        assignment_ids={key: a.pk for key, a in assignments.items()},
    )


def _catalogue_copy(raw: Any, n_runs: int, n_topics: int) -> None:
    """Topics, PER_TOPIC passages each, and runs, by COPY."""
    with raw.copy("COPY assess_topic (id, topic_id, text) FROM STDIN") as copy:
        for t in range(n_topics):
            copy.write_row((t + 1, f"2024-{100000 + t}", f"question {t}?"))
    with raw.copy("COPY assess_passage (id, passage_id, title, text, url, headings, has_text) FROM STDIN") as copy:
        for p in range(n_topics * PER_TOPIC):
            copy.write_row((p + 1, f"msmarco_v2.1_doc_00_{p}#0_{p * 7}", f"Title {p}", f"Passage {p}.", "", "", True))
    with raw.copy('COPY assess_run (id, run_id, "group", task, source_file, created_at) FROM STDIN') as copy:
        for r in range(n_runs):
            copy.write_row((r + 1, f"team{r // 4:02d}.bench_run_{r:03d}", f"team{r // 4:02d}", "RAG", "", "now"))


def _topic_rows(fill: Fill, t: int, n_runs: int) -> None:
    """Each run's answer on topic `t`: its sentences, their one citation each, the pairs in the pool, and
    every pair's judgments (both assessors', the LLM's)."""
    rows, rng = fill.rows, fill.rng
    position = 0
    for r in range(n_runs):
        quality = (r % 10) / 10
        fill.answer_id += 1
        rows["answer"].append((fill.answer_id, r + 1, t + 1, "[]", None))
        for s in range(SENTENCES):
            fill.sentence_id += 1
            fill.citation_id += 1
            citation_id = fill.citation_id
            text = f"run {r} topic {t} sentence {s} states a fact."
            passage = t * PER_TOPIC + rng.randrange(PER_TOPIC) + 1
            rows["sentence"].append((fill.sentence_id, fill.answer_id, s, text))
            rows["citation"].append((citation_id, fill.sentence_id, 0, passage, 0))
            rows["pair"].append((citation_id, text, f"{citation_id:064x}", passage))
            rows["cp"].append((citation_id, citation_id))
            rows["cpool"].append((fill.campaign_id, citation_id, t + 1, citation_id, 1, position))
            position += 1
            truth = rng.choices(LABELS, weights=(quality + 0.2, 0.5, 1.2 - quality))[0]
            _judgment_rows(fill, t, truth)


def _judgment_rows(fill: Fill, t: int, truth: str) -> None:
    """The current citation's judgments: each of the topic's two assessors (a correction on a third of the
    pairs, 1% flagged, 0.5% "cannot judge"), then the LLM judge's."""
    rng, citation_id = fill.rng, fill.citation_id
    for k in (t % ASSESSORS, (t + 1) % ASSESSORS):
        times = 2 if rng.random() < 1 / 6 else 1  # a correction on a third of the pairs
        for _ in range(times):
            fill.judgment_id += 1
            label = truth if rng.random() < 0.75 else rng.choice(LABELS)
            roll = rng.random()
            cannot = roll < 0.005
            flagged = 0.005 <= roll < 0.015
            fill.rows["j"].append(
                (
                    fill.judgment_id,
                    fill.judge_ids[k],
                    citation_id,
                    citation_id,
                    "" if cannot else label,
                    "passage is not in English" if cannot else "",
                    "platform",
                    "from_scratch",
                    fill.assignment_ids[(t, k)],
                    "",
                    rng.uniform(3, 40),
                    flagged,
                    "unclear passage" if flagged else "",
                    "now",
                )
            )
    fill.judgment_id += 1
    llm_label = truth if rng.random() < 0.6 else rng.choice(LABELS)
    fill.rows["j"].append(
        (
            fill.judgment_id,
            fill.llm_id,
            citation_id,
            None,
            llm_label,
            "",
            "platform",
            "",
            None,
            "",
            None,
            False,
            "",
            "now",
        )
    )


def _sequences_reset() -> None:
    """Each COPY-filled table's id sequence past its largest id, for rows created later."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in (
            "assess_topic",
            "assess_passage",
            "assess_run",
            "assess_answer",
            "assess_sentence",
            "assess_citation",
            "judging_pair",
            "judging_judgment",
        ):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")


def _final_labels(fill: Fill) -> None:
    """The reviewer's final label on 1,000 pairs."""
    from judging.models import FinalLabel

    FinalLabel.objects.bulk_create(
        [
            FinalLabel(
                campaign_id=fill.campaign_id,
                pair_id=p,
                label=fill.rng.choice(LABELS),
                reason="reviewed",
                reviewer_id=fill.reviewer_id,
            )
            for p in fill.rng.sample(range(1, fill.citation_id + 1), 1000)
        ]
    )


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=301)
    parser.add_argument("--regenerate", action="store_true")
    args = parser.parse_args()
    setup_django(os.environ.get("BENCH_DELIVERABLES_DATABASE_URL", DEFAULT_DB))

    from django.core.cache import cache

    from assess.models import Answer
    from judging.labels import label_set_get
    from judging.models import Campaign, Judgment
    from metrics.deliverables.build import deliverables_write

    campaign = Campaign.objects.filter(name="bench").first()
    if args.regenerate or campaign is None or Answer.objects.count() != args.runs * args.topics:
        start = time.perf_counter()
        counts = generate(args.runs, args.topics)
        print(f"generated {counts} in {time.perf_counter() - start:.1f} s", flush=True)
        campaign = Campaign.objects.get(name="bench")
    print(f"{Answer.objects.count():,} answers, {Judgment.objects.count():,} judgments", flush=True)
    cache.clear()
    samples: list[tuple[float, float]] = []
    running = True

    def sample() -> None:
        while running:
            samples.append((time.perf_counter(), rss_mb()))
            time.sleep(0.25)

    before = rss_mb()
    sampler = threading.Thread(target=sample, daemon=True)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.zip"
        start = time.perf_counter()
        sampler.start()
        done = deliverables_write(out, campaign=campaign, label_set=label_set_get("final/bench"))
        seconds = time.perf_counter() - start
        running = False
        sampler.join()
        size = out.stat().st_size
        with zipfile.ZipFile(out) as zf:
            unpacked = sum(i.file_size for i in zf.infolist())
    peak = max(r for _, r in samples)
    print(f"campaign_deliverables final/bench: {seconds:.1f} s (goal 60 s)")
    print(f"zip {size / 1e6:.1f} MB ({unpacked / 1e6:.1f} MB unpacked), {len(done.files)} files + manifest")
    for entry in done.files:
        print(f"  {entry['name']:<36} {entry['bytes'] / 1e6:8.2f} MB  {entry.get('seconds', 0):6.1f} s")
    for step, took in done.timings.items():
        print(f"  {step:<36} {took:6.1f} s")
    print(f"resident memory: {before:.0f} MB before, peak {peak:.0f} MB, {peak - before:.0f} MB over the start")
    steps = [samples[int(i * (len(samples) - 1) / 9)] for i in range(10)] if samples else []
    print("  sampled: " + ", ".join(f"{t - start:.0f}s {r:.0f}MB" for t, r in steps))


if __name__ == "__main__":
    main()
