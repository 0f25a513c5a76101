"""--progress json (the library's events, one JSON object per line), --log-file, -v, and the
SIGUSR1 status line of schema-load; no password in any of them."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

import dbjson

DBJSON = [sys.executable, "-m", "dbjson"]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([*DBJSON, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def test_progress_json_writes_the_library_events(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "src.db") as c:
        c.executescript("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b');")
    res = _run("--progress", "json", "export", "sqlite:///src.db", "-o", "out", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    lines = [orjson.loads(line) for line in res.stderr.splitlines()]  # every line is one JSON object
    names = [e["event"] for e in lines]
    seen: list[Any] = []
    dbjson.export_database(f"sqlite:///{tmp_path / 'src.db'}", tmp_path / "out2", on_event=seen.append)
    assert sorted(set(names)) == sorted({type(e).__name__ for e in seen})
    assert names[-1] == "Finished" and lines[-1]["report"]["rows"] == 2
    assert {"operation": "export", "event": "TableFinished", "table": "main.t", "rows": 2}.items() <= next(
        e for e in lines if e["event"] == "TableFinished"
    ).items()
    res = _run("--progress", "json", "import", "out", "sqlite:///dst.db", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    names = [orjson.loads(line)["event"] for line in res.stderr.splitlines()]
    assert "PhaseStarted" in names and "TableVerified" in names and names[-1] == "Finished"
    res = _run("--progress", "json", "import", "nope", "sqlite:///dst.db", cwd=tmp_path)
    error = orjson.loads(res.stderr.splitlines()[0])
    assert res.returncode == 2 and error["event"] == "Error" and error["exit_code"] == 2


@pytest.mark.postgresql
def test_log_file_and_verbose_hold_no_password(fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("postgresql")
    db.execute("CREATE TABLE t (id integer PRIMARY KEY); INSERT INTO t VALUES (1), (2);")
    url = db.url.replace("postgres@", "postgres:Sekrit-pw-42@")  # trust: the password is not checked
    log = tmp_path / "run.log"
    res = _run("--log-file", str(log), "-v", "export", url, "-o", "out", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    text = log.read_text()
    assert "start: dbjson --log-file" in text and "TableFinished table=public.t rows=2" in text
    assert "TableFinished table=public.t" in res.stderr  # -v
    res = _run("--log-file", str(log), "export", url.replace("5432", "1"), "-o", "out2", cwd=tmp_path)
    assert res.returncode == 3
    text = log.read_text()
    assert "error (exit 3): cannot connect" in text
    assert "Sekrit" not in text and "Sekrit" not in res.stderr


@pytest.mark.postgresql
def test_schema_load_answers_sigusr1(fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("postgresql")
    db.execute("CREATE TABLE t (id integer PRIMARY KEY)")
    doc = tmp_path / "s.json"
    doc.write_text(dbjson.reflect(db.url).to_json())
    blocker = db.connect()
    blocker.execute("BEGIN")
    blocker.execute("LOCK TABLE t IN ACCESS EXCLUSIVE MODE")  # the load's DROP TABLE waits for it
    proc = subprocess.Popen(
        [*DBJSON, "schema-load", str(doc), "--to", db.url, "--if-exists", "replace"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until the load waits on the lock
            waiting = db.query("SELECT count(*) FROM pg_locks WHERE NOT granted")[0][0]
            if waiting:
                break
            time.sleep(0.1)
        proc.send_signal(signal.SIGUSR1)
        time.sleep(0.5)
    finally:
        threading.Timer(0.1, blocker.rollback).start()
    _, err = proc.communicate(timeout=60)
    blocker.close()
    assert proc.returncode == 0, err
    assert "dbjson schema-load: translating 1 table(s) and applying the DDL" in err
