"""Azure OpenAI: the deployment path and api-version, with keys from the environment."""

from __future__ import annotations

import json

import pytest

from judging.llm import chunks, jobs, services
from judging.llm.models import LLMResult, PrelabelMode, Provider
from tests.factories import llm_campaign_build

pytestmark = pytest.mark.django_db


def test_an_azure_judge_posts_to_the_deployment_path(fake_openai, llm_fast, monkeypatch):
    # given Azure settings in the environment, pointing at the fake server
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-test-key")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", fake_openai.root_url)
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2024-10-21")
    campaign = llm_campaign_build(statements=["A [NS] claim.", "Another [FS] claim."])
    llm = services.llm_judge_create(name="gpt-4o-azure", model="my-gpt4o-deployment", provider=Provider.AZURE)
    # when
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    chunks.prelabel_job_execute(job=job)
    # then
    assert fake_openai.paths["/openai/deployments/my-gpt4o-deployment/chat/completions"] == 2
    assert fake_openai.paths["/v1/chat/completions"] == 0
    assert sorted(LLMResult.objects.values_list("label", flat=True)) == ["FS", "NS"]


def test_an_azure_judge_needs_its_key_in_the_environment(llm_fast):
    campaign = llm_campaign_build(statements=["A claim."])
    llm = services.llm_judge_create(name="azure", model="d", provider=Provider.AZURE, base_url="http://127.0.0.1:1")
    with pytest.raises(services.PrelabelError, match="AZURE_OPENAI_API_KEY"):
        jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)


def test_an_openai_judge_reads_the_base_url_from_the_environment(fake_openai, llm_fast, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    campaign = llm_campaign_build(statements=["A [PS] claim."])
    llm = services.llm_judge_create(name="gpt-4o", model="gpt-4o", provider=Provider.OPENAI)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    chunks.prelabel_job_execute(job=job)
    assert fake_openai.paths["/v1/chat/completions"] == 1
    assert LLMResult.objects.get().label == "PS"


def test_an_azure_judge_runs_a_batch_job_through_the_azure_files_and_batches_paths(fake_openai, llm_fast, monkeypatch):
    # given an Azure judge (a global batch deployment)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-test-key")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", fake_openai.root_url)
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2024-10-21")
    campaign = llm_campaign_build(statements=["A [NS] claim.", "Another [FS] claim.", "A third [PS] claim."])
    llm = services.llm_judge_create(name="gpt-4o-azure-batch", model="my-batch-deployment", provider=Provider.AZURE)
    # when a batch job runs
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, mode=PrelabelMode.BATCH, enqueue=False)
    job = chunks.prelabel_job_execute(job=job, poll_seconds=0.01)
    # then the upload and the batch go to Azure's paths, each line to the deployment's chat completions,
    # and no live call is made
    assert job.status == "done"
    assert fake_openai.paths["/openai/files"] == 1
    assert fake_openai.paths["/openai/batches"] == 1
    assert fake_openai.paths["/v1/files"] == fake_openai.paths["/v1/batches"] == 0
    assert sum(n for path, n in fake_openai.paths.items() if "chat/completions" in path) == 0
    lines = [json.loads(line) for line in next(iter(fake_openai.files.values())).decode().splitlines()]
    assert {(line["url"], line["body"]["model"]) for line in lines} == {("/chat/completions", "my-batch-deployment")}
    assert sorted(LLMResult.objects.values_list("label", flat=True)) == ["FS", "NS", "PS"]
    assert fake_openai.models["my-batch-deployment"] == 3
