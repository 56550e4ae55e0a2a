from django.apps import AppConfig


class SentenceKindConfig(AppConfig):
    name = "kinds.sentence"
    label = "kind_sentence"
    verbose_name = "Sentence support (TREC 2025)"
