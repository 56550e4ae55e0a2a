"""Agreement: against scipy / scikit-learn on random data, and human vs Opus on the excerpt."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.core.management import call_command
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

from assess.importers.runs import RunFormat, RunOptions, runs_import
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.models import JudgeKind
from judging.pairs import pairs_for_citations
from judging.scope import EVERY_CITATION, scope_for
from metrics.agreement import self_consistency, self_consistency_arrays
from metrics.reports import agreement_report
from tests.factories import JudgeFactory, JudgmentFactory, PassageFactory, RunFactory, TopicFactory, answer_build

pytestmark = pytest.mark.usefixtures("fresh_cache")

LABELS = ["NS", "PS", "FS"]


@pytest.fixture
def random_judgments(db):
    """Two judges labelling 6 runs x 4 topics x 3 sentences at random (one citation per sentence)."""
    rng = np.random.default_rng(5)
    a, b = JudgeFactory(name="a"), JudgeFactory(name="b", kind=JudgeKind.LLM)
    topics = [TopicFactory() for _ in range(4)]
    labels_a, labels_b = [], []
    precision = {"a": {}, "b": {}}
    for r in range(6):
        run = RunFactory(run_id=f"run{r}")
        for topic in topics:
            answer = answer_build(
                run=run,
                topic=topic,
                sentences=[(f"r{r} {topic.topic_id} s{s}", [PassageFactory()]) for s in range(3)],
            )
            citations = [s.citations.select_related("sentence").get() for s in answer.sentences.order_by("index")]
            pairs = pairs_for_citations(citations=citations)
            weights = {"a": [], "b": []}
            for c in citations:
                la, lb = LABELS[rng.integers(3)], LABELS[rng.integers(3)]
                labels_a.append(la)
                labels_b.append(lb)
                JudgmentFactory(judge=a, pair=pairs[c.pk], citation=c, label=la)
                JudgmentFactory(judge=b, pair=pairs[c.pk], citation=c, label=lb)
                weights["a"].append({"NS": 0, "PS": 0.5, "FS": 1}[la])
                weights["b"].append({"NS": 0, "PS": 0.5, "FS": 1}[lb])
            for j in ("a", "b"):
                precision[j].setdefault(run.run_id, []).append(sum(weights[j]) / 3)
    return labels_a, labels_b, precision


def test_kappa_equals_scikit_learns_on_random_labels(random_judgments):
    # given
    labels_a, labels_b, _ = random_judgments

    # when
    report = agreement_report(a=label_set_get("a"), b=label_set_get("b"), scope=scope_for(), resamples=0)

    # then
    assert report["labels"]["n"] == 72
    assert report["labels"]["kappa"] == pytest.approx(cohen_kappa_score(labels_a, labels_b))
    assert report["labels"]["kappa_linear"] == pytest.approx(
        cohen_kappa_score(labels_a, labels_b, labels=LABELS, weights="linear")
    )
    assert report["labels"]["agreement"] == pytest.approx(np.mean(np.array(labels_a) == np.array(labels_b)))


def test_tau_equals_scipys_on_random_run_scores(random_judgments):
    # given
    _, _, precision = random_judgments
    runs = sorted(precision["a"])
    expected = kendalltau([np.mean(precision["a"][r]) for r in runs], [np.mean(precision["b"][r]) for r in runs])

    # when
    report = agreement_report(a=label_set_get("a"), b=label_set_get("b"), scope=scope_for(), resamples=0)

    # then
    assert report["runs"]["run_id"] == runs
    assert report["tau"]["precision"] == pytest.approx(expected.statistic)


def test_it_gives_no_tau_interval_from_four_topics_and_says_why(random_judgments):
    # when
    report = agreement_report(a=label_set_get("a"), b=label_set_get("b"), scope=scope_for(), resamples=200, seed=3)

    # then
    assert report["tau"]["precision"] is not None
    assert report["tau_ci"]["precision"] == [None, None]
    assert report["intervals"]["note"] == "no intervals: 4 topics, fewer than the 5 an interval needs"
    assert report["intervals"]["method"] == "delete-one-topic jackknife"


def test_it_matches_human_vs_opus_on_the_excerpt(db, data_dir):
    # given: the runs of the excerpt's two topics, from NIST's files; both label columns of the verdicts
    nist = data_dir / "nist-support"
    runs_import(
        files=[
            nist / "final.citation_judgments_without_prediction.20241025.jsonl",
            nist / "final.citation_judgments_Webassess.20241031.jsonl",
        ],
        fmt=RunFormat.NIST,
        options=RunOptions(topics=frozenset({"2024-32912", "2024-142395"})),
    )
    verdicts = data_dir / "excerpts" / "opus48_nist_verdicts.excerpt.jsonl"
    for judge, kind, column in (("nist-h", "human", "human_label"), ("opus", "llm", "opus_nist_label")):
        judgments_import(
            files=[verdicts],
            fmt=JudgmentFormat.EXCHANGE,
            options=JudgmentImportOptions(judge=judge, kind=kind, label_field=column),
        )

    # when: every citation slot (the excerpt has three second citations)
    report = agreement_report(
        a=label_set_get("nist-h"), b=label_set_get("opus"), scope=scope_for(depth=EVERY_CITATION), resamples=0
    )

    # then
    labels = report["labels"]
    assert labels["n"] == 131
    assert round(labels["agreement"], 4) == 0.4427
    assert round(labels["kappa"], 4) == 0.2182
    assert labels["matrix"] == [[15, 31, 23], [1, 10, 12], [2, 4, 33]]


def test_self_consistency_counts_pairs_labelled_differently():
    # when
    result = self_consistency({1: ["FS", "FS"], 2: ["FS", "NS", "FS"], 3: ["PS"]})

    # then
    assert (result.repeated_pairs, result.inconsistent_pairs, result.rate) == (2, 1, 0.5)


def test_the_agreement_command_writes_json(random_judgments, capsys):
    # when
    call_command("agreement", a="a", b="b", format="json", resamples=50)

    # then
    data = json.loads(capsys.readouterr().out)
    assert data["labels"]["n"] == 72
    assert set(data["tau"]) == {"precision", "recall"}


def test_self_consistency_from_arrays_equals_the_mapping_version():
    # given
    rng = np.random.default_rng(4)
    pairs = rng.integers(0, 40, 200)
    codes = rng.integers(0, 3, 200)
    by_pair = {}
    for p, c in zip(pairs.tolist(), codes.tolist(), strict=True):
        by_pair.setdefault(p, []).append(c)

    # when
    result = self_consistency_arrays(pairs, codes)

    # then
    assert result == self_consistency(by_pair)
