"""Issue 26's "Done when" for relevance: a campaign built from the UMBRELA qrels of three topics has one item per
(topic, passage) of the file; the imported UMBRELA grades exported as qrels give the file back, line for line
after sorting. Expected counts and lines come from the file, read with the standard library."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from judging.build import CampaignBuildError, campaign_create
from kinds.relevance.build import relevance_build
from kinds.relevance.models import RelevanceItem
from kinds.relevance.services import relevance_pool_set
from tests.factories import AnswerFactory, PassageFactory, RunFactory, TopicFactory
from tests.kinds.relevance.conftest import QRELS, TOPICS, qrels_lines

pytestmark = pytest.mark.django_db


def test_campaign_from_umbrela_qrels_has_one_item_per_topic_passage(relevance_campaign, umbrela_loaded):
    items = RelevanceItem.objects.filter(campaign=relevance_campaign)
    got = sorted(items.values_list("topic__topic_id", "passage__passage_id"))
    assert got == sorted(umbrela_loaded)
    assert len(got) == 66 == len(umbrela_loaded)
    per_topic = {t: sum(1 for k in umbrela_loaded if k[0] == t) for t in TOPICS}
    assert per_topic == {"2024-25003": 9, "2024-135747": 11, "2024-113215": 46}
    for topic, n in per_topic.items():
        positions = sorted(items.filter(topic__topic_id=topic).values_list("position", flat=True))
        assert positions == list(range(n))
    assert relevance_campaign.build_summary["items"] == 66


def test_rebuild_keeps_the_pool(relevance_campaign):
    before = set(RelevanceItem.objects.filter(campaign=relevance_campaign).values_list("pk", flat=True))
    relevance_build(relevance_campaign)
    assert set(RelevanceItem.objects.filter(campaign=relevance_campaign).values_list("pk", flat=True)) == before


def test_umbrela_export_gives_the_file_back(umbrela_loaded, data_dir, tmp_path):
    out = tmp_path / "umbrela.qrels"
    call_command("relevance_qrels", str(out), "--labels", "umbrela", stderr=io.StringIO())
    exported = out.read_text(encoding="utf-8").splitlines()
    assert sorted(exported) == sorted(qrels_lines(data_dir / QRELS))
    assert len(exported) == 5053


def test_export_of_an_unknown_set_is_a_clear_error(db):
    with pytest.raises(CommandError, match="no relevance grades of source 'nobody'"):
        call_command("relevance_qrels", "-", "--labels", "nobody")


def test_build_from_the_runs_top_k_references(db):
    topic = TopicFactory(topic_id="2024-1")
    p = [PassageFactory() for _ in range(5)]
    gap = PassageFactory(without_text=True)
    run_a, run_b = RunFactory(run_id="a"), RunFactory(run_id="b")
    AnswerFactory(run=run_a, topic=topic, references=[p[0].passage_id, p[1].passage_id, p[2].passage_id])
    AnswerFactory(
        run=run_b, topic=topic, references=[p[3].passage_id, gap.passage_id, p[0].passage_id, p[4].passage_id]
    )
    campaign = campaign_create(name="refs", topics=[topic], runs=[run_a, run_b], kind="relevance")
    relevance_pool_set(campaign=campaign, pool="references", depth=2)
    with pytest.raises(CampaignBuildError, match="1 passages of the pool have no text"):
        relevance_build(campaign)
    summary = relevance_build(campaign, allow_missing_text=True)
    order = list(
        RelevanceItem.objects.filter(campaign=campaign).order_by("position").values_list("passage_id", flat=True)
    )
    # Top 2 of each run: a: p0 p1; b: p3 gap. Best rank first, then id; the passage without text left out.
    assert order == [*sorted([p[0].pk, p[3].pk], key=lambda pk: next(x.passage_id for x in p if x.pk == pk)), p[1].pk]
    assert summary["passages_without_text"] == 1
    assert summary["items"] == 3


def test_qrels_pool_needs_an_imported_source(db):
    topic = TopicFactory()
    campaign = campaign_create(name="q", topics=[topic], runs=[], kind="relevance")
    relevance_pool_set(campaign=campaign, pool="qrels", pool_source="absent")
    with pytest.raises(CampaignBuildError, match="holds no grades"):
        relevance_build(campaign)


def test_panel_report_and_qrels_download(client, relevance_campaign, data_dir):
    from django.urls import reverse

    from tests.factories import OrganizerFactory

    client.force_login(OrganizerFactory())
    page = client.get(reverse("kind_relevance:report", args=[relevance_campaign.pk]))
    assert page.status_code == 200
    assert b"topic-passage" in page.content
    download = client.get(reverse("kind_relevance:qrels", args=[relevance_campaign.pk]), {"labels": "umbrela"})
    assert sorted(download.content.decode().splitlines()) == sorted(qrels_lines(data_dir / QRELS))
    bad = client.get(reverse("kind_relevance:qrels", args=[relevance_campaign.pk]), {"labels": "nobody"})
    assert bad.status_code == 400
