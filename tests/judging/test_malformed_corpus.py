"""A corpus of malformed files, each tried through the three channels an organizer has: the command, the
upload page and the API. Each must be refused cleanly: the first error names the file, the line (where
the file has one) and the field; every table keeps its row count; the server still answers.

The files are described in tests/judging/malformed/ (by theme) and generated here, the large ones streaming (a
1 MB gzip that expands to 1 GiB is never held in memory). Issue 17, point 1."""

from __future__ import annotations

import io
import re
import tracemalloc
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from assess.importers.passages import passages_import
from assess.importers.runs import runs_import
from assess.importers.topics import topics_import
from tests.factories import JudgeFactory
from tests.judging.malformed.channels import expected_first_error, row_counts, via_channel, via_command, write
from tests.judging.malformed.fields import FIELD_FILES
from tests.judging.malformed.files import LINE_LIMIT, MB, REF, Bad, gzip_bomb, jl, nist_line, run_line
from tests.judging.malformed.imports import IMPORT_FILES
from tests.judging.malformed.judgments import JUDGMENT_FILES

CORPUS: list[Bad] = IMPORT_FILES + JUDGMENT_FILES + FIELD_FILES


@pytest.fixture
def material(db, tmp_path, organizer):
    """Topics, a run with one answer of two cited sentences, a passage with text, an assessor's judge."""
    src = tmp_path / "material"
    src.mkdir()
    (src / "t.tsv").write_text("2024-1\tfirst question\n2024-2\tsecond question\n")
    topics_import(files=[src / "t.tsv"])
    (src / "old.jsonl").write_bytes(jl(run_line(run_id="team.old")))
    runs_import(files=[src / "old.jsonl"])
    (src / "p.jsonl").write_bytes(jl({"docid": REF[0], "segment": "loaded text", "title": "T"}))
    passages_import(files=[src / "p.jsonl"])
    JudgeFactory(name="alice", kind="human", user=organizer)
    return src


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """The big files, generated once a session (a 1 GiB gzip takes seconds to compress)."""
    folder = tmp_path_factory.mktemp("generated")
    made: dict[str, Path] = {}

    def get(case: Bad) -> Path:
        if case.id not in made:
            made[case.id] = folder / case.id
            case.data(made[case.id])  # type: ignore[operator]
        return made[case.id]

    return get


@pytest.fixture
def synchronous(settings, tmp_path):
    settings.BACKGROUND_IN_THREAD = False
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def api(organizer):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(organizer)
    return client


CHANNELS = ["command", "page", "api"]
CORPUS_BY_ID = {c.id: c for c in CORPUS}


def test_the_corpus_covers_every_importer_with_at_least_sixty_files():
    assert len(CORPUS) >= 60
    assert len({c.id for c in CORPUS}) == len(CORPUS)
    assert {c.kind for c in CORPUS} == {"topics", "passages", "runs", "nist-runs", "exchange", "nist-judgments"}


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c.id)
def test_it_refuses_a_malformed_file_cleanly_through_every_channel(
    material,
    synchronous,
    tmp_path,
    client,
    organizer,
    api,
    django_capture_on_commit_callbacks,
    generated,
    case,
    channel,
):
    # given
    folder = tmp_path / "in"
    folder.mkdir()
    path = write(case, folder, generated)
    client.force_login(organizer)
    before = row_counts()

    # when
    errors = via_channel(channel, case, path, client, api, django_capture_on_commit_callbacks)

    # then: refused at its file, line and field; nothing changed; the server answers
    assert errors, "refused without any error listed"
    expected = expected_first_error(case, channel)
    if expected.startswith("re:"):
        assert re.match(expected[3:], errors[0]), errors[:3]
    else:
        assert errors[0].startswith(expected), errors[:3]
    assert row_counts() == before
    assert client.get("/api/topics/").status_code == 200


def test_a_gzip_bomb_is_refused_with_bounded_memory(material, tmp_path):
    # given: 1 MB of gzip that expands to 1 GiB without a newline
    path = tmp_path / "bomb.jsonl.gz"
    gzip_bomb(path, chunk=bytes(MB), chunks=1024)
    assert path.stat().st_size < 2 * MB

    # when
    tracemalloc.start()
    try:
        errors = via_command(CORPUS_BY_ID["passages-gzip-bomb"], path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    # then: refused at the line limit, having held about one line (8 MiB) at a time
    assert errors == [f"bomb.jsonl.gz:1: {LINE_LIMIT}"]
    assert peak < 40 * MB


def test_a_crlf_file_imports_as_its_lf_twin(db, tmp_path):
    # given
    (tmp_path / "crlf.tsv").write_bytes(b"\xef\xbb\xbf2024-7\tseven\r\n2024-8\teight\r\n")

    # when
    report = topics_import(files=[tmp_path / "crlf.tsv"])

    # then
    assert report.counts["topics"] == 2
    from assess.models import Topic

    assert sorted(Topic.objects.values_list("topic_id", "text")) == [("2024-7", "seven"), ("2024-8", "eight")]


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_file_above_the_size_limit_is_refused_through_every_channel(
    material, synchronous, settings, tmp_path, client, organizer, api, django_capture_on_commit_callbacks, channel
):
    # given: a valid topics file of 2,000 bytes, and a limit of 1,000
    settings.IMPORT_MAX_FILE_BYTES = 1000
    case = Bad(
        "topics-too-big", "topics", "t.tsv", b"".join(b"2024-%03d\t%s\n" % (i, b"q" * 40) for i in range(40)), ""
    )
    path = write(case, tmp_path, None)
    client.force_login(organizer)
    before = row_counts()

    # when
    errors = via_channel(channel, case, path, client, api, django_capture_on_commit_callbacks)

    # then
    assert errors == [f"t.tsv: the file has {path.stat().st_size:,} bytes; the limit is 1,000"]
    assert row_counts() == before


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("--group", "g" * 129, "r.jsonl: group: longer than 128 characters (the column's limit)"),
        ("--priority", str(10**12), "r.jsonl: priority: expected a number from 1 to 2,147,483,647, got 1000000000000"),
    ],
)
def test_a_command_option_is_held_to_its_column(material, tmp_path, option, value, error):
    # given
    path = tmp_path / "r.jsonl"
    path.write_bytes(jl(run_line()))
    err = io.StringIO()
    before = row_counts()

    # when
    with pytest.raises(CommandError):
        call_command("import_runs", str(path), option, value, stderr=err, verbosity=0)

    # then
    assert err.getvalue().splitlines() == [f"error: {error}"]
    assert row_counts() == before


def test_a_judge_name_of_200_characters_is_refused_by_the_command(material, tmp_path):
    # given
    path = tmp_path / "n.jsonl"
    path.write_bytes(jl(nist_line()))
    err = io.StringIO()

    # when
    with pytest.raises(CommandError):
        call_command("import_judgments", str(path), "--format", "nist", "--judge", "j" * 200, stderr=err, verbosity=0)

    # then
    assert err.getvalue().splitlines() == ["error: n.jsonl: judge: longer than 128 characters (the column's limit)"]
