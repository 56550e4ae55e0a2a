"""Factories for the models; tests build what they need with these."""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth.models import Group, User

from assess.models import Answer, Citation, Passage, Run, Sentence, Topic
from judging.models import Assignment, Campaign, Condition, Judge, JudgeKind, Judgment, Pair
from judging.pairs import normalize_sentence_text
from judging.pairs import text_hash as pair_text_hash


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-for-tests-1")


class OrganizerFactory(UserFactory):
    username = factory.Sequence(lambda n: f"organizer{n}")
    is_staff = True


class GroupFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Group

    name = factory.Sequence(lambda n: f"group{n}")


class TopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Topic
        django_get_or_create = ("topic_id",)

    topic_id = factory.Sequence(lambda n: f"2024-{1000 + n}")
    text = factory.Sequence(lambda n: f"question number {n}?")


class PassageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Passage
        django_get_or_create = ("passage_id",)

    passage_id = factory.Sequence(lambda n: f"msmarco_v2.1_doc_00_{n}#0_{n * 10}")
    title = factory.Sequence(lambda n: f"Title {n}")
    text = factory.Sequence(lambda n: f"Passage text number {n} about many things.")
    has_text = True

    class Params:
        # A row as a run's import leaves it: the id cited, no text loaded yet.
        without_text = factory.Trait(title="", text="", has_text=False)


class RunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Run
        django_get_or_create = ("run_id",)

    run_id = factory.Sequence(lambda n: f"team{n}.run{n}")
    group = factory.Sequence(lambda n: f"team{n}")


class AnswerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Answer

    run = factory.SubFactory(RunFactory)
    topic = factory.SubFactory(TopicFactory)
    references = factory.LazyFunction(list)


class SentenceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Sentence

    answer = factory.SubFactory(AnswerFactory)
    index = factory.Sequence(lambda n: n)
    text = factory.Sequence(lambda n: f"Sentence {n} states a fact.")


class CitationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Citation

    sentence = factory.SubFactory(SentenceFactory)
    slot = 0
    passage = factory.SubFactory(PassageFactory)
    reference_index = 0


class JudgeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Judge
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"judge{n}")
    kind = JudgeKind.HUMAN


class PairFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Pair

    text = factory.Sequence(lambda n: f"Pair sentence {n}.")
    text_hash = factory.LazyAttribute(lambda o: pair_text_hash(normalize_sentence_text(o.text)))
    passage = factory.SubFactory(PassageFactory)


class CampaignFactory(factory.django.DjangoModelFactory):
    """A campaign row with no runs, topics or pool (`build.campaign_create` + `campaign_build_pairs` build one)."""

    class Meta:
        model = Campaign

    name = factory.Sequence(lambda n: f"campaign{n}")
    depth = 1


class AssignmentFactory(factory.django.DjangoModelFactory):
    """An assignment row straight in the table: `services.assignments_create` is the path that checks blindness."""

    class Meta:
        model = Assignment

    campaign = factory.SubFactory(CampaignFactory)
    assessor = factory.SubFactory(UserFactory)
    topic = factory.SubFactory(TopicFactory)
    condition = Condition.FROM_SCRATCH


def answer_build(*, run: Run, topic: Topic, sentences: list[tuple[str, list[Passage]]]) -> Answer:
    """An answer whose sentences cite the given passages, in order (slot 0 first)."""
    refs: list[str] = []
    for _, passages in sentences:
        for p in passages:
            if p.passage_id not in refs:
                refs.append(p.passage_id)
    answer = AnswerFactory(run=run, topic=topic, references=refs)
    for i, (text, passages) in enumerate(sentences):
        sentence = SentenceFactory(answer=answer, index=i, text=text)
        for slot, p in enumerate(passages):
            CitationFactory(sentence=sentence, slot=slot, passage=p, reference_index=refs.index(p.passage_id))
    return answer


def llm_campaign_build(*, statements: list[str], name: str = "llm-campaign") -> Campaign:
    """A campaign whose pool holds one pair per statement (each citing its own passage)."""
    from judging.build import campaign_pairs_create
    from judging.models import CampaignPair
    from judging.pairs import pairs_for_citations

    topic = TopicFactory()
    run = RunFactory()
    passages = [PassageFactory() for _ in statements]
    answer = answer_build(run=run, topic=topic, sentences=[(s, [p]) for s, p in zip(statements, passages, strict=True)])
    citations = list(Citation.objects.filter(sentence__answer=answer).select_related("sentence"))
    pairs = pairs_for_citations(citations=citations)
    campaign = CampaignFactory(name=name, depth=1)
    campaign.runs.add(run)
    campaign.topics.add(topic)
    campaign_pairs_create(
        campaign_pairs=[
            CampaignPair(campaign=campaign, pair=pairs[c.pk], topic=topic, context_citation=c) for c in citations
        ]
    )
    return campaign


def judging_campaign_build(
    *,
    n_sentences: int = 12,
    name: str = "judging-campaign",
    passages_per_topic: int = 4,
    runs: int = 1,
    guidelines: str = "",
) -> Campaign:
    """A built campaign on one topic: `runs` runs answer it with the same `n_sentences` sentences, sentence i
    citing passage i % passages_per_topic (so runs share pairs, and pairs share passages). No guidelines by
    default: guidelines are shown over the first card until read (tests/judging/test_judging_guidelines.py)."""
    from judging.build import campaign_build_pairs, campaign_create

    topic = TopicFactory()
    passages = [PassageFactory() for _ in range(passages_per_topic)]
    run_rows = [RunFactory() for _ in range(runs)]
    for run in run_rows:
        answer_build(
            run=run,
            topic=topic,
            sentences=[(f"Claim {i} about the topic.", [passages[i % passages_per_topic]]) for i in range(n_sentences)],
        )
    campaign = campaign_create(name=name, runs=run_rows, topics=[topic], depth=1, guidelines=guidelines)
    campaign_build_pairs(campaign=campaign)
    return campaign


# --- disagreement study ----------------------------------------------------------------------------


def study_campaign_build(
    *, pairs_per_topic: tuple[int, ...] = (20, 5), runs: int = 2, name: str = "study-campaign"
) -> Campaign:
    """A built campaign: topic k has pairs_per_topic[k] sentences, each citing its own passage, answered the
    same by every run (so each pair has one citation per run). No guidelines (they would open over the card)."""
    from judging.build import campaign_build_pairs, campaign_create

    topics = [TopicFactory() for _ in pairs_per_topic]
    run_rows = [RunFactory() for _ in range(runs)]
    for topic, n in zip(topics, pairs_per_topic, strict=True):
        passages = [PassageFactory() for _ in range(n)]
        for run in run_rows:
            answer_build(
                run=run,
                topic=topic,
                sentences=[(f"Claim {i} about {topic.topic_id}.", [passages[i]]) for i in range(n)],
            )
    campaign = campaign_create(name=name, runs=run_rows, topics=topics, depth=1, guidelines="")
    campaign_build_pairs(campaign=campaign)
    return campaign


def study_labels_seed(campaign: Campaign, *, human: str = "nist", llm: str = "gpt-study", agree_every: int = 4):
    """`human` labels every citation (FS), `llm` labels every pair (pair-level, as pre-labels are): NS or PS
    on most, FS (agreeing) on every `agree_every`-th pair of each topic. Returns the two judges."""
    from judging.models import CampaignPair

    human_judge = JudgeFactory(name=human, kind=JudgeKind.HUMAN)
    llm_judge = JudgeFactory(name=llm, kind=JudgeKind.LLM)
    for topic in campaign.topics.all():
        pool = list(CampaignPair.objects.filter(campaign=campaign, topic=topic).order_by("pair_id"))
        for i, cp in enumerate(pool):
            for citation in Citation.objects.filter(
                sentence__answer__topic=topic, passage_id=cp.pair.passage_id, slot=0
            ):
                JudgmentFactory(
                    judge=human_judge, pair=cp.pair, citation=citation, label="FS", condition="from_scratch"
                )
            label = "FS" if i % agree_every == 0 else ("NS" if i % 2 else "PS")
            PairJudgmentFactory(judge=llm_judge, pair=cp.pair, label=label)
    return human_judge, llm_judge


class StudyFactory(factory.django.DjangoModelFactory):
    """A study row with an empty sample (`services.study_create` draws a real one), written to judging as
    `study_create` writes it: its adjudicators are held independent of its label sets' judges."""

    class Meta:
        model = "study.Study"
        skip_postgeneration_save = True

    a = "nist/from_scratch"
    b = "gpt-study"

    @factory.post_generation
    def sample(study, create: bool, extracted: Any, **kwargs: Any) -> None:
        from judging.models import Condition
        from judging.samples import sample_create

        if not create or study.sample_id is not None:
            return
        study.sample = sample_create(
            campaign=study.campaign,
            name=f"study #{study.pk}",
            condition=Condition.ADJUDICATION,
            pairs=[],
            independent_of=(("a", study.a), ("b", study.b)),
        )
        study.save(update_fields=["sample"])


class JudgmentFactory(factory.django.DjangoModelFactory):
    """A judgment on a citation's stored pair (the citation's pair is made when missing)."""

    class Meta:
        model = Judgment

    judge = factory.SubFactory(JudgeFactory)
    citation = factory.SubFactory(CitationFactory)
    pair = factory.LazyAttribute(lambda o: _pair_of(o.citation))
    label = "FS"
    condition = ""


class PairJudgmentFactory(JudgmentFactory):
    """A judgment on a pair alone, no citation (as LLM pre-labels and imported pair labels are)."""

    citation = None
    pair = factory.SubFactory(PairFactory)


def _pair_of(citation: Citation) -> Any:
    from judging.pairs import pairs_for_citations

    citation = Citation.objects.select_related("sentence").get(pk=citation.pk)
    return pairs_for_citations(citations=[citation])[citation.pk]


# --- blindness guards (DESIGN §3) ------------------------------------------------------------------


class LLMJudgeFactory(JudgeFactory):
    name = factory.Sequence(lambda n: f"llm-judge{n}")
    kind = JudgeKind.LLM


def campaign_sharing_build(*, campaign: Campaign, topic: Topic, name: str) -> Campaign:
    """A built campaign over `campaign`'s runs on one of its topics: its pool on the topic holds the same pairs."""
    from judging.build import campaign_build_pairs, campaign_create

    other = campaign_create(name=name, runs=campaign.runs.all(), topics=[topic], depth=campaign.depth)
    campaign_build_pairs(campaign=other)
    return other


def campaign_apart_build(*, topic: Topic, name: str, n_sentences: int = 2) -> Campaign:
    """A built campaign on `topic` whose one run says sentences of its own: no pair in common with another pool."""
    from judging.build import campaign_build_pairs, campaign_create

    run = RunFactory()
    answer_build(
        run=run,
        topic=topic,
        sentences=[(f"Claim {i} of campaign {name} alone.", [PassageFactory()]) for i in range(n_sentences)],
    )
    campaign = campaign_create(name=name, runs=[run], topics=[topic], depth=1)
    campaign_build_pairs(campaign=campaign)
    return campaign


def campaign_of_sizes_build(*, sizes: tuple[int, ...], name: str = "sized-campaign") -> Campaign:
    """A campaign whose topic k holds sizes[k] pairs (one run, one sentence and passage per pair), written in bulk:
    planning tests need many topics, and a factory per row made each one half a minute on a busy machine."""
    from judging.build import campaign_pairs_create
    from judging.models import CampaignPair, CitationPair

    run = RunFactory()
    stamp = f"{name}-{Topic.objects.count()}"
    topics = Topic.objects.bulk_create(
        [Topic(topic_id=f"{stamp}-t{k:03d}", text=f"question {k}?") for k in range(len(sizes))]
    )
    answers = Answer.objects.bulk_create([Answer(run=run, topic=t, references=[]) for t in topics])
    passages = Passage.objects.bulk_create(
        [
            Passage(passage_id=f"{stamp}-p{k}-{i}", title="T", text=f"Passage {i} of topic {k}.", has_text=True)
            for k, n in enumerate(sizes)
            for i in range(n)
        ]
    )
    texts = [f"Claim {i} of topic {k} in {stamp}." for k, n in enumerate(sizes) for i in range(n)]
    owners = [answers[k] for k, n in enumerate(sizes) for _ in range(n)]
    indexes = [i for n in sizes for i in range(n)]
    sentences = Sentence.objects.bulk_create(
        [Sentence(answer=a, index=i, text=t) for a, i, t in zip(owners, indexes, texts, strict=True)]
    )
    citations = Citation.objects.bulk_create(
        [Citation(sentence=s, slot=0, passage=p, reference_index=0) for s, p in zip(sentences, passages, strict=True)]
    )
    pairs = Pair.objects.bulk_create(
        [
            Pair(text=normalize_sentence_text(t), text_hash=pair_text_hash(normalize_sentence_text(t)), passage=p)
            for t, p in zip(texts, passages, strict=True)
        ]
    )
    CitationPair.objects.bulk_create([CitationPair(citation=c, pair=p) for c, p in zip(citations, pairs, strict=True)])
    campaign = CampaignFactory(name=name, depth=1)
    campaign.runs.add(run)
    campaign.topics.set(topics)
    campaign_pairs_create(
        campaign_pairs=[
            CampaignPair(campaign=campaign, pair=p, topic=a.topic, context_citation=c)
            for a, p, c in zip(owners, pairs, citations, strict=True)
        ]
    )
    return campaign
