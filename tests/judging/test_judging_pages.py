"""The judging page (htmx) and the organizer's campaign pages, through Django's test client."""

from __future__ import annotations

import pytest
from django.test import Client

from judging import queue, selectors, services
from judging.highlight import highlight_evidence
from judging.models import Campaign, Condition, JudgeKind, Judgment
from tests.factories import (
    JudgeFactory,
    OrganizerFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
    answer_build,
    judging_campaign_build,
)


@pytest.fixture
def judging(db):
    campaign = judging_campaign_build(n_sentences=3, passages_per_topic=3)
    alice = UserFactory(username="alice")
    assignment = services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )[0]
    client = Client()
    client.force_login(alice)
    return {"campaign": campaign, "assignment": assignment, "client": client}


def test_it_shows_the_sentence_in_bold_inside_its_answer_and_the_whole_passage(judging):
    card = queue.queue_state(assignment=judging["assignment"]).card

    html = judging["client"].get(f"/judge/{judging['assignment'].pk}/").content.decode()

    assert f'<strong class="judged-sentence">{card.sentence_text}</strong>' in html
    assert "Claim 0 about the topic." in html
    assert "Claim 2 about the topic." in html
    assert card.passage.text in html
    assert card.passage.title in html


def test_it_answers_a_htmx_submit_with_the_next_card_only(judging):
    a = judging["assignment"]
    card = queue.queue_state(assignment=a).card

    response = judging["client"].post(
        f"/judge/{a.pk}/submit/",
        {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "PS", "seconds": "4.5"},
        headers={"HX-Request": "true"},
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="pair-card"')
    assert "1 / 3" in html
    assert card.token not in html
    assert Judgment.objects.get().seconds == 4.5


def test_it_answers_a_repeated_submit_with_the_same_next_pair(judging):
    a = judging["assignment"]
    card = queue.queue_state(assignment=a).card
    data = {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "PS"}

    first = judging["client"].post(f"/judge/{a.pk}/submit/", data, headers={"HX-Request": "true"})
    second = judging["client"].post(f"/judge/{a.pk}/submit/", data, headers={"HX-Request": "true"})

    assert _csrf_free(first.content.decode()) == _csrf_free(second.content.decode())
    assert Judgment.objects.count() == 1


def _csrf_free(html: str) -> str:
    import re

    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def test_it_redirects_a_submit_without_javascript_back_to_the_page(judging):
    a = judging["assignment"]
    card = queue.queue_state(assignment=a).card

    response = judging["client"].post(
        f"/judge/{a.pk}/submit/", {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "NS"}
    )

    assert response.status_code == 302
    assert response["Location"] == f"/judge/{a.pk}/"


def test_it_answers_409_to_a_forged_token(judging):
    a = judging["assignment"]
    card = queue.queue_state(assignment=a).card

    response = judging["client"].post(
        f"/judge/{a.pk}/submit/",
        {"pair_id": card.campaign_pair.pair_id, "token": "00000000-0000-4000-8000-000000000000", "label": "NS"},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 409
    assert not Judgment.objects.exists()


def test_it_shows_the_topic_finished_screen_with_the_next_topic(judging):
    a = judging["assignment"]
    other_topic = TopicFactory()
    answer_build(run=RunFactory(), topic=other_topic, sentences=[("x", [PassageFactory()])])
    a.campaign.topics.add(other_topic)
    nxt = services.assignments_create(
        campaign=a.campaign, assessor=a.assessor, topics=[other_topic], condition=Condition.FROM_SCRATCH
    )[0]
    for _ in range(3):
        card = queue.queue_state(assignment=a).card
        services.judgment_submit(assignment=a, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid)

    html = judging["client"].get(f"/judge/{a.pk}/").content.decode()

    assert f"Topic {a.topic.topic_id} finished" in html
    assert f'href="/judge/{nxt.pk}/"' in html


def test_it_stores_a_flag_with_its_comment_and_lists_it_for_the_organizer(judging):
    a = judging["assignment"]
    card = queue.queue_state(assignment=a).card
    judging["client"].post(
        f"/judge/{a.pk}/submit/",
        {
            "pair_id": card.campaign_pair.pair_id,
            "token": card.token,
            "label": "NS",
            "flagged": "on",
            "comment": "passage is cut off",
        },
    )
    organizer = Client()
    organizer.force_login(OrganizerFactory(username="org"))

    html = organizer.get(f"/organize/campaigns/{a.campaign_id}/").content.decode()

    judgment = Judgment.objects.get()
    assert judgment.flagged
    assert judgment.comment == "passage is cut off"
    assert "passage is cut off" in html


def test_it_lists_the_assessors_assignments_on_the_start_page(judging):
    html = judging["client"].get("/judge/").content.decode()

    assert judging["assignment"].topic.topic_id in html
    assert f'href="/judge/{judging["assignment"].pk}/"' in html


def test_it_sends_an_assessor_from_home_to_the_queue(judging):
    response = judging["client"].get("/")

    assert response["Location"] == "/judge/"


def test_it_creates_and_builds_a_campaign_from_the_organizer_page(db):
    # given
    topic = TopicFactory()
    passage = PassageFactory()
    answer_build(run=RunFactory(), topic=topic, sentences=[("Same.", [passage]), ("Other.", [passage])])
    answer_build(run=RunFactory(), topic=topic, sentences=[("Same.", [passage])])
    client = Client()
    client.force_login(OrganizerFactory(username="org"))

    # when
    response = client.post(
        "/organize/campaigns/",
        {"name": "c1", "all_runs": "on", "topics": [topic.pk], "depth": 1, "guidelines": "Read carefully."},
        follow=True,
    )

    # then
    campaign = Campaign.objects.get(name="c1")
    assert response.status_code == 200
    assert campaign.build_summary["citations_kept"] == 3
    assert campaign.build_summary["pairs"] == 2
    assert campaign.build_summary["judgments_saved"] == 1
    assert "Built 2 pairs from 3 citations (1 judgments saved by deduplication)." in response.content.decode()


def test_it_says_which_passages_have_no_text_when_the_build_stops(db):
    topic = TopicFactory()
    bare = PassageFactory(passage_id="msmarco_v2.1_doc_99_1#0_1", text="", has_text=False)
    answer_build(run=RunFactory(), topic=topic, sentences=[("A claim.", [bare])])
    client = Client()
    client.force_login(OrganizerFactory(username="org"))

    response = client.post(
        "/organize/campaigns/", {"name": "c2", "all_runs": "on", "topics": [topic.pk], "depth": 1}, follow=True
    )

    page = response.content.decode()
    assert "nothing created: 1 cited passages have no text: msmarco_v2.1_doc_99_1#0_1" in page
    assert "Leave out pairs whose passage has no text" in page
    assert not Campaign.objects.filter(name="c2").exists()


def test_it_creates_the_campaign_leaving_out_passages_without_text_when_asked(db):
    topic = TopicFactory()
    bare = PassageFactory(passage_id="msmarco_v2.1_doc_99_1#0_1", text="", has_text=False)
    answer_build(run=RunFactory(), topic=topic, sentences=[("A claim.", [bare]), ("Another.", [PassageFactory()])])
    client = Client()
    client.force_login(OrganizerFactory(username="org"))

    client.post(
        "/organize/campaigns/",
        {"name": "c2", "all_runs": "on", "topics": [topic.pk], "depth": 1, "allow_missing_text": "on"},
    )

    summary = Campaign.objects.get(name="c2").build_summary
    assert (summary["pairs"], summary["citations_left_out"]) == (1, 1)


def test_it_assigns_topics_from_the_organizer_page(judging):
    bob = UserFactory(username="bob")
    client = Client()
    client.force_login(OrganizerFactory(username="org"))
    campaign = judging["campaign"]
    campaign.post_edit_judge = JudgeFactory(name="gpt-post-edit", kind=JudgeKind.LLM)
    campaign.save()

    client.post(
        f"/organize/campaigns/{campaign.pk}/assign/",
        {"assessor": bob.pk, "topics": [t.pk for t in campaign.topics.all()], "condition": "post_edit"},
    )

    assert list(bob.assignments.values_list("condition", flat=True)) == ["post_edit"]


def test_it_highlights_shared_words_and_escapes_the_passage():
    html = highlight_evidence(
        "In 1968 the <b>war</b> cost the US economy $77 billion & more.", "The war cost the economy a lot in 1968."
    )

    assert "&lt;b&gt;<mark>war</mark>&lt;/b&gt;" in html
    assert "<mark>cost the US economy</mark>" not in html
    assert "<mark>cost the</mark>" in html
    assert "<mark>In 1968</mark>" in html
    assert "US <mark>economy</mark>" in html
    assert "&amp;" in html
    assert "<b>" not in html


def test_it_shows_the_highlight_only_when_the_campaign_turns_it_on(judging):
    campaign = judging["campaign"]
    url = f"/judge/{judging['assignment'].pk}/"
    passage = queue.queue_state(assignment=judging["assignment"]).card.passage
    passage.text = "A text on the topic."
    passage.save()
    off = judging["client"].get(url).content.decode()

    campaign.highlight_evidence = True
    campaign.save()
    on = judging["client"].get(url).content.decode()

    assert "<mark>" not in off
    assert "on <mark>the topic</mark>." in on


def test_it_shows_progress_per_assignment_and_the_median_seconds_to_the_organizer(judging):
    # given three judgments of 2, 4 and 9 seconds
    a = judging["assignment"]
    for seconds in (2.0, 9.0, 4.0):
        card = queue.queue_state(assignment=a).card
        services.judgment_submit(
            assignment=a, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid, seconds=seconds
        )
    organizer = Client()
    organizer.force_login(OrganizerFactory(username="org"))

    # when
    html = organizer.get(f"/organize/campaigns/{a.campaign_id}/").content.decode()
    figures = selectors.campaign_figures(campaign=a.campaign)

    # then
    assert figures.median_seconds == 4.0
    assert [n for _, n in figures.per_hour] == [3]
    assert "<b>4.0 s</b> median per judgment" in html
    assert '<td class="num">3 / 3</td>' in html


@pytest.mark.parametrize("model", ["judge", "campaign", "assignment", "judgment"])
def test_it_lists_judging_rows_in_the_admin(judging, model):
    admin = Client()
    admin.force_login(OrganizerFactory(username="root", is_superuser=True))

    response = admin.get(f"/admin/judging/{model}/")

    assert response.status_code == 200
