"""python manage.py study_assign STUDY --assessor NAME [--topics ID ...]"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from metrics.study import services as study_services
from metrics.study.models import Study


class Command(BaseCommand):
    help = "Give an independent assessor a study's sample to re-judge blind (adjudication assignments)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", type=int, help="study id")
        parser.add_argument("--assessor", required=True, help="username")
        parser.add_argument("--topics", nargs="+", help="topic ids (default: every topic with a sample)")

    def handle(self, *args: Any, **options: Any) -> None:
        study = Study.objects.select_related("campaign").filter(pk=options["study"]).first()
        if study is None:
            raise CommandError(f"no study #{options['study']}")
        user = User.objects.filter(username=options["assessor"]).first()
        if user is None:
            raise CommandError(f"unknown user {options['assessor']!r} (create one with add_assessor)")
        topics = None
        if options["topics"]:
            found = {t.topic_id: t for t in study.campaign.topics.filter(topic_id__in=options["topics"])}
            missing = [t for t in options["topics"] if t not in found]
            if missing:
                raise CommandError(f"topics not in campaign {study.campaign.name}: {', '.join(missing)}")
            topics = [found[t] for t in options["topics"]]
        try:
            made = study_services.study_assign(study=study, assessor=user, topics=topics)
        except study_services.StudyError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"{user.username}: {len(made)} adjudication assignment(s) for study #{study.pk} "
            f"({', '.join(a.topic.topic_id for a in made)})"
        )
