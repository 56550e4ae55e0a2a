"""The disagreement study in Chromium: an independent assessor re-judges the sample blind with the keyboard,
topic after topic, and the organizer's report counts the adjudications."""

from __future__ import annotations

import pytest

from judging.models import Judgment
from metrics.study.models import StudyItem
from metrics.study.services import study_assign, study_create
from tests.conftest import browser_login
from tests.factories import OrganizerFactory, UserFactory, study_campaign_build, study_labels_seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _token(page) -> str:
    return page.get_attribute("#pair-card", "data-token") or ""


def _ready(page) -> None:
    # judge.js ignores keys while a request is in flight (body[data-judge=busy]).
    page.wait_for_selector("body[data-judge=ready]", state="attached")


def _press_and_wait(page, key: str) -> None:
    before = _token(page)
    _ready(page)
    page.keyboard.press(key)
    page.wait_for_function(
        "t => { const c = document.getElementById('pair-card'); return c && c.dataset.token !== t; }", arg=before
    )


def test_an_adjudicator_rejudges_the_sample_blind_by_keyboard(live_server, page):
    # given a study of 4 + 3 sampled disagreements, assigned to carol
    campaign = study_campaign_build(pairs_per_topic=(20, 5))
    study_labels_seed(campaign, human="nist", llm="gpt-study")
    study = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=4, seed=7)
    carol = UserFactory(username="carol")
    assignments = study_assign(study=study, assessor=carol)
    expected = {
        a.pk: list(
            StudyItem.objects.filter(study=study, topic=a.topic).order_by("order").values_list("pair_id", flat=True)
        )
        for a in assignments
    }
    browser_login(page, live_server, "carol")

    # when carol starts from her assignments page and judges every pair with the keyboard
    page.wait_for_selector("#start:focus")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    served: dict[int, list[int]] = {}
    keys = iter(["1", "2", "3", "n", "p", "f", "1"])
    for assignment in assignments:
        page.wait_for_selector("#pair-card[data-state=pair]")
        assert page.url.endswith(f"/judge/{assignment.pk}/")
        assert "Adjudication" in page.inner_text(".judge-head")
        served[assignment.pk] = []
        while page.get_attribute("#pair-card", "data-state") == "pair":
            # then, on every card: no label of either judge, nothing pre-selected
            assert page.locator(".llm-label").count() == 0
            assert page.locator(".preselected").count() == 0
            html = page.content()
            assert "gpt-study" not in html
            assert "nist" not in html
            served[assignment.pk].append(int(page.get_attribute("input[name=pair_id]", "value")))
            _press_and_wait(page, next(keys))
        assert "finished" in page.inner_text("#pair-card")
        _ready(page)
        with page.expect_navigation():
            page.keyboard.press("Enter")

    # then the pairs came in the study's shuffled order, and each was stored once as an adjudication
    assert served == expected
    rows = list(Judgment.objects.filter(judge__user=carol).order_by("pk").values_list("condition", "label"))
    assert [c for c, _ in rows] == ["adjudication"] * 7
    assert [label for _, label in rows] == ["FS", "PS", "NS", "NS", "PS", "FS", "FS"]

    # ... and the organizer's report counts them
    OrganizerFactory(username="olga")
    page.context.clear_cookies()
    browser_login(page, live_server, "olga")
    page.goto(f"{live_server.url}/metrics/studies/{study.pk}/")
    assert page.inner_text("#study-adjudicated") == "7"
    assert page.locator("#study-distribution svg .bar").count() == 3 * 3
