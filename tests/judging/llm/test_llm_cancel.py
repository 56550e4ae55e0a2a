"""Cancelling a pre-label job: no new call starts, every call paid for is stored, and a resume does the rest."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from judging.llm import batch, chunks, jobs, services, tasks
from judging.llm.models import LLMResult, PrelabelJob, PrelabelMode, Provider
from judging.llm.selectors import pairs_held, prelabel_progress
from tests.factories import llm_campaign_build

STATEMENTS = [f"Claim {i} [{['FS', 'PS', 'NS'][i % 3]}]." for i in range(60)]


def judge_for(server, **overrides):
    options = {"name": "gpt-cancel", "provider": Provider.COMPATIBLE, "base_url": server.base_url, "model": "m"}
    return services.llm_judge_create(**{**options, **overrides})


def wait_until(condition, seconds):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s")
        time.sleep(0.05)


def in_thread(job_id):
    def run():
        try:
            chunks.prelabel_job_execute(job=PrelabelJob.objects.get(pk=job_id))
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_a_cancelled_job_stops_keeps_its_calls_and_a_resume_does_only_the_rest(
    fake_openai, llm_fast, organizer, settings
):
    # given a running job of 60 pairs, two calls at a time of 500 ms each (about 15 s in all), in chunks of 20
    settings.LLM_CHUNK_SIZE = 20
    fake_openai.switches.latency = 0.5
    campaign = llm_campaign_build(statements=STATEMENTS)
    llm = judge_for(fake_openai, max_concurrency=2)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    worker = in_thread(job.pk)
    labelled = LLMResult.objects.filter(judge=llm.judge, status="labelled")
    wait_until(lambda: labelled.count() >= 2, 20)
    # when the organizer cancels it
    job = jobs.prelabel_job_cancel(job=job, by=organizer)
    # then it stops within about a second, far from done
    worker.join(timeout=10)
    assert not worker.is_alive()
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert job.message == f"cancelled by {organizer.username}"
    calls = fake_openai.chat_calls
    assert calls < 30
    # and every call made (and paid for) is stored, and no pair is left held by a claim
    assert labelled.count() == calls
    assert not LLMResult.objects.filter(judge=llm.judge, status="pending", claim__isnull=False).exists()
    progress = prelabel_progress(job)
    assert progress.finished
    assert progress.in_flight == 0
    assert progress.remaining == 60 - calls
    # and cancelling it again is refused
    with pytest.raises(services.PrelabelError, match="already ended: cancelled"):
        jobs.prelabel_job_cancel(job=job)
    # when it is resumed
    fake_openai.switches.latency = 0.01
    resumed = jobs.prelabel_job_resume(job=job)
    chunks.prelabel_job_execute(job=resumed)
    # then only the pairs left are called: each of the 60 pairs was paid for once
    resumed.refresh_from_db()
    assert resumed.status == "done"
    assert resumed.mode == job.mode
    assert fake_openai.chat_calls == 60
    assert labelled.count() == 60


@pytest.mark.django_db
def test_a_job_cancelled_before_it_starts_makes_no_call(fake_openai, llm_fast):
    # given a job queued with its chunks
    campaign = llm_campaign_build(statements=STATEMENTS[:10])
    llm = judge_for(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    pieces = chunks.prelabel_job_start(job=job, chunk_size=5)
    # when it is cancelled, and then its chunks' tasks are delivered, and the job task again
    jobs.prelabel_job_cancel(job=job)
    delivered = [tasks.prelabel_chunk(job.pk, chunk) for chunk in pieces]
    tasks.prelabel_job_run(job.pk)
    # then nothing is called and the job stays cancelled
    assert delivered == [0, 0]
    assert fake_openai.chat_calls == 0
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert job.finished_at is not None


@pytest.mark.django_db
def test_a_cancelled_batch_is_stopped_at_the_provider_and_what_it_finished_is_stored(fake_openai, llm_fast):
    # given a batch job whose batch takes long
    fake_openai.switches.batch_ready_after = 3600
    campaign = llm_campaign_build(statements=STATEMENTS[:12])
    llm = judge_for(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, mode=PrelabelMode.BATCH, enqueue=False)
    chunks.prelabel_job_start(job=job)
    assert batch.batch_submit(job=job, pair_ids=chunks.pairs_to_do(job=job))
    assert not batch.batch_poll(job=job)
    # when it is cancelled
    job = jobs.prelabel_job_cancel(job=job)
    # then the provider is asked to stop it, and the polling goes on until it has ended
    assert fake_openai.paths[f"/v1/batches/{job.batch_id}/cancel"] == 1
    assert tasks.prelabel_batch_poll(job.pk) is True
    job.refresh_from_db()
    assert (job.status, job.batch_status) == ("cancelled", "cancelled")
    # and the half the batch did is stored; the other half is not an error but still to do
    results = LLMResult.objects.filter(judge=llm.judge)
    assert results.filter(status="labelled").count() == 6
    assert results.filter(status="pending", claim__isnull=True).count() == 6
    assert not results.filter(status="error").exists()
    # when it is resumed, then the new batch holds only those six
    fake_openai.switches.batch_ready_after = 0
    resumed = chunks.prelabel_job_execute(job=jobs.prelabel_job_resume(job=job), poll_seconds=0.01)
    assert resumed.status == "done"
    assert fake_openai.batch_lines == 12
    assert results.filter(status="labelled").count() == 12


@pytest.mark.django_db
def test_the_api_cancels_a_job_and_refuses_to_cancel_it_twice(client, organizer, assessor, fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=STATEMENTS[:3])
    llm = judge_for(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    url = f"/api/prelabel-jobs/{job.pk}/cancel/"
    # an assessor may not
    client.force_login(assessor)
    assert client.post(url).status_code == 403
    # the organizer may, once
    client.force_login(organizer)
    response = client.post(url)
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    assert response.json()["progress"]["remaining"] == 3
    second = client.post(url)
    assert second.status_code == 409
    assert "already ended" in second.json()["detail"]
    # and a resume is a new job on the same campaign and judge
    resumed = client.post(f"/api/prelabel-jobs/{job.pk}/resume/")
    assert resumed.status_code == 202
    assert resumed.json()["id"] != job.pk
    assert resumed.json()["total"] == 3


@pytest.mark.django_db
def test_a_resume_waits_for_the_calls_still_in_flight(fake_openai, llm_fast):
    # given a cancelled job one of whose chunks still holds a pair (its call is on its way)
    campaign = llm_campaign_build(statements=STATEMENTS[:3])
    llm = judge_for(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    pair_ids = services.campaign_pair_ids(campaign)
    services.results_claim(
        judge=llm.judge, prompt_version=job.prompt_version, pair_ids=pair_ids[:1], claim=uuid.uuid4()
    )
    jobs.prelabel_job_cancel(job=job)
    # then a resume is refused, and says why
    with pytest.raises(services.PrelabelError, match=r"job #\d+ still holds 1 pair while its last calls finish"):
        jobs.prelabel_job_resume(job=job)
    assert pairs_held(job) == 1
    # and once that claim has gone stale (its worker died), the pair is only still to do: the resume starts
    LLMResult.objects.filter(judge=llm.judge).update(updated_at=timezone.now() - timedelta(hours=1))
    assert pairs_held(job) == 0
    assert prelabel_progress(job).remaining == 3
    assert jobs.prelabel_job_resume(job=job).total == 3
