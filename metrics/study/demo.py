"""The disagreement study of the demo: on the demo campaign's two topics, NIST's labels (`nist`) against
the LLM's (`opus-4.8-nist`), re-judged blind by the demo's `adjudicator`, an account that judges nothing else
(an adjudicator has not judged the topic: DESIGN §3). A few adjudications are made through the normal submit
service so that the report has figures; their labels are synthetic (drawn from a fixed seed, leaning to
NIST's label), not a person's judgment. Runs after `metrics.demo`, which loads the labels."""

from __future__ import annotations

import random
from typing import TextIO

from django.contrib.auth.models import User

from assess.demo import ADJUDICATOR
from judging import queue, services
from judging.models import Campaign, Label
from metrics.study import services as study_services
from metrics.study.models import Study, StudyItem

CAMPAIGN = "demo"
NIST_JUDGE = "nist"
LLM_JUDGE = "opus-4.8-nist"
PER_TOPIC = 15
SEED = 0
ADJUDICATED_PER_TOPIC = 6


def load(out: TextIO) -> None:
    campaign = Campaign.objects.filter(name=CAMPAIGN).first()
    if campaign is None:
        out.write("no demo campaign: the study demo needs judging.demo\n")
        return
    if Study.objects.filter(campaign=campaign).exists():
        out.write("demo study already exists\n")
        return
    try:
        study = study_services.study_create(
            campaign=campaign, a=NIST_JUDGE, b=LLM_JUDGE, per_topic=PER_TOPIC, seed=SEED
        )
    except study_services.StudyError as error:
        out.write(f"no demo study: {error}\n")
        return
    adjudicator = User.objects.get(username=ADJUDICATOR[0])
    assignments = study_services.study_assign(study=study, assessor=adjudicator)
    rng = random.Random(SEED)
    made = 0
    for assignment in assignments:
        for _ in range(ADJUDICATED_PER_TOPIC):
            card = queue.queue_state(assignment=assignment).card
            if card is None:
                break
            item = StudyItem.objects.get(study=study, topic=assignment.topic, pair_id=card.campaign_pair.pair_id)
            third = next(label for label in Label.values if label not in (item.label_a, item.label_b))
            label = rng.choices([item.label_a, item.label_b, third], weights=[5, 3, 2])[0]
            services.judgment_submit(
                assignment=assignment,
                pair_id=card.campaign_pair.pair_id,
                label=label,
                token=card.token_uuid,
                seconds=round(rng.uniform(8, 40), 1),
            )
            made += 1
    short = study.summary["short_topics"]
    out.write(
        f"study #{study.pk}: {study.summary['sampled']} pairs where {NIST_JUDGE} and {LLM_JUDGE} disagree "
        f"(up to {PER_TOPIC} per topic, seed {SEED}{'; short: ' + ', '.join(short) if short else ''}); "
        f"{adjudicator.username} re-judges them blind ({len(assignments)} adjudication assignments, {made} made)\n"
    )
