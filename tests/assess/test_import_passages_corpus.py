"""`import_passages --corpus DIR --missing`: fill cited passages by seeking to the byte offset in their id."""

from __future__ import annotations

import gzip
import json
import os
import tracemalloc

import pytest
from django.core.management import call_command

from assess.importers.passages import passages_fill_from_corpus
from assess.importers.report import ImportRejected
from assess.importers.runs import runs_import
from assess.models import Answer, Citation, Passage

GIB = 1 << 30


def write_shard(directory, shard, docs, *, junk_bytes=0):
    """Write `msmarco_v2.1_doc_segmented_<shard>.json` with one JSON line per (doc offset, index, text); each
    segment id carries the true byte offset of its line. `junk_bytes` of zeros come first (a sparse hole)."""
    path = directory / f"msmarco_v2.1_doc_segmented_{shard}.json"
    ids = []
    with open(path, "wb") as fh:
        if junk_bytes:
            fh.seek(junk_bytes)
        for doc_offset, index, text in docs:
            docid = f"msmarco_v2.1_doc_{shard}_{doc_offset}#{index}_{fh.tell()}"
            line = {
                "docid": docid,
                "url": f"https://example.org/{doc_offset}",
                "title": f"Title {doc_offset}",
                "headings": f"Title {doc_offset}\nSection {index}",
                "segment": text,
                "start_char": 0,
                "end_char": len(text),
            }
            fh.write(json.dumps(line).encode("utf-8") + b"\n")
            ids.append(docid)
    return path, ids


def write_gzipped_shard(directory, shard, docs, *, suffix=".jsonl.gz", filler_lines=0):
    """The same shard gzipped, as the corpus is distributed; the offsets in the ids are those of the
    uncompressed text. `filler_lines` segments of 1 kB come first (text that is read past, never parsed)."""
    filler = [(1, i, "x" * 1000) for i in range(filler_lines)]
    plain, ids = write_shard(directory, shard, filler + list(docs))
    path = directory / f"msmarco_v2.1_doc_segmented_{shard}{suffix}"
    with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
        dst.write(src.read())
    plain.unlink()
    return path, ids[filler_lines:]


def load_run_citing(tmp_path, ids):
    run = tmp_path / "run.jsonl"
    line = {
        "run_id": "team.run",
        "topic_id": "2024-1",
        "topic": "q",
        "references": ids,
        "response_length": 2 * len(ids),
        "answer": [{"text": f"Sentence {i}.", "citations": [i]} for i in range(len(ids))],
    }
    run.write_text(json.dumps(line) + "\n", encoding="utf-8")
    runs_import(files=[run])


@pytest.fixture
def corpus(tmp_path):
    directory = tmp_path / "corpus"
    directory.mkdir()
    return directory


def test_it_fills_cited_passages_from_their_shards(db, tmp_path, corpus):
    # given: two shards, and a run citing some of their segments (not all of them)
    _, ids_00 = write_shard(corpus, "00", [(100, 0, "zero zero"), (100, 1, "zéro un ✓"), (5000, 0, "deux")])
    _, ids_07 = write_shard(corpus, "07", [(42, 3, "seven")])
    load_run_citing(tmp_path, [ids_00[2], ids_07[0], ids_00[1]])

    # when
    report = passages_fill_from_corpus(corpus_dir=corpus)

    # then
    assert report.counts == {"passages": 3, "passages_missing_before": 3}
    texts = dict(Passage.objects.values_list("passage_id", "text"))
    assert texts == {ids_00[2]: "deux", ids_07[0]: "seven", ids_00[1]: "zéro un ✓"}
    passage = Passage.objects.get(passage_id=ids_00[1])
    assert (passage.title, passage.url, passage.headings, passage.has_text) == (
        "Title 100",
        "https://example.org/100",
        "Title 100\nSection 1",
        True,
    )


def test_it_seeks_to_the_offset_instead_of_scanning_the_shard(db, tmp_path, corpus):
    # given: a shard whose first GiB is a hole of zero bytes (no newline, no JSON): scanning it line by line
    # would read one 1 GiB "line" that does not parse; seeking jumps over it
    path, ids = write_shard(corpus, "12", [(1, 0, "after the hole"), (2, 0, "further on")], junk_bytes=GIB)
    load_run_citing(tmp_path, ids)

    # when
    report = passages_fill_from_corpus(corpus_dir=corpus)

    # then
    assert os.stat(path).st_size > GIB
    assert int(ids[0].rsplit("_", 1)[1]) == GIB
    assert report.counts["passages"] == 2
    assert Passage.objects.get(passage_id=ids[1]).text == "further on"


def test_it_rejects_an_offset_that_is_not_the_start_of_a_line_and_changes_nothing(db, tmp_path, corpus):
    # given: the second id's offset is off by 5 bytes (inside the line)
    _, ids = write_shard(corpus, "03", [(9, 0, "good"), (9, 1, "moved")])
    wrong = ids[1].rsplit("_", 1)[0] + "_" + str(int(ids[1].rsplit("_", 1)[1]) + 5)
    load_run_citing(tmp_path, [ids[0], wrong])

    # when
    with pytest.raises(ImportRejected) as exc:
        passages_fill_from_corpus(corpus_dir=corpus)

    # then
    offset = int(wrong.rsplit("_", 1)[1])
    assert [str(e) for e in exc.value.report.errors] == [
        f"msmarco_v2.1_doc_segmented_03.json: offset: {wrong}: no JSON line starts at byte {offset}"
    ]
    assert Passage.objects.filter(has_text=True).count() == 0


def test_it_rejects_an_offset_that_points_at_another_segment(db, tmp_path, corpus):
    # given: an id whose offset is that of the first line
    _, ids = write_shard(corpus, "03", [(9, 0, "first"), (9, 1, "second")])
    first_offset = ids[0].rsplit("_", 1)[1]
    wrong = ids[1].rsplit("_", 1)[0] + "_" + first_offset
    load_run_citing(tmp_path, [wrong])

    # when
    with pytest.raises(ImportRejected) as exc:
        passages_fill_from_corpus(corpus_dir=corpus)

    # then
    assert [str(e) for e in exc.value.report.errors] == [
        f"msmarco_v2.1_doc_segmented_03.json: docid: {wrong}: the line at byte {first_offset} is {ids[0]!r}"
    ]
    assert not Passage.objects.filter(has_text=True).exists()


def test_it_rejects_an_offset_past_the_end_of_the_shard(db, tmp_path, corpus):
    # given
    path, _ = write_shard(corpus, "05", [(1, 0, "only")])
    size = path.stat().st_size
    load_run_citing(tmp_path, [f"msmarco_v2.1_doc_05_1#1_{size + 100}"])

    # when
    with pytest.raises(ImportRejected) as exc:
        passages_fill_from_corpus(corpus_dir=corpus)

    # then
    assert str(exc.value.report.errors[0]) == (
        f"msmarco_v2.1_doc_segmented_05.json: offset: msmarco_v2.1_doc_05_1#1_{size + 100}: "
        f"byte {size + 100} is past the end of the shard ({size} bytes)"
    )


def test_it_warns_about_a_missing_shard_and_fills_the_others(db, tmp_path, corpus):
    # given
    _, ids = write_shard(corpus, "01", [(1, 0, "one")])
    load_run_citing(tmp_path, [ids[0], "msmarco_v2.1_doc_44_1#0_0"])

    # when
    report = passages_fill_from_corpus(corpus_dir=corpus)

    # then
    assert [str(w) for w in report.warnings] == [
        "corpus: shard: no shard file msmarco_v2.1_doc_segmented_44.json (or .jsonl, .json.gz, .jsonl.gz); "
        "1 passages left without text"
    ]
    assert Passage.objects.get(passage_id=ids[0]).text == "one"
    assert not Passage.objects.get(passage_id="msmarco_v2.1_doc_44_1#0_0").has_text


def test_it_fills_only_passages_without_text(db, tmp_path, corpus):
    # given: one passage already has (other) text
    _, ids = write_shard(corpus, "02", [(1, 0, "from corpus"), (2, 0, "also from corpus")])
    load_run_citing(tmp_path, ids)
    Passage.objects.filter(passage_id=ids[0]).update(text="kept", has_text=True)

    # when
    report = passages_fill_from_corpus(corpus_dir=corpus)

    # then
    assert report.counts["passages"] == 1
    assert Passage.objects.get(passage_id=ids[0]).text == "kept"


def test_the_command_fills_from_the_corpus_and_missing_passages_lists_the_rest(db, tmp_path, corpus, capsys):
    # given
    _, ids = write_shard(corpus, "09", [(1, 0, "nine")])
    load_run_citing(tmp_path, [ids[0], "msmarco_v2.1_doc_10_5#0_0"])

    # when
    call_command("import_passages", "--corpus", str(corpus), "--missing", verbosity=0)
    call_command("missing_passages")

    # then
    assert capsys.readouterr().out.splitlines()[-1:] == ["msmarco_v2.1_doc_10_5#0_0"]
    assert Passage.objects.get(passage_id=ids[0]).text == "nine"
    assert Citation.objects.filter(sentence__answer__in=Answer.objects.all()).count() == 2


def test_it_fills_cited_passages_from_gzipped_shards_of_both_names(db, tmp_path, corpus):
    # given: the official distribution's names (.json.gz) and the JSONL one (.jsonl.gz), ids in no order
    _, ids_00 = write_gzipped_shard(corpus, "00", [(7, 0, "zéro ✓"), (7, 1, "un"), (9, 0, "deux")], suffix=".json.gz")
    _, ids_58 = write_gzipped_shard(corpus, "58", [(3, 0, "fifty-eight")])
    load_run_citing(tmp_path, [ids_58[0], ids_00[2], ids_00[0]])

    # when
    report = passages_fill_from_corpus(corpus_dir=corpus)

    # then
    assert report.counts == {"passages": 3, "passages_missing_before": 3}
    assert dict(Passage.objects.filter(has_text=True).values_list("passage_id", "text")) == {
        ids_00[0]: "zéro ✓",
        ids_00[2]: "deux",
        ids_58[0]: "fifty-eight",
    }
    assert Passage.objects.get(passage_id=ids_00[2]).title == "Title 9"


def test_it_streams_a_gzipped_shard_without_holding_it_in_memory(db, tmp_path, corpus):
    # given: 25 MB of segments before the two wanted ones (under 300 kB once gzipped)
    path, ids = write_gzipped_shard(corpus, "21", [(5, 0, "late"), (5, 1, "last")], filler_lines=20_000)
    load_run_citing(tmp_path, ids)

    # when
    tracemalloc.start()
    try:
        report = passages_fill_from_corpus(corpus_dir=corpus)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    # then: read in chunks of 1 MB, never the 20 MB at once
    assert int(ids[0].rsplit("_", 1)[1]) > 20_000_000 > 50 * path.stat().st_size
    assert report.counts["passages"] == 2
    assert Passage.objects.get(passage_id=ids[1]).text == "last"
    assert peak < 8_000_000


def test_it_prefers_the_plain_shard_when_both_are_there(db, tmp_path, corpus):
    # given: a gzipped shard whose line is not the passage's, beside a plain one that is right
    _, ids = write_shard(corpus, "04", [(1, 0, "plain")])
    (corpus / "msmarco_v2.1_doc_segmented_04.json.gz").write_bytes(gzip.compress(b"not this\n"))
    load_run_citing(tmp_path, ids)

    # when
    passages_fill_from_corpus(corpus_dir=corpus)

    # then
    assert Passage.objects.get(passage_id=ids[0]).text == "plain"


def test_it_rejects_an_offset_inside_a_line_of_a_gzipped_shard(db, tmp_path, corpus):
    # given
    _, ids = write_gzipped_shard(corpus, "03", [(9, 0, "good"), (9, 1, "moved")])
    wrong = ids[1].rsplit("_", 1)[0] + "_" + str(int(ids[1].rsplit("_", 1)[1]) + 5)
    load_run_citing(tmp_path, [ids[0], wrong])

    # when
    with pytest.raises(ImportRejected) as exc:
        passages_fill_from_corpus(corpus_dir=corpus)

    # then
    offset = int(wrong.rsplit("_", 1)[1])
    assert [str(e) for e in exc.value.report.errors] == [
        f"msmarco_v2.1_doc_segmented_03.jsonl.gz: offset: {wrong}: no JSON line starts at byte {offset}"
    ]
    assert not Passage.objects.filter(has_text=True).exists()


def test_it_rejects_an_offset_past_the_end_of_a_gzipped_shard(db, tmp_path, corpus):
    # given
    _, ids = write_gzipped_shard(corpus, "05", [(1, 0, "only")])
    size = len(gzip.decompress((corpus / "msmarco_v2.1_doc_segmented_05.jsonl.gz").read_bytes()))
    beyond = f"msmarco_v2.1_doc_05_1#1_{size + 100}"
    load_run_citing(tmp_path, [ids[0], beyond])

    # when
    with pytest.raises(ImportRejected) as exc:
        passages_fill_from_corpus(corpus_dir=corpus)

    # then
    assert [str(e) for e in exc.value.report.errors] == [
        f"msmarco_v2.1_doc_segmented_05.jsonl.gz: offset: {beyond}: "
        f"byte {size + 100} is past the end of the shard ({size} bytes uncompressed)"
    ]


def test_the_command_says_how_many_it_found_lists_the_rest_and_shows_progress(db, tmp_path, corpus, capsys):
    # given: two passages in a gzipped shard, one in a shard that is not there, one id that is no segment id
    _, ids = write_gzipped_shard(corpus, "30", [(1, 0, "thirty"), (2, 0, "thirty too")])
    load_run_citing(tmp_path, [*ids, "msmarco_v2.1_doc_31_5#0_0", "not-a-segment"])

    # when
    call_command("import_passages", "--corpus", str(corpus), "--missing")

    # then
    out, err = capsys.readouterr()
    assert out.splitlines()[-3:] == [
        "found 2 of 4 cited passages without text; 2 not found:",
        "msmarco_v2.1_doc_31_5#0_0",
        "not-a-segment",
    ]
    # the tqdm bar, on stderr
    assert "4/4" in err
    assert "passage" in err
    assert Passage.objects.get(passage_id=ids[1]).text == "thirty too"
