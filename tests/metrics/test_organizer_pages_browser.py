"""The organizer pages in Chromium (issue 24): no horizontal overflow at 1024x768 and 1366x768 on the
dashboard, study, budget and My judgments pages with real-length ids; a form sent back with errors shows its
first error on screen with the cursor in its field; the base-URL field is as wide as the others; reloading
the address of a rejected judgment import is the form again, not a 405. Screenshots under /tmp/h24c-shots."""

from __future__ import annotations

from pathlib import Path

import pytest

from judging import queue, services
from judging.models import Condition
from metrics.budget import services as budget_services
from metrics.study import services as study_services
from tests.conftest import browser_login
from tests.factories import (
    CampaignFactory,
    OrganizerFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
    answer_build,
    study_labels_seed,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/tmp/h24c-shots")
OVERFLOW = "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
# Run ids of the track's length and shape: the longest have no break point but dots and underscores.
RUN_IDS = [
    "TREMA-UNH.Enhanced_Iterative_Fact_Refinement_and_Prioritization",
    "softbank-meisei.agtask-bm25-colbert_faiss-gpt4o-llama70b",
    "coordinators.baseline_frag_rag24.test_command-r-plus_top20",
]


def _world():
    """Campaign "autumn" on two topics answered by three long-named runs, citing real-length passage ids;
    NIST-style human labels and an LLM's on every pair, a disagreement study, a budget sample, and an assessor
    who judged three pairs from scratch."""
    from judging.build import campaign_build_pairs, campaign_create

    topics = [TopicFactory(topic_id="2024-129925"), TopicFactory(topic_id="2024-32912")]
    runs = [RunFactory(run_id=run_id, group=run_id.split(".")[0]) for run_id in RUN_IDS]
    for t, topic in enumerate(topics):
        passages = [
            PassageFactory(passage_id=f"msmarco_v2.1_doc_{t:02d}_10815796{i:02d}#7_22531751{i:02d}") for i in range(12)
        ]
        for run in runs:
            answer_build(
                run=run,
                topic=topic,
                sentences=[
                    (f"Claim {i} on {topic.topic_id}: a sentence of ordinary length about the topic.", [passages[i]])
                    for i in range(12)
                ],
            )
    campaign = campaign_create(name="autumn", runs=runs, topics=topics, depth=1, guidelines="")
    campaign_build_pairs(campaign=campaign)
    study_labels_seed(campaign, human="nist", llm="opus-4.8-nist", agree_every=3)
    study = study_services.study_create(campaign=campaign, a="nist/from_scratch", b="opus-4.8-nist", per_topic=8)
    sample = budget_services.budget_sample_draw(campaign=campaign, llm="opus-4.8-nist", share=0.5, seed=1)
    alice = UserFactory(username="alice")
    (assignment,) = services.assignments_create(
        campaign=campaign, assessor=alice, topics=topics[:1], condition=Condition.FROM_SCRATCH
    )
    for _ in range(3):
        card = queue.queue_state(assignment=assignment).card
        services.judgment_submit(
            assignment=assignment, pair_id=card.campaign_pair.pair_id, label="PS", token=card.token_uuid
        )
    OrganizerFactory(username="olga")
    return {"study": study, "sample": sample, "assignment": assignment}


@pytest.mark.parametrize("width", [1024, 1366])
def test_the_organizer_and_my_judgments_pages_fit_the_window(live_server, page, width):
    # given
    world = _world()
    SHOTS.mkdir(exist_ok=True)
    organizer_pages = {
        "dashboard": "/metrics/?campaign=autumn&a=nist&b=opus-4.8-nist",
        "study": f"/metrics/studies/{world['study'].pk}/",
        "budget": f"/metrics/budget/{world['sample'].pk}/",
        "campaigns": "/organize/campaigns/",
    }
    measured = {}
    page.set_default_timeout(60_000)
    page.set_viewport_size({"width": width, "height": 768})

    # when each page is opened at this width
    for username, pages in (
        ("olga", organizer_pages),
        ("alice", {"my-judgments": f"/judge/{world['assignment'].pk}/judged/"}),
    ):
        browser_login(page, live_server, username)
        for name, path in pages.items():
            response = page.goto(f"{live_server.url}{path}")
            assert response.status == 200, (name, response.status)
            measured[name] = page.evaluate(OVERFLOW)
            page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
        with page.expect_navigation():
            page.click("form.logout button")

    # then no page is wider than the window
    assert {name: sw for name, (sw, cw) in measured.items() if sw > cw} == {}
    assert set(measured) == {*organizer_pages, "my-judgments"}


def test_a_form_sent_back_with_errors_shows_the_error_and_puts_the_cursor_in_its_field(live_server, page):
    # given: enough campaigns that the new-campaign form starts below the fold
    for k in range(14):
        CampaignFactory(name=f"campaign-{k:02d}")
    TopicFactory(topic_id="2024-1")
    OrganizerFactory(username="olga")
    page.set_viewport_size({"width": 1366, "height": 768})
    page.set_default_timeout(60_000)
    browser_login(page, live_server, "olga")
    page.goto(f"{live_server.url}/organize/campaigns/")

    # when the form is sent without a name
    page.fill("#id_name", "")
    page.eval_on_selector("#new-campaign form", "f => f.noValidate = true")
    with page.expect_navigation():
        page.click("#campaign-create")

    # then the first error is on screen and the cursor is in the field it names
    error = page.locator("#new-campaign .errorlist").first
    box = error.bounding_box()
    assert box is not None
    assert 0 <= box["y"] <= 768 - box["height"], box
    focused = page.evaluate("document.activeElement && document.activeElement.getAttribute('aria-invalid')")
    assert focused == "true"
    page.screenshot(path=str(SHOTS / "form-error.png"))


def test_the_base_url_field_is_as_wide_as_the_model_field(live_server, page):
    # given
    OrganizerFactory(username="olga")
    page.set_viewport_size({"width": 1024, "height": 768})
    page.set_default_timeout(60_000)
    browser_login(page, live_server, "olga")

    # when
    page.goto(f"{live_server.url}/organize/llm-judges/")

    # then
    base_url = page.locator("input[name=base_url]").bounding_box()
    model = page.locator("input[name=model]").bounding_box()
    assert base_url["width"] >= 300
    assert abs(base_url["width"] - model["width"]) < 2


def test_reloading_a_rejected_judgment_import_shows_the_form_not_a_405(live_server, page, tmp_path):
    # given: an import the page rejects
    OrganizerFactory(username="olga")
    page.set_default_timeout(60_000)
    browser_login(page, live_server, "olga")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"topic_id": "2024-32912"}\n')
    page.goto(f"{live_server.url}/judgments/import/")
    page.set_input_files("input[name=uploads]", str(bad))
    page.select_option("select[name=format]", "exchange")
    page.fill("input[name=judge]", "carol")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "Judgment import rejected" in page.content()

    # when the organizer opens the address again (a reload without resending the file)
    response = page.goto(page.url)

    # then
    assert response.status == 200
    assert page.locator("h1").inner_text() == "Import judgments"
    assert page.locator("input[name=uploads]").count() == 1
