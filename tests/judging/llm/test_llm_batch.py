"""Batch mode end to end against the fake server's files and batches endpoints."""

from __future__ import annotations

import json

import pytest

from judging.llm import batch, chunks, jobs, pricing, services
from judging.llm.models import LLMResult, PrelabelMode, Provider
from judging.models import Judgment
from tests.factories import llm_campaign_build

pytestmark = pytest.mark.django_db

STATEMENTS = [f"Claim {i} [{['FS', 'PS', 'NS'][i % 3]}]." for i in range(12)]


def batch_judge(server, **overrides):
    options = {
        "name": "gpt-batch",
        "provider": Provider.COMPATIBLE,
        "base_url": server.base_url,
        "model": "gpt-4o",
        "price_input_per_million": "2.5",
        "price_output_per_million": "10",
    }
    options.update(overrides)
    return services.llm_judge_create(**options)


def test_a_batch_job_labels_every_pair_through_files_and_batches(fake_openai, llm_fast):
    # given
    campaign = llm_campaign_build(statements=STATEMENTS)
    llm = batch_judge(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, mode=PrelabelMode.BATCH, enqueue=False)
    # when
    job = chunks.prelabel_job_execute(job=job, poll_seconds=0.01)
    # then one upload, one batch, no live calls, and every pair labelled right
    assert job.status == "done"
    assert job.batch_status == "completed"
    assert fake_openai.paths["/v1/files"] == 1
    assert fake_openai.paths["/v1/batches"] == 1
    assert fake_openai.paths["/v1/chat/completions"] == 0
    results = LLMResult.objects.filter(judge=llm.judge)
    assert results.count() == 12
    assert all(r.status == "labelled" and f"[{r.label}]" in r.pair.text for r in results)
    assert Judgment.objects.filter(judge=llm.judge).count() == 12


def test_a_batch_result_costs_half_the_live_price(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=STATEMENTS[:1])
    llm = batch_judge(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, mode=PrelabelMode.BATCH, enqueue=False)
    chunks.prelabel_job_execute(job=job, poll_seconds=0.01)
    result = LLMResult.objects.get(judge=llm.judge)
    live = pricing.cost_of(llm, input_tokens=result.input_tokens, output_tokens=result.output_tokens)
    assert result.cost == (live / 2).quantize(result.cost)
    assert result.cost > 0


def test_the_uploaded_jsonl_holds_one_request_per_pair(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=STATEMENTS[:3])
    llm = batch_judge(fake_openai, temperature=0.0)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, mode=PrelabelMode.BATCH, enqueue=False)
    chunks.prelabel_job_execute(job=job, poll_seconds=0.01)
    [uploaded] = [data for data in fake_openai.files.values() if b'"custom_id"' in data and b'"method"' in data]
    lines = [json.loads(line) for line in uploaded.decode().splitlines()]
    assert [line["custom_id"] for line in lines] == [
        f"pair-{pid}" for pid in sorted(LLMResult.objects.values_list("pair_id", flat=True))
    ]
    assert {(line["method"], line["url"], line["body"]["model"]) for line in lines} == {
        ("POST", "/v1/chat/completions", "gpt-4o")
    }
    assert lines[0]["body"]["messages"][0]["content"].startswith("In this task")


def test_failed_batch_lines_and_garbage_are_recorded(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=STATEMENTS[:4])
    llm = batch_judge(fake_openai)
    fake_openai.switches.script = ["ok", "500", "garbage", "odd_case"]
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, mode=PrelabelMode.BATCH, enqueue=False)
    chunks.prelabel_job_execute(job=job, poll_seconds=0.01)
    statuses = sorted(LLMResult.objects.filter(judge=llm.judge).values_list("status", flat=True))
    assert statuses == ["error", "labelled", "labelled", "parse_error"]
    assert "injected 500" in LLMResult.objects.get(judge=llm.judge, status="error").error


def test_polling_waits_while_the_batch_is_in_progress(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=STATEMENTS[:2])
    llm = batch_judge(fake_openai)
    fake_openai.switches.batch_ready_after = 60
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, mode=PrelabelMode.BATCH, enqueue=False)
    [chunk] = chunks.prelabel_job_start(job=job)
    batch.batch_submit(job=job, pair_ids=chunk)
    assert batch.batch_poll(job=job) is False
    job.refresh_from_db()
    assert (job.status, job.batch_status) == ("running", "in_progress")
    assert set(LLMResult.objects.values_list("status", flat=True)) == {"pending"}


def test_a_second_batch_job_submits_nothing(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=STATEMENTS[:3])
    llm = batch_judge(fake_openai)
    for _ in range(2):
        job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, mode=PrelabelMode.BATCH, enqueue=False)
        chunks.prelabel_job_execute(job=job, poll_seconds=0.01)
    assert fake_openai.paths["/v1/batches"] == 1
    assert job.status == "done"


def test_a_batch_job_runs_through_the_celery_tasks(fake_openai, llm_fast, django_capture_on_commit_callbacks):
    campaign = llm_campaign_build(statements=STATEMENTS[:3])
    llm = batch_judge(fake_openai)
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, mode=PrelabelMode.BATCH)
    job.refresh_from_db()
    assert (job.status, job.batch_status) == ("done", "completed")
    assert LLMResult.objects.filter(judge=llm.judge, status="labelled").count() == 3
