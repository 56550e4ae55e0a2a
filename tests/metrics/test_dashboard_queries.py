"""The metrics dashboard's cost in SQL queries (issue 25): at most twenty on a cold cache, whatever the size
of the campaign (no query per run, topic, label set or study)."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from metrics.material import memo_clear
from metrics.study.services import study_create
from tests.factories import study_campaign_build, study_labels_seed

pytestmark = pytest.mark.usefixtures("fresh_cache")

DASHBOARD_QUERIES = 20


@pytest.mark.parametrize(
    ("pairs_per_topic", "runs", "studies"),
    [((6, 4), 2, 1), ((14, 10, 8, 6, 5), 6, 3)],
    ids=["small", "larger"],
)
def test_the_dashboard_costs_at_most_twenty_queries_cold(
    db, client, organizer, pairs_per_topic, runs, studies, django_assert_max_num_queries
):
    # given: a campaign with a human and an LLM label set, and disagreement studies linked from the page
    campaign = study_campaign_build(pairs_per_topic=pairs_per_topic, runs=runs, name="dash")
    study_labels_seed(campaign, human="nist", llm="gpt-dash")
    for seed in range(studies):
        study_create(campaign=campaign, a="nist/from_scratch", b="gpt-dash", per_topic=2, seed=seed)
    cache.clear()
    memo_clear()
    client.force_login(organizer)

    # when: nothing of it cached yet (as a new worker's first page)
    with django_assert_max_num_queries(DASHBOARD_QUERIES):
        response = client.get("/metrics/", {"campaign": "dash", "a": "nist", "b": "gpt-dash"})

    # then
    assert response.status_code == 200
    body = response.content.decode()
    assert body.count('data-run="') == runs
    assert f"study #{campaign.studies.order_by('-pk').first().pk}" in body
