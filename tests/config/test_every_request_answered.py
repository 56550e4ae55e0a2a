"""The requests the outside audit and schemathesis answered with a 500 (issue 22, point 3): each is now a 400
naming its field before the database, or a 404 with a message; nothing is written."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from judging.llm.models import LLMJudge
from judging.models import Assignment, Judge
from metrics.budget.models import BudgetSample
from metrics.study.models import Study
from tests.factories import AssignmentFactory, UserFactory, study_campaign_build, study_labels_seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(organizer):
    client = APIClient()
    client.force_authenticate(organizer)
    return client


@pytest.fixture
def campaign(db):
    campaign = study_campaign_build(pairs_per_topic=(4, 3))
    study_labels_seed(campaign)
    return campaign


def post(api, url, body):
    return api.post(url, data=json.dumps(body), content_type="application/json")


@pytest.mark.parametrize("field", ["requests_per_minute", "tokens_per_minute"])
def test_it_refuses_an_llm_judge_rate_the_column_cannot_hold_with_a_400_naming_it(api, field):
    # given
    body = {"name": "gpt-x", "model": "gpt-x", field: 10**12}

    # when
    response = post(api, "/api/llm-judges/", body)

    # then
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert not Judge.objects.filter(name="gpt-x").exists()
    assert not LLMJudge.objects.exists()


def test_it_refuses_a_22_digit_study_seed_with_a_400_naming_it(api, campaign):
    # given
    body = {"campaign": campaign.name, "a": "nist/from_scratch", "b": "gpt-study", "seed": 10**21}

    # when
    response = post(api, "/api/studies/", body)

    # then
    assert response.status_code == 400
    assert list(response.json()) == ["seed"]
    assert not Study.objects.exists()


def test_it_refuses_a_22_digit_budget_seed_with_a_400_naming_it(api, campaign):
    # given
    body = {"campaign": campaign.name, "llm": "gpt-study", "pairs": 2, "seed": -(10**21)}

    # when
    response = post(api, "/api/budget/samples/", body)

    # then
    assert response.status_code == 400
    assert list(response.json()) == ["seed"]
    assert not BudgetSample.objects.exists()


@pytest.mark.parametrize("query", ["seed=" + "9" * 22, "seed=-1"])
def test_it_refuses_a_bootstrap_seed_numpy_cannot_take_with_a_400(api, campaign, query):
    # when
    response = api.get(f"/api/metrics/agreement/?a=nist&b=gpt-study&resamples=10&{query}")

    # then
    assert response.status_code == 400
    assert list(response.json()) == ["seed"]


def test_it_refuses_a_nul_in_an_assignments_topics_with_a_400_naming_the_field(api, campaign):
    # given
    body = {"campaign": campaign.pk, "assessor": UserFactory(username="bob").username, "topics": ["2024\u0000x"]}

    # when
    response = post(api, "/api/assignments/", body)

    # then
    assert response.status_code == 400
    assert "topics[0]: holds the control character U+0000" in response.json()["detail"]
    assert not Assignment.objects.exists()


def test_it_refuses_a_nul_in_a_name_looked_up_by_slug_with_a_400(api, campaign):
    # given: the campaign is read by name (a slug field, which DRF does not check for NUL)
    body = {"campaign": "c\u0000", "a": "nist", "b": "gpt-study"}

    # when
    response = post(api, "/api/studies/", body)

    # then
    assert response.status_code == 400
    assert "campaign: holds the control character U+0000" in response.json()["detail"]


def test_it_refuses_a_control_character_in_a_form_field_with_a_400(api):
    # when
    response = api.post("/api/llm-judges/", {"name": "x\u0007", "model": "m"}, format="multipart")

    # then
    assert response.status_code == 400
    assert "name: holds the control character U+0007" in response.json()["detail"]


def test_it_still_takes_text_with_tabs_and_newlines(api):
    # when
    response = post(api, "/api/llm-judges/", {"name": "tabbed", "model": "m\tn"})

    # then: the whitespace controls pass the body check (the name is a serializer's to judge)
    assert response.status_code == 201, response.content


def test_it_answers_stats_for_an_unknown_topic_with_nothing_found(api, campaign):
    # when: the scope narrows to a topic with no answer (the ORM writes no SQL for it: EmptyResultSet)
    response = api.get(f"/api/metrics/stats/?campaign={campaign.name}&topics=no-such-topic")

    # then
    assert response.status_code == 200
    assert all(row["judged"] == 0 for row in response.json()["rows"])


def test_it_refuses_disagreements_of_an_unknown_topic_with_a_400_naming_it(api, campaign):
    # when
    response = api.get("/api/metrics/disagreements/?a=nist&b=gpt-study&topic=no-such-topic")

    # then
    assert response.status_code == 400
    assert response.json() == {"topic": ["no such topic: no-such-topic"]}


def test_the_topic_drill_down_of_an_unknown_topic_is_a_404_with_a_message(client, organizer, campaign):
    # given
    client.force_login(organizer)

    # when
    response = client.get("/metrics/topics/no-such-topic/", {"a": "nist", "b": "gpt-study"})

    # then
    assert response.status_code == 404
    assert "No topic &#x27;no-such-topic&#x27; is loaded" in response.content.decode()


def test_the_topic_drill_down_of_a_known_topic_without_disagreements_is_answered(client, organizer, campaign):
    # given: a topic loaded but outside the campaign, so its scope holds no answer
    from tests.factories import TopicFactory

    TopicFactory(topic_id="2024-outside")
    client.force_login(organizer)

    # when
    response = client.get("/metrics/topics/2024-outside/", {"a": "nist", "b": "gpt-study", "campaign": campaign.name})

    # then
    assert response.status_code == 200


def test_a_submit_with_seconds_beyond_a_day_is_a_400(assessor, campaign):
    # given
    assignment = AssignmentFactory(
        assessor=assessor, campaign=campaign, topic=campaign.topics.first(), condition="from_scratch"
    )
    client = APIClient()
    client.force_authenticate(assessor)
    card = client.get(f"/api/assignments/{assignment.pk}/next/").json()["pair"]
    body = {"pair_id": card["pair_id"], "token": card["token"], "label": "FS", "seconds": 1e300}

    # when
    response = post(client, f"/api/assignments/{assignment.pk}/submit/", body)

    # then
    assert response.status_code == 400
    assert list(response.json()) == ["seconds"]


def test_a_json_body_above_the_upload_limit_is_a_413_before_it_is_read(api, settings):
    # given
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000

    # when
    response = post(api, "/api/llm-judges/", {"name": "big", "model": "m" * 2000})

    # then
    assert response.status_code == 413
    assert "at most 1,000 bytes" in response.json()["detail"]
    assert not Judge.objects.filter(name="big").exists()


def schema_operations():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [(method, path, op) for path, item in schema["paths"].items() for method, op in item.items()]


def test_every_operation_documents_the_throttle_429_with_retry_after_and_the_common_errors():
    # when
    operations = schema_operations()

    # then
    assert len(operations) > 40
    for method, path, operation in operations:
        responses = operation["responses"]
        assert {"400", "401", "403", "414", "429", "503"} <= set(responses), (method, path)
        assert "Retry-After" in responses["429"]["headers"], (method, path)
        assert ("413" in responses) == ("requestBody" in operation), (method, path)


def test_every_integer_an_operation_takes_is_bounded_in_the_schema():
    # given
    from drf_spectacular.generators import SchemaGenerator

    components = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]

    def resolved(node):
        while "$ref" in node:
            node = components[node["$ref"].rsplit("/", 1)[1]]
        return node

    def unbounded(node, where):
        node = resolved(node)
        for key in ("oneOf", "anyOf", "allOf"):
            for part in node.get(key, []):
                yield from unbounded(part, where)
        if node.get("type") == "integer" and ("minimum" not in node or "maximum" not in node):
            yield where
        if node.get("type") == "array":
            yield from unbounded(node.get("items", {}), where + "[]")
        for name, prop in node.get("properties", {}).items():
            if not prop.get("readOnly"):
                yield from unbounded(prop, f"{where}.{name}")

    # when: query parameters and JSON bodies (a path's integer is the URL converter's, answered 404 when no row)
    found = []
    for method, path, operation in schema_operations():
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "query":
                found += unbounded(parameter["schema"], f"{method} {path} ?{parameter['name']}")
        content = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if content:
            found += unbounded(content["schema"], f"{method} {path} body")

    # then
    assert found == []
