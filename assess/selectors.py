"""Reads for the material under assessment."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from assess.models import Answer, Citation, ImportJob, Passage, Run, Sentence, Topic


def _count_per_run(qs: QuerySet[Any], run_path: str) -> Coalesce:
    counted = qs.filter(**{run_path: OuterRef("pk")}).order_by().values(run_path).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def run_list(*, search: str = "") -> QuerySet[Run]:
    """Runs with the counts the organizer's list shows (those whose id or group contain `search`), by group,
    priority and id; one query, one subquery per count."""
    missing = (
        Citation.objects.filter(sentence__answer__run=OuterRef("pk"), passage__has_text=False)
        .order_by()
        .values("sentence__answer__run")
        .annotate(n=Count("passage", distinct=True))
        .values("n")
    )
    runs = Run.objects.all()
    if search:
        runs = runs.filter(Q(run_id__icontains=search) | Q(group__icontains=search))
    return runs.annotate(
        topics_answered=_count_per_run(Answer.objects.all(), "run"),
        sentences=_count_per_run(Sentence.objects.all(), "answer__run"),
        citations=_count_per_run(Citation.objects.all(), "sentence__answer__run"),
        passages_without_text=Coalesce(Subquery(missing, output_field=IntegerField()), 0),
    ).order_by("group", "priority", "run_id")


def topic_list(*, search: str = "") -> QuerySet[Topic]:
    """Topics with their answer counts (those whose id or text contain `search`), in topic id order."""
    topics = Topic.objects.all()
    if search:
        topics = topics.filter(Q(topic_id__icontains=search) | Q(text__icontains=search))
    return topics.annotate(answers_count=Count("answers")).order_by("topic_id")


def topics_unknown(topic_ids: Iterable[str]) -> list[str]:
    """The ids of `topic_ids` that name no loaded topic, in the order given."""
    wanted = list(dict.fromkeys(topic_ids))
    known = set(Topic.objects.filter(topic_id__in=wanted).values_list("topic_id", flat=True))
    return [t for t in wanted if t not in known]


def passages_missing_text() -> QuerySet[Passage]:
    """Passages that a loaded run cites and that have no text yet."""
    return Passage.objects.filter(has_text=False).filter(Exists(Citation.objects.filter(passage=OuterRef("pk"))))


def import_job_list(*, limit: int = 20) -> QuerySet[ImportJob]:
    return ImportJob.objects.select_related("created_by").order_by("-created_at")[:limit]


def counts() -> dict[str, int]:
    return {
        "topics": Topic.objects.count(),
        "runs": Run.objects.count(),
        "answers": Answer.objects.count(),
        "passages": Passage.objects.count(),
        "passages_with_text": Passage.objects.filter(has_text=True).count(),
        "passages_missing": passages_missing_text().count(),
    }


def passages_missing_with_citations(*, limit: int) -> list[Passage]:
    """The first `limit` passages without text, each with how many citations and runs point to it."""
    return list(
        passages_missing_text()
        .annotate(
            citations_count=Count("citations", distinct=True),
            runs_count=Count("citations__sentence__answer__run", distinct=True),
        )
        .order_by("passage_id")[:limit]
    )
