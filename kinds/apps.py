from django.apps import AppConfig


class KindsConfig(AppConfig):
    name = "kinds"
    verbose_name = "Judgment kinds"
