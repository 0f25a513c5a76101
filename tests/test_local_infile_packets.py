"""The in-memory LOCAL INFILE stream into MySQL and MariaDB: whatever the sizes of the chunks the
encoder yields (tiny ones from the row path, blocks of a few hundred KB to several MB, exactly
one packet), the server reads the same bytes, in order, packet after packet."""

from __future__ import annotations

from typing import Any

import pymysql
import pytest

from dbjson.connect import mysql_connect_args, parse_url
from dbjson.engines.mysql import load


def _rows(first: int, n: int, width: int) -> bytes:
    return b"".join(b"%d\t%s\n" % (i, (b"%07d" % i) * (width // 7)) for i in range(first, first + n))


@pytest.mark.parametrize("engine", ["mariadb", "mysql"])
def test_chunks_of_every_size_arrive_whole(fresh_db: Any, engine: str) -> None:
    db = fresh_db(engine)
    db.execute("CREATE TABLE t (id INT PRIMARY KEY, v LONGTEXT)")
    size = load._PACKET
    chunks: list[bytes] = []
    n = 0
    # tiny chunks, a chunk of exactly one packet, a quarter packet, several packets, tiny again
    for count, width in ((50, 7), (1, 14), (200, 56), (1, 7), (0, 0), (3000, 700), (9000, 700), (20, 7), (40000, 70)):
        if count == 0:  # one row of exactly one packet
            row = _rows(n, 1, 7)
            chunks.append(row[:-1] + b"x" * (size - len(row)) + b"\n")
            count = 1
        else:
            chunks.append(_rows(n, count, width))
        n += count
    assert size in map(len, chunks) and max(map(len, chunks)) > 2 * size
    assert any(len(c) < size // 4 for c in chunks)
    load._install_hook()
    name = load._register(iter(chunks))
    conn = pymysql.connect(**mysql_connect_args(parse_url(db.url)))
    conn._dbjson_local = True  # (dbjson's own connection: the hook serves it the stream)
    try:
        with conn.cursor() as cur:
            cur.execute(f"LOAD DATA LOCAL INFILE '{name}' INTO TABLE t FIELDS TERMINATED BY '\\t' (id, v)")
            cur.execute("SELECT COUNT(*), MIN(id), MAX(id) FROM t")
            assert cur.fetchone() == (n, 0, n - 1)
            cur.execute("SELECT id, v FROM t ORDER BY id")
            got = b"".join(b"%d\t%s\n" % (i, v.encode()) for i, v in cur.fetchall())
        conn.commit()
    finally:
        conn.close()
    assert got == b"".join(chunks)
