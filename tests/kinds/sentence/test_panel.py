"""The sentence campaign's panel (Kind.campaign_panel): per-run scores with intervals and the agreement of two
chosen label sets; organizers only; the export download."""

from __future__ import annotations

import json
import uuid

import pytest
from django.urls import reverse

from kinds.sentence.services import sentence_submit
from tests.factories import OrganizerFactory

pytestmark = pytest.mark.django_db
ALICE = [(True, "PS"), (True, "NS"), (False, ""), (False, ""), (True, "NS"), (True, "")]


@pytest.fixture
def judged(sentence_campaign):
    for s, (worthy, combined) in zip(sentence_campaign.sentences, ALICE, strict=True):
        sentence_submit(
            assignment=sentence_campaign.scratch, sentence_id=s.pk, worthy=worthy, combined=combined, token=uuid.uuid4()
        )
    return sentence_campaign


def test_the_panel_shows_scores_and_both_steps_agreement(client, judged):
    # given
    client.force_login(OrganizerFactory())
    url = reverse("kind_sentence:panel", args=[judged.campaign.pk])

    # when
    html = client.get(url, {"labels": "campaign:sentences/from_scratch", "b": "gpt-sentences/none"}).content.decode()

    # then
    assert "unit: sentence" in html
    assert "alpha.run" in html
    assert "beta.run" in html
    assert "Verification-worthy" in html
    assert "Combined support" in html
    assert "6 sentences both judged" in html
    assert "3 sentences both judged" in html
    assert "selected>campaign:sentences/from_scratch</option>" in html


def test_a_set_against_itself_shows_no_agreement_figure(client, judged):
    client.force_login(OrganizerFactory())
    url = reverse("kind_sentence:panel", args=[judged.campaign.pk])
    same = "campaign:sentences/from_scratch"
    html = client.get(url, {"labels": same, "a": same, "b": same}).content.decode()
    assert 'id="sentence-agreement-none"' in html
    assert "sentences both judged" not in html


def test_the_panel_and_export_are_for_organizers_only(client, judged):
    client.force_login(judged.user)
    assert client.get(reverse("kind_sentence:panel", args=[judged.campaign.pk])).status_code == 403
    assert client.get(reverse("kind_sentence:export", args=[judged.campaign.pk])).status_code == 403


def test_the_export_downloads_webassess_lines(client, judged):
    client.force_login(OrganizerFactory())
    url = reverse("kind_sentence:export", args=[judged.campaign.pk])
    response = client.get(url, {"labels": "campaign:sentences/from_scratch"})
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    rows = [json.loads(line) for line in response.content.decode().splitlines()]
    assert [r["run_id"] for r in rows] == ["alpha.run", "beta.run"]
    first = rows[0]["sentences"][0]
    assert (first["verification_worthy"], first["citationsCombibed"]) == ("1", "1")
    assert client.get(url, {"labels": "nobody"}).status_code == 400
