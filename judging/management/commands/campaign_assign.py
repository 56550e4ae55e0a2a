from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from judging.models import Campaign
from judging.planning.services import PLAN_CONDITIONS, Plan, PlanError, assignment_plan_carry_out


class Command(BaseCommand):
    help = (
        "Assign every topic of a campaign (or a seeded share of them) to K distinct assessors in one condition, "
        "balancing the load by pairs; existing assignments count toward K, so a second run writes nothing."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign", help="campaign name")
        parser.add_argument("--assessors", nargs="+", required=True, help="usernames")
        parser.add_argument("--condition", choices=[str(c) for c in PLAN_CONDITIONS], required=True)
        parser.add_argument("--overlap", type=int, required=True, help="K: distinct assessors per topic")
        parser.add_argument(
            "--overlap-share", type=float, default=1.0, help="share F of the topics that get K (the rest get one)"
        )
        parser.add_argument("--seed", type=int, default=0, help="seed of the draw of that share")
        parser.add_argument(
            "--rebalance", action="store_true", help="also move untouched topics (no judgment yet) to even the load"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.filter(name=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {options['campaign']!r}")
        wanted = list(dict.fromkeys(options["assessors"]))
        users = {u.username: u for u in User.objects.filter(username__in=wanted)}
        unknown = [a for a in wanted if a not in users]
        if unknown:
            raise CommandError(f"unknown assessors: {', '.join(unknown)} (create them with add_assessor)")
        try:
            plan = assignment_plan_carry_out(
                campaign=campaign,
                assessors=[users[a] for a in wanted],
                condition=options["condition"],
                overlap=options["overlap"],
                overlap_share=options["overlap_share"],
                seed=options["seed"],
                rebalance=options["rebalance"],
            )
        except PlanError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(plan_text(plan))


def plan_text(plan: Plan) -> str:
    pace = (
        f"median {plan.seconds_per_judgment:.1f} s of {plan.seconds_measured} judgments"
        if plan.seconds_measured
        else f"{plan.seconds_per_judgment:.0f} s per judgment (default: no judgment timed yet)"
    )
    lines = [
        f"campaign {plan.campaign.name}, {plan.condition}: {plan.topics_overlapped} of {plan.topics} topics to "
        f"{plan.overlap} assessors, the rest to one; {len(plan.new)} new, {len(plan.moves)} moved",
        f"{'assessor':<24} {'topics':>6} {'pairs':>7} {'new':>5} {'hours':>7}",
    ]
    for load in plan.loads:
        lines.append(f"{load.assessor:<24} {load.topics:>6} {load.pairs:>7} {load.new_topics:>5} {load.hours:>7.1f}")
    ratio = f"{plan.ratio:.3f}" if plan.ratio is not None else "unbounded (an assessor has no pairs)"
    lines.append(f"pairs max / min: {ratio}; hours at {pace}")
    for move in plan.moves:
        lines.append(f"moved topic {move.topic_id} ({move.pairs} pairs): {move.from_assessor} -> {move.to_assessor}")
    if plan.skipped:
        lines.append(f"{len(plan.skipped)} (assessor, topic) skipped by the blindness rules")
    if not plan.writes:
        lines.append("nothing to write: every topic has its assessors")
    return "\n".join(lines)
