"""Schemathesis over the API's OpenAPI schema (drf-spectacular), as an organizer and as an assessor: every
operation gets generated requests, and every answer must be no server error and match the schema (status code,
content type, body). Bounded: a few examples per operation, the whole run well under two minutes."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.factories import AssignmentFactory, UserFactory, study_campaign_build, study_labels_seed

pytestmark = pytest.mark.django_db

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES_PER_OPERATION = 8


@contextmanager
def connection_kept() -> Iterator[None]:
    """As Django's test client does: the request cycle's start and end must not close the test's one connection
    (its transaction holds the rows the requests read)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def api_schema() -> schemathesis.schemas.BaseSchema:
    raw = SchemaGenerator().get_schema(request=None, public=True)
    schema = schemathesis.openapi.from_dict(raw)
    schema.app = WSGIHandler()
    return schema


def failure_text(failure: BaseException) -> str:
    parts = failure.exceptions if isinstance(failure, FailureGroup) else (failure,)
    return "; ".join(" ".join(str(part).split())[:300] for part in parts)


def operation_fuzz(operation: Any, *, headers: dict[str, str], statuses: Counter[str], failures: list[str]) -> None:
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    @given(case=operation.as_strategy())
    def one(case: Any) -> None:
        response = case.call(headers=headers)
        statuses[f"{response.status_code}"] += 1
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except (AssertionError, FailureGroup) as failure:
            failures.append(f"{case.method} {case.formatted_path} -> {response.status_code}: {failure_text(failure)}")

    one()


def token_headers(user: Any) -> dict[str, str]:
    return {"Authorization": f"Token {Token.objects.get_or_create(user=user)[0].key}"}


def fuzz(user: Any) -> tuple[Counter[str], list[str]]:
    headers = token_headers(user)
    schema = api_schema()
    statuses: Counter[str] = Counter()
    failures: list[str] = []
    with connection_kept():
        for result in schema.get_all_operations():
            operation_fuzz(result.ok(), headers=headers, statuses=statuses, failures=failures)
    return statuses, failures


def test_it_answers_every_generated_request_within_the_schema_as_organizer_and_assessor(organizer, assessor):
    # given
    campaign = study_campaign_build(pairs_per_topic=(4, 3))
    study_labels_seed(campaign)
    AssignmentFactory(assessor=assessor, campaign=campaign, topic=campaign.topics.first(), condition="from_scratch")

    # when
    org_statuses, org_failures = fuzz(organizer)
    ass_statuses, ass_failures = fuzz(assessor)

    # then
    print(
        f"schemathesis: organizer {sum(org_statuses.values())} requests {dict(org_statuses)}; "
        f"assessor {sum(ass_statuses.values())} requests {dict(ass_statuses)}"
    )
    assert org_failures + ass_failures == [], "\n".join(["organizer:", *org_failures, "assessor:", *ass_failures])


def validated(case: Any, headers: dict[str, str]) -> Any:
    """The answer to one chosen request, checked against the schema as the generated ones are."""
    response = case.call(headers=headers)
    case.validate_response(response, checks=CHECKS, headers=headers)
    return response


def test_it_answers_real_rows_in_the_shapes_the_schema_documents(organizer, assessor):
    # given: generated ids rarely name a real row, so these requests name them
    campaign = study_campaign_build(pairs_per_topic=(4, 3))
    study_labels_seed(campaign)
    assignment = AssignmentFactory(
        assessor=assessor, campaign=campaign, topic=campaign.topics.first(), condition="from_scratch"
    )
    schema = api_schema()
    as_assessor, as_organizer = token_headers(assessor), token_headers(organizer)
    next_pair = schema["/api/assignments/{assignment_id}/next/"]["GET"]
    submit = schema["/api/assignments/{assignment_id}/submit/"]["POST"]
    where = {"assignment_id": assignment.pk}

    with connection_kept():
        # when
        card = validated(next_pair.Case(path_parameters=where), as_assessor).json()
        judgment = {"pair_id": card["pair"]["pair_id"], "token": card["pair"]["token"], "label": "FS"}
        first = validated(submit.Case(path_parameters=where, body=judgment, media_type="application/json"), as_assessor)
        again = validated(submit.Case(path_parameters=where, body=judgment, media_type="application/json"), as_assessor)
        stranger = {**judgment, "pair_id": 10**9, "token": str(uuid.uuid4())}
        refused = validated(
            submit.Case(path_parameters=where, body=stranger, media_type="application/json"), as_assessor
        )
        stats = validated(schema["/api/metrics/stats/"]["GET"].Case(query={"campaign": campaign.name}), as_organizer)
        scores = schema["/api/metrics/scores/"]["GET"]
        runs = validated(scores.Case(query={"labels": "nist", "resamples": 0}), as_organizer)
        per_topic = validated(scores.Case(query={"labels": "nist", "per_topic": True}), as_organizer)
        pair_of_sets = {"a": "nist", "b": "gpt-study", "campaign": campaign.name, "resamples": 0}
        agreement = validated(schema["/api/metrics/agreement/"]["GET"].Case(query=pair_of_sets), as_organizer)
        disagreements_op = schema["/api/metrics/disagreements/"]["GET"]
        disagreements = validated(disagreements_op.Case(query={"a": "nist", "b": "gpt-study"}), as_organizer)
        sample = {"campaign": campaign.name, "a": "nist/from_scratch", "b": "gpt-study", "per_topic": 2}
        studies = schema["/api/studies/"]["POST"]
        study = validated(studies.Case(body=sample, media_type="application/json"), as_organizer).json()
        report_op = schema["/api/studies/{study_id}/"]["GET"]
        assign_op = schema["/api/studies/{study_id}/assign/"]["POST"]
        adjudication = {"assessor": UserFactory(username="adjudicator").username}
        assigned = validated(
            assign_op.Case(path_parameters={"study_id": study["id"]}, body=adjudication, media_type="application/json"),
            as_organizer,
        )
        report = validated(report_op.Case(path_parameters={"study_id": study["id"]}), as_organizer)

    # then
    assert card["pair"] is not None
    assert (first.status_code, again.status_code, refused.status_code) == (201, 200, 409)
    assert first.json()["judgment"] == again.json()["judgment"]
    assert {row["label_set"] for row in stats.json()["rows"]} >= {"nist/from_scratch", "gpt-study/none"}
    assert len(runs.json()["runs"]) == 2
    assert per_topic.json()["rows"]
    assert assigned.status_code == 201
    assert agreement.json()["labels"]
    assert disagreements.json()["citations"] > 0
    assert report.json()["sampled"] == len(report.json()["pairs"]) > 0
