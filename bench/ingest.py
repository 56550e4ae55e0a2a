"""Ingest benchmark: TREC-scale synthetic run files imported into PostgreSQL.

    python bench/ingest.py [--runs 150] [--topics 301] [--keep DIR]

Writes `runs` synthetic TREC RAG 2024 run files (one answer per topic; about 10 sentences and 20 references
per answer, 1-2 citations per sentence) to a temporary directory, imports them all in one call of
`assess.importers.runs.runs_import` (one transaction, as `import_runs runs/*.jsonl` does) into its own PostgreSQL
database (`BENCH_DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/assess_bench; created and
emptied by this script), and prints seconds, sentences per second, peak memory (RSS) after 10 files and after
all of them, and the ratio against a naive one-`save()`-per-row import of a 2-run sample.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/assess_bench"

WORDS = str.split(
    "the of and to in is was for on that with as by at from his her an were are which this be or has had not "
    "but also its their been one more first new after who they when all two other into most some time than "
    "war vietnam economy policy president country people years state water health energy climate trade "
    "market history system result effect cause growth rate change support evidence research study report"
)


def rss_peak_mb() -> float:
    """Peak resident set size of this process so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_cpu_seconds() -> float | None:
    """CPU time of this connection's PostgreSQL backend, when the server runs on this machine."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def topic_ids(n: int) -> list[str]:
    return [f"2024-{100000 + i}" for i in range(n)]


def segment_id(rng: random.Random) -> str:
    shard = rng.randrange(59)
    doc = rng.randrange(10**9)
    return f"msmarco_v2.1_doc_{shard:02d}_{doc}#{rng.randrange(40)}_{rng.randrange(10**10)}"


def write_runs(out: Path, n_runs: int, topics: list[str], seed: int = 7) -> tuple[list[Path], int, int]:
    """Write the synthetic run files; return their paths and the numbers of sentences and citations."""
    rng = random.Random(seed)
    # Runs answering one topic retrieve from the same pool, as real runs do: passages repeat across runs.
    pools = {t: [segment_id(rng) for _ in range(120)] for t in topics}
    paths: list[Path] = []
    n_sentences = n_citations = 0
    for r in range(n_runs):
        run_id = f"team{r // 4:02d}.bench_run_{r:03d}"
        path = out / f"{run_id}.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for t in topics:
                refs = rng.sample(pools[t], rng.randint(16, 20))
                answer = []
                words = 0
                for _ in range(rng.randint(7, 13)):
                    text = " ".join(rng.choices(WORDS, k=rng.randint(12, 30))).capitalize() + "."
                    words += len(text.split())
                    cites = rng.sample(range(len(refs)), rng.randint(1, 2))
                    answer.append({"text": text, "citations": cites})
                    n_citations += len(cites)
                n_sentences += len(answer)
                line = {
                    "run_id": run_id,
                    "topic_id": t,
                    "topic": f"question {t}?",
                    "references": refs,
                    "response_length": words,
                    "answer": answer,
                }
                fh.write(json.dumps(line) + "\n")
        paths.append(path)
    return paths, n_sentences, n_citations


def setup_django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-key")  # a benchmark serves nobody
    sys.path.insert(0, str(ROOT))
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def empty_assess_tables() -> None:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(
            "TRUNCATE assess_citation, assess_sentence, assess_answer, assess_run, assess_passage, assess_topic "
            "RESTART IDENTITY CASCADE"
        )


def naive_import(paths: list[Path]) -> tuple[float, int]:
    """One save() per row, as a first version would write it; returns seconds and sentences."""
    from django.db import transaction

    from assess.models import Answer, Citation, Passage, Run, Sentence, Topic

    start = time.perf_counter()
    n = 0
    with transaction.atomic():
        for path in paths:
            run = None
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    obj = json.loads(line)
                    if run is None:
                        run = Run(run_id=obj["run_id"] + ".naive", group="naive")
                        run.save()
                    topic = Topic.objects.get(topic_id=obj["topic_id"])
                    answer = Answer(
                        run=run, topic=topic, references=obj["references"], response_length=obj["response_length"]
                    )
                    answer.save()
                    for i, sent in enumerate(obj["answer"]):
                        sentence = Sentence(answer=answer, index=i, text=sent["text"])
                        sentence.save()
                        n += 1
                        for slot, idx in enumerate(sent["citations"]):
                            passage, _ = Passage.objects.get_or_create(passage_id=obj["references"][idx])
                            Citation(sentence=sentence, slot=slot, passage=passage, reference_index=idx).save()
    return time.perf_counter() - start, n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=150)
    parser.add_argument("--topics", type=int, default=301)
    parser.add_argument("--naive-runs", type=int, default=2)
    parser.add_argument("--keep", help="write the files here and keep them (default: a temporary directory)")
    args = parser.parse_args(argv)

    database_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    setup_django(database_url)
    from assess.importers.topics import topics_import

    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        topics = topic_ids(args.topics)
        t0 = time.perf_counter()
        paths, n_sentences, n_citations = write_runs(workdir, args.runs, topics)
        size = sum(p.stat().st_size for p in paths)
        print(
            f"wrote {len(paths)} run files x {len(topics)} topics: {n_sentences:,} sentences, "
            f"{n_citations:,} citations, {size / 1e6:.0f} MB in {time.perf_counter() - t0:.1f} s"
        )
        topics_file = workdir / "topics.tsv"
        topics_file.write_text("".join(f"{t}\tquestion {t}?\n" for t in topics), encoding="utf-8")

        empty_assess_tables()
        topics_import(files=[topics_file])
        measured = import_measured(paths, n_sentences, n_citations)

        empty_assess_tables()
        topics_import(files=[topics_file])
        naive_seconds, naive_sentences = naive_import(paths[: args.naive_runs])
        print_figures(measured, len(paths), n_sentences, n_citations)
        naive_total = naive_seconds / naive_sentences * n_sentences
        print(
            f"naive one-save()-per-row: {naive_sentences:,} sentences ({args.naive_runs} runs) in {naive_seconds:.1f} s "
            f"= {naive_sentences / naive_seconds:,.0f} sentences/s; extrapolated to the whole set {naive_total:.0f} s"
        )
        print(f"speed-up over naive: {naive_total / measured['seconds']:.1f}x")
        empty_assess_tables()
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


def import_measured(paths: list[Path], n_sentences: int, n_citations: int) -> dict[str, Any]:
    """The import of every file, timed, with its CPU (ours and PostgreSQL's backend), the load average and our
    peak RSS (before, after 10 files, after all); checked against the files' own counts."""
    from assess.importers.runs import runs_import

    sizes = [p.stat().st_size for p in paths]
    marks = {sum(sizes[:10]): "after 10 files"} if len(paths) > 10 else {}
    peaks: dict[str, float] = {}
    pending = sorted(marks)

    def progress(done: int, total: int) -> None:
        while pending and done >= pending[0]:
            peaks[marks[pending.pop(0)]] = rss_peak_mb()

    rss_before = rss_peak_mb()
    load_before = os.getloadavg()[0]
    cpu_before, server_before = cpu_seconds(), server_cpu_seconds()
    start = time.perf_counter()
    report = runs_import(files=paths, progress=progress)
    seconds = time.perf_counter() - start
    cpu = cpu_seconds() - cpu_before
    server_after = server_cpu_seconds()
    server = server_after - server_before if server_after is not None and server_before is not None else None
    load_after = os.getloadavg()[0]
    peaks["after all files"] = rss_peak_mb()
    assert report.counts["sentences"] == n_sentences, report.counts
    assert report.counts["citations"] == n_citations, report.counts

    from assess.models import Citation, Sentence

    assert Sentence.objects.count() == n_sentences
    assert Citation.objects.count() == n_citations
    return {
        "counts": report.counts,
        "seconds": seconds,
        "cpu": cpu,
        "server": server,
        "load_before": load_before,
        "load_after": load_after,
        "rss_before": rss_before,
        "peaks": peaks,
    }


def print_figures(m: dict[str, Any], files: int, n_sentences: int, n_citations: int) -> None:
    counts, seconds, server, peaks = m["counts"], m["seconds"], m["server"], m["peaks"]
    print(
        f"import: {files} files, {counts['answers']:,} answers, {n_sentences:,} sentences, "
        f"{n_citations:,} citations, {counts.get('passages_created', 0):,} passage rows"
    )
    print(f"seconds: {seconds:.1f} (machine load average {m['load_before']:.1f} before, {m['load_after']:.1f} after)")
    print(
        f"CPU seconds: importer {m['cpu']:.1f}" + (f", PostgreSQL backend {server:.1f}" if server is not None else "")
    )
    print(f"sentences per second: {n_sentences / seconds:,.0f}")
    print(f"peak RSS before import: {m['rss_before']:.0f} MB")
    for label, mb in peaks.items():
        print(f"peak RSS {label}: {mb:.0f} MB")
    if "after 10 files" in peaks:
        print(
            f"memory flatness (peak after all / after 10 files): {peaks['after all files'] / peaks['after 10 files']:.2f}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
