from __future__ import annotations

from django.apps import AppConfig


class StudyConfig(AppConfig):
    name = "metrics.study"
    label = "study"
    verbose_name = "Disagreement study"
