"""What the commands that read labels share: choosing the scope (a campaign or everything loaded) and the
label sets."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from judging.label_set_names import SPEC_HELP, LabelSetError
from judging.labels import LabelSet, label_set_get
from judging.scope import RELEVANCE_HELP, Scope, relevance_filter_parse, scope_for

LABEL_SET_HELP = f"the label set: {SPEC_HELP}"


def add_scope_arguments(parser: CommandParser, *, depth_default: str = "campaign's, or 1") -> None:
    parser.add_argument("--campaign", help="a campaign's topics and runs (default: everything loaded)")
    parser.add_argument(
        "--depth", type=int, help=f"citations per sentence, 0 = every citation (default: the {depth_default})"
    )
    parser.add_argument("--topics", help="only these topic ids (comma-separated)")
    parser.add_argument("--relevance", metavar="SOURCE:MIN", help=RELEVANCE_HELP)


def scope_from(options: dict[str, Any]) -> Scope:
    topics = [t.strip() for t in options["topics"].split(",") if t.strip()] if options.get("topics") else None
    if options.get("depth") is not None and options["depth"] < 0:
        raise CommandError("--depth must be 0 (every citation) or more")
    try:
        relevance = relevance_filter_parse(options["relevance"]) if options.get("relevance") else None
        return scope_for(
            campaign=options.get("campaign"), depth=options.get("depth"), topics=topics, relevance=relevance
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from exc


def label_set_from(spec: str) -> LabelSet:
    try:
        return label_set_get(spec)
    except LabelSetError as exc:
        raise CommandError(str(exc)) from exc
