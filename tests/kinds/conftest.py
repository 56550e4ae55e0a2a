from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def toy_kind(settings: Any) -> Any:
    """The test-only kind `toy` registered beside the project's (settings and URLs, as a kind package does)."""
    from tests.kinds import toy

    settings.JUDGMENT_KINDS = {**settings.JUDGMENT_KINDS, "toy": "tests.kinds.toy.KIND"}
    settings.ROOT_URLCONF = "tests.kinds.urls"
    toy.DONE.clear()
    toy.PRELABEL.stored.clear()
    return toy
