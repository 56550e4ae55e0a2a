"""The relevance card by the Django test client: submit (once per token), the grade post-editing shows and
whether it changed, the guards, and blindness: a from-scratch card and its responses never hold a grade of the
post-edit source (the whole HTML is the same whatever UMBRELA said)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from assess.models import Relevance, Topic
from judging.services import assignments_create
from kinds.relevance.models import RelevanceItem, RelevanceJudgment
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
TOPIC = "2024-25003"  # 9 pairs


@pytest.fixture
def assignments(relevance_campaign):
    topic = Topic.objects.get(topic_id=TOPIC)
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    scratch = assignments_create(campaign=relevance_campaign, assessor=alice, topics=[topic], condition="from_scratch")[
        0
    ]
    edit = assignments_create(campaign=relevance_campaign, assessor=bob, topics=[topic], condition="post_edit")[0]
    return scratch, edit


def _card(client, assignment):
    response = client.get(reverse("kind_relevance:judge", args=[assignment.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _fields(html):
    return {k: re.search(rf'name="{k}" value="([^"]*)"', html).group(1) for k in ("token", "item")}


def _submit(client, assignment, html, grade, seconds="3.5"):
    data = {**_fields(html), "grade": str(grade), "seconds": seconds}
    return client.post(reverse("kind_relevance:submit", args=[assignment.pk]), data)


def _without_tokens(html):
    html = re.sub(r'"X-CSRFToken": "[^"]*"', "", html)
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    return re.sub(r'value="[0-9a-f-]{36}"', 'value="TOKEN"', html)


def test_from_scratch_card_is_blind(client, assignments):
    scratch, _ = assignments
    client.force_login(scratch.assessor)
    html = _card(client, scratch)
    item = RelevanceItem.objects.get(pk=_fields(html)["item"])
    assert item.passage.text in html
    assert "umbrela" not in html.lower()
    assert "data-shown-grade" not in html
    assert "preselected" not in html
    # Every UMBRELA grade of the topic moved by one: the from-scratch card does not change at all.
    for row in Relevance.objects.filter(source="umbrela", topic_id=TOPIC):
        Relevance.objects.filter(pk=row.pk).update(grade=(row.grade + 1) % 4)
    assert _without_tokens(_card(client, scratch)) == _without_tokens(html)
    response = _submit(client, scratch, html, 2)
    body = response.content.decode()
    assert response.status_code == 200
    assert "umbrela" not in body.lower()
    assert "data-shown-grade" not in body
    stored = RelevanceJudgment.objects.get()
    assert (stored.grade, stored.shown_grade, stored.changed, stored.condition) == (2, None, None, "from_scratch")
    assert stored.seconds == 3.5


def test_post_edit_shows_umbrela_preselected_and_records_the_change(client, assignments):
    _, edit = assignments
    client.force_login(edit.assessor)
    html = _card(client, edit)
    item = RelevanceItem.objects.get(pk=_fields(html)["item"])
    umbrela = Relevance.objects.get(source="umbrela", topic_id=TOPIC, passage_id=item.passage.passage_id).grade
    assert f'data-shown-grade="{umbrela}"' in html
    assert re.search(rf'data-value="{umbrela}" data-submit data-preselected', html)
    body = _submit(client, edit, html, umbrela).content.decode()  # kept
    other = (umbrela + 1) % 4
    second = RelevanceItem.objects.get(pk=_fields(body)["item"])
    shown_second = Relevance.objects.get(source="umbrela", topic_id=TOPIC, passage_id=second.passage.passage_id).grade
    _submit(client, edit, body, (shown_second + 1) % 4)  # changed
    first, then = RelevanceJudgment.objects.order_by("pk")
    assert (first.grade, first.shown_grade, first.changed) == (umbrela, umbrela, False)
    assert (then.grade, then.shown_grade, then.changed) == ((shown_second + 1) % 4, shown_second, True)
    assert other != umbrela


def test_a_resent_submit_is_stored_once(client, assignments):
    scratch, _ = assignments
    client.force_login(scratch.assessor)
    html = _card(client, scratch)
    assert _submit(client, scratch, html, 1).status_code == 200
    assert _submit(client, scratch, html, 1).status_code == 200
    assert RelevanceJudgment.objects.count() == 1


def test_bad_answers_are_400_with_a_reason(client, assignments):
    scratch, _ = assignments
    client.force_login(scratch.assessor)
    html = _card(client, scratch)
    response = _submit(client, scratch, html, 7)
    assert response.status_code == 400
    assert b"unknown grade" in response.content
    fields = {**_fields(html), "token": "00000000-0000-4000-8000-000000000000", "grade": "1"}
    response = client.post(reverse("kind_relevance:submit", args=[scratch.pk]), fields)
    assert response.status_code == 400
    assert b"unknown submission token" in response.content
    assert _submit(client, scratch, html, 1, seconds="-1").status_code == 400
    assert client.post(reverse("kind_relevance:submit", args=[scratch.pk]), {"grade": "x"}).status_code == 400
    assert RelevanceJudgment.objects.count() == 0


def test_another_assessors_assignment_is_404(client, assignments):
    scratch, edit = assignments
    client.force_login(scratch.assessor)
    assert client.get(reverse("kind_relevance:judge", args=[edit.pk])).status_code == 404
    html = _card(client, scratch)
    assert client.post(reverse("kind_relevance:submit", args=[edit.pk]), _fields(html)).status_code == 404


def test_grading_every_item_ends_with_the_done_card(client, assignments):
    scratch, _ = assignments
    client.force_login(scratch.assessor)
    html = _card(client, scratch)
    for _ in range(9):
        html = _submit(client, scratch, html, 0).content.decode()
    assert "data-done" in html
    assert "9 of 9" in html
    scratch.refresh_from_db()
    assert scratch.status == "done"
