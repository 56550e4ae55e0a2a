"""Each kind's default guidelines: a new campaign starts with its kind's own (support's text says a sentence's need
for a citation is not asked, which a sentence card asks first), the create form's untouched text follows the chosen
kind, and a kind's card page shows the campaign's guidelines."""

from __future__ import annotations

import pytest
from django.urls import reverse

from judging import build
from judging.guidelines import DEFAULT_GUIDELINES
from judging.models import Campaign, Condition
from judging.services import assignments_create
from kinds.relevance.guidelines import GUIDELINES as RELEVANCE_GUIDELINES
from kinds.sentence.guidelines import GUIDELINES as SENTENCE_GUIDELINES
from tests.factories import OrganizerFactory, PassageFactory, RunFactory, TopicFactory, UserFactory, answer_build

pytestmark = pytest.mark.django_db


def _material() -> tuple[list, list]:
    topic = TopicFactory(topic_id="2024-7")
    run = RunFactory(run_id="r")
    answer_build(run=run, topic=topic, sentences=[("Marius reformed the army.", [PassageFactory()])])
    return [run], [topic]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("support", DEFAULT_GUIDELINES), ("sentence", SENTENCE_GUIDELINES), ("relevance", RELEVANCE_GUIDELINES)],
)
def test_a_new_campaign_starts_with_its_kinds_guidelines(kind: str, expected: str) -> None:
    runs, topics = _material()
    options = {"pool": "references"} if kind == "relevance" else {}
    campaign, _ = build.campaign_create_and_build(
        name=f"g-{kind}", runs=runs, topics=topics, kind=kind, build_options=options
    )
    assert campaign.guidelines == expected


def test_the_forms_untouched_text_follows_the_chosen_kind_and_an_edited_one_is_kept(client) -> None:
    runs, topics = _material()
    client.force_login(OrganizerFactory(username="org"))
    form = {"runs": [r.pk for r in runs], "topics": [t.pk for t in topics], "depth": "1", "kind": "sentence"}
    # when: the text area as the browser sends it back untouched (CRLF line ends), then an edited one
    client.post(
        reverse("judging:campaigns"), {**form, "name": "s1", "guidelines": DEFAULT_GUIDELINES.replace("\n", "\r\n")}
    )
    client.post(reverse("judging:campaigns"), {**form, "name": "s2", "guidelines": "Judge each sentence with care."})
    client.post(
        reverse("judging:campaigns"), {**form, "kind": "support", "name": "p1", "guidelines": DEFAULT_GUIDELINES}
    )
    # then
    assert Campaign.objects.get(name="s1").guidelines == SENTENCE_GUIDELINES
    assert Campaign.objects.get(name="s2").guidelines == "Judge each sentence with care."
    assert Campaign.objects.get(name="p1").guidelines == DEFAULT_GUIDELINES


def test_a_kinds_card_page_shows_the_campaigns_guidelines(client) -> None:
    runs, topics = _material()
    campaign, _ = build.campaign_create_and_build(name="g", runs=runs, topics=topics, kind="sentence")
    alice = UserFactory(username="alice")
    assignment = assignments_create(campaign=campaign, assessor=alice, topics=topics, condition=Condition.FROM_SCRATCH)[
        0
    ]
    client.force_login(alice)
    page = client.get(reverse("kind_sentence:judge", args=[assignment.pk])).content.decode()
    assert 'id="kind-guidelines"' in page
    assert "Step 1: does the sentence need a citation?" in page
