"""The label rule and label sets (judging/labels.py, DESIGN §2): one home that metrics and the study call."""

from __future__ import annotations

import numpy as np
import pytest

from assess.models import Citation
from judging.label_set_names import LabelSetError
from judging.labels import citation_labels, label_set_get
from judging.models import NOT_JUDGED, CampaignPair, Condition, JudgmentOrigin
from judging.pairs import pairs_for_citations
from tests.factories import (
    AssignmentFactory,
    GroupFactory,
    JudgeFactory,
    JudgmentFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
    answer_build,
    judging_campaign_build,
)

pytestmark = pytest.mark.django_db


def _two_runs_one_pair():
    """Two runs whose first sentence is the same text citing the same passage: one pair, two citations."""
    topic, passage = TopicFactory(), PassageFactory()
    citations = []
    for _ in range(2):
        answer = answer_build(run=RunFactory(), topic=topic, sentences=[("The same claim.", [passage])])
        citations.append(Citation.objects.select_related("sentence").get(sentence__answer=answer))
    pairs = pairs_for_citations(citations=citations)
    assert pairs[citations[0].pk] == pairs[citations[1].pk]
    return citations, pairs[citations[0].pk]


def _labels(spec, citations):
    ids = np.array([c.pk for c in citations], dtype=np.int64)
    pairs = np.array([c.stored_pair.pair_id for c in citations], dtype=np.int64)
    return citation_labels(label_set_get(spec), citation_ids=ids, citation_pairs=pairs)


def test_it_never_lets_an_imported_label_stand_in_for_another_citation():
    # given: NIST labelled run 1's citation only; run 2's citation of the same pair is NIST's -1
    (one, two), pair = _two_runs_one_pair()
    nist = JudgeFactory(name="nist")
    JudgmentFactory(judge=nist, citation=one, pair=pair, label="FS", origin=JudgmentOrigin.IMPORT)
    JudgmentFactory(judge=nist, citation=two, pair=pair, label=NOT_JUDGED, origin=JudgmentOrigin.IMPORT)

    # when
    labels = _labels("nist", [one, two])

    # then
    assert labels.codes.tolist() == [2, -1]
    assert labels.not_judged.tolist() == [False, True]
    assert labels.direct.tolist() == [True, True]  # the -1 is a judgment on that very citation


def test_it_leaves_an_imported_citation_with_no_label_of_its_own_unlabelled():
    (one, two), pair = _two_runs_one_pair()
    JudgmentFactory(judge=JudgeFactory(name="nist"), citation=one, pair=pair, label="PS", origin=JudgmentOrigin.IMPORT)

    labels = _labels("nist", [one, two])

    assert labels.codes.tolist() == [1, -1]
    assert labels.not_judged.tolist() == [False, False]


def test_it_lets_a_platform_judgment_on_a_pair_count_for_every_citation_of_that_pair():
    # given: an LLM pre-label is made on the pair alone
    (one, two), pair = _two_runs_one_pair()
    JudgmentFactory(judge=JudgeFactory(name="gpt", kind="llm"), citation=None, pair=pair, label="NS")

    labels = _labels("gpt", [one, two])

    assert labels.codes.tolist() == [0, 0]
    assert labels.direct.tolist() == [False, False]


def test_it_takes_the_newest_judgment_and_a_newer_skip_unlabels():
    (one, two), pair = _two_runs_one_pair()
    judge = JudgeFactory(name="alice")
    JudgmentFactory(judge=judge, citation=one, pair=pair, label="FS", condition=Condition.FROM_SCRATCH)
    JudgmentFactory(judge=judge, citation=one, pair=pair, label="PS", condition=Condition.FROM_SCRATCH)
    assert _labels("alice", [one, two]).codes.tolist() == [1, 1]

    JudgmentFactory(judge=judge, citation=one, pair=pair, label=NOT_JUDGED, condition=Condition.FROM_SCRATCH)

    labels = _labels("alice", [one, two])
    assert labels.codes.tolist() == [-1, -1]
    assert labels.not_judged.tolist() == [True, True]


def test_it_asks_for_a_condition_when_a_judge_has_labels_in_several():
    (one, _two), pair = _two_runs_one_pair()
    judge = JudgeFactory(name="bob")
    JudgmentFactory(judge=judge, citation=one, pair=pair, condition=Condition.FROM_SCRATCH)
    JudgmentFactory(judge=judge, citation=one, pair=pair, condition=Condition.POST_EDIT)

    with pytest.raises(LabelSetError, match="bob/from_scratch"):
        label_set_get("bob")
    assert label_set_get("bob/post_edit").condition == Condition.POST_EDIT


def test_it_keeps_post_edit_judgments_out_of_a_from_scratch_set():
    (one, two), pair = _two_runs_one_pair()
    judge = JudgeFactory(name="carol")
    JudgmentFactory(judge=judge, citation=one, pair=pair, label="NS", condition=Condition.FROM_SCRATCH)
    JudgmentFactory(judge=judge, citation=one, pair=pair, label="FS", condition=Condition.POST_EDIT)

    assert _labels("carol/from_scratch", [one, two]).codes.tolist() == [0, 0]
    assert _labels("carol/post_edit", [one, two]).codes.tolist() == [2, 2]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "no label set given"),
        ("nobody", "no judge named 'nobody'"),
        ("campaign:none/from_scratch", "no campaign named 'none'"),
        ("campaign:demo", "needs a condition"),
        ("group:none/post_edit", "no user group named 'none'"),
    ],
)
def test_it_refuses_a_label_set_that_does_not_exist_with_what_to_write(spec, message):
    with pytest.raises(LabelSetError, match=message):
        label_set_get(spec)


def _campaign_with_assessors(n: int):
    campaign = judging_campaign_build(n_sentences=3, name="votes")
    topic = campaign.topics.get()
    people = [UserFactory() for _ in range(n)]
    assignments = [
        AssignmentFactory(campaign=campaign, assessor=u, topic=topic, condition=Condition.FROM_SCRATCH) for u in people
    ]
    pool = list(CampaignPair.objects.filter(campaign=campaign).order_by("position").select_related("context_citation"))
    return campaign, people, assignments, pool


def _vote(user, assignment, cp, label, condition=Condition.FROM_SCRATCH):
    judge = JudgeFactory(name=user.username, user=user)
    return JudgmentFactory(
        judge=judge, citation=cp.context_citation, pair=cp.pair, label=label, condition=condition, assignment=assignment
    )


def _pool_labels(spec, pool):
    return _labels(spec, [Citation.objects.get(pk=cp.context_citation_id) for cp in pool])


def test_it_takes_the_majority_of_a_campaigns_assessors():
    _campaign, people, assignments, pool = _campaign_with_assessors(3)
    for person, assignment, label in zip(people, assignments, ["FS", "FS", "NS"], strict=True):
        _vote(person, assignment, pool[0], label)

    labels = _pool_labels("campaign:votes/from_scratch", pool)

    assert labels.codes.tolist()[0] == 2
    assert labels.tied.tolist()[0] is False


def test_it_leaves_a_tie_out_unless_it_was_adjudicated():
    campaign, people, assignments, pool = _campaign_with_assessors(2)
    _vote(people[0], assignments[0], pool[0], "FS")
    _vote(people[1], assignments[1], pool[0], "NS")
    spec = "campaign:votes/from_scratch"
    tied = _pool_labels(spec, pool)
    assert tied.codes.tolist()[0] == -1
    assert tied.tied.tolist()[0] is True

    # when: an independent assessor adjudicates the pair
    referee = UserFactory()
    adjudication = AssignmentFactory(
        campaign=campaign, assessor=referee, topic=campaign.topics.get(), condition=Condition.ADJUDICATION
    )
    _vote(referee, adjudication, pool[0], "PS", condition=Condition.ADJUDICATION)

    # then
    decided = _pool_labels(spec, pool)
    assert decided.codes.tolist()[0] == 1
    assert decided.tied.tolist()[0] is False


def test_it_reads_a_named_group_of_assessors():
    _campaign, people, assignments, pool = _campaign_with_assessors(3)
    group = GroupFactory(name="nist-team")
    group.user_set.add(people[0], people[1])
    for person, assignment, label in zip(people, assignments, ["PS", "PS", "FS"], strict=True):
        _vote(person, assignment, pool[0], label)

    label_set = label_set_get("group:nist-team/from_scratch")

    assert len(label_set.judge_ids) == 2
    assert _pool_labels("group:nist-team/from_scratch", pool).codes.tolist()[0] == 1
