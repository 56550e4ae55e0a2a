"""What the judging page's browser tests share: alice's from-scratch assignment, opening her page, the pair on
screen and the page's "every answer sent" state."""

from __future__ import annotations

from typing import Any

from judging import services
from judging.models import CampaignPair, Condition
from tests.conftest import browser_login
from tests.factories import UserFactory, judging_campaign_build


def alice_assignment(*, n_sentences: int, passages: int) -> Any:
    campaign = judging_campaign_build(n_sentences=n_sentences, passages_per_topic=passages)
    alice = UserFactory(username="alice")
    return services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )[0]


def queue_order(assignment: Any) -> list[int]:
    return list(
        CampaignPair.objects.filter(campaign=assignment.campaign).order_by("position").values_list("pair_id", flat=True)
    )


def open_judge_page(page: Any, live_server: Any, assignment: Any) -> None:
    # The live server's first request sets up its static files: slow on a busy machine, so given longer.
    page.goto(f"{live_server.url}/accounts/login/", timeout=90_000)
    browser_login(page, live_server, "alice")
    page.goto(f"{live_server.url}/judge/{assignment.pk}/")
    page.wait_for_selector("body[data-judge=ready]", state="attached")


def pair_on_screen(page: Any) -> int:
    return int(page.get_attribute("#pair-card input[name=pair_id]", "value"))


def wait_sent(page: Any, timeout: int) -> None:
    page.wait_for_selector("body[data-judge=ready]", state="attached", timeout=timeout)
