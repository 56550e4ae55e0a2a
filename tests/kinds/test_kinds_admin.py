"""The admin lists the kinds' rows (read-only: no add, change or delete), as judging's judgments are."""

from __future__ import annotations

import uuid

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from judging.models import Assignment, Condition
from judging.services import assessor_judge
from kinds.relevance.models import RelevanceItem, RelevanceJudgment, RelevanceSettings
from kinds.sentence.models import SentenceItem, SentenceJudgment
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
    answer_build,
)

pytestmark = pytest.mark.django_db

MODELS = [SentenceItem, SentenceJudgment, RelevanceSettings, RelevanceItem, RelevanceJudgment]


def _rows() -> None:
    """One row of each model: a sentence campaign's item and judgment, a relevance campaign's."""
    topic = TopicFactory()
    run = RunFactory()
    passage = PassageFactory()
    answer = answer_build(run=run, topic=topic, sentences=[("Marius opened the legions to the poor.", [passage])])
    sentence = answer.sentences.get()
    user = UserFactory(username="alice")
    judge = assessor_judge(user=user)
    sentences = CampaignFactory(name="s", kind="sentence")
    SentenceItem.objects.create(campaign=sentences, topic=topic, sentence=sentence, position=1)
    SentenceJudgment.objects.create(judge=judge, sentence=sentence, campaign=sentences, worthy=True, combined="PS")
    relevance = CampaignFactory(name="r", kind="relevance")
    RelevanceSettings.objects.create(campaign=relevance, pool="qrels", pool_source="umbrela")
    item = RelevanceItem.objects.create(campaign=relevance, topic=topic, passage=passage, position=1)
    assignment: Assignment = AssignmentFactory(
        campaign=relevance, assessor=user, topic=topic, condition=Condition.POST_EDIT
    )
    RelevanceJudgment.objects.create(
        judge=judge,
        item=item,
        assignment=assignment,
        condition=Condition.POST_EDIT,
        grade=2,
        shown_grade=3,
        changed=True,
        submission_token=uuid.uuid4(),
    )


def test_each_kind_model_has_a_read_only_list_and_view_page():
    _rows()
    client = Client()
    client.force_login(UserFactory(username="boss", is_staff=True, is_superuser=True))
    for model in MODELS:
        assert admin.site.is_registered(model), model.__name__
        meta = model._meta
        listed = client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
        assert listed.status_code == 200, model.__name__
        row = model.objects.get()
        page = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[row.pk])
        assert page in listed.content.decode(), model.__name__
        viewed = client.get(page)
        assert viewed.status_code == 200, model.__name__
        assert 'name="_save"' not in viewed.content.decode(), model.__name__
        assert "deletelink" not in viewed.content.decode(), model.__name__
        added = client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_add"))
        assert added.status_code == 403, model.__name__
