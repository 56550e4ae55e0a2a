"""The guidelines: Markdown rendered safely, shown over the first card until the assessor has read them (a
GuidelinesReading row), shown again when they change, and on `g` in Chromium."""

from __future__ import annotations

import pytest
from django.test import Client

from judging import services
from judging.guidelines import DEFAULT_GUIDELINES, guidelines_html
from judging.models import Condition, GuidelinesReading, Judgment
from tests.conftest import browser_login
from tests.factories import UserFactory, judging_campaign_build


def _assigned(guidelines: str = DEFAULT_GUIDELINES, username: str = "alice"):
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=2, guidelines=guidelines)
    user = UserFactory(username=username)
    (assignment,) = services.assignments_create(
        campaign=campaign, assessor=user, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    return campaign, user, assignment


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- rendering ------------------------------------------------------------------------------------


def test_it_renders_the_default_guidelines_as_headings_a_table_and_worked_examples():
    html = guidelines_html(DEFAULT_GUIDELINES)

    assert "<h2>What you are judging</h2>" in html
    assert "<table>" in html
    assert "<td><strong>Partial support</strong></td>" in html
    for heading in ("<h3>Full support</h3>", "<h3>Partial support</h3>", "<h3>No support</h3>"):
        assert heading in html
    assert html.count("<strong>Sentence:</strong>") == 4
    assert html.count("<strong>Passage:</strong>") == 5


def test_it_shows_html_in_the_guidelines_as_text_and_drops_script_links():
    html = guidelines_html(
        '<script>alert("x")</script>\n\n<img src=x onerror=alert(1)> [bad](javascript:alert(1)) [good](https://trec.nist.gov)'
    )

    assert "<script" not in html
    assert "<img" not in html
    assert "&lt;script&gt;" in html
    assert 'href="javascript' not in html
    assert '<a href="https://trec.nist.gov" target="_blank" rel="noopener noreferrer">good</a>' in html


# --- shown once at the start (test client) ---------------------------------------------------------


@pytest.mark.django_db
def test_it_opens_the_guidelines_over_the_first_card_until_they_are_read():
    campaign, user, assignment = _assigned()
    client = _client(user)

    first = client.get(f"/judge/{assignment.pk}/").content.decode()
    assert 'class="guidelines-overlay open"' in first
    assert "<h2>What you are judging</h2>" in first
    assert 'id="guidelines-start"' in first

    # when: the start button, without JavaScript
    response = client.post(f"/judge/{assignment.pk}/guidelines-read/")

    # then: back to the card, the reading is stored, and the guidelines are closed (still on the page, for g)
    assert response.status_code == 302
    assert response["Location"] == f"/judge/{assignment.pk}/"
    assert GuidelinesReading.objects.filter(campaign=campaign, assessor=user).count() == 1
    again = client.get(f"/judge/{assignment.pk}/").content.decode()
    assert 'class="guidelines-overlay"' in again
    assert "<h2>What you are judging</h2>" in again
    assert 'id="guidelines-start"' not in again


@pytest.mark.django_db
def test_it_shows_changed_guidelines_again_at_the_start():
    campaign, user, assignment = _assigned()
    client = _client(user)
    client.post(f"/judge/{assignment.pk}/guidelines-read/", headers={"HX-Request": "true"})

    services.campaign_update(
        campaign=campaign, guidelines="## New rule\n\nQuotes count.", post_edit_judge=None, highlight_evidence=False
    )

    html = client.get(f"/judge/{assignment.pk}/").content.decode()
    assert 'class="guidelines-overlay open"' in html
    assert "<h2>New rule</h2>" in html


@pytest.mark.django_db
def test_it_records_one_reading_per_assessor_and_campaign_and_none_for_another_assessor():
    _campaign, user, assignment = _assigned()
    client = _client(user)

    for _ in range(2):
        assert (
            client.post(f"/judge/{assignment.pk}/guidelines-read/", headers={"HX-Request": "true"}).status_code == 204
        )
    bob = UserFactory(username="bob")
    assert _client(bob).post(f"/judge/{assignment.pk}/guidelines-read/").status_code == 404

    assert list(GuidelinesReading.objects.values_list("assessor__username", flat=True)) == ["alice"]


@pytest.mark.django_db
def test_it_does_not_open_empty_guidelines_at_the_start():
    _, user, assignment = _assigned(guidelines="")

    html = _client(user).get(f"/judge/{assignment.pk}/").content.decode()

    assert 'class="guidelines-overlay"' in html
    assert "This campaign has no guidelines." in html


@pytest.mark.django_db
def test_it_keeps_the_overlay_out_of_the_card_swapped_in_after_a_keystroke():
    from judging import queue

    _, user, assignment = _assigned()
    card = queue.queue_state(assignment=assignment).card

    html = (
        _client(user)
        .post(
            f"/judge/{assignment.pk}/submit/",
            {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "FS"},
            headers={"HX-Request": "true"},
        )
        .content.decode()
    )

    assert html.lstrip().startswith('<section id="pair-card"')
    assert "guidelines-overlay" not in html


@pytest.mark.django_db
def test_it_previews_the_rendered_guidelines_on_the_campaign_page():
    from tests.factories import OrganizerFactory

    campaign, _, _ = _assigned(guidelines="## Quotes\n\n- a quote counts as **said**\n\n<b>raw</b>")

    html = _client(OrganizerFactory()).get(f"/organize/campaigns/{campaign.pk}/").content.decode()

    assert '<div class="guidelines-body"><h2>Quotes</h2>' in html
    assert "<li>a quote counts as <strong>said</strong></li>" in html
    assert "<p>&lt;b&gt;raw&lt;/b&gt;</p>" in html
    assert "<b>raw</b>" not in html


# --- in Chromium ------------------------------------------------------------------------------------


def _overlay_open(page) -> bool:
    return page.locator("#guidelines").is_visible()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_it_shows_the_guidelines_at_the_start_once_and_on_g_and_closes_them_with_esc(live_server, page):
    # given: an assessor who has not read the campaign's guidelines
    campaign, user, assignment = _assigned()
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, live_server, "alice")

    # when: the judging page opens
    page.goto(f"{live_server.url}/judge/{assignment.pk}/")
    page.wait_for_selector("body[data-judge=ready]", state="attached")

    # then: the guidelines are open over the card, fit the window, and scroll inside themselves
    assert _overlay_open(page)
    box = page.locator(".guidelines-box").bounding_box()
    assert box["y"] >= 0
    assert box["y"] + box["height"] <= 768
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 1366
    body = page.locator("#guidelines-body")
    assert body.evaluate("e => e.scrollHeight > e.clientHeight")
    page.keyboard.press("End")
    # the browser scrolls on a later frame: wait for it (a busy machine may take more than one)
    page.wait_for_function("() => document.getElementById('guidelines-body').scrollTop > 0", timeout=5000)
    assert page.evaluate("window.scrollY") == 0

    # and a judging key does nothing while they are open
    page.keyboard.press("1")
    page.wait_for_timeout(300)
    assert Judgment.objects.count() == 0

    # when: Esc closes them, the reading is stored
    page.keyboard.press("Escape")
    assert not _overlay_open(page)
    page.wait_for_function("() => document.getElementById('guidelines').dataset.start === 'false'")
    _wait_for(lambda: GuidelinesReading.objects.filter(campaign=campaign, assessor=user).exists())

    # and the keys judge again
    page.keyboard.press("1")
    page.wait_for_function("() => document.getElementById('topic-progress').textContent.trim().startsWith('1 /')")
    _wait_for(lambda: Judgment.objects.exists())  # sent from the outbox after the next card is shown
    assert list(Judgment.objects.values_list("label", flat=True)) == ["FS"]
    # and the held card's figures, rendered before that answer, are brought up to date by the server's copy
    page.wait_for_function("() => document.getElementById('judged-today').textContent.trim() === '1'")

    # when: the page is opened again, the guidelines stay closed
    page.reload()
    page.wait_for_selector("body[data-judge=ready]", state="attached")
    assert not _overlay_open(page)

    # and g opens them, Esc closes them, g opens and g closes them again
    page.keyboard.press("g")
    assert _overlay_open(page)
    page.keyboard.press("Escape")
    assert not _overlay_open(page)
    page.keyboard.press("g")
    assert _overlay_open(page)
    page.keyboard.press("g")
    assert not _overlay_open(page)
    assert GuidelinesReading.objects.count() == 1


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_it_types_g_in_the_flag_comment_without_opening_the_guidelines(live_server, page):
    _, _, assignment = _assigned(guidelines="## Rules\n\nRead them.")
    browser_login(page, live_server, "alice")
    page.goto(f"{live_server.url}/judge/{assignment.pk}/")
    page.wait_for_selector("body[data-judge=ready]", state="attached")
    page.keyboard.press("Escape")

    page.keyboard.press("x")
    page.keyboard.type("greg")

    assert page.locator("#flag-comment").input_value() == "greg"
    assert not _overlay_open(page)


def _wait_for(condition, timeout_s: float = 5.0) -> None:
    import time

    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not become true in time")
        time.sleep(0.05)
