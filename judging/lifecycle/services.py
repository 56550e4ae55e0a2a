"""A campaign's lifecycle (issue 23, point 5): clone, archive and restore, delete with a typed confirmation.

Archived: read-only. `services.assignments_create` refuses new assignments and the submit refuses new
judgments (`services.CampaignArchived`); the campaign leaves the default lists and comes back on restore with
everything it had. Delete is refused while the campaign holds human judgments, unless forced, which the
command and the page offer only once those judgments are exported."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from judging.lifecycle.selectors import CampaignLosses, campaign_losses
from judging.models import Campaign, CampaignPair, Judgment


class LifecycleError(Exception):
    """Refused; `message` is one line saying why and what to do. Nothing changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@transaction.atomic
def campaign_clone(*, campaign: Campaign, name: str) -> Campaign:
    """A new campaign with the same runs, topics, settings and pool (the same pairs in the same order), and no
    assignments or judgments. The pool is copied, not rebuilt, so it is the pool the original judged."""
    name = name.strip()
    if not name:
        raise LifecycleError("give the clone a name")
    if Campaign.objects.filter(name=name).exists():
        raise LifecycleError(f"a campaign named {name!r} exists")
    clone = Campaign.objects.create(
        name=name,
        depth=campaign.depth,
        guidelines=campaign.guidelines,
        post_edit_judge=campaign.post_edit_judge,
        highlight_evidence=campaign.highlight_evidence,
        queue_order=campaign.queue_order,
        built_at=campaign.built_at,
        build_summary=dict(campaign.build_summary),
    )
    clone.runs.set(list(campaign.runs.all()))
    clone.topics.set(list(campaign.topics.all()))
    CampaignPair.objects.bulk_create(
        [
            CampaignPair(
                campaign=clone,
                pair_id=cp.pair_id,
                topic_id=cp.topic_id,
                context_citation_id=cp.context_citation_id,
                citation_count=cp.citation_count,
                position=cp.position,
            )
            for cp in CampaignPair.objects.filter(campaign=campaign).order_by("topic_id", "position")
        ],
        batch_size=2000,
    )
    return clone


def campaign_archive(*, campaign: Campaign) -> Campaign:
    """Read-only and out of the default lists; archiving an archived campaign keeps its first date."""
    if campaign.archived_at is None:
        campaign.archived_at = timezone.now()
        campaign.save(update_fields=["archived_at"])
    return campaign


def campaign_restore(*, campaign: Campaign) -> Campaign:
    if campaign.archived_at is not None:
        campaign.archived_at = None
        campaign.save(update_fields=["archived_at"])
    return campaign


@dataclass(frozen=True)
class Deleted:
    name: str
    losses: CampaignLosses


@transaction.atomic
def campaign_delete(*, campaign: Campaign, confirm: str, force: bool = False) -> Deleted:
    """Delete the campaign and everything that is its own (pool, assignments, their judgments, its studies and
    samples, pre-labelling jobs); pairs and the labels made on them outside it stay. `confirm` must be the
    campaign's name. Refused while it holds human judgments unless `force`."""
    if confirm.strip() != campaign.name:
        raise LifecycleError(f"type the campaign's name ({campaign.name}) to delete it; nothing deleted")
    locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
    losses = campaign_losses(campaign=locked)
    if losses.human_judgments and not force:
        raise LifecycleError(
            f"campaign {campaign.name} holds {losses.human_judgments} human judgments: export them first "
            f"(export_judgments OUT --campaign {campaign.name}), then delete with force; nothing deleted"
        )
    # Judgments are history and protect their assignment: a forced delete removes the campaign's own ones first.
    Judgment.objects.filter(assignment__campaign=locked).delete()
    locked.delete()
    return Deleted(name=campaign.name, losses=losses)
