"""Scores (DESIGN §5), pure and through the database; which judgment is a citation's label."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau

from judging.labels import citation_labels, label_set_get
from judging.models import JudgeKind
from judging.pairs import pairs_for_citations
from judging.scope import scope_for
from metrics.bootstrap import kendall_tau_b_rows, run_intervals, tau_interval
from metrics.material import labels_get, material_get
from metrics.reports import answer_scores, scores_report
from metrics.scores import support_arrays
from tests.factories import (
    JudgeFactory,
    JudgmentFactory,
    PairJudgmentFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    answer_build,
)
from tests.reference.answer_score import AnswerLabels, answer_score

pytestmark = pytest.mark.usefixtures("fresh_cache")


def test_it_scores_the_papers_worked_example():
    # given: PS on the first sentence, FS on the second, the third cites nothing
    answer = AnswerLabels("t", "r", 3, (("PS",), ("FS",)))

    # when
    score = answer_score(answer)

    # then
    assert (score.precision, score.recall) == (0.75, 0.5)


def test_it_leaves_an_unjudged_citation_out_of_both_denominators():
    # given
    answer = AnswerLabels("t", "r", 3, (("FS",), (None,)))

    # when
    score = answer_score(answer)

    # then
    assert (score.precision, score.recall, score.judged) == (1.0, 0.5, 1)


def test_it_takes_a_sentences_best_judged_citation_for_recall_at_depth_two():
    # given
    answer = AnswerLabels("t", "r", 2, (("NS", "FS"), ("PS", None)))

    # when
    score = answer_score(answer)

    # then
    assert score.precision == pytest.approx(1.5 / 3)
    assert score.recall == pytest.approx((1.0 + 0.5) / 2)


def judge_on(judge, citation, label, **extra):
    """A judgment on the citation, on its stored pair (the factory stores it when missing)."""
    return JudgmentFactory(judge=judge, citation=citation, label=label, **extra)


def worked_example(run=None, topic=None, texts=("First claim.", "Second claim.", "Third claim.")):
    run = run or RunFactory()
    topic = topic or TopicFactory()
    p1, p2 = PassageFactory(), PassageFactory()
    answer = answer_build(run=run, topic=topic, sentences=[(texts[0], [p1]), (texts[1], [p2]), (texts[2], [])])
    first, second = (s.citations.select_related("sentence").get() for s in answer.sentences.order_by("index")[:2])
    return answer, first, second


def test_it_scores_the_worked_example_from_judgments_in_the_database(db):
    # given
    judge = JudgeFactory(name="nist")
    _, first, second = worked_example()
    judge_on(judge, first, "PS")
    judge_on(judge, second, "FS")

    # when
    report = scores_report(label_set=label_set_get("nist"), scope=scope_for(), resamples=0)

    # then
    (row,) = report.rows
    assert (row.weighted_precision, row.weighted_recall, row.mean_sentences, row.topics) == (0.75, 0.5, 3.0, 1)


def test_it_takes_the_newest_judgment_on_the_citation(db):
    # given
    judge = JudgeFactory(name="alice")
    _, first, _ = worked_example()
    judge_on(judge, first, "NS")
    judge_on(judge, first, "FS")

    # when
    (score,) = answer_scores(label_set=label_set_get("alice"), scope=scope_for())

    # then
    assert score.precision == 1.0


def test_it_prefers_a_judgment_on_the_citation_to_a_newer_one_on_its_pair(db):
    # given: the same sentence citing the same passage in two runs; alice judged it on run A, then on the
    # pair shown in run B's context
    topic = TopicFactory()
    passage = PassageFactory()
    a = answer_build(run=RunFactory(run_id="A"), topic=topic, sentences=[("Same text.", [passage])])
    b = answer_build(run=RunFactory(run_id="B"), topic=topic, sentences=[("Same  text.", [passage])])
    citation_a = a.sentences.get().citations.select_related("sentence").get()
    citation_b = b.sentences.get().citations.select_related("sentence").get()
    judge = JudgeFactory(name="alice")
    judge_on(judge, citation_a, "NS")
    judge_on(judge, citation_b, "FS")

    # when
    scores = {s.run_id: s.precision for s in answer_scores(label_set=label_set_get("alice"), scope=scope_for())}

    # then
    assert scores == {"A": 0.0, "B": 1.0}


def test_it_labels_every_citation_of_a_pair_judged_once(db):
    # given: a pre-label made on the pair alone (no citation), and the pair held by two runs (both
    # citations' pair stored, as a campaign build stores them)
    topic = TopicFactory()
    passage = PassageFactory()
    a = answer_build(run=RunFactory(run_id="A"), topic=topic, sentences=[("Same text.", [passage])])
    b = answer_build(run=RunFactory(run_id="B"), topic=topic, sentences=[("Same text.", [passage])])
    citation = a.sentences.get().citations.select_related("sentence").get()
    other = b.sentences.get().citations.select_related("sentence").get()
    pair = pairs_for_citations(citations=[citation, other])[citation.pk]
    PairJudgmentFactory(judge=JudgeFactory(name="gpt", kind=JudgeKind.LLM), pair=pair, label="PS")

    # when
    scores = {s.run_id: s.precision for s in answer_scores(label_set=label_set_get("gpt"), scope=scope_for())}

    # then
    assert scores == {"A": 0.5, "B": 0.5}


def test_one_judges_scores_never_take_another_judges_labels(db):
    # given
    _, first, second = worked_example()
    judge_on(JudgeFactory(name="alice"), first, "PS")
    judge_on(JudgeFactory(name="bob"), second, "FS")
    judge_on(JudgeFactory(name="gpt", kind=JudgeKind.LLM), second, "NS")

    # when
    report = scores_report(label_set=label_set_get("alice"), scope=scope_for(), resamples=0)

    # then: only alice's PS on the first sentence; "every human together" is no label set
    assert (report.rows[0].weighted_precision, report.rows[0].weighted_recall) == (0.5, 0.25)
    with pytest.raises(ValueError, match="no judge named 'human'"):
        label_set_get("human")


def test_a_topic_the_run_did_not_answer_counts_zero(db):
    # given: run R1 answers two judged topics, run R2 only the first
    judge = JudgeFactory(name="nist")
    t1, t2 = TopicFactory(), TopicFactory()
    r1, r2 = RunFactory(run_id="R1"), RunFactory(run_id="R2")
    for run, topic in ((r1, t1), (r1, t2), (r2, t1)):
        answer = answer_build(run=run, topic=topic, sentences=[(f"{run.run_id} {topic.topic_id}", [PassageFactory()])])
        judge_on(judge, answer.sentences.get().citations.select_related("sentence").get(), "FS")

    # when
    report = scores_report(label_set=label_set_get("nist"), scope=scope_for(), resamples=0)

    # then
    assert {r.run_id: r.weighted_precision for r in report.rows} == {"R1": 1.0, "R2": 0.5}


def test_it_filters_by_condition(db):
    # given
    judge = JudgeFactory(name="alice")
    _, first, second = worked_example()
    judge_on(judge, first, "FS", condition="from_scratch")
    judge_on(judge, second, "NS", condition="post_edit")

    # when
    report = scores_report(label_set=label_set_get("alice/post_edit"), scope=scope_for(), resamples=0)

    # then
    assert report.rows[0].weighted_precision == 0.0


def test_bootstrap_intervals_are_reproducible_with_a_seed_and_hold_the_mean():
    # given
    rng = np.random.default_rng(1)
    per_topic = rng.random((5, 30))

    # when
    first = run_intervals(per_topic, resamples=500, seed=7)
    second = run_intervals(per_topic, resamples=500, seed=7)

    # then
    assert first == second
    for interval, mean in zip(first, per_topic.mean(axis=1), strict=True):
        assert interval.low < mean < interval.high


def test_the_tau_interval_is_narrow_when_both_judges_agree_exactly():
    # given
    rng = np.random.default_rng(2)
    per_topic = rng.random((8, 20)) + np.arange(8)[:, None]

    # when
    interval = tau_interval(per_topic, per_topic.copy(), resamples=200, seed=1)

    # then
    assert (interval.low, interval.high) == (pytest.approx(1.0), pytest.approx(1.0))


def test_the_bootstraps_vectorised_tau_equals_scipys_with_ties():
    # given: rounded scores, so that many runs tie
    rng = np.random.default_rng(3)
    a = np.round(rng.random((40, 12)), 1)
    b = np.round(a + rng.normal(0, 0.2, a.shape), 1)

    # when
    taus = kendall_tau_b_rows(a, b, batch=7)

    # then
    assert taus == pytest.approx([kendalltau(a[k], b[k]).statistic for k in range(40)])


def test_the_vectorised_scores_equal_the_per_answer_function_on_random_answers():
    # given: random answers with 0-3 sentences cited at depth 2, some citations unjudged
    rng = np.random.default_rng(9)
    answers, codes, citation_sentence, sentence_answer, counts = [], [], [], [], []
    for a in range(50):
        n_sentences = int(rng.integers(1, 8))
        cited = []
        for _ in range(int(rng.integers(0, n_sentences + 1))):
            labels = [[None, "NS", "PS", "FS"][int(rng.integers(4))] for _ in range(int(rng.integers(1, 3)))]
            cited.append(tuple(labels))
            sentence_answer.append(a)
            for label in labels:
                codes.append(-1 if label is None else ["NS", "PS", "FS"].index(label))
                citation_sentence.append(len(sentence_answer) - 1)
        answers.append(AnswerLabels("t", str(a), n_sentences, tuple(cited)))
        counts.append(n_sentences)

    # when
    support = support_arrays(
        codes=np.array(codes),
        citation_sentence=np.array(citation_sentence, dtype=int),
        sentence_answer=np.array(sentence_answer, dtype=int),
        sentence_counts=np.array(counts),
    )

    # then
    expected = [answer_score(a) for a in answers]
    assert support.precision.tolist() == pytest.approx([e.precision for e in expected])
    assert support.recall.tolist() == pytest.approx([e.recall for e in expected])
    assert support.judged.tolist() == [e.judged for e in expected]


def test_labels_kept_from_before_new_judgments_equal_labels_read_afresh(db):
    # given: three runs holding the same two pairs, and a judge who labels citations and pairs at random
    rng = np.random.default_rng(12)
    topic = TopicFactory()
    passages = [PassageFactory(), PassageFactory()]
    citations = []
    for r in range(3):
        answer = answer_build(
            run=RunFactory(run_id=f"R{r}"), topic=topic, sentences=[("One.", [passages[0]]), ("Two.", [passages[1]])]
        )
        citations += [s.citations.select_related("sentence").get() for s in answer.sentences.order_by("index")]
    pairs = pairs_for_citations(citations=citations)
    judge = JudgeFactory(name="mixed", kind=JudgeKind.LLM)
    material = material_get(scope_for())
    labels_get(label_set_get("mixed"), material)  # kept with no judgments at all

    for _ in range(6):
        # when: a few new judgments, on citations or on pairs alone
        for _ in range(3):
            c = citations[int(rng.integers(len(citations)))]
            label = ["NS", "PS", "FS"][int(rng.integers(3))]
            on_citation = bool(rng.integers(2))
            JudgmentFactory(judge=judge, pair=pairs[c.pk], citation=c if on_citation else None, label=label)
        selection = label_set_get("mixed")
        kept = labels_get(selection, material)
        fresh = citation_labels(selection, citation_ids=material.citation_id, citation_pairs=material.citation_pair)

        # then
        assert kept.codes.tolist() == fresh.codes.tolist()
        assert kept.judgment_ids.tolist() == fresh.judgment_ids.tolist()
        assert kept.direct.tolist() == fresh.direct.tolist()
        assert kept.not_judged.tolist() == fresh.not_judged.tolist()
