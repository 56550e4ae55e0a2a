"""The PostgreSQL write path of the run import: answers, sentences and citations sent with binary COPY."""

from __future__ import annotations

import json
import queue
import threading
from typing import Any

from django.db import connection

from assess.models import Answer, Citation, Passage, Sentence

PASSAGE_CACHE_LIMIT = 500_000

AnswerRow = tuple[int, int, str, int | None, list[tuple[str, list[tuple[int, str]]]]]
"""(run pk, topic pk, references as JSON, response length, sentences) of one answer to write."""


class PassageKeys(dict[str, int]):
    """The primary keys of passages by id, kept from batch to batch up to `PASSAGE_CACHE_LIMIT`."""

    def missing(self, cited: set[str]) -> list[str]:
        """The cited ids whose keys must be read (or their rows created), sorted."""
        wanted = sorted(pid for pid in cited if pid not in self)
        if len(self) + len(wanted) > PASSAGE_CACHE_LIMIT:
            self.clear()  # keeps memory flat on inputs that cite millions of passages
            wanted = sorted(cited)
        return wanted


class CopyWriter:
    """The PostgreSQL write path: a thread that sends batches with COPY while the caller parses the next.

    It uses the import's own connection (psycopg connections may be shared between threads; each thread has
    its own cursor), so everything stays in the one transaction and a rejection rolls it all back. Ids are
    taken from the tables' sequences up front, so answers, sentences and citations need no round trip to
    learn their keys. The assess foreign keys are made IMMEDIATE for the import: their checks, about half of
    the server's work, then run at the end of each COPY, alongside the parsing, instead of all at commit.
    """

    def __init__(self) -> None:
        connection.ensure_connection()
        self.conn: Any = connection.connection
        self.passage_pks = PassageKeys()
        self.counts = {"answers": 0, "sentences": 0, "citations": 0, "passages_created": 0}
        self.error: BaseException | None = None
        self.queue: queue.Queue[list[AnswerRow] | None] = queue.Queue(maxsize=1)
        self.deferred = self._constraints_immediate()
        self.thread = threading.Thread(target=self._run, name="runs-import-copy", daemon=True)
        self.thread.start()

    def submit(self, rows: list[AnswerRow]) -> None:
        self._raise()
        self.queue.put(rows)

    def wait_idle(self) -> None:
        self.queue.join()
        self._raise()

    def close(self) -> dict[str, int]:
        self.queue.put(None)
        self.thread.join()
        self._raise()
        if self.deferred:
            with connection.cursor() as cur:
                cur.execute(f"SET CONSTRAINTS {', '.join(self.deferred)} DEFERRED")
        return self.counts

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def _constraints_immediate(self) -> list[str]:
        tables = [m._meta.db_table for m in (Answer, Sentence, Citation)]
        with connection.cursor() as cur:
            cur.execute(
                "SELECT conname FROM pg_constraint WHERE contype = 'f' AND condeferrable AND condeferred "
                "AND conrelid IN (%s::regclass, %s::regclass, %s::regclass)",
                tables,
            )
            names = [connection.ops.quote_name(row[0]) for row in cur.fetchall()]
            if names:
                cur.execute(f"SET CONSTRAINTS {', '.join(names)} IMMEDIATE")
        return names

    def _run(self) -> None:
        while True:
            rows = self.queue.get()
            try:
                if rows is None:
                    return
                if self.error is None:
                    self._write(rows)
            except BaseException as exc:  # handed to the caller's thread, which raises it
                self.error = exc
            finally:
                self.queue.task_done()

    def _write(self, rows: list[AnswerRow]) -> None:
        q = connection.ops.quote_name
        with self.conn.cursor() as cur:
            passage_pk = self._passage_ids(cur, {pid for row in rows for _, cites in row[4] for _, pid in cites})
            n_sentences = sum(len(row[4]) for row in rows)
            answer_ids = _next_ids(cur, Answer._meta.db_table, len(rows))
            sentence_ids = _next_ids(cur, Sentence._meta.db_table, n_sentences)
            with cur.copy(
                f"COPY {q(Answer._meta.db_table)} (id, run_id, topic_id, {q('references')}, response_length) FROM STDIN"
            ) as copy:
                for answer_id, (run_pk, topic_pk, references, response_length, _) in zip(answer_ids, rows, strict=True):
                    copy.write_row((answer_id, run_pk, topic_pk, references, response_length))
            with cur.copy(f"COPY {q(Sentence._meta.db_table)} (id, answer_id, {q('index')}, text) FROM STDIN") as copy:
                ids = iter(sentence_ids)
                for answer_id, row in zip(answer_ids, rows, strict=True):
                    for i, (text, _) in enumerate(row[4]):
                        copy.write_row((next(ids), answer_id, i, text))
            n_citations = 0
            with cur.copy(
                f"COPY {q(Citation._meta.db_table)} (sentence_id, slot, passage_id, reference_index) FROM STDIN"
            ) as copy:
                ids = iter(sentence_ids)
                for row in rows:
                    for _, cites in row[4]:
                        sentence_id = next(ids)
                        for slot, (idx, pid) in enumerate(cites):
                            copy.write_row((sentence_id, slot, passage_pk[pid], idx))
                        n_citations += len(cites)
        self.counts["answers"] += len(rows)
        self.counts["sentences"] += n_sentences
        self.counts["citations"] += n_citations

    def _passage_ids(self, cur: Any, cited: set[str]) -> dict[str, int]:
        wanted = self.passage_pks.missing(cited)
        if wanted:
            self.counts["passages_created"] += self._passages_ensure(cur, wanted, self.passage_pks)
        return self.passage_pks

    def _passages_ensure(self, cur: Any, wanted: list[str], cache: dict[str, int]) -> int:
        """Insert the passage ids not yet in the table and read back every wanted id's key, in one statement
        (the SELECT does not see the CTE's new rows, so the two halves do not overlap). The ids go as one
        JSON string: quoting a 10,000-element array parameter client-side is slow."""
        table = connection.ops.quote_name(Passage._meta.db_table)
        ids = json.dumps(wanted)
        cur.execute(
            f"WITH new AS (INSERT INTO {table} (passage_id, title, text, url, headings, has_text) "
            f"SELECT p, '', '', '', '', false FROM jsonb_array_elements_text(%s::jsonb) AS p "
            f"ON CONFLICT (passage_id) DO NOTHING RETURNING passage_id, id) "
            f"SELECT passage_id, id, true FROM new UNION ALL SELECT passage_id, id, false FROM {table} "
            f"WHERE passage_id IN (SELECT jsonb_array_elements_text(%s::jsonb))",
            [ids, ids],
        )
        created = 0
        for pid, pk, is_new in cur.fetchall():
            cache[pid] = pk
            created += is_new
        return created


def _next_ids(cur: Any, table: str, n: int) -> list[int]:
    """Take `n` ids from a table's id sequence (safe alongside other writers: nextval never repeats)."""
    if n == 0:
        return []
    cur.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [table, n])
    return [row[0] for row in cur.fetchall()]
