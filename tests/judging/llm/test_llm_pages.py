"""The organizer's LLM pages and API: judges, the campaign pre-label page, its progress and retry."""

from __future__ import annotations

import pytest
from django.urls import reverse

from judging.llm import chunks, jobs, services
from judging.llm.models import LLMJudge, LLMResult, PrelabelJob, Provider
from judging.models import Judge, Judgment
from tests.factories import JudgmentFactory, LLMJudgeFactory, llm_campaign_build

pytestmark = pytest.mark.django_db


@pytest.fixture
def org_client(client, organizer):
    client.force_login(organizer)
    return client


def compatible_judge(server, name="vllm-llama"):
    return services.llm_judge_create(
        name=name, model="llama", provider=Provider.COMPATIBLE, base_url=server.base_url, max_concurrency=4
    )


def test_an_organizer_creates_an_llm_judge_from_the_page(org_client, llm_fast):
    response = org_client.post(
        reverse("judging:llm_judges"),
        {
            "name": "gpt-4o",
            "provider": "openai",
            "model": "gpt-4o",
            "prompt_version": "v1",
            "temperature": "0",
            "max_concurrency": "16",
            "requests_per_minute": "500",
            "tokens_per_minute": "30000",
            "price_input_per_million": "2.5",
            "price_output_per_million": "10",
        },
    )
    assert response.status_code == 302
    llm = LLMJudge.objects.get(judge__name="gpt-4o")
    assert (llm.max_concurrency, llm.requests_per_minute, llm.judge.kind) == (16, 500, "llm")
    assert "gpt-4o" in org_client.get(reverse("judging:llm_judges")).content.decode()


def test_an_assessor_cannot_see_the_llm_pages(client, assessor, llm_fast):
    client.force_login(assessor)
    campaign = llm_campaign_build(statements=["A claim."])
    assert client.get(reverse("judging:llm_judges")).status_code == 403
    assert client.get(reverse("judging:llm_prelabel", args=[campaign.pk])).status_code == 403


def test_the_prelabel_button_labels_the_campaign(org_client, fake_openai, llm_fast, django_capture_on_commit_callbacks):
    # given
    campaign = llm_campaign_build(statements=[f"Claim {i} [FS]." for i in range(5)])
    llm = compatible_judge(fake_openai)
    # when the organizer presses the button
    with django_capture_on_commit_callbacks(execute=True):
        response = org_client.post(
            reverse("judging:llm_prelabel_start", args=[campaign.pk]), {"judge": llm.judge_id, "mode": "live"}
        )
    # then
    assert response.status_code == 302
    job = PrelabelJob.objects.get()
    assert job.status == "done"
    assert Judgment.objects.filter(judge=llm.judge, label="FS").count() == 5
    page = org_client.get(reverse("judging:llm_prelabel", args=[campaign.pk])).content.decode()
    assert f'id="prelabel-job-{job.pk}"' in page
    assert "every 2s" not in page  # a finished job stops polling


def test_the_progress_partial_polls_while_the_job_runs(org_client, fake_openai, llm_fast):
    campaign = llm_campaign_build(statements=[f"Claim {i} [PS]." for i in range(4)])
    llm = compatible_judge(fake_openai)
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
    [chunk] = chunks.prelabel_job_start(job=job)
    chunks.prelabel_chunk_run(job=job, pair_ids=chunk[:3])
    response = org_client.get(reverse("judging:llm_job_progress", args=[job.pk]), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith(f'<div id="prelabel-job-{job.pk}"')
    assert 'hx-trigger="every 2s"' in html
    assert '<b class="js-done">3</b>' in html
    assert '<b class="js-remaining">1</b>' in html
    assert "<b>—</b> cost (no prices)" in html  # this judge has none
    assert '<b class="js-calls-per-minute">3</b> calls in the last minute' in html
    assert '<b class="js-in-flight">0</b> calls under way' in html
    assert "estimated time left" in html


def test_the_retry_button_calls_the_failed_pairs_again(
    org_client, fake_openai, llm_fast, django_capture_on_commit_callbacks
):
    campaign = llm_campaign_build(statements=["Claim [NS]."])
    llm = compatible_judge(fake_openai)
    fake_openai.switches.script = ["500"] * 5
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)
    job.refresh_from_db()
    partial = org_client.get(reverse("judging:llm_job_progress", args=[job.pk])).content.decode()
    assert "Retry 1 error" in partial
    with django_capture_on_commit_callbacks(execute=True):
        org_client.post(reverse("judging:llm_job_retry", args=[job.pk]))
    assert LLMResult.objects.get(judge=llm.judge).label == "NS"
    assert PrelabelJob.objects.count() == 2


def test_the_api_retries_the_failed_pairs_of_a_job(
    org_client, fake_openai, llm_fast, django_capture_on_commit_callbacks
):
    # given a job whose only call failed five times
    campaign = llm_campaign_build(statements=["Claim [PS]."])
    llm = compatible_judge(fake_openai)
    fake_openai.switches.script = ["500"] * 5
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)
    assert LLMResult.objects.get(judge=llm.judge).status == "error"
    # when the organizer asks the API to retry its errors
    with django_capture_on_commit_callbacks(execute=True):
        response = org_client.post(f"/api/prelabel-jobs/{job.pk}/retry-errors/")
    # then a new job calls that pair again, and labels it
    assert response.status_code == 202
    assert response.json()["id"] != job.pk
    assert response.json()["retry_errors"] is True
    assert LLMResult.objects.get(judge=llm.judge).label == "PS"
    assert fake_openai.chat_calls == 6


def test_the_page_shows_an_imported_llm_label_source(org_client, llm_fast):
    campaign = llm_campaign_build(statements=["Claim one.", "Claim two."])
    opus = LLMJudgeFactory(name="opus-4.8-nist")
    cp = campaign.campaign_pairs.select_related("context_citation").first()
    JudgmentFactory(judge=opus, pair=cp.pair, citation=cp.context_citation, label="FS")
    page = org_client.get(reverse("judging:llm_prelabel", args=[campaign.pk])).content.decode()
    assert "opus-4.8-nist" in page
    assert "Imported label source: <b>1</b>" in page
    assert "Pre-label with opus-4.8-nist" not in page


def test_an_organizer_picks_the_post_edit_judge(org_client, llm_fast):
    campaign = llm_campaign_build(statements=["Claim one."])
    opus = LLMJudgeFactory(name="opus-4.8-nist")
    org_client.post(reverse("judging:llm_post_edit_judge", args=[campaign.pk]), {"judge": opus.pk})
    campaign.refresh_from_db()
    assert campaign.post_edit_judge == opus


def test_the_api_starts_a_job_and_reports_its_progress(
    org_client, fake_openai, llm_fast, django_capture_on_commit_callbacks
):
    campaign = llm_campaign_build(statements=[f"Claim {i} [FS]." for i in range(3)])
    compatible_judge(fake_openai)
    with django_capture_on_commit_callbacks(execute=True):
        response = org_client.post(
            f"/api/campaigns/{campaign.pk}/prelabel/", {"judge": "vllm-llama"}, content_type="application/json"
        )
    assert response.status_code == 202
    job = org_client.get(f"/api/prelabel-jobs/{response.json()['id']}/").json()
    assert job["status"] == "done"
    assert job["progress"]["labelled"] == 3
    assert job["progress"]["remaining"] == 0


def test_the_api_creates_and_lists_llm_judges(org_client, llm_fast):
    response = org_client.post(
        "/api/llm-judges/",
        {"name": "llama", "provider": "openai-compatible", "base_url": "http://127.0.0.1:8001/v1", "model": "llama"},
        content_type="application/json",
    )
    assert response.status_code == 201
    LLMJudgeFactory(name="opus-4.8-nist")
    listed = {j["name"]: j["configured"] for j in org_client.get("/api/llm-judges/").json()}
    assert listed == {"llama": True, "opus-4.8-nist": False}


def test_the_api_refuses_an_assessor(client, assessor, llm_fast):
    client.force_login(assessor)
    assert client.get("/api/llm-judges/").status_code == 403


def test_the_judges_page_links_each_campaign_to_its_prelabel_page(org_client, llm_fast):
    campaign = llm_campaign_build(statements=["Claim."], name="trec-2024")
    page = org_client.get(reverse("judging:llm_judges")).content.decode()
    assert f'href="{reverse("judging:llm_prelabel", args=[campaign.pk])}">trec-2024</a>' in page


def test_labels_of_another_llm_imported_through_the_exchange_format_show_as_a_label_source(
    org_client, llm_fast, tmp_path
):
    # given a campaign and an exchange file from an LLM judged elsewhere (the shared importer)
    import json

    from judging.exchange.reading import JudgmentFormat
    from judging.exchange.services import judgments_import

    campaign = llm_campaign_build(statements=["Claim one.", "Claim two."])
    cp = campaign.campaign_pairs.select_related("context_citation__sentence__answer__run", "topic").first()
    citation = cp.context_citation
    row = {
        "topic_id": cp.topic.topic_id,
        "run_id": citation.sentence.answer.run.run_id,
        "sentence_index": citation.sentence.index,
        "citation_slot": citation.slot,
        "judge": "opus-4.8-nist",
        "judge_kind": "llm",
        "label": "PS",
    }
    path = tmp_path / "opus.jsonl"
    path.write_text(json.dumps(row) + "\n")
    # when it is imported
    judgments_import(files=[path], fmt=JudgmentFormat.EXCHANGE)
    # then the pre-label page lists the judge as an imported source, with its label, and nothing to call
    page = org_client.get(reverse("judging:llm_prelabel", args=[campaign.pk])).content.decode()
    assert Judge.objects.get(name="opus-4.8-nist").kind == "llm"
    assert "Imported label source: <b>1</b>" in page
    assert "Pre-label with opus-4.8-nist" not in page
