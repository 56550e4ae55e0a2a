"""Passage imports on the real files: MS MARCO V2.1 segments (plain and .gz), ragnarok retrieve results,
`{docid, segment}` lines and the Webis crowd retrieval file."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from assess.importers.passages import passages_import
from assess.models import Passage
from tests.factories import PassageFactory

GUIDELINES = "excerpts/msmarco_v2.1_doc_segmented.guidelines-examples.jsonl"
BM25 = "retrieve/BM25/retrieve_results_rag24.researchy-dev_tiny_top100.jsonl"
WEBIS = "retrieve/webis-crowd/study1_retrieval.jsonl.gz"
NIST_CITED = "segments/nist-cited-segments.jsonl"


def test_it_imports_ms_marco_segments_with_all_their_fields(db, data_dir):
    # given
    rows = [json.loads(line) for line in (data_dir / GUIDELINES).open(encoding="utf-8")]

    # when
    report = passages_import(files=[data_dir / GUIDELINES])

    # then
    assert report.counts["passages"] == len(rows) == 2
    for row in rows:
        passage = Passage.objects.get(passage_id=row["docid"])
        assert (passage.title, passage.url, passage.headings, passage.text) == (
            row["title"],
            row["url"],
            row["headings"],
            row["segment"],
        )
        assert passage.has_text


def test_it_reads_a_gzipped_segment_file(db, data_dir, tmp_path):
    # given
    packed = tmp_path / "segments.jsonl.gz"
    with open(data_dir / GUIDELINES, "rb") as src, gzip.open(packed, "wb") as dst:
        shutil.copyfileobj(src, dst)

    # when
    report = passages_import(files=[packed])

    # then
    assert report.counts["passages"] == 2
    assert Passage.objects.filter(has_text=True).count() == 2


def test_it_imports_ragnarok_retrieve_results(db, data_dir):
    # given
    first = json.loads((data_dir / BM25).open(encoding="utf-8").readline())
    candidate = first["candidates"][0]

    # when
    passages_import(files=[data_dir / BM25])

    # then
    assert Passage.objects.count() == 200
    passage = Passage.objects.get(passage_id=candidate["docid"])
    assert passage.text == candidate["doc"]["segment"]
    assert passage.url == candidate["doc"]["url"]


def test_it_imports_segment_lines_without_a_title(db, data_dir):
    # given
    first = json.loads((data_dir / NIST_CITED).open(encoding="utf-8").readline())

    # when
    report = passages_import(files=[data_dir / NIST_CITED])

    # then
    assert report.counts["passages"] == 736
    passage = Passage.objects.get(passage_id=first["docid"])
    assert (passage.title, passage.text) == ("", first["segment"])


def test_it_imports_the_webis_crowd_retrieval_file(db, data_dir):
    # given
    with gzip.open(data_dir / WEBIS, "rt", encoding="utf-8") as fh:
        first = json.loads(fh.readline())

    # when
    passages_import(files=[data_dir / WEBIS])

    # then
    assert Passage.objects.count() == 6011
    passage = Passage.objects.get(passage_id=first["references_ids"][3])
    assert passage.text == first["references_texts"][3]


def test_it_fills_a_passage_that_a_run_created_without_text(db, data_dir):
    # given
    first = json.loads((data_dir / NIST_CITED).open(encoding="utf-8").readline())
    PassageFactory(passage_id=first["docid"], without_text=True)

    # when
    passages_import(files=[data_dir / NIST_CITED])

    # then
    passage = Passage.objects.get(passage_id=first["docid"])
    assert passage.has_text
    assert passage.text == first["segment"]
    assert Passage.objects.count() == 736


def test_it_updates_the_text_of_a_loaded_passage(db, tmp_path):
    # given
    passage = PassageFactory(text="old text")
    f = tmp_path / "p.jsonl"
    f.write_text(json.dumps({"docid": passage.passage_id, "segment": "new text", "title": "T"}) + "\n")

    # when
    passages_import(files=[f])

    # then
    passage.refresh_from_db()
    assert (passage.text, passage.title) == ("new text", "T")


def test_it_reports_a_progress_that_ends_at_the_total(db, data_dir):
    # given
    seen = []

    # when
    passages_import(files=[data_dir / NIST_CITED], progress=lambda done, total: seen.append((done, total)))

    # then
    size = (data_dir / NIST_CITED).stat().st_size
    assert seen[-1] == (size, size)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_an_error_of_the_progress_callback_is_not_taken_for_a_bad_file(db, data_dir):
    # given: a callback whose store is down (ConnectionError is an OSError, like a read error)
    def progress(done, total):
        raise ConnectionError("cache is down")

    # when / then
    with pytest.raises(ConnectionError, match="cache is down"):
        passages_import(files=[data_dir / NIST_CITED], progress=progress)
    assert Passage.objects.count() == 0
