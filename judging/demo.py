"""The judging part of the demo: a campaign on the two demo topics, each condition under its own account
(the blindness rules, DESIGN §3: one assessor works one condition per topic). `assessor` judges both topics
from scratch and `editor` post-edits both; nothing is judged under either beforehand."""

from __future__ import annotations

from typing import TextIO

from django.contrib.auth.models import User

from assess.demo import ASSESSOR, DEMO_TOPICS, EDITOR
from assess.models import Run, Topic
from judging import build, services
from judging.models import Campaign, Condition, JudgeKind

CAMPAIGN = "demo"
LLM_JUDGE = "opus-4.8-nist"
CONDITIONS = {ASSESSOR[0]: Condition.FROM_SCRATCH, EDITOR[0]: Condition.POST_EDIT}


def load(out: TextIO) -> None:
    if Campaign.objects.filter(name=CAMPAIGN).exists():
        out.write(f"demo campaign {CAMPAIGN!r} already exists\n")
        return
    judge = services.judge_get_or_create(name=LLM_JUDGE, kind=JudgeKind.LLM)
    topics = list(Topic.objects.filter(topic_id__in=DEMO_TOPICS).order_by("topic_id"))
    campaign, summary = build.campaign_create_and_build(
        name=CAMPAIGN, runs=Run.objects.all(), topics=topics, depth=1, post_edit_judge=judge, allow_missing_text=True
    )
    for username, condition in CONDITIONS.items():
        services.assignments_create(
            campaign=campaign, assessor=User.objects.get(username=username), topics=topics, condition=condition
        )
    out.write(
        f"campaign {CAMPAIGN!r}: {summary['pairs']} pairs from {summary['citations_kept']} citations "
        f"({summary['judgments_saved']} judgments saved; {summary['citations_left_out']} citations left out: "
        f"{summary['passages_without_text']} passages without text, "
        f"{summary['citations_without_sentence_text']} sentences without text); "
        + ", ".join(f"{u} {c.label.lower()}" for u, c in CONDITIONS.items())
        + f" on {', '.join(t.topic_id for t in topics)}\n"
    )
