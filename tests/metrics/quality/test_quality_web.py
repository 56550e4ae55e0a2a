"""The quality page, its CSV and its API: organizers only, the CSV's columns, the API documented, and the gold
upload on the page."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from metrics.quality.models import GoldItem
from tests.metrics.quality.test_quality_gold import _gold_csv

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _csv_rows(body: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body.decode())))


def test_an_organizer_sees_a_row_per_assessor(known, organizer):
    response = _client(organizer).get(reverse("metrics:quality", args=[known.campaign.pk]))

    assert response.status_code == 200
    html = response.content.decode()
    for spec in ("alice/from_scratch", "bob/from_scratch", "carol/from_scratch"):
        assert f'data-rater="{spec}"' in html
    assert "vs nist/from_scratch" in html
    assert "vs gpt-known/none" in html


@pytest.mark.parametrize("name", ["metrics:quality", "metrics:quality-csv"])
def test_an_assessor_is_refused_the_page_and_its_csv(known, name):
    alice = known.assignments["alice"].assessor

    response = _client(alice).get(reverse(name, args=[known.campaign.pk]))

    assert response.status_code == 403


def test_an_assessor_is_refused_the_api(known):
    alice = known.assignments["alice"].assessor

    response = _client(alice).get(reverse("metrics_api:quality", args=[known.campaign.pk]))

    assert response.status_code == 403
    assert b"alice/from_scratch" not in response.content


def test_an_unknown_campaign_is_a_404_with_a_message(organizer, db):
    client = _client(organizer)

    page = client.get(reverse("metrics:quality", args=[987654]))
    api = client.get(reverse("metrics_api:quality", args=[987654]))

    assert page.status_code == 404
    assert api.status_code == 404
    assert api.json() == {"detail": "no campaign with id 987654"}


def test_the_csv_has_the_fixed_columns_then_five_per_assessor_and_reference(known, organizer):
    response = _client(organizer).get(reverse("metrics:quality-csv", args=[known.campaign.pk]))

    header = next(csv.reader(io.StringIO(response.content.decode())))
    fields = ("n", "exact", "kappa", "kappa_low", "kappa_high")
    fixed = [
        "assessor", "condition", "label_set", "judgments", "pairs", "median_seconds", "p90_seconds", "active_hours",
        "share_FS", "share_PS", "share_NS", "cannot_judge", "cannot_judge_rate", "flags",
        "gold_labelled", "gold_correct", "gold_accuracy",
        "drift_first_median_seconds", "drift_last_median_seconds", "drift_first_agreement", "drift_last_agreement",
    ]  # fmt: skip
    compared = [f"vs {n}/from_scratch (pairs) {f}" for n in ("alice", "bob", "carol") for f in fields]
    references = [f"vs {s} (citations) {f}" for s in ("gpt-known/none", "nist/from_scratch") for f in fields]
    assert header == fixed + compared + references


def test_the_csv_rows_hold_the_figures_and_leave_nothing_judged_empty(known, organizer):
    rows = _csv_rows(_client(organizer).get(reverse("metrics:quality-csv", args=[known.campaign.pk])).content)

    bob = next(r for r in rows if r["assessor"] == "bob")
    assert bob["judgments"] == "8"
    assert float(bob["cannot_judge_rate"]) == pytest.approx(1 / 8)
    assert bob["vs alice/from_scratch (pairs) n"] == "7"
    assert bob["vs bob/from_scratch (pairs) n"] == ""  # not compared with itself
    assert bob["gold_accuracy"] == ""  # no gold loaded: empty, not 0


def test_the_api_gives_the_report_and_its_csv(known, organizer):
    client = _client(organizer)
    url = reverse("metrics_api:quality", args=[known.campaign.pk])

    body = client.get(url).json()
    as_csv = client.get(url, {"fmt": "csv"})

    assert body["campaign"] == known.campaign.name
    assert [a["label_set"] for a in body["assessors"]] == [
        "alice/from_scratch",
        "bob/from_scratch",
        "carol/from_scratch",
    ]
    carol = body["assessors"][2]
    assert {a["label_set"]: (a["unit"], a["n"]) for a in carol["agreement_with_assessors"]} == {
        "alice/from_scratch": ("pair", 5),
        "bob/from_scratch": ("pair", 5),
    }
    assert as_csv["Content-Type"].startswith("text/csv")
    assert len(_csv_rows(as_csv.content)) == 3


def test_the_api_refuses_an_unknown_format(known, organizer):
    response = _client(organizer).get(reverse("metrics_api:quality", args=[known.campaign.pk]), {"fmt": "xml"})

    assert response.status_code == 400
    assert "fmt" in response.json()


def test_the_api_is_documented_with_its_output(organizer, db):
    schema = _client(organizer).get("/api/schema/", HTTP_ACCEPT="application/json").json()

    operation = schema["paths"]["/api/metrics/campaigns/{campaign_id}/quality/"]["get"]
    assert set(operation["responses"]) >= {"200", "400", "403", "404"}
    assert "QualityOutput" in str(operation["responses"]["200"])
    assert "AssessorQualityOutput" in schema["components"]["schemas"]


def test_the_page_loads_gold_from_an_upload(known, organizer, tmp_path):
    path = _gold_csv(tmp_path, known, [(0, "FS"), (1, "PS")])
    upload = SimpleUploadedFile("gold.csv", path.read_bytes(), content_type="text/csv")

    response = _client(organizer).post(reverse("metrics:quality-gold", args=[known.campaign.pk]), {"gold": upload})

    assert response.status_code == 302
    assert GoldItem.objects.filter(campaign=known.campaign).count() == 2


def test_a_bad_upload_lists_its_errors_and_loads_nothing(known, organizer, tmp_path):
    path = _gold_csv(tmp_path, known, [(0, "FS"), (1, "nope")])
    upload = SimpleUploadedFile("gold.csv", path.read_bytes(), content_type="text/csv")

    response = _client(organizer).post(reverse("metrics:quality-gold", args=[known.campaign.pk]), {"gold": upload})

    assert response.status_code == 400
    assert "gold.csv:3: label" in response.content.decode()
    assert not GoldItem.objects.exists()


def test_an_assessor_cannot_upload_gold(known, tmp_path):
    path = _gold_csv(tmp_path, known, [(0, "FS")])
    upload = SimpleUploadedFile("gold.csv", path.read_bytes(), content_type="text/csv")
    alice = known.assignments["alice"].assessor

    response = _client(alice).post(reverse("metrics:quality-gold", args=[known.campaign.pk]), {"gold": upload})

    assert response.status_code == 403
    assert not GoldItem.objects.exists()


def test_the_campaign_quality_command_writes_the_csv(known, capsys):
    from django.core.management import call_command

    call_command("campaign_quality", known.campaign.name)

    rows = _csv_rows(capsys.readouterr().out.encode())
    assert [r["label_set"] for r in rows] == ["alice/from_scratch", "bob/from_scratch", "carol/from_scratch"]


def test_the_judging_page_does_not_mark_a_gold_pair(known, tmp_path):
    from assess.importers.lines import InputFile
    from judging import services
    from metrics.quality.services import gold_items_load
    from tests.factories import UserFactory

    gold_items_load(campaign=known.campaign, f=InputFile.of(_gold_csv(tmp_path, known, [(0, "FS")])))
    dave = UserFactory(username="dave")
    (assignment,) = services.assignments_create(
        campaign=known.campaign, assessor=dave, topics=list(known.campaign.topics.all()), condition="from_scratch"
    )

    html = _client(dave).get(reverse("judging:judge", args=[assignment.pk])).content.decode().lower()

    assert "gold" not in html
