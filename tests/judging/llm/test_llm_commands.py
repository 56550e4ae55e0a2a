"""The `llm_judge_create` and `prelabel` commands (tasks in process: no broker)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from judging.llm import jobs, services
from judging.llm.models import LLMJudge, LLMResult, PrelabelJob, Provider
from judging.models import Judgment
from tests.factories import LLMJudgeFactory, llm_campaign_build

pytestmark = pytest.mark.django_db(transaction=True)


def test_llm_judge_create_makes_a_callable_judge(llm_fast):
    out = StringIO()
    call_command(
        "llm_judge_create",
        "llama-405b",
        "--provider",
        "openai-compatible",
        "--base-url",
        "http://127.0.0.1:8000/v1",
        "--model",
        "meta-llama/Llama-3.1-405B-Instruct",
        "--max-concurrency",
        "32",
        "--rpm",
        "600",
        "--price-in",
        "3",
        "--price-out",
        "3",
        stdout=out,
    )
    llm = LLMJudge.objects.get(judge__name="llama-405b")
    assert (llm.provider, llm.max_concurrency, llm.requests_per_minute, llm.judge.kind) == (
        "openai-compatible",
        32,
        600,
        "llm",
    )
    assert "created LLM judge llama-405b" in out.getvalue()


def test_llm_judge_create_refuses_an_unknown_prompt_version(llm_fast):
    with pytest.raises(CommandError):
        call_command("llm_judge_create", "x", "--model", "m", "--prompt-version", "v99")


def test_prelabel_wait_labels_the_campaign_and_reports(fake_openai, llm_fast):
    # given
    campaign = llm_campaign_build(statements=[f"Claim {i} [NS]." for i in range(8)], name="demo")
    call_command(
        "llm_judge_create",
        "vllm",
        "--provider",
        "openai-compatible",
        "--base-url",
        fake_openai.base_url,
        "--model",
        "llama",
        stdout=StringIO(),
    )
    out, err = StringIO(), StringIO()
    # when
    call_command("prelabel", "demo", "--judge", "vllm", "--wait", stdout=out, stderr=err)
    # then
    assert "done: 8 labelled, 0 parse errors, 0 errors, 0 remaining" in out.getvalue()
    assert Judgment.objects.filter(judge__name="vllm", label="NS").count() == 8
    assert fake_openai.chat_calls == 8
    # and a second run pays for nothing
    call_command("prelabel", str(campaign.pk), "--judge", "vllm", stdout=StringIO())
    assert fake_openai.chat_calls == 8


def test_prelabel_batch_goes_through_the_batch_api(fake_openai, llm_fast):
    llm_campaign_build(statements=["Claim [FS].", "Claim [PS]."], name="demo")
    call_command(
        "llm_judge_create",
        "gpt",
        "--provider",
        "openai-compatible",
        "--base-url",
        fake_openai.base_url,
        "--model",
        "gpt-4o",
        stdout=StringIO(),
    )
    call_command("prelabel", "demo", "--judge", "gpt", "--batch", "--wait", stdout=StringIO(), stderr=StringIO())
    assert fake_openai.paths["/v1/batches"] == 1
    assert sorted(LLMResult.objects.values_list("label", flat=True)) == ["FS", "PS"]


def test_prelabel_refuses_an_imported_label_source(llm_fast):
    llm_campaign_build(statements=["Claim."], name="demo")
    LLMJudgeFactory(name="opus-4.8-nist")
    with pytest.raises(CommandError, match="imported label source"):
        call_command("prelabel", "demo", "--judge", "opus-4.8-nist")


def test_prelabel_names_an_unknown_campaign(llm_fast):
    with pytest.raises(CommandError, match="no campaign"):
        call_command("prelabel", "nope", "--judge", "x")


def test_prelabel_cancel_stops_a_job_and_says_so(fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=["A claim [FS]."])
    llm = services.llm_judge_create(
        name="gpt-cli", model="m", provider=Provider.COMPATIBLE, base_url=fake_openai.base_url
    )
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    out = StringIO()
    call_command("prelabel_cancel", str(job.pk), stdout=out)
    assert f"job #{job.pk} cancelled" in out.getvalue()
    assert PrelabelJob.objects.get(pk=job.pk).status == "cancelled"
    with pytest.raises(CommandError, match="already ended: cancelled"):
        call_command("prelabel_cancel", str(job.pk))
    with pytest.raises(CommandError, match="no pre-label job #999999"):
        call_command("prelabel_cancel", "999999")
