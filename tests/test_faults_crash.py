"""A database server crash right after the import journaled a commit.

The journal records a unit (or a post-data statement) done as soon as the server answers COMMIT.
That record is only true if the commit survives a crash of the server: this test starts a private
server (PostgreSQL 15, MariaDB, MySQL 9), runs ``dbjson import`` into it, and the moment the
journal's first ``done`` record of a data unit (then, in a second run, of a post-data statement:
a primary key added after the data, an index, a foreign key) appears, SIGKILLs the server
(the postmaster and every backend at once) and the import (a host crash), restarts the server and
runs ``import --resume``: no row may be lost or duplicated, and every key, index and foreign key
must be there. Figures: faultlib.record.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import faultlib as fl
import pytest
from privatedb import PrivateMySQL, postgres_processes
from test_faults_restart import PrivatePostgres, start_private_pg

from dbjson.export import export_database

POINTS = {"data": b'"op":"done","step":"data:', "post": b'"op":"done","step":"ddl:post'}


def _journal_has(export: Path, marker: bytes) -> bool:
    for j in export.glob(".dbjson-import-*.journal"):
        try:
            if marker in j.read_bytes():
                return True
        except FileNotFoundError:
            pass
    return False


def _crash_at(export: Path, url: str, marker: bytes, crash: Callable[[], None], command: tuple[str, ...] = ()) -> bool:
    """Run an import of ``export`` into ``url`` (or ``command``, whose journal is in ``export``);
    when the journal shows ``marker``, crash the server, then kill the import. False when the
    import finished first."""
    for j in export.glob(".dbjson-import-*.journal"):
        j.unlink()
    proc = fl.spawn(*(command or ("import", str(export), url, "--threads", "2", "--quiet")))
    deadline = time.monotonic() + 120
    try:
        while not _journal_has(export, marker):
            if proc.poll() is not None:
                return False
            assert time.monotonic() < deadline, "the import made no progress"
            time.sleep(0.001)
        crash()
        return True
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)


def _keys_pg(pg: PrivatePostgres, db: str) -> dict[str, int]:
    return {
        "primary keys": pg.query(
            "SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND connamespace = 'public'::regnamespace", db
        )[0],
        "foreign keys": pg.query(
            "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace", db
        )[0],
        "indexes": pg.query("SELECT count(*) FROM pg_indexes WHERE schemaname = 'public'", db)[0],
    }


def _keys_my(my: PrivateMySQL, db: str) -> dict[str, int]:
    def n(sql: str) -> int:
        return int(my.query(sql)[0][0])

    return {
        "primary keys": n(
            "SELECT count(*) FROM information_schema.table_constraints "
            f"WHERE table_schema = '{db}' AND constraint_type = 'PRIMARY KEY'"
        ),
        "foreign keys": n(
            "SELECT count(*) FROM information_schema.table_constraints "
            f"WHERE table_schema = '{db}' AND constraint_type = 'FOREIGN KEY'"
        ),
        "indexes": n(
            f"SELECT count(DISTINCT table_name, index_name) FROM information_schema.statistics WHERE table_schema = '{db}'"
        ),
    }


def _fingerprint(rows: Callable[[str], int], distinct: Callable[[str], int]) -> dict[str, tuple[int, int]]:
    cols = {"customers": "id", "orders": "id", "events": "at, kind, detail"}
    return {
        t: (rows(f"SELECT COUNT(*) FROM {t}"), distinct(f"SELECT COUNT(*) FROM (SELECT DISTINCT {cols[t]} FROM {t}) d"))
        for t in fl.TABLES
    }


@pytest.fixture(scope="module")
def source_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """The fault suite's three tables (a key, a foreign key and an index, a table without a key),
    exported from a private PostgreSQL in units of 400 rows."""
    pg = start_private_pg()
    try:
        pg.execute("CREATE DATABASE source")
        pg.execute(fl.SOURCE_DDL["postgresql"], db="source")
        import psycopg

        rows = fl.source_rows()
        with psycopg.connect(host="127.0.0.1", port=pg.port, user="postgres", dbname="source") as c:
            with c.cursor() as cur:
                for t in fl.TABLES:
                    with cur.copy(f"COPY {t} FROM STDIN") as cp:
                        for r in rows[t]:
                            cp.write_row(r)
        out = tmp_path_factory.mktemp("crash") / "export"
        export_database(pg.url("source"), out, threads=2, chunk_rows=400)
    finally:
        pg.stop()
    return out, {t: len(rows[t]) for t in fl.TABLES}


def _check(
    engine: str, export: Path, url: str, counts: dict[str, int], got: dict[str, tuple[int, int]]
) -> tuple[int, int]:
    lost, dup = fl.lost_and_duplicated(counts, got)
    assert got == {t: (n, n) for t, n in counts.items()}, f"{engine}: rows after the crash and --resume: {got}"
    return lost, dup  # (the --resume that exited 0 verified counts and checksums too)


def _crash_pg(pg: PrivatePostgres) -> None:
    """SIGKILL the postmaster and every backend at once (what the OOM killer or a power cut leaves:
    nothing flushed on the way out)."""
    postmaster = int((pg.data / "postmaster.pid").read_text().split()[0])
    for pid in postgres_processes(postmaster):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _restart_pg(pg: PrivatePostgres) -> None:
    """Start the crashed server again (crash recovery replays the WAL)."""
    for attempt in range(20):
        try:
            pg.pg_ctl("start")
            return
        except subprocess.CalledProcessError:
            if attempt == 19:
                raise AssertionError((pg.dir / "log").read_text(errors="replace")[-2000:]) from None
            time.sleep(0.25)


def test_postgresql_crash_after_a_journaled_commit(source_export: tuple[Path, dict[str, int]]) -> None:
    export, counts = source_export
    pg = start_private_pg()
    injected = survived = lost = dup = 0
    try:
        for point, marker in POINTS.items():
            db = f"t_{point}"
            pg.execute(f"CREATE DATABASE {db}")
            url = pg.url(db)

            assert _crash_at(export, url, marker, lambda: _crash_pg(pg)), (
                f"the import finished before the {point} point"
            )
            injected += 1
            _restart_pg(pg)
            resume = fl.dbjson("import", str(export), url, "--threads", "2", "--resume", "--quiet")
            assert resume.returncode == 0, f"{point}: {resume.stderr}"
            got = _fingerprint(lambda q, db=db: int(pg.query(q, db)[0]), lambda q, db=db: int(pg.query(q, db)[0]))
            lo, du = _check("postgresql", export, url, counts, got)
            lost, dup = lost + lo, dup + du
            assert _keys_pg(pg, db) == {"primary keys": 2, "foreign keys": 1, "indexes": 3}, point
            survived += 1
    finally:
        pg.stop()
    fl.record(
        "server crash (SIGKILL) right after a journaled commit, --resume", "postgresql", injected, survived, lost, dup
    )


@pytest.mark.parametrize("flavour", ["mariadb", "mysql"])
def test_mysql_crash_after_a_journaled_commit(flavour: str, source_export: tuple[Path, dict[str, int]]) -> None:
    export, counts = source_export
    try:
        # MariaDB runs with innodb_flush_log_at_trx_commit = 0 (the log is flushed once a second, a
        # setting dbjson cannot change): a crash loses acknowledged commits, which --resume must
        # find by counting rows. MySQL 9 runs with its durable defaults.
        my = PrivateMySQL(flavour, ("--innodb-flush-log-at-trx-commit=0",) if flavour == "mariadb" else ())
    except subprocess.CalledProcessError as e:
        pytest.fail(f"cannot start a private {flavour}: {e.stderr.decode(errors='replace')[-500:]}")
    injected = survived = lost = dup = 0
    try:
        for point, marker in POINTS.items():
            db = f"t_{point}"
            my.execute(f"CREATE DATABASE {db}")
            url = my.url(db)
            assert _crash_at(export, url, marker, my.crash), f"the import finished before the {point} point"
            injected += 1
            my.start()
            resume = fl.dbjson("import", str(export), url, "--threads", "2", "--resume", "--quiet")
            assert resume.returncode == 0, f"{point}: {resume.stderr}"
            got = _fingerprint(lambda q, db=db: int(my.query(q, db)[0][0]), lambda q, db=db: int(my.query(q, db)[0][0]))
            lo, du = _check(flavour, export, url, counts, got)
            lost, dup = lost + lo, dup + du
            assert _keys_my(my, db) == {"primary keys": 2, "foreign keys": 1, "indexes": 3}, point
            survived += 1
    finally:
        my.stop()
    fl.record("server crash (SIGKILL) right after a journaled commit, --resume", flavour, injected, survived, lost, dup)


def test_migrate_resume_after_a_postgresql_crash(fresh_db: Any, tmp_path: Path) -> None:
    """`migrate` has the same window: the target crashes right after the journal's first done
    post-data statement (a primary key added after the data); `migrate --resume` must neither lose
    nor duplicate a row, and the keys must be there."""
    src = fresh_db("postgresql")
    counts = fl.fill_source(src)
    pg = start_private_pg()
    state = tmp_path / "state"
    try:
        pg.execute("CREATE DATABASE target")
        url = pg.url("target")
        command = ("migrate", src.url, url, "--threads", "2", "--state-dir", str(state), "--quiet")
        state.mkdir()
        assert _crash_at(state, url, POINTS["post"], lambda: _crash_pg(pg), command), "the migrate finished first"
        _restart_pg(pg)
        resume = fl.dbjson(*command, "--resume")
        assert resume.returncode == 0, resume.stderr
        got = _fingerprint(lambda q: int(pg.query(q, "target")[0]), lambda q: int(pg.query(q, "target")[0]))
        lost, dup = fl.lost_and_duplicated(counts, got)
        assert got == {t: (n, n) for t, n in counts.items()}, got
        assert _keys_pg(pg, "target") == {"primary keys": 2, "foreign keys": 1, "indexes": 3}
    finally:
        pg.stop()
    fl.record("server crash (SIGKILL) right after a journaled commit, migrate --resume", "postgresql", 1, 1, lost, dup)
