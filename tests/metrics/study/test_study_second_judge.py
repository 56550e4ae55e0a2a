"""A second LLM judge on the study's sampled pairs only, against the fake OpenAI-compatible server."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.test import Client

from judging.llm import services as llm_services
from judging.llm.models import LLMResult, PrelabelJob, Provider
from metrics.study.models import StudyItem
from metrics.study.services import StudyError, study_create, study_second_judge_job, study_second_judge_run
from tests.factories import LLMJudgeFactory, OrganizerFactory, study_campaign_build, study_labels_seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(db):
    campaign = study_campaign_build(pairs_per_topic=(12, 4))
    study_labels_seed(campaign, human="nist", llm="gpt-study")
    return study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=5, seed=0)


def _llama(server):
    return llm_services.llm_judge_create(
        name="llama-405b", provider=Provider.COMPATIBLE, base_url=server.base_url, model="llama-3.1-405b"
    )


def test_it_labels_the_sampled_pairs_and_no_other(study, fake_openai, llm_fast):
    # given
    llm = _llama(fake_openai)
    sampled = set(StudyItem.objects.filter(study=study).values_list("pair_id", flat=True))
    # when
    job = study_second_judge_run(study=study, job=study_second_judge_job(study=study, judge=llm.judge), chunk_size=3)
    # then
    assert job.status == "done"
    assert job.total == len(sampled) == 5 + 3
    assert set(LLMResult.objects.filter(judge=llm.judge).values_list("pair_id", flat=True)) == sampled
    assert fake_openai.chat_calls == len(sampled)
    study.refresh_from_db()
    assert study.second_judge == llm.judge


def test_it_does_not_pay_twice_for_a_pair_already_labelled(study, fake_openai, llm_fast):
    llm = _llama(fake_openai)
    study_second_judge_run(study=study, job=study_second_judge_job(study=study, judge=llm.judge))
    study_second_judge_run(study=study, job=study_second_judge_job(study=study, judge=llm.judge))
    assert fake_openai.chat_calls == 5 + 3


def test_it_refuses_a_judge_with_nothing_to_call(study):
    # an imported label source: no provider configuration
    imported = LLMJudgeFactory(name="imported-llm")
    with pytest.raises(StudyError, match="nothing to call"):
        study_second_judge_job(study=study, judge=imported)


def test_it_refuses_one_of_the_studys_own_judges(study):
    from judging.models import Judge

    with pytest.raises(StudyError, match="must differ"):
        study_second_judge_job(study=study, judge=Judge.objects.get(name="gpt-study"))


def test_the_api_starts_it_on_the_sample(study, fake_openai, llm_fast, django_capture_on_commit_callbacks):
    # given
    llm = _llama(fake_openai)
    client = Client()
    client.force_login(OrganizerFactory(username="olga"))
    # when
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/studies/{study.pk}/second-judge/", {"judge": "llama-405b"}, content_type="application/json"
        )
    # then
    assert response.status_code == 202
    job = PrelabelJob.objects.get(pk=response.json()["job"])
    assert job.status == "done"
    report = client.get(f"/api/studies/{study.pk}/").json()
    assert report["second_labelled"] == 8
    assert {p["role_a"] for p in report["agreement"]} >= {"second"}
    assert LLMResult.objects.filter(judge=llm.judge).count() == 8


def test_the_command_runs_it(study, fake_openai, llm_fast):
    _llama(fake_openai)
    out = io.StringIO()
    call_command("study_prelabel", str(study.pk), "--judge", "llama-405b", stdout=out)
    assert "8 sampled pairs" in out.getvalue()
    assert "done: 8 labelled" in out.getvalue()
