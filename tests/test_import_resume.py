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
    dones = [i for i, line in enumerate(lines) if b'"op":"done","step":"data:' in line]
    # Two units in doubt: their rows cannot be told apart by counting.
    path.write_bytes(b"\n".join(line for i, line in enumerate(lines) if i not in dones[-2:]) + b"\n")
    from dbjson.errors import DataError

    with pytest.raises(DataError, match="cannot tell"):
        import_database(export, target.url, data_only=True, resume=True)
    assert target.query("SELECT COUNT(*) FROM items WHERE name LIKE 'mine%'")[0][0] == 2
