"""A post-edit sentence card whose post-edit judge has no label for the sentence says so and pre-selects nothing
(the demo leaves the sentence campaign's post-edit out for this reason: the data holds no LLM sentence labels);
a from-scratch card never carries that notice, nor the Enter-keeps key help."""

from __future__ import annotations

import pytest
from django.urls import reverse

from kinds.sentence.models import SentenceJudgment

pytestmark = pytest.mark.django_db

NO_LABEL = "The post-edit judge has no label for this sentence"


def test_a_post_edit_card_without_a_label_says_so_and_pre_selects_nothing(client, sentence_campaign):
    # given: the LLM judge's labels gone
    c = sentence_campaign
    SentenceJudgment.objects.filter(judge=c.llm).delete()
    client.force_login(c.user)

    # when
    post_edit = client.get(reverse("kind_sentence:judge", args=[c.post_edit.pk])).content.decode()
    from_scratch = client.get(reverse("kind_sentence:judge", args=[c.scratch.pk])).content.decode()

    # then
    assert NO_LABEL in post_edit
    assert "data-preselected" not in post_edit
    assert "keeps the pre-selected" in post_edit
    assert NO_LABEL not in from_scratch
    assert "keeps the pre-selected" not in from_scratch


def test_a_post_edit_card_with_a_label_shows_it_without_the_notice(client, sentence_campaign):
    c = sentence_campaign
    client.force_login(c.user)
    post_edit = client.get(reverse("kind_sentence:judge", args=[c.post_edit.pk])).content.decode()
    assert NO_LABEL not in post_edit
    assert "data-preselected" in post_edit
