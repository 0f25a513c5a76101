"""The disk filling up under `dbjson import` (SQLite target) and `dbjson export` (output directory):
a clean error (no traceback, a non-zero exit code), nothing that looks complete, and after space is
freed a resumed import / a rerun export that verifies. Needs root (``mount -t tmpfs``); skipped otherwise.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import faultlib as fl
import orjson
import pytest
from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export


def _mount(path: Path, size: str) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True, capture_output=True)


@pytest.fixture
def tiny(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs (grown later with :func:`_grow`), unmounted afterwards."""
    path = tmp_path / "tiny"
    path.mkdir()
    try:
        _mount(path, "1m")
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        pytest.skip(f"cannot mount a tmpfs here: {e}")
    yield path
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _grow(path: Path) -> None:
    subprocess.run(["mount", "-o", "remount,size=64m", str(path)], check=True, capture_output=True)


def _clean_failure(run: subprocess.CompletedProcess[str]) -> None:
    assert run.returncode == 6, f"exit {run.returncode}: {run.stderr}"  # DataError (1 would be 'internal error')
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert "no space" in run.stderr.lower() or "full" in run.stderr.lower(), run.stderr


def _blames_the_server_not_the_data(stderr: str, table: str) -> None:
    """The error says the target ran out of space writing ``table``; no data file line is blamed
    and no unit was loaded row by row to look for a bad row."""
    assert "out of resources while writing" in stderr and table in stderr, stderr
    assert not re.search(r"\.jsonl(\.zst)?:\d+", stderr), stderr
    assert "row by row" not in stderr, stderr


def test_sqlite_import_into_a_full_disk_then_resume(tiny: Path, tmp_path: Path) -> None:
    n = 20000
    export = make_export(tmp_path / "export", database(ITEMS), {"items": item_rows(n)}, chunks=8)
    url = f"sqlite:///{tiny / 'target.db'}"
    run = fl.dbjson("import", str(export), url, "--quiet")
    _clean_failure(run)
    _blames_the_server_not_the_data(run.stderr, "items")
    _grow(tiny)
    resume = fl.dbjson("import", str(export), url, "--resume", "--quiet")
    assert resume.returncode == 0, resume.stderr
    check = fl.dbjson("verify", str(export), url)
    assert check.returncode == 0, check.stdout + check.stderr
    import sqlite3

    con = sqlite3.connect(tiny / "target.db")
    try:
        assert con.execute("SELECT COUNT(*), COUNT(DISTINCT id) FROM items").fetchone() == (n + 1, n + 1)
    finally:
        con.close()
    fl.record("disk full under an SQLite import (tmpfs), --resume", "sqlite", 1, 1, 0, 0, exit_code=run.returncode)


def test_export_into_a_full_disk_then_rerun(tiny: Path, tmp_path: Path, fresh_db: Any) -> None:
    src = fresh_db("postgresql")
    fl.fill_source(src, {"customers": 3000, "orders": 8000, "events": 5000})
    out = tiny / "out"
    run = fl.dbjson("export", src.url, "-o", str(out), "--threads", "2", "--chunk-size", "1000", "--quiet")
    _clean_failure(run)
    assert f"the disk holding {out} is full" in run.stderr, run.stderr  # the cause, where
    assert not (out / "manifest.json").exists()
    for p in (out / "data").glob("*.jsonl"):  # finished files are whole; the torn one is still .partial
        data = p.read_bytes()
        assert data.endswith(b"\n")
        for line in data.splitlines():
            orjson.loads(line)
    _grow(tiny)
    again = fl.dbjson("export", src.url, "-o", str(out), "--threads", "2", "--chunk-size", "1000", "--quiet")
    assert again.returncode == 0, again.stderr
    assert not list(out.rglob("*.partial"))
    target = fresh_db("postgresql")
    imp = fl.dbjson("import", str(out), target.url, "--quiet")
    assert imp.returncode == 0, imp.stderr
    assert fl.table_fingerprint(target) == fl.table_fingerprint(src)
    fl.record("disk full under an export (tmpfs), rerun", "postgresql", 1, 1, 0, 0, exit_code=run.returncode)


def test_postgresql_import_into_a_full_tablespace_then_resume(tmp_path: Path) -> None:
    """A private PostgreSQL whose target table lives in a tablespace on the 1 MB tmpfs: the load
    fills it. The error names the server's cause (could not extend the table's file: no space) and
    the table, exit code 6 with the --resume hint, no line of a data file blamed; once there is
    space, --resume finishes."""
    from test_faults_restart import start_private_pg

    pg = start_private_pg()
    tiny = pg.dir / "tiny"  # (where the postgres user can reach it)
    tiny.mkdir()
    try:
        try:
            _mount(tiny, "1m")
        except (subprocess.CalledProcessError, FileNotFoundError) as e:
            pytest.skip(f"cannot mount a tmpfs here: {e}")
        shutil.chown(tiny, "postgres", "postgres")
        pg.execute(f"CREATE TABLESPACE tiny LOCATION '{tiny}'")
        pg.execute("CREATE DATABASE target")
        pg.execute(ITEMS_DDL["postgresql"] + " TABLESPACE tiny", db="target")
        n = 20000
        export = make_export(tmp_path / "export", database(ITEMS), {"items": item_rows(n)}, chunks=4)
        url = pg.url("target")
        run = fl.dbjson("import", str(export), url, "--data-only", "--threads", "2")
        _clean_failure(run)
        _blames_the_server_not_the_data(run.stderr, "items")
        assert "--resume" in run.stderr, run.stderr
        _grow(tiny)
        resume = fl.dbjson("import", str(export), url, "--data-only", "--resume", "--quiet")
        assert resume.returncode == 0, resume.stderr
        assert pg.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items", "target") == (n + 1, n + 1)
    finally:
        try:
            pg.pg_ctl("stop", "-m", "immediate")
        except subprocess.CalledProcessError:
            pass
        subprocess.run(["umount", "-l", str(tiny)], capture_output=True)
        pg.stop()
    fl.record("disk full under a PostgreSQL server (tablespace on tmpfs), --resume", "postgresql", 1, 1, 0, 0)


def test_mariadb_import_into_a_full_disk_then_resume(tmp_path: Path) -> None:
    """A private MariaDB whose target table's file lives on the 1 MB tmpfs (``DATA DIRECTORY``):
    the load fills it ("The table 'items' is full"). The error names that cause and the table,
    exit code 6 with the --resume hint, no line of a data file blamed; once there is space,
    --resume finishes."""
    from privatedb import PrivateMySQL

    my = PrivateMySQL("mariadb")
    tiny = my.dir / "tiny"
    tiny.mkdir()
    try:
        try:
            _mount(tiny, "1m")
        except (subprocess.CalledProcessError, FileNotFoundError) as e:
            pytest.skip(f"cannot mount a tmpfs here: {e}")
        shutil.chown(tiny, "mysql", "mysql")
        my.execute("CREATE DATABASE target")
        my.execute(ITEMS_DDL["mariadb"] + f" ENGINE=InnoDB DATA DIRECTORY = '{tiny}'", db="target")
        n = 20000
        export = make_export(tmp_path / "export", database(ITEMS), {"items": item_rows(n)}, chunks=4)
        url = my.url("target")
        run = fl.dbjson("import", str(export), url, "--data-only", "--threads", "2")
        assert my.proc is not None
        if my.proc.poll() is not None and "full" not in run.stderr.lower():
            # MariaDB 10.11 may abort on the full disk before any client is told the table is full:
            # then dbjson can only see a server that went away; it must still fail cleanly
            assert run.returncode == 6, f"exit {run.returncode}: {run.stderr}"
            assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
        else:
            _clean_failure(run)
            _blames_the_server_not_the_data(run.stderr, "items")
        assert "--resume" in run.stderr, run.stderr
        _grow(tiny)
        assert my.proc is not None
        if my.proc.poll() is not None:  # MariaDB 10.11 may abort on the full disk (an assertion in rollback)
            my.start()
        resume = fl.dbjson("import", str(export), url, "--data-only", "--resume", "--quiet")
        assert resume.returncode == 0, resume.stderr
        assert my.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items", "target")[0] == (n + 1, n + 1)
    finally:
        if my.proc is not None and my.proc.poll() is None:
            my.proc.kill()
            my.proc.wait(30)
        subprocess.run(["umount", "-l", str(tiny)], capture_output=True)
        my.stop()
    fl.record("disk full under a MariaDB server (table file on tmpfs), --resume", "mariadb", 1, 1, 0, 0)
