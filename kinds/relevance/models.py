"""A relevance campaign's settings, its pool of (topic, passage) items and the grades its assessors give them.

Imported grades (UMBRELA's, NIST's qrels) and an LLM judge's grades stay in `assess.models.Relevance`, one source
per name: the one home of a source's grades, which qrels import and export, agreement and nDCG all read."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from assess.models import Passage, Topic
from judging.models import Assignment, Campaign, Condition, Judge


class PoolKind(models.TextChoices):
    QRELS = "qrels", "The (topic, passage) pairs of an imported qrels source"
    REFERENCES = "references", "The top-k references of the campaign's runs, per topic"


DEFAULT_DEPTH = 20


class RelevanceSettings(models.Model):
    """How a relevance campaign builds its pool. Whose grades post-editing shows is the campaign's
    `post_edit_judge` (judging's field, which the blindness rules read): the Relevance source of its name."""

    campaign = models.OneToOneField(
        Campaign, primary_key=True, on_delete=models.CASCADE, related_name="relevance_settings"
    )
    pool = models.CharField(max_length=16, choices=PoolKind.choices, default=PoolKind.REFERENCES)
    pool_source = models.CharField(
        max_length=64, blank=True, default="", help_text="The qrels source whose pairs make the pool (pool=qrels)."
    )
    depth = models.PositiveSmallIntegerField(
        default=DEFAULT_DEPTH, help_text="References of each run's answer taken per topic (pool=references)."
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(pool__in=PoolKind.values), name="relevancesettings_pool_known"),
            models.CheckConstraint(
                condition=~Q(pool=PoolKind.QRELS) | ~Q(pool_source=""), name="relevancesettings_qrels_has_source"
            ),
            models.CheckConstraint(condition=Q(depth__gte=1), name="relevancesettings_depth_positive"),
        ]

    def __str__(self) -> str:
        return f"relevance settings of campaign {self.campaign_id}"


class RelevanceItem(models.Model):
    """One (topic, passage) of a campaign's pool, at its place in the topic's queue."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="relevance_items")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="+")
    passage = models.ForeignKey(Passage, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["campaign_id", "topic_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "topic", "passage"], name="relevanceitem_unique"),
        ]
        indexes = [models.Index(fields=["campaign", "topic", "position"], name="relevanceitem_queue_idx")]

    def __str__(self) -> str:
        return f"{self.campaign_id}/{self.topic_id}/{self.passage_id}"


class RelevanceJudgment(models.Model):
    """An assessor's grade of an item. Append-only: the newest row of a judge on an item is current. The
    campaign is the item's (not stored twice)."""

    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="relevance_judgments")
    item = models.ForeignKey(RelevanceItem, on_delete=models.PROTECT, related_name="judgments")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="relevance_judgments"
    )
    condition = models.CharField(max_length=16, choices=Condition.choices)
    grade = models.PositiveSmallIntegerField()
    shown_grade = models.PositiveSmallIntegerField(null=True, blank=True, help_text="The grade post-editing showed.")
    changed = models.BooleanField(null=True, blank=True, help_text="The grade differs from the one shown.")
    seconds = models.FloatField(null=True, blank=True)
    submission_token = models.UUIDField(unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        indexes = [
            models.Index(fields=["assignment", "item"], name="relevancejudgment_asg_item_idx"),
            models.Index(fields=["judge", "item"], name="relevancejudgment_judge_idx"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(grade__lte=3), name="relevancejudgment_grade_0_to_3"),
            models.CheckConstraint(
                condition=Q(shown_grade__isnull=True) | Q(shown_grade__lte=3), name="relevancejudgment_shown_0_to_3"
            ),
            models.CheckConstraint(
                condition=Q(seconds__isnull=True) | Q(seconds__gte=0), name="relevancejudgment_seconds_nonneg"
            ),
            models.CheckConstraint(
                condition=Q(condition__in=[Condition.FROM_SCRATCH, Condition.POST_EDIT]),
                name="relevancejudgment_condition_known",
            ),
            # Blindness: nothing is shown from scratch.
            models.CheckConstraint(
                condition=~Q(condition=Condition.FROM_SCRATCH) | Q(shown_grade__isnull=True),
                name="relevancejudgment_from_scratch_blind",
            ),
            # `changed` is set exactly when a grade was shown, and says whether it differs.
            models.CheckConstraint(
                condition=Q(shown_grade__isnull=True, changed__isnull=True)
                | Q(shown_grade=F("grade"), changed=False)
                | (Q(shown_grade__isnull=False, changed=True) & ~Q(shown_grade=F("grade"))),
                name="relevancejudgment_changed_matches",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.judge} grades item {self.item_id} {self.grade}"
