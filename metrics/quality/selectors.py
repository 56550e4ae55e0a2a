"""What the assessor quality page, its API, its CSV and its command read: a campaign's raters, their
judgments, the LLM and NIST label sets on its pairs, and its gold items, turned into the figures of
`stats.py`. Only this module touches the ORM."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.contrib.auth import get_user_model
from django.db.models import Q

from judging.label_set_names import LabelSetName
from judging.labels import LabelSet, LabelSetKind
from judging.models import Assignment, Campaign, CampaignPair, Condition, Judge, JudgeKind, Judgment
from judging.scope import scope_for
from judging.vocabulary import SUPPORT
from metrics.material import Material, labels_get, material_get
from metrics.quality import stats
from metrics.quality.models import GoldItem

NIST_JUDGE = "nist"
PAIR_UNIT = "pair"
CITATION_UNIT = "citation"


@dataclass(frozen=True)
class Rater:
    """One assessor in one condition of the campaign."""

    username: str
    judge_id: int | None  # None: assigned, but no judge yet (nothing judged)
    judge_name: str
    condition: str

    @property
    def spec(self) -> str:
        return LabelSetName(LabelSetKind.JUDGE, self.judge_name, self.condition).format()

    def label_set(self, campaign: Campaign) -> LabelSet:
        return LabelSet(
            spec=self.spec,
            kind=LabelSetKind.JUDGE,
            name=self.judge_name,
            condition=self.condition,
            judge_ids=(self.judge_id,) if self.judge_id is not None else (),
            judge_kind=JudgeKind.HUMAN,
            campaign_id=campaign.pk,
        )


@dataclass(frozen=True)
class Reference:
    """A label set the raters are compared with: an LLM judge's, or NIST's."""

    label_set: LabelSet
    source: str  # "llm" or "nist"

    @property
    def spec(self) -> str:
        return self.label_set.spec


@dataclass
class RaterRow:
    rater: Rater
    figures: stats.RaterFigures
    gold: stats.GoldAccuracy | None  # None: the campaign has no gold items
    assessors: dict[str, stats.Agreement] = field(default_factory=dict)  # other rater spec -> agreement (pairs)
    references: dict[str, stats.Agreement] = field(default_factory=dict)  # reference spec -> agreement (citations)
    drift: list[stats.DriftBlock] = field(default_factory=list)
    speed: list[stats.SpeedPoint] = field(default_factory=list)


@dataclass
class QualityReport:
    campaign: Campaign
    depth: int | None
    raters: list[Rater]
    rows: list[RaterRow]
    references: list[Reference]
    drift_reference: Reference | None
    gold_items: int
    drift_block: int = stats.DRIFT_BLOCK


def campaign_raters(*, campaign: Campaign) -> list[Rater]:
    """Every (assessor, condition) the campaign assigned or holds judgments of, by name then condition."""
    assigned = set(Assignment.objects.filter(campaign=campaign).values_list("assessor_id", "condition").distinct())
    judged = set(
        Judgment.objects.filter(assignment__campaign=campaign, judge__kind=JudgeKind.HUMAN)
        .values_list("assignment__assessor_id", "condition")
        .distinct()
    )
    keys = assigned | judged
    users = {uid for uid, _ in keys}
    judges = {
        user_id: (pk, name)
        for pk, name, user_id in Judge.objects.filter(user_id__in=users).values_list("pk", "name", "user_id")
    }
    names = dict(get_user_model().objects.filter(pk__in=users).values_list("pk", "username"))
    raters = []
    for user_id, condition in keys:
        judge_id, judge_name = judges.get(user_id, (None, names[user_id]))
        raters.append(Rater(names[user_id], judge_id, judge_name, condition))
    order = {c: i for i, c in enumerate(Condition.values)}
    return sorted(raters, key=lambda r: (r.username, order.get(r.condition, 99)))


def campaign_references(*, campaign: Campaign) -> list[Reference]:
    """The LLM label sets with labels on the campaign's pairs, then NIST's (judge `nist`), one per condition."""
    pool = CampaignPair.objects.filter(campaign=campaign).values("pair_id")
    rows = (
        Judgment.objects.filter(Q(judge__kind=JudgeKind.LLM) | Q(judge__name=NIST_JUDGE), pair_id__in=pool)
        .values_list("judge_id", "judge__name", "judge__kind", "condition")
        .distinct()
    )
    found = []
    for judge_id, name, kind, condition in sorted(set(rows), key=lambda r: (r[1] == NIST_JUDGE, r[1], r[3])):
        spec = LabelSetName(LabelSetKind.JUDGE, name, condition).format()
        label_set = LabelSet(spec, LabelSetKind.JUDGE, name, condition, (judge_id,), kind)
        found.append(Reference(label_set, "nist" if name == NIST_JUDGE else "llm"))
    return found


def drift_reference_choose(*, campaign: Campaign, references: list[Reference]) -> Reference | None:
    """NIST's labels where they are loaded, else the campaign's post-edit LLM judge, else the first LLM set."""
    nist = [r for r in references if r.source == "nist"]
    if nist:
        return nist[0]
    post_edit = [r for r in references if r.label_set.judge_ids == (campaign.post_edit_judge_id,)]
    if post_edit:
        return post_edit[0]
    return references[0] if references else None


def _judgment_rows(campaign: Campaign) -> dict[tuple[int, str], list[stats.JudgmentRow]]:
    rows: dict[tuple[int, str], list[stats.JudgmentRow]] = defaultdict(list)
    query = (
        Judgment.objects.filter(assignment__campaign=campaign, judge__kind=JudgeKind.HUMAN)
        .order_by("created_at", "pk")
        .values_list(
            "judge_id", "condition", "pk", "pair_id", "citation_id", "label", "seconds", "created_at", "flagged"
        )
    )
    for judge_id, condition, pk, pair_id, citation_id, label, seconds, created_at, flagged in query.iterator(2000):
        rows[(judge_id, condition)].append(
            stats.JudgmentRow(pk, pair_id, citation_id or 0, label, seconds, created_at, flagged)
        )
    return rows


def _citation_label_map(material: Material, codes: np.ndarray) -> dict[int, str]:
    labelled = np.nonzero(codes >= 0)[0]
    return {int(material.citation_id[i]): SUPPORT.names[int(codes[i])] for i in labelled}


def gold_pairs(*, campaign: Campaign) -> dict[int, str]:
    """pair id -> expected label of the campaign's gold items."""
    return dict(GoldItem.objects.filter(campaign=campaign).values_list("pair_id", "label"))


def quality_report(*, campaign: Campaign) -> QualityReport:
    scope = scope_for(campaign=campaign)
    material = material_get(scope)
    raters = campaign_raters(campaign=campaign)
    references = campaign_references(campaign=campaign)
    reference = drift_reference_choose(campaign=campaign, references=references)
    judgments = _judgment_rows(campaign)
    gold = gold_pairs(campaign=campaign)
    reference_codes = {r.spec: labels_get(r.label_set, material).codes for r in references}
    drift_labels = _citation_label_map(material, reference_codes[reference.spec]) if reference else None

    rows: list[RaterRow] = []
    current: dict[str, dict[int, str]] = {}
    for rater in raters:
        mine = judgments.get((rater.judge_id, rater.condition), []) if rater.judge_id is not None else []
        current[rater.spec] = stats.current_labels(mine)
        row = RaterRow(
            rater=rater,
            figures=stats.rater_figures(mine),
            gold=stats.gold_accuracy(current[rater.spec], gold) if gold else None,
            drift=stats.drift(mine, drift_labels),
            speed=stats.speed_points(mine),
        )
        if references:
            codes = labels_get(rater.label_set(campaign), material).codes if mine else None
            for ref in references:
                row.references[ref.spec] = (
                    stats.agreement(codes, reference_codes[ref.spec]) if codes is not None else stats.NO_AGREEMENT
                )
        rows.append(row)
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            figure = stats.pair_agreement(current[a.rater.spec], current[b.rater.spec])
            a.assessors[b.rater.spec] = figure
            b.assessors[a.rater.spec] = figure
    return QualityReport(
        campaign=campaign,
        depth=scope.depth,
        raters=raters,
        rows=rows,
        references=references,
        drift_reference=reference,
        gold_items=len(gold),
    )
