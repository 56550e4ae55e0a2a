"""Pair building on the real NIST-derived answers: deduplication, depth, uncited sentences, missing text.

The expected figures are computed here straight from NIST's files, independently of the importer."""

from __future__ import annotations

import json
import math
import unicodedata

import pytest

from assess.importers.passages import passages_import
from assess.importers.runs import RunFormat, runs_import
from assess.models import Run, Topic
from judging import build
from judging.models import CampaignPair, Judgment, Pair
from tests.factories import PairJudgmentFactory, PassageFactory, RunFactory, TopicFactory, answer_build

WEBASSESS = "final.citation_judgments_Webassess.20241031.jsonl"
WITHOUT_PREDICTION = "final.citation_judgments_without_prediction.20241025.jsonl"


def _norm(text) -> str:
    if not isinstance(text, str) or (isinstance(text, float) and math.isnan(text)):
        text = ""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _expected(path, depth, with_text):
    sentences = uncited = citations = kept = no_text = 0
    pairs = set()
    for line in path.open():
        row = json.loads(line)
        for s in row["sentences"]:
            sentences += 1
            refs = [c["reference"] for c in s.get("citations", [])]
            uncited += not refs
            for ref in refs[:depth]:
                citations += 1
                no_text += not _norm(s["text"])
                if ref in with_text and _norm(s["text"]):
                    kept += 1
                    pairs.add((str(row["topic_id"]), _norm(s["text"]), ref))
    return {
        "sentences": sentences,
        "sentences_uncited": uncited,
        "citations": citations,
        "citations_kept": kept,
        "pairs": len(pairs),
        "judgments_saved": kept - len(pairs),
        "citations_without_sentence_text": no_text,
    }


@pytest.fixture
def nist(db, data_dir):
    def load(name):
        path = data_dir / "nist-support" / name
        runs_import(files=[path], fmt=RunFormat.NIST)
        segments = data_dir / "segments" / "nist-cited-segments.jsonl"
        passages_import(files=[segments])
        with_text = {json.loads(line)["docid"] for line in segments.open()}
        return path, with_text

    return load


def _campaign(depth, name="nist"):
    return build.campaign_create(name=name, runs=Run.objects.all(), topics=Topic.objects.all(), depth=depth)


def test_it_builds_one_pair_per_distinct_sentence_and_passage_on_nist_answers(nist):
    # given
    path, with_text = nist(WITHOUT_PREDICTION)
    expected = _expected(path, 1, with_text)

    # when
    summary = build.campaign_build_pairs(campaign=_campaign(1), allow_missing_text=True)

    # then
    for key, value in expected.items():
        assert summary[key] == value, key
    assert summary["judgments_saved"] > 0
    assert summary["citations_without_sentence_text"] > 0
    assert CampaignPair.objects.count() == expected["pairs"]


def test_it_takes_the_first_k_citations_of_each_sentence_at_depth_k(nist):
    # given Webassess answers, which cite up to 3 passages per sentence
    path, with_text = nist(WEBASSESS)
    one = _expected(path, 1, with_text)
    three = _expected(path, 3, with_text)

    # when
    at_one = build.campaign_build_pairs(campaign=_campaign(1, "d1"), allow_missing_text=True)
    at_three = build.campaign_build_pairs(campaign=_campaign(3, "d3"), allow_missing_text=True)

    # then
    assert (at_one["citations"], at_one["pairs"]) == (one["citations"], one["pairs"])
    assert (at_three["citations"], at_three["pairs"]) == (three["citations"], three["pairs"])
    assert at_three["citations"] > at_one["citations"]
    assert at_one["sentences_uncited"] == one["sentences_uncited"] > 0


def test_it_stops_the_build_naming_the_passages_without_text(nist):
    path, with_text = nist(WITHOUT_PREDICTION)
    campaign = _campaign(1)

    with pytest.raises(build.CampaignBuildError) as exc:
        build.campaign_build_pairs(campaign=campaign)

    missing = {
        c["reference"]
        for line in path.open()
        for s in json.loads(line)["sentences"]
        for c in s.get("citations", [])[:1]
        if c["reference"] not in with_text
    }
    assert set(exc.value.missing_passages) == missing
    assert f"{len(missing)} cited passages have no text" in exc.value.message
    assert not CampaignPair.objects.exists()


def test_it_gives_uncited_sentences_no_pair(db):
    topic = TopicFactory()
    passage = PassageFactory()
    answer_build(run=RunFactory(), topic=topic, sentences=[("Cited.", [passage]), ("Not cited.", [])])
    campaign = build.campaign_create(name="c", runs=Run.objects.all(), topics=[topic])

    summary = build.campaign_build_pairs(campaign=campaign)

    assert summary["sentences_uncited"] == 1
    assert list(CampaignPair.objects.values_list("pair__text", flat=True)) == ["Cited."]


def test_it_treats_text_differing_only_in_unicode_form_and_spaces_as_one_pair(db):
    topic = TopicFactory()
    passage = PassageFactory()
    answer_build(run=RunFactory(), topic=topic, sentences=[("The  war\u00a0cost ﬁve.", [passage])])
    answer_build(run=RunFactory(), topic=topic, sentences=[(" The war cost five. ", [passage])])
    campaign = build.campaign_create(name="c", runs=Run.objects.all(), topics=[topic])

    summary = build.campaign_build_pairs(campaign=campaign)

    assert summary["pairs"] == 1
    assert CampaignPair.objects.get().citation_count == 2


def test_it_leaves_out_and_counts_citations_of_sentences_without_text(db):
    topic = TopicFactory()
    passage = PassageFactory()
    answer_build(run=RunFactory(), topic=topic, sentences=[("", [passage]), ("Said.", [passage])])
    answer_build(run=RunFactory(), topic=topic, sentences=[("  ", [passage])])
    campaign = build.campaign_create(name="c", runs=Run.objects.all(), topics=[topic])

    summary = build.campaign_build_pairs(campaign=campaign)

    assert summary["citations_without_sentence_text"] == 2
    assert summary["citations_left_out"] == 2
    assert list(CampaignPair.objects.values_list("pair__text", flat=True)) == ["Said."]


def test_it_rebuilds_to_the_same_pairs_and_keeps_their_judgments(db):
    topic = TopicFactory()
    answer_build(run=RunFactory(), topic=topic, sentences=[("A.", [PassageFactory()]), ("B.", [PassageFactory()])])
    campaign = build.campaign_create(name="c", runs=Run.objects.all(), topics=[topic])
    build.campaign_build_pairs(campaign=campaign)
    before = set(CampaignPair.objects.values_list("pair_id", flat=True))
    judged = PairJudgmentFactory(pair=Pair.objects.get(pk=min(before)), label="FS")

    build.campaign_build_pairs(campaign=campaign)

    assert set(CampaignPair.objects.values_list("pair_id", flat=True)) == before
    assert Judgment.objects.filter(pk=judged.pk, pair_id=min(before)).exists()
