"""Hardening: request parameters bounded (core/pagination.py, core/middleware.py): no 500 on a huge
limit or a NUL byte. CSV safety and imported seconds: tests/judging/test_hardening.py."""

from __future__ import annotations

import pytest

from core.pagination import BoundedLimitOffsetPagination
from judging.services import assignments_create
from tests.factories import TopicFactory, UserFactory, judging_campaign_build

pytestmark = pytest.mark.usefixtures("fresh_cache")


@pytest.fixture
def staff_client(client, organizer):
    client.force_login(organizer)
    return client


# --- bounded request parameters ---------------------------------------------------------------------------

HUGE = "9" * 30
LISTS = ["/api/assignments/", "/api/topics/", "/api/campaigns/"]
NUL_URLS = [
    "/api/topics/%00/",
    "/api/runs/%00/",
    "/metrics/topics/%00/",
    "/metrics/studies/?campaign=%00",
    "/api/metrics/judgments/?labels=%00",
    "/api/topics/?limit=%00",
    "/api/metrics/judgments/?fmt=csv&judge=%00",
]


@pytest.fixture
def listed(db):
    """Two campaigns, two topics in the first, each assigned: every list has rows, so a limit reaches the
    database."""
    judging_campaign_build(n_sentences=1, name="other-campaign")
    campaign = judging_campaign_build(n_sentences=2)
    campaign.topics.add(TopicFactory())
    assignments_create(
        campaign=campaign,
        assessor=UserFactory(username="alice"),
        topics=campaign.topics.all(),
        condition="from_scratch",
    )
    return campaign


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize("param", ["limit", "offset"])
def test_a_thirty_digit_limit_or_offset_is_refused_with_400(listed, staff_client, url, param):
    # when
    response = staff_client.get(url, {param: HUGE})

    # then
    assert response.status_code == 400
    assert param in response.json()


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize(("param", "value"), [("limit", "-1"), ("limit", "0"), ("offset", "-1"), ("offset", "x")])
def test_a_negative_or_non_numeric_limit_or_offset_is_refused_with_400(listed, staff_client, url, param, value):
    assert staff_client.get(url, {param: value}).status_code == 400


@pytest.mark.parametrize("url", LISTS)
def test_a_limit_above_the_maximum_is_capped_to_it(listed, staff_client, monkeypatch, url):
    # given
    monkeypatch.setattr(BoundedLimitOffsetPagination, "max_limit", 1)

    # when
    response = staff_client.get(url, {"limit": 10_000})

    # then
    assert response.status_code == 200
    assert response.json()["count"] >= 2
    assert len(response.json()["results"]) == 1


@pytest.mark.parametrize("url", NUL_URLS)
def test_a_nul_byte_in_a_path_or_a_query_is_refused_with_400(db, staff_client, url):
    # when
    response = staff_client.get(url)

    # then
    assert response.status_code == 400
    assert "NUL" in response.content.decode()


def test_a_nul_byte_is_refused_before_login_too(db, client):
    assert client.get("/api/topics/%00/").status_code == 400
