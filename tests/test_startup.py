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


# -- rich only where it has something to do (dbjson.cli.common.Output) ---------------------------
_LINES = [
    "exported 1,000 rows of 3 tables to out in 0.3s, 3,000 rows/s (snapshot: exported-snapshot)",
    "ok       public.t: 100 rows, checksum 0fa9d91b8da72d19",
    "s3://bucket/prefix and gs://b/p",
    "a:smile: b",  # an emoji code: rich replaces it
    ":thumbs_up: and :not_an_emoji: and a::b and :: and ::: end:",
    "[bold]markup[/] and [not markup",
    "tab\there",
    "carriage\rreturn, bell\x07, backspace\x08, vt\x0b, ff\x0c",
    "two\nlines\n",
    "\x1b[31mescape\x1b[0m kept",
    "wide 中文字符 and combining e\u0301 " * 12,
    "x" * 120 + "   trailing spaces past the width   ",
    "",
    " ",
]


@pytest.mark.parametrize("markup", [None, True, False])
@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_writes_what_rich_writes_on_a_stream_that_is_not_a_terminal(
    capsys: pytest.CaptureFixture[str], stream: str, markup: bool | None
) -> None:
    from rich.console import Console
    from rich.text import Text

    from dbjson.cli.common import Output

    out = Output(stream)  # type: ignore[arg-type]
    reference = Console(stderr=stream == "stderr", highlight=False, soft_wrap=True)
    assert out.is_terminal is False
    captured = []
    for line in _LINES:
        out.print(line, markup=markup)
        ours = capsys.readouterr()
        reference.print(line, markup=markup)
        theirs = capsys.readouterr()
        assert ours == theirs, line
        captured.append(ours.err if stream == "stderr" else ours.out)
    for label, style, message in [
        ("warning: ", "yellow", "disk: full:now"),
        ("", "", "plain\tline"),
        ("x", "", "a\rb"),
    ]:
        out.print_styled(label, style, message)
        ours = capsys.readouterr()
        reference.print(Text.assemble((label, style), message))
        assert ours == capsys.readouterr(), (label, message)
    assert captured[0] == _LINES[0] + "\n"
    plain = Output(stream)  # type: ignore[arg-type]
    plain.print(_LINES[0], markup=False)
    plain.print_styled("warning: ", "yellow", "a message")
    assert "rich" not in plain.__dict__, "rich was asked to print plain text on a plain stream"
    capsys.readouterr()


def test_output_leaves_a_forced_terminal_to_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    from dbjson.cli.common import Output

    monkeypatch.setenv("FORCE_COLOR", "1")
    out = Output("stderr")
    assert out.is_terminal is True and "rich" in out.__dict__


def _sqlite_db(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, f"v{i}") for i in range(100)])
    return path


def test_commands_writing_to_pipes_do_not_import_rich(tmp_path: Path) -> None:
    """export, import and verify with their messages on (no --quiet), stdout and stderr pipes: the
    lines are written without rich (test_export_perf guards an export's other modules)."""
    db = _sqlite_db(tmp_path / "s.db")
    out = tmp_path / "out"
    runs = {
        "export": ["export", f"sqlite:///{db}", "-o", str(out)],
        "import": ["import", str(out), f"sqlite:///{tmp_path / 'copy.db'}"],
        "verify": ["verify", str(out), f"sqlite:///{tmp_path / 'copy.db'}"],
    }
    for command, args in runs.items():
        p = subprocess.run(
            [sys.executable, "-c", _RUN_LISTING_MODULES, *args],
            capture_output=True,
            text=True,
            timeout=300,
            env={k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")},
        )
        assert p.returncode == 0, p.stderr[-3000:]
        lines = p.stderr.splitlines()
        loaded = set(next(ln for ln in lines if ln.startswith("MODULES ")).split()[1:])
        roots = {m.split(".")[0] for m in loaded}
        assert "rich" not in roots, f"{command} imported rich to write plain lines"
        if command == "export":
            assert lines[0].startswith("exported 100 rows of 1 tables to "), lines
        elif command == "verify":
            assert p.stdout.startswith("ok       main.t: 100 rows, checksum "), p.stdout
            assert lines[0].startswith("verified 1 table(s), 100 rows in "), lines


def test_a_postgresql_import_reads_psycopgs_version_without_importlib_metadata(fresh_db: Any, tmp_path: Path) -> None:
    db = _sqlite_db(tmp_path / "s.db")
    out = tmp_path / "out"
    modules_of("export", f"sqlite:///{db}", "-o", str(out), "--quiet")
    target = fresh_db("postgresql")
    loaded = modules_of("import", str(out), target.url, "--quiet")
    assert "psycopg" in loaded
    assert "importlib.metadata" not in loaded, "psycopg read its version through importlib.metadata"
