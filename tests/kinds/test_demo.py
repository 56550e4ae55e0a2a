"""The demo (demo_load) holds one campaign of each registered kind, each with its accounts' assignments and a
card page that opens; a second load changes nothing. The relevance post-edit card shows UMBRELA's grade and the
from-scratch card of the same passage shows none (blindness: the whole HTML is searched)."""

from __future__ import annotations

import io
import re

import pytest
from django.apps import apps
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from assess.models import Relevance
from judging.kinds import kind_get, kinds_registered
from judging.models import Assignment, Campaign
from kinds.management.commands.demo_load import kind_demos
from kinds.relevance.models import RelevanceItem

pytestmark = pytest.mark.usefixtures("fresh_cache")

# Who judges what in each kind's demo campaign (README "The demo accounts"). The sentence kind has no post-edit:
# the data holds no LLM sentence labels to show (kinds/sentence/demo.py). Each account has both demo topics.
EXPECTED = {
    "support": {"assessor": "from_scratch", "editor": "post_edit", "adjudicator": "adjudication"},
    "sentence": {"assessor": "from_scratch"},
    "relevance": {"assessor": "from_scratch", "editor": "post_edit"},
}


def _rows() -> dict[str, int]:
    """How many rows each project model holds: what a second load must leave alone."""
    return {
        m._meta.label: m.objects.count()
        for m in apps.get_models()
        if m._meta.app_label.split("_")[0] in {"assess", "judging", "metrics", "llm", "kind", "study"}
    }


@pytest.mark.django_db(transaction=True)
def test_the_demo_holds_a_campaign_of_each_kind_with_its_assignments_and_a_second_load_changes_nothing():
    # given
    out = io.StringIO()
    call_command("demo_load", stdout=out)
    first = out.getvalue()

    # then: one campaign of each registered kind, its assignments as the README says, each card page opens
    assert set(EXPECTED) == {k.name for k in kinds_registered()}
    assert [k.name for k, _ in kind_demos()] == ["sentence", "relevance"]
    for kind in kinds_registered():
        campaign = Campaign.objects.get(kind=kind.name)
        assigned = dict(
            Assignment.objects.filter(campaign=campaign)
            .values_list("assessor__username", "condition")
            .distinct()
            .order_by()
        )
        assert assigned == EXPECTED[kind.name], kind.name
        assert Assignment.objects.filter(campaign=campaign).count() == 2 * len(EXPECTED[kind.name])
        for assignment in Assignment.objects.filter(campaign=campaign).select_related("assessor"):
            client = Client()
            client.force_login(assignment.assessor)
            response = client.get(reverse(kind.judge_url, args=[assignment.pk]))
            assert response.status_code == 200, (kind.name, assignment.condition)
    assert "campaign 'demo-sentence': 848 sentences" in first
    assert "no post-edit assignment: the data holds no LLM sentence labels" in first
    assert "campaign 'demo-relevance': 225 (topic, passage) items" in first

    # when: loaded again
    rows = _rows()
    again = io.StringIO()
    call_command("demo_load", stdout=again)

    # then: nothing changed, and it says so part by part
    assert _rows() == rows
    assert "demo campaign 'demo-sentence' already exists" in again.getvalue()
    assert "demo campaign 'demo-relevance' already exists" in again.getvalue()
    assert "demo ready" in again.getvalue()


def _card(assignment: Assignment) -> str:
    client = Client()
    client.force_login(assignment.assessor)
    response = client.get(reverse(kind_get("relevance").judge_url, args=[assignment.pk]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_demo_relevance_post_edit_card_shows_umbrelas_grade_and_the_from_scratch_card_none():
    # given
    call_command("demo_load", stdout=io.StringIO())
    campaign = Campaign.objects.get(kind="relevance")
    topic = campaign.topics.order_by("topic_id").first()
    mine = Assignment.objects.filter(campaign=campaign, topic=topic).select_related("assessor")
    item = RelevanceItem.objects.filter(campaign=campaign, topic=topic).order_by("position").first()
    grade = Relevance.objects.get(source="umbrela", topic_id=topic.topic_id, passage_id=item.passage.passage_id).grade

    # when: the first card of the topic, under each condition (both start on the same passage)
    post_edit = _card(mine.get(condition="post_edit"))
    from_scratch = _card(mine.get(condition="from_scratch"))

    # then
    assert item.passage.passage_id in post_edit
    assert item.passage.passage_id in from_scratch
    assert f'data-shown-grade="{grade}"' in post_edit
    assert re.search(rf'data-value="{grade}"[^>]*data-preselected', post_edit)
    assert "umbrela graded this passage" in post_edit
    for shown in ("data-shown-grade", "data-preselected", "graded this passage", "umbrela"):
        assert shown not in from_scratch.lower(), shown
