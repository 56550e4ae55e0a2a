"""The sentence card through its views (issue 26, point 2): two steps, both conditions, once per token, the
blindness of a from-scratch card and the labels a post-edit card shows and records."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from judging.models import AssignmentStatus
from kinds.sentence.models import SentenceItem, SentenceJudgment

pytestmark = pytest.mark.django_db


def _sentence_on(html: str) -> int:
    found = re.search(r'name="sentence" value="(\d+)"', html)
    assert found, html
    return int(found.group(1))


def _submit(client: Any, assignment: Any, sentence: int, worthy: str, label: str = "", token: str = "") -> Any:
    url = reverse("kind_sentence:submit", args=[assignment.pk])
    data = {"sentence": sentence, "worthy": worthy, "label": label, "token": token or str(uuid.uuid4()), "seconds": "4"}
    return client.post(url, data, HTTP_HX_REQUEST="true")


def test_the_pool_holds_every_sentence_uncited_ones_too(sentence_campaign):
    # then: 2 runs x 3 sentences, in run then sentence order
    items = list(SentenceItem.objects.filter(campaign=sentence_campaign.campaign).order_by("position"))
    assert [i.sentence_id for i in items] == [s.pk for s in sentence_campaign.sentences]
    assert sentence_campaign.campaign.build_summary["sentences_uncited"] == 2


def test_from_scratch_judges_both_steps_and_stores_each_answer(client, sentence_campaign):
    # given
    c = sentence_campaign
    client.force_login(c.user)
    page = client.get(reverse("kind_sentence:judge", args=[c.scratch.pk])).content.decode()
    first = _sentence_on(page)

    # when: y then 3 on the first; n on the second; y on the uncited third
    second = _sentence_on(_submit(client, c.scratch, first, "1", "FS").content.decode())
    third_card = _submit(client, c.scratch, second, "0").content.decode()
    third = _sentence_on(third_card)
    response = _submit(client, c.scratch, third, "1")

    # then
    assert response.status_code == 200
    stored = list(SentenceJudgment.objects.filter(assignment=c.scratch).order_by("pk"))
    assert [(j.sentence_id, j.worthy, j.combined) for j in stored] == [
        (c.sentences[0].pk, True, "FS"),
        (c.sentences[1].pk, False, ""),
        (c.sentences[2].pk, True, ""),
    ]
    assert all(j.shown_worthy is None and j.changed is None and j.condition == "from_scratch" for j in stored)
    assert "needs a citation but has none" in third_card
    assert 'data-step="2"' not in third_card
    assert "Every sentence" not in response.content.decode()


def test_a_resent_answer_is_stored_once(client, sentence_campaign):
    c = sentence_campaign
    client.force_login(c.user)
    token = str(uuid.uuid4())
    for _ in range(2):
        assert _submit(client, c.scratch, c.sentences[0].pk, "1", "PS", token=token).status_code == 200
    assert SentenceJudgment.objects.filter(submission_token=token).count() == 1


@pytest.mark.parametrize(
    ("index", "worthy", "label", "reason"),
    [
        (0, "1", "", "takes FS, PS or NS"),
        (1, "0", "FS", "needs no citation takes no combined"),
        (2, "1", "PS", "has no citation"),
        (0, "maybe", "", "worthy"),
        (0, "1", "XX", "one of FS, PS, NS"),
    ],
)
def test_a_bad_answer_is_a_400_naming_why(client, sentence_campaign, index, worthy, label, reason):
    c = sentence_campaign
    client.force_login(c.user)
    response = _submit(client, c.scratch, c.sentences[index].pk, worthy, label)
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert not SentenceJudgment.objects.filter(assignment=c.scratch).exists()


def test_another_assessors_assignment_is_a_404(client, sentence_campaign):
    from tests.factories import UserFactory

    client.force_login(UserFactory(username="mallory"))
    assert client.get(reverse("kind_sentence:judge", args=[sentence_campaign.scratch.pk])).status_code == 404
    assert _submit(client, sentence_campaign.scratch, sentence_campaign.sentences[0].pk, "0").status_code == 404


def test_a_from_scratch_card_never_shows_the_llm_labels(client, sentence_campaign):
    # given: the LLM said PS of the first sentence
    c = sentence_campaign
    client.force_login(c.user)

    # when
    html = client.get(reverse("kind_sentence:judge", args=[c.scratch.pk])).content.decode()

    # then: nothing of it anywhere in the HTML, and nothing pre-selected
    assert "Partial support" in html  # the button's title is there ...
    assert "data-preselected" not in html
    assert "LLM" not in html
    assert c.llm.name not in html
    assert 'name="worthy" value=""' in html
    assert 'name="label" value=""' in html


def test_a_post_edit_card_shows_the_llm_labels_and_records_the_change(client, sentence_campaign):
    # given
    c = sentence_campaign
    client.force_login(c.user)

    # when
    html = client.get(reverse("kind_sentence:judge", args=[c.post_edit.pk])).content.decode()
    _submit(client, c.post_edit, c.sentences[0].pk, "1", "PS")  # keeps the LLM's labels
    _submit(client, c.post_edit, c.sentences[1].pk, "1", "PS")  # changes FS to PS

    # then
    assert "LLM labels, pre-selected" in html
    assert re.search(r'data-preselected data-key="y"', html)
    assert re.search(r'choice-PS" data-preselected data-key="2"', html)
    kept, changed = SentenceJudgment.objects.filter(assignment=c.post_edit).order_by("pk")
    assert (kept.shown_worthy, kept.shown_combined, kept.changed) == (True, "PS", False)
    assert (changed.shown_combined, changed.changed) == ("FS", True)


def test_the_last_answer_closes_the_assignment(client, sentence_campaign):
    c = sentence_campaign
    client.force_login(c.user)
    for s in c.sentences:
        _submit(client, c.scratch, s.pk, "0")
    c.scratch.refresh_from_db()
    assert c.scratch.status == AssignmentStatus.DONE
    html = client.get(reverse("kind_sentence:judge", args=[c.scratch.pk])).content.decode()
    assert "Every sentence of this topic is judged" in html


def test_the_database_refuses_a_combined_label_on_a_sentence_that_needs_no_citation(sentence_campaign):
    c = sentence_campaign
    for combined, worthy in (("FS", False), ("XX", True)):
        with pytest.raises(IntegrityError), transaction.atomic():
            SentenceJudgment.objects.create(judge=c.llm, sentence=c.sentences[0], worthy=worthy, combined=combined)


def test_an_assignment_of_another_kind_is_a_404(client, sentence_campaign):
    from tests.factories import AssignmentFactory, CampaignFactory

    other = AssignmentFactory(campaign=CampaignFactory(kind="support"), assessor=sentence_campaign.user)
    client.force_login(sentence_campaign.user)
    assert client.get(reverse("kind_sentence:judge", args=[other.pk])).status_code == 404
    assert _submit(client, other, sentence_campaign.sentences[0].pk, "0").status_code == 404


def _normal(html: str) -> str:
    """The page without what changes on every load: the card's token and the CSRF token."""
    html = re.sub(r'name="token" value="[^"]*"', "", html)
    return re.sub(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]*"', "", html)


def test_a_from_scratch_card_and_its_submit_answer_are_the_same_with_or_without_llm_labels(client, sentence_campaign):
    # given
    c = sentence_campaign
    client.force_login(c.user)
    url = reverse("kind_sentence:judge", args=[c.scratch.pk])
    with_labels = _normal(client.get(url).content.decode())
    answer_with = _submit(client, c.scratch, c.sentences[0].pk, "1", "FS").content.decode()
    SentenceJudgment.objects.filter(assignment=c.scratch).delete()

    # when: the LLM's labels gone
    SentenceJudgment.objects.filter(judge=c.llm).delete()
    without = _normal(client.get(url).content.decode())
    answer_without = _submit(client, c.scratch, c.sentences[0].pk, "1", "FS").content.decode()

    # then
    assert with_labels == without
    assert _normal(answer_with) == _normal(answer_without)
    assert "data-preselected" not in answer_with


def test_a_passage_without_text_stops_the_build_unless_told_to_leave_its_sentences_out(sentence_campaign):
    from assess.models import Passage
    from judging.build import CampaignBuildError
    from kinds.sentence.kind import KIND

    # given: the second sentence's only passage has no text
    c = sentence_campaign
    Passage.objects.filter(citations__sentence=c.sentences[1]).update(has_text=False, text="")

    # when / then
    with pytest.raises(CampaignBuildError, match="1 cited passages have no text"):
        KIND.build(c.campaign)
    summary = KIND.build(c.campaign, allow_missing_text=True)
    assert summary["sentences_left_out"] == 2  # the same passage is cited by both runs' second sentences
    kept = set(SentenceItem.objects.filter(campaign=c.campaign).values_list("sentence_id", flat=True))
    assert c.sentences[1].pk not in kept
    assert c.sentences[2].pk in kept


def test_post_edit_can_show_an_imported_sources_labels(client, sentence_campaign):
    # given: the campaign post-edits NIST's imported sentence labels (from scratch), not an LLM's
    from judging.models import NistSentence
    from tests.factories import JudgeFactory

    c = sentence_campaign
    nist = JudgeFactory(name="nist")
    NistSentence.objects.create(
        judge=nist, condition="from_scratch", sentence=c.sentences[0], keys="sentenceId",
        verification_worthy="1", citations_combined="0",
    )  # fmt: skip
    c.campaign.post_edit_judge = nist
    c.campaign.save()
    client.force_login(c.user)

    # when
    html = client.get(reverse("kind_sentence:judge", args=[c.post_edit.pk])).content.decode()

    # then: NS pre-selected
    assert re.search(r'choice-NS" data-preselected data-key="1"', html)
