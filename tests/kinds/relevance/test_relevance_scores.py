"""Relevance figures: nDCG by ir_measures against a tiny computation by hand (trec_eval's nDCG: gain = grade,
discount log2(rank + 1), ideal from every graded passage of the topic); the report of UMBRELA against NIST's
assessors on the repository's files (agreement and kappa recomputed here with the standard library); the
UMBRELA reply parser."""

from __future__ import annotations

import io
import math

import pytest
from django.core.management import call_command

from assess.importers.qrels import relevance_import
from kinds.relevance.prompt import PROMPT_VERSION, label_parse, messages_for
from kinds.relevance.report import relevance_report
from kinds.relevance.scores import ndcg_of_runs, run_file_lines
from tests.factories import AnswerFactory, PassageFactory, RunFactory, TopicFactory
from tests.kinds.relevance.conftest import NIST_QRELS, QRELS, qrels_of


def _ndcg(ranking, grades, k):
    dcg = sum(grades.get(p, 0) / math.log2(i + 2) for i, p in enumerate(ranking[:k]))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def test_ndcg_matches_a_computation_by_hand():
    qrels = {("t1", "a"): 3, ("t1", "b"): 0, ("t1", "c"): 2, ("t1", "d"): 1, ("t2", "x"): 1, ("t2", "y"): 2}
    runs = {"r1": {"t1": ["b", "a", "e", "d", "b"], "t2": ["y"]}, "r2": {"t1": ["c", "d", "a"]}}
    got = ndcg_of_runs(qrels, runs, ["t1", "t2"])
    g1 = {k[1]: v for k, v in qrels.items() if k[0] == "t1"}
    g2 = {k[1]: v for k, v in qrels.items() if k[0] == "t2"}
    for k in (10, 20):
        expect_r1 = (_ndcg(["b", "a", "e", "d"], g1, k) + _ndcg(["y"], g2, k)) / 2
        expect_r2 = (_ndcg(["c", "d", "a"], g1, k) + 0.0) / 2  # r2 did not answer t2: 0, as trec_eval -c
        assert got["r1"][f"nDCG@{k}"] == pytest.approx(expect_r1)
        assert got["r2"][f"nDCG@{k}"] == pytest.approx(expect_r2)


def test_run_file_lines_are_trec_run_lines():
    assert run_file_lines("r", {"t": ["a", "b", "a"]}) == ["t Q0 a 1 -1 r", "t Q0 b 2 -2 r"]


@pytest.mark.parametrize(
    ("reply", "grade"),
    [
        ("##final score: 2", 2),
        ("M: 2, T: 1\n##Final Score: 3", 3),
        ("##final score: 1\n##final score: 0", 0),
        ("##final score: 4", None),
        ("score 2", None),
        ("", None),
    ],
)
def test_reply_parser(reply, grade):
    assert label_parse(reply) == grade


def test_prompt_holds_the_question_and_the_passage(db):
    passage = PassageFactory(title="Moon", text="The moon is rock.")
    [message] = messages_for("what is the moon made of?", passage)
    assert message["role"] == "user"
    assert "Query: what is the moon made of?" in message["content"]
    assert "Passage: Moon: The moon is rock." in message["content"]
    assert "##final score" in message["content"]
    assert PROMPT_VERSION


@pytest.mark.django_db
def test_umbrela_against_nist_assessors(data_dir):
    """UMBRELA's grades against NIST's relevance qrels (the excerpt's topics), unit topic-passage."""
    relevance_import(files=[data_dir / QRELS], source="umbrela")
    relevance_import(files=[data_dir / NIST_QRELS], source="nist-qrels")
    nist, umbrela = qrels_of(data_dir / NIST_QRELS), qrels_of(data_dir / QRELS)
    both = sorted(set(nist) & set(umbrela))
    n = len(both)
    observed = sum(nist[k] == umbrela[k] for k in both) / n
    expected = sum((sum(nist[k] == g for k in both) / n) * (sum(umbrela[k] == g for k in both) / n) for g in range(4))
    kappa = (observed - expected) / (1 - expected)
    topic = TopicFactory(topic_id="2024-32912")
    ranked = sorted((p for t, p in umbrela if t == topic.topic_id), key=lambda p: -umbrela[(topic.topic_id, p)])
    for run_id, ranking in (("best", ranked[:20]), ("worst", ranked[::-1][:20])):
        AnswerFactory(run=RunFactory(run_id=run_id), topic=topic, references=ranking)
    report = relevance_report("nist-qrels", "umbrela", resamples=0)
    assert report.unit == "topic-passage"
    assert report.agreement.n == n == 94
    assert report.agreement.agreement == pytest.approx(observed)
    assert report.agreement.kappa == pytest.approx(kappa)
    assert sum(map(sum, report.agreement.matrix)) == n
    assert len(report.agreement.matrix) == 4
    assert report.coverage.topics_both == 1
    assert next(r.run_id for r in report.runs) == "best"
    text = io.StringIO()
    call_command("relevance_report", "--a", "nist-qrels", "--b", "umbrela", stdout=text)
    assert f"exact {observed:.4f}" in text.getvalue()
