"""Imports run by a real Celery worker (in this process, solo pool) through the project's Redis broker."""

from __future__ import annotations

import time

import celery.contrib.testing.tasks  # noqa: F401  - registers celery.ping, which start_worker expects
import pytest
from celery.contrib.testing.worker import start_worker
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from assess.importers.job_run import import_job_progress
from assess.models import ImportJob, ImportStatus, Run
from assess.uploads import import_job_create
from config.celery import app

RUN_FILE = "baseline_rag24.test_command-r-plus_top20.jsonl.fixed"


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def real_worker(settings, media_root):
    broker = str(app.conf.broker_url or "")
    if not broker.startswith("redis://"):
        pytest.fail(f"these tests need REDIS_URL (the Celery broker is {broker!r})")
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.BACKGROUND_IN_THREAD = False
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as worker:
            yield worker
    finally:
        app.conf.task_always_eager = eager


def upload(data_dir) -> SimpleUploadedFile:
    return SimpleUploadedFile(RUN_FILE, (data_dir / "runs" / RUN_FILE).read_bytes())


def wait_until_finished(job_id: int, timeout: float = 120) -> ImportJob:
    deadline = time.monotonic() + timeout
    while True:
        job = ImportJob.objects.get(pk=job_id)
        if job.status in (ImportStatus.DONE, ImportStatus.FAILED):
            return job
        if time.monotonic() > deadline:
            raise AssertionError(f"the worker did not finish job {job_id} in {timeout} s (status {job.status})")
        time.sleep(0.01)


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_imports_an_uploaded_run_after_the_upload_commits(real_worker, organizer, data_dir):
    # when: the job is created in a transaction; its task is sent to Redis when that commits
    with transaction.atomic():
        job = import_job_create(
            kind="runs", uploaded_files=[upload(data_dir)], options={"group": "coordinators"}, user=organizer
        )
    status_after_commit = ImportJob.objects.get(pk=job.pk).status
    finished = wait_until_finished(job.pk)

    # then: the request did not run the import itself; the worker did, completely
    assert status_after_commit in (ImportStatus.PENDING, ImportStatus.RUNNING)
    assert finished.status == ImportStatus.DONE, finished.errors
    assert finished.summary["counts"]["answers"] == 301
    run = Run.objects.get()
    assert (run.run_id, run.group) == ("baseline_rag24.test_command-r-plus_top20", "coordinators")
    assert run.answers.count() == 301


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_the_workers_progress_is_visible_to_other_connections_while_it_imports(real_worker, organizer, data_dir):
    # given
    with transaction.atomic():
        job = import_job_create(kind="runs", uploaded_files=[upload(data_dir)], user=organizer)

    # when: poll what the job page shows while the worker's import transaction is still open
    seen: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        current = ImportJob.objects.get(pk=job.pk)
        if current.status in (ImportStatus.DONE, ImportStatus.FAILED):
            break
        if current.status == ImportStatus.RUNNING:
            seen.append(import_job_progress(current).done)
        time.sleep(0.005)

    # then
    assert current.status == ImportStatus.DONE
    assert any(done > 0 for done in seen), seen[:20]
    assert max(seen) <= current.total_bytes
