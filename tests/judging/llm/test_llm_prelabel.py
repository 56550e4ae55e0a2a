"""Pre-labelling a campaign against the fake OpenAI-compatible server (tasks run in process)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from judging.llm import chunks, jobs, prompt, services
from judging.llm.models import LLMResult, PrelabelJob, Provider
from judging.llm.selectors import prelabel_progress
from judging.models import Judgment
from tests.factories import LLMJudgeFactory, llm_campaign_build

pytestmark = pytest.mark.django_db

MARKED = [f"Statement {i} [{['FS', 'PS', 'NS'][i % 3]}] holds." for i in range(30)]


def judge_for(server, **overrides):
    options = {
        "name": "gpt-test",
        "provider": Provider.COMPATIBLE,
        "base_url": server.base_url,
        "model": "gpt-4o",
        "max_concurrency": 8,
        "price_input_per_million": "2.5",
        "price_output_per_million": "10",
    }
    options.update(overrides)
    return services.llm_judge_create(**options)


def run_job(campaign, llm, chunk_size=10, **options):
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False, **options)
    for chunk in chunks.prelabel_job_start(job=job, chunk_size=chunk_size):
        chunks.prelabel_chunk_run(job=job, pair_ids=chunk)
    job.refresh_from_db()
    return job


def test_it_labels_every_pair_of_the_campaign(fake_openai, llm_fast):
    # given
    campaign = llm_campaign_build(statements=MARKED)
    llm = judge_for(fake_openai)
    # when
    job = run_job(campaign, llm)
    # then
    results = LLMResult.objects.filter(judge=llm.judge)
    assert job.status == "done"
    assert results.count() == 30
    assert {r.status for r in results} == {"labelled"}
    assert sorted(r.label for r in results) == sorted(["FS", "PS", "NS"] * 10)
    assert all(f"[{r.label}]" in r.pair.text for r in results)


def test_it_writes_a_judgment_per_labelled_pair(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=MARKED[:6])
    llm = judge_for(fake_openai)
    run_job(campaign, llm)
    judgments = Judgment.objects.filter(judge=llm.judge)
    assert judgments.count() == 6
    assert {(j.citation_id, j.condition) for j in judgments} == {(None, "")}
    assert {j.pair_id: j.label for j in judgments} == dict(
        LLMResult.objects.filter(judge=llm.judge).values_list("pair_id", "label")
    )


def test_it_records_the_call(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=["One sentence [FS]."])
    llm = judge_for(fake_openai)
    run_job(campaign, llm)
    result = LLMResult.objects.get(judge=llm.judge)
    assert result.raw_output == "Full Support"
    assert result.prompt_version == "v1"
    assert result.latency_ms is not None
    assert result.input_tokens > 100
    assert result.output_tokens == 3
    expected = (Decimal(result.input_tokens) * Decimal("2.5") + 3 * Decimal(10)) / 1_000_000
    assert result.cost == expected.quantize(Decimal("0.000001"))
    assert result.attempts == 1


def test_it_sends_title_colon_text_as_the_citation(fake_openai, llm_fast):
    # given a server that remembers the prompts it was sent
    campaign = llm_campaign_build(statements=["Water boils at 100 C."])
    llm = judge_for(fake_openai)
    prompts = []
    original = fake_openai.chat

    def spy(body, model):
        prompts.append(body["messages"][0]["content"])
        return original(body, model)

    fake_openai.chat = spy
    # when
    run_job(campaign, llm)
    # then
    passage = LLMResult.objects.get(judge=llm.judge).pair.passage
    assert prompts == [
        prompt.messages_for(version="v1", statement="Water boils at 100 C.", citation="")[0]["content"][
            : -len("Citation: ")
        ]
        + f"Citation: {passage.title}: {passage.text}"
    ]


def test_a_second_run_of_the_same_job_makes_zero_calls(fake_openai, llm_fast):
    # given a campaign labelled once
    campaign = llm_campaign_build(statements=MARKED[:12])
    llm = judge_for(fake_openai)
    run_job(campaign, llm)
    assert fake_openai.chat_calls == 12
    fake_openai.reset_counts()
    # when it is pre-labelled again
    job = run_job(campaign, llm)
    # then it announces no pair and calls none
    assert fake_openai.chat_calls == 0
    assert job.status == "done"
    assert job.total == 0
    assert Judgment.objects.filter(judge=llm.judge).count() == 12


def test_a_job_whose_pairs_were_labelled_meanwhile_ends_done_with_zero_calls(fake_openai, llm_fast):
    # given a job created, then its pairs labelled by another job before it starts
    campaign = llm_campaign_build(statements=MARKED[:12])
    llm = judge_for(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    run_job(campaign, llm)
    fake_openai.reset_counts()
    # when it starts
    assert chunks.prelabel_job_start(job=job) == []
    # then
    job.refresh_from_db()
    assert fake_openai.chat_calls == 0
    assert job.status == "done"


def test_it_stores_a_parse_error_with_the_raw_output_never_no_support(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=["A [NS] claim."])
    llm = judge_for(fake_openai)
    fake_openai.switches.script = ["garbage"]
    run_job(campaign, llm)
    result = LLMResult.objects.get(judge=llm.judge)
    assert (result.status, result.label) == ("parse_error", "")
    assert result.raw_output.startswith("I cannot decide")
    assert not Judgment.objects.filter(judge=llm.judge).exists()


def test_it_honours_retry_after_on_429(fake_openai, llm_fast):
    # given a server that answers 429 with Retry-After: 1 once
    campaign = llm_campaign_build(statements=["A [PS] claim."])
    llm = judge_for(fake_openai)
    fake_openai.switches.script = ["429"]
    fake_openai.switches.retry_after = "1"
    # when
    run_job(campaign, llm)
    # then the second call came a second later, and the pair is labelled
    first, second = fake_openai.request_times
    assert second - first >= 1.0
    result = LLMResult.objects.get(judge=llm.judge)
    assert (result.status, result.label, result.attempts) == ("labelled", "PS", 2)


def test_it_retries_5xx_and_timeouts_then_labels(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=["A [FS] claim."])
    llm = judge_for(fake_openai)
    fake_openai.switches.script = ["500", "hang", "500"]
    fake_openai.switches.hang_seconds = 2.0
    run_job(campaign, llm)
    result = LLMResult.objects.get(judge=llm.judge)
    assert (result.status, result.label, result.attempts) == ("labelled", "FS", 4)


def test_it_records_an_error_when_retries_run_out(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=["A [FS] claim."])
    llm = judge_for(fake_openai)
    fake_openai.switches.script = ["500"] * 5
    run_job(campaign, llm)
    result = LLMResult.objects.get(judge=llm.judge)
    assert (result.status, result.attempts) == ("error", 5)
    assert "HTTP 500" in result.error
    assert fake_openai.chat_calls == 5


def test_it_does_not_retry_a_client_error(fake_openai, llm_fast):
    # given a judge pointing at a path the server does not serve (404)
    campaign = llm_campaign_build(statements=["A [FS] claim."])
    llm = judge_for(fake_openai, base_url=fake_openai.root_url + "/nowhere")
    run_job(campaign, llm)
    result = LLMResult.objects.get(judge=llm.judge)
    assert (result.status, result.attempts) == ("error", 1)
    assert "HTTP 404" in result.error


def test_every_pair_ends_labelled_or_with_a_recorded_error_under_injected_faults(fake_openai, llm_fast):
    # given 28% faults of every kind (429 with Retry-After, 500, hangs, garbage, odd casing)
    campaign = llm_campaign_build(statements=MARKED + [f"More {i} [FS]." for i in range(30)])
    llm = judge_for(fake_openai, max_concurrency=16)
    fake_openai.switches.fault_rates = {"429": 0.08, "500": 0.08, "hang": 0.02, "garbage": 0.04, "odd_case": 0.06}
    fake_openai.switches.retry_after = "0"
    fake_openai.switches.hang_seconds = 1.5
    llm_fast.LLM_MAX_ATTEMPTS = 3
    # when
    job = run_job(campaign, llm, chunk_size=20)
    # then nothing is left pending, errors say why, labels are right, odd casing was read
    results = LLMResult.objects.filter(judge=llm.judge)
    assert job.status == "done"
    assert results.count() == 60
    assert set(results.values_list("status", flat=True)) <= {"labelled", "parse_error", "error"}
    assert all(r.error for r in results.exclude(status="labelled"))
    assert all(f"[{r.label}]" in r.pair.text for r in results.filter(status="labelled"))
    assert results.filter(status="parse_error").count() == fake_openai.faults_served["garbage"]
    assert fake_openai.faults_served["odd_case"] > 0
    assert results.filter(raw_output__startswith='"').count() == fake_openai.faults_served["odd_case"]
    assert sum(fake_openai.faults_served.values()) >= 5
    assert Judgment.objects.filter(judge=llm.judge).count() == results.filter(status="labelled").count()
    progress = prelabel_progress(job)
    assert progress.remaining == 0
    assert progress.done == 60
    assert progress.errors == results.exclude(status="labelled").count()
    assert progress.parse_errors == results.filter(status="parse_error").count()


def test_retrying_errors_calls_only_the_failed_pairs(fake_openai, llm_fast):
    # given a job where one pair ended in error
    campaign = llm_campaign_build(statements=MARKED[:5])
    llm = judge_for(fake_openai, max_concurrency=1)
    fake_openai.switches.script = ["ok", "500", "500", "500", "500", "500"]
    job = run_job(campaign, llm)
    assert LLMResult.objects.filter(judge=llm.judge, status="error").count() == 1
    fake_openai.reset_counts()
    # when its errors are retried
    retry = jobs.prelabel_retry_errors(job=job)
    for chunk in chunks.prelabel_job_start(job=retry):
        chunks.prelabel_chunk_run(job=retry, pair_ids=chunk)
    # then one call was made and every pair is labelled
    assert fake_openai.chat_calls == 1
    assert set(LLMResult.objects.filter(judge=llm.judge).values_list("status", flat=True)) == {"labelled"}
    assert LLMResult.objects.get(judge=llm.judge, attempts=6).label != ""


def test_a_pair_held_by_a_live_claim_is_not_called_twice(fake_openai, llm_fast):
    # given a pair another worker has just claimed
    campaign = llm_campaign_build(statements=MARKED[:3])
    llm = judge_for(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    [chunk] = chunks.prelabel_job_start(job=job)
    import uuid

    services.results_claim(judge=llm.judge, prompt_version="v1", pair_ids=chunk[:1], claim=uuid.uuid4())
    # when this worker runs the chunk
    summary = chunks.prelabel_chunk_run(job=job, pair_ids=chunk)
    # then it calls only for the other two
    assert (summary.claimed, summary.held_elsewhere, fake_openai.chat_calls) == (2, 1, 2)


def test_a_stale_claim_of_a_dead_worker_is_taken_over(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=MARKED[:3])
    llm = judge_for(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    [chunk] = chunks.prelabel_job_start(job=job)
    import uuid

    services.results_claim(judge=llm.judge, prompt_version="v1", pair_ids=chunk, claim=uuid.uuid4())
    llm_fast.LLM_CLAIM_STALE_SECONDS = 0
    summary = chunks.prelabel_chunk_run(job=job, pair_ids=chunk)
    job.refresh_from_db()
    assert (summary.claimed, fake_openai.chat_calls, job.status) == (3, 3, "done")


def test_an_imported_llm_label_source_cannot_be_called(llm_fast):
    campaign = llm_campaign_build(statements=MARKED[:1])
    opus = LLMJudgeFactory(name="opus-4.8-nist")
    with pytest.raises(services.PrelabelError, match="imported label source"):
        jobs.prelabel_job_create(campaign=campaign, judge=opus)
    assert not PrelabelJob.objects.exists()


def test_a_missing_key_is_reported_before_any_job(llm_fast):
    campaign = llm_campaign_build(statements=MARKED[:1])
    llm = services.llm_judge_create(name="gpt-4o", model="gpt-4o", provider=Provider.OPENAI)
    with pytest.raises(services.PrelabelError, match="OPENAI_API_KEY"):
        jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)


def test_two_judges_keep_their_own_labels(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=MARKED[:4])
    gpt = judge_for(fake_openai, name="gpt-4o")
    llama = judge_for(fake_openai, name="llama-405b", model="meta-llama/Llama-3.1-405B")
    run_job(campaign, gpt)
    run_job(campaign, llama)
    assert fake_openai.models == {"gpt-4o": 4, "meta-llama/Llama-3.1-405B": 4}
    assert Judgment.objects.filter(judge=gpt.judge).count() == 4
    assert Judgment.objects.filter(judge=llama.judge).count() == 4


def test_a_worker_without_the_key_fails_the_job_and_claims_nothing(llm_fast, monkeypatch):
    # given a job created where the key is set
    monkeypatch.setenv("OPENAI_API_KEY", "sk-web-only")
    campaign = llm_campaign_build(statements=MARKED[:2])
    llm = services.llm_judge_create(name="gpt-4o", model="gpt-4o", provider=Provider.OPENAI)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    [chunk] = chunks.prelabel_job_start(job=job)
    # when a worker without it runs the chunk
    monkeypatch.delenv("OPENAI_API_KEY")
    chunks.prelabel_chunk_run(job=job, pair_ids=chunk)
    # then
    job.refresh_from_db()
    assert job.status == "failed"
    assert job.message == "on the worker: OPENAI_API_KEY is not set"
    assert not LLMResult.objects.exists()
