"""A job's figures against what the fake server received: results counted as written, calls under way,
calls in the last minute, errors of both kinds (and their retry), the estimate before a job, and the
connection test."""

from __future__ import annotations

import os
import threading
import time
from decimal import Decimal

import pytest
from django.db import connection
from django.urls import reverse

from judging.llm import chunks, jobs, meter, pricing, services
from judging.llm.connection import connection_check
from judging.llm.models import LLMResult, PrelabelJob, Provider
from judging.llm.prompt import REPLY_TOKENS
from judging.llm.selectors import prelabel_estimate, prelabel_progress
from judging.models import Judgment
from tests.factories import llm_campaign_build

MARKED = [f"Statement {i} [{['FS', 'PS', 'NS'][i % 3]}] holds." for i in range(40)]


@pytest.fixture
def org_client(client, organizer):
    client.force_login(organizer)
    return client


def judge_for(server, **overrides):
    options = {
        "name": "gpt-progress",
        "provider": Provider.COMPATIBLE,
        "base_url": server.base_url,
        "model": "gpt-4o",
        "max_concurrency": 4,
        "price_input_per_million": "2.5",
        "price_output_per_million": "10",
    }
    return services.llm_judge_create(**{**options, **overrides})


def run_job(campaign, llm, **options):
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False, **options)
    chunks.prelabel_job_execute(job=job)
    job.refresh_from_db()
    return job


def answered_by(server, moment: float) -> int:
    """Chat calls the server had answered at `moment` (it records arrivals; each answer takes `latency`)."""
    latency = server.switches.latency
    return sum(1 for t in list(server.request_times) if t + latency <= moment)


@pytest.mark.parametrize("store", ["memory", "redis"])
@pytest.mark.django_db(transaction=True)
def test_the_figures_follow_what_the_server_received_while_the_job_runs(fake_openai, llm_fast, store):
    # given 40 pairs, four calls at a time of 200 ms each (about 2 s), in one chunk
    if store == "redis":
        llm_fast.LLM_RATE_LIMIT_STORAGE = os.environ.get("REDIS_URL") or pytest.skip("REDIS_URL is not set")
    fake_openai.switches.latency = 0.2
    campaign = llm_campaign_build(statements=MARKED)
    llm = judge_for(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    assert job.total == 40

    def run() -> None:
        try:
            chunks.prelabel_job_execute(job=PrelabelJob.objects.get(pk=job.pk))
        finally:
            connection.close()

    worker = threading.Thread(target=run, daemon=True)
    # when it runs, sampled every 100 ms
    worker.start()
    samples = []
    while worker.is_alive():
        now = time.time()
        progress = prelabel_progress(PrelabelJob.objects.get(pk=job.pk))
        samples.append((now, progress, fake_openai.chat_calls))
        time.sleep(0.1)
    worker.join()
    # then done never counts more than the server received, and lags it by at most one flush and a poll
    assert all(progress.done <= calls for _, progress, calls in samples)
    assert all(progress.done >= answered_by(fake_openai, at - 1.5) for at, progress, _ in samples)
    # and the calls under way are calls, never more than the judge's concurrency (not the chunk's 40 pairs)
    assert max(progress.in_flight for _, progress, _ in samples) <= 4
    assert any(progress.in_flight > 0 for _, progress, _ in samples)
    # and once it has ended, every figure is what the server saw
    final = prelabel_progress(PrelabelJob.objects.get(pk=job.pk))
    assert (final.status, final.done, final.labelled, final.errors, final.remaining) == ("done", 40, 40, 0, 0)
    assert final.in_flight == 0
    assert final.calls_per_minute == fake_openai.chat_calls == 40


@pytest.mark.django_db
def test_calls_per_minute_counts_each_request_retries_included(fake_openai, llm_fast):
    # given a judge that answers two 500s before the first label
    campaign = llm_campaign_build(statements=MARKED[:5])
    llm = judge_for(fake_openai, max_concurrency=1)
    fake_openai.switches.script = ["500", "500"]
    # when
    job = run_job(campaign, llm)
    # then the server saw 7 requests for 5 pairs, and so does the figure
    progress = prelabel_progress(job)
    assert fake_openai.chat_calls == 7
    assert (progress.calls_per_minute, progress.done, progress.labelled) == (7, 5, 5)


@pytest.mark.django_db
def test_calls_older_than_a_minute_are_not_counted(llm_fast, monkeypatch):
    # given a chunk that answered 3 calls 90 s ago and 2 just now
    calls = meter.CallMeter()
    clock = [time.time() - 90]
    monkeypatch.setattr(meter.time, "time", lambda: clock[0])
    for _ in range(3):
        calls.started()
        calls.ended()
    meter.meter_publish(job_id=987654, chunk="c", meter=calls)
    clock[0] += 90
    for _ in range(2):
        calls.started()
        calls.ended()
    calls.started()
    meter.meter_publish(job_id=987654, chunk="c", meter=calls)
    # then the last minute holds 2 calls, and one is under way
    assert meter.meter_read(987654) == (1, 2)
    # and once the chunk has closed, none is under way
    meter.meter_publish(job_id=987654, chunk="c", meter=calls, closing=True)
    assert meter.meter_read(987654) == (0, 2)
    meter.meter_clear(987654)
    assert meter.meter_read(987654) == (0, 0)


@pytest.mark.django_db
def test_errors_count_parse_errors_and_a_retry_calls_them_again(fake_openai, llm_fast):
    # given a job where two replies named no label and one call failed for good
    campaign = llm_campaign_build(statements=MARKED[:6])
    llm = judge_for(fake_openai, max_concurrency=1)
    llm_fast.LLM_MAX_ATTEMPTS = 1
    fake_openai.switches.script = ["garbage", "ok", "garbage", "500"]
    job = run_job(campaign, llm)
    progress = prelabel_progress(job)
    assert (progress.labelled, progress.parse_errors, progress.call_errors, progress.errors) == (3, 2, 1, 3)
    assert (progress.done, progress.remaining) == (6, 0)
    fake_openai.reset_counts()
    # when its errors are retried
    retry = jobs.prelabel_retry_errors(job=job)
    chunks.prelabel_job_execute(job=retry)
    retry.refresh_from_db()
    # then exactly the three pairs were called again, and every pair now has a label and a judgment
    assert fake_openai.chat_calls == 3
    assert retry.total == 3
    after = prelabel_progress(retry)
    assert (after.status, after.done, after.labelled, after.errors) == ("done", 3, 3, 0)
    assert (progress.call_errors, progress.parse_errors) == (1, 2)
    assert set(LLMResult.objects.filter(judge=llm.judge).values_list("status", flat=True)) == {"labelled"}
    assert Judgment.objects.filter(judge=llm.judge).count() == 6


@pytest.mark.django_db
def test_pre_labelling_again_announces_no_pair_and_offers_the_retry(org_client, fake_openai, llm_fast):
    # given a campaign labelled once, with two parse errors
    campaign = llm_campaign_build(statements=MARKED[:6])
    llm = judge_for(fake_openai)
    fake_openai.switches.script = ["garbage", "garbage"]
    run_job(campaign, llm)
    fake_openai.reset_counts()
    # when the organizer presses "Pre-label" again
    response = org_client.post(
        reverse("judging:llm_prelabel_start", args=[campaign.pk]), {"judge": llm.judge.pk}, follow=True
    )
    # then it calls nothing and says why, and the page offers to call the two again
    html = response.content.decode()
    assert fake_openai.chat_calls == 0
    assert "Nothing to call: every pair of &#x27;llm-campaign&#x27; already has a result from gpt-progress" in html
    assert "2 ended in an error: retry them" in html
    assert "Call again 2 pairs that ended in an error" in html
    # when it does
    response = org_client.post(
        reverse("judging:llm_prelabel_start", args=[campaign.pk]), {"judge": llm.judge.pk, "retry_errors": "1"}
    )
    chunks.prelabel_job_execute(job=PrelabelJob.objects.latest("pk"))
    # then
    assert fake_openai.chat_calls == 2
    assert Judgment.objects.filter(judge=llm.judge).count() == 6


@pytest.mark.django_db
def test_the_estimate_is_the_calls_own_token_estimate_priced_by_the_judge(fake_openai, llm_fast):
    # given a campaign of 9 pairs, 3 of them labelled already
    campaign = llm_campaign_build(statements=MARKED[:9])
    llm = judge_for(fake_openai)
    pair_ids = services.campaign_pair_ids(campaign)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    chunks.prelabel_chunk_run(job=job, pair_ids=pair_ids[:3])
    # when
    estimate = prelabel_estimate(campaign=campaign, judge=llm.judge)
    # then it counts the 6 pairs left, with the tokens the rate limiter would charge their calls
    requests = services.call_requests(prompt_version="v1", pair_ids=pair_ids[3:])
    assert estimate.pairs == 6
    assert estimate.input_tokens == sum(r.estimated_tokens - REPLY_TOKENS for r in requests)
    assert estimate.output_tokens == 6 * REPLY_TOKENS
    expected = (Decimal(estimate.input_tokens) * Decimal("2.5") + Decimal(estimate.output_tokens) * 10) / 10**6
    assert estimate.cost == expected.quantize(Decimal("0.000001"))
    assert estimate.batch_cost == pricing.cost_of(
        llm, input_tokens=estimate.input_tokens, output_tokens=estimate.output_tokens, batch=True
    )
    assert estimate.priced
    # and it is close to what the provider counted for the calls made (the fake counts words, not tokens)
    called = LLMResult.objects.filter(judge=llm.judge, status="labelled")
    assert all(r.input_tokens > 0 for r in called)


@pytest.mark.django_db
def test_the_page_and_the_api_show_the_same_estimate(org_client, fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=MARKED[:4])
    llm = judge_for(fake_openai)
    estimate = prelabel_estimate(campaign=campaign, judge=llm.judge)
    html = org_client.get(reverse("judging:llm_prelabel", args=[campaign.pk])).content.decode()
    assert '<b class="js-estimate-pairs">4</b> pairs to call' in html
    assert f'<b class="js-estimate-tokens">{estimate.input_tokens:,}</b> input' in html
    assert f'<b class="js-estimate-cost">${estimate.cost:.2f}</b> live' in html
    assert "An estimate: each prompt's characters divided by 4" in html
    body = org_client.get(f"/api/campaigns/{campaign.pk}/prelabel/estimate/", {"judge": llm.judge.name}).json()
    assert (body["pairs"], body["input_tokens"], body["output_tokens"]) == (
        4,
        estimate.input_tokens,
        estimate.output_tokens,
    )
    assert Decimal(body["cost"]) == estimate.cost


@pytest.mark.django_db
def test_a_judge_without_prices_says_the_cost_is_unknown(org_client, fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=MARKED[:2])
    judge_for(fake_openai, price_input_per_million=0, price_output_per_million=0)
    html = org_client.get(reverse("judging:llm_prelabel", args=[campaign.pk])).content.decode()
    assert "cost unknown: the judge has no prices" in html


@pytest.mark.django_db
def test_the_connection_test_makes_one_real_call_and_shows_the_answer(org_client, fake_openai, llm_fast):
    llm = judge_for(fake_openai)
    response = org_client.post(reverse("judging:llm_judge_check", args=[llm.judge.pk]), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert fake_openai.chat_calls == 1
    assert html.lstrip().startswith(f'<div id="connection-check-{llm.judge.pk}"')
    assert "<q>Partial Support</q>" in html
    assert "names no label" not in html


@pytest.mark.django_db
def test_the_connection_test_shows_a_readable_error(org_client, fake_openai, llm_fast):
    # given a judge whose server fails, and one where nothing listens
    failing = judge_for(fake_openai)
    fake_openai.switches.script = ["500", "500"]
    nowhere = judge_for(fake_openai, name="nowhere", base_url="http://127.0.0.1:9/v1")
    # then each says what went wrong in a line, without a traceback
    check = connection_check(failing)
    assert (check.ok, check.error) == (False, "HTTP 500: The server had an error")
    response = org_client.post(reverse("judging:llm_judge_check", args=[nowhere.judge.pk]), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "No answer: cannot connect to http://127.0.0.1:9/v1/" in html
    assert "Traceback" not in html
    # and the API gives the same
    body = org_client.post(f"/api/llm-judges/{failing.judge.name}/check/").json()
    assert body["ok"] is False
    assert body["error"].startswith("HTTP 500")


@pytest.mark.django_db
def test_the_jobs_table_polls_while_a_job_is_open_and_stops_after(org_client, fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=MARKED[:3])
    llm = judge_for(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    url = reverse("judging:llm_prelabel_jobs", args=[campaign.pk])
    html = org_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert html.lstrip().startswith('<section class="card" id="prelabel-jobs"')
    assert 'hx-trigger="every 2s"' in html
    assert 'data-status="pending"' in html
    chunks.prelabel_job_execute(job=job)
    html = org_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert 'data-status="done"' in html
    assert "hx-trigger" not in html


@pytest.mark.django_db
def test_the_api_reports_the_figures_of_the_page(org_client, fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=MARKED[:4])
    llm = judge_for(fake_openai, max_concurrency=1)
    llm_fast.LLM_MAX_ATTEMPTS = 1
    fake_openai.switches.script = ["garbage", "500"]
    job = run_job(campaign, llm)
    body = org_client.get(f"/api/prelabel-jobs/{job.pk}/").json()["progress"]
    assert {k: body[k] for k in ("total", "done", "labelled", "parse_errors", "call_errors", "errors")} == {
        "total": 4,
        "done": 4,
        "labelled": 2,
        "parse_errors": 1,
        "call_errors": 1,
        "errors": 2,
    }
    assert (body["in_flight"], body["calls_per_minute"]) == (0, fake_openai.chat_calls)
    html = org_client.get(reverse("judging:llm_job_progress", args=[job.pk])).content.decode()
    assert '<b class="js-errors">2</b> errors' in html
    assert '<span class="js-call-errors">1</span> failed call' in html
    assert '<span class="js-parse-errors">1</span> reply naming no label' in html


@pytest.mark.django_db
def test_the_judges_page_has_a_connection_test_per_callable_judge(org_client, fake_openai, llm_fast):
    llm = judge_for(fake_openai)
    html = org_client.get(reverse("judging:llm_judges")).content.decode()
    assert f'hx-target="#connection-check-{llm.judge.pk}"' in html
    assert f'<div id="connection-check-{llm.judge.pk}"' in html
    response = org_client.post(
        reverse("judging:llm_judge_check", args=[llm.judge.pk]), {"next": reverse("judging:llm_judges")}, follow=True
    )
    assert "gpt-progress answered in" in response.content.decode()
