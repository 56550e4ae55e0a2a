"""The disagreement study's sample: drawn per topic from the disagreements, reproducible from the seed."""

from __future__ import annotations

import pytest

from judging.models import Judgment
from metrics.study.models import StudyItem
from metrics.study.services import StudyError, study_create
from tests.factories import study_campaign_build, study_labels_seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    campaign = study_campaign_build(pairs_per_topic=(20, 5))
    study_labels_seed(campaign)
    return campaign


def _sample(study):
    return [
        (i.topic.topic_id, i.pair_id, i.order) for i in StudyItem.objects.filter(study=study).select_related("topic")
    ]


def test_it_draws_the_same_sample_from_the_same_seed(campaign):
    # given
    first = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=6, seed=3)
    # when
    second = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=6, seed=3)
    # then
    assert _sample(first) == _sample(second)
    assert len(_sample(first)) == 6 + 3


def test_it_draws_another_sample_from_another_seed(campaign):
    first = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=6, seed=0)
    other = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=6, seed=1)
    assert _sample(first) != _sample(other)


def test_it_samples_only_pairs_where_the_two_judges_disagree(campaign):
    study = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=20, seed=0)
    items = list(StudyItem.objects.filter(study=study))
    assert items
    for item in items:
        assert item.label_a == "FS"
        assert item.label_b in ("PS", "NS")
        llm = Judgment.objects.filter(judge__name="gpt-study", pair=item.pair).latest("pk").label
        assert llm == item.label_b


def test_it_draws_per_topic_and_a_short_topic_gives_what_it_has(campaign):
    # given: 15 disagreements in the first topic (20 pairs, every 4th agrees), 3 in the second (5 pairs)
    study = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=10, seed=0)
    # then
    by_topic = {t["topic_id"]: t for t in study.summary["topics"]}
    first, second = sorted(campaign.topics.values_list("topic_id", flat=True))
    assert (by_topic[first]["disagreements"], by_topic[first]["sampled"], by_topic[first]["short"]) == (15, 10, False)
    assert (by_topic[second]["disagreements"], by_topic[second]["sampled"], by_topic[second]["short"]) == (3, 3, True)
    assert study.summary["short_topics"] == [second]


def test_a_topics_sample_does_not_depend_on_the_other_topics(campaign):
    # given: the same campaign topics, but fewer pairs sampled elsewhere cannot change a topic's draw
    whole = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=3, seed=5)
    first = sorted(campaign.topics.values_list("topic_id", flat=True))[0]
    # when: the second topic's labels change (no more disagreements there)
    Judgment.objects.filter(
        judge__name="gpt-study",
        pair__campaign_pairs__topic__topic_id=sorted(campaign.topics.values_list("topic_id", flat=True))[1],
    ).update(label="FS")
    again = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=3, seed=5)
    # then
    assert [s for s in _sample(whole) if s[0] == first] == [s for s in _sample(again) if s[0] == first]
    assert len(_sample(again)) == 3


def test_it_stores_the_label_sets_it_compares_and_refuses_every_human_together(campaign):
    study = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=4, seed=0)
    assert (study.a, study.b) == ("nist/from_scratch", "gpt-study/none")
    assert StudyItem.objects.filter(study=study).count() == 4 + 3
    with pytest.raises(StudyError, match="no judge named 'human'"):
        study_create(campaign=campaign, a="human", b="gpt-study")


def test_it_refuses_an_unknown_judge(campaign):
    with pytest.raises(StudyError, match="no judge named 'nobody'"):
        study_create(campaign=campaign, a="nist", b="nobody")
