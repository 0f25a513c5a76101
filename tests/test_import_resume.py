"""Crash and interrupt safety: kill -9 halfway, then --resume loads exactly what is missing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

from dbjson.format.journal import Journal, journal_path
from dbjson.importer import import_database

ROWS = 60_000
CHUNKS = 30


def _done_units(export: Path) -> int:
    journals = list(export.glob(".dbjson-import-*.journal"))
    if not journals:
        return 0
    return sum(1 for line in journals[0].read_bytes().splitlines() if line.startswith(b'{"op":"done","step":"data:'))


def _unit_ids(export: Path, step: str) -> list[int]:
    """The ids of the rows of the unit ``step`` (``data:<file>``)."""
    return [orjson.loads(line)["id"] for line in (export / step.removeprefix("data:")).read_bytes().splitlines()]


def _start(export: Path, url: str, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dbjson",
            "import",
            str(export),
            url,
            "--data-only",
            "--threads",
            "2",
            "--quiet",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _wait_for_units(proc: subprocess.Popen[bytes], export: Path, n: int) -> None:
    deadline = time.monotonic() + 60
    while _done_units(export) < n:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the import made no progress"
        time.sleep(0.01)


@pytest.mark.parametrize("engine", ["postgresql", "mysql"])
def test_kill_9_then_resume(engine: str, fresh_db: Any, tmp_path: Path) -> None:
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(ROWS)}, chunks=CHUNKS)
    target = target_with(fresh_db, engine, ITEMS_DDL)
    proc = _start(export, target.url)
    _wait_for_units(proc, export, 4)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    done = _done_units(export)
    assert 4 <= done < CHUNKS, "killed too late to test anything"
    partial = target.query("SELECT COUNT(*) FROM items")[0][0]
    assert partial < ROWS + 1
    report = import_database(export, target.url, data_only=True, threads=2, resume=True)
    assert report.resumed_units >= done
    assert report.verify.ok
    assert target.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items")[0] == (ROWS + 1, ROWS + 1)


def test_ambiguous_unit_is_resolved_from_the_target(fresh_db: Any, tmp_path: Path) -> None:
    """A unit that committed but whose 'done' record never reached the journal is not loaded twice."""
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(100)}, chunks=4)
    target = target_with(fresh_db, "sqlite", ITEMS_DDL)
    import_database(export, target.url, data_only=True)
    path = journal_path(export, f"sqlite:{os.path.abspath(target.path)}")
    lines = path.read_bytes().splitlines()
    # Drop the last 'done' record: the journal now says that unit began but maybe did not commit.
    last_done = max(i for i, line in enumerate(lines) if b'"op":"done","step":"data:' in line)
    path.write_bytes(b"\n".join(lines[:last_done] + lines[last_done + 1 :]) + b"\n")
    state = Journal(path).read()
    assert len(state.ambiguous) == 1
    report = import_database(export, target.url, data_only=True, resume=True)
    assert report.verify.ok
    assert target.query("SELECT COUNT(*) FROM items")[0][0] == 101
    # The same when the unit had in fact been rolled back: it is loaded again.
    step = next(iter(state.ambiguous))
    rec = orjson.loads(next(line for line in lines if b'"op":"done"' in line and step.encode() in line))
    target.execute(f"DELETE FROM items WHERE id IN (SELECT id FROM items ORDER BY id DESC LIMIT {rec['rows']})")
    path.write_bytes(b"\n".join(lines[:last_done] + lines[last_done + 1 :]) + b"\n")
    report = import_database(export, target.url, data_only=True, resume=True)
    assert report.verify.ok


def test_sigterm_stops_promptly_and_resume_finishes(fresh_db: Any, tmp_path: Path) -> None:
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(ROWS)}, chunks=CHUNKS)
    target = target_with(fresh_db, "postgresql", ITEMS_DDL)
    proc = _start(export, target.url)
    _wait_for_units(proc, export, 2)
    # Block the remaining units on a lock: the import must still stop promptly (statements cancelled).
    locker = target.connect()
    locker.execute("BEGIN")
    locker.execute("LOCK TABLE items IN ACCESS EXCLUSIVE MODE")
    try:
        time.sleep(0.3)
        assert proc.poll() is None, "the import finished before it could be interrupted"
        os.kill(proc.pid, signal.SIGUSR1)
        time.sleep(0.2)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=15)
        assert time.monotonic() - t0 < 10
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert proc.returncode == 130, err.decode()
    assert b"Traceback" not in err and b"units" in err  # the SIGUSR1 status line
    report = import_database(export, target.url, data_only=True, threads=2, resume=True)
    assert report.verify.ok
    assert target.query("SELECT COUNT(*) FROM items")[0][0] == ROWS + 1


def test_resume_never_empties_rows_that_were_there_before(fresh_db: Any, tmp_path: Path) -> None:
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(100, start=1000)}, chunks=4)
    target = target_with(fresh_db, "sqlite", ITEMS_DDL)
    target.execute("INSERT INTO items (id, name) VALUES (1, 'mine'), (2, 'mine too')")
    import_database(export, target.url, data_only=True)
    path = journal_path(export, f"sqlite:{os.path.abspath(target.path)}")
    lines = path.read_bytes().splitlines()
    dones = {orjson.loads(line)["step"]: i for i, line in enumerate(lines) if b'"op":"done","step":"data:' in line}
    # Two units of equal size in doubt, one of which committed: their rows cannot be told apart
    # by counting.
    kept, rolled_back = sorted(dones)[:2]
    path.write_bytes(
        b"\n".join(line for i, line in enumerate(lines) if i not in {dones[kept], dones[rolled_back]}) + b"\n"
    )
    assert len(_unit_ids(export, kept)) == len(_unit_ids(export, rolled_back)) == 26
    target.execute(f"DELETE FROM items WHERE id IN ({', '.join(map(str, _unit_ids(export, rolled_back)))})")
    from dbjson.errors import DataError

    with pytest.raises(DataError, match="cannot tell"):
        import_database(export, target.url, data_only=True, resume=True)
    assert target.query("SELECT COUNT(*) FROM items WHERE name LIKE 'mine%'")[0][0] == 2


def test_units_in_doubt_of_different_sizes_are_told_apart(fresh_db: Any, tmp_path: Path) -> None:
    """Units in doubt whose sizes add up differently are decided from the row count alone: none is
    loaded twice, none is emptied to be loaded again."""
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(101)}, chunks=4)
    target = target_with(fresh_db, "sqlite", ITEMS_DDL)
    import_database(export, target.url, data_only=True, threads=2)
    path = journal_path(export, f"sqlite:{os.path.abspath(target.path)}")
    lines = path.read_bytes().splitlines()
    dones = {orjson.loads(line)["step"]: i for i, line in enumerate(lines) if b'"op":"done","step":"data:' in line}
    sizes = {step: orjson.loads(lines[i])["rows"] for step, i in dones.items()}
    assert sorted(sizes.values()) == [24, 26, 26, 26]
    small = next(step for step, rows in sizes.items() if rows == 24)
    large = next(step for step, rows in sizes.items() if rows == 26)
    doubt = {dones[small], dones[large]}
    path.write_bytes(b"\n".join(line for i, line in enumerate(lines) if i not in doubt) + b"\n")
    assert Journal(path).read().ambiguous == {small, large}
    # Both committed: the target has 50 rows more than the finished units, only the pair adds up.
    report = import_database(export, target.url, data_only=True, resume=True)
    assert report.verify.ok and report.resumed_units == 4
    assert target.query("SELECT COUNT(*) FROM items")[0][0] == 102
    # One committed (the larger): 26 more rows; only the larger unit adds up, the smaller loads again.
    target.execute(f"DELETE FROM items WHERE id IN ({', '.join(map(str, _unit_ids(export, small)))})")
    path.write_bytes(b"\n".join(line for i, line in enumerate(lines) if i not in doubt) + b"\n")
    report = import_database(export, target.url, data_only=True, resume=True)
    assert report.verify.ok and report.resumed_units == 3
    assert target.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items")[0] == (102, 102)


@pytest.mark.parametrize("threads", [4])
def test_at_most_one_unit_is_between_begin_and_done(engine: str, fresh_db: Any, tmp_path: Path, threads: int) -> None:
    """Units commit one at a time between their journal's 'begin' and 'done' records: a crash
    leaves at most one unit in doubt, which the row counts always decide."""
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(4_000)}, chunks=16)
    target = target_with(fresh_db, engine, ITEMS_DDL)
    proc = _start(export, target.url, "--threads", str(threads))
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode() if proc.stderr else ""
    journals = list(export.glob(".dbjson-import-*.journal"))
    open_steps: set[str] = set()
    begun = 0
    for line in journals[0].read_bytes().splitlines():
        rec = orjson.loads(line)
        if not str(rec.get("step", "")).startswith("data:"):
            continue
        if rec["op"] == "begin":
            assert not open_steps, f"{rec['step']} began while {open_steps} had not finished"
            open_steps.add(rec["step"])
            begun += 1
            assert engine == "sqlite" or rec.get("session"), "the committing session is journalled"
        elif rec["op"] == "done":
            open_steps.discard(rec["step"])
    assert begun == 16 and not open_steps


def test_sessions_still_committing_are_busy(server_engine: str, fresh_db: Any) -> None:
    """``load_sessions_busy``: a session in a transaction (its COMMIT may be on its way) is busy, an
    idle or ended one is not, and hostile ids from a journal are ignored."""
    from dbjson.engines import get_engine
    from dbjson.importer.session import connect_target

    db = fresh_db(server_engine)
    db.execute("CREATE TABLE t (a int)")
    eng = get_engine(server_engine)
    target = connect_target(db.url)[0]
    watcher, worker = eng.load_connect(target), eng.load_connect(target)
    try:
        me = eng.load_session(worker)
        assert me and me.isdigit()
        assert eng.load_sessions_busy(watcher, [me]) == []
        eng.load_begin(worker)
        eng.load_execute_ddl(worker, "INSERT INTO t VALUES (1)")
        assert eng.load_sessions_busy(watcher, [me, "1; DROP TABLE t", "-1", "9" * 40]) == [me]
        eng.load_commit(worker)
        assert eng.load_sessions_busy(watcher, [me]) == []
        assert eng.load_sessions_busy(watcher, [me]) == []  # and again (MySQL: not a stale copy)
        assert eng.load_sessions_busy(watcher, [eng.load_session(watcher) or ""]) == []  # never itself
    finally:
        eng.load_disconnect(watcher)
        eng.load_disconnect(worker)
