"""``dbjson._cpgcopy``: COPY TO STDOUT rows read a block at a time in C (through the libpq that
psycopg loaded) give exactly the bytes of the export's pure-Python reader (psycopg's per-row
``get_copy_data``), report the end and a failure the same way, and leave the connection usable."""

from __future__ import annotations

import os
import select
from typing import Any

import pytest

from dbjson import speedups
from dbjson.engines.postgresql.copyread import block_reader
from dbjson.engines.postgresql.export import _rows_reader

pytestmark = pytest.mark.postgresql


def _reader(pg: Any) -> Any:
    read = block_reader(pg)
    if read is None:
        if os.environ.get("CI") == "true":
            pytest.fail("dbjson._cpgcopy is not usable here (not built, or libpq not found); CI must test it")
        pytest.skip("dbjson._cpgcopy is not usable here")
    return read


def _copy(conn: Any, sql: str, use_c: bool, block: int = 1 << 16) -> tuple[bytes, Any]:
    from psycopg import pq

    pg = conn.pgconn
    pg.send_query(sql.encode())
    started = pg.get_result()
    assert started.status == pq.ExecStatus.COPY_OUT
    # the C reader against the export's pure-Python one (psycopg's get_copy_data, a row per call)
    read = _reader(pg) if use_c else _rows_reader(pg)
    out = bytearray()
    while True:
        status, data = read(block)
        assert status in (1, 0, -1, -2)
        out += data
        if status == 0:
            select.select([pg.socket], [], [])
            pg.consume_input()
            continue
        if status < 0:
            break
    final = pg.get_result()
    while pg.get_result() is not None:
        pass
    return bytes(out), final


@pytest.fixture
def pg(fresh_db: Any) -> Any:
    import psycopg

    db = fresh_db("postgresql")
    conn = psycopg.connect(db.url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)
    yield conn
    conn.close()


@pytest.mark.parametrize("block", [1, 100, 1 << 16, 1 << 22])
def test_same_bytes_as_the_per_row_loop(pg: Any, block: int) -> None:
    sql = (
        "COPY (SELECT i, repeat(chr(65 + i % 26), i % 300), E'tab\\there\\nnew' || i, NULL::int "
        "FROM generate_series(1, 20000) i) TO STDOUT"
    )
    python, p_final = _copy(pg, sql, use_c=False)
    c, c_final = _copy(pg, sql, use_c=True, block=block)
    assert c == python and len(c.splitlines()) == 20000
    assert p_final.status == c_final.status
    assert pg.execute("SELECT 42").fetchone() == (42,)  # the connection is usable afterwards


def test_a_failing_copy_reports_the_error(pg: Any) -> None:
    from psycopg import pq

    sql = "COPY (SELECT 1 / (i - 30000) FROM generate_series(1, 40000) i) TO STDOUT"
    data, final = _copy(pg, sql, use_c=True)
    assert final.status == pq.ExecStatus.FATAL_ERROR and b"division by zero" in final.error_message
    assert all(line for line in data.split(b"\n")[:-1])  # whole rows only
    assert pg.execute("SELECT 1").fetchone() == (1,)


def test_off_when_speedups_are_disabled(pg: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")
    assert block_reader(pg.pgconn) is None
    monkeypatch.delenv("DBJSON_NO_SPEEDUPS")
    assert (block_reader(pg.pgconn) is None) == (speedups.load("_cpgcopy") is None)
