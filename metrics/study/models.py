"""The disagreement study's rows (DESIGN §6). Their tables keep the names they had when the study lived in
judging (`judging_study`, `judging_studyitem`, `judging_study_assignments`): the move was state only."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from assess.models import Citation, Topic
from judging.models import Assignment, Campaign, Judge, Label, Pair, Sample


class Study(models.Model):
    """The disagreement study (DESIGN §6): pairs sampled per topic where judge `a` and judge `b` disagree,
    re-judged blind by independent assessors (`adjudication` assignments) and optionally a second LLM judge.

    `a` and `b` are label sets as `judging.labels` names them (`nist/from_scratch`, `campaign:NAME/from_scratch`)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="studies")
    a = models.CharField(max_length=128, help_text="The first label set, usually human (e.g. nist/from_scratch).")
    b = models.CharField(max_length=128, help_text="The second label set, usually an LLM judge's.")
    per_topic = models.PositiveIntegerField(default=15)
    seed = models.IntegerField(default=0)
    second_judge = models.ForeignKey(
        Judge,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="second_judge_studies",
        help_text="A second LLM judge run on the sampled pairs only (the paper used Llama-3.1-405B).",
    )
    # The adjudication assignments that re-judge this study's sample.
    assignments = models.ManyToManyField(Assignment, blank=True, related_name="studies")
    # The sample as judging's queue reads it (its pairs in the drawn order, its judges to be independent of),
    # written with the study by `services.study_create`.
    sample = models.OneToOneField(Sample, null=True, blank=True, on_delete=models.RESTRICT, related_name="study")
    summary = models.JSONField(
        default=dict, blank=True, help_text="Per topic: candidate pairs, disagreements, sampled."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "judging_study"
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return f"study #{self.pk}: {self.a} vs {self.b} on {self.campaign_id}"


class StudyItem(models.Model):
    """One sampled pair of a study, with the citation it was sampled on and both labels frozen at sampling."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="items")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="+")
    pair = models.ForeignKey(Pair, on_delete=models.PROTECT, related_name="study_items")
    citation = models.ForeignKey(Citation, on_delete=models.PROTECT, related_name="+")
    label_a = models.CharField(max_length=2, choices=Label.choices)
    label_b = models.CharField(max_length=2, choices=Label.choices)
    order = models.PositiveIntegerField(help_text="Queue position within the topic, shuffled with the study's seed.")

    class Meta:
        db_table = "judging_studyitem"
        ordering = ["study_id", "topic_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["study", "topic", "pair"], name="studyitem_unique_pair"),
            models.CheckConstraint(condition=~models.Q(label_a=models.F("label_b")), name="studyitem_disagrees"),
        ]

    def __str__(self) -> str:
        return f"study {self.study_id} / {self.topic_id} / pair {self.pair_id}"
