"""trec_eval qrels out of a label set, at sentence and topic level, read back by ir_measures."""

from __future__ import annotations

import io
import json

import ir_measures
import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.selectors import exchange_rows
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.models import NOT_JUDGED, Judgment
from judging.scope import scope_for

pytestmark = pytest.mark.usefixtures("fresh_cache")

GRADE = {"FS": 2, "PS": 1, "NS": 0}
WITHOUT_PREDICTION = "final.citation_judgments_without_prediction.20241025.excerpt.jsonl"


@pytest.fixture
def excerpt_labels(db, data_dir):
    excerpts = data_dir / "excerpts"
    judgments_import(
        files=[
            excerpts / WITHOUT_PREDICTION,
            excerpts / "final.citation_judgments_Webassess.20241031.excerpt.jsonl",
        ],
        fmt=JudgmentFormat.NIST,
        options=JudgmentImportOptions(judge="nist", kind="human", condition="from_scratch"),
    )


@pytest.fixture
def staff_client(client, organizer):
    client.force_login(organizer)
    return client


def export(tmp_path, level, **options):
    out = tmp_path / f"{level}.qrels"
    call_command(
        "export_judgments",
        str(out),
        format="qrels",
        labels=["nist"],
        qrels_level=level,
        stderr=io.StringIO(),
        **options,
    )
    return out


def labelled_citations():
    """The exchange rows of the set: exactly its labelled citations, every one in scope."""
    return list(exchange_rows(scope=scope_for(depth=0), label_sets=[label_set_get("nist")]))


def read_back(path):
    return {(q.query_id, q.doc_id, q.relevance) for q in ir_measures.read_trec_qrels(str(path))}


def test_it_writes_sentence_qrels_that_ir_measures_reads_back(excerpt_labels, tmp_path):
    # when
    out = export(tmp_path, "sentence")

    # then
    expected = {
        (f"{r['topic_id']}/{r['run_id']}/{r['sentence_index']}", r["passage_id"], GRADE[r["label"]])
        for r in labelled_citations()
    }
    lines = out.read_text().splitlines()
    assert len(expected) > 100
    assert read_back(out) == expected
    assert len(lines) == len(expected)
    assert all(line.split()[1] == "0" and len(line.split()) == 4 for line in lines)


def test_it_writes_topic_qrels_with_the_highest_grade_of_each_passage(excerpt_labels, tmp_path):
    # when
    out = export(tmp_path, "topic")

    # then
    best: dict[tuple[str, str], int] = {}
    for r in labelled_citations():
        key = (r["topic_id"], r["passage_id"])
        best[key] = max(best.get(key, -1), GRADE[r["label"]])
    assert read_back(out) == {(qid, docid, grade) for (qid, docid), grade in best.items()}
    assert {qid for qid, _, _ in read_back(out)} == {"2024-32912", "2024-142395"}
    assert len(out.read_text().splitlines()) == len(best)


def test_it_leaves_out_citations_recorded_as_not_judged(db, data_dir, tmp_path):
    # given: NIST's file with one first citation marked -1 (not judged)
    rows = [json.loads(line) for line in (data_dir / "excerpts" / WITHOUT_PREDICTION).open()]
    row = rows[0]
    sentence = next(s for s in row["sentences"] if s["citations"])
    sentence["citations"][0]["support"] = "-1"
    marked = tmp_path / "marked.jsonl"
    marked.write_text("".join(json.dumps(r) + "\n" for r in rows))
    judgments_import(
        files=[marked],
        fmt=JudgmentFormat.NIST,
        options=JudgmentImportOptions(judge="nist", kind="human", condition="from_scratch"),
    )
    assert Judgment.objects.filter(judge__name="nist", label=NOT_JUDGED).count() == 1

    # when
    out = export(tmp_path, "sentence")

    # then
    index = sentence.get("sentenceID", sentence.get("sentenceId"))
    qid = f"{row['topic_id']}/{row['run_id']}/{index}"
    written = read_back(out)
    assert (qid, sentence["citations"][0]["reference"]) not in {(q, d) for q, d, _ in written}
    assert len(written) == len(labelled_citations()) == 73


def test_the_first_citations_only_with_depth_one(excerpt_labels, tmp_path):
    # when
    out = export(tmp_path, "sentence", depth=1)

    # then
    first = {
        (f"{r['topic_id']}/{r['run_id']}/{r['sentence_index']}", r["passage_id"], GRADE[r["label"]])
        for r in labelled_citations()
        if r["citation_slot"] == 0
    }
    assert read_back(out) == first


def test_the_page_and_the_api_give_the_commands_qrels(excerpt_labels, staff_client, tmp_path):
    for level in ("sentence", "topic"):
        # given
        expected = export(tmp_path, level).read_text()

        # when
        page = staff_client.get("/metrics/export/judgments/qrels/", {"labels": "nist", "level": level})
        api = staff_client.get("/api/metrics/judgments/", {"fmt": "qrels", "labels": "nist", "level": level})

        # then
        assert page.status_code == api.status_code == 200
        # issue 24: named <campaign>-<label set>-<what>-<date>.<ext> (was qrels-{level}.txt)
        today = timezone.localdate().isoformat()
        named = f"all-loaded-nist-from_scratch-qrels-{level}-{today}.txt"
        assert page["Content-Disposition"] == f'attachment; filename="{named}"'
        assert page.content.decode() == api.content.decode() == expected


def test_it_refuses_several_label_sets_and_leaves_no_file(excerpt_labels, tmp_path, data_dir):
    # given
    judgments_import(
        files=[data_dir / "excerpts" / "opus48_nist_verdicts.excerpt.jsonl"],
        fmt=JudgmentFormat.EXCHANGE,
        options=JudgmentImportOptions(judge="opus", kind="llm", label_field="opus_nist_label"),
    )
    out = tmp_path / "two.qrels"

    # when
    with pytest.raises(CommandError, match="one label set"):
        call_command("export_judgments", str(out), format="qrels", labels=["nist", "opus"], stderr=io.StringIO())

    # then
    assert list(tmp_path.iterdir()) == []


def test_the_api_refuses_an_unknown_level(excerpt_labels, staff_client):
    # when
    response = staff_client.get("/api/metrics/judgments/", {"fmt": "qrels", "labels": "nist", "level": "run"})

    # then
    assert response.status_code == 400
    assert "level" in response.json()


def test_the_dashboard_links_both_qrels_levels(excerpt_labels, staff_client):
    # when
    body = staff_client.get("/metrics/", {"a": "nist", "b": "nist"}).content.decode()

    # then
    assert "/metrics/export/judgments/qrels/?" in body
    assert "level=sentence" in body
    assert "level=topic" in body
