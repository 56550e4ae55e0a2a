from __future__ import annotations

from django.apps import AppConfig


class HumanBudgetConfig(AppConfig):
    name = "metrics.humanbudget"
    label = "humanbudget"
    verbose_name = "Human-budget samples"

    def ready(self) -> None:
        # Judging keeps a from-scratch assignment that judges a budget sample to the sample's pairs of its topic,
        # by asking the sample source registered for that condition.
        from judging import samples
        from judging.models import Condition
        from metrics.humanbudget.selectors import BudgetSamples

        samples.samples_register(BudgetSamples(), condition=Condition.FROM_SCRATCH)
