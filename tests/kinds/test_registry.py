"""The kinds registry (judging/kinds.py): every registered kind loads, and a campaign's kind resolves."""

from __future__ import annotations

from typing import Any

import pytest

from judging.kinds import Kind, UnknownKind, kind_get, kind_of, kinds_registered
from judging.models import Campaign


def test_every_registered_kind_loads_under_its_own_name(settings: Any) -> None:
    kinds = kinds_registered()
    assert [k.name for k in kinds] == list(settings.JUDGMENT_KINDS)
    assert kinds[0].name == "support"
    for kind in kinds:
        assert isinstance(kind, Kind)
        assert kind.steps, kind.name
        assert kind.unit in {"citation", "sentence", "topic-passage"}


def test_an_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(UnknownKind, match="known kinds: support"):
        kind_get("nuggets")


@pytest.mark.django_db
def test_a_campaign_is_support_unless_told() -> None:
    campaign = Campaign.objects.create(name="k")
    assert campaign.kind == "support"
    assert kind_of(campaign).unit == "citation"
    assert ("support", kind_get("support").title) in Campaign._meta.get_field("kind").choices
