"""The metrics page agrees with itself: each figure names its unit, Table 3 counts within the page's scope,
the header and the table count the same topics, and the drill-down filters by confusion cell and pages.

Every expected number is counted from the labels this file writes (HUMAN, LLM), never by the code under test.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from assess.models import Citation
from judging.labels import label_set_get
from judging.models import NOT_JUDGED, JudgeKind
from judging.scope import scope_for
from metrics.selectors import support_stats
from tests.factories import (
    JudgeFactory,
    JudgmentFactory,
    PairJudgmentFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    answer_build,
    study_campaign_build,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]

# Per topic (index in the campaign's topics), per sentence index: the label each set gives.
HUMAN = {0: {0: "FS", 1: "FS", 2: "PS", 3: "NS"}, 1: {}}  # judged on each citation, in both runs
# (topic, sentence) the human recorded as not judged on the first run's citation: made on the platform, it
# stands for the pair, so for the other run's citation too (docs/label-sets.md).
HUMAN_NOT_JUDGED = (1, 0)
LLM = {0: ["FS", "NS", "NS", "FS", "PS", "NS"], 1: ["PS", "PS", "NS"]}  # one judgment per pair
RUNS = 2
OUTSIDE_SENTENCES = 5  # a loaded run outside the campaign answers the first topic with this many


@pytest.fixture
def world():
    campaign = study_campaign_build(pairs_per_topic=(6, 3), runs=RUNS, name="consistency")
    topics = list(campaign.topics.order_by("pk"))
    runs = list(campaign.runs.order_by("pk"))
    human = JudgeFactory(name="hana", kind=JudgeKind.HUMAN)
    llm = JudgeFactory(name="llm-x", kind=JudgeKind.LLM)
    for t, topic in enumerate(topics):
        citations = Citation.objects.filter(sentence__answer__topic=topic, slot=0).select_related(
            "sentence__answer", "stored_pair"
        )
        for citation in citations:
            index, pair = citation.sentence.index, citation.stored_pair.pair
            if index in HUMAN[t]:
                JudgmentFactory(
                    judge=human, pair=pair, citation=citation, label=HUMAN[t][index], condition="from_scratch"
                )
            if (t, index) == HUMAN_NOT_JUDGED and citation.sentence.answer.run_id == runs[0].pk:
                JudgmentFactory(judge=human, pair=pair, citation=citation, label=NOT_JUDGED, condition="from_scratch")
        for index, label in enumerate(LLM[t]):
            pair = next(c.stored_pair.pair for c in citations if c.sentence.index == index)
            PairJudgmentFactory(judge=llm, pair=pair, label=label)
    outside = [PassageFactory() for _ in range(OUTSIDE_SENTENCES)]
    answer_build(run=RunFactory(), topic=topics[0], sentences=[(f"Other {i}.", [p]) for i, p in enumerate(outside)])
    return {
        "campaign": campaign,
        "topics": [t.topic_id for t in topics],
        "human": label_set_get("hana").spec,
        "llm": label_set_get("llm-x").spec,
    }


@pytest.fixture
def staff_client(client, organizer):
    client.force_login(organizer)
    return client


def _query(world, **extra):
    return {"campaign": world["campaign"].name, "a": world["human"], "b": world["llm"], **extra}


def _campaign_citations() -> int:
    return sum(len(LLM[t]) for t in LLM) * RUNS


def _disagreeing(topic: int) -> list[int]:
    return [i for i, label in HUMAN[topic].items() if label != LLM[topic][i]]


def test_table_3_counts_not_labelled_within_the_campaign_scope(world):
    # when
    rows = {r["label_set"]: r for r in support_stats(scope_for(campaign=world["campaign"]))}

    # then
    human, llm = rows[world["human"]], rows[world["llm"]]
    human_labelled = sum(len(HUMAN[t]) for t in HUMAN) * RUNS
    assert (human["judged"], human["not_judged"], human["ties"]) == (human_labelled, RUNS, 0)
    assert human["unlabelled"] == _campaign_citations() - human_labelled - RUNS
    assert (llm["judged"], llm["unlabelled"]) == (_campaign_citations(), 0)
    assert human["unit"] == llm["unit"] == "first citations"


def test_table_3_counts_a_set_that_labels_one_topic_against_the_whole_scope(world):
    # given: a judge that labels one pair of the first topic (so both runs' citations of it)
    solo = JudgeFactory(name="solo", kind=JudgeKind.LLM)
    citation = Citation.objects.filter(sentence__answer__topic__topic_id=world["topics"][0], slot=0).first()
    PairJudgmentFactory(judge=solo, pair=citation.stored_pair.pair, label="PS")

    # when
    rows = {r["label_set"]: r for r in support_stats(scope_for(campaign=world["campaign"]))}

    # then: the second topic's citations are in scope too
    row = rows[label_set_get("solo").spec]
    assert (row["topics"], row["judged"], row["unlabelled"]) == (1, RUNS, _campaign_citations() - RUNS)
    assert row["judged"] + row["not_judged"] + row["ties"] + row["unlabelled"] == _campaign_citations()


def test_table_3_over_everything_loaded_counts_the_run_outside_the_campaign(world):
    # when
    rows = {r["label_set"]: r for r in support_stats(scope_for(depth=1))}

    # then: the outside run's citations have no stored pair, so no pair judgment reaches them
    assert rows[world["llm"]]["unlabelled"] == OUTSIDE_SENTENCES
    human_labelled = sum(len(HUMAN[t]) for t in HUMAN) * RUNS
    assert rows[world["human"]]["unlabelled"] == _campaign_citations() + OUTSIDE_SENTENCES - human_labelled - RUNS


def test_the_header_and_the_table_count_the_same_topics(world, staff_client):
    # given: the human's only mark on the second topic is a "not judged"
    labelled_topics = sum(1 for t in HUMAN if HUMAN[t])

    # when
    response = staff_client.get("/metrics/", _query(world))

    # then
    body = response.content.decode()
    stats = {r["label_set"]: r for r in response.context["stats"]}
    assert len(response.context["report_a"].topics) == stats[world["human"]]["topics"] == labelled_topics == 1
    assert len(response.context["report_b"].topics) == stats[world["llm"]]["topics"] == len(LLM)
    assert re.search(r'labels in <span id="topics-a">1</span> topic\b', body)


def test_the_page_names_the_scope_it_counts_in(world, staff_client):
    # when
    body = staff_client.get("/metrics/", _query(world)).content.decode()

    # then
    assert f'<span id="scope-citations">{_campaign_citations()}</span> first citations' in body
    assert "campaign consistency" in body


def test_the_page_counts_table_3_in_the_topics_a_or_b_labels(world, staff_client):
    # given: a loaded topic nobody labels, outside the campaign
    unlabelled_sentences = 4
    passages = [PassageFactory() for _ in range(unlabelled_sentences)]
    answer_build(run=RunFactory(), topic=TopicFactory(), sentences=[(f"S {i}.", [p]) for i, p in enumerate(passages)])
    everything_labelled = _campaign_citations() + OUTSIDE_SENTENCES

    # when
    page = staff_client.get("/metrics/", {"a": world["human"], "b": world["llm"], "depth": 1})
    api = staff_client.get("/api/metrics/stats/", {"depth": 1}).json()

    # then: the page leaves that topic out and says so; the API counts what it is asked for
    stats = {r["label_set"]: r for r in page.context["stats"]}
    assert stats[world["llm"]]["unlabelled"] == OUTSIDE_SENTENCES
    assert page.context["table_scope"]["citations"] == everything_labelled
    assert page.context["scope_summary"]["citations"] == everything_labelled + unlabelled_sentences
    assert f'<span id="scope-citations">{everything_labelled}</span>' in page.content.decode()
    (llm,) = [r for r in api["rows"] if r["label_set"] == world["llm"]]
    assert llm["unlabelled"] == OUTSIDE_SENTENCES + unlabelled_sentences


def test_the_topic_table_and_the_drill_down_give_citations_and_pairs_alike(world, staff_client):
    # given: every pair of the campaign is cited once per run
    first = world["topics"][0]
    disagreeing = _disagreeing(0)

    # when
    dashboard = staff_client.get("/metrics/", _query(world))
    drill = staff_client.get(f"/metrics/topics/{first}/", _query(world))

    # then
    (row,) = [r for r in dashboard.context["topic_rows"] if r["topic_id"] == first]
    assert (row["both"], row["disagree"], row["disagree_pairs"]) == (
        len(HUMAN[0]) * RUNS,
        len(disagreeing) * RUNS,
        len(disagreeing),
    )
    assert drill.context["found"].citations == len(disagreeing) * RUNS
    assert drill.context["page"].paginator.count == len(disagreeing)
    body = drill.content.decode()
    assert (
        f"First citations labelled differently: <strong>{len(disagreeing) * RUNS}</strong>, "
        f"on <strong>{len(disagreeing)}</strong> pairs"
    ) in body


def test_the_api_names_the_per_topic_units(world, staff_client):
    # when
    report = staff_client.get("/api/metrics/agreement/", _query(world, resamples=0)).json()

    # then
    first = world["topics"][0]
    assert report["per_topic"][first]["disagree_pairs"] == len(_disagreeing(0))
    assert report["per_topic_units"]["disagree"] == "first citations labelled differently"
    assert report["per_topic_units"]["disagree_pairs"].startswith("pairs")
    assert report["scope"]["citations"] == _campaign_citations()


def test_the_drill_down_lists_one_confusion_cell(world, staff_client):
    # given
    first = world["topics"][0]
    in_cell = [i for i, label in HUMAN[0].items() if label == "FS" and LLM[0][i] == "NS"]

    # when
    response = staff_client.get(f"/metrics/topics/{first}/", _query(world, label_a="FS", label_b="NS"))

    # then
    rows = response.context["rows"]
    assert len(rows) == len(in_cell)
    assert sorted(r.sentence_index for r in rows) == in_cell
    assert all((r.label_a, r.label_b) == ("FS", "NS") and len(r.runs) == RUNS for r in rows)


def test_the_drill_down_can_list_a_cell_where_they_agree(world, staff_client):
    # given
    first = world["topics"][0]
    agreeing = [i for i, label in HUMAN[0].items() if label == "FS" and LLM[0][i] == "FS"]

    # when
    response = staff_client.get(f"/metrics/topics/{first}/", _query(world, label_a="FS", label_b="FS"))

    # then
    assert sorted(r.sentence_index for r in response.context["rows"]) == agreeing


def test_the_drill_down_says_which_set_each_label_comes_from(world, staff_client):
    # when
    response = staff_client.get(f"/metrics/topics/{world['topics'][0]}/", _query(world))

    # then
    body = response.content.decode()
    cards = len(_disagreeing(0))
    assert body.count(f"A <code>{world['human']}</code>:") == cards
    assert body.count(f"B <code>{world['llm']}</code>:") == cards
    assert body.count("(judged on this citation)") == cards  # the human's
    assert body.count("(from the pair's judgment)") == cards  # the LLM judged pairs


def test_the_confusion_matrix_cells_link_to_their_drill_down(world, staff_client):
    # given
    matrix_fs_ns = sum(RUNS for t in HUMAN for i, label in HUMAN[t].items() if label == "FS" and LLM[t][i] == "NS")

    # when
    body = staff_client.get("/metrics/", _query(world)).content.decode()
    (href,) = re.findall(r'<a href="([^"]+)" class="cell-link" data-cell="FS-NS">', body)
    response = staff_client.get(href.replace("&amp;", "&"))

    # then
    assert response.status_code == 200
    assert response.context["found"].citations == matrix_fs_ns
    assert response.context["cell"] == ("FS", "NS")


def test_the_drill_down_refuses_an_unknown_label(world, staff_client):
    # when
    response = staff_client.get(f"/metrics/topics/{world['topics'][0]}/", _query(world, label_a="XX", label_b="NS"))

    # then
    assert response.status_code == 400
    assert "label_a and label_b" in response.content.decode()


@pytest.fixture
def many_disagreements():
    """One topic of 30 pairs, one run: the human says FS to each, the LLM NS."""
    campaign = study_campaign_build(pairs_per_topic=(30,), runs=1, name="many")
    human = JudgeFactory(name="hana", kind=JudgeKind.HUMAN)
    llm = JudgeFactory(name="llm-x", kind=JudgeKind.LLM)
    citations = Citation.objects.filter(sentence__answer__run__in=campaign.runs.all()).select_related("stored_pair")
    for citation in citations:
        pair = citation.stored_pair.pair
        JudgmentFactory(judge=human, pair=pair, citation=citation, label="FS", condition="from_scratch")
        PairJudgmentFactory(judge=llm, pair=pair, label="NS")
    passage = citations[0].passage
    passage.text = "A long passage. " * 80
    passage.save()
    return {"campaign": campaign, "topic": campaign.topics.get().topic_id, "n": len(citations)}


def test_the_drill_down_pages_by_25(many_disagreements, staff_client):
    # given
    url = f"/metrics/topics/{many_disagreements['topic']}/"
    query = {"campaign": "many", "a": "hana", "b": "llm-x"}

    # when
    first = staff_client.get(url, query)
    second = staff_client.get(url, {**query, "page": 2})

    # then
    assert len(first.context["rows"]) == 25
    assert len(second.context["rows"]) == many_disagreements["n"] - 25
    assert first.context["page"].paginator.num_pages == 2
    assert 'rel="next"' in first.content.decode()
    seen = {r.sentence_index for r in first.context["rows"]} | {r.sentence_index for r in second.context["rows"]}
    assert len(seen) == many_disagreements["n"]


def test_the_drill_down_folds_a_long_passage(many_disagreements, staff_client):
    # when
    body = staff_client.get(
        f"/metrics/topics/{many_disagreements['topic']}/", {"campaign": "many", "a": "hana", "b": "llm-x"}
    ).content.decode()

    # then
    assert body.count('class="passage-fold"') == 1
    assert "show all" in body


def test_the_api_gives_a_cell_of_the_drill_down_with_its_units(world, staff_client):
    # given
    first = world["topics"][0]
    in_cell = [i for i, label in HUMAN[0].items() if label == "FS" and LLM[0][i] == "NS"]

    # when
    body = staff_client.get(
        "/api/metrics/disagreements/", _query(world, topic=first, label_a="FS", label_b="NS")
    ).json()

    # then
    assert (body["citations"], body["pairs"]) == (len(in_cell) * RUNS, len(in_cell))
    assert body["citations_unit"] == "first citations"
    assert body["pairs_unit"].startswith("pairs")
    assert sorted(r["sentence_index"] for r in body["rows"]) == in_cell
    assert body["label_set_a"]["spec"] == world["human"]


def test_the_api_refuses_half_a_cell(world, staff_client):
    # when
    response = staff_client.get("/api/metrics/disagreements/", _query(world, label_a="FS"))

    # then
    assert response.status_code == 400


@pytest.mark.django_db
def test_the_metrics_page_links_to_the_studies(client, organizer):
    client.force_login(organizer)

    html = client.get(reverse("metrics:dashboard")).content.decode()

    assert f'href="{reverse("metrics:studies")}"' in html
