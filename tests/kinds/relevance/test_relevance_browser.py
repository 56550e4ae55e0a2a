"""The relevance card judged by keys in Chromium, both conditions: several cards graded with 0-3 (and Enter
keeping UMBRELA's grade when post-editing), what is stored checked, screenshots at 1366x768 under /tmp/shots."""

from __future__ import annotations

from pathlib import Path

import pytest

from assess.models import Relevance, Topic
from judging.services import assignments_create
from kinds.relevance.models import RelevanceJudgment
from tests.conftest import browser_login
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp/shots")
TOPIC = "2024-25003"


def _ready(page, done: int) -> None:
    page.wait_for_function(
        f"document.querySelector('#kind-progress')?.dataset.done === '{done}' && "
        "document.body.getAttribute('data-kind-card') === 'ready'"
    )


def _no_horizontal_overflow(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


@pytest.mark.parametrize("condition", ["from_scratch", "post_edit"])
def test_grading_by_keys(live_server, page, relevance_campaign, condition):
    topic = Topic.objects.get(topic_id=TOPIC)
    user = UserFactory(username=f"u-{condition}")
    assignment = assignments_create(campaign=relevance_campaign, assessor=user, topics=[topic], condition=condition)[0]
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, live_server, user.username)
    page.goto(f"{live_server.url}/kinds/relevance/judge/{assignment.pk}/")
    _ready(page, 0)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"relevance-{condition}.png"))
    _no_horizontal_overflow(page)
    html = page.content()
    if condition == "from_scratch":
        assert "data-shown-grade" not in html
        assert "umbrela" not in html.lower()
    else:
        assert "data-shown-grade" in html
    keys = ["2", "0", "Enter" if condition == "post_edit" else "3", "1"]
    for n, key in enumerate(keys, start=1):
        page.keyboard.press(key)
        _ready(page, n)
        if condition == "from_scratch":
            assert "data-shown-grade" not in page.content()
    stored = list(RelevanceJudgment.objects.filter(assignment=assignment).order_by("pk"))
    assert len(stored) == 4
    umbrela = {
        p: g for p, g in Relevance.objects.filter(source="umbrela", topic_id=TOPIC).values_list("passage_id", "grade")
    }
    for key, judgment in zip(keys, stored, strict=True):
        shown = umbrela[judgment.item.passage.passage_id] if condition == "post_edit" else None
        grade = shown if key == "Enter" else int(key)
        assert (judgment.grade, judgment.shown_grade, judgment.condition) == (grade, shown, condition)
        assert judgment.changed == (None if shown is None else grade != shown)
        assert judgment.seconds is not None
        assert judgment.seconds >= 0


def test_report_panel_fits(live_server, page, relevance_campaign, data_dir):
    from assess.importers.qrels import relevance_import
    from tests.factories import OrganizerFactory
    from tests.kinds.relevance.conftest import NIST_QRELS

    relevance_import(files=[data_dir / NIST_QRELS], source="nist-qrels")
    OrganizerFactory(username="org")
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, live_server, "org")
    page.goto(f"{live_server.url}/kinds/relevance/campaigns/{relevance_campaign.pk}/report/?a=nist-qrels&b=umbrela")
    assert "Exact" in page.content()
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "relevance-report.png"))
    _no_horizontal_overflow(page)
