"""Cannot-judge reasons reach the organizers (issue 24, point 2): a list of the campaign's cannot-judge answers
with their reasons and counts, the reason beside a flag, the flags CSV, and the exchange export's flag,
comment and reason columns (a cannot-judge row has no label and is left out on import)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from judging import queue, selectors, services
from judging.exchange.export import judgments_export
from judging.exchange.reading import JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.models import Condition, Judgment
from judging.scope import scope_for
from tests.factories import OrganizerFactory, UserFactory, judging_campaign_build

pytestmark = pytest.mark.django_db

UNREADABLE = "The passage is unreadable, empty or not in a language I read"


def _judged_campaign():
    """alice: pair 0 Full support, flagged with a comment; pair 1 cannot judge (unreadable), flagged; pair 2
    cannot judge (no claim)."""
    campaign = judging_campaign_build(n_sentences=3, passages_per_topic=3, name="reasons")
    alice = UserFactory(username="alice")
    (made,) = services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    assignment = selectors.assessor_assignment_get(user=alice, assignment_id=made.pk)
    answers = [
        ("FS", "", True, "Sentence cut in two"),
        ("", UNREADABLE, True, "Empty passage"),
        ("", "The sentence is not a claim that a passage could support", False, ""),
    ]
    for label, reason, flagged, comment in answers:
        card = queue.queue_state(assignment=assignment).card
        services.judgment_submit_and_next(
            assignment=assignment,
            pair_id=card.campaign_pair.pair_id,
            label=label,
            token=card.token_uuid,
            not_judged_reason=reason,
            flagged=flagged,
            comment=comment,
        )
    return campaign


def _export(campaign, fmt: str) -> str:
    out = io.StringIO()
    judgments_export(
        out, fmt=fmt, scope=scope_for(campaign=campaign), label_sets=[label_set_get("campaign:reasons/from_scratch")]
    )
    return out.getvalue()


def test_the_exchange_csv_carries_flag_comment_and_the_cannot_judge_reason():
    campaign = _judged_campaign()

    rows = list(csv.DictReader(io.StringIO(_export(campaign, "csv"))))

    by_label = sorted((r["label"], r["flagged"], r["comment"], r["not_judged_reason"]) for r in rows)
    assert by_label == sorted(
        [
            ("FS", "true", "Sentence cut in two", ""),
            ("", "true", "Empty passage", UNREADABLE),
            ("", "false", "", "The sentence is not a claim that a passage could support"),
        ]
    )


def test_the_exchange_jsonl_carries_them_as_json_values():
    campaign = _judged_campaign()

    rows = [json.loads(line) for line in _export(campaign, "jsonl").splitlines()]

    skipped = next(r for r in rows if r["not_judged_reason"] == UNREADABLE)
    assert (skipped["label"], skipped["flagged"], skipped["comment"]) == ("", True, "Empty passage")


def test_an_exported_file_imports_back_its_labels_and_leaves_the_cannot_judge_rows_out(tmp_path):
    # given: the export, as another judge's file
    campaign = _judged_campaign()
    path = tmp_path / "reasons.csv"
    path.write_text(_export(campaign, "csv"))

    # when
    judgments_import(files=[path], fmt="exchange", options=JudgmentImportOptions(judge="reimported", kind="human"))

    # then: the one label comes back; the two cannot-judge rows are no error (it raises on one) and no label
    assert list(Judgment.objects.filter(judge__name="reimported").values_list("label", flat=True)) == ["FS"]


def test_organizers_see_the_cannot_judge_answers_with_their_reasons_and_counts(client):
    campaign = _judged_campaign()
    client.force_login(OrganizerFactory())

    html = client.get(reverse("judging:campaign_cannot_judge", args=[campaign.pk])).content.decode()

    assert html.count("data-judgment=") == 2
    assert UNREADABLE in html
    assert "The sentence is not a claim that a passage could support" in html
    assert "Empty passage" in html
    # and the flags page names the reason beside the flag, and links to the list
    flags = client.get(reverse("judging:campaign_flags", args=[campaign.pk])).content.decode()
    assert f'cannot judge: <span class="not-judged-reason">{UNREADABLE}</span>' in flags
    assert reverse("judging:campaign_cannot_judge", args=[campaign.pk]) in flags


def test_the_flags_csv_has_the_reason_column():
    from django.test import Client

    campaign = _judged_campaign()
    client = Client()
    client.force_login(OrganizerFactory())

    text = client.get(reverse("judging:campaign_flags_csv", args=[campaign.pk])).content.decode()

    rows = list(csv.DictReader(io.StringIO(text)))
    assert sorted(r["not_judged_reason"] for r in rows) == ["", UNREADABLE]


def test_assessors_cannot_open_the_organizers_list(client):
    campaign = _judged_campaign()
    client.force_login(UserFactory(username="bob"))

    response = client.get(reverse("judging:campaign_cannot_judge", args=[campaign.pk]))

    assert response.status_code in (302, 403)
