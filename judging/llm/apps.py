from __future__ import annotations

from django.apps import AppConfig


class LLMConfig(AppConfig):
    name = "judging.llm"
    label = "llm"
    verbose_name = "LLM pre-labelling"
