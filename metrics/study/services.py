"""Writes for the disagreement study (DESIGN §6): sample the pairs where two judges disagree, assign them for
blind re-judging (`adjudication`), and run a second LLM judge on the sampled pairs only."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from assess.models import Topic
from judging import samples, services
from judging.blindness import BlindnessViolation
from judging.label_set_names import LabelSetError
from judging.labels import label_set_get
from judging.llm import chunks as llm_chunks
from judging.llm import services as llm_services
from judging.llm.client import ProviderNotConfigured, provider_check
from judging.llm.models import PrelabelJob, PrelabelMode, PrelabelStatus
from judging.models import Assignment, Campaign, Condition, Judge, JudgeKind, Sample
from metrics.study.models import Study, StudyItem
from metrics.study.selectors import PoolCitation, pool_citations, pool_labels, study_pair_ids

logger = logging.getLogger(__name__)

DEFAULT_PER_TOPIC = 15


class StudyError(ValueError):
    """A request an organizer can correct: unknown judge, unbuilt campaign, an assessor who is not independent."""


def _topic_random(seed: int, topic_id: str) -> random.Random:
    # A string seed is hashed with SHA-512 by `random`: the same draw on every machine and Python process.
    return random.Random(f"study:{seed}:{topic_id}")


def _disagreements(
    citations: list[PoolCitation], labels_a: dict[int, str], labels_b: dict[int, str]
) -> dict[int, dict[int, PoolCitation]]:
    """Per topic, per pair: the citation a disagreement is sampled on. A pair disagrees when one of its pool
    citations has labels from both judges that differ; the citation shown as context wins, else the lowest id."""
    found: dict[int, dict[int, PoolCitation]] = {}
    for c in citations:
        a, b = labels_a.get(c.citation_id), labels_b.get(c.citation_id)
        if a is None or b is None or a == b:
            continue
        pairs = found.setdefault(c.topic_pk, {})
        if c.pair_id not in pairs or (c.context and not pairs[c.pair_id].context):
            pairs[c.pair_id] = c
    return found


@transaction.atomic
def study_create(
    *,
    campaign: Campaign,
    a: str,
    b: str,
    per_topic: int = DEFAULT_PER_TOPIC,
    seed: int = 0,
    created_by: User | None = None,
) -> Study:
    """Sample up to `per_topic` pairs per campaign topic on which label sets `a` and `b` disagree, reproducibly
    from `seed`.

    Each topic draws from its own generator (seeded with the study's seed and the topic id), from its
    disagreeing pairs sorted by id, so a topic's sample depends on nothing else. The drawn order is the
    queue order: random, so it says nothing about which judge said what. Topics with fewer disagreements
    give what they have; the summary says so."""
    if per_topic < 1:
        raise StudyError("sample at least one pair per topic")
    try:
        set_a, set_b = label_set_get(a), label_set_get(b)
    except LabelSetError as error:
        raise StudyError(str(error)) from None
    if set_a.spec == set_b.spec:
        raise StudyError("a study compares two different label sets")
    citations = pool_citations(campaign=campaign)
    if not citations:
        raise StudyError(f"campaign {campaign.name!r} has no pairs: build it first")
    labels_a = pool_labels(label_set=set_a, citations=citations)
    labels_b = pool_labels(label_set=set_b, citations=citations)
    disagreeing = _disagreements(citations, labels_a, labels_b)
    both: dict[int, set[int]] = {}
    for c in citations:
        if c.citation_id in labels_a and c.citation_id in labels_b:
            both.setdefault(c.topic_pk, set()).add(c.pair_id)
    study = Study.objects.create(
        campaign=campaign, a=set_a.spec, b=set_b.spec, per_topic=per_topic, seed=seed, created_by=created_by
    )
    items, topics_summary = _study_items_draw(
        study=study, disagreeing=disagreeing, both=both, labels_a=labels_a, labels_b=labels_b
    )
    StudyItem.objects.bulk_create(items)
    study.sample = _study_sample_write(study, items)
    study.summary = {
        "topics": topics_summary,
        "sampled": len(items),
        "short_topics": [t["topic_id"] for t in topics_summary if t["short"]],
    }
    study.save(update_fields=["summary", "sample"])
    return study


def _study_sample_write(study: Study, items: list[StudyItem]) -> Sample:
    """What judging's queue and blindness read of the study: its pairs in the drawn order, the label sets whose
    judges may not adjudicate it."""
    return samples.sample_create(
        campaign=study.campaign,
        name=f"study #{study.pk}",
        condition=Condition.ADJUDICATION,
        pairs=[(item.topic_id, item.pair_id) for item in items],
        independent_of=(("a", study.a), ("b", study.b)),
    )


def _study_items_draw(
    *,
    study: Study,
    disagreeing: dict[int, dict[int, PoolCitation]],
    both: dict[int, set[int]],
    labels_a: dict[int, str],
    labels_b: dict[int, str],
) -> tuple[list[StudyItem], list[dict]]:
    """Each campaign topic's sample, drawn from its disagreeing pairs with the topic's own generator, and the
    topic's line of the summary."""
    campaign, per_topic, seed = study.campaign, study.per_topic, study.seed
    items: list[StudyItem] = []
    topics_summary = []
    for topic in campaign.topics.order_by("topic_id"):
        candidates = sorted(disagreeing.get(topic.pk, {}).values(), key=lambda c: c.pair_id)
        drawn = _topic_random(seed, topic.topic_id).sample(candidates, min(per_topic, len(candidates)))
        for order, c in enumerate(drawn):
            items.append(
                StudyItem(
                    study=study,
                    topic_id=topic.pk,
                    pair_id=c.pair_id,
                    citation_id=c.citation_id,
                    label_a=labels_a[c.citation_id],
                    label_b=labels_b[c.citation_id],
                    order=order,
                )
            )
        topics_summary.append(
            {
                "topic_id": topic.topic_id,
                "pairs_labelled_by_both": len(both.get(topic.pk, ())),
                "disagreements": len(candidates),
                "sampled": len(drawn),
                "short": len(drawn) < per_topic,
            }
        )
    return items, topics_summary


# --- adjudication ---------------------------------------------------------------------------------


@transaction.atomic
def study_assign(*, study: Study, assessor: User, topics: Iterable[Topic] | None = None) -> list[Assignment]:
    """Give an independent assessor an `adjudication` assignment per study topic (those with a sample): their
    queue is the sample of that topic, shuffled, with neither judge's label shown.

    Refused for an assessor who is not independent on a topic (the blindness rules, judging/blindness.py: one
    who judged it in any condition, or is one of the study's judges), or whose adjudication assignment for a
    topic already re-judges another study of the campaign. The queue keeps the assignments to the sample
    (`judging.samples.sample_assign`)."""
    sample = study.sample
    if sample is None:  # every study has one since study_create wrote it (older ones: migration study/0002)
        raise StudyError(f"study #{study.pk} has no sample in judging's tables")
    sampled_topics = set(StudyItem.objects.filter(study=study).values_list("topic_id", flat=True))
    candidates = topics if topics is not None else study.campaign.topics.order_by("topic_id")
    chosen = [t for t in candidates if t.pk in sampled_topics]
    if not chosen:
        raise StudyError("the study has no sampled pairs in these topics")
    try:
        made = services.assignments_create(
            campaign=study.campaign,
            assessor=assessor,
            topics=chosen,
            condition=Condition.ADJUDICATION,
            sample=samples.sample_judges(sample),
        )
    except BlindnessViolation as violation:
        # The study's page, API and command report StudyError as an organizer's error to correct.
        raise StudyError(violation.message) from violation
    for assignment in made:
        other = assignment.sample
        if other is not None and other.pk != sample.pk:
            raise StudyError(
                f"{assessor.get_username()}'s adjudication of topic {assignment.topic.topic_id} in "
                f"{study.campaign.name} already re-judges {other.name}"
            )
    samples.sample_assign(sample=sample, assignments=made)
    study.assignments.add(*made)
    for assignment in made:
        services.assignment_refresh_status(assignment=assignment)
    return made


# --- the second LLM judge -------------------------------------------------------------------------


def _judges_of(spec: str) -> tuple[int, ...]:
    """The judges of a study's label set (none when the set no longer resolves)."""
    try:
        return label_set_get(spec).judge_ids
    except LabelSetError:
        return ()


def study_second_judge_job(*, study: Study, judge: Judge, created_by: User | None = None) -> PrelabelJob:
    """Record the second LLM judge of the study and a pre-label job over the study's pairs only.

    The job reuses the pre-labelling machinery (claims, cache by (judge, prompt version, pair), rate limits,
    results stored as LLMResult and Judgment): pairs already labelled by this judge are not paid again."""
    if judge.kind != JudgeKind.LLM:
        raise StudyError(f"{judge.name!r} is not an LLM judge")
    if any(judge.pk in _judges_of(spec) for spec in (study.a, study.b)):
        raise StudyError("the second LLM judge must differ from the study's two judges")
    try:
        llm = llm_services.llm_config(judge)
        provider_check(llm)
    except (llm_services.PrelabelError, ProviderNotConfigured) as error:
        raise StudyError(str(error)) from None
    pair_ids = study_pair_ids(study=study)
    if not pair_ids:
        raise StudyError("the study has no sampled pairs")
    with transaction.atomic():
        study.second_judge = judge
        study.save(update_fields=["second_judge"])
        job = PrelabelJob.objects.create(
            campaign=study.campaign,
            judge=judge,
            prompt_version=llm.prompt_version,
            mode=PrelabelMode.LIVE,
            total=len(pair_ids),
            message=f"study #{study.pk}: its {len(pair_ids)} sampled pairs only",
            created_by=created_by,
        )
    return job


def study_second_judge_run(*, study: Study, job: PrelabelJob, chunk_size: int | None = None) -> PrelabelJob:
    """Call the judge on the study's pairs, chunk by chunk, in this process (`prelabel_chunk_run`)."""
    pair_ids = study_pair_ids(study=study)
    size = chunk_size or llm_chunks.chunk_size_for(llm_services.llm_config(job.judge))
    now = timezone.now()
    PrelabelJob.objects.filter(pk=job.pk).update(
        status=PrelabelStatus.RUNNING, started_at=now, chunks=(len(pair_ids) + size - 1) // size
    )
    job.refresh_from_db()
    try:
        for start in range(0, len(pair_ids), size):
            llm_chunks.prelabel_chunk_run(job=job, pair_ids=pair_ids[start : start + size])
    except llm_services.PrelabelError as error:
        llm_services.prelabel_job_fail(job=job, message=str(error))
        job.refresh_from_db()
        return job
    # The job's own refresh counts results over the whole campaign; this job is over once its chunks ran.
    PrelabelJob.objects.filter(pk=job.pk).update(status=PrelabelStatus.DONE, finished_at=timezone.now())
    job.refresh_from_db()
    return job
