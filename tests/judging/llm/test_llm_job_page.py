"""The pre-labelling page tells the truth (issue 24): the ETA comes from the measured pace in pairs (retries
and errors included), errors waiting for their retry are counted and said to wait for the organizer, and the
prompt a job sends can be read by organizers only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from judging.llm import jobs, selectors, services
from judging.llm.models import LLMResult, LLMResultStatus, PrelabelStatus, Provider
from judging.llm.prompt import PROMPT_V1
from judging.models import CampaignPair
from tests.factories import llm_campaign_build


def _judge(name: str = "gpt-page"):
    return services.llm_judge_create(
        name=name, provider=Provider.COMPATIBLE, base_url="http://127.0.0.1:9/v1", model="gpt-4o"
    ).judge


def _results(campaign, judge, statuses: list[str]) -> None:
    pair_ids = list(
        CampaignPair.objects.filter(campaign=campaign).order_by("pair_id").values_list("pair_id", flat=True)
    )
    LLMResult.objects.bulk_create(
        LLMResult(
            judge=judge,
            prompt_version="v1",
            pair_id=pair_id,
            status=status,
            label="FS" if status == LLMResultStatus.LABELLED else "",
            error="timeout" if status == LLMResultStatus.ERROR else "",
        )
        for pair_id, status in zip(pair_ids, statuses, strict=False)
    )


@pytest.mark.django_db
def test_the_eta_follows_the_pairs_settled_not_the_http_calls(llm_fast, monkeypatch):
    # given: 40 pairs; in the 100 s since it started the job settled 10, though it made 60 calls (retries)
    campaign = llm_campaign_build(statements=[f"Statement {i}." for i in range(40)])
    judge = _judge()
    job = jobs.prelabel_job_create(campaign=campaign, judge=judge, enqueue=False)
    job.status, job.started_at = PrelabelStatus.RUNNING, timezone.now() - timedelta(seconds=100)
    job.save()
    _results(campaign, judge, [LLMResultStatus.LABELLED] * 8 + [LLMResultStatus.ERROR] * 2)
    monkeypatch.setattr(selectors, "meter_read", lambda job_id: (4, 60))

    # when
    progress = selectors.prelabel_progress(job)

    # then: 30 left at 10 pairs per 100 s is about 300 s (the calls' pace would say 30 s)
    assert progress.remaining == 30
    assert 295 <= progress.eta_seconds <= 320


@pytest.mark.django_db
def test_the_eta_is_unknown_until_a_pair_has_settled(llm_fast, monkeypatch):
    campaign = llm_campaign_build(statements=["One.", "Two."])
    job = jobs.prelabel_job_create(campaign=campaign, judge=_judge(), enqueue=False)
    job.status, job.started_at = PrelabelStatus.RUNNING, timezone.now() - timedelta(seconds=5)
    job.save()
    monkeypatch.setattr(selectors, "meter_read", lambda job_id: (2, 12))

    assert selectors.prelabel_progress(job).eta_seconds is None


@pytest.mark.django_db
def test_the_page_counts_the_errors_that_wait_for_their_retry_instead_of_no_pair_to_call(llm_fast, client, organizer):
    # given: 20 pairs, 7 labelled and 13 whose call failed
    campaign = llm_campaign_build(statements=[f"Statement {i}." for i in range(20)])
    judge = _judge()
    _results(campaign, judge, [LLMResultStatus.LABELLED] * 7 + [LLMResultStatus.ERROR] * 13)
    client.force_login(organizer)

    # when
    html = client.get(f"/organize/campaigns/{campaign.pk}/prelabel/").content.decode()

    # then
    assert "No pair to call" not in html
    assert "<b>13</b> pairs ended in an error and wait for a retry" in html
    assert "never on their own" in html
    assert "Call again 13 pairs that ended in an error" in html


@pytest.mark.django_db
def test_an_organizer_reads_the_prompt_a_job_sends_from_the_page(llm_fast, client, organizer):
    # given
    campaign = llm_campaign_build(statements=["One."])
    _judge()
    client.force_login(organizer)
    page = client.get(f"/organize/campaigns/{campaign.pk}/prelabel/").content.decode()
    assert 'href="/organize/llm-prompts/v1/"' in page

    # when
    response = client.get("/organize/llm-prompts/v1/")

    # then
    body = response.content.decode()
    assert response.status_code == 200
    assert "Statement: {statement}" in body
    assert "Citation: {citation}" in body
    assert PROMPT_V1.splitlines()[0].replace('"', "&quot;") in body
    assert client.get("/organize/llm-prompts/v9/").status_code == 404


@pytest.mark.django_db
def test_an_assessor_never_reaches_the_prompt(client, assessor):
    # given
    client.force_login(assessor)

    # when
    response = client.get("/organize/llm-prompts/v1/")

    # then
    assert response.status_code == 403
    assert "Statement: {statement}" not in response.content.decode()
