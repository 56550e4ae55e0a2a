"""Real Celery workers against Redis run pre-label jobs; the rate limit holds across two worker processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from config.celery import app as celery_app
from judging.llm import jobs, services, tasks
from judging.llm.models import LLMResult, PrelabelJob, Provider
from judging.models import Judgment
from tests.factories import llm_campaign_build

ROOT = Path(__file__).resolve().parents[3]
pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def not_eager(settings):
    if not os.environ.get("REDIS_URL"):
        pytest.fail("the worker tests need REDIS_URL (a real Redis broker)")
    settings.LLM_RATE_LIMIT_STORAGE = ""  # Redis, through REDIS_URL
    was = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    celery_app.control.purge()
    yield celery_app
    celery_app.conf.task_always_eager = was


def wait_for(job, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.status in ("done", "failed"):
            return job
        time.sleep(0.2)
    pytest.fail(f"job {job.pk} still {job.status} after {seconds}s")


def test_a_real_worker_runs_a_job(not_eager, fake_openai, monkeypatch):
    from celery.contrib.testing.worker import start_worker

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # given a campaign and an OpenAI-compatible judge
    campaign = llm_campaign_build(statements=[f"Claim {i} [FS]." for i in range(20)])
    llm = services.llm_judge_create(
        name=f"worker-{uuid.uuid4().hex[:6]}", model="m", provider=Provider.COMPATIBLE, base_url=fake_openai.base_url
    )
    with start_worker(not_eager, pool="threads", concurrency=2, perform_ping_check=False, shutdown_timeout=10):
        # when an organizer starts a job (enqueued after commit, through Redis)
        job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)
        wait_for(job, 60)
    # then the worker labelled every pair
    assert job.status == "done"
    assert fake_openai.chat_calls == 20
    assert LLMResult.objects.filter(judge=llm.judge, status="labelled", label="FS").count() == 20
    assert Judgment.objects.filter(judge=llm.judge).count() == 20


def worker_process(name, db_name, fake_url):
    env = {**os.environ, "CELERY_TASK_ALWAYS_EAGER": "false", "OPENAI_BASE_URL": fake_url}
    env["DATABASE_URL"] = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/" + db_name
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=threads",
            "--concurrency=4",
            "-n",
            f"{name}@%h",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@pytest.fixture
def two_workers(not_eager, fake_openai):
    """Two worker processes (threads pool, 4 each) on this test's database."""
    db_name = connection.settings_dict["NAME"]
    names = [f"llm-{uuid.uuid4().hex[:6]}-{i}" for i in (1, 2)]
    workers = [worker_process(n, db_name, fake_openai.base_url) for n in names]
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            replies = not_eager.control.ping(timeout=1.0) or []
            if sum(1 for r in replies for host in r if host.split("@")[0] in names) == 2:
                break
        else:
            pytest.fail("the two workers did not answer")
        yield names
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(timeout=30)


def chunk_counts(app, names):
    stats = app.control.inspect(timeout=2.0).stats() or {}
    return [
        s["total"].get("judging.llm.tasks.prelabel_chunk", 0)
        for host, s in stats.items()
        if host.split("@")[0] in names
    ]


def test_two_workers_share_one_rate_limit(not_eager, fake_openai, two_workers):
    # given two worker processes, and a judge limited to 240 requests a minute (4 a second)
    campaign = llm_campaign_build(statements=[f"Claim {i} [PS]." for i in range(40)])
    llm = services.llm_judge_create(
        name=f"limited-{uuid.uuid4().hex[:6]}",
        model="m",
        provider=Provider.COMPATIBLE,
        base_url=fake_openai.base_url,
        max_concurrency=8,
        requests_per_minute=240,
    )
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    # when the job is split into chunks that both workers take
    tasks.prelabel_job_dispatch(job=job, chunk_size=5)
    wait_for(job, 120)
    # then every pair is labelled, both workers worked, and no second saw more than the limit
    assert LLMResult.objects.filter(judge=llm.judge, status="labelled").count() == 40
    worked = chunk_counts(not_eager, two_workers)
    assert len(worked) == 2, worked
    assert all(worked), worked
    # The limiter grants a request some milliseconds before it reaches the server, and that delay
    # varies under load; so the server may see a burst land up to a quarter second early. Without a
    # shared limit, the two workers would send 8 at once.
    assert fake_openai.max_in_window(0.75) <= 4, fake_openai.per_second()
    assert fake_openai.chat_calls == 40
    span = max(fake_openai.request_times) - min(fake_openai.request_times)
    assert span >= 40 / 4 - 2
    assert PrelabelJob.objects.get(pk=job.pk).status == "done"


def test_two_workers_share_one_concurrency_cap(not_eager, fake_openai, two_workers):
    # given a judge allowed 3 requests in flight, a server answering in 0.3 s, and two workers that
    # could run 8 chunks of 3 calls at once
    fake_openai.switches.latency = 0.3
    campaign = llm_campaign_build(statements=[f"Claim {i} [FS]." for i in range(30)])
    llm = services.llm_judge_create(
        name=f"capped-{uuid.uuid4().hex[:6]}",
        model="m",
        provider=Provider.COMPATIBLE,
        base_url=fake_openai.base_url,
        max_concurrency=3,
    )
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    # when
    tasks.prelabel_job_dispatch(job=job, chunk_size=3)
    wait_for(job, 120)
    # then
    assert LLMResult.objects.filter(judge=llm.judge, status="labelled").count() == 30
    assert all(chunk_counts(not_eager, two_workers))
    assert fake_openai.max_in_flight == 3


def test_a_job_cancelled_on_two_workers_stops_keeps_its_calls_and_resumes(not_eager, fake_openai, two_workers):
    # given a job of 60 pairs in 12 chunks on two workers (8 chunks run at once, 4 wait in the queue),
    # 4 calls at a time of half a second each
    fake_openai.switches.latency = 0.5
    campaign = llm_campaign_build(statements=[f"Claim {i} [NS]." for i in range(60)])
    llm = services.llm_judge_create(
        name=f"cancel-{uuid.uuid4().hex[:6]}",
        model="m",
        provider=Provider.COMPATIBLE,
        base_url=fake_openai.base_url,
        max_concurrency=4,
    )
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    tasks.prelabel_job_dispatch(job=job, chunk_size=5)
    results = LLMResult.objects.filter(judge=llm.judge)
    deadline = time.monotonic() + 60
    while results.filter(status="labelled").count() < 4:
        assert time.monotonic() < deadline, "no result within 60 s"
        time.sleep(0.1)
    # when it is cancelled
    jobs.prelabel_job_cancel(job=job)
    # then the workers stop calling: the calls in flight end, are stored, and no pair stays held
    deadline = time.monotonic() + 30
    while results.filter(status="pending", claim__isnull=False).exists():
        assert time.monotonic() < deadline, "pairs still held 30 s after the cancel"
        time.sleep(0.2)
    time.sleep(1.5)  # a queued chunk would have started calling by now
    calls = fake_openai.chat_calls
    assert calls < 40
    assert results.filter(status="labelled").count() == calls
    job.refresh_from_db()
    assert job.status == "cancelled"
    # when it is resumed, then the workers call only the pairs left: 60 calls in all
    fake_openai.switches.latency = 0.01
    resumed = wait_for(jobs.prelabel_job_resume(job=job), 120)
    assert resumed.status == "done"
    assert fake_openai.chat_calls == 60
    assert results.filter(status="labelled", label="NS").count() == 60
