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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.module_loading import import_string

from judging.progress import Share
from judging.vocabulary import Vocabulary

if TYPE_CHECKING:
    from judging.models import Assignment, Campaign


# The platform's first kind: judging's own pages, SQL and services serve it, and no other kind goes through them.
SUPPORT_KIND = "support"


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
    # (campaign, allow_missing_text=..., **build options) -> build summary: (re)builds the campaign's pool of
    # units. The options are the kind's own (extras["build_options"], `build_options`), cleaned.
    build: Callable[..., dict[str, Any]]
    # assignments -> {assignment id: units done of units to do}
    progress: Callable[[Sequence[Assignment]], dict[int, Share]]
    # The organizer's campaign page includes this template for the kind's own figures and downloads.
    campaign_panel: str = ""
    # How a page counts the units, in the plural: "pairs", "sentences", "(topic, passage) items".
    counted_as: str = "units"
    # The guidelines (Markdown) a new campaign of the kind starts with; the organizer edits them per campaign.
    default_guidelines: str = ""
    # Optional parts, read by the mechanism that uses them: "build_options" ({name: django form Field}, the
    # options its build takes beyond judging's own: the page's form, the API and campaign_create --option pass
    # them through), "prelabel" (its PRELABEL: judging/llm/kinds.py reads it).
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


def assignments_kind_progress(assignments: Sequence[Assignment]) -> None:
    """Give each assignment its card page (`judge_href`) and, for a kind other than support, its progress
    (`done`, `total`) read by its kind: support's come with the assignments' own query and stay as they are."""
    from django.urls import reverse

    others: dict[str, list[Assignment]] = {}
    for a in assignments:
        kind = kind_of(a.campaign)
        a.judge_href = reverse(kind.judge_url, args=[a.pk])  # type: ignore[attr-defined]
        if kind.name != SUPPORT_KIND:
            others.setdefault(kind.name, []).append(a)
    for name, group in others.items():
        shares = kind_get(name).progress(group)
        for a in group:
            share = shares.get(a.pk)
            a.done, a.total = (share.done, share.total) if share else (0, 0)  # type: ignore[attr-defined]


def progress_by_kind(assignments: Sequence[Assignment]) -> list[tuple[str, Share]]:
    """The assignments' overall progress, one share per kind in the registry's order, each counting its own
    units ("pairs", "sentences", ...): units of different kinds are never added up."""
    shares = []
    for kind in kinds_registered():
        group = [a for a in assignments if a.campaign.kind == kind.name]
        if group:
            done = sum(a.done for a in group)  # type: ignore[attr-defined]
            total = sum(a.total for a in group)  # type: ignore[attr-defined]
            shares.append((kind.counted_as, Share(done=done, total=total)))
    return shares


class BuildOptionsInvalid(ValueError):
    pass


def build_options(kind: Kind) -> dict[str, forms.Field]:
    """The options a kind's build takes beyond judging's own, each a django form Field (its label, help, initial)."""
    return dict(kind.extras.get("build_options", {}))


def build_options_help() -> str:
    """Every registered kind's build options, for the API's documentation: "relevance: pool (...); ..."."""
    parts = []
    for kind in kinds_registered():
        options = build_options(kind)
        named = ", ".join(f"{name} ({f.help_text or f.label or name})" for name, f in options.items())
        parts.append(f"{kind.name}: {named or 'none'}")
    return "the kind's own build options by name (docs/kinds.md); " + "; ".join(parts)


def build_options_clean(kind: Kind, raw: Mapping[str, Any], *, rebuild: bool = False) -> dict[str, Any]:
    """The kind's build options from strings or values (a form, the API, the command), cleaned by their fields,
    or BuildOptionsInvalid naming each bad one. A new campaign gets every option (a missing one takes its field's
    initial); a rebuild only those given (the kind keeps what it has for the others)."""
    fields = build_options(kind)
    unknown = sorted(set(raw) - set(fields))
    if unknown:
        known = ", ".join(fields) or "none"
        raise BuildOptionsInvalid(
            f"the kind {kind.name!r} has no build option {', '.join(unknown)}; its options: {known}"
        )
    cleaned: dict[str, Any] = {}
    errors = []
    for name, f in fields.items():
        value = raw.get(name)
        if rebuild and value in (None, ""):
            continue
        try:
            cleaned[name] = f.clean(f.initial if value in (None, "") else value)
        except ValidationError as exc:
            errors.append(f"{name}: {' '.join(exc.messages)}")
    if errors:
        raise BuildOptionsInvalid(f"build options of the kind {kind.name!r}: " + "; ".join(errors))
    return cleaned


def build_summary_text(summary: Mapping[str, Any]) -> str:
    """A kind's build summary in a line ("12 units, 3 topics"): its plain figures, in its order."""
    return ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in summary.items() if isinstance(v, int | float | str))
