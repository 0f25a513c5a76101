"""A database server restarted in the middle of `dbjson import`.

The shared test servers must not be restarted, so this test starts a private PostgreSQL 15 instance
(initdb in a temporary directory, its own port, run as the ``postgres`` system user), restarts it
(`pg_ctl restart -m fast`) while units are loading, and expects the import to retry and finish, or to
stop with a clear error and finish with `--resume`; either way the target must verify equal to the
export. Skipped where the PostgreSQL server binaries or the ``postgres`` user are missing.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import faultlib as fl
import psycopg
import pytest
from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export

from dbjson.errors import DbjsonError
from dbjson.events import Event, Retry, UnitLoaded
from dbjson.importer import import_database

BIN = Path("/usr/lib/postgresql/15/bin")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivatePostgres:
    """A PostgreSQL 15 server of the test's own (``settings``: extra ``-c name=value`` options)."""

    def __init__(self, settings: str = "") -> None:
        self.settings = settings
        self.dir = Path(tempfile.mkdtemp(prefix="dbjson-pg-", dir="/tmp"))
        os.chmod(self.dir, 0o755)
        self.data = self.dir / "data"
        self.port = _free_port()
        shutil.chown(self.dir, "postgres", "postgres")
        self._as_postgres(str(BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.pg_ctl("start")

    def _as_postgres(self, *cmd: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *cmd], check=True, capture_output=True, timeout=120)

    def pg_ctl(self, action: str, *extra: str) -> None:
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off {self.settings}"
        self._as_postgres(
            str(BIN / "pg_ctl"), action, "-D", str(self.data), "-w", "-o", opts, "-l", str(self.dir / "log"), *extra
        )

    def url(self, db: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{db}"

    def execute(self, sql: str, db: str = "postgres") -> None:
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=db, autocommit=True) as c:
            c.execute(sql)

    def query(self, sql: str, db: str) -> tuple:  # type: ignore[type-arg]
        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=db) as c:
            row = c.execute(sql).fetchone()
            assert row is not None
            return tuple(row)

    def stop(self) -> None:
        try:
            self.pg_ctl("stop", "-m", "immediate")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


def _missing(reason: str) -> NoReturn:
    """Skip locally; under CI=true a missing server is a failure (the project's rule)."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def start_private_pg(settings: str = "") -> PrivatePostgres:
    """Start a private server, or skip (fail under CI=true) where this machine cannot run one."""
    if not (BIN / "initdb").exists() or shutil.which("runuser") is None:
        _missing("no PostgreSQL server binaries here")
    try:
        import pwd

        pwd.getpwnam("postgres")
    except KeyError:
        _missing("no postgres system user")
    try:
        return PrivatePostgres(settings)
    except subprocess.CalledProcessError as e:
        _missing(f"cannot start a private PostgreSQL: {e.stderr.decode(errors='replace')[-300:]}")


@pytest.fixture
def private_pg() -> Iterator[PrivatePostgres]:
    pg = start_private_pg()
    try:
        yield pg
    finally:
        pg.stop()


def test_server_restarted_mid_load(private_pg: PrivatePostgres, tmp_path: Path) -> None:
    n = 60000
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(n)}, chunks=20)
    private_pg.execute("CREATE DATABASE target")
    private_pg.execute(ITEMS_DDL["postgresql"], db="target")
    url = private_pg.url("target")
    events: list[Event] = []
    restarts: list[threading.Thread] = []

    def on_event(ev: Event) -> None:
        events.append(ev)
        if isinstance(ev, UnitLoaded) and not restarts:  # after the first unit: others are in flight
            t = threading.Thread(target=private_pg.pg_ctl, args=("restart", "-m", "fast"))
            restarts.append(t)
            t.start()

    outcome = "retried"
    try:
        report = import_database(export, url, data_only=True, threads=2, on_event=on_event)
        assert report.verify is not None and report.verify.ok
    except DbjsonError as e:  # a clear error is acceptable; --resume must then finish the job
        outcome = f"error then --resume ({type(e).__name__})"
        restarts[0].join(60)
        report = import_database(export, url, data_only=True, threads=2, resume=True)
        assert report.verify is not None and report.verify.ok
    finally:
        for t in restarts:
            t.join(60)
    assert restarts, "the import finished before the restart"
    assert private_pg.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items", "target") == (n + 1, n + 1)
    retries = sum(1 for e in events if isinstance(e, Retry))
    fl.record(
        "server restarted mid-load (private instance)", "postgresql", 1, 1, 0, 0, outcome=outcome, retries=retries
    )


def test_a_restart_longer_than_a_few_seconds_is_waited_for_then_exit_6_with_the_resume_hint(
    private_pg: PrivatePostgres, tmp_path: Path
) -> None:
    """The server stopped for 6 s in the middle of a load (a restart with a long recovery): the
    import keeps retrying within its budget (60 s by default), saying so, and finishes. Stopped for
    longer than ``--retry-budget``: the CLI stops with exit code 6 and the --resume hint (as every
    load error does), and --resume finishes once the server is back."""
    n = 40000
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(n)}, chunks=16)
    private_pg.execute("CREATE DATABASE target")
    private_pg.execute(ITEMS_DDL["postgresql"], db="target")
    url = private_pg.url("target")
    events: list[Event] = []
    outage: list[threading.Thread] = []

    def down_for_a_while() -> None:
        private_pg.pg_ctl("stop", "-m", "fast")
        time.sleep(6)
        private_pg.pg_ctl("start")

    def on_event(ev: Event) -> None:
        events.append(ev)
        if isinstance(ev, UnitLoaded) and not outage:
            outage.append(threading.Thread(target=down_for_a_while))
            outage[0].start()

    try:
        report = import_database(export, url, data_only=True, threads=2, on_event=on_event)
    finally:
        for t in outage:
            t.join(60)
    assert outage, "the import finished before the outage"
    assert report.verify is not None and report.verify.ok
    assert private_pg.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items", "target") == (n + 1, n + 1)
    retries = [e.message for e in events if isinstance(e, Retry)]
    assert any("retry budget" in m for m in retries), retries
    # The CLI, with a budget shorter than the outage: exit 6, the hint, then --resume.
    private_pg.execute("TRUNCATE items", db="target")
    for j in export.glob(".dbjson-import-*.journal"):
        j.unlink()
    proc = subprocess.Popen(
        [sys.executable, "-m", "dbjson", "import", str(export), url, "--data-only", "--threads", "2",
         "--retry-budget", "2", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=fl.ROOT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not any(b'"op":"done","step":"data:' in j.read_bytes() for j in export.glob(".dbjson-import-*.journal")):
        assert proc.poll() is None and time.monotonic() < deadline, "the import ended before the outage"
        time.sleep(0.005)
    private_pg.pg_ctl("stop", "-m", "fast")
    try:
        _out, err = proc.communicate(timeout=60)
    finally:
        private_pg.pg_ctl("start")
    assert proc.returncode == 6, f"exit {proc.returncode}: {err}"
    assert "--resume" in err and "Traceback" not in err, err
    resume = fl.dbjson("import", str(export), url, "--data-only", "--resume", "--quiet")
    assert resume.returncode == 0, resume.stderr
    assert private_pg.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items", "target") == (n + 1, n + 1)
    fl.record(
        "server down for 6 s mid-load (retry budget), then past --retry-budget (exit 6, --resume)",
        "postgresql",
        2,
        2,
        0,
        0,
        retries=len(retries),
    )
