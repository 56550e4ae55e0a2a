"""A human-budget sample (issue 16): the pairs of a campaign drawn for people to judge from scratch, each with
the probability it had of being drawn, so that LLM labels on every pair corrected by the sample give unbiased
run scores (metrics/budget/estimators.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from assess.models import Topic
from judging.models import Assignment, Campaign, Pair, Sample
from metrics.budget.estimators import Design


class BudgetSample(models.Model):
    """One draw: the campaign, the LLM label set on every pair, the design, the budget and the seed that made it.
    Poisson sampling: each pair drawn independently with its own inclusion probability, kept per item."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="budget_samples")
    llm = models.CharField(max_length=128, help_text="The LLM label set on every pair (e.g. opus-4.8-nist).")
    second_llm = models.CharField(
        max_length=128, blank=True, default="", help_text="A second LLM label set (the disagreement design)."
    )
    reference = models.CharField(
        max_length=128,
        blank=True,
        default="",
        help_text="The human label set the active design learnt the LLM's expected error from (e.g. nist/from_scratch).",
    )
    design = models.CharField(max_length=16, choices=Design.choices)
    budget_pairs = models.PositiveIntegerField(null=True, blank=True, help_text="The budget as a number of pairs.")
    budget_share = models.FloatField(null=True, blank=True, help_text="The budget as a share of the pairs.")
    seed = models.IntegerField()
    frame = models.PositiveIntegerField(help_text="Pairs in the campaign's pool that could be drawn.")
    unlabelled = models.PositiveIntegerField(
        default=0, help_text="Pairs of the frame without the LLM's label (they count with its mean weight)."
    )
    expected = models.FloatField(help_text="Expected sample size: the sum of the inclusion probabilities.")
    assignments = models.ManyToManyField(Assignment, blank=True, related_name="budget_samples")
    # The sample as judging's queue reads it (its pairs in the drawn order), written with the draw.
    sample = models.OneToOneField(
        Sample, null=True, blank=True, on_delete=models.RESTRICT, related_name="budget_sample"
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(budget_pairs__isnull=True) ^ models.Q(budget_share__isnull=True)),
                name="budgetsample_one_budget",
            ),
            models.CheckConstraint(
                condition=models.Q(budget_share__isnull=True) | models.Q(budget_share__gt=0, budget_share__lte=1),
                name="budgetsample_share_range",
            ),
            models.CheckConstraint(
                condition=models.Q(budget_pairs__isnull=True) | models.Q(budget_pairs__gte=1),
                name="budgetsample_pairs_positive",
            ),
            models.CheckConstraint(condition=models.Q(design__in=Design.values), name="budgetsample_design_known"),
            models.CheckConstraint(
                condition=~models.Q(design=Design.DISAGREEMENT) | ~models.Q(second_llm=""),
                name="budgetsample_disagreement_has_second_llm",
            ),
            models.CheckConstraint(
                condition=~models.Q(design=Design.ACTIVE) | ~models.Q(reference=""),
                name="budgetsample_active_has_reference",
            ),
            models.CheckConstraint(
                condition=models.Q(expected__gt=0) & models.Q(expected__lte=models.F("frame") + 1e-6),
                name="budgetsample_expected_within_frame",
            ),
            models.CheckConstraint(
                condition=models.Q(unlabelled__lte=models.F("frame")), name="budgetsample_unlabelled_within_frame"
            ),
        ]

    def __str__(self) -> str:
        return f"budget sample #{self.pk} of {self.campaign_id} ({self.design})"

    @property
    def budget_text(self) -> str:
        if self.budget_pairs is not None:
            return f"{self.budget_pairs} pairs"
        return f"{self.budget_share:.0%} of the pairs"


class BudgetSampleItem(models.Model):
    """One drawn pair of a topic, with its inclusion probability and its place in the topic's queue (shuffled with
    the seed, so that the judged part of a topic is a random part of its sample while judging goes on)."""

    sample = models.ForeignKey(BudgetSample, on_delete=models.CASCADE, related_name="items")
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="+")
    pair = models.ForeignKey(Pair, on_delete=models.PROTECT, related_name="budget_items")
    inclusion_probability = models.FloatField()
    order = models.PositiveIntegerField()

    class Meta:
        ordering = ["sample_id", "topic_id", "order"]
        constraints = [
            models.UniqueConstraint(fields=["sample", "topic", "pair"], name="budgetitem_unique_pair"),
            models.UniqueConstraint(fields=["sample", "topic", "order"], name="budgetitem_unique_order"),
            models.CheckConstraint(
                condition=models.Q(inclusion_probability__gt=0, inclusion_probability__lte=1),
                name="budgetitem_probability_range",
            ),
        ]

    def __str__(self) -> str:
        return f"budget sample {self.sample_id} / {self.topic_id} / pair {self.pair_id}"
