"""Metrics benchmark: TREC scale (150 runs x 301 topics, two judges, about a million judgments) in PostgreSQL.

    python bench/metrics.py [--runs 150] [--topics 301] [--regenerate]

Fills its own database (`BENCH_METRICS_DATABASE_URL`, default
postgres://postgres@127.0.0.1:5432/assess_bench_metrics; created by this script, and refilled only when
its size differs or with --regenerate) with synthetic answers (7-13 sentences, 0-2 citations each) and two
judges' labels (every first citation, and a third of the second ones) written with COPY, then prints the
seconds for: all scores of both judges, the agreement report, a 1000-resample bootstrap (run intervals of
both judges and the tau interval), and the dashboard page's server time, cold and cached.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from benchdb import setup_django  # noqa: E402  (bench/benchdb.py)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/assess_bench_metrics"
LABELS = ("FS", "PS", "NS")


PASSAGES_PER_TOPIC = 100
TABLES = (
    "assess_topic",
    "assess_passage",
    "assess_run",
    "assess_answer",
    "assess_sentence",
    "assess_citation",
    "judging_judge",
    "judging_pair",
    "judging_judgment",
)


def generate(n_runs: int, n_topics: int, seed: int = 11) -> dict[str, int]:
    """Write the synthetic material and both judges' labels with COPY; ids are assigned here."""
    from django.db import connection, transaction

    rng = random.Random(seed)
    counts = {"answers": 0, "sentences": 0, "citations": 0, "judgments": 0}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE judging_judgment, judging_pair, judging_judge, assess_citation, assess_sentence, "
            "assess_answer, assess_run, assess_passage, assess_topic RESTART IDENTITY CASCADE"
        )
        raw = cursor.cursor  # psycopg 3 cursor, for COPY
        fixed_rows_copy(raw, n_runs, n_topics)
        rows = Rows()
        for r in range(n_runs):
            quality = rng.random()  # some runs are better supported than others
            for t in range(n_topics):
                rows.answer_add(rng, run=r, topic=t, quality=quality)
                if len(rows.sentences) > 50_000:
                    rows.copy(raw)
            counts["answers"] = rows.answer_id
        rows.copy(raw)
        counts.update(sentences=rows.sentence_id, citations=rows.citation_id, judgments=rows.judgment_id)
        for table in TABLES:
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return counts


def fixed_rows_copy(raw: Any, n_runs: int, n_topics: int) -> None:
    """The topics, their passages, the runs and the two judges."""
    with raw.copy("COPY assess_topic (id, topic_id, text) FROM STDIN") as copy:
        for t in range(n_topics):
            copy.write_row((t + 1, f"2024-{100000 + t}", f"question {t}?"))
    with raw.copy("COPY assess_passage (id, passage_id, title, text, url, headings, has_text) FROM STDIN") as copy:
        for p in range(n_topics * PASSAGES_PER_TOPIC):
            copy.write_row((p + 1, f"msmarco_v2.1_doc_00_{p}#0_{p * 7}", f"Title {p}", f"Passage {p}.", "", "", True))
    with raw.copy('COPY assess_run (id, run_id, "group", task, source_file, created_at) FROM STDIN') as copy:
        for r in range(n_runs):
            copy.write_row((r + 1, f"team{r // 4:02d}.bench_run_{r:03d}", f"team{r // 4:02d}", "RAG", "", "now"))
    with raw.copy("COPY judging_judge (id, name, kind, created_at) FROM STDIN") as copy:
        copy.write_row((1, "bench-human", "human", "now"))
        copy.write_row((2, "bench-llm", "llm", "now"))


@dataclass
class Rows:
    """The answers' rows waiting for COPY, and the last id given in each table."""

    answers: list[tuple] = field(default_factory=list)
    sentences: list[tuple] = field(default_factory=list)
    citations: list[tuple] = field(default_factory=list)
    pairs: list[tuple] = field(default_factory=list)
    judgments: list[tuple] = field(default_factory=list)
    answer_id: int = 0
    sentence_id: int = 0
    citation_id: int = 0
    judgment_id: int = 0

    def answer_add(self, rng: random.Random, *, run: int, topic: int, quality: float) -> None:
        """One answer of 7-13 sentences, 0-2 citations each, every first citation and a third of the second ones
        labelled by both judges (the human's labels better for a run of higher `quality`)."""
        self.answer_id += 1
        self.answers.append((self.answer_id, run + 1, topic + 1, "[]", None))
        for s in range(rng.randint(7, 13)):
            self.sentence_id += 1
            text = f"run {run} topic {topic} sentence {s} states a fact."
            self.sentences.append((self.sentence_id, self.answer_id, s, text))
            digest = hashlib.sha256(text.encode()).hexdigest()
            n_cites = rng.choices((0, 1, 2), weights=(1, 6, 3))[0]
            for slot, passage in enumerate(rng.sample(range(PASSAGES_PER_TOPIC), n_cites)):
                self.citation_id += 1
                passage_id = topic * PASSAGES_PER_TOPIC + passage + 1
                self.citations.append((self.citation_id, self.sentence_id, slot, passage_id, passage))
                self.pairs.append((self.citation_id, text, digest, passage_id))
                if slot > 0 and rng.random() > 1 / 3:
                    continue
                human = rng.choices(LABELS, weights=(quality + 0.2, 0.5, 1.2 - quality))[0]
                llm = human if rng.random() < 0.6 else rng.choice(LABELS)
                for judge, label in ((1, human), (2, llm)):
                    self.judgment_id += 1
                    self.judgments.append(
                        (self.judgment_id, judge, self.citation_id, self.citation_id, label, "", "", False, "", "now")
                    )

    def copy(self, raw: Any) -> None:
        """Write the waiting rows with COPY, and empty the lists."""
        for table, columns, rows in (
            ("assess_answer", 'id, run_id, topic_id, "references", response_length', self.answers),
            ("assess_sentence", "id, answer_id, index, text", self.sentences),
            ("assess_citation", "id, sentence_id, slot, passage_id, reference_index", self.citations),
            ("judging_pair", "id, text, text_hash, passage_id", self.pairs),
            (
                "judging_judgment",
                "id, judge_id, pair_id, citation_id, label, condition, shown_label, flagged, comment, created_at",
                self.judgments,
            ),
        ):
            with raw.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            rows.clear()


def timed(label: str, fn, results: dict[str, float]):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    results[label] = time.perf_counter() - start
    print(f"{label:<52} {results[label]:7.2f} s", flush=True)
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=150)
    parser.add_argument("--topics", type=int, default=301)
    parser.add_argument("--regenerate", action="store_true")
    args = parser.parse_args()
    setup_django(os.environ.get("BENCH_METRICS_DATABASE_URL", DEFAULT_DB))

    from assess.models import Answer, Run
    from judging.models import Judgment

    if args.regenerate or Run.objects.count() != args.runs or Answer.objects.count() != args.runs * args.topics:
        start = time.perf_counter()
        counts = generate(args.runs, args.topics)
        print(f"generated {counts} in {time.perf_counter() - start:.1f} s", flush=True)
    print(f"{Run.objects.count()} runs, {Answer.objects.count()} answers, {Judgment.objects.count()} judgments")

    results: dict[str, float] = {}
    reports_timed(results)
    bootstrap_timed(args.runs, args.topics, results)
    dashboard_timed(results)


def reports_timed(results: dict[str, float]) -> None:
    """The material, both judges' labels, their scores and agreement from nothing cached; then after one new
    judgment, without and with the bootstraps."""
    from django.core.cache import cache

    from judging.labels import label_set_get
    from judging.scope import scope_for
    from metrics.material import labels_get, material_get
    from metrics.reports import agreement_report, scores_report

    scope = scope_for()
    human, llm = label_set_get("bench-human"), label_set_get("bench-llm")
    cache.clear()
    material = timed("read the material (citations in scope) from the DB", lambda: material_get(scope), results)
    timed("labels of bench-human (newest per citation)", lambda: labels_get(human, material), results)
    timed("labels of bench-llm", lambda: labels_get(llm, material), results)
    timed(
        "scores of both judges and agreement (computing)",
        lambda: (
            scores_report(label_set=human, scope=scope, resamples=0),
            scores_report(label_set=llm, scope=scope, resamples=0),
            agreement_report(a=human, b=llm, scope=scope, resamples=0),
        ),
        results,
    )
    cold = sum(results.values())
    print(f"{'  = scores and agreement from nothing cached':<52} {cold:7.2f} s")
    top = scores_report(label_set=human, scope=scope, resamples=0).rows[0]
    report = agreement_report(a=human, b=llm, scope=scope, resamples=0)
    print(
        f"  top run {top.run_id}: P {top.weighted_precision:.4f}; kappa {report['labels']['kappa']:.4f}; "
        f"tau(P) {report['tau']['precision']:.4f}; {report['labels']['n']} citations both labelled"
    )

    judgment_add()
    timed(
        "after one new judgment: scores x2 + agreement",
        lambda: (
            scores_report(label_set=human, scope=scope, resamples=0),
            scores_report(label_set=llm, scope=scope, resamples=0),
            agreement_report(a=human, b=llm, scope=scope, resamples=0),
        ),
        results,
    )
    timed(
        "the same with the 1000-resample bootstraps",
        lambda: (
            scores_report(label_set=human, scope=scope),
            scores_report(label_set=llm, scope=scope),
            agreement_report(a=human, b=llm, scope=scope),
        ),
        results,
    )


def judgment_add() -> None:
    """One more judgment by bench-human, as an assessor's next submit would add."""
    from judging.models import Judgment

    last = Judgment.objects.filter(judge__name="bench-human").order_by("-pk").first()
    assert last is not None
    Judgment.objects.create(judge=last.judge, pair=last.pair, citation=last.citation, label="FS")


def bootstrap_timed(n_runs: int, n_topics: int, results: dict[str, float]) -> None:
    """The bootstrap alone, on random per-topic scores of the benchmark's size."""
    import numpy as np

    from metrics import bootstrap

    rng = np.random.default_rng(0)
    per_topic_a = rng.random((n_runs, n_topics))
    per_topic_b = per_topic_a + rng.normal(0, 0.1, per_topic_a.shape)
    timed(
        "bootstrap alone: run intervals, 1000 resamples x 2",
        lambda: (
            bootstrap.run_intervals(per_topic_a, resamples=1000),
            bootstrap.run_intervals(per_topic_b, resamples=1000),
        ),
        results,
    )
    timed(
        "bootstrap alone: tau interval, 1000 resamples",
        lambda: bootstrap.tau_interval(per_topic_a, per_topic_b, resamples=1000),
        results,
    )


def dashboard_timed(results: dict[str, float]) -> None:
    """The dashboard page's server time after a new judgment (the material cached), and fully cached."""
    from django.contrib.auth.models import User
    from django.test import Client

    user, _ = User.objects.get_or_create(username="bench-organizer", defaults={"is_staff": True})
    client = Client()
    client.force_login(user)
    url = "/metrics/?a=bench-human/none&b=bench-llm/none"
    judgment_add()
    response = timed("dashboard page after a new judgment (material cached)", lambda: client.get(url), results)
    assert response.status_code == 200, response.status_code
    response = timed("dashboard page, cached", lambda: client.get(url), results)
    assert response.status_code == 200, response.status_code


if __name__ == "__main__":
    main()
