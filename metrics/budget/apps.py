from __future__ import annotations

from django.apps import AppConfig


class BudgetConfig(AppConfig):
    name = "metrics.budget"
    # The label the app's tables (humanbudget_*), migrations and content types were made under, when the package
    # was metrics/humanbudget: kept, so an existing database needs no migration.
    label = "humanbudget"
    verbose_name = "Human-budget samples"

    def ready(self) -> None:
        # Judging keeps a from-scratch assignment that judges a budget sample to the sample's pairs of its topic,
        # by asking the sample source registered for that condition.
        from judging import samples
        from judging.models import Condition
        from metrics.budget.selectors import BudgetSamples

        samples.samples_register(BudgetSamples(), condition=Condition.FROM_SCRATCH)
