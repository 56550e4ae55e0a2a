"""The LLM pre-labeller over judgment kinds (issue 26, point 4): a campaign of another kind is pre-labelled by the
organizer's button through the same Celery task, chunks, rate limits, cost meter and result cache as support, with
the kind's prompt, parser and store (its PRELABEL); a unit with a result is never called again, and the kind's
results sit beside support's for the same ids without meeting them. Through the test-only kind `toy` (its unit
is a pool pair, its prompt the statement, its labels 0-2) against the fake OpenAI-compatible server."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse

from judging.llm import jobs, services
from judging.llm.models import LLMResult, PrelabelJob, Provider
from judging.llm.selectors import prelabel_progress
from judging.models import Campaign, CampaignPair, Judgment
from tests.factories import OrganizerFactory, llm_campaign_build

pytestmark = pytest.mark.django_db

STATEMENTS = ["Moon rock [FS].", "Moon cheese [NS].", "Moon dust [PS].", "Moon water [FS]."]
GRADES = {"FS": 2, "PS": 1, "NS": 0}


def _judge(server: Any) -> Any:
    return services.llm_judge_create(
        name="gpt-test",
        provider=Provider.COMPATIBLE,
        base_url=server.base_url,
        model="gpt-4o",
        max_concurrency=4,
        price_input_per_million="2.5",
        price_output_per_million="10",
    )


def _as_toy(campaign: Campaign) -> Campaign:
    campaign.kind = "toy"
    campaign.save(update_fields=["kind"])
    return campaign


def _press(client: Any, campaign: Campaign, llm: Any, capture: Any, **extra: str) -> Any:
    with capture(execute=True):
        return client.post(
            reverse("judging:llm_prelabel_start", args=[campaign.pk]), {"judge": llm.judge_id, "mode": "live", **extra}
        )


def test_a_kinds_units_go_through_the_same_job_cache_and_meter_with_its_prompt_and_store(
    client, fake_openai, llm_fast, toy_kind, django_capture_on_commit_callbacks
) -> None:
    # given: a pool of four pairs, pre-labelled once as support pairs
    campaign = llm_campaign_build(statements=STATEMENTS)
    llm = _judge(fake_openai)
    client.force_login(OrganizerFactory(username="org"))
    _press(client, campaign, llm, django_capture_on_commit_callbacks)
    assert LLMResult.objects.filter(judge=llm.judge, kind="", status="labelled").count() == 4
    support_calls = fake_openai.chat_calls
    pair_text = dict(CampaignPair.objects.filter(campaign=campaign).values_list("pair_id", "pair__text"))

    # when: the same campaign, now of the toy kind, is pre-labelled by the organizer's button
    toy = _as_toy(campaign)
    page = client.get(reverse("judging:llm_prelabel", args=[toy.pk]))
    assert page.status_code == 200
    response = _press(client, toy, llm, django_capture_on_commit_callbacks)

    # then: a job over the kind's four units, each called once with the kind's prompt, done
    assert response.status_code == 302
    job = PrelabelJob.objects.filter(campaign=toy).latest("pk")
    assert (job.status, job.total, job.prompt_version) == ("done", 4, "toy-v1")
    assert fake_openai.chat_calls - support_calls == 4
    results = LLMResult.objects.filter(judge=llm.judge, kind="toy")
    assert results.count() == 4
    assert {r.unit_id for r in results} == set(pair_text)
    assert all(r.pair_id is None and r.status == "labelled" and r.label == "" for r in results)
    # ... each label read by the kind's parser from the fake's reply, and stored by the kind
    expected = {unit: GRADES[text.split("[")[1][:2]] for unit, text in pair_text.items()}
    assert {r.unit_id: r.unit_label for r in results} == expected
    assert toy_kind.PRELABEL.stored == {(llm.judge_id, unit): grade for unit, grade in expected.items()}
    # ... priced by the judge's prices and counted by the job's progress, as support's are
    assert all(r.cost > 0 and r.input_tokens > 0 and r.latency_ms is not None for r in results)
    result = results.first()
    assert result is not None
    cost = (Decimal(result.input_tokens) * Decimal("2.5") + result.output_tokens * Decimal(10)) / 1_000_000
    assert result.cost == cost.quantize(Decimal("0.000001"))
    progress = prelabel_progress(job)
    assert (progress.labelled, progress.errors, progress.total) == (4, 0, 4)
    assert progress.cost == sum(r.cost for r in results)
    # ... and support's results and judgments are as they were
    assert LLMResult.objects.filter(judge=llm.judge, kind="").count() == 4
    assert Judgment.objects.filter(judge=llm.judge).count() == 4

    # when pressed again: nothing is paid twice
    _press(client, toy, llm, django_capture_on_commit_callbacks)
    again = PrelabelJob.objects.filter(campaign=toy).latest("pk")
    assert (again.status, again.total) == ("done", 0)
    assert fake_openai.chat_calls - support_calls == 4
    assert LLMResult.objects.filter(judge=llm.judge, kind="toy").count() == 4


def test_a_reply_the_kind_cannot_read_is_a_parse_error_and_retried_on_request(
    fake_openai, llm_fast, toy_kind, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    # given: a kind whose parser reads only full support, for now
    toy = _as_toy(llm_campaign_build(statements=STATEMENTS[:2]))
    llm = _judge(fake_openai)
    monkeypatch.setattr(toy_kind.PRELABEL, "parse", lambda reply: 2 if reply == "Full Support" else None)
    with django_capture_on_commit_callbacks(execute=True):
        jobs.prelabel_job_create(campaign=toy, judge=llm.judge)
    errors = LLMResult.objects.filter(judge=llm.judge, kind="toy", status="parse_error")
    assert [(r.unit_label, r.raw_output, r.error) for r in errors] == [
        (None, "No Support", "the reply holds no toy label")
    ]
    assert list(toy_kind.PRELABEL.stored.values()) == [2]
    # when the parser is mended and the errors retried
    monkeypatch.setattr(toy_kind.PRELABEL, "parse", lambda reply: {"Full Support": 2, "No Support": 0}.get(reply))
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.prelabel_job_create(campaign=toy, judge=llm.judge, retry_errors=True)
    job.refresh_from_db()
    # then
    assert (job.status, job.total) == ("done", 1)
    assert sorted(toy_kind.PRELABEL.stored.values()) == [0, 2]
    assert not LLMResult.objects.filter(judge=llm.judge, kind="toy").exclude(status="labelled").exists()


def test_a_kinds_job_is_refused_in_batch_mode_and_before_its_pool_is_built(fake_openai, llm_fast, toy_kind) -> None:
    llm = _judge(fake_openai)
    toy = _as_toy(llm_campaign_build(statements=STATEMENTS[:1]))
    with pytest.raises(services.PrelabelError, match="Batch API pre-labels support campaigns only"):
        jobs.prelabel_job_create(campaign=toy, judge=llm.judge, mode="batch", enqueue=False)
    CampaignPair.objects.filter(campaign=toy).delete()
    with pytest.raises(services.PrelabelError, match="has no pairs yet: build it first"):
        jobs.prelabel_job_create(campaign=toy, judge=llm.judge, enqueue=False)
    assert not PrelabelJob.objects.exists()


def test_a_result_is_one_pair_or_one_unit_of_a_kind_never_both() -> None:
    from django.db import IntegrityError, transaction

    from tests.factories import JudgeFactory, PairFactory

    judge, pair = JudgeFactory(), PairFactory()
    for bad in ({"pair": pair, "kind": "toy", "unit_id": 1}, {"kind": "toy"}, {"unit_id": 1}, {}):
        with pytest.raises(IntegrityError), transaction.atomic():
            LLMResult.objects.create(judge=judge, prompt_version="v", status="error", **bad)
    LLMResult.objects.create(judge=judge, prompt_version="v", status="error", kind="toy", unit_id=pair.pk)
    LLMResult.objects.create(judge=judge, prompt_version="v", status="error", pair=pair)
    with pytest.raises(IntegrityError), transaction.atomic():
        LLMResult.objects.create(judge=judge, prompt_version="v", status="error", kind="toy", unit_id=pair.pk)
    with pytest.raises(IntegrityError), transaction.atomic():
        LLMResult.objects.create(judge=judge, prompt_version="w", status="labelled", kind="toy", unit_id=pair.pk)
