from __future__ import annotations

from django.apps import AppConfig


class HumanBudgetConfig(AppConfig):
    name = "metrics.humanbudget"
    label = "humanbudget"
    verbose_name = "Human-budget samples"
