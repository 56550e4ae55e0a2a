"""The PRELABEL object k26's pre-labeller reads (units, messages, parse, store: an LLM judge's grades become the
Relevance source of its name) and the relevance demo (UMBRELA's pairs of the demo topics, both conditions)."""

from __future__ import annotations

import io

import pytest

from assess.models import Relevance
from judging.kinds import kind_get
from judging.models import Assignment, JudgeKind
from judging.services import judge_get_or_create
from kinds.relevance.models import RelevanceItem
from tests.factories import TopicFactory, UserFactory
from tests.kinds.relevance.conftest import QRELS, qrels_of

pytestmark = pytest.mark.django_db


def test_prelabel_stores_an_llm_judges_grades_as_its_source(relevance_campaign):
    prelabel = kind_get("relevance").extras["prelabel"]
    units = prelabel.units(relevance_campaign)
    assert len(units) == 66
    messages = prelabel.messages(units[:2])
    item = RelevanceItem.objects.select_related("topic", "passage").get(pk=units[0])
    assert item.passage.text in messages[units[0]][0]["content"]
    assert prelabel.parse("##final score: 3") == 3
    judge = judge_get_or_create(name="gpt-4o-umbrela", kind=JudgeKind.LLM)
    assert prelabel.store(judge, {units[0]: 3, units[1]: 0}) == 2
    assert prelabel.store(judge, {units[0]: 1}) == 1  # a second run replaces the grade
    grades = dict(Relevance.objects.filter(source="gpt-4o-umbrela").values_list("passage_id", "grade"))
    assert grades[item.passage.passage_id] == 1
    assert len(grades) == 2
    with pytest.raises(ValueError, match="out of 0-3"):
        prelabel.store(judge, {units[0]: 5})


def test_demo_campaign(data_dir, settings):
    from kinds.relevance import demo

    settings.ASSESS_DATA_DIR = str(data_dir)
    for topic_id in demo.DEMO_TOPICS:
        TopicFactory(topic_id=topic_id)
    for username, _ in (demo.ASSESSOR, demo.EDITOR):
        UserFactory(username=username)
    out = io.StringIO()
    demo.load(out)
    expected = qrels_of(data_dir / QRELS, demo.DEMO_TOPICS)
    campaign = RelevanceItem.objects.first().campaign
    assert RelevanceItem.objects.filter(campaign=campaign).count() == len(expected) == 225
    conditions = sorted(set(Assignment.objects.filter(campaign=campaign).values_list("condition", flat=True)))
    assert conditions == ["from_scratch", "post_edit"]
    demo.load(out)
    assert "already exists" in out.getvalue()
