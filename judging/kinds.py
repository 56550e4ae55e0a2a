"""Judgment kinds (issue 26): what a campaign judges. A kind names its unit (a citation; a sentence; a (topic,
passage)), the label vocabularies its card asks in order, and the functions that build its pool, show its
card, score it and export it. Support per citation (TREC 2024) is the first kind; sentence support (TREC 2025)
and passage relevance (post-editing UMBRELA) follow.

A kind is one package under `kinds/` (docs/kinds.md): its `kind.py` holds a `Kind` and `settings.JUDGMENT_KINDS`
names it. The judging app reads kinds only through this registry, never by importing a kind's package: the
kinds sit above judging and metrics (.importlinter), as plug-ins do.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.module_loading import import_string

from judging.vocabulary import Vocabulary

if TYPE_CHECKING:
    from judging.models import Assignment, Campaign
    from judging.progress import Share


class UnknownKind(ValueError):
    def __init__(self, name: str) -> None:
        known = ", ".join(settings.JUDGMENT_KINDS)
        super().__init__(f"unknown judgment kind {name!r}; known kinds: {known}")


@dataclass(frozen=True)
class Kind:
    """One judgment kind. The callables are the kind's own; judging calls them for a campaign of the kind."""

    name: str  # as Campaign.kind stores it: "support"
    title: str  # as a page names it: "Support per citation (TREC 2024)"
    unit: str  # what one card judges and a figure counts: "citation", "sentence", "topic-passage"
    steps: tuple[Vocabulary, ...]  # the vocabularies a card asks, in order
    judge_url: str  # URL name of the assessor's card page; takes `assignment_id`
    # (campaign, allow_missing_text=...) -> build summary: (re)builds the campaign's pool of units.
    build: Callable[..., dict[str, Any]]
    # assignments -> {assignment id: units done of units to do}
    progress: Callable[[Sequence[Assignment]], dict[int, Share]]
    # The organizer's campaign page includes this template for the kind's own figures and downloads.
    campaign_panel: str = ""
    extras: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.name


@functools.cache
def kind_get(name: str) -> Kind:
    """The registered kind of this name, or UnknownKind (a ValueError that names the known ones)."""
    try:
        path = settings.JUDGMENT_KINDS[name]
    except KeyError:
        raise UnknownKind(name) from None
    kind = import_string(path)
    if not isinstance(kind, Kind) or kind.name != name:
        raise ImproperlyConfiguredKind(f"settings.JUDGMENT_KINDS[{name!r}] = {path!r} is not the Kind {name!r}")
    return kind


class ImproperlyConfiguredKind(RuntimeError):
    pass


def kinds_registered() -> list[Kind]:
    """Every registered kind, in the settings' order (support first)."""
    return [kind_get(name) for name in settings.JUDGMENT_KINDS]


def kind_of(campaign: Campaign) -> Kind:
    return kind_get(campaign.kind)
