"""The disagreement study's report: κ between every pair of judges equals scikit-learn's on the stored
labels, exact match, distributions (Figure 5), the pairs as CSV; pages, API and commands for organizers."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest
from django.core.management import call_command
from django.test import Client
from sklearn.metrics import cohen_kappa_score

from judging import queue, services
from judging.models import Judgment
from judging.pool import assignment_pending
from metrics.study.models import Study, StudyItem
from metrics.study.services import study_assign, study_create
from tests.factories import (
    JudgmentFactory,
    LLMJudgeFactory,
    OrganizerFactory,
    UserFactory,
    study_campaign_build,
    study_labels_seed,
)

pytestmark = pytest.mark.django_db
LABELS = ["FS", "PS", "NS"]


@pytest.fixture
def world(db):
    campaign = study_campaign_build(pairs_per_topic=(24, 6))
    study_labels_seed(campaign, human="nist", llm="gpt-study")
    study = study_create(campaign=campaign, a="nist", b="gpt-study", per_topic=12, seed=2)
    carol = UserFactory(username="carol")
    rng = random.Random(4)
    # carol re-judges all but two pairs of each topic; the second LLM labels every sampled pair
    for assignment in study_assign(study=study, assessor=carol):
        while len(assignment_pending(assignment=assignment)) > 2:
            card = queue.queue_state(assignment=assignment).card
            services.judgment_submit(
                assignment=assignment,
                pair_id=card.campaign_pair.pair_id,
                label=rng.choice(LABELS),
                token=card.token_uuid,
            )
    second = LLMJudgeFactory(name="llama-405b")
    for item in StudyItem.objects.filter(study=study):
        JudgmentFactory(judge=second, pair=item.pair, citation=None, label=rng.choice(LABELS))
    study.second_judge = second
    study.save()
    client = Client()
    client.force_login(OrganizerFactory(username="olga"))
    return {"campaign": campaign, "study": study, "client": client}


def _stored(study):
    """Every judge's label per sampled pair, read straight from the rows."""
    rows = {}
    for item in StudyItem.objects.filter(study=study):
        independent = (
            Judgment.objects.filter(assignment__studies=study, pair_id=item.pair_id, condition="adjudication")
            .order_by("-pk")
            .values_list("label", flat=True)
            .first()
        )
        second = Judgment.objects.filter(judge=study.second_judge, pair_id=item.pair_id).latest("pk").label
        rows[item.pk] = {"a": item.label_a, "b": item.label_b, "independent": independent, "second": second}
    return rows


def _expected(study, x, y):
    both = [(r[x], r[y]) for r in _stored(study).values() if r[x] and r[y]]
    xs, ys = [p[0] for p in both], [p[1] for p in both]
    return len(both), cohen_kappa_score(xs, ys, labels=LABELS), sum(a == b for a, b in both) / len(both)


def test_its_kappas_equal_scikit_learns_on_the_stored_labels(world):
    # when
    report = world["client"].get(f"/api/studies/{world['study'].pk}/").json()
    # then
    found = {(p["role_a"], p["role_b"]): p for p in report["agreement"]}
    assert set(found) == {
        ("independent", "b"),
        ("independent", "a"),
        ("second", "a"),
        ("second", "b"),
        ("second", "independent"),
        ("a", "b"),
    }
    for (x, y), p in found.items():
        n, kappa, exact = _expected(world["study"], x, y)
        assert p["n"] == n
        assert p["kappa"] == pytest.approx(kappa, abs=1e-12)
        assert p["exact_match"] == pytest.approx(exact)
    assert found[("independent", "b")]["n"] == 12 + 4 - 2 * 2
    assert found[("a", "b")]["exact_match"] == 0.0


def test_it_counts_each_judges_labels_on_the_sample(world):
    report = world["client"].get(f"/api/studies/{world['study'].pk}/").json()
    stored = _stored(world["study"]).values()
    names = {j["role"]: j["name"] for j in report["judges"]}
    for role in ("a", "b", "independent", "second"):
        expected = {label: sum(1 for r in stored if r[role] == label) for label in LABELS}
        assert report["distributions"][names[role]]["counts"] == expected


def test_it_exports_every_sampled_pair_with_all_its_labels_as_csv(world):
    # when
    response = world["client"].get(f"/metrics/studies/{world['study'].pk}/export.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    # then
    assert response["Content-Type"] == "text/csv"
    assert len(rows) == StudyItem.objects.filter(study=world["study"]).count() == 12 + 4
    stored = {(i.topic.topic_id, i.pair_id): i for i in StudyItem.objects.filter(study=world["study"])}
    for row in rows:
        item = stored[(row["topic_id"], int(row["pair_id"]))]
        assert row["label:nist/from_scratch"] == item.label_a
        assert row["label:gpt-study/none"] == item.label_b
        assert row["label:llama-405b"] in LABELS
    assert sum(1 for r in rows if r["label:independent (carol)"]) == 12


def test_the_page_shows_figure_4_figure_5_and_says_which_topics_were_short(world):
    # given a study asking for more than the second topic has
    short = study_create(campaign=world["campaign"], a="nist", b="gpt-study", per_topic=15, seed=2)
    small_topic = sorted(world["campaign"].topics.values_list("topic_id", flat=True))[1]
    # when
    html = world["client"].get(f"/metrics/studies/{short.pk}/").content.decode()
    full = world["client"].get(f"/metrics/studies/{world['study'].pk}/").content.decode()
    # then
    assert f"had fewer than 15 disagreements and gave what it had: {small_topic}" in html
    assert 'id="study-kappa"' in full
    assert full.count('class="bar"') == 3 * 4
    assert "llama-405b" in full


def test_the_command_prints_the_same_report_as_the_api(world):
    out = io.StringIO()
    call_command("study_report", str(world["study"].pk), stdout=out)
    api = world["client"].get(f"/api/studies/{world['study'].pk}/").json()
    api.pop("pairs")
    assert json.loads(out.getvalue()) == api


def test_an_organizer_creates_a_study_from_the_page(world):
    # when
    response = world["client"].post(
        "/metrics/studies/",
        {
            "campaign": world["campaign"].name,
            "a": "nist/from_scratch",
            "b": "gpt-study/none",
            "per_topic": "5",
            "seed": "9",
        },
    )
    # then
    study = Study.objects.latest("pk")
    assert response.status_code == 302
    assert response["Location"] == f"/metrics/studies/{study.pk}/"
    assert (study.a, study.b, study.per_topic, study.seed, study.summary["sampled"]) == (
        "nist/from_scratch",
        "gpt-study/none",
        5,
        9,
        5 + 4,
    )


def test_an_organizer_creates_and_assigns_a_study_through_the_api(world):
    # when
    made = world["client"].post(
        "/api/studies/",
        {"campaign": world["campaign"].name, "a": "nist", "b": "gpt-study", "per_topic": 3, "seed": 1},
        content_type="application/json",
    )
    UserFactory(username="dora")
    assigned = world["client"].post(
        f"/api/studies/{made.json()['id']}/assign/", {"assessor": "dora"}, content_type="application/json"
    )
    # then
    assert made.status_code == 201
    assert made.json()["summary"]["sampled"] == 6
    assert assigned.status_code == 201
    assert [a["condition"] for a in assigned.json()["assignments"]] == ["adjudication", "adjudication"]


def test_the_api_refuses_an_unknown_judge(world):
    response = world["client"].post(
        "/api/studies/",
        {"campaign": world["campaign"].name, "a": "nist", "b": "nobody"},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "no judge named 'nobody'" in response.json()["detail"]


def test_the_commands_create_and_assign_a_study(world):
    # given
    UserFactory(username="eve")
    out = io.StringIO()
    # when
    call_command("study_create", world["campaign"].name, "--a", "nist", "--b", "gpt-study", "--per-topic", "4",
                 "--seed", "0", stdout=out)  # fmt: skip
    study = Study.objects.latest("pk")
    call_command("study_assign", str(study.pk), "--assessor", "eve", stdout=out)
    # then
    assert f"study #{study.pk}: 8 pairs where nist/from_scratch and gpt-study/none disagree" in out.getvalue()
    assert "eve: 2 adjudication assignment(s)" in out.getvalue()
    assert study.assignments.count() == 2


def test_the_campaign_page_links_to_its_studies(world):
    html = world["client"].get(f"/organize/campaigns/{world['campaign'].pk}/")
    assert f'href="/metrics/studies/?campaign={world["campaign"].name}"' in html.content.decode()
    listing = world["client"].get(f"/metrics/studies/?campaign={world['campaign'].name}").content.decode()
    assert f'href="/metrics/studies/{world["study"].pk}/"' in listing
