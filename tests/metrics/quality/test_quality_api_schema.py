"""The quality API against its OpenAPI schema, with schemathesis as tests/config/test_api_schemathesis.py runs it
over every operation: a real report validates against the documented output, and generated requests get no
server error and no undocumented answer, as an organizer and as an assessor."""

from __future__ import annotations

import pytest

from tests.config.test_api_schemathesis import (
    Tally,
    api_schema,
    connection_kept,
    operation_fuzz,
    token_headers,
    validated,
)

pytestmark = pytest.mark.django_db

PATH = "/api/metrics/campaigns/{campaign_id}/quality/"


def test_a_real_report_has_the_documented_shape(known, organizer):
    operation = api_schema()[PATH]["GET"]

    with connection_kept():
        response = validated(
            operation.Case(path_parameters={"campaign_id": known.campaign.pk}), token_headers(organizer)
        )

    assert len(response.json()["assessors"]) == 3


@pytest.mark.parametrize("who", ["organizer", "assessor"])
def test_generated_requests_get_documented_answers(known, organizer, assessor, who):
    operation = api_schema()[PATH]["GET"]
    tally = Tally()
    ids = {"assignment": 0, "campaign": known.campaign.pk, "judgment": 0, "import_job": 0, "prelabel_job": 0}
    world: dict[str, int | str] = {**ids, "study": 0, "topic": "", "run": ""}

    with connection_kept():
        operation_fuzz(
            operation, headers=token_headers(organizer if who == "organizer" else assessor), world=world, tally=tally
        )

    assert tally.failures == []
    assert sum(tally.statuses.values()) > 0
