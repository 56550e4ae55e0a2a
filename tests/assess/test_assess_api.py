from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from assess.models import ImportJob, Run, Topic
from tests.factories import PassageFactory, RunFactory, TopicFactory, answer_build


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def api(organizer):
    client = APIClient()
    client.force_authenticate(organizer)
    return client


@pytest.fixture
def synchronous_imports(settings):
    settings.BACKGROUND_IN_THREAD = False


def run_file(name: str, run_id: str, lines: list[tuple[str, list[str], list[dict]]]) -> SimpleUploadedFile:
    body = "".join(
        json.dumps(
            {
                "run_id": run_id,
                "topic_id": topic_id,
                "topic": "q?",
                "references": refs,
                "response_length": sum(len(s["text"].split()) for s in answer),
                "answer": answer,
            }
        )
        + "\n"
        for topic_id, refs, answer in lines
    )
    return SimpleUploadedFile(name, body.encode())


@pytest.mark.parametrize(
    "url", ["/api/topics/", "/api/runs/", "/api/passages/missing/", "/api/imports/", "/api/runs/x.y/"]
)
def test_it_forbids_the_material_api_to_assessors(assessor, url):
    client = APIClient()
    client.force_authenticate(assessor)

    response = client.get(url)

    assert response.status_code == 403


def test_it_refuses_an_anonymous_upload(db):
    response = APIClient().post("/api/imports/topics/", {"files": [SimpleUploadedFile("t.tsv", b"1\tq\n")]})

    assert response.status_code in (401, 403)
    assert ImportJob.objects.count() == 0


def test_it_lists_runs_with_their_counts(api):
    # given
    missing = PassageFactory(has_text=False, text="")
    run = RunFactory(run_id="team.r1", group="team", priority=1)
    answer_build(run=run, topic=TopicFactory(), sentences=[("A.", [PassageFactory(), missing]), ("B.", [])])

    # when
    response = api.get("/api/runs/")

    # then
    (row,) = response.json()["results"]
    assert row["run_id"] == "team.r1"
    assert row["group"] == "team"
    assert row["priority"] == 1
    assert (row["topics_answered"], row["sentences"], row["citations"], row["passages_without_text"]) == (1, 2, 2, 1)


def test_it_retrieves_a_run_by_its_dotted_id(api):
    RunFactory(run_id="IITD-IRL.ag_rag_gpt35_expansion_rrf_20")

    response = api.get("/api/runs/IITD-IRL.ag_rag_gpt35_expansion_rrf_20/")

    assert response.status_code == 200
    assert response.json()["topics_answered"] == 0


def test_it_retrieves_a_topic_by_its_id(api):
    TopicFactory(topic_id="2024-32912", text="how bad did the vietnam war get?")

    response = api.get("/api/topics/2024-32912/")

    assert response.json() == {"topic_id": "2024-32912", "text": "how bad did the vietnam war get?", "answers_count": 0}


def test_it_lists_only_cited_passages_without_text(api):
    cited = PassageFactory(passage_id="msmarco_v2.1_doc_02_1#0_1", has_text=False, text="")
    PassageFactory(passage_id="msmarco_v2.1_doc_02_2#0_1", has_text=False, text="")
    answer_build(run=RunFactory(), topic=TopicFactory(), sentences=[("A.", [cited, PassageFactory()])])

    response = api.get("/api/passages/missing/")

    assert [p["passage_id"] for p in response.json()["results"]] == ["msmarco_v2.1_doc_02_1#0_1"]


def test_it_imports_an_uploaded_run_and_reports_the_job_done(
    api, synchronous_imports, django_capture_on_commit_callbacks
):
    # given
    upload = run_file(
        "run.jsonl",
        "grp.run-a",
        [
            (
                "2024-1",
                ["msmarco_v2.1_doc_00_1#0_1", "msmarco_v2.1_doc_00_2#0_1"],
                [{"text": "A b c.", "citations": [1, 0]}],
            ),
            (
                "2024-2",
                ["msmarco_v2.1_doc_00_1#0_1"],
                [{"text": "D.", "citations": []}, {"text": "E.", "citations": [0]}],
            ),
        ],
    )

    # when
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post("/api/imports/runs/", {"files": [upload], "task": "AG", "priority": 2}, format="multipart")
    status = api.get(created.json()["url"])

    # then
    assert created.status_code == 202
    assert created["Location"] == created.json()["url"]
    assert created.json()["page_url"].endswith(f"/organize/imports/{created.json()['id']}/")
    body = status.json()
    assert body["status"] == "done"
    assert body["percent"] == 100
    counts = {k: body["counts"][k] for k in ("runs", "answers", "sentences", "citations")}
    assert counts == {"runs": 1, "answers": 2, "sentences": 3, "citations": 3}
    assert body["warning_count"] == 2  # the two topics are not loaded
    run = Run.objects.get()
    assert (run.run_id, run.task, run.priority) == ("grp.run-a", "AG", 2)


def test_it_reports_a_malformed_uploads_errors_with_file_line_and_field_and_imports_nothing(
    api, synchronous_imports, django_capture_on_commit_callbacks
):
    # given: the second line cites a reference that does not exist
    upload = run_file(
        "bad.jsonl",
        "grp.run-b",
        [
            ("2024-1", ["msmarco_v2.1_doc_00_1#0_1"], [{"text": "Fine.", "citations": [0]}]),
            ("2024-2", ["msmarco_v2.1_doc_00_1#0_1"], [{"text": "Broken.", "citations": [3]}]),
        ],
    )

    # when
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post("/api/imports/runs/", {"files": [upload]}, format="multipart")
    body = api.get(created.json()["url"]).json()

    # then
    assert body["status"] == "failed"
    (error,) = body["errors"]
    assert (error["file"], error["line"], error["field"]) == ("bad.jsonl", 2, "answer[0].citations[0]")
    assert Run.objects.count() == 0
    assert Topic.objects.count() == 0


def test_it_imports_uploaded_topics(api, synchronous_imports, django_capture_on_commit_callbacks):
    upload = SimpleUploadedFile("topics.tsv", b"2024-1\tfirst\n2024-2\tsecond\n")

    with django_capture_on_commit_callbacks(execute=True):
        created = api.post("/api/imports/topics/", {"files": [upload]}, format="multipart")

    assert created.status_code == 202
    assert dict(Topic.objects.values_list("topic_id", "text")) == {"2024-1": "first", "2024-2": "second"}


def test_it_fills_passage_texts_from_an_uploaded_segments_file(
    api, synchronous_imports, django_capture_on_commit_callbacks
):
    # given
    cited = PassageFactory(passage_id="msmarco_v2.1_doc_03_1#0_1", has_text=False, text="")
    answer_build(run=RunFactory(), topic=TopicFactory(), sentences=[("A.", [cited])])
    line = {"docid": cited.passage_id, "title": "T", "segment": "The passage text.", "url": "http://x"}
    upload = SimpleUploadedFile("segments.jsonl", (json.dumps(line) + "\n").encode())

    # when
    with django_capture_on_commit_callbacks(execute=True):
        api.post("/api/imports/passages/", {"files": [upload]}, format="multipart")

    # then
    cited.refresh_from_db()
    assert (cited.has_text, cited.text) == (True, "The passage text.")
    assert api.get("/api/passages/missing/").json()["count"] == 0


def test_it_rejects_an_upload_without_files(api):
    response = api.post("/api/imports/runs/", {"task": "AG"}, format="multipart")

    assert response.status_code == 400
    assert "files" in response.json()
    assert ImportJob.objects.count() == 0


def test_it_serves_the_openapi_schema(api):
    response = api.get("/api/schema/")

    assert response.status_code == 200
    assert b"/api/imports/runs/" in response.content


def test_it_generates_the_schema_without_errors():
    GENERATOR_STATS.reset()

    schema = SchemaGenerator().get_schema(request=None, public=True)

    assert "/api/runs/{run_id}/" in schema["paths"]
    files = schema["components"]["schemas"]["RunsUpload"]["properties"]["files"]
    assert files == {"type": "array", "items": {"type": "string", "format": "binary"}}
    assert not GENERATOR_STATS._error_cache, list(GENERATOR_STATS._error_cache)
