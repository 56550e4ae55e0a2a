"""How a label set is named (DESIGN §2), read and written in one place: `judging.labels` resolves a name to
its judges, the blindness rules read the judge a study's set names, the exchange refuses judge names that
would read as a set, and every page that offers a set writes its name here.

- `NAME` or `NAME/CONDITION`: one judge in one condition (`none`: labels made outside any condition);
- `campaign:NAME/CONDITION` and `group:NAME/CONDITION`: the assessors of a campaign or of a user group;
- `final/CAMPAIGN`: a campaign's final labels (no condition).

A trailing `/word` is a condition only if it names one; otherwise it is part of the name.
"""

from __future__ import annotations

from dataclasses import dataclass

from judging.models import Condition

CONDITION_WORDS: dict[str, str] = {str(c): str(c) for c in Condition.values} | {"none": ""}
FINAL_PREFIX = "final/"  # `final/<campaign>`: the one spelling of a campaign's final label set


class LabelSetKind:
    JUDGE = "judge"
    CAMPAIGN = "campaign"
    GROUP = "group"
    FINAL = "final"


PREFIXED_KINDS = (LabelSetKind.CAMPAIGN, LabelSetKind.GROUP)  # written `kind:NAME/CONDITION`


def split_condition(text: str) -> tuple[str, str | None]:
    """(name, condition or None when not written); a trailing `/word` is a condition only if it names one."""
    body, slash, word = text.rpartition("/")
    if slash and word in CONDITION_WORDS:
        return body, CONDITION_WORDS[word]
    return text, None


@dataclass(frozen=True)
class LabelSetName:
    """A label set's name as written: its kind, the judge, campaign or group it names, and its condition
    ("" for none; None where the name gives none: a judge's only condition, or a final set)."""

    kind: str
    name: str
    condition: str | None = None

    @classmethod
    def parse(cls, spec: str) -> LabelSetName:
        spec = spec.strip()
        if spec.startswith(FINAL_PREFIX):
            return cls(LabelSetKind.FINAL, spec[len(FINAL_PREFIX) :])
        name, condition = split_condition(spec)
        prefix, colon, rest = name.partition(":")
        if colon and prefix in PREFIXED_KINDS and rest:
            return cls(prefix, rest, condition)
        return cls(LabelSetKind.JUDGE, name, condition)

    @classmethod
    def final(cls, campaign_name: str) -> LabelSetName:
        return cls(LabelSetKind.FINAL, campaign_name)

    def format(self) -> str:
        """The name as it is written back: `nist/none`, `campaign:demo/from_scratch`, `final/demo`."""
        if self.kind == LabelSetKind.FINAL:
            return f"{FINAL_PREFIX}{self.name}"
        condition = self.condition or "none"
        if self.kind == LabelSetKind.JUDGE:
            return f"{self.name}/{condition}"
        return f"{self.kind}:{self.name}/{condition}"


SPEC_HELP = (
    "a label set is a judge (nist, gpt-4o), judge/condition (alice/from_scratch), "
    "campaign:NAME/condition, group:NAME/condition or final/CAMPAIGN; "
    "conditions: from_scratch, post_edit, adjudication, none"
)


class LabelSetError(ValueError):
    """A label set that does not exist or is ambiguous; the message says what to write instead."""
