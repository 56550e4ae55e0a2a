"""The demo set of DESIGN §8: real TREC 2024 RAG files for two topics, and the demo accounts. The demo of each
app builds on this one; `kinds/management/commands/demo_load.py` runs them in order."""

from __future__ import annotations

from typing import TextIO

from django.contrib.auth.models import User

from assess.data import data_dir
from assess.importers.passages import passages_import
from assess.importers.runs import RunFormat, RunOptions, runs_import
from assess.importers.topics import topics_import
from assess.models import Answer, Run, Task

DEMO_TOPICS = ("2024-32912", "2024-129925")
ORGANIZER = ("organizer", "organizer-demo")
ASSESSOR = ("assessor", "assessor-demo")  # judges from scratch; nothing is judged under it beforehand
# One account per condition, so that nobody works two conditions of one topic (the blindness rules, DESIGN §3).
EDITOR = ("editor", "editor-demo")  # post-edits the LLM's labels
ADJUDICATOR = ("adjudicator", "adjudicator-demo")  # re-judges the disagreement study's sample blind
ASSESSORS = (ASSESSOR, EDITOR, ADJUDICATOR)


def users_ensure() -> None:
    organizer, _ = User.objects.get_or_create(username=ORGANIZER[0], defaults={"is_staff": True, "is_superuser": True})
    organizer.is_staff = organizer.is_superuser = True
    organizer.set_password(ORGANIZER[1])
    organizer.save()
    for username, password in ASSESSORS:
        assessor, _ = User.objects.get_or_create(username=username)
        assessor.set_password(password)
        assessor.save()


def load(out: TextIO) -> None:
    """Load the demo material once; a second call only resets the demo passwords."""
    data = data_dir()
    users_ensure()
    if Answer.objects.exists():
        out.write("demo material already loaded\n")
        return
    nist = data / "nist-support"
    topics_import(files=[data / "topics.rag24.test.txt"])
    runs_import(
        files=[
            nist / "final.citation_judgments_without_prediction.20241025.jsonl",
            nist / "final.citation_judgments_Webassess.20241031.jsonl",
        ],
        fmt=RunFormat.NIST,
        options=RunOptions(task="AG", topics=frozenset(DEMO_TOPICS)),
    )
    for i, path in enumerate(sorted((data / "runs").glob("*.jsonl.fixed")), start=1):
        runs_import(files=[path], options=RunOptions(group="coordinators", task="RAG", priority=i))
    passages_import(files=[data / "segments" / "nist-cited-segments.jsonl"])
    nist_runs = Run.objects.filter(task=Task.AG).count()
    out.write(
        f"loaded topics, the {nist_runs} NIST runs that answered topics {', '.join(DEMO_TOPICS)}, "
        "3 organizer runs, passages\n"
    )
