"""``--max-rate`` (issue 17): export and import move at most the given rows or bytes per second,
all threads together, and an unlimited run is not slowed down."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from dbjson import export_database, import_database
from dbjson.errors import Cancelled, UsageError
from dbjson.ratelimit import RateLimit, parse_rate

ROWS = 40_000


@pytest.fixture
def source(tmp_path: Path) -> str:
    path = tmp_path / "src.db"
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE a (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE b (id INTEGER PRIMARY KEY, v TEXT);"
        f"WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {ROWS // 2}) "
        "INSERT INTO a SELECT g, printf('%040d', g) FROM s;"
        "INSERT INTO b SELECT * FROM a;"
    )
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def test_parse_rate() -> None:
    assert parse_rate("50000rows") == RateLimit(50000, "rows")
    assert parse_rate("50000 rows/s") == RateLimit(50000, "rows")
    assert parse_rate("20MB") == RateLimit(20 << 20, "bytes") == parse_rate("20M/s")
    assert parse_rate("512KiB") == RateLimit(512 << 10, "bytes") and parse_rate(None) is None
    for bad in ("50000", "fast", "-3rows", "0rows"):
        with pytest.raises(UsageError):
            parse_rate(bad)


def test_a_cancelled_run_stops_waiting() -> None:
    limit, stop = RateLimit(1, "rows"), threading.Event()
    stop.set()
    began = time.monotonic()
    with pytest.raises(Cancelled):
        limit.take(100, 0, stop)  # would wait 100 s
    assert time.monotonic() - began < 1


def test_export_and_import_keep_to_the_limit(source: str, tmp_path: Path) -> None:
    began = time.monotonic()
    free = export_database(source, tmp_path / "free", threads=2)
    unlimited = time.monotonic() - began
    limit = 16_000  # rows/s: the export takes about 2.5 s
    began = time.monotonic()
    report = export_database(source, tmp_path / "slow", threads=2, max_rate=f"{limit}rows")
    seconds = time.monotonic() - began
    assert report.rows == free.rows == ROWS
    rate = ROWS / seconds
    assert 0.6 * limit <= rate <= 1.1 * limit, (rate, limit)
    assert unlimited < seconds / 2  # the unlimited export is not slowed down
    size = sum(f.bytes for t in report.manifest.tables for f in t.files)
    per_second = size / 2.5  # bytes/s: the import takes about 2.5 s
    began = time.monotonic()
    loaded = import_database(
        tmp_path / "slow",
        f"sqlite:///{tmp_path / 't.db'}",
        threads=2,
        verify=False,
        max_rate=f"{per_second / 1024:.0f}KB",
    )
    data = loaded.phases["data"]
    assert loaded.rows == ROWS and 0.6 * per_second <= size / data <= 1.1 * per_second, (size / data, per_second)
    assert time.monotonic() - began >= data
