"""Faults (issue 17, point 6): a Celery worker SIGKILLed in the middle of an import.

Real processes: the upload goes through the API into this test's PostgreSQL database and the project's Redis
broker; a `celery worker` process of its own takes the import and is killed (SIGKILL: no clean-up of any kind)
once it has read part of a generated passages file. Nothing of the import may be stored, the job must show as
stalled once its heartbeat is stale, and a resume on a new worker must import the file whole, once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from assess.importers.job_run import import_job_progress
from assess.models import ImportJob, ImportStatus, Passage
from config.celery import app

ROOT = Path(__file__).resolve().parents[2]
PASSAGES = 20_000
STALE_SECONDS = 3.0


def passages_file() -> bytes:
    lines = (
        json.dumps(
            {
                "docid": f"msmarco_v2.1_doc_90_{i}#0_{i}",
                "url": f"https://example.org/{i}",
                "title": f"Generated passage {i}",
                "headings": "",
                "segment": f"Passage {i} of the fault test: " + "words to read and store " * 10,
                "start_char": 0,
                "end_char": 280,
            }
        )
        for i in range(PASSAGES)
    )
    return ("\n".join(lines) + "\n").encode()


def database_url_of_this_test() -> str:
    db = settings.DATABASES["default"]
    return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def worker_start(media_root: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url_of_this_test(),
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "MEDIA_ROOT": str(media_root),
        "IMPORT_HEARTBEAT_SECONDS": "0.5",
        "IMPORT_STALE_SECONDS": str(STALE_SECONDS),
    }
    cmd = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--loglevel=WARNING"]
    cmd += ["--without-gossip", "--without-mingle", "--without-heartbeat", "-n", f"fault-{time.monotonic_ns()}@%h"]
    return subprocess.Popen(cmd, cwd=ROOT, env=env)


def wait_for(what: str, ok, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise AssertionError(f"not in {timeout:.0f} s: {what}")
        time.sleep(0.05)


@pytest.fixture
def broker(settings, tmp_path):
    """The project's Redis broker, tasks not eager (as in production); its queues emptied before and after."""
    url = str(app.conf.broker_url or "")
    if not url.startswith("redis://"):
        pytest.fail(f"this test needs REDIS_URL (the Celery broker is {url!r})")
    queues = redis.Redis.from_url(url)
    keys = ("celery", "unacked", "unacked_index")
    queues.delete(*keys)
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    settings.MEDIA_ROOT = tmp_path
    settings.IMPORT_STALE_SECONDS = STALE_SECONDS
    try:
        yield tmp_path
    finally:
        app.conf.task_always_eager = eager
        queues.delete(*keys)


@pytest.mark.faults
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_import_leaves_nothing_and_the_resumed_job_imports_once(broker, organizer):
    api = APIClient()
    api.force_login(organizer)
    worker = worker_start(broker)
    try:
        # given: the upload, taken by the worker, part of it read
        response = api.post(
            "/api/imports/passages/",
            {"files": [SimpleUploadedFile("generated-passages.jsonl", passages_file())]},
            format="multipart",
        )
        assert response.status_code == 202, response.content
        job_id = response.json()["id"]
        job = lambda: ImportJob.objects.get(pk=job_id)  # noqa: E731
        wait_for("the worker reads the file", lambda: import_job_progress(job()).done > 0, timeout=90)
        assert job().status == ImportStatus.RUNNING

        # when: the worker is SIGKILLed in the middle of the import
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()

    # then: nothing of it is stored, and the job shows as stalled (its worker died), not as running forever
    assert Passage.objects.count() == 0
    assert job().status == ImportStatus.RUNNING
    wait_for("the job is seen as stalled", lambda: api.get(f"/api/imports/{job_id}/").json()["stalled"], timeout=30)
    page = api.get(f"/organize/imports/{job_id}/").content.decode()
    assert "its worker stopped" in page

    # when: the organizer resumes it, and a new worker takes it
    resumed = api.post(f"/api/imports/{job_id}/resume/")
    worker = worker_start(broker)
    try:
        wait_for("the resumed import ends", lambda: job().status in (ImportStatus.DONE, ImportStatus.FAILED), 120)
    finally:
        worker.terminate()
        worker.wait(timeout=30)

    # then: the whole file is imported, once
    assert resumed.status_code == 202
    assert job().status == ImportStatus.DONE, job().errors
    assert job().summary["counts"]["passages"] == PASSAGES
    assert Passage.objects.count() == PASSAGES
