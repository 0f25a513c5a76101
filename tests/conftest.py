"""Test harness: real servers, never mocks.

Server URLs come from ``DBJSON_TEST_MYSQL``, ``DBJSON_TEST_MARIADB`` and ``DBJSON_TEST_PG``
(``scripts/test`` sets them after bringing the servers up). A test that needs a server that is not
reachable is skipped locally, and *fails* when ``CI=true``.

Each test that asks for ``fresh_url(engine)`` gets a new, empty database that is dropped afterwards.
"""

from __future__ import annotations

import os
import re
import socket
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

pytest_plugins = ("objstore",)  # the S3-compatible server fixtures (s3, s3_endpoint)

ENGINES = ("mysql", "mariadb", "postgresql", "sqlite")
SERVER_ENGINES = ("mysql", "mariadb", "postgresql")
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
# The sample corpus is never committed: DBJSON_CORPUS, else ../shared/corpus beside the checkout,
# else the workplace's shared folder (a clean clone elsewhere, e.g. CI's, has no ../shared).
_CORPUS_CANDIDATES = [SHARED / "corpus", Path("/work/shared/corpus")]
CORPUS = Path(
    os.environ.get("DBJSON_CORPUS") or next((c for c in _CORPUS_CANDIDATES if c.is_dir()), _CORPUS_CANDIDATES[0])
)

DEFAULT_URLS = {
    "mysql": "mysql+pymysql://root@127.0.0.1:3307/",
    "mariadb": "mysql+pymysql://root@127.0.0.1:3306/",
    "postgresql": "postgresql+psycopg://postgres@127.0.0.1:5432/postgres",
}
ENV = {"mysql": "DBJSON_TEST_MYSQL", "mariadb": "DBJSON_TEST_MARIADB", "postgresql": "DBJSON_TEST_PG"}


def server_url(engine: str) -> str:
    """The admin URL of a test server; skips (or fails under CI=true) when it is not reachable."""
    url = os.environ.get(ENV[engine], DEFAULT_URLS[engine])
    u = make_url(url)
    try:
        with socket.create_connection((u.host or "127.0.0.1", u.port or 0), timeout=3):
            pass
    except OSError:
        msg = f"{engine} server not reachable at {u.host}:{u.port} (run scripts/services)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return url


def _mysql_connect(url: str, database: str | None = None):  # type: ignore[no-untyped-def]
    import pymysql

    u = make_url(url)
    return pymysql.connect(
        host=u.host,
        port=u.port or 3306,
        user=u.username or "root",
        password=u.password or "",
        database=database,
        charset="utf8mb4",
        autocommit=True,
        local_infile=True,
    )


def _pg_connect(url: str, database: str | None = None):  # type: ignore[no-untyped-def]
    import psycopg

    u = make_url(url)
    return psycopg.connect(
        host=u.host,
        port=u.port or 5432,
        user=u.username or "postgres",
        password=u.password or None,
        dbname=database or u.database or "postgres",
        autocommit=True,
    )


class FreshDatabase:
    """A new empty database on a test server (or an SQLite file) with helpers to run SQL."""

    def __init__(self, engine: str, tmp_path: Path) -> None:
        self.engine = engine
        self.name = "dbjson_t_" + uuid.uuid4().hex[:10]
        if engine == "sqlite":
            self.path = tmp_path / f"{self.name}.db"
            sqlite3.connect(self.path).close()
            self.url = f"sqlite:///{self.path}"
            return
        admin = server_url(engine)
        self.admin = admin
        u = make_url(admin)
        if engine == "postgresql":
            with _pg_connect(admin) as c:
                c.execute(f'CREATE DATABASE "{self.name}"')
            self.url = u.set(database=self.name).render_as_string(hide_password=False)
        else:
            c = _mysql_connect(admin)
            with c.cursor() as cur:
                cur.execute(f"CREATE DATABASE `{self.name}` CHARACTER SET utf8mb4")
            c.close()
            self.url = u.set(database=self.name).render_as_string(hide_password=False)

    def connect(self):  # type: ignore[no-untyped-def]
        if self.engine == "sqlite":
            return sqlite3.connect(self.path, isolation_level=None)
        if self.engine == "postgresql":
            return _pg_connect(self.admin, self.name)
        return _mysql_connect(self.admin, self.name)

    def execute(self, sql: str) -> None:
        """Run a script of statements (MySQL scripts may use the client's DELIMITER lines)."""
        conn = self.connect()
        try:
            if self.engine == "sqlite":
                conn.executescript(sql)
            elif self.engine == "postgresql":
                conn.execute(sql)
            else:
                with conn.cursor() as cur:
                    for stmt in split_mysql_script(sql):
                        cur.execute(stmt)
        finally:
            conn.close()

    def query(self, sql: str) -> list[tuple]:  # type: ignore[type-arg]
        conn = self.connect()
        try:
            if self.engine == "sqlite":
                return list(conn.execute(sql).fetchall())
            cur = conn.cursor()
            cur.execute(sql)
            rows = list(cur.fetchall())
            cur.close()
            return rows
        finally:
            conn.close()

    def drop(self) -> None:
        if self.engine == "sqlite":
            return
        if self.engine == "postgresql":
            with _pg_connect(self.admin) as c:
                c.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        else:
            c = _mysql_connect(self.admin)
            with c.cursor() as cur:
                # like PostgreSQL's WITH (FORCE): a session a test leaked (an open transaction on one
                # of its tables) would make DROP wait for its metadata lock, and every later FLUSH
                # TABLES WITH READ LOCK on the server would queue behind that DROP
                cur.execute(
                    "SELECT id FROM information_schema.processlist WHERE db = %s AND id <> CONNECTION_ID()",
                    (self.name,),
                )
                for (pid,) in cur.fetchall():
                    try:
                        cur.execute(f"KILL {int(pid)}")
                    except Exception:  # noqa: BLE001 - it ended meanwhile
                        pass
                cur.execute("SET SESSION lock_wait_timeout = 120")
                cur.execute(f"DROP DATABASE IF EXISTS `{self.name}`")
            c.close()


def split_mysql_script(sql: str) -> list[str]:
    """Split a MySQL script into statements, honouring ``DELIMITER`` lines and quotes."""
    out: list[str] = []
    delim = ";"
    buf: list[str] = []
    for line in sql.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.upper().startswith("DELIMITER ") and not "".join(buf).strip():
            delim = stripped.split(None, 1)[1]
            continue
        buf.append(line)
        text = "".join(buf)
        if text.rstrip().endswith(delim) and _balanced(text):
            stmt = text.rstrip()[: -len(delim)].strip()
            if stmt and not all(ln.strip().startswith("--") or not ln.strip() for ln in stmt.splitlines()):
                out.append(stmt)
            buf = []
    rest = "".join(buf).strip()
    if rest and not all(ln.strip().startswith("--") or not ln.strip() for ln in rest.splitlines()):
        out.append(rest)
    return out


def _balanced(text: str) -> bool:
    """True when no quote is left open (so a delimiter at the end really ends a statement)."""
    q: str | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if q:
            if ch == "\\" and q != "`":
                i += 2
                continue
            if ch == q:
                q = None
        elif ch in "'\"`":
            q = ch
        elif ch == "-" and text.startswith("-- ", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
            continue
        i += 1
    return q is None


@pytest.fixture
def mariadb_user() -> Iterator[tuple[str, str]]:
    """A MariaDB user (name, password) that may connect but holds no privilege on any database."""
    name, password = "dbjson_u_" + uuid.uuid4().hex[:8], "pw-" + uuid.uuid4().hex[:8]
    conn = _mysql_connect(server_url("mariadb"))
    with conn.cursor() as cur:
        cur.execute(f"CREATE USER '{name}'@'%' IDENTIFIED BY '{password}'")
    try:
        yield name, password
    finally:
        with conn.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{name}'@'%'")
        conn.close()


@pytest.fixture
def fresh_db(tmp_path: Path) -> Iterator[Callable[[str], FreshDatabase]]:
    """Factory: ``fresh_db("mysql")`` → a new empty database, dropped after the test."""
    made: list[FreshDatabase] = []

    def make(engine: str) -> FreshDatabase:
        db = FreshDatabase(engine, tmp_path)
        made.append(db)
        return db

    yield make
    for db in made:
        try:
            db.drop()
        except Exception:  # noqa: BLE001
            pass


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Parametrize a test over every engine."""
    return str(request.param)


@pytest.fixture(params=SERVER_ENGINES)
def server_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def hold_back_preflight(
    monkeypatch: pytest.MonkeyPatch, seconds: float = 1.0
) -> tuple[list[str], Callable[[object], None]]:
    """Make every table's pre-flight take ``seconds`` longer, so that a unit starts before its table's is
    done; return the phases in which a unit was rolled back (to load again) and the importer hook
    that records them."""
    import time

    import dbjson.importer.run as run

    slow = run.preflight

    def held_back(*a: Any, **kw: Any) -> Any:
        found = slow(*a, **kw)
        time.sleep(seconds)  # the unit has started by now
        return found

    monkeypatch.setattr(run, "preflight", held_back)
    again: list[str] = []

    def hook(imp: Any) -> None:
        rollback = imp._rollback

        def counting(conn: Any) -> None:
            again.append(imp.phase)
            rollback(conn)

        imp._rollback = counting

    return again, hook


def compiled_module(name: str) -> Any:
    """``dbjson.<name>``, a compiled C speedup imported directly (``DBJSON_NO_SPEEDUPS`` plays no
    part): a missing one skips the test locally and fails it under ``CI=true``, where the C path
    must be tested."""
    import importlib

    try:
        return importlib.import_module(f"dbjson.{name}")
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"dbjson.{name} is not built (python hatch_build.py); CI must test the C path")
        pytest.skip(f"dbjson.{name} is not built (python hatch_build.py)")


_FINDING_WHERE = re.compile(r" \(data/[^)]*\)$")


def preflight_findings(run: Callable[[Any], object]) -> tuple[list[str], Exception | None]:
    """The pre-flight findings (events) of ``run(on_event)`` (their text without the file/line
    suffix) and the DataError it raised (None if it raised none)."""
    from dbjson.errors import DataError
    from dbjson.events import PreflightFinding

    seen: list[str] = []

    def on_event(e: Any) -> None:
        if isinstance(e, PreflightFinding):
            seen.append(_FINDING_WHERE.sub("", e.message))

    try:
        run(on_event)
    except DataError as e:
        return seen, e
    return seen, None


def migrate_and_files_findings(
    fresh_db: Any, src: Any, tmp_path: Path, importer_hook: Any, target_url: str | None = None
) -> tuple[list[str], Exception | None, list[str], Exception | None, Path]:
    """The pre-flight findings and error of ``dbjson migrate`` from ``src`` into PostgreSQL
    (``target_url``, else a fresh database), and those of an export of ``src`` (``tmp_path/export``,
    also returned) imported into another fresh PostgreSQL database: the line-based pre-flight."""
    import dbjson
    from dbjson.migrate import migrate

    live, live_err = preflight_findings(
        lambda ev: migrate(
            src.url,
            target_url or fresh_db("postgresql").url,
            threads=2,
            state_dir=tmp_path / "state",
            on_event=ev,
            importer_hook=importer_hook,
        )
    )
    out = tmp_path / "export"
    dbjson.export_database(src.url, out, threads=2)
    files, files_err = preflight_findings(
        lambda ev: dbjson.import_database(out, fresh_db("postgresql").url, threads=2, on_event=ev)
    )
    return live, live_err, files, files_err, out
