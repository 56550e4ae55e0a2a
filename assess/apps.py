from django.apps import AppConfig


class AssessConfig(AppConfig):
    name = "assess"
    verbose_name = "Material under assessment"
