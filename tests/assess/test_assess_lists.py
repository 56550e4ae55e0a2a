"""The runs and topics pages: searchable as the organizer types, and paginated (301 topics do not make one
11,000-pixel page)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.factories import RunFactory, TopicFactory

pytestmark = pytest.mark.django_db


def _topic_ids(html: str) -> list[str]:
    return re.findall(r'data-topic-id="([^"]+)"', html)


def test_the_topics_page_shows_fifty_topics_a_page_in_id_order(client, organizer):
    # given
    ids = [f"2024-{k:03d}" for k in range(120)]
    for topic_id in reversed(ids):
        TopicFactory(topic_id=topic_id)
    client.force_login(organizer)

    # when
    first = client.get(reverse("assess:topics")).content.decode()
    last = client.get(reverse("assess:topics"), {"page": 3}).content.decode()
    beyond = client.get(reverse("assess:topics"), {"page": "999"}).content.decode()
    bogus = client.get(reverse("assess:topics"), {"page": "zzz"})

    # then
    assert _topic_ids(first) == ids[:50]
    assert "120 topics" in first
    assert "page 1 of 3" in first
    assert _topic_ids(last) == ids[100:]
    assert _topic_ids(beyond) == ids[100:]  # past the end: the last page
    assert bogus.status_code == 200
    assert _topic_ids(bogus.content.decode()) == ids[:50]


def test_the_topics_page_finds_topics_by_id_or_text_and_keeps_the_search_across_pages(client, organizer):
    # given
    TopicFactory(topic_id="2024-1", text="why is the sky blue")
    TopicFactory(topic_id="2024-2", text="how do bees dance")
    TopicFactory(topic_id="2024-30", text="Sky diving for beginners")
    client.force_login(organizer)

    # when
    by_text = client.get(reverse("assess:topics"), {"q": "sky"}).content.decode()
    by_id = client.get(reverse("assess:topics"), {"q": "2024-2"}).content.decode()
    none = client.get(reverse("assess:topics"), {"q": "volcano"}).content.decode()

    # then
    assert _topic_ids(by_text) == ["2024-1", "2024-30"]
    assert "2 topics matching “sky”" in by_text
    assert _topic_ids(by_id) == ["2024-2"]
    assert "No topic matches “volcano”." in none


def test_typing_in_the_search_box_swaps_only_the_list(client, organizer):
    TopicFactory(topic_id="2024-1", text="why is the sky blue")
    client.force_login(organizer)

    response = client.get(reverse("assess:topics"), {"q": "sky"}, HTTP_HX_REQUEST="true")

    html = response.content.decode()
    assert html.lstrip().startswith('<div id="list">')
    assert "<html" not in html
    assert _topic_ids(html) == ["2024-1"]


def test_the_runs_page_finds_runs_by_id_or_group_and_pages_them(client, organizer):
    # given
    for k in range(55):
        RunFactory(run_id=f"teamA.run{k:02d}", group="teamA")
    RunFactory(run_id="other.x", group="webis")
    client.force_login(organizer)

    # when
    page1 = client.get(reverse("assess:runs")).content.decode()
    team = client.get(reverse("assess:runs"), {"q": "webis"}).content.decode()
    page2 = client.get(reverse("assess:runs"), {"q": "teama", "page": 2}).content.decode()

    # then
    assert len(re.findall(r'data-run-id="', page1)) == 50
    assert "56 runs" in page1
    assert re.findall(r'data-run-id="([^"]+)"', team) == ["other.x"]
    assert re.findall(r'data-run-id="([^"]+)"', page2) == [f"teamA.run{k:02d}" for k in range(50, 55)]
    assert "q=teama&amp;page=1" in page2  # the pager keeps the search
