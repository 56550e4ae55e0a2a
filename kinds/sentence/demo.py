"""The sentence part of the demo (issue 26, point 5): a campaign "demo-sentence" on the two demo topics over the
demo's runs, `assessor` judging it from scratch. NIST's Webassess labels of those topics (loaded by
metrics.demo as judge `nist`) give the campaign panel its figures.

The editor gets no post-edit assignment here: post-editing shows an LLM's sentence labels, and the repository's
data holds none (its LLM file judges citations one by one, which is not a combined label of a sentence). A
post-edit card with nothing to show would be a from-scratch card filed under post_edit. Pre-labelling the
campaign gives the labels; then the editor can be assigned (POST_EDIT_HOW says how)."""

from __future__ import annotations

from typing import TextIO

from django.contrib.auth.models import User
from django.db import transaction

from assess.demo import ASSESSOR, DEMO_TOPICS
from assess.models import Run, Topic
from judging.build import campaign_create
from judging.models import Campaign, Condition
from judging.services import assignments_create

from .build import campaign_build_sentences
from .kind import KIND

CAMPAIGN = "demo-sentence"
CONDITIONS = {ASSESSOR[0]: Condition.FROM_SCRATCH}
POST_EDIT_HOW = (
    f"no post-edit assignment: the data holds no LLM sentence labels; pre-label {CAMPAIGN!r} with an LLM judge "
    f"(its campaign page), make that judge its post-edit judge, then "
    f"`manage.py assign {CAMPAIGN} --assessors editor --topics all --condition post_edit`"
)


@transaction.atomic
def _campaign_create() -> tuple[Campaign, dict[str, int]]:
    topics = list(Topic.objects.filter(topic_id__in=DEMO_TOPICS).order_by("topic_id"))
    campaign = campaign_create(name=CAMPAIGN, runs=Run.objects.all(), topics=topics)
    campaign.kind = KIND.name
    campaign.save(update_fields=["kind"])
    summary = campaign_build_sentences(campaign, allow_missing_text=True)
    for username, condition in CONDITIONS.items():
        assignments_create(
            campaign=campaign, assessor=User.objects.get(username=username), topics=topics, condition=condition
        )
    return campaign, summary


def load(out: TextIO) -> None:
    if Campaign.objects.filter(name=CAMPAIGN).exists():
        out.write(f"demo campaign {CAMPAIGN!r} already exists\n")
        return
    campaign, summary = _campaign_create()
    topics = ", ".join(campaign.topics.order_by("topic_id").values_list("topic_id", flat=True))
    out.write(
        f"campaign {CAMPAIGN!r}: {summary['sentences_kept']} sentences of {summary['runs']} runs on {topics} "
        f"({summary['sentences_uncited']} cite nothing; {summary['sentences_left_out']} left out: "
        f"{summary['sentences_citing_passages_without_text']} cite a passage without text, the rest have no text); "
        + ", ".join(f"{u} {c.label.lower()}" for u, c in CONDITIONS.items())
        + f"; {POST_EDIT_HOW}\n"
    )
