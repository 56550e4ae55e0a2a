"""The judging card on a laptop screen, in Chromium: everything needed to answer is in view without scrolling,
the judged sentence is scrolled into view inside its answer, a repeated passage is said, a flag survives a
revisit and `x` undoes it."""

from __future__ import annotations

import pytest

from judging import services
from judging.build import campaign_build_pairs, campaign_create
from judging.models import CampaignPair, Condition, Judgment
from tests.conftest import browser_login
from tests.factories import (
    LLMJudgeFactory,
    PairJudgmentFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
    answer_build,
    judging_campaign_build,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = [(1366, 768), (1024, 768)]
LONG = "This sentence of a long answer says something that the cited passage may or may not support. " * 3


def _assign(campaign, condition=Condition.FROM_SCRATCH):
    alice = UserFactory(username="alice")
    return services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=condition
    )[0]


def _open(page, live_server, assignment, size):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    browser_login(page, live_server, "alice")
    page.goto(f"{live_server.url}/judge/{assignment.pk}/")
    page.wait_for_selector("body[data-judge=ready]", state="attached")


def _inside(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    viewport = page.viewport_size
    assert box is not None, selector
    return (
        box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= viewport["height"]
        and (box["x"] + box["width"] <= viewport["width"])
    )


def _long_answer_campaign():
    """One topic; 30 long uncited sentences, then the one cited sentence (the only pair), at the answer's end."""
    topic, run, passage = TopicFactory(), RunFactory(), PassageFactory(text="A long passage. " * 300)
    sentences = [(f"{k}. {LONG}", []) for k in range(30)] + [("The judged claim at the very end.", [passage])]
    answer_build(run=run, topic=topic, sentences=sentences)
    campaign = campaign_create(name="long", runs=[run], topics=[topic], depth=1, guidelines="")
    campaign_build_pairs(campaign=campaign)
    return campaign


@pytest.mark.parametrize("size", SCREENS)
def test_the_choices_and_the_llm_label_are_in_view_without_scrolling(live_server, page, size):
    # given: a post-edit assignment on a long answer and a long passage, every pair labelled by the LLM
    campaign = _long_answer_campaign()
    llm = LLMJudgeFactory()
    campaign.post_edit_judge = llm
    campaign.save()
    for cp in CampaignPair.objects.filter(campaign=campaign):
        PairJudgmentFactory(judge=llm, pair=cp.pair, label="NS")
    assignment = _assign(campaign, Condition.POST_EDIT)

    # when
    _open(page, live_server, assignment, size)

    # then: the page itself does not scroll; the topic, the three choices and the LLM label are on screen
    assert page.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
    assert _inside(page, ".judge-head h1")
    for label in ("FS", "PS", "NS"):
        assert _inside(page, f"button.choice-{label}")
    assert _inside(page, ".llm-label")
    assert "No support" in page.inner_text(".llm-label")
    # ... and the judged sentence, at the end of a long answer, is scrolled into view inside the answer's pane
    pane = page.locator("#answer-pane").bounding_box()
    sentence = page.locator(".judged-sentence").bounding_box()
    assert page.evaluate("document.getElementById('answer-pane').scrollTop") > 0
    assert pane["y"] <= sentence["y"]
    assert sentence["y"] + sentence["height"] <= pane["y"] + pane["height"]


def test_a_card_citing_the_previous_cards_passage_says_so(live_server, page):
    # given: twelve pairs, three per passage, in queue order (by passage)
    assignment = _assign(judging_campaign_build(n_sentences=12, passages_per_topic=4))
    _open(page, live_server, assignment, SCREENS[0])
    assert page.is_hidden("#same-passage")
    first = page.get_attribute("#passage-pane", "data-passage")

    # when
    token = page.get_attribute("#pair-card", "data-token")
    page.keyboard.press("1")
    page.wait_for_function("t => document.getElementById('pair-card').dataset.token !== t", arg=token)

    # then
    assert page.get_attribute("#passage-pane", "data-passage") == first
    assert page.is_visible("#same-passage")


def test_a_flag_is_shown_on_a_revisit_and_x_removes_it(live_server, page):
    # given: the first pair judged with a flag and a comment
    assignment = _assign(judging_campaign_build(n_sentences=4, passages_per_topic=4))
    _open(page, live_server, assignment, SCREENS[0])
    page.keyboard.press("x")
    page.keyboard.type("odd passage")
    page.keyboard.press("Escape")
    token = page.get_attribute("#pair-card", "data-token")
    page.keyboard.press("2")
    page.wait_for_function("t => document.getElementById('pair-card').dataset.token !== t", arg=token)
    page.wait_for_selector("body[data-judge=ready]", state="attached")

    # when: back to it
    token = page.get_attribute("#pair-card", "data-token")
    page.keyboard.press("u")
    page.wait_for_function("t => document.getElementById('pair-card').dataset.token !== t", arg=token)
    page.wait_for_selector("body[data-judge=ready]", state="attached")

    # then: the flag and the comment are as left, and x unticks the flag
    assert page.is_checked("#flag-box")
    assert page.input_value("#flag-comment") == "odd passage"
    page.keyboard.press("x")
    assert not page.is_checked("#flag-box")
    token = page.get_attribute("#pair-card", "data-token")
    page.keyboard.press("3")
    page.wait_for_function("t => document.getElementById('pair-card').dataset.token !== t", arg=token)
    page.wait_for_selector("body[data-judge=ready]", state="attached")  # every answer acknowledged
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("label", "flagged"))
    assert rows == [("PS", True), ("NS", False)]


def test_a_segment_without_a_title_shows_its_document_not_no_title(live_server, page):
    campaign = judging_campaign_build(n_sentences=1, passages_per_topic=1)
    cp = CampaignPair.objects.select_related("pair__passage").get(campaign=campaign)
    passage = cp.pair.passage
    passage.title, passage.url = "", ""
    passage.save(update_fields=["title", "url"])
    assignment = _assign(campaign)

    _open(page, live_server, assignment, SCREENS[0])

    assert "(no title)" not in page.inner_text("#pair-card")
    assert page.inner_text(".passage-title") == passage.passage_id.split("#", 1)[0]


def test_twenty_keys_typed_at_once_store_twenty_judgments_in_order(live_server, page):
    # given
    assignment = _assign(judging_campaign_build(n_sentences=24, passages_per_topic=4))
    _open(page, live_server, assignment, SCREENS[0])
    keys = ["1", "2", "3", "f", "p", "n", "3", "2", "1", "n"] * 2
    expected = {"1": "FS", "f": "FS", "2": "PS", "p": "PS", "3": "NS", "n": "NS"}

    # when: as fast as Playwright types, without waiting for a card between keys
    page.keyboard.type("".join(keys))
    page.wait_for_function("() => document.getElementById('topic-progress').textContent.startsWith('20 /')")
    page.wait_for_selector("body[data-judge=ready]", state="attached")

    # then: one judgment per key, in the order typed, each on the next pair of the queue
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("pair_id", "label"))
    assert [label for _, label in rows] == [expected[k] for k in keys]
    queue_order = list(
        CampaignPair.objects.filter(campaign=assignment.campaign).order_by("position").values_list("pair_id", flat=True)
    )
    assert [pair for pair, _ in rows] == queue_order[:20]
