"""A judgment upload that the import rejects is reported as a failure, by the API and by the page."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from assess.models import Answer, Run
from judging.models import Judgment

WEBASSESS = "final.citation_judgments_Webassess.20241031.excerpt.jsonl"


@pytest.fixture
def staff_client(client, organizer):
    client.force_login(organizer)
    return client


@pytest.fixture
def nist_line(data_dir):
    """The first answer of NIST's Webassess excerpt, as a dict."""
    return json.loads((data_dir / "excerpts" / WEBASSESS).read_text().splitlines()[0])


def _upload(name, *lines):
    return SimpleUploadedFile(name, "".join(json.dumps(line) + "\n" for line in lines).encode())


def test_the_api_answers_400_for_a_nist_label_it_cannot_read(staff_client, nist_line):
    # given: a support value NIST never writes
    nist_line["sentences"][0]["citations"][0]["support"] = "7"

    # when
    response = staff_client.post(
        "/api/metrics/judgments/import/", {"files": [_upload("nist.jsonl", nist_line)], "format": "nist", "judge": "n"}
    )

    # then
    assert response.status_code == 400
    body = response.json()
    assert body["ok"] is False
    (error,) = body["errors"]
    assert (error["file"], error["line"], error["field"]) == ("nist.jsonl", 1, "sentences[0].citations[0].support")
    assert error["message"] == 'expected "2", "1", "0" or "-1", got \'7\''
    assert (Judgment.objects.count(), Answer.objects.count(), Run.objects.count()) == (0, 0, 0)


def test_the_api_answers_400_when_the_answers_of_a_nist_file_are_rejected(staff_client, nist_line):
    # given: the same answer twice, which its creation (the NIST run import's checks) rejects
    upload = _upload("nist.jsonl", nist_line, nist_line)

    # when
    response = staff_client.post("/api/metrics/judgments/import/", {"files": [upload], "format": "nist", "judge": "n"})

    # then
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert (error["file"], error["line"], error["field"]) == ("nist.jsonl", 2, "topic_id")
    assert error["message"] == (
        f"run {nist_line['run_id']} answers topic {nist_line['topic_id']} twice (first at nist.jsonl:1)"
    )
    assert (Judgment.objects.count(), Answer.objects.count(), Run.objects.count()) == (0, 0, 0)


def test_the_page_reports_a_rejected_nist_upload_as_rejected(staff_client, nist_line):
    # given
    upload = _upload("nist.jsonl", nist_line, nist_line)

    # when
    response = staff_client.post("/judgments/import/", {"uploads": [upload], "format": "nist", "judge": "n"})

    # then
    body = response.content.decode()
    assert response.status_code == 400
    assert "Judgment import rejected" in body
    assert "Nothing was imported: 1 error." in body
    assert f"nist.jsonl:2: topic_id: run {nist_line['run_id']} answers topic" in body
    assert "imported: runs" not in body  # the success message
    assert (Judgment.objects.count(), Answer.objects.count()) == (0, 0)


def test_the_page_reports_a_nist_upload_it_imports(staff_client, nist_line):
    # given
    upload = _upload("nist.jsonl", nist_line)

    # when
    response = staff_client.post(
        "/judgments/import/", {"uploads": [upload], "format": "nist", "judge": "n"}, follow=True
    )

    # then
    assert response.redirect_chain[0] == ("/metrics/", 302)
    assert "imported: runs 1, answers 1, sentences 8, citations 8," in response.content.decode()
    assert Answer.objects.count() == 1
    assert Judgment.objects.filter(judge__name="n").count() == sum(len(s["citations"]) for s in nist_line["sentences"])


def test_the_old_upload_address_sends_a_post_on_with_its_body(staff_client, nist_line):
    # given: a script that still posts to the address the page had under /metrics/
    upload = _upload("nist.jsonl", nist_line)

    # when
    response = staff_client.post("/metrics/import/", {"uploads": [upload], "format": "nist", "judge": "n"})

    # then: a permanent redirect that keeps the method and the body, to the exchange's own address
    assert (response.status_code, response["Location"]) == (308, "/judgments/import/")
    assert Answer.objects.count() == 0
