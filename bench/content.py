"""Independent content checks of a loaded database against the source database.

Independent of dbjson: they read both databases through the plain drivers (or the servers' own
hash functions) and compare every column of every benchmark table, so a loader's result — dbjson's
or a peer's — is checked the same way.

- same engine (``server_digests``): the server hashes each column's values as it stores them
  (PostgreSQL ``hashtextextended(col::text, 0)``, MySQL/MariaDB ``SHA2(col, 256)``, summed; with the
  non-NULL count). Exact: a JSON document re-spaced by a MariaDB → MariaDB load, a timestamp moved
  or a trailing byte lost shows as a differing column.
- across engines (``normalized_digests``): each value read by the driver, normalized by the
  dataset's column kind so that equal values in different types compare equal (integers and
  decimals as numbers, booleans as 0/1, timestamps in UTC without a zone, JSON parsed and dumped
  with sorted keys, binary as hex), hashed with BLAKE2b and summed per column. A peer that stores a
  column under another type (e.g. JSON as text) still compares equal when the values are equal.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
from collections.abc import Callable
from typing import Any

import pymysql.cursors

from . import dataset as ds

Digest = dict[str, tuple[int, dict[str, tuple[int, int]]]]  # table -> (rows, column -> (non-null, hash sum))
MASK = (1 << 64) - 1


def _pg_name(schema: str | None, table: str) -> str:
    return (f'"{schema}".' if schema else "") + f'"{table}"'


def server_digests(server: ds.Server, database: str, dataset: ds.Dataset, schema: str | None = None) -> Digest:
    """Per table and column, the server's own hash sum of the values as stored (same-engine comparison)."""
    out: Digest = {}
    if server.family == "postgresql":
        with ds.pg_connect(server, database) as conn:
            conn.execute("SET TimeZone = 'UTC'")
            for t in dataset.tables:
                parts = ["count(*)"]
                for c in t.columns:
                    parts += [f'count("{c.name}")', f'coalesce(sum(hashtextextended("{c.name}"::text, 0)), 0)']
                row = conn.execute(f"SELECT {', '.join(parts)} FROM {_pg_name(schema, t.name)}").fetchone()
                assert row is not None
                out[t.name] = (
                    int(row[0]),
                    {c.name: (int(row[1 + 2 * i]), int(row[2 + 2 * i]) & MASK) for i, c in enumerate(t.columns)},
                )
        return out
    conn = ds.my_connect(server, database)
    try:
        with conn.cursor() as cur:
            for t in dataset.tables:
                parts = ["COUNT(*)"]
                for c in t.columns:
                    parts += [
                        f"COUNT(`{c.name}`)",
                        f"COALESCE(SUM(CAST(CONV(LEFT(SHA2(`{c.name}`, 256), 15), 16, 10) AS UNSIGNED)), 0)",
                    ]
                cur.execute(f"SELECT {', '.join(parts)} FROM `{t.name}`")
                row = cur.fetchone()
                out[t.name] = (
                    int(row[0]),
                    {c.name: (int(row[1 + 2 * i]), int(row[2 + 2 * i]) & MASK) for i, c in enumerate(t.columns)},
                )
    finally:
        conn.close()
    return out


def _bool(v: Any) -> str:
    if isinstance(v, str):
        return "1" if v.lower() in ("1", "t", "true") else "0"
    return "1" if v else "0"


def _stamp(v: Any) -> str:
    if isinstance(v, str):
        v = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
    if v.tzinfo is not None:
        v = v.astimezone(dt.UTC).replace(tzinfo=None)
    return str(v.isoformat(" "))


def _decimal(v: Any) -> str:
    d = decimal.Decimal(str(v)).normalize()
    return "0" if d.is_zero() else format(d, "f")


def _json(v: Any) -> str:
    if isinstance(v, (bytes, bytearray, memoryview)):
        v = bytes(v).decode("utf-8")
    if isinstance(v, str):
        v = json.loads(v)
    return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _binary(v: Any) -> str:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    s = str(v)
    return s[2:] if s.startswith("\\x") else s


NORMALIZE: dict[str, Callable[[Any], str]] = {
    "int": lambda v: str(int(v)),
    "decimal": _decimal,
    "float": lambda v: repr(float(v)),
    "str": str,
    "bool": _bool,
    "datetime": _stamp,
    "timestamptz": _stamp,
    "json": _json,
    "binary": _binary,
}


def _fold(t: ds.Table, rows: Any, acc: dict[str, list[int]]) -> int:
    norms = [NORMALIZE[c.kind] for c in t.columns]
    sums = [acc[c.name] for c in t.columns]
    n = 0
    for row in rows:
        n += 1
        for f, v, s in zip(norms, row, sums):
            if v is not None:
                s[0] += 1
                s[1] = (s[1] + int.from_bytes(hashlib.blake2b(f(v).encode(), digest_size=8).digest(), "little")) & MASK
    return n


def normalized_digests(server: ds.Server, database: str, dataset: ds.Dataset, schema: str | None = None) -> Digest:
    """Per table and column, the sum of the hashes of the normalized values (cross-engine comparison)."""
    out: Digest = {}
    for t in dataset.tables:
        acc = {c.name: [0, 0] for c in t.columns}
        if server.family == "postgresql":
            cols = ", ".join(f'"{c.name}"' for c in t.columns)
            with ds.pg_connect(server, database) as conn:
                conn.execute("SET TimeZone = 'UTC'")
                conn.autocommit = False
                with conn.cursor(name="content_check") as cur:
                    cur.itersize = 5000
                    cur.execute(f"SELECT {cols} FROM {_pg_name(schema, t.name)}")
                    n = _fold(t, cur, acc)
        else:
            conn = ds.my_connect(server, database)
            try:
                with conn.cursor(pymysql.cursors.SSCursor) as cur:
                    cur.execute(f"SELECT {', '.join(f'`{c.name}`' for c in t.columns)} FROM `{t.name}`")
                    n = _fold(t, cur, acc)
            finally:
                conn.close()
        out[t.name] = (n, {k: (v[0], v[1]) for k, v in acc.items()})
    return out


def compare(expected: Digest, got: Digest) -> tuple[bool, str]:
    """(identical, a one-line summary naming the columns that differ)."""
    same = total = 0
    differ: list[str] = []
    for table, (rows, cols) in expected.items():
        grows, gcols = got.get(table, (-1, {}))
        if grows != rows:
            differ.append(f"{table}: {grows} rows, not {rows}")
        for col, digest in cols.items():
            total += 1
            if gcols.get(col) == digest:
                same += 1
            else:
                differ.append(f"{table}.{col}")
    if not differ:
        return True, f"content identical ({same}/{total} columns)"
    return False, f"content DIFFERS ({same}/{total} columns identical; differ: {', '.join(differ)})"
