"""Blind re-judging in the disagreement study (DESIGN §3, §6): the adjudicator's queue is the topic's sample in
the seed's shuffled order, and no response reachable by the adjudicator depends on either judge's label."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from judging import queue, services
from judging.models import Assignment, CampaignPair, Condition, Judge, Judgment
from judging.pool import assignment_pending
from judging.tokens import submission_token
from metrics.study.models import StudyItem
from metrics.study.services import StudyError, study_assign, study_create
from tests.factories import JudgmentFactory, UserFactory, study_campaign_build, study_labels_seed

CSRF = re.compile(r'(csrfmiddlewaretoken" value="|X-CSRFToken": ")[^"]+')
HUMAN_NAME, LLM_NAME = "nist-probe", "llm-probe"


@pytest.fixture
def world(db):
    campaign = study_campaign_build(pairs_per_topic=(20, 5))
    study_labels_seed(campaign, human=HUMAN_NAME, llm=LLM_NAME)
    study = study_create(campaign=campaign, a=HUMAN_NAME, b=LLM_NAME, per_topic=6, seed=11)
    carol = UserFactory(username="carol")
    assignments = study_assign(study=study, assessor=carol)
    client = Client()
    client.force_login(carol)
    return {"campaign": campaign, "study": study, "carol": carol, "assignments": assignments, "client": client}


def _reachable(client: Client, assignment: Assignment, study) -> dict[str, str]:
    a = assignment.pk
    return {
        "queue page": client.get("/judge/").content.decode(),
        "judging page": client.get(f"/judge/{a}/").content.decode(),
        "card (htmx)": client.get(f"/judge/{a}/", headers={"HX-Request": "true"}).content.decode(),
        "back": client.get(f"/judge/{a}/back/").content.decode(),
        "api assignments": client.get("/api/assignments/").content.decode(),
        "api assignment": client.get(f"/api/assignments/{a}/").content.decode(),
        "api next": client.get(f"/api/assignments/{a}/next/").content.decode(),
        "api judgments": client.get("/api/judgments/").content.decode(),
        "study page": client.get(f"/metrics/studies/{study.pk}/").content.decode(),
        "study csv": client.get(f"/metrics/studies/{study.pk}/export.csv").content.decode(),
        "api study": client.get(f"/api/studies/{study.pk}/").content.decode(),
        "api studies": client.get("/api/studies/").content.decode(),
    }


def _normal(text: str) -> str:
    return CSRF.sub(r"\1-", text)


def _flip_every_label(world) -> None:
    """Change what both judges said on every sampled pair: the frozen labels and newer judgments alike."""
    for item in StudyItem.objects.filter(study=world["study"]):
        item.label_a, item.label_b = item.label_b, item.label_a
        item.save()
        JudgmentFactory(judge=Judge.objects.get(name=LLM_NAME), pair=item.pair, citation=None, label="NS")
        JudgmentFactory(judge=Judge.objects.get(name=HUMAN_NAME), pair=item.pair, citation=item.citation, label="PS")


def test_it_serves_the_adjudicator_the_same_responses_whatever_the_two_judges_said(world):
    # given
    client, assignment = world["client"], world["assignments"][0]
    before = _reachable(client, assignment, world["study"])
    # when
    _flip_every_label(world)
    after = _reachable(client, assignment, world["study"])
    # then
    for name in before:
        assert _normal(after[name]) == _normal(before[name]), name


def test_it_names_neither_judge_nor_shows_a_label_to_the_adjudicator(world):
    # given
    client, assignment = world["client"], world["assignments"][0]
    # when
    seen = _reachable(client, assignment, world["study"])
    nxt = client.get(f"/api/assignments/{assignment.pk}/next/").json()
    # then
    for name, text in seen.items():
        assert HUMAN_NAME not in text, name
        assert LLM_NAME not in text, name
        assert "LLM label" not in text, name
        assert "preselected" not in text, name
    assert "shown_label" not in nxt["pair"]
    assert nxt["condition"] == "adjudication"


def test_it_keeps_the_study_pages_and_api_from_the_adjudicator(world):
    client, study = world["client"], world["study"]
    assert client.get(f"/metrics/studies/{study.pk}/").status_code == 403
    assert client.get("/metrics/studies/").status_code == 403
    assert client.get(f"/api/studies/{study.pk}/").status_code == 403
    assert client.get(f"/api/studies/{study.pk}/?fmt=csv").status_code == 403


def test_it_queues_only_the_topics_sample_in_the_studys_shuffled_order(world):
    # given
    assignment = world["assignments"][0]
    expected = list(
        StudyItem.objects.filter(study=world["study"], topic=assignment.topic)
        .order_by("order")
        .values_list("pair_id", flat=True)
    )
    # when the adjudicator judges through the API until the topic is finished
    client, served = world["client"], []
    while True:
        nxt = client.get(f"/api/assignments/{assignment.pk}/next/").json()
        if nxt["finished"]:
            break
        served.append(nxt["pair"]["pair_id"])
        response = client.post(
            f"/api/assignments/{assignment.pk}/submit/",
            {"pair_id": nxt["pair"]["pair_id"], "token": nxt["pair"]["token"], "label": "PS"},
            content_type="application/json",
        )
        assert response.status_code == 201
    # then
    assignment.refresh_from_db()
    assert served == expected
    assert len(served) == 6
    assert CampaignPair.objects.filter(campaign=world["campaign"], topic=assignment.topic).count() == 20
    assert assignment.status == "done"
    assert set(Judgment.objects.filter(assignment=assignment).values_list("condition", flat=True)) == {"adjudication"}
    assert nxt["progress"]["topic"] == {"done": 6, "total": 6}


def test_it_counts_the_sample_as_the_adjudication_assignments_total(world):
    body = world["client"].get("/api/assignments/").json()
    rows = body["results"] if isinstance(body, dict) else body
    totals = sorted((r["total"], r["condition"]) for r in rows)
    assert totals == [(3, "adjudication"), (6, "adjudication")]


def test_the_order_is_the_same_whichever_judge_is_a_or_b(world):
    # given the same sample with the two judges' roles exchanged
    other = study_create(campaign=world["campaign"], a=LLM_NAME, b=HUMAN_NAME, per_topic=6, seed=11)

    def order(study):
        return list(StudyItem.objects.filter(study=study).values_list("topic_id", "order", "pair_id"))

    # then
    assert order(other) == order(world["study"])


def test_it_refuses_an_adjudicator_who_already_labelled_a_sampled_pair(world):
    # given dave judged a sampled pair from scratch
    dave = UserFactory(username="dave")
    campaign = world["campaign"]
    topic = world["assignments"][0].topic
    scratch = services.assignments_create(
        campaign=campaign, assessor=dave, topics=[topic], condition=Condition.FROM_SCRATCH
    )[0]
    sampled = set(StudyItem.objects.filter(study=world["study"]).values_list("pair_id", flat=True))
    while True:
        card = queue.queue_state(assignment=scratch).card
        services.judgment_submit(
            assignment=scratch, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
        )
        if card.campaign_pair.pair_id in sampled:
            break
    # when / then
    with pytest.raises(StudyError, match="not independent"):
        study_assign(study=world["study"], assessor=dave)


def test_a_plain_adjudication_assignment_keeps_the_whole_topic(world):
    # given an adjudication assignment that belongs to no study
    erin = UserFactory(username="erin")
    topic = world["assignments"][0].topic
    plain = services.assignments_create(
        campaign=world["campaign"], assessor=erin, topics=[topic], condition=Condition.ADJUDICATION
    )[0]
    # then
    assert len(assignment_pending(assignment=plain)) == 20


def test_the_adjudicators_judgments_hold_no_shown_label(world):
    client, assignment = world["client"], world["assignments"][1]
    nxt = client.get(f"/api/assignments/{assignment.pk}/next/").json()
    body = client.post(
        f"/api/assignments/{assignment.pk}/submit/",
        {"pair_id": nxt["pair"]["pair_id"], "token": nxt["pair"]["token"], "label": "NS"},
        content_type="application/json",
    ).json()
    assert body["judgment"]["shown_label"] == ""
    assert body["judgment"]["label_changed"] is None
    assert json.dumps(body).count(LLM_NAME) == 0


def test_it_refuses_to_give_one_adjudication_assignment_to_two_studies(world):
    # given a second study of the same campaign
    other = study_create(campaign=world["campaign"], a=HUMAN_NAME, b=LLM_NAME, per_topic=3, seed=12)
    # when / then: carol's adjudication of these topics already re-judges the first study
    with pytest.raises(StudyError, match=f"already re-judges study #{world['study'].pk}"):
        study_assign(study=other, assessor=world["carol"])
    assert other.assignments.count() == 0


def test_it_refuses_a_submit_for_a_topic_pair_outside_the_study_sample(world):
    # given: a pair of the adjudicated topic that the study did not sample, with a token the server could issue
    assignment = world["assignments"][0]
    sampled = set(
        StudyItem.objects.filter(study=world["study"], topic_id=assignment.topic_id).values_list("pair_id", flat=True)
    )
    outside = (
        CampaignPair.objects.filter(campaign=world["campaign"], topic_id=assignment.topic_id)
        .exclude(pair_id__in=sampled)
        .values_list("pair_id", flat=True)
        .first()
    )
    assert outside is not None
    token = submission_token(assignment_id=assignment.pk, pair_id=outside, nth=0)
    # when / then
    with pytest.raises(services.SubmissionRejected):
        services.judgment_submit(assignment=assignment, pair_id=outside, label="FS", token=token)
    assert not Judgment.objects.filter(assignment=assignment).exists()
