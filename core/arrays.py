"""Integer columns of a query as numpy arrays, for the metrics at TREC scale (a million rows).

On PostgreSQL the rows come through a binary COPY and are read straight into numpy, with no Python object
per row (five times faster than fetching tuples); elsewhere (SQLite) through a plain cursor."""

from __future__ import annotations

from typing import Any

import numpy as np
from django.core.exceptions import EmptyResultSet
from django.db import connection

_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_HEADER = len(_SIGNATURE) + 8  # signature, flags, header extension length (0)


def int_columns(qs: Any, width: int) -> list[np.ndarray]:
    """The columns of a `values_list` queryset of `width` non-null integer columns, as int64 arrays."""
    try:
        sql, params = qs.query.sql_with_params()
    except EmptyResultSet:  # the ORM knows there are no rows (`__in=[]`) and writes no SQL for it
        return [np.zeros(0, dtype=np.int64) for _ in range(width)]
    if connection.vendor == "postgresql":
        return _copy_columns(sql, params, width)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    if not rows:
        return [np.zeros(0, dtype=np.int64) for _ in range(width)]
    table = np.array(rows, dtype=np.int64).reshape(len(rows), width)
    return [table[:, i] for i in range(width)]


def _copy_columns(sql: str, params: Any, width: int) -> list[np.ndarray]:
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg 3's cursor, for COPY
        chunks = []
        with raw.copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)", params) as copy:
            for chunk in copy:
                chunks.append(bytes(chunk))
    data = b"".join(chunks)
    if not data.startswith(_SIGNATURE):
        raise ValueError("not a PostgreSQL binary COPY stream")
    body = memoryview(data)[_HEADER:-2]  # the trailer is a field count of -1
    if len(body) == 0:
        return [np.zeros(0, dtype=np.int64) for _ in range(width)]
    # Every row has the same layout (integer columns, none null): learn the field sizes from the first row.
    fields: list[tuple[str, str]] = [("count", ">i2")]
    at = 2
    for i in range(width):
        size = int.from_bytes(body[at : at + 4], "big", signed=True)
        if size not in (2, 4, 8):
            raise ValueError(f"column {i} is not a non-null integer (field length {size})")
        fields += [(f"length{i}", ">i4"), (f"value{i}", f">i{size}")]
        at += 4 + size
    rows = np.frombuffer(body, dtype=np.dtype(fields))
    return [rows[f"value{i}"].astype(np.int64) for i in range(width)]
