"""The blindness guard of the disagreement study: an adjudicator who is not independent is refused through its
service, page, API and command (split from test_judging_blindness_guards.py)."""

from __future__ import annotations

import html
import io
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from judging import blindness, services
from judging.blindness import BlindnessViolation
from judging.models import Assignment, Condition, Judge
from metrics.study.models import StudyItem
from metrics.study.services import StudyError, study_assign, study_create
from tests.factories import (
    OrganizerFactory,
    PairJudgmentFactory,
    UserFactory,
    study_campaign_build,
    study_labels_seed,
)


@pytest.fixture
def study_world(db: Any) -> dict[str, Any]:
    campaign = study_campaign_build(pairs_per_topic=(6, 4), name="study-c")
    study_labels_seed(campaign, human="nist-probe", llm="llm-probe")
    study = study_create(campaign=campaign, a="nist-probe", b="llm-probe", per_topic=3, seed=1)
    organizer = Client()
    organizer.force_login(OrganizerFactory(username="org"))
    return {"campaign": campaign, "study": study, "organizer": organizer}


def _study_judge(w: dict[str, Any]) -> tuple[User, str]:
    """The person behind the study's judge a: their account holds the `nist-probe` judge."""
    person = UserFactory(username="probe-person")
    Judge.objects.filter(name="nist-probe").update(user=person)
    return person, "is in label set a"


def _study_topic_judged(w: dict[str, Any]) -> tuple[User, str]:
    dave = UserFactory(username="dave")
    item = StudyItem.objects.filter(study=w["study"]).first()
    PairJudgmentFactory(
        judge=services.assessor_judge(user=dave), pair=item.pair, label="FS", condition=Condition.POST_EDIT
    )
    return dave, "1 judgment(s) post-edit on this topic's pairs"


STUDY_CASES = {"study judge": _study_judge, "judged a study topic": _study_topic_judged}


def _study_through_the_service(w: dict[str, Any], user: User) -> str:
    with pytest.raises(StudyError) as refused:
        study_assign(study=w["study"], assessor=user)
    assert isinstance(refused.value.__cause__, BlindnessViolation)
    return str(refused.value)


def _study_through_the_page(w: dict[str, Any], user: User) -> str:
    response = w["organizer"].post(
        f"/metrics/studies/{w['study'].pk}/assign/", {"assessor": user.username}, follow=True
    )
    assert response.status_code == 200
    text = html.unescape(response.content.decode())
    assert "Not assigned: " in text
    return text


def _study_through_the_api(w: dict[str, Any], user: User) -> str:
    response = w["organizer"].post(
        f"/api/studies/{w['study'].pk}/assign/", {"assessor": user.username}, content_type="application/json"
    )
    assert response.status_code == 400
    return str(response.json()["detail"])


def _study_through_the_command(w: dict[str, Any], user: User) -> str:
    with pytest.raises(CommandError) as refused:
        call_command("study_assign", str(w["study"].pk), "--assessor", user.username, stdout=io.StringIO())
    return str(refused.value)


STUDY_PATHS = {
    "service": _study_through_the_service,
    "page": _study_through_the_page,
    "api": _study_through_the_api,
    "command": _study_through_the_command,
}


@pytest.mark.parametrize("path", STUDY_PATHS.values(), ids=STUDY_PATHS.keys())
@pytest.mark.parametrize("case", STUDY_CASES.values(), ids=STUDY_CASES.keys())
def test_the_study_refuses_an_adjudicator_who_is_not_independent_through_every_path(
    study_world: dict[str, Any], case: Callable[..., tuple[User, str]], path: Callable[..., str]
) -> None:
    # given
    user, says = case(study_world)
    # when
    said = path(study_world, user)
    # then
    assert says in said
    assert f"{user.username} cannot adjudicate topic" in said
    assert "not independent" in said
    assert not Assignment.objects.filter(assessor=user).exists()
    assert study_world["study"].assignments.count() == 0


def test_the_study_names_every_rule_its_judge_breaks(study_world: dict[str, Any]) -> None:
    person, _ = _study_judge(study_world)
    with pytest.raises(StudyError) as refused:
        study_assign(study=study_world["study"], assessor=person)
    rules = {v.rule for v in refused.value.__cause__.violations}  # type: ignore[union-attr]
    assert rules == {blindness.ADJUDICATOR_JUDGED, blindness.ADJUDICATOR_IS_STUDY_JUDGE}
