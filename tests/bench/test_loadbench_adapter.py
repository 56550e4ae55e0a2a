"""The load-benchmark adapter (bench/ls_adapter.py) against a live server: real HTTP, token auth, real imports."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

from assess.models import Sentence
from bench.bench_users import provision
from bench.ls_adapter import AssessPlatformAdapter, split_context
from judging.models import Assignment, Campaign, CampaignPair, Judgment

ROOT = Path(__file__).resolve().parents[2]


def make_tasks(n, seed=0):
    """Tasks shaped like the peer's bench.py makes them: the sentence sits inside its context."""
    tasks = []
    for i in range(n):
        sentence = f"Sentence {seed}-{i} says the river floods in spring."
        context = f"Before {i} the council met. {sentence} After {i} the harbor closed."
        tasks.append({"pair_id": f"p{seed}-{i}", "sentence": sentence, "context": context, "passage": f"Passage {i}."})
    return tasks


@pytest.fixture
def bench_env(transactional_db, live_server, settings, tmp_path, monkeypatch):
    """An organizer and two assessors with tokens, the worker-token file in the environment, uploads in tmp."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.BACKGROUND_IN_THREAD = True
    admin, workers = provision(2)
    path = tmp_path / "workers.json"
    path.write_text(json.dumps(workers))
    monkeypatch.setenv("BENCH_WORKER_TOKENS", str(path))
    monkeypatch.delenv("ASSESS_BENCH_TOPICS", raising=False)
    monkeypatch.delenv("ASSESS_BENCH_NEXT", raising=False)
    return {"url": live_server.url, "admin": admin, "workers": workers, "file": path}


def adapter(env):
    return AssessPlatformAdapter(env["url"], env["admin"])


def test_it_splits_a_context_around_its_sentence():
    # given
    task = {"sentence": "Middle one.", "context": "First part. Middle one. Last part."}

    # when
    sentences, judged = split_context(task)

    # then
    assert sentences == ["First part.", "Middle one.", "Last part."]
    assert judged == 1


def test_it_provisions_an_organizer_and_assessors_with_tokens_once(db):
    # given
    admin, workers = provision(3)

    # when
    again_admin, again = provision(3)

    # then
    assert again_admin == admin
    assert again == workers
    assert [w["username"] for w in workers] == ["bench-assessor-01", "bench-assessor-02", "bench-assessor-03"]
    assert Token.objects.get(key=admin).user.is_staff
    assert not Token.objects.get(key=workers[0]["token"]).user.is_staff


def test_it_imports_tasks_as_a_campaign_with_one_topic_per_assessor(bench_env):
    # given
    ad = adapter(bench_env)
    pid = ad.create_project("bench-a")

    # when
    result = ad.import_tasks(pid, make_tasks(6))

    # then
    campaign = Campaign.objects.get(name=pid)
    assert result["task_count"] == 6
    assert CampaignPair.objects.filter(campaign=campaign).count() == 6
    assigned = {a.assessor.username: a.topic.topic_id for a in Assignment.objects.filter(campaign=campaign)}
    assert assigned == {"bench-assessor-01": "bench-a-t00", "bench-assessor-02": "bench-a-t01"}
    assert CampaignPair.objects.filter(campaign=campaign, topic__topic_id="bench-a-t00").count() == 3


def test_it_keeps_the_context_as_the_answer_around_the_judged_sentence(bench_env):
    # given
    ad = adapter(bench_env)
    pid = ad.create_project("bench-ctx")

    # when
    ad.import_tasks(pid, make_tasks(2))

    # then
    cp = CampaignPair.objects.select_related("context_citation__sentence").filter(campaign__name=pid).first()
    sentence = cp.context_citation.sentence
    texts = list(Sentence.objects.filter(answer_id=sentence.answer_id).order_by("index").values_list("text", flat=True))
    assert len(texts) == 3
    assert texts[1] == sentence.text
    assert sentence.text.startswith("Sentence 0-")


def test_it_serves_each_assessor_the_pairs_of_their_own_topic(bench_env):
    # given
    ad = adapter(bench_env)
    pid = ad.create_project("bench-b")
    ad.import_tasks(pid, make_tasks(6))
    first, second = (ad.session(w["token"]) for w in bench_env["workers"])

    # when
    a_task, a_status = ad.next_task(first, pid)
    b_task, b_status = ad.next_task(second, pid)

    # then
    assert (a_status, b_status) == (200, 200)
    topic_of = dict(CampaignPair.objects.filter(campaign__name=pid).values_list("pair_id", "topic__topic_id"))
    assert topic_of[a_task] == "bench-b-t00"
    assert topic_of[b_task] == "bench-b-t01"


def test_it_stores_a_submit_with_the_cards_token_and_moves_on(bench_env):
    # given
    ad = adapter(bench_env)
    pid = ad.create_project("bench-c")
    ad.import_tasks(pid, make_tasks(6))
    s = ad.session(bench_env["workers"][0]["token"])
    task, _ = ad.next_task(s, pid)

    # when
    status = ad.submit(s, pid, task, "Partial Support", 12.5)

    # then
    judgment = Judgment.objects.get()
    assert status == 201
    assert (judgment.pair_id, judgment.label, judgment.seconds) == (task, "PS", 12.5)
    assert judgment.judge.user.username == "bench-assessor-01"
    assert ad.next_task(s, pid)[0] != task


def test_it_reports_an_empty_queue_as_404(bench_env):
    # given
    ad = adapter(bench_env)
    pid = ad.create_project("bench-d")
    ad.import_tasks(pid, make_tasks(4))
    s = ad.session(bench_env["workers"][1]["token"])
    for _ in range(2):
        task, _ = ad.next_task(s, pid)
        assert ad.submit(s, pid, task, "No Support", 5.0) == 201

    # when
    found = ad.next_task(s, pid)

    # then
    assert found == (None, 404)


def test_it_takes_the_next_pair_from_the_submit_response_in_piggyback_mode(bench_env, monkeypatch):
    # given
    monkeypatch.setenv("ASSESS_BENCH_NEXT", "piggyback")
    ad = adapter(bench_env)
    pid = ad.create_project("bench-e")
    ad.import_tasks(pid, make_tasks(6))
    s = ad.session(bench_env["workers"][0]["token"])
    task, _ = ad.next_task(s, pid)
    ad.submit(s, pid, task, "Full Support", 3.0)
    calls = []
    s.hooks["response"].append(lambda r, *a, **k: calls.append(r.url))

    # when
    following, status = ad.next_task(s, pid)

    # then
    assert status == 200
    assert following != task
    assert calls == []
    assert ad.submit(s, pid, following, "Full Support", 3.0) == 201


def test_it_counts_judgments_per_task_from_the_export(bench_env):
    # given
    ad = adapter(bench_env)
    pid = ad.create_project("bench-f")
    ad.import_tasks(pid, make_tasks(6))
    for w in bench_env["workers"]:
        s = ad.session(w["token"])
        for _ in range(2):
            task, _ = ad.next_task(s, pid)
            ad.submit(s, pid, task, "Full Support", 3.0)

    # when
    per_task = ad.annotations_per_task(pid)

    # then
    assert sum(per_task.values()) == 4
    assert max(per_task.values()) == 1


def test_it_imports_annotated_tasks_and_exports_them_as_csv(bench_env):
    # given
    ad = adapter(bench_env)
    pid = ad.create_project("bench-g")
    choices = ["Full Support", "Partial Support", "No Support"]

    # when
    result = ad.import_annotated(pid, make_tasks(6), lambda i: choices[i % 3])
    body = ad.export(pid, "CSV")

    # then
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert result["annotation_count"] == 6
    assert sorted(r["label"] for r in rows) == ["FS", "FS", "NS", "NS", "PS", "PS"]
    assert {r["judge"] for r in rows} == {"bench-import"}
