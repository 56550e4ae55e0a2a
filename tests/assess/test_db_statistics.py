"""Bulk writes refresh PostgreSQL's planner statistics (this kind of server may run without autovacuum)."""

from __future__ import annotations

import pytest
from django.db import connection

from assess.importers.passages import passages_import
from assess.importers.runs import RunOptions, runs_import
from assess.models import Citation, Run, Topic
from judging.build import campaign_build_pairs, campaign_create
from judging.models import CampaignPair

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="planner statistics are PostgreSQL's")


def _analyze_empty(table: str) -> None:
    """Start from statistics that say `table` is empty (ANALYZE writes them in place: no rollback undoes it)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {table}")
        assert cursor.fetchone()[0] == 0
        cursor.execute(f"ANALYZE {table}")
    assert _estimated_rows(table) == 0


def _estimated_rows(table: str) -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [table])
        return cursor.fetchone()[0]


def test_it_refreshes_the_statistics_of_the_answer_tables_after_a_run_import(db, data_dir):
    # given
    _analyze_empty("assess_citation")
    # when
    runs_import(
        files=[data_dir / "runs" / "baseline_rag24.test_l31_70b_instruct_top20.jsonl.fixed"], options=RunOptions()
    )
    # then: ANALYZE read every row of these small tables, so the estimate is exact
    assert _estimated_rows("assess_citation") == Citation.objects.count() == 3939


def test_it_refreshes_the_statistics_of_the_pool_after_a_campaign_build(db, data_dir):
    # given
    runs_import(
        files=[data_dir / "nist-support" / "final.citation_judgments_without_prediction.20241025.jsonl"],
        fmt="nist",
        options=RunOptions(topics=frozenset({"2024-32912"})),
    )
    passages_import(files=[data_dir / "segments" / "nist-cited-segments.jsonl"])
    _analyze_empty("judging_campaignpair")
    campaign = campaign_create(name="stats", runs=Run.objects.all(), topics=Topic.objects.all(), depth=1)
    # when
    campaign_build_pairs(campaign=campaign, allow_missing_text=True)
    # then
    assert CampaignPair.objects.count() > 0
    assert _estimated_rows("judging_campaignpair") == CampaignPair.objects.count()
