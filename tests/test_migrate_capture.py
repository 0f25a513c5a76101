"""`dbjson migrate`'s pre-flight from the load's own stream (``dbjson.migrate._Capture``).

While a concurrent pre-flight runs, the units load and wait to commit. For a table whose checks
all have a byte test, each unit's stream keeps the lines the test cannot clear, and the pre-flight
parses those instead of reading the table from the source a second time. The findings must be
the same as those of the line-based pre-flight of an export; a capture that cannot stand in
(budget outgrown, stream cut short, unit not begun while every load waits) falls back to reading
the source, never to a pre-flight that misses a value.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import migrate_and_files_findings, preflight_findings

from dbjson.format.linefilter import LineFilter
from dbjson.importer import Importer
from dbjson.migrate import migrate

mig = importlib.import_module("dbjson.migrate")

# NUL characters and zero dates (checks with a byte test) in several units of each table, none in
# the first rows; `plain` has nothing to find.
SOURCE = r"""
SET SESSION sql_mode = '';
CREATE TABLE notes (id INT PRIMARY KEY, title VARCHAR(20), body TEXT, d DATE);
INSERT INTO notes VALUES
 (1, 'fine', 'fine', '2024-01-02'), (2, 'ok', 'ok', '2024-01-03'), (3, 'ok', 'ok', NULL),
 (4, CONCAT('a', CHAR(0), 'b'), 'ok', '2024-01-02'), (5, 'x', CONCAT('n', CHAR(0)), '0000-00-00'),
 (6, 'y', 'ok', '2024-00-10'), (7, CONCAT(CHAR(0), 'again'), 'ok', '2024-01-02');
CREATE TABLE zeros (id BIGINT PRIMARY KEY, d DATE);
INSERT INTO zeros VALUES (10, '2024-01-01'), (20, '2024-01-02'), (30, '2024-02-00'), (40, '0000-00-00');
CREATE TABLE plain (id INT PRIMARY KEY, v VARCHAR(10), d DATE);
INSERT INTO plain VALUES (1, 'x', '2024-01-01'), (2, 'y', NULL), (3, 'z', '2024-03-04');
"""
CLEAN = r"""
CREATE TABLE events (id INT PRIMARY KEY, title VARCHAR(40), body TEXT, at DATETIME, d DATE);
INSERT INTO events SELECT seq, CONCAT('t', seq), REPEAT('body ', seq % 7), '2024-01-02 03:04:05', '2024-05-06'
  FROM seq_1_to_400;
"""


@pytest.fixture
def captures_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables split into several units, and every table's units captured whatever its size."""
    monkeypatch.setattr(importlib.import_module("dbjson.export"), "SPLIT_MIN_ROWS", 2)
    monkeypatch.setattr(mig, "CAPTURE_MIN_BYTES", 0)


def _spy(monkeypatch: pytest.MonkeyPatch, reads: list[str], taken: list[tuple[str, bool]]) -> Any:
    """Record the units the pre-flight reads from the source (on any snapshot connections) and
    the captures it takes (rel, whether the capture stood in); returns the importer hook."""
    real_open = mig._Source.open

    def opening(self: Any, f: Any, keep: bool, columns: Any = None, where: Any = None, capture: Any = None) -> Any:
        if columns is not None or where is not None:
            reads.append(f.rel)
        return real_open(self, f, keep, columns, where, capture)

    monkeypatch.setattr(mig._Source, "open", opening)

    def hook(imp: Importer) -> None:
        real_capture = imp._preflight_capture  # type: ignore[attr-defined]

        def capturing(f: Any) -> Any:
            fh = real_capture(f)
            if f.rel in imp._captures:  # type: ignore[attr-defined]
                taken.append((f.rel, fh is not None))
            return fh

        imp._preflight_capture = capturing  # type: ignore[attr-defined]

    return hook


@pytest.mark.parametrize("source_engine", ["mariadb", "mysql"])
def test_the_loads_stream_stands_in_for_the_preflights_read(
    fresh_db: Any, tmp_path: Path, source_engine: str, captures_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = fresh_db(source_engine)
    src.execute(SOURCE)
    dst = fresh_db("postgresql")
    reads: list[str] = []
    taken: list[tuple[str, bool]] = []
    hook = _spy(monkeypatch, reads, taken)
    live, live_err, files, files_err, _out = migrate_and_files_findings(fresh_db, src, tmp_path, hook, dst.url)
    assert live_err is not None and files_err is not None
    assert live == files and len(live) >= 4, (live, files)
    assert str(live_err).split(";")[0] == str(files_err).split(";")[0]
    for expected in ("column title: a NUL character", "example 'a\\x00b'", "column d: zero date", "zeros, column d"):
        assert expected in "\n".join(live), (expected, live)
    # the units' streams stood in: the pre-flight read none of those units from the source
    stood_in = {rel for rel, ok in taken if ok}
    assert stood_in, taken
    assert not stood_in & set(reads), (stood_in, reads)
    assert len([rel for rel in stood_in if ".notes." in rel]) > 1  # (notes was split, each unit captured)
    for table in ("notes", "zeros", "plain"):  # and, the pre-flight having failed, nothing committed
        assert dst.query(f"SELECT count(*) FROM public.{table}")[0][0] == 0, table


def test_a_clean_migration_reads_the_source_once(
    fresh_db: Any, tmp_path: Path, captures_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = fresh_db("mariadb")
    src.execute(CLEAN)
    dst = fresh_db("postgresql")
    reads: list[str] = []
    taken: list[tuple[str, bool]] = []
    report = migrate(
        src.url, dst.url, threads=2, state_dir=tmp_path / "state", importer_hook=_spy(monkeypatch, reads, taken)
    )
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify
    want = [int(v) for v in src.query("SELECT count(*), sum(length(body)) FROM events")[0]]
    assert [int(v) for v in dst.query("SELECT count(*), sum(length(body)) FROM public.events")[0]] == want
    assert taken and all(ok for _rel, ok in taken), taken
    assert not reads, reads  # no unit read again for the pre-flight


def test_a_capture_over_budget_reads_the_source(
    fresh_db: Any, tmp_path: Path, captures_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no room for the kept lines, each capture holding one gives up: the pre-flight reads
    those units from the source and finds the same problems."""
    monkeypatch.setattr(mig, "CAPTURE_BYTES", 8)
    src = fresh_db("mariadb")
    src.execute(SOURCE)
    reads: list[str] = []
    taken: list[tuple[str, bool]] = []
    live, live_err = preflight_findings(
        lambda ev: migrate(
            src.url,
            fresh_db("postgresql").url,
            threads=2,
            state_dir=tmp_path / "state",
            on_event=ev,
            importer_hook=_spy(monkeypatch, reads, taken),
        )
    )
    assert live_err is not None and "column title: a NUL character" in "\n".join(live)
    gave_up = {rel for rel, ok in taken if not ok}
    assert gave_up and gave_up <= set(reads), (gave_up, reads)


# -- the capture itself ------------------------------------------------------------------------

NUL_LINE = b'{"id":2,"t":"a\\u0000b"}'
BLOCK = b'{"id":1,"t":"x"}\n' + NUL_LINE + b'\n{"id":3,"t":"y"}\n'


def _capture(budget: int = 1 << 20) -> Any:
    return mig._Capture(LineFilter(nul=True), mig._Budget(budget))


def test_a_capture_keeps_the_lines_its_test_cannot_clear() -> None:
    cap = _capture()
    cap.begin()
    cap.feed(BLOCK)
    cap.feed(b'{"id":4,"t":"z"}\n')
    got: list[Any] = []
    taker = threading.Thread(target=lambda: got.append(cap.take(lambda: 0.0, lambda: False)))
    taker.start()
    time.sleep(0.2)
    assert taker.is_alive()  # the stream has not ended: the pre-flight waits for it
    cap.end(complete=True)
    taker.join(5)
    assert got == [NUL_LINE + b"\n"]
    assert cap.budget.left == 1 << 20  # given back once taken


def test_a_capture_that_cannot_stand_in_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mig, "CAPTURE_IDLE_SECONDS", 0.1)
    cut = _capture()
    cut.begin()
    cut.feed(BLOCK)
    cut.end(complete=False)  # the stream failed before its last row
    assert cut.take(lambda: 0.0, lambda: False) is None
    over = _capture(budget=10)
    over.begin()
    over.feed(BLOCK)  # more than the budget: lost
    over.end(complete=True)
    assert over.take(lambda: 0.0, lambda: False) is None and over.budget.left == 10
    never = _capture()  # not begun while every load has waited for the pre-flight long enough
    assert never.take(lambda: 0.1, lambda: False) is None
    waited = _capture()  # ...and while they have not, it waits for the unit to begin and end
    clock = [0.0]
    got: list[Any] = []
    taker = threading.Thread(target=lambda: got.append(waited.take(lambda: clock[0], lambda: False)))
    taker.start()
    time.sleep(0.2)
    assert taker.is_alive()
    waited.begin()
    time.sleep(0.1)
    assert taker.is_alive()  # streaming
    waited.feed(BLOCK)
    waited.end(complete=True)
    taker.join(5)
    assert got == [NUL_LINE + b"\n"]
    stalled = _capture()  # begun, but its load waits for the pre-flight too (no progress)
    stalled.begin()
    assert stalled.take(lambda: 0.1, lambda: False) is None
    stopped = _capture()
    stopped.begin()
    assert stopped.take(lambda: 0.0, lambda: True) is None  # the run stops


def test_a_retried_stream_captures_again() -> None:
    cap = _capture()
    cap.begin()
    cap.feed(BLOCK)
    cap.end(complete=False)  # the first attempt failed...
    cap.begin()  # ...the retry reads the unit again
    cap.feed(BLOCK)
    cap.end(complete=True)
    cap.begin()  # a later read of the same rows (loaded again) changes nothing
    cap.feed(b'{"id":9,"t":"\\u0000"}\n')
    assert cap.take(lambda: 0.0, lambda: False) == NUL_LINE + b"\n"


PG_SOURCE = r"""
CREATE TABLE visits (id int PRIMARY KEY, page text, at timestamp);
INSERT INTO visits SELECT g, 'page ' || g, timestamp '2024-01-01' + g * interval '1 minute'
  FROM generate_series(1, 300) g;
"""


@pytest.mark.parametrize("locks", [True, False])
def test_units_that_wait_for_each_others_locks_do_not_stall_the_preflight(
    fresh_db: Any, tmp_path: Path, captures_on: None, monkeypatch: pytest.MonkeyPatch, locks: bool
) -> None:
    """Into MariaDB a unit's bulk insert into an empty table locks the table until it commits, so
    the table's next unit waits for it, after the pre-flight: that unit's stream cannot stand in
    for the pre-flight's read. Such tables are not captured (``unit_locks_table``); and were they
    (``locks=False`` pretends otherwise), the pre-flight stops waiting for a stream that reads
    nothing (CAPTURE_STALL_SECONDS) and reads the unit from the source: the move completes."""
    monkeypatch.setattr(mig, "CAPTURE_STALL_SECONDS", 1.0)
    src = fresh_db("postgresql")
    src.execute(PG_SOURCE)
    dst = fresh_db("mariadb")
    if not locks:
        from dbjson.engines import get_engine

        engine = type(get_engine("mariadb"))
        monkeypatch.setattr(engine, "capabilities", dataclasses.replace(engine.capabilities, unit_locks_table=False))
    reads: list[str] = []
    taken: list[tuple[str, bool]] = []
    t0 = time.monotonic()
    report = migrate(
        src.url,
        dst.url,
        threads=2,
        state_dir=tmp_path / "state",
        retry_budget=5,
        importer_hook=_spy(monkeypatch, reads, taken),
    )
    assert time.monotonic() - t0 < 30
    assert report.load.verify is not None and report.load.verify.ok
    assert dst.query("SELECT count(*) FROM visits")[0][0] == 300
    if locks:
        assert not taken, taken  # (every table of this one has several units)
    else:
        assert any(not ok for _rel, ok in taken), taken  # a stalled one was read from the source
