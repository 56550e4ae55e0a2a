"""The mechanism with the registered kinds (sentence, relevance): judging's URL leads to each kind's card, the
campaign page includes each kind's panel, a relevance campaign is created by judging's own command with the
kind's build options (the pool of UMBRELA's qrels of three topics: one item per (topic, passage) of the file),
and the LLM pre-labeller grades a relevance pool with UMBRELA's prompt through the same job and cache."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from assess.models import Relevance, Topic
from judging import build
from judging.llm import jobs, services
from judging.llm.models import LLMResult, PrelabelJob, Provider
from judging.models import Campaign
from kinds.relevance.models import RelevanceItem
from kinds.sentence.models import SentenceJudgment
from tests.factories import (
    AnswerFactory,
    AssignmentFactory,
    OrganizerFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
    answer_build,
)
from tests.kinds.relevance.conftest import TOPICS, umbrela_loaded  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def _campaign(kind: str, name: str) -> Campaign:
    return Campaign.objects.create(name=name, kind=kind)


@pytest.mark.parametrize("kind", ["sentence", "relevance"])
def test_judgings_url_leads_to_the_kinds_card_and_its_page_shows_its_panel(client, kind: str) -> None:
    campaign = _campaign(kind, f"{kind}-1")
    alice = UserFactory(username="alice")
    assignment = AssignmentFactory(campaign=campaign, assessor=alice)
    client.force_login(alice)
    response = client.get(reverse("judging:judge", args=[assignment.pk]))
    assert response.status_code == 302
    assert response["Location"] == f"/kinds/{kind}/judge/{assignment.pk}/"
    queue = client.get(reverse("judging:queue")).content.decode()
    assert f'href="/kinds/{kind}/judge/{assignment.pk}/"' in queue

    client.force_login(OrganizerFactory(username="org"))
    page = client.get(reverse("judging:campaign", args=[campaign.pk])).content.decode()
    assert f'id="{kind}-panel"' in page
    assert 'id="deliverables"' not in page
    assert 'id="campaign-kind"' in page


def test_a_relevance_campaign_from_umbrelas_qrels_by_judgings_command(umbrela_loaded, client) -> None:  # noqa: F811
    # when: judging's command, with the kind's build options
    out = io.StringIO()
    call_command(
        "campaign_create", "rel", "--topics", *TOPICS, "--kind", "relevance",
        "--option", "pool=qrels", "--option", "source=umbrela", stdout=out,
    )  # fmt: skip
    # then: one item per (topic, passage) of the file's three topics
    campaign = Campaign.objects.get(name="rel")
    items = set(RelevanceItem.objects.filter(campaign=campaign).values_list("topic__topic_id", "passage__passage_id"))
    assert items == set(umbrela_loaded)
    assert len(items) == 66
    assert "66 items" in out.getvalue()
    # and a rebuild from the page without options keeps the pool; its form shows the pool it was built from
    client.force_login(OrganizerFactory(username="org"))
    page = client.get(reverse("judging:campaign", args=[campaign.pk])).content.decode()
    assert '<option value="qrels" selected>' in page
    assert 'name="source" value="umbrela"' in page
    client.post(reverse("judging:campaign_build", args=[campaign.pk]), {"pool": "", "source": "", "depth": ""})
    assert RelevanceItem.objects.filter(campaign=campaign).count() == 66
    # and a qrels pool without its source is refused, nothing created
    with pytest.raises(build.CampaignNotCreated, match="a qrels pool needs its source"):
        build.campaign_create_and_build(
            name="rel-2",
            runs=[],
            topics=list(Topic.objects.filter(topic_id__in=TOPICS)),
            kind="relevance",
            build_options={"pool": "qrels"},
        )
    assert not Campaign.objects.filter(name="rel-2").exists()


def test_the_llm_pre_labeller_grades_a_relevance_pool_with_umbrelas_prompt(
    fake_openai, llm_fast, django_capture_on_commit_callbacks
) -> None:
    # given: a references pool (the runs' top 2) of passages the fake server grades by their marker
    topic = TopicFactory(topic_id="2024-1")
    passages = [PassageFactory(text=f"Passage {i} [{m}] about the moon.") for i, m in enumerate(["FS", "PS", "NS"])]
    run = RunFactory(run_id="a")
    AnswerFactory(run=run, topic=topic, references=[p.passage_id for p in passages])
    campaign, summary = build.campaign_create_and_build(
        name="rel", runs=[run], topics=[topic], kind="relevance", build_options={"pool": "references", "depth": 3}
    )
    assert summary["items"] == 3
    llm = services.llm_judge_create(
        name="gpt-umbrela", provider=Provider.COMPATIBLE, base_url=fake_openai.base_url, model="gpt-4o"
    )
    # when
    with django_capture_on_commit_callbacks(execute=True):
        jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)
    with django_capture_on_commit_callbacks(execute=True):
        jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)  # again: nothing left to call
    # then: each item graded once, stored by the kind as the judge's source
    first, second = PrelabelJob.objects.order_by("pk")
    assert (first.status, first.total, second.total) == ("done", 3, 0)
    assert fake_openai.chat_calls == 3
    results = LLMResult.objects.filter(judge=llm.judge, kind="relevance")
    assert sorted(r.unit_label for r in results) == [0, 1, 3]
    grades = dict(Relevance.objects.filter(source="gpt-umbrela").values_list("passage_id", "grade"))
    assert grades == {passages[0].passage_id: 3, passages[1].passage_id: 1, passages[2].passage_id: 0}


def test_the_llm_pre_labeller_labels_a_sentence_pool_with_the_combined_support_prompt(
    fake_openai, llm_fast, django_capture_on_commit_callbacks
) -> None:
    # given: a sentence campaign whose sentences the fake server answers by their marker
    topic = TopicFactory(topic_id="2024-2")
    run = RunFactory(run_id="s")
    p = [PassageFactory() for _ in range(2)]
    answer_build(
        run=run,
        topic=topic,
        sentences=[
            ("Marius opened the legions [FS].", [p[0], p[1]]),
            ("Hello there [NW].", []),
            ("Soldiers got land [NS].", []),
            ("The state paid for arms [NS].", [p[1]]),
        ],
    )
    campaign, _ = build.campaign_create_and_build(name="sent", runs=[run], topics=[topic], kind="sentence")
    llm = services.llm_judge_create(
        name="gpt-sent", provider=Provider.COMPATIBLE, base_url=fake_openai.base_url, model="gpt-4o"
    )
    # when: pre-labelled twice (the second has nothing left to call)
    with django_capture_on_commit_callbacks(execute=True):
        jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)
    with django_capture_on_commit_callbacks(execute=True):
        jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)
    # then: each sentence called once, its two steps stored as the LLM judge's sentence labels
    first, second = PrelabelJob.objects.order_by("pk")
    assert (first.status, first.total, second.total) == ("done", 4, 0)
    assert fake_openai.chat_calls == 4
    stored = dict(
        SentenceJudgment.objects.filter(judge=llm.judge, condition="").values_list("sentence__text", "worthy")
    )
    combined = dict(
        SentenceJudgment.objects.filter(judge=llm.judge, condition="").values_list("sentence__text", "combined")
    )
    assert stored == {
        "Marius opened the legions [FS].": True,
        "Hello there [NW].": False,
        "Soldiers got land [NS].": True,
        "The state paid for arms [NS].": True,
    }
    assert combined == {
        "Marius opened the legions [FS].": "FS",
        "Hello there [NW].": "",
        "Soldiers got land [NS].": "",
        "The state paid for arms [NS].": "NS",
    }
