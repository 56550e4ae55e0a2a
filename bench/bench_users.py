"""Accounts and API tokens for the assessor load benchmark (bench/assessor_load.sh).

    python bench/bench_users.py 20 --workers-out var/loadbench/workers.json --admin-out var/loadbench/admin_token

Creates (or keeps) one organizer `bench-organizer` (staff) and N assessors `bench-assessor-01..N`, each with
a DRF token, against the database in DATABASE_URL. Writes the assessors as `[{"token", "username"}, ...]`
(the worker-token file the Label Studio peer's bench.py reads; the adapter reads `username` to assign topic k
to assessor k) and the organizer's token to --admin-out. The accounts have no usable password: a token is
all the benchmark uses, and hashing 21 passwords would only slow the set-up.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORGANIZER = "bench-organizer"
ASSESSOR_PREFIX = "bench-assessor-"


def assessor_name(k: int) -> str:
    """The k-th assessor (0-based) as the adapter names it too."""
    return f"{ASSESSOR_PREFIX}{k + 1:02d}"


def provision(n: int) -> tuple[str, list[dict[str, str]]]:
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from judging.services import assessor_judge

    organizer, created = User.objects.get_or_create(username=ORGANIZER, defaults={"is_staff": True})
    if created:
        organizer.set_unusable_password()
        organizer.save(update_fields=["password"])
    elif not organizer.is_staff:
        organizer.is_staff = True
        organizer.save(update_fields=["is_staff"])
    admin_token, _ = Token.objects.get_or_create(user=organizer)
    workers: list[dict[str, str]] = []
    for k in range(n):
        user, created = User.objects.get_or_create(username=assessor_name(k))
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        assessor_judge(user=user)
        token, _ = Token.objects.get_or_create(user=user)
        workers.append({"token": token.key, "username": user.username})
    return admin_token.key, workers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int, nargs="?", default=20, help="assessor accounts (default 20)")
    ap.add_argument("--workers-out", required=True, help="JSON file [{token, username}, ...]")
    ap.add_argument("--admin-out", required=True, help="file that receives the organizer's token")
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-key")  # a benchmark serves nobody
    import django

    django.setup()
    admin, workers = provision(a.n)
    for path in (a.workers_out, a.admin_out):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(a.workers_out).write_text(json.dumps(workers, indent=1) + "\n")
    Path(a.admin_out).write_text(admin + "\n")
    print(f"{ORGANIZER} and {len(workers)} assessors with tokens: {a.workers_out}, {a.admin_out}")


if __name__ == "__main__":
    main()
