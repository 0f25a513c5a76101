"""A table's units where a unit's uncommitted rows lock its table (``unit_locks_table``: MariaDB's
bulk insert into an empty InnoDB table): the table's other units wait, without a thread or a lock
wait, until one has committed; meanwhile the threads load other tables' units."""

from __future__ import annotations

import importlib
import threading
import time
from pathlib import Path
from typing import Any, cast

import pytest
from conftest import hold_back_preflight

from dbjson import migrate
from dbjson.events import Retry
from dbjson.importer.session import Job, TargetSession


def _session(threads: int) -> TargetSession:
    return TargetSession(cast(Any, None), cast(Any, None), threads=threads, data_only=False)


def test_jobs_with_one_key_wait_for_its_release() -> None:
    s = _session(2)
    lock = threading.Lock()
    log: list[str] = []
    released = threading.Event()
    second_began = threading.Event()

    def note(name: str, what: str) -> None:
        with lock:
            log.append(f"{name}:{what}")

    def first() -> None:
        note("t1", "start")
        time.sleep(0.3)  # (meanwhile t2 may not start; u may)
        with lock:
            assert "t2:start" not in log and "u:start" in log, log
        released.set()
        s.release_key("t")  # committed: the table's other units may load beside this one
        assert second_began.wait(5), "t2 did not start after the release"
        note("t1", "end")

    def second() -> None:
        assert released.is_set()
        second_began.set()
        note("t2", "start")
        note("t2", "end")

    def other() -> None:
        note("u", "start")
        time.sleep(0.1)
        note("u", "end")

    began = time.monotonic()
    s.run_parallel([Job(3, first, "t"), Job(2, second, "t"), Job(1, other)], 2)
    assert time.monotonic() - began < 3
    assert log.index("u:start") < log.index("t2:start"), log  # the smaller job went first
    assert log.index("t2:start") < log.index("t1:end"), log  # after the release, side by side


def test_a_key_is_free_again_when_its_job_ends_without_a_release() -> None:
    s = _session(2)
    log: list[str] = []
    cpu = time.process_time()

    def job(name: str, pause: float) -> Any:
        def go() -> None:
            log.append(f"{name}+")
            time.sleep(pause)
            log.append(f"{name}-")

        return go

    s.run_parallel([Job(3, job("a", 0.5), "t"), Job(2, job("b", 0.0), "t")], 2)
    assert log == ["a+", "a-", "b+", "b-"]
    assert time.process_time() - cpu < 0.3  # the free thread waited without spinning


PG_SOURCE = r"""
CREATE TABLE visits (id int PRIMARY KEY, page text, at timestamp);
INSERT INTO visits SELECT g, 'page ' || g, timestamp '2024-01-01' + g * interval '1 minute'
  FROM generate_series(1, 300) g;
CREATE TABLE pages (id int PRIMARY KEY, title text);
INSERT INTO pages SELECT g, 'title ' || g FROM generate_series(1, 200) g;
"""


def test_a_long_preflight_does_not_time_out_a_tables_second_unit(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL → MariaDB: each table moves in four units, and the first unit of a table waits,
    loaded and uncommitted, for the pre-flight (here 6 s). Its table's next units used to start
    beside it and wait for its lock: ``Lock wait timeout exceeded`` every second (the lock wait of
    a 3 s retry budget), retried, and failed once the wait outlasted the budget. Now they start
    after its commit, and the move completes without a retry."""
    monkeypatch.setattr(importlib.import_module("dbjson.export"), "SPLIT_MIN_ROWS", 2)
    hold_back_preflight(monkeypatch, 3.0)  # each of the two tables
    src = fresh_db("postgresql")
    src.execute(PG_SOURCE)
    dst = fresh_db("mariadb")
    retries: list[str] = []
    report = migrate(
        src.url,
        dst.url,
        threads=2,
        state_dir=tmp_path / "state",
        retry_budget=3,
        on_event=lambda e: retries.append(str(e)) if isinstance(e, Retry) else None,
    )
    assert report.load.verify is not None and report.load.verify.ok
    assert dst.query("SELECT count(*) FROM visits")[0][0] == 300
    assert dst.query("SELECT count(*) FROM pages")[0][0] == 200
    assert not retries, retries
