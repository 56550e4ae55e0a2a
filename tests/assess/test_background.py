"""Background work (issue 17, point 5): with a broker every long job goes to the Celery workers, never to a
thread of the web process; an import whose worker died is shown as such and can be resumed."""

from __future__ import annotations

import base64
import json
import threading
import time
from datetime import timedelta

import celery.contrib.testing.tasks  # noqa: F401  - registers celery.ping, which start_worker expects
import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from assess.importers.job_run import import_job_execute
from assess.models import ImportJob, ImportStatus, Topic
from assess.uploads import import_job_create
from config.celery import app
from judging.llm import services as llm_services
from judging.llm.models import LLMResult, PrelabelJob, PrelabelStatus, Provider
from metrics.study.services import study_create
from tests.factories import OrganizerFactory, study_campaign_build, study_labels_seed

TOPICS = b"2024-1\tfirst topic\n2024-2\tsecond topic\n"


@pytest.fixture
def broker(settings):
    """The project's Redis broker, tasks not eager (as in production), its queue emptied before and after."""
    url = str(app.conf.broker_url or "")
    if not url.startswith("redis://"):
        pytest.fail(f"these tests need REDIS_URL (the Celery broker is {url!r})")
    queue = redis.Redis.from_url(url)
    queue.delete("celery")
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    settings.BACKGROUND_IN_THREAD = True  # the default: it must not matter once there is a broker
    try:
        yield queue
    finally:
        app.conf.task_always_eager = eager
        queue.delete("celery")


def queued_tasks(queue: redis.Redis) -> list[tuple[str, list]]:
    tasks = []
    for raw in queue.lrange("celery", 0, -1):
        message = json.loads(raw)
        body = json.loads(base64.b64decode(message["body"]))
        tasks.append((message["headers"]["task"], body[0]))
    return tasks


def background_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(("study_second_judge", "import_job_run"))]


@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_with_a_broker_the_studys_second_judge_runs_on_a_worker_not_in_the_web_process(broker, fake_openai, llm_fast):
    # given: a study and a second judge, a broker, no worker yet
    llm_fast.BACKGROUND_IN_THREAD = True
    campaign = study_campaign_build(pairs_per_topic=(12, 4))
    study_labels_seed(campaign, human="nist", llm="gpt-study")
    study = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=5, seed=0)
    llm_services.llm_judge_create(
        name="llama-405b", provider=Provider.COMPATIBLE, base_url=fake_openai.base_url, model="llama-3.1-405b"
    )
    client = Client()
    client.force_login(OrganizerFactory(username="olga"))

    # when: the organizer starts it
    response = client.post(
        f"/api/studies/{study.pk}/second-judge/", {"judge": "llama-405b"}, content_type="application/json"
    )

    # then: it is queued for the workers; the web process started no thread and made no call
    assert response.status_code == 202
    job_id = response.json()["job"]
    assert queued_tasks(broker) == [("metrics.study.tasks.study_second_judge", [study.pk, job_id])]
    assert background_threads() == []
    assert fake_openai.chat_calls == 0
    assert PrelabelJob.objects.get(pk=job_id).status == PrelabelStatus.PENDING

    # and a real worker runs it to the end
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        deadline = time.monotonic() + 60
        while PrelabelJob.objects.get(pk=job_id).status != PrelabelStatus.DONE:
            assert time.monotonic() < deadline, "the worker did not finish the study's second judge in 60 s"
            time.sleep(0.05)
    assert LLMResult.objects.filter(judge__name="llama-405b").count() == 8


@pytest.mark.django_db
def test_with_a_broker_an_upload_is_queued_for_the_workers_not_run_in_a_thread(
    broker, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    with django_capture_on_commit_callbacks(execute=True):
        job = import_job_create(kind="topics", uploaded_files=[SimpleUploadedFile("topics.tsv", TOPICS)])

    assert queued_tasks(broker) == [("assess.tasks.import_job_run", [job.pk])]
    assert background_threads() == []
    assert ImportJob.objects.get(pk=job.pk).status == ImportStatus.PENDING


@pytest.fixture
def stalled_job(settings, tmp_path, django_capture_on_commit_callbacks):
    """An upload whose worker took it and then died: running, its last heartbeat older than the stale limit."""
    settings.MEDIA_ROOT = tmp_path
    settings.BACKGROUND_IN_THREAD = False
    with django_capture_on_commit_callbacks(execute=False):
        job = import_job_create(kind="topics", uploaded_files=[SimpleUploadedFile("topics.tsv", TOPICS)])
    last_beat = timezone.now() - timedelta(seconds=settings.IMPORT_STALE_SECONDS + 5)
    ImportJob.objects.filter(pk=job.pk).update(status=ImportStatus.RUNNING, heartbeat_at=last_beat)
    return job


@pytest.mark.django_db
def test_a_job_whose_worker_died_is_shown_so_and_the_organizer_resumes_it(
    client, organizer, stalled_job, django_capture_on_commit_callbacks
):
    client.force_login(organizer)

    # when
    page = client.get(f"/organize/imports/{stalled_job.pk}/").content.decode()
    api = client.get(f"/api/imports/{stalled_job.pk}/").json()
    with django_capture_on_commit_callbacks(execute=True):
        resumed = client.post(f"/organize/imports/{stalled_job.pk}/resume/", follow=True)

    # then
    assert "its worker stopped" in page
    assert "Resume the import" in page
    assert api["stalled"] is True
    assert resumed.status_code == 200
    job = ImportJob.objects.get(pk=stalled_job.pk)
    assert job.status == ImportStatus.DONE, job.errors
    assert Topic.objects.count() == 2


@pytest.mark.django_db
def test_a_job_on_a_live_worker_is_neither_resumed_nor_run_twice(client, organizer, stalled_job):
    # given: the worker is alive (a fresh heartbeat)
    ImportJob.objects.filter(pk=stalled_job.pk).update(heartbeat_at=timezone.now())
    client.force_login(organizer)

    # when: an organizer asks to resume it, and the task is delivered a second time
    response = client.post(f"/api/imports/{stalled_job.pk}/resume/")
    import_job_execute(job_id=stalled_job.pk)

    # then
    assert response.status_code == 409
    assert "worker is alive" in response.json()["detail"]
    assert ImportJob.objects.get(pk=stalled_job.pk).status == ImportStatus.RUNNING
    assert Topic.objects.count() == 0
