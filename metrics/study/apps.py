from __future__ import annotations

from django.apps import AppConfig


class StudyConfig(AppConfig):
    name = "metrics.study"
    label = "study"
    verbose_name = "Disagreement study"

    def ready(self) -> None:
        # Judging keeps an adjudication assignment that re-judges a study to the study's sample, and its
        # adjudicator independent of the study's judges, by asking the one sample source registered with it.
        from judging import samples
        from metrics.study.selectors import StudySamples

        samples.samples_register(StudySamples())
