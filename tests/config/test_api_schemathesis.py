"""Schemathesis over the API's OpenAPI schema (drf-spectacular), as an organizer and as an assessor: every
operation, each POST and the other writes included, gets generated requests, and every answer must be no server
error and match the schema (status code, content type, body). Three phases per operation, as schemathesis' own
runner has them: its coverage phase (boundary values, each bound and just past it: the huge numbers and control
characters the outside audit found, issue 22), then positive and negative fuzzing, the positive half with the
ids of real rows in the path (generated ids rarely name one). Bounded: a few minutes on the 2-core machine."""

from __future__ import annotations

import itertools
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
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from assess.models import ImportJob, ImportKind, ImportStatus
from judging.llm.models import PrelabelJob, PrelabelStatus
from judging.models import Judgment
from tests.factories import (
    AssignmentFactory,
    StudyFactory,
    UserFactory,
    study_campaign_build,
    study_labels_seed,
)

pytestmark = pytest.mark.django_db

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES_PER_OPERATION = 6  # per fuzzing mode (positive, negative)
COVERAGE_CASES_PER_OPERATION = 30
MODES = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]


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


class Tally:
    """The statuses answered and the failures found, by operation."""

    def __init__(self) -> None:
        self.statuses: Counter[str] = Counter()
        self.operations: Counter[str] = Counter()
        self.failures: list[str] = []

    def answer(self, case: Any, headers: dict[str, str]) -> None:
        response = case.call(headers=headers)
        self.statuses[f"{response.status_code}"] += 1
        self.operations[f"{case.operation.method.upper()} {case.operation.path}"] += 1
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except (AssertionError, FailureGroup) as failure:
            shown = f"query={case.query} body={str(case.body)[:120]!r}"
            self.failures.append(
                f"{case.method} {case.formatted_path} {shown} -> {response.status_code}: {failure_text(failure)}"
            )


def real_path_ids(world: dict[str, int | str], path: str) -> dict[str, int | str]:
    """The ids of real rows for an operation's path parameters (by path: `{id}` and `{job_id}` name several)."""
    by_prefix = [
        ("/api/assignments/", {"assignment_id": world["assignment"], "id": world["assignment"]}),
        ("/api/campaigns/", {"campaign_id": world["campaign"], "id": world["campaign"]}),
        ("/api/judgments/", {"id": world["judgment"]}),
        ("/api/imports/", {"job_id": world["import_job"]}),
        ("/api/prelabel-jobs/", {"job_id": world["prelabel_job"]}),
        ("/api/studies/", {"study_id": world["study"]}),
        ("/api/topics/", {"topic_id": world["topic"]}),
        ("/api/runs/", {"run_id": world["run"]}),
    ]
    for prefix, ids in by_prefix:
        if path.startswith(prefix):
            return {name: value for name, value in ids.items() if "{" + name + "}" in path}
    return {}


def operation_fuzz(operation: Any, *, headers: dict[str, str], world: dict[str, int | str], tally: Tally) -> None:
    schema = operation.schema
    coverage = schema.iter_coverage_cases(
        operation, generation_modes=MODES, generation_config=schema.config.generation_for(operation=operation)
    )
    for case in itertools.islice(coverage, COVERAGE_CASES_PER_OPERATION):
        tally.answer(case, headers)
    real = real_path_ids(world, operation.path)
    for mode in MODES:
        strategy = operation.as_strategy(mode, path_parameters=real if mode.is_positive and real else None)

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        )
        @given(case=strategy)
        def one(case: Any) -> None:
            tally.answer(case, headers)

        one()


def token_headers(user: Any) -> dict[str, str]:
    return {"Authorization": f"Token {Token.objects.get_or_create(user=user)[0].key}"}


def fuzz(user: Any, world: dict[str, int | str]) -> Tally:
    headers = token_headers(user)
    schema = api_schema()
    tally = Tally()
    with connection_kept():
        for result in schema.get_all_operations():
            operation_fuzz(result.ok(), headers=headers, world=world, tally=tally)
    return tally


@pytest.fixture
def world(organizer, assessor) -> dict[str, int | str]:
    """A campaign with labels, an assessor's assignment, a study, an import job and a pre-labelling job: the
    rows whose ids the positive fuzzing puts in the paths."""
    campaign = study_campaign_build(pairs_per_topic=(4, 3))
    _, llm_judge = study_labels_seed(campaign)
    topic = campaign.topics.order_by("topic_id").first()
    assignment = AssignmentFactory(assessor=assessor, campaign=campaign, topic=topic, condition="from_scratch")
    study = StudyFactory(campaign=campaign)
    import_job = ImportJob.objects.create(kind=ImportKind.TOPICS, status=ImportStatus.DONE, created_by=organizer)
    prelabel_job = PrelabelJob.objects.create(
        campaign=campaign, judge=llm_judge, prompt_version="v1", status=PrelabelStatus.DONE
    )
    return {
        "campaign": campaign.pk,
        "assignment": assignment.pk,
        "judgment": Judgment.objects.order_by("pk").values_list("pk", flat=True).first() or 1,
        "study": study.pk,
        "import_job": import_job.pk,
        "prelabel_job": prelabel_job.pk,
        "topic": topic.topic_id,
        "run": campaign.runs.order_by("run_id").values_list("run_id", flat=True).first() or "",
    }


def test_it_answers_every_generated_request_within_the_schema_as_organizer_and_assessor(organizer, assessor, world):
    # given
    operations = len(list(api_schema().get_all_operations()))

    # when
    as_organizer = fuzz(organizer, world)
    as_assessor = fuzz(assessor, world)

    # then
    print(
        f"schemathesis: {operations} operations; organizer {sum(as_organizer.statuses.values())} requests "
        f"{dict(as_organizer.statuses)}; assessor {sum(as_assessor.statuses.values())} requests "
        f"{dict(as_assessor.statuses)}"
    )
    assert len(as_organizer.operations) == len(as_assessor.operations) == operations
    failures = ["organizer:", *as_organizer.failures, "assessor:", *as_assessor.failures]
    assert as_organizer.failures + as_assessor.failures == [], "\n".join(failures)


def test_every_write_operation_is_in_the_schema_the_fuzzing_covers():
    # given: the API's URL patterns that take a write (every one takes POST)
    from django.urls import URLPattern, URLResolver, get_resolver

    def patterns(resolver: Any, prefix: str = "") -> Iterator[str]:
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                yield from patterns(pattern, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern)

    api_urls = [p for p in patterns(get_resolver()) if p.startswith("api/") and p not in ("api/schema/", "api/docs/")]

    # when
    documented = {operation.ok().path for operation in api_schema().get_all_operations()}

    # then: every API URL pattern is a documented path (so the fuzzing reaches it)
    assert len(api_urls) == len(documented), (sorted(api_urls), sorted(documented))


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
