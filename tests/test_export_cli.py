"""`dbjson export` on the command line: a directory, one table to stdout, --json, errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
from chinook import load_chinook

DBJSON = [sys.executable, "-m", "dbjson"]


def run(*args: str, **kw: Any) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([*DBJSON, *args], capture_output=True, timeout=120, env=env, **kw)


def test_export_directory_json_report_and_validate(fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("sqlite")
    load_chinook(db)
    out = tmp_path / "out"
    r = run("export", db.url, "-o", str(out), "--threads", "2", "--compress", "zstd", "--json", "--exclude", "Play*")
    assert r.returncode == 0, r.stderr
    report = orjson.loads(r.stdout)
    assert report["ok"] is True and report["rows"] == 15607 - 18 - 8715
    assert {t["name"] for t in report["tables"]} == {
        "Album",
        "Artist",
        "Customer",
        "Employee",
        "Genre",
        "Invoice",
        "InvoiceLine",
        "MediaType",
        "Track",
    }
    assert run("validate", str(out / "manifest.json")).returncode == 0
    assert sorted(p.name for p in out.iterdir()) == ["data", "manifest.json", "schema.json"]


def test_export_one_table_to_stdout(fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("postgresql")
    load_chinook(db)
    r = run("export", db.url, "--table", "genre", "-o", "-", "--where", "genre:genre_id <= 3")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        b'{"genre_id":1,"name":"Rock"}',
        b'{"genre_id":2,"name":"Jazz"}',
        b'{"genre_id":3,"name":"Metal"}',
    ]


def test_quiet_plain_summary_and_chunk_size(fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("sqlite")
    load_chinook(db)
    r = run("export", db.url, "-o", str(tmp_path / "a"), "--tables", "Track", "--chunk-size", "1000")
    assert r.returncode == 0 and b"exported 3,503 rows of 1 tables" in r.stderr
    assert len(list((tmp_path / "a" / "data").iterdir())) == 4
    r = run("export", db.url, "-o", str(tmp_path / "b"), "--tables", "Track", "--quiet")
    assert r.returncode == 0 and r.stderr == b"" and r.stdout == b""


def test_usage_errors(fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("sqlite")
    load_chinook(db)
    r = run("export", db.url, "-o", "-")
    assert r.returncode == 2 and b"--table" in r.stderr and b"Traceback" not in r.stderr
    r = run("export", db.url, "-o", str(tmp_path / "x"), "--chunk-size", "lots")
    assert r.returncode == 2 and b"chunk size" in r.stderr
    r = run("export", db.url, "-o", str(tmp_path / "x"), "--compress", "rar")
    assert r.returncode == 2
    r = run("export", "postgresql://nobody:s3cret@127.0.0.1:1/none", "-o", str(tmp_path / "y"))
    assert r.returncode == 3 and b"s3cret" not in r.stderr


def test_sigusr1_prints_a_status_line(fresh_db: Any, tmp_path: Path) -> None:
    import signal
    import time

    db = fresh_db("postgresql")
    db.execute(
        "CREATE TABLE big (id int PRIMARY KEY, v text); INSERT INTO big SELECT g, repeat('x', 300) FROM generate_series(1, 400000) g;"
    )
    out = tmp_path / "out"
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [*DBJSON, "export", db.url, "-o", str(out), "--threads", "1"], stderr=subprocess.PIPE, env=env
    )
    deadline = time.monotonic() + 60
    while not list((out / "data").glob("*.partial")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGUSR1)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert b"export: " in err and b"rows/s" in err and b"0/1 tables done" in err


def test_stdout_reader_going_away_is_not_an_error(fresh_db: Any) -> None:
    db = fresh_db("sqlite")
    load_chinook(db)
    proc = subprocess.Popen(
        [*DBJSON, "export", db.url, "--table", "PlaylistTrack", "-o", "-"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdout.readline().startswith(b'{"PlaylistId":')
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and b"error" not in err
