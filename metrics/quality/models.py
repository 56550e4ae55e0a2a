"""Gold items: pairs of a campaign whose expected label the organizer knows. They sit in the assessors' queues
as the campaign's other pairs do (nothing on the card marks them), and the quality page measures each
assessor's labels against them."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from assess.models import Citation
from judging.models import Campaign, Label, Pair


class GoldItem(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="gold_items")
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="+")
    citation = models.ForeignKey(
        Citation, on_delete=models.CASCADE, related_name="+", help_text="The citation the gold file named."
    )
    label = models.CharField(max_length=2, choices=Label.choices, help_text="The expected label.")
    source = models.CharField(max_length=255, blank=True, default="", help_text="The file it was loaded from.")
    line = models.PositiveIntegerField(null=True, blank=True)
    loaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    loaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign_id", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "pair"], name="golditem_unique_campaign_pair"),
            models.CheckConstraint(condition=models.Q(label__in=Label.values), name="golditem_label_known"),
        ]

    def __str__(self) -> str:
        return f"gold {self.label} on pair {self.pair_id} of campaign {self.campaign_id}"
