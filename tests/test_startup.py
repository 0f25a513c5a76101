"""Start-up guards (bench/analysis.md, "Start-up"): the console script builds only the command it
runs, a command imports only its engine's driver, PyMySQL comes without ``cryptography`` until a
password needs RSA (MySQL's caching_sha2_password full authentication without TLS), psycopg without
``importlib.metadata``."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from conftest import _mysql_connect, server_url

from dbjson.cli.common import COMMANDS, invoked_commands
from dbjson.url import make_url

ALL = tuple(COMMANDS)

_RUN_LISTING_MODULES = """
import atexit, sys
atexit.register(lambda: print("MODULES " + " ".join(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["dbjson", *sys.argv[1:]]
from dbjson.cli import main
main()
"""


def modules_of(*args: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules the console script has imported by the end of ``dbjson ARGS`` (which must succeed)."""
    p = subprocess.run(
        [sys.executable, "-c", _RUN_LISTING_MODULES, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**{k: v for k, v in os.environ.items() if k != "NO_COLOR"}, **(env or {})},
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return set(next(ln for ln in p.stderr.splitlines() if ln.startswith("MODULES ")).split()[1:])


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], ALL),
        (["--help"], ALL),
        (["-h"], ALL),
        (["--version"], ()),
        (["-V"], ()),
        (["-vv", "--progress", "json"], ()),
        (["export", "x", "-o", "y"], ("export",)),
        (["export", "--help"], ("export",)),
        (["--progress", "json", "import", "d", "u"], ("import",)),
        (["--progress=json", "-vW", "verify", "d", "u"], ("verify",)),
        (["--config", "export", "import"], ("import",)),  # --config takes a value: that was its file
        (["--log-file", "f.log", "sql", "duckdb", "d"], ("sql",)),
        (["--help", "export"], ALL),
        (["exprt"], ALL),  # the parser's "No such command" (with its suggestion) sees every command
        (["--nope", "export"], ALL),
        (["-Vx", "export"], ALL),
        (["--", "export"], ALL),
    ],
)
def test_invoked_commands(args: list[str], expected: tuple[str, ...]) -> None:
    assert invoked_commands(args) == expected


def test_invoked_commands_under_shell_completion(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_DBJSON_COMPLETE", "complete_bash")
    assert invoked_commands(["export"]) == ALL


def test_the_whole_app_keeps_the_help_order() -> None:
    import typer.main

    from dbjson.cli import app

    assert list(typer.main.get_command(app).commands) == list(COMMANDS)  # type: ignore[attr-defined]


def test_a_sqlite_export_builds_only_export_and_loads_no_server_driver(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        conn.execute("INSERT INTO t VALUES (1, 'a')")
    loaded = modules_of("export", f"sqlite:///{db}", "-o", str(tmp_path / "out"), "--quiet")
    assert (tmp_path / "out" / "manifest.json").exists()
    assert "dbjson.cli.export" in loaded
    others = {f"dbjson.cli.{m}" for m in COMMANDS.values()} - {"dbjson.cli.export"}
    assert loaded & others == set(), "the console script imported (and typer built) other commands"
    assert not {m for m in loaded if m.split(".")[0] in ("pymysql", "psycopg", "psycopg_binary")}


@pytest.mark.parametrize("engine_name", ["mariadb", "postgresql"])
def test_a_server_export_imports_only_its_own_driver(fresh_db: Any, tmp_path: Path, engine_name: str) -> None:
    db = fresh_db(engine_name)
    db.execute("CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1), (2);")
    loaded = modules_of("export", db.url, "-o", str(tmp_path / "out"), "--threads", "2", "--quiet")
    assert (tmp_path / "out" / "manifest.json").exists()
    roots = {m.split(".")[0] for m in loaded}
    if engine_name == "postgresql":
        assert "psycopg" in roots and "pymysql" not in roots
        assert "importlib.metadata" not in loaded, "psycopg read its version through importlib.metadata"
    else:
        assert "pymysql" in roots and "psycopg" not in roots
        assert "cryptography" not in roots, "PyMySQL imported cryptography for a password-less root"


def test_psycopg_versions_are_the_distributions() -> None:
    code = (
        "import sys\n"
        "from dbjson.drivers import import_psycopg\n"
        "p = import_psycopg()\n"
        "assert 'importlib.metadata' not in sys.modules\n"
        "from psycopg import _cmodule\n"
        "print(p.__version__, p.version.__version__, _cmodule.__version__)\n"
        "from importlib import metadata\n"
        "impl = p.pq.__impl__\n"
        "dist = {'binary': 'psycopg-binary', 'c': 'psycopg-c'}.get(impl)\n"
        "print(metadata.version('psycopg'), metadata.version('psycopg'), dist and metadata.version(dist))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    ours, theirs = p.stdout.splitlines()
    assert ours == theirs


_AUTH = """
import sys
from dbjson.connect import Target, parse_url
conn = Target(parse_url(sys.argv[1])).connect_raw()
with conn.cursor() as cur:
    cur.execute("SELECT CURRENT_USER(), (SELECT VARIABLE_VALUE FROM performance_schema.session_status"
                " WHERE VARIABLE_NAME = 'Ssl_cipher')")
    user, cipher = cur.fetchone()
print(user.split("@")[0], repr(cipher), "cryptography" in sys.modules)
"""


def test_mysql9_caching_sha2_full_authentication_without_tls_loads_cryptography_when_needed() -> None:
    """A new caching_sha2_password user's first login (and the first after its password changes)
    is the full authentication: over a plain TCP connection the password goes RSA-encrypted, which
    needs ``cryptography``, imported then; a cached login needs none."""
    admin = server_url("mysql")
    user, password = "dbjson_sha2_" + uuid.uuid4().hex[:8], "Pw-" + uuid.uuid4().hex[:10]
    conn = _mysql_connect(admin)
    with conn.cursor() as cur:
        cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED WITH caching_sha2_password BY '{password}'")
    try:
        url = make_url(admin).set(username=user, password=password, database=None)
        plain = url.update_query_dict({"ssl_disabled": "true"}).render_as_string(hide_password=False)

        def login(u: str) -> str:
            p = subprocess.run([sys.executable, "-c", _AUTH, u], capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, p.stderr[-2000:]
            return p.stdout.strip()

        assert login(plain) == f"{user} '' True"  # full authentication, RSA over plain TCP
        assert login(plain) == f"{user} '' False"  # the server's cache: no RSA, no cryptography
        with conn.cursor() as cur:
            cur.execute(f"ALTER USER '{user}'@'%' IDENTIFIED BY '{password}x'")
        assert login(plain.replace(password, password + "x")) == f"{user} '' True"
        wrong = subprocess.run([sys.executable, "-c", _AUTH, plain], capture_output=True, text=True, timeout=120)
        assert wrong.returncode != 0 and "Access denied" in wrong.stderr
    finally:
        with conn.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
        conn.close()
