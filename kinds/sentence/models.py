"""The sentence kind's pool and judgments. A campaign's pool holds every sentence of its runs' answers to its
topics (a sentence without citations too: it can need one); a judgment answers both steps of one card."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from judging.models import Assignment, Campaign, Condition, Judge

from .vocabulary import COMBINED


class SentenceItem(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sentence_items")
    topic = models.ForeignKey("assess.Topic", on_delete=models.PROTECT, related_name="+")
    sentence = models.ForeignKey("assess.Sentence", on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField(help_text="Order within the campaign's topic (run, then sentence).")

    class Meta:
        ordering = ["campaign_id", "topic_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "sentence"], name="sentence_item_unique"),
            models.UniqueConstraint(fields=["campaign", "topic", "position"], name="sentence_item_unique_position"),
        ]

    def __str__(self) -> str:
        return f"{self.campaign_id}: sentence {self.sentence_id}"


COMBINED_CHOICES = [(name, COMBINED.titles[name]) for name in COMBINED.highest_first]


class SentenceJudgment(models.Model):
    """Both steps of one sentence's card. `combined` is blank when the sentence needs no citation, or has none
    to judge ("needs a citation but has none"). The LLM's labels are rows of its judge in condition ""."""

    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="sentence_judgments")
    sentence = models.ForeignKey("assess.Sentence", on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.CASCADE, related_name="sentence_judgments"
    )
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="sentence_judgments"
    )
    condition = models.CharField(max_length=16, choices=Condition.choices, blank=True, default="")
    worthy = models.BooleanField()
    combined = models.CharField(max_length=2, choices=COMBINED_CHOICES, blank=True, default="")
    shown_worthy = models.BooleanField(null=True, blank=True, help_text="Post-edit: the worthy label shown")
    shown_combined = models.CharField(max_length=2, blank=True, default="", help_text="Post-edit: the label shown")
    changed = models.BooleanField(null=True, blank=True, help_text="Post-edit: the labels differ from those shown")
    seconds = models.FloatField(null=True, blank=True)
    submission_token = models.UUIDField(null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["judge", "condition", "sentence"], name="sentence_judgment_set_idx")]
        constraints = [
            models.CheckConstraint(condition=Q(worthy=True) | Q(combined=""), name="sentence_unworthy_no_combined"),
            models.CheckConstraint(condition=Q(combined__in=["", *COMBINED.names]), name="sentence_combined_known"),
            models.CheckConstraint(
                condition=Q(shown_combined__in=["", *COMBINED.names]), name="sentence_shown_combined_known"
            ),
            models.CheckConstraint(condition=Q(condition__in=["", *Condition.values]), name="sentence_condition_known"),
            models.CheckConstraint(
                condition=Q(seconds__isnull=True) | Q(seconds__gte=0), name="sentence_seconds_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.judge_id} on sentence {self.sentence_id}: {'worthy' if self.worthy else 'not worthy'}"
