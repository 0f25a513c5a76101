"""Private MariaDB and MySQL 9 servers for the destructive tests (a crash, a full disk): the shared
test servers must never be killed, so each such test starts a server of its own on a free port with
its own data directory, and kills or fills that one.

* MariaDB: the host's ``mariadbd`` (``mariadb-install-db`` into a temporary directory).
* MySQL 9: ``mysqld`` of the Debian sid root that ``scripts/mysql-server`` builds
  (``/var/cache/dbjson-mysql-root``, or ``$DBJSON_MYSQL_ROOT``), run with ``chroot``; its data
  directory lives inside that root. ``mysqld --initialize-insecure`` takes a while, so one
  initialised data directory is kept in the root as a template and copied for each server.

The PostgreSQL twin is ``test_faults_restart.PrivatePostgres``. Missing binaries skip the test
(fail it under CI=true, the project's rule).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

import pytest

MYSQL_ROOT = Path(os.environ.get("DBJSON_MYSQL_ROOT", "/var/cache/dbjson-mysql-root"))
MARIADBD = Path("/usr/sbin/mariadbd")
INSTALL_DB = Path("/usr/bin/mariadb-install-db")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def missing(reason: str) -> NoReturn:
    """Skip locally; under CI=true a missing server is a failure (the project's rule)."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


class PrivateMySQL:
    """A MariaDB (``flavour="mariadb"``) or MySQL 9 (``"mysql"``) server of the test's own, root
    without a password on 127.0.0.1:``port``. ``settings``: extra ``--name=value`` options."""

    def __init__(self, flavour: str, settings: tuple[str, ...] = ()) -> None:
        self.flavour = flavour
        self.settings = settings
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        if flavour == "mariadb":
            if not MARIADBD.exists() or not INSTALL_DB.exists():
                missing("no MariaDB server binaries here")
            self.chroot: Path | None = None
            self.dir = Path(tempfile.mkdtemp(prefix="dbjson-maria-", dir="/tmp"))
            self.data = self.dir / "data"
            (self.dir / "tmp").mkdir()
            for path in (self.dir, self.dir / "tmp"):
                shutil.chown(path, "mysql", "mysql")
            subprocess.run(
                [str(INSTALL_DB), "--no-defaults", f"--datadir={self.data}", "--user=mysql",
                 "--auth-root-authentication-method=normal", "--skip-test-db", f"--tmpdir={self.dir / 'tmp'}"],
                check=True, capture_output=True, timeout=120,
            )  # fmt: skip
        else:
            if not (MYSQL_ROOT / "usr/sbin/mysqld").exists():
                missing(f"no MySQL 9 root in {MYSQL_ROOT} (run scripts/mysql-server once)")
            self.chroot = MYSQL_ROOT
            self.dir = Path(tempfile.mkdtemp(prefix="dbjson-my-", dir=MYSQL_ROOT / "tmp"))
            self.data = self.dir / "data"
            (self.dir / "tmp").mkdir()
            template = MYSQL_ROOT / "var/lib/mysql-dbjson-template"
            if not (template / "mysql").is_dir():
                tmp = template.with_name(template.name + ".tmp")
                shutil.rmtree(tmp, ignore_errors=True)
                subprocess.run(
                    ["chroot", str(MYSQL_ROOT), "/usr/sbin/mysqld", "--no-defaults", "--initialize-insecure",
                     "--user=mysql", f"--datadir=/{tmp.relative_to(MYSQL_ROOT)}"],
                    check=True, capture_output=True, timeout=300,
                )  # fmt: skip
                os.replace(tmp, template)
            shutil.copytree(template, self.data, symlinks=True)
            ids = next(
                line.split(":")[2:4]
                for line in (MYSQL_ROOT / "etc/passwd").read_text().splitlines()
                if line.startswith("mysql:")
            )  # the root's own mysql user (another uid than the host's)
            subprocess.run(["chown", "-R", ":".join(ids), str(self.dir)], check=True)
            os.chmod(self.dir, 0o755)
        try:
            self.start()
        except BaseException:
            self.stop()
            raise

    def _inside(self, p: Path) -> str:
        """``p`` as the server sees it (inside the chroot for MySQL 9)."""
        return "/" + str(p.relative_to(self.chroot)) if self.chroot else str(p)

    def start(self) -> None:
        args = [
            "--no-defaults", "--user=mysql", f"--datadir={self._inside(self.data)}", f"--port={self.port}",
            "--bind-address=127.0.0.1", f"--socket={self._inside(self.dir)}/mysqld.sock", "--local-infile=1",
            f"--log-error={self._inside(self.dir)}/error.log", f"--pid-file={self._inside(self.dir)}/mysqld.pid",
            # its own tmpdir: a starting server deletes every "#sql*" file in its tmpdir
            # (mysql_rm_tmp_tables), which in the shared /tmp are the shared servers' live temp tables
            f"--tmpdir={self._inside(self.dir)}/tmp", "--innodb-buffer-pool-size=64M", *self.settings,
        ]  # fmt: skip
        if self.flavour == "mysql":
            cmd = ["chroot", str(self.chroot), "/usr/sbin/mysqld", *args, "--mysqlx=OFF", "--secure-file-priv="]
        else:
            cmd = [str(MARIADBD), *args, "--skip-log-bin", "--innodb-log-file-size=16M"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # chroot execs mysqld
        deadline = time.monotonic() + 120
        while True:
            try:
                self.connect().close()
                return
            except Exception:  # noqa: BLE001 - not up yet
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    log = (self.dir / "error.log").read_text(errors="replace")[-1500:]
                    raise RuntimeError(f"private {self.flavour} did not start: {log}") from None
                time.sleep(0.2)

    def connect(self, db: str | None = None) -> Any:
        import pymysql

        return pymysql.connect(
            host="127.0.0.1", port=self.port, user="root", password="", database=db, autocommit=True, connect_timeout=5
        )

    def url(self, db: str = "") -> str:
        return f"mysql+pymysql://root@127.0.0.1:{self.port}/{db}"

    def execute(self, sql: str, db: str | None = None) -> None:
        c = self.connect(db)
        try:
            with c.cursor() as cur:
                for part in [s for s in sql.split(";") if s.strip()]:
                    cur.execute(part)
        finally:
            c.close()

    def query(self, sql: str, db: str | None = None) -> list[tuple[Any, ...]]:
        c = self.connect(db)
        try:
            with c.cursor() as cur:
                cur.execute(sql)
                return [tuple(r) for r in cur.fetchall()]
        finally:
            c.close()

    def crash(self) -> None:
        """SIGKILL the server (no shutdown: what the OOM killer or a power cut leaves)."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)
        shutil.rmtree(self.dir, ignore_errors=True)


def postgres_processes(postmaster: int) -> list[int]:
    """The postmaster's pid and its children's (the backends, the WAL writer...)."""
    kids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == postmaster:
            kids.append(int(d.name))
    return [*kids, postmaster]
