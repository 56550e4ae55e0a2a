"""The settings the tests (and the type checker) run with: the project's own, given a secret key because no
test process serves anyone. Set in the environment, so the servers and workers the tests start get it too."""

from __future__ import annotations

import os

os.environ.setdefault("SECRET_KEY", "tests-only-key-not-secret")

from config.settings import *  # noqa: F403
