from __future__ import annotations

import secrets
from argparse import ArgumentParser
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from judging import services


class Command(BaseCommand):
    help = "Create an assessor account (not staff) and its judge. Prints the password if one is generated."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--password", default=None, help="default: a generated one, printed once")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["name"]
        if User.objects.filter(username=name).exists():
            raise CommandError(f"user {name!r} exists")
        password = options["password"] or secrets.token_urlsafe(12)
        services.assessor_create(username=name, password=password)
        self.stdout.write(f"assessor {name} created")
        if not options["password"]:
            self.stdout.write(f"  password: {password}")
