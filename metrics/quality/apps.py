from __future__ import annotations

from django.apps import AppConfig


class QualityConfig(AppConfig):
    name = "metrics.quality"
    label = "quality"
    verbose_name = "Assessor quality"
