from __future__ import annotations

from django.apps import AppConfig


class RelevanceKindConfig(AppConfig):
    name = "kinds.relevance"
    label = "kind_relevance"
    verbose_name = "Passage relevance (post-editing UMBRELA)"
