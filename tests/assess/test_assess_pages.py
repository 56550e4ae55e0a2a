from __future__ import annotations

import json
import re

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from assess.importers.job_run import ProgressWriter, import_job_execute
from assess.models import Answer, ImportJob, ImportStatus, Run, Topic
from assess.uploads import import_job_create
from tests.conftest import PASSWORD, browser_login
from tests.factories import OrganizerFactory, PassageFactory, RunFactory, TopicFactory, answer_build

ORGANIZER_PAGES = ["assess:dashboard", "assess:upload", "assess:runs", "assess:topics", "assess:missing"]


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def synchronous_imports(settings):
    """The task runs eagerly inside the request's on_commit instead of in a background thread."""
    settings.BACKGROUND_IN_THREAD = False


def run_line(run_id: str, topic_id: str, references: list[str], answer: list[dict]) -> str:
    words = sum(len(s["text"].split()) for s in answer)
    return json.dumps(
        {
            "run_id": run_id,
            "topic_id": topic_id,
            "topic": "a question?",
            "references": references,
            "response_length": words,
            "answer": answer,
        }
    )


def upload_post(client, django_capture_on_commit_callbacks, *, kind: str, files: list, **fields):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(reverse("assess:upload"), {"kind": kind, "uploads": files, **fields})


@pytest.mark.parametrize("name", ORGANIZER_PAGES)
def test_it_sends_anonymous_visitors_to_the_login_page(client, db, name):
    response = client.get(reverse(name))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")


@pytest.mark.parametrize("name", ORGANIZER_PAGES)
def test_it_forbids_the_organizer_pages_to_assessors(client, assessor, name):
    client.force_login(assessor)

    response = client.get(reverse(name))

    assert response.status_code == 403


def test_it_forbids_an_assessor_to_upload(client, assessor, synchronous_imports, django_capture_on_commit_callbacks):
    client.force_login(assessor)
    topics = SimpleUploadedFile("topics.tsv", b"2024-1\ta question\n")

    response = upload_post(client, django_capture_on_commit_callbacks, kind="topics", files=[topics])

    assert response.status_code == 403
    assert ImportJob.objects.count() == 0
    assert Topic.objects.count() == 0


def test_it_shows_the_material_counts_on_the_dashboard(client, organizer):
    # given
    answer_build(
        run=RunFactory(run_id="t.r1"),
        topic=TopicFactory(topic_id="2024-1"),
        sentences=[("One.", [PassageFactory(), PassageFactory(has_text=False, text="")])],
    )
    client.force_login(organizer)

    # when
    response = client.get(reverse("assess:dashboard"))

    # then
    html = response.content.decode()
    assert "<b>1</b>topics" in html
    assert "<b>1</b>runs" in html
    assert "<b>1</b>cited passages without text" in html


def test_it_lists_runs_with_their_counts(client, organizer):
    # given
    with_text, without = PassageFactory(), PassageFactory(has_text=False, text="")
    run = RunFactory(run_id="team.r1", group="team", task="AG", priority=2)
    answer_build(run=run, topic=TopicFactory(), sentences=[("A.", [with_text, without]), ("B.", [without])])
    answer_build(run=run, topic=TopicFactory(), sentences=[("C.", [])])
    client.force_login(organizer)

    # when
    response = client.get(reverse("assess:runs"))

    # then
    row = _row(response.content.decode(), 'data-run-id="team.r1"')
    assert _cell(row, "group") == "team"
    assert _cell(row, "task") == "AG"
    assert _cell(row, "num priority") == "2"
    assert _cell(row, "num topics-answered") == "2"
    assert _cell(row, "num sentences") == "3"
    assert _cell(row, "num citations") == "3"
    assert "1</a>" in _cell(row, "num passages-without-text")


def test_it_lists_topics_with_their_answer_counts(client, organizer):
    topic = TopicFactory(topic_id="2024-77", text="why is the sky blue?")
    answer_build(run=RunFactory(), topic=topic, sentences=[("It scatters.", [])])
    client.force_login(organizer)

    response = client.get(reverse("assess:topics"))

    row = _row(response.content.decode(), 'data-topic-id="2024-77"')
    assert "why is the sky blue?" in row
    assert '<td class="num">1</td>' in row


def test_it_lists_cited_passages_without_text_and_serves_ids_txt(client, organizer):
    # given
    missing = PassageFactory(passage_id="msmarco_v2.1_doc_01_5#0_9", has_text=False, text="")
    PassageFactory(passage_id="msmarco_v2.1_doc_01_6#0_9", has_text=False, text="")  # cited by nothing
    answer_build(run=RunFactory(), topic=TopicFactory(), sentences=[("A.", [missing, PassageFactory()])])
    client.force_login(organizer)

    # when
    page = client.get(reverse("assess:missing"))
    download = client.get(reverse("assess:missing_ids"))

    # then
    assert "msmarco_v2.1_doc_01_5#0_9" in page.content.decode()
    assert "msmarco_v2.1_doc_01_6#0_9" not in page.content.decode()
    # issue 24: named <what>-<date>.<ext> (was ids.txt)
    named = f"passages-without-text-ids-{timezone.localdate().isoformat()}.txt"
    assert download["Content-Disposition"] == f'attachment; filename="{named}"'
    assert b"".join(download.streaming_content).decode() == "msmarco_v2.1_doc_01_5#0_9\n"


def test_it_imports_an_uploaded_topics_file_and_shows_the_job_done(
    client, organizer, synchronous_imports, django_capture_on_commit_callbacks
):
    # given
    client.force_login(organizer)
    topics = SimpleUploadedFile("topics.tsv", b"2024-1\tfirst question\n2024-2\tsecond question\n")

    # when
    response = upload_post(client, django_capture_on_commit_callbacks, kind="topics", files=[topics])
    job_page = client.get(response["Location"])

    # then
    assert response.status_code == 302
    assert set(Topic.objects.values_list("topic_id", flat=True)) == {"2024-1", "2024-2"}
    html = job_page.content.decode()
    assert 'data-status="done"' in html
    assert "hx-trigger" not in html
    assert '<th>topics</th><td class="num">2</td>' in html


def test_it_imports_several_run_files_uploaded_together_with_the_run_options(
    client, organizer, synchronous_imports, django_capture_on_commit_callbacks
):
    # given
    client.force_login(organizer)
    files = [
        SimpleUploadedFile(
            f"run{i}.jsonl",
            (
                run_line(f"g.run{i}", "2024-1", ["msmarco_v2.1_doc_00_1#0_1"], [{"text": "A b.", "citations": [0]}])
                + "\n"
            ).encode(),
        )
        for i in (1, 2)
    ]

    # when
    upload_post(
        client,
        django_capture_on_commit_callbacks,
        kind="runs",
        files=files,
        format="trec",
        group="G",
        task="AG",
        priority="3",
    )

    # then
    assert sorted(Run.objects.values_list("run_id", "group", "task", "priority")) == [
        ("g.run1", "G", "AG", 3),
        ("g.run2", "G", "AG", 3),
    ]


def test_it_shows_a_malformed_run_files_error_inline_with_file_line_and_field_and_imports_nothing(
    client, organizer, synchronous_imports, django_capture_on_commit_callbacks
):
    # given
    client.force_login(organizer)
    good = run_line("g.r", "2024-1", ["msmarco_v2.1_doc_00_1#0_1"], [{"text": "Fine.", "citations": [0]}])
    bad = run_line("g.r", "2024-2", ["msmarco_v2.1_doc_00_1#0_1"], [{"text": "Bad.", "citations": [0, 5]}])
    upload = SimpleUploadedFile("broken-run.jsonl", f"{good}\n{bad}\n".encode())

    # when
    response = upload_post(client, django_capture_on_commit_callbacks, kind="runs", files=[upload])
    html = client.get(response["Location"]).content.decode()

    # then
    assert 'data-status="failed"' in html
    assert "nothing was imported" in html
    error_row = _row(html, '<tr class="error"')
    cells = re.findall(r"<td[^>]*>(.*?)</td>", error_row)
    assert cells[0] == "broken-run.jsonl"
    assert cells[1] == "2"
    assert cells[2] == "<code>answer[0].citations[1]</code>"
    assert "out of range" in cells[3]
    assert Run.objects.count() == 0
    assert Answer.objects.count() == 0
    assert Topic.objects.count() == 0


def test_it_fills_missing_passages_from_a_corpus_directory_started_from_the_missing_page(
    client, organizer, tmp_path, synchronous_imports, django_capture_on_commit_callbacks
):
    # given: a shard whose second line is the cited segment, at the byte offset its id names
    filler = json.dumps({"docid": "msmarco_v2.1_doc_07_1#0_0", "segment": "other"}) + "\n"
    offset = len(filler.encode())
    passage_id = f"msmarco_v2.1_doc_07_5#1_{offset}"
    segment = {"docid": passage_id, "title": "Shard title", "segment": "The filled text.", "url": "", "headings": ""}
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "msmarco_v2.1_doc_segmented_07.json").write_text(filler + json.dumps(segment) + "\n")
    cited = PassageFactory(passage_id=passage_id, has_text=False, text="", title="")
    answer_build(run=RunFactory(), topic=TopicFactory(), sentences=[("A.", [cited])])
    client.force_login(organizer)

    # when
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("assess:missing"), {"corpus_dir": str(corpus)})
    html = client.get(response["Location"]).content.decode()

    # then
    cited.refresh_from_db()
    assert (cited.has_text, cited.text, cited.title) == (True, "The filled text.", "Shard title")
    assert 'data-status="done"' in html
    assert "1 of 1 passages" in html


def test_it_rerenders_the_upload_form_with_an_error_when_no_file_is_given(client, organizer):
    client.force_login(organizer)

    response = client.post(reverse("assess:upload"), {"kind": "topics"})

    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    assert ImportJob.objects.count() == 0


def test_it_polls_the_job_status_while_the_job_is_pending(client, organizer, synchronous_imports):
    # given: a job whose task has not run yet, and a progress report in the cache
    client.force_login(organizer)
    job = import_job_create(
        kind="topics", uploaded_files=[SimpleUploadedFile("t.tsv", b"2024-1\tq\n" * 100)], user=organizer
    )
    cache.set(f"import-job:{job.pk}:progress", (450, 900))

    # when
    fragment = client.get(reverse("assess:job", args=[job.pk]), HTTP_HX_REQUEST="true").content.decode()

    # then: only the status partial, polled every second, at 50 %
    assert fragment.lstrip().startswith('<section id="job-status"')
    assert 'hx-trigger="every 1s"' in fragment
    assert 'aria-valuenow="50"' in fragment
    assert "<html" not in fragment


def test_it_shows_99_percent_and_the_writing_phase_once_every_byte_is_read(client, organizer):
    # given: a running job whose files are all read, its last batch not yet committed
    client.force_login(organizer)
    job = import_job_create(kind="topics", uploaded_files=[SimpleUploadedFile("t.tsv", b"2024-1\tq\n")], user=organizer)
    ImportJob.objects.filter(pk=job.pk).update(status=ImportStatus.RUNNING)
    cache.set(f"import-job:{job.pk}:progress", (job.total_bytes, job.total_bytes))

    # when
    fragment = client.get(reverse("assess:job", args=[job.pk]), HTTP_HX_REQUEST="true").content.decode()

    # then
    assert 'aria-valuenow="99"' in fragment
    assert "writing to the database" in fragment


def test_it_runs_a_job_once_and_leaves_a_finished_job_alone(db, organizer):
    # given
    job = import_job_create(kind="topics", uploaded_files=[SimpleUploadedFile("t.tsv", b"2024-1\tq\n")], user=organizer)
    import_job_execute(job_id=job.pk)
    Topic.objects.all().delete()

    # when
    again = import_job_execute(job_id=job.pk)

    # then
    assert again is not None
    assert again.status == ImportStatus.DONE
    assert Topic.objects.count() == 0


def test_it_removes_the_stored_uploads_once_the_job_has_run(db, organizer, media_root):
    job = import_job_create(kind="topics", uploaded_files=[SimpleUploadedFile("t.tsv", b"2024-1\tq\n")], user=organizer)
    assert any((media_root / "imports").iterdir())

    import_job_execute(job_id=job.pk)

    assert not any((media_root / "imports").iterdir())


def test_it_writes_progress_to_the_cache_at_most_every_interval_and_always_at_the_end(db):
    # given
    writer = ProgressWriter(job_id=987654, interval=60)
    cache.delete(writer.key)

    # when / then
    writer(10, 100)
    assert cache.get(writer.key) == (10, 100)
    writer(50, 100)
    assert cache.get(writer.key) == (10, 100)
    writer(100, 100)
    assert cache.get(writer.key) == (100, 100)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_organizer_uploads_a_real_run_in_the_browser_and_sees_it_listed(page, live_server, data_dir, settings):
    # given: the embedded default, where the import runs in a background thread and the page polls it
    settings.BACKGROUND_IN_THREAD = True
    OrganizerFactory(username="boss", password=PASSWORD)
    run_file = data_dir / "runs" / "baseline_rag24.test_l31_70b_instruct_top20.jsonl.fixed"
    expected = _count_run_file(run_file)
    browser_login(page, live_server, "boss")

    # when
    page.goto(f"{live_server.url}{reverse('assess:upload')}")
    page.select_option("select[name=kind]", "runs")
    page.set_input_files("input[name=uploads]", str(run_file))
    page.fill("input[name=group]", "coordinators")
    page.fill("input[name=priority]", "1")
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector('#job-status[data-status="running"], #job-status[data-status="pending"]')
    page.wait_for_selector('#job-status[data-status="done"]', timeout=60_000)
    page.click("text=See the runs")

    # then
    row = page.locator(f'tr[data-run-id="{expected["run_id"]}"]')
    assert row.locator("td.group").inner_text() == "coordinators"
    assert row.locator("td.topics-answered").inner_text() == "301"
    assert row.locator("td.sentences").inner_text() == str(expected["sentences"])
    assert row.locator("td.citations").inner_text() == str(expected["citations"])
    assert row.locator("td.passages-without-text").inner_text() == str(expected["passages"])


def _count_run_file(path) -> dict:
    run_id, answers, sentences, citations, passages = None, 0, 0, 0, set()
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            obj = json.loads(line)
            run_id = obj["run_id"]
            answers += 1
            sentences += len(obj["answer"])
            for s in obj["answer"]:
                citations += len(s["citations"])
                passages.update(obj["references"][i] for i in s["citations"])
    return {
        "run_id": run_id,
        "answers": answers,
        "sentences": sentences,
        "citations": citations,
        "passages": len(passages),
    }


def _row(html: str, marker: str) -> str:
    start = html.index(marker)
    start = html.rindex("<tr", 0, start + len(marker))
    return html[start : html.index("</tr>", start)]


def _cell(row: str, css_class: str) -> str:
    match = re.search(rf'<td class="{css_class}">(.*?)</td>', row, re.S)
    assert match is not None, f"no cell {css_class} in {row}"
    return match.group(1).strip()
