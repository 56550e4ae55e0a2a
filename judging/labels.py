"""Label sets and the label rule (DESIGN §2): the one place that decides which label a citation has.

A **label set** is what every score, agreement figure and export is computed from: one judge (an LLM judge,
an imported source such as `nist`, or one assessor) in one condition; a campaign's or a user group's assessors
in one condition, through its assignments; or a campaign's final labels (judging/review/: a reviewer's current
final label of a pair where there is one, else the majority of the campaign's assessors in every condition;
ties go to the adjudicated label as for a campaign set, a tie nobody resolved is left out and waits in the
review queue).

**A citation's label in a set** is, for each judge of the set, its newest judgment made on this very
citation; a citation with none takes the judge's newest judgment made on the platform on the citation's
stored pair (one pair judged once counts for every citation holding it). Imported labels never stand in for
another citation. A newest judgment that records "not judged" (NIST's -1, a skip) leaves the citation out;
nothing fills it from elsewhere. Where a set has several judges, the majority label wins; a tie goes to the
pair's adjudicated label if there is one, else the citation is a tie and left out. The rule is read over all
of a set's judgments, or over its newest alone to bring kept labels up to date (`labels_newer`).

How a set is named is parsed and written in `judging.label_set_names`; the labels are `judging.vocabulary`'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import Group
from django.db.models import Case, IntegerField, Max, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce

from core.arrays import int_columns
from judging.label_set_names import SPEC_HELP, LabelSetError, LabelSetKind, LabelSetName, split_condition
from judging.models import Campaign, Condition, FinalLabel, Judge, JudgeKind, Judgment, JudgmentOrigin
from judging.vocabulary import SUPPORT

LABEL_CODE = SUPPORT.code_of  # the vocabulary's, named here for the callers that read it with the rule
NOT_JUDGED_CODE = len(SUPPORT.terms)  # internal: the newest judgment says "not judged"
NO_LABEL = -1


@dataclass(frozen=True)
class LabelSet:
    spec: str  # as it is written back: `nist/none`, `campaign:demo/from_scratch`
    kind: str
    name: str
    condition: str  # "" for labels made outside any condition
    judge_ids: tuple[int, ...]
    judge_kind: str  # human or llm; "" when a group holds none yet
    campaign_id: int | None = None

    @property
    def condition_name(self) -> str:
        return self.condition or "none"

    @property
    def several(self) -> bool:
        return self.kind != LabelSetKind.JUDGE

    @property
    def title(self) -> str:
        condition = dict(Condition.choices).get(self.condition, "no condition").lower()
        if self.kind == LabelSetKind.JUDGE:
            return f"{self.name} ({self.judge_kind or 'judge'}, {condition})"
        if self.kind == LabelSetKind.FINAL:
            return f"final labels of campaign {self.name} (reviewed, else {len(self.judge_ids)} assessors)"
        people = f"{len(self.judge_ids)} assessor{'s' if len(self.judge_ids) != 1 else ''}"
        return f"{self.kind} {self.name} ({condition}, {people})"

    @property
    def rule(self) -> str:
        if self.kind == LabelSetKind.FINAL:
            return (
                "the reviewer's current final label of the pair, else the majority of the campaign's assessors "
                "(a tie goes to the adjudicated label, else it is left out)"
            )
        if not self.several:
            return "the judge's newest label of each citation"
        return "majority of the assessors' labels; a tie goes to the adjudicated label, else it is left out"

    @property
    def key(self) -> str:
        ids = ",".join(map(str, self.judge_ids))
        return f"{self.kind}:{self.name}:{self.condition}:{self.campaign_id or ''}:{ids}"

    def judgments(self) -> QuerySet[Judgment]:
        if self.kind == LabelSetKind.FINAL:
            return Judgment.objects.filter(
                judge_id__in=self.judge_ids,
                assignment__campaign_id=self.campaign_id or 0,
                condition__in=FINAL_CONDITIONS,
            )
        qs = Judgment.objects.filter(judge_id__in=self.judge_ids, condition=self.condition)
        if self.campaign_id is not None:
            qs = qs.filter(assignment__campaign_id=self.campaign_id)
        return qs

    def adjudications(self) -> QuerySet[Judgment]:
        """The judgments that break a tie of this set (its campaign's adjudications, or any)."""
        qs = Judgment.objects.filter(condition=Condition.ADJUDICATION)
        if self.campaign_id is not None:
            qs = qs.filter(assignment__campaign_id=self.campaign_id)
        return qs

    def version(self) -> int:
        """Changes whenever a judgment that can change this set's labels is added."""
        newest = self.judgments().aggregate(m=Max("pk"))["m"] or 0
        if self.several:
            newest = max(newest, self.adjudications().aggregate(m=Max("pk"))["m"] or 0)
        if self.kind == LabelSetKind.FINAL:
            # Two sequences in one number that changes when either grows (several-judge sets compare versions
            # for equality only).
            final = FinalLabel.objects.filter(campaign_id=self.campaign_id or 0).aggregate(m=Max("pk"))["m"] or 0
            newest = (newest << 40) | final
        return int(newest)


# A page names the same label sets many times (its form, its reports, its Table 3): within `label_sets_pinned`
# (one request) each is read once. Never across requests: a new judgment can change a set.
_PINNED: ContextVar[dict[Any, Any] | None] = ContextVar("label_sets_pinned", default=None)


@contextmanager
def label_sets_pinned() -> Iterator[None]:
    token = _PINNED.set({})
    try:
        yield
    finally:
        _PINNED.reset(token)


def label_set_get(spec: str) -> LabelSet:
    """The label set a spec names; LabelSetError (with what to write) when there is none, or it is ambiguous."""
    pinned = _PINNED.get()
    key = ("get", (spec or "").strip())
    if pinned is None:
        return _label_set_get(spec)
    if key not in pinned:
        found = _label_set_get(spec)
        pinned[key] = pinned[("get", found.spec)] = found
    return pinned[key]  # type: ignore[no-any-return]


def _label_set_get(spec: str) -> LabelSet:
    spec = (spec or "").strip()
    if not spec:
        raise LabelSetError(f"no label set given: {SPEC_HELP}")
    parsed = LabelSetName.parse(spec)
    name, condition = parsed.name, parsed.condition
    if parsed.kind == LabelSetKind.FINAL:
        return _final_set(name)
    if parsed.kind != LabelSetKind.JUDGE:
        if condition is None:
            raise LabelSetError(f"{spec!r} needs a condition, e.g. {spec}/from_scratch")
        return _campaign_set(name, condition) if parsed.kind == LabelSetKind.CAMPAIGN else _group_set(name, condition)
    # The judge and (when the spec names none) the conditions it has labels in, in one query.
    rows = list(
        Judge.objects.filter(name=name)
        .order_by()
        .values_list("pk", "kind", *(("judgments__condition",) if condition is None else ()))
        .distinct()
    )
    if not rows:
        raise LabelSetError(f"no judge named {name!r}: {SPEC_HELP}")
    judge = Judge(pk=rows[0][0], name=name, kind=rows[0][1])
    if condition is None:
        conditions = sorted({row[2] for row in rows if row[2] is not None})
        if len(conditions) > 1:
            named = ", ".join(f"{name}/{c or 'none'}" for c in conditions)
            raise LabelSetError(f"judge {name} has labels in {len(conditions)} conditions: name one ({named})")
        condition = conditions[0] if conditions else ""
    return LabelSet(
        spec=LabelSetName(LabelSetKind.JUDGE, name, condition).format(),
        kind=LabelSetKind.JUDGE,
        name=name,
        condition=condition,
        judge_ids=(judge.pk,),
        judge_kind=judge.kind,
    )


def _assessor_ids(campaign: Campaign, conditions: tuple[str, ...]) -> tuple[int, ...]:
    """The assessors who judged in the campaign's assignments in these conditions."""
    judged = Judgment.objects.filter(
        assignment__campaign=campaign, condition__in=conditions, judge__kind=JudgeKind.HUMAN
    ).values_list("judge_id", flat=True)
    return tuple(sorted(set(judged)))


def _campaign_set(name: str, condition: str) -> LabelSet:
    campaign = Campaign.objects.filter(name=name).first()
    if campaign is None:
        raise LabelSetError(f"no campaign named {name!r}")
    ids = _assessor_ids(campaign, (condition,))
    return LabelSet(
        spec=LabelSetName(LabelSetKind.CAMPAIGN, name, condition).format(),
        kind=LabelSetKind.CAMPAIGN,
        name=name,
        condition=condition,
        judge_ids=ids,
        judge_kind=JudgeKind.HUMAN,
        campaign_id=campaign.pk,
    )


FINAL_CONDITIONS = (Condition.FROM_SCRATCH, Condition.POST_EDIT)


def _final_set(name: str) -> LabelSet:
    campaign = Campaign.objects.filter(name=name).first()
    if campaign is None:
        body, condition = split_condition(name)
        if condition is not None and Campaign.objects.filter(name=body).exists():
            raise LabelSetError(f"final/{body} takes no condition: it holds the campaign's final labels")
        raise LabelSetError(f"no campaign named {name!r} (final/CAMPAIGN)")
    return label_set_final(campaign)


def label_set_final(campaign: Campaign) -> LabelSet:
    """The campaign's `final/<campaign>` set."""
    ids = _assessor_ids(campaign, FINAL_CONDITIONS)
    return LabelSet(
        spec=LabelSetName.final(campaign.name).format(),
        kind=LabelSetKind.FINAL,
        name=campaign.name,
        condition="",
        judge_ids=ids,
        judge_kind=JudgeKind.HUMAN,
        campaign_id=campaign.pk,
    )


def _group_set(name: str, condition: str) -> LabelSet:
    group = Group.objects.filter(name=name).first()
    if group is None:
        raise LabelSetError(f"no user group named {name!r}")
    ids = tuple(sorted(Judge.objects.filter(user__groups=group).values_list("pk", flat=True)))
    return LabelSet(
        spec=LabelSetName(LabelSetKind.GROUP, name, condition).format(),
        kind=LabelSetKind.GROUP,
        name=name,
        condition=condition,
        judge_ids=ids,
        judge_kind=JudgeKind.HUMAN,
    )


def label_sets_available(*, campaign: Campaign | str | None = None) -> list[LabelSet]:
    """Every single-judge set that has labels, and the campaign's (given or named) assessor sets (one per
    condition); with no campaign, every campaign's."""
    pinned = _PINNED.get()
    if pinned is None:
        if isinstance(campaign, str):
            campaign = Campaign.objects.filter(name=campaign).first()
            if campaign is None:
                return [s for s in _label_sets_available(None) if s.kind == LabelSetKind.JUDGE]
        return _label_sets_available(campaign)
    if "available" not in pinned:
        pinned["available"] = _label_sets_available(None)
    every: list[LabelSet] = pinned["available"]
    if campaign is None:
        return list(every)
    name = campaign if isinstance(campaign, str) else campaign.name
    return [s for s in every if s.kind == LabelSetKind.JUDGE or (s.campaign_id is not None and s.name == name)]


def _label_sets_available(campaign: Campaign | None) -> list[LabelSet]:
    found: list[LabelSet] = []
    rows = (
        Judgment.objects.values_list("judge_id", "judge__name", "judge__kind", "condition")
        .distinct()
        .order_by("judge__kind", "judge__name", "condition")
    )
    for judge_id, name, kind, condition in rows:
        spec = LabelSetName(LabelSetKind.JUDGE, name, condition).format()
        found.append(LabelSet(spec, LabelSetKind.JUDGE, name, condition, (judge_id,), kind))
    campaigns = [campaign] if campaign is not None else list(Campaign.objects.order_by("name"))
    for c in campaigns:
        conditions = sorted(
            set(Judgment.objects.filter(assignment__campaign=c).values_list("condition", flat=True).distinct())
        )
        found.extend(_campaign_set(c.name, condition) for condition in conditions)
        if set(conditions) & set(FINAL_CONDITIONS) or FinalLabel.objects.filter(campaign=c).exists():
            found.append(label_set_final(c))
    return found


# --- the rule ----------------------------------------------------------------------------------------


@dataclass
class CitationLabels:
    """A label set's label of each given citation, as arrays aligned with the citations."""

    codes: np.ndarray  # 0 NS, 1 PS, 2 FS; -1: no label (never judged, recorded as not judged, or a tie)
    judgment_ids: np.ndarray  # the judgment that decided the label (0: none)
    pair_ids: np.ndarray  # the citation's stored pair (0: none stored)
    direct: np.ndarray  # the deciding judgment was made on this very citation
    not_judged: np.ndarray  # the set recorded that it did not judge this citation
    tied: np.ndarray  # several assessors tied and nobody adjudicated

    @property
    def labelled(self) -> np.ndarray:
        return self.codes >= 0


def _code_of_label(**default: Value) -> Case:
    """A row's label as its vocabulary code, in SQL."""
    whens = (When(label=label, then=Value(c)) for label, c in LABEL_CODE.items())
    return Case(*whens, **default, output_field=IntegerField())


def _judgment_columns(qs: QuerySet[Judgment]) -> list[np.ndarray]:
    """(pk, judge, citation or 0, pair, code, made on the platform) of the judgments, oldest first."""
    code = _code_of_label(default=Value(NOT_JUDGED_CODE))
    platform = Case(
        When(Q(origin=JudgmentOrigin.PLATFORM), then=Value(1)), default=Value(0), output_field=IntegerField()
    )
    query = (
        qs.order_by("pk")
        .annotate(code=code, platform=platform, citation_or_zero=Coalesce("citation_id", Value(0)))
        .values_list("pk", "judge_id", "citation_or_zero", "pair_id", "code", "platform")
    )
    return int_columns(query, 6)


def _newest_by(keys: np.ndarray, pks: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """For each wanted key, the index (into keys/pks) of its newest row, or -1. `pks` ascend."""
    result = np.full(len(wanted), -1, dtype=np.int64)
    if len(keys) == 0 or len(wanted) == 0:
        return result
    # Newest first, so that np.unique's first occurrence is the newest row of each key.
    newest_first = np.arange(len(keys))[::-1]
    unique_keys, first = np.unique(keys[newest_first], return_index=True)
    chosen = newest_first[first]
    at = np.clip(np.searchsorted(unique_keys, wanted), 0, len(unique_keys) - 1)
    hit = (unique_keys[at] == wanted) & (wanted > 0)
    result[hit] = chosen[at[hit]]
    return result


def _one_judge(
    columns: list[np.ndarray], citation_ids: np.ndarray, citation_pairs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row index of the deciding judgment or -1, its code, made on the citation itself) for one judge: its
    newest judgment on the citation, else its newest platform judgment on the citation's stored pair."""
    pk, _judge, citation, pair, code, platform = columns
    on_citation = _newest_by(citation, pk, citation_ids)
    on_pair_rows = np.nonzero(platform == 1)[0]
    on_pair = _newest_by(pair[on_pair_rows], pk[on_pair_rows], citation_pairs)
    on_pair = np.where(on_pair >= 0, on_pair_rows[np.clip(on_pair, 0, None)], -1) if len(on_pair_rows) else on_pair
    direct = on_citation >= 0
    chosen = np.where(direct, on_citation, on_pair)
    codes = np.where(chosen >= 0, code[np.clip(chosen, 0, None)] if len(code) else NO_LABEL, NO_LABEL)
    return chosen, codes, direct


def _one_judge_labels(columns: list[np.ndarray], citation_ids: np.ndarray, pairs: np.ndarray) -> CitationLabels:
    """`_one_judge` as labels: one judge's judgments (`columns`) decide each citation's label."""
    pk = columns[0]
    chosen, codes, direct = _one_judge(columns, citation_ids, pairs)
    not_judged = codes == NOT_JUDGED_CODE
    return CitationLabels(
        codes=np.where(not_judged, NO_LABEL, codes).astype(np.int8),
        judgment_ids=np.where(chosen >= 0, pk[np.clip(chosen, 0, None)] if len(pk) else 0, 0),
        pair_ids=pairs.copy(),
        direct=direct,
        not_judged=not_judged,
        tied=np.zeros(len(citation_ids), dtype=bool),
    )


def citation_labels(
    label_set: LabelSet, *, citation_ids: np.ndarray, citation_pairs: np.ndarray, after: int = 0
) -> CitationLabels:
    """The set's label of each citation (`citation_pairs`: each citation's stored pair, 0 for none).

    `after`: only the set's judgments with a larger id count (a one-judge set's labels brought up to date by
    `labels_newer`); a citation none of them decides has no label."""
    if after and label_set.several:
        raise ValueError("only a one-judge set's labels are brought up to date from its newer judgments")
    n = len(citation_ids)
    columns = _judgment_columns(label_set.judgments().filter(pk__gt=after))
    pk, judge = columns[0], columns[1]
    if not label_set.several:
        return _one_judge_labels(columns, citation_ids, citation_pairs)
    votes = np.zeros((n, 3), dtype=np.int64)
    newest = np.zeros((n, 3), dtype=np.int64)  # the newest judgment among each label's voters
    direct_of = np.zeros((n, 3), dtype=bool)
    any_not_judged = np.zeros(n, dtype=bool)
    for judge_id in np.unique(judge).tolist():
        rows = np.nonzero(judge == judge_id)[0]
        chosen, codes, direct = _one_judge([c[rows] for c in columns], citation_ids, citation_pairs)
        any_not_judged |= codes == NOT_JUDGED_CODE
        for c in range(3):
            voted = codes == c
            votes[voted, c] += 1
            judgment = np.where(voted, pk[rows][np.clip(chosen, 0, None)] if len(rows) else 0, 0)
            later = judgment > newest[:, c]
            newest[later, c] = judgment[later]
            direct_of[later, c] = direct[later]
    top = votes.max(axis=1)
    winners = (votes == top[:, None]) & (top[:, None] > 0)
    single = winners.sum(axis=1) == 1
    codes = np.where(single, winners.argmax(axis=1), NO_LABEL)
    rows_n = np.arange(n)
    decided = np.clip(codes, 0, None)
    judgment_ids = np.where(single, newest[rows_n, decided], 0)
    direct = single & direct_of[rows_n, decided]
    tied = winners.sum(axis=1) > 1
    if tied.any():
        adjudicated, adjudication_ids = _adjudicated(label_set, citation_ids, citation_pairs)
        breaks = tied & (adjudicated >= 0)
        codes = np.where(breaks, adjudicated, codes)
        judgment_ids = np.where(breaks, adjudication_ids, judgment_ids)
        tied &= ~breaks
    not_judged = any_not_judged & (votes.sum(axis=1) == 0)
    if label_set.kind == LabelSetKind.FINAL:
        codes, judgment_ids, direct, not_judged, tied = _final_override(
            label_set, citation_pairs, codes, judgment_ids, direct, not_judged, tied
        )
    return CitationLabels(
        codes=codes.astype(np.int8),
        judgment_ids=judgment_ids,
        pair_ids=citation_pairs.copy(),
        direct=direct,
        not_judged=not_judged,
        tied=tied,
    )


def _final_override(
    label_set: LabelSet,
    citation_pairs: np.ndarray,
    codes: np.ndarray,
    judgment_ids: np.ndarray,
    direct: np.ndarray,
    not_judged: np.ndarray,
    tied: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A reviewer's current final label replaces the assessors' label of every citation of its pair. Its
    `judgment_ids` entry is the final label's id, negated (no judgment decided it)."""
    code = _code_of_label()
    pks, pairs, final_codes = int_columns(
        FinalLabel.objects.filter(campaign_id=label_set.campaign_id or 0, current=True)
        .annotate(code=code)
        .order_by("pair_id")
        .values_list("pk", "pair_id", "code"),
        3,
    )
    if len(pairs) == 0 or len(citation_pairs) == 0:
        return codes, judgment_ids, direct, not_judged, tied
    at = np.clip(np.searchsorted(pairs, citation_pairs), 0, len(pairs) - 1)
    hit = (pairs[at] == citation_pairs) & (citation_pairs > 0)
    codes = np.where(hit, final_codes[at], codes)
    judgment_ids = np.where(hit, -pks[at], judgment_ids)
    return codes, judgment_ids, direct & ~hit, not_judged & ~hit, tied & ~hit


def _adjudicated(
    label_set: LabelSet, citation_ids: np.ndarray, citation_pairs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each citation's adjudicated label code (-1: none) and the adjudicating judgment."""
    columns = _judgment_columns(label_set.adjudications())
    chosen, codes, _direct = _one_judge(columns, citation_ids, citation_pairs)
    codes = np.where(codes == NOT_JUDGED_CODE, NO_LABEL, codes)
    ids = np.where(chosen >= 0, columns[0][np.clip(chosen, 0, None)] if len(columns[0]) else 0, 0)
    return codes, ids


def labels_newer(kept: CitationLabels, newer: CitationLabels) -> CitationLabels:
    """A one-judge set's kept labels brought up to date with those its newer judgments alone decide
    (`citation_labels(..., after=...)`): the rule over both, each newer judgment being newer than every kept
    one. One on the citation itself wins; one on its pair, unless the kept label was made on the citation."""
    decided = (newer.judgment_ids != 0) & (newer.direct | ~kept.direct)
    return CitationLabels(
        codes=np.where(decided, newer.codes, kept.codes).astype(np.int8),
        judgment_ids=np.where(decided, newer.judgment_ids, kept.judgment_ids),
        pair_ids=kept.pair_ids,
        direct=np.where(decided, newer.direct, kept.direct),
        not_judged=np.where(decided, newer.not_judged, kept.not_judged),
        tied=kept.tied,
    )


def pair_judgments_newest(judgments: QuerySet[Judgment], *, pair_ids: np.ndarray) -> np.ndarray:
    """For each pair, the judgment the label rule takes from these judgments read as one judge's (the newest
    made on the platform on the pair, "cannot judge" included), by id; 0 where none is."""
    columns = _judgment_columns(judgments)
    return _one_judge_labels(columns, np.zeros(len(pair_ids), dtype=np.int64), pair_ids).judgment_ids


def labels_as_dict(labels: CitationLabels, citation_ids: np.ndarray) -> dict[int, tuple[str, int]]:
    """citation id -> (label, deciding judgment id), for the paths that handle few citations."""
    return {
        int(citation_ids[i]): (SUPPORT.name_of_code[int(labels.codes[i])], int(labels.judgment_ids[i]))
        for i in np.nonzero(labels.codes >= 0)[0]
    }
