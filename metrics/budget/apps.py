from __future__ import annotations

from django.apps import AppConfig


class BudgetConfig(AppConfig):
    name = "metrics.budget"
    # The label the app's tables (humanbudget_*), migrations and content types were made under, when the package
    # was metrics/humanbudget: kept, so an existing database needs no migration.
    label = "humanbudget"
    verbose_name = "Human-budget samples"
