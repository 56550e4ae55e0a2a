"""What a campaign's deletion would lose, counted before anything is deleted (the confirmation lists it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import ForeignKey, ManyToOneRel

from judging.models import Assignment, Campaign, CampaignPair, GuidelinesReading, Judgment, Sample


@dataclass(frozen=True)
class CampaignLosses:
    pairs: int  # rows of its pool (the pairs themselves stay: other campaigns and labels share them)
    assignments: int
    assessors: int
    human_judgments: int  # made in its assignments
    other: list[tuple[str, int]] = field(default_factory=list)  # every other row that is the campaign's own

    def lines(self) -> list[str]:
        rows = [
            (f"{self.pairs} pairs in its pool", self.pairs),
            (f"{self.assignments} assignments of {self.assessors} assessors", self.assignments),
            (f"{self.human_judgments} human judgments made in its assignments", self.human_judgments),
            *((f"{n} {what}", n) for what, n in self.other),
        ]
        return [text for text, n in rows if n]


# Counted apart above, or holding nothing an organizer would miss (a sample is counted as the study or budget
# sample that wrote it).
_COUNTED = {CampaignPair, Assignment, GuidelinesReading, Sample}


def campaign_losses(*, campaign: Campaign) -> CampaignLosses:
    """Counts of what `lifecycle.services.campaign_delete` removes with the campaign. Every model that hangs on a
    campaign and goes with it (its studies, samples, pre-labelling jobs, ...) is found from the campaign's
    relations, so a feature added later is listed without this module knowing it."""
    other = []
    for rel in Campaign._meta.related_objects:
        if not isinstance(rel, ManyToOneRel) or not isinstance(rel.field, ForeignKey):
            continue
        model = rel.related_model
        if model in _COUNTED or not isinstance(model, type):
            continue
        n = model._default_manager.filter(**{rel.field.name: campaign}).count()
        if n:
            other.append((str(model._meta.verbose_name_plural), n))
    assignments = Assignment.objects.filter(campaign=campaign)
    return CampaignLosses(
        pairs=CampaignPair.objects.filter(campaign=campaign).count(),
        assignments=assignments.count(),
        assessors=assignments.values("assessor_id").distinct().count(),
        human_judgments=Judgment.objects.filter(assignment__campaign=campaign).count(),
        other=sorted(other),
    )
