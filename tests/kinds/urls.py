"""The project's URLs and the test-only toy kind's (tests/kinds/toy.py), as a kind registers its own."""

from django.urls import include, path

from config.urls import urlpatterns as project

urlpatterns = [*project, path("kinds/toy/", include(("tests.kinds.toy", "kind_toy")))]
