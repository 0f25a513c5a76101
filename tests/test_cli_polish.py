"""The CLI for a newcomer: examples in every --help, --version, completion, colours only on a
terminal and never under NO_COLOR, and a hint for the common mistakes (against the real servers)."""

from __future__ import annotations

import inspect
import os
import pty
import re
import shlex
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
import typer.main
from conftest import FreshDatabase, _mysql_connect, _pg_connect, server_url

import dbjson
from dbjson.cli import app
from dbjson.errors import hint_for

ROOT = Path(__file__).resolve().parents[1]
DBJSON = str(Path(sys.executable).parent / "dbjson")
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]

Fresh = Callable[[str], FreshDatabase]


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``dbjson ARGS`` with output captured (not a terminal), NO_COLOR unset unless given."""
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full.update(COLUMNS="200", **env)
    return subprocess.run([DBJSON, *args], env=full, capture_output=True, text=True, timeout=120)


def invoke(*args: str) -> subprocess.CompletedProcess[str]:
    """``dbjson ARGS`` in this process (typer's CliRunner: fast), output captured as from a pipe."""
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "NO_COLOR": None})
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def on_terminal(*args: str, **env: str) -> tuple[int, str]:
    """``dbjson ARGS`` on a pseudo-terminal (stdout and stderr), as a user at a shell sees it."""
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    full.update(TERM="xterm-256color", COLUMNS="120", **env)
    master, slave = pty.openpty()
    proc = subprocess.Popen([DBJSON, *args], stdin=slave, stdout=slave, stderr=slave, env=full, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return proc.wait(timeout=60), out.decode("utf-8", "replace")


# -- help, version, completion -------------------------------------------------------------------


def test_commands_are_the_documented_ones() -> None:
    assert {"schema-dump", "validate", "schema-load", "export", "import", "verify"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_help_shows_an_example(command: str) -> None:
    proc = invoke(command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "Example" in proc.stdout, f"dbjson {command} --help has no example"
    examples = proc.stdout.split("Example", 1)[1]
    assert f"dbjson {command} " in examples  # (docs/cli.md shows them: tests/test_docs.py)


def test_version() -> None:
    for flag in ("--version", "-V"):
        proc = invoke(flag)
        assert proc.returncode == 0 and proc.stdout.splitlines()[0] == f"dbjson {dbjson.__version__}"
        assert proc.stdout.splitlines()[1].startswith("C speedups: ")  # active, disabled or not built


def test_shell_completion_script_and_completions() -> None:
    # typer detects the shell from the process's ancestors (it takes no shell argument): run it
    # under bash, which stays its parent (the "; true" keeps bash from exec'ing it), so the test
    # does not depend on what started pytest (a detached run has no shell above it)
    script = subprocess.run(
        ["bash", "-c", f"{shlex.quote(DBJSON)} --show-completion; true"],
        env={**os.environ, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert script.returncode == 0 and "_DBJSON_COMPLETE=complete_bash" in script.stdout, script.stderr
    words = cli(_DBJSON_COMPLETE="complete_bash", COMP_WORDS="dbjson sch", COMP_CWORD="1")
    assert words.stdout.split() == ["schema-dump", "schema-load"]
    opts = cli(_DBJSON_COMPLETE="complete_bash", COMP_WORDS="dbjson import --res", COMP_CWORD="2")
    assert opts.stdout.split() == ["--resume"]
    values = cli(_DBJSON_COMPLETE="complete_bash", COMP_WORDS="dbjson schema-load x.json --dialect m", COMP_CWORD="4")
    assert values.stdout.split() == ["mysql", "mariadb"]
    policies = cli(_DBJSON_COMPLETE="complete_bash", COMP_WORDS="dbjson import d u --if-exists ", COMP_CWORD="5")
    assert policies.stdout.split() == ["fail", "skip", "truncate", "replace"]


# -- colours -------------------------------------------------------------------------------------


def test_colours_on_a_terminal_only() -> None:
    code, out = on_terminal("schema-dump", "mysql+mysqldb://root@127.0.0.1/x")
    assert code == 2 and "\x1b[" in out and "hint:" in out  # a terminal: coloured
    piped = cli("schema-dump", "mysql+mysqldb://root@127.0.0.1/x")
    assert piped.returncode == 2 and "hint:" in piped.stderr
    assert "\x1b" not in piped.stdout + piped.stderr  # a pipe: plain


@pytest.mark.parametrize(
    "args", [("schema-dump", "mysql+mysqldb://root@127.0.0.1/x"), ("verify", "--help"), ("--help",)]
)
def test_no_color_means_no_escape_codes_even_on_a_terminal(args: tuple[str, ...]) -> None:
    code, out = on_terminal(*args, NO_COLOR="1")
    assert code in (0, 2) and out.strip()
    assert "\x1b" not in out, out[:300]


SGR = re.compile(r"\x1b\[[0-9;]*m")  # colours and styles (a live progress bar also moves the cursor)


def test_no_color_with_progress_bars(fresh_db: Fresh, tmp_path: Path) -> None:
    db = fresh_db("sqlite")
    db.execute("CREATE TABLE t (id integer primary key, v text); INSERT INTO t VALUES (1, 'a');")
    code, out = on_terminal("export", db.url, "-o", str(tmp_path / "coloured"))
    assert code == 0 and "exported 1 rows" in out and SGR.search(out)
    code, out = on_terminal("export", db.url, "-o", str(tmp_path / "plain"), NO_COLOR="1")
    assert code == 0 and "exported 1 rows" in out and not SGR.search(out), out


# -- hints for the common mistakes ------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "hint"),
    [
        ("postgresql+psycopg2://postgres@127.0.0.1/x", "psycopg 3"),
        ("mysql+mysqldb://root@127.0.0.1/x", "PyMySQL"),
        ("mssql://sa@127.0.0.1/x", "supported: mysql://"),
        ("shop", "use e.g. mysql://"),
    ],
)
def test_wrong_url_scheme(url: str, hint: str) -> None:
    proc = invoke("schema-dump", url)
    assert proc.returncode == 2 and "hint:" in proc.stderr and hint in proc.stderr, proc.stderr


@pytest.mark.parametrize("engine", ["mariadb", "mysql", "postgresql"])
def test_unknown_database(engine: str) -> None:
    url = server_url(engine).rsplit("/", 1)[0] + "/dbjson_no_such_" + uuid.uuid4().hex[:6]
    proc = invoke("schema-dump", url)
    assert proc.returncode == 3, proc.stderr
    assert "hint: check the database name, or create it first" in proc.stderr
    assert "import --create" in proc.stderr


def test_import_create_makes_the_missing_database(fresh_db: Fresh, tmp_path: Path) -> None:
    source = fresh_db("sqlite")
    source.execute("CREATE TABLE t (id integer primary key, v text); INSERT INTO t VALUES (1, 'a');")
    assert cli("export", source.url, "-o", str(tmp_path / "out"), "-q").returncode == 0
    target = fresh_db("postgresql")
    target.drop()  # the name is known and dropped again after the test
    proc = cli("import", str(tmp_path / "out"), target.url, "--create", "-q")
    assert proc.returncode == 0, proc.stderr
    assert target.query("SELECT v FROM t") == [("a",)]


def test_missing_driver(tmp_path: Path) -> None:
    """A Python without psycopg: the error says which package to install."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class _NoPsycopg:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'psycopg' or name.startswith('psycopg.'):\n"
        "            raise ModuleNotFoundError(\"No module named 'psycopg'\", name='psycopg')\n"
        "sys.meta_path.insert(0, _NoPsycopg())\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "dbjson", "schema-dump", "postgresql://postgres@127.0.0.1/postgres"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "No module named 'psycopg'" in proc.stderr
    assert "hint: install the PostgreSQL driver: pip install 'psycopg[binary]'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_no_privilege_on_the_database_mariadb(mariadb_user: tuple[str, str], fresh_db: Fresh) -> None:
    db = fresh_db("mariadb")
    name, password = mariadb_user
    url = db.url.replace("root@", f"{name}@")
    proc = cli("schema-dump", url, DBJSON_PASSWORD=password)
    assert proc.returncode == 3, proc.stderr
    assert "Access denied" in proc.stderr and "hint: the user has no privileges on this database: GRANT" in proc.stderr
    assert password not in proc.stderr


def test_no_select_privilege_on_a_table_mariadb(mariadb_user: tuple[str, str], fresh_db: Fresh, tmp_path: Path) -> None:
    db = fresh_db("mariadb")
    db.execute("CREATE TABLE a (id int primary key)")
    name, password = mariadb_user
    conn = _mysql_connect(server_url("mariadb"))
    with conn.cursor() as cur:
        cur.execute(f"GRANT INSERT ON `{db.name}`.* TO '{name}'@'%'")
    conn.close()
    url = db.url.replace("root@", f"{name}@")
    proc = cli("export", url, "-o", str(tmp_path / "out"), DBJSON_PASSWORD=password)
    assert proc.returncode != 0 and "SELECT command denied" in proc.stderr, proc.stderr
    assert "hint: the user lacks a privilege named in the message: GRANT" in proc.stderr
    assert "internal error" not in proc.stderr and password not in proc.stderr
    direct = _mysql_connect(server_url("mariadb").replace("root@", f"{name}:{password}@"), db.name)
    with pytest.raises(Exception) as err, direct.cursor() as cur:
        cur.execute("SELECT * FROM a")
    direct.close()
    hint = hint_for(str(err.value)) or ""
    assert "SELECT command denied" in str(err.value) and "GRANT" in hint and "SELECT" in hint


def test_no_privilege_postgresql(fresh_db: Fresh, tmp_path: Path) -> None:
    db = fresh_db("postgresql")
    db.execute("CREATE TABLE t (id int primary key, v text); INSERT INTO t VALUES (1, 'a');")
    role, password = "dbjson_r_" + uuid.uuid4().hex[:8], "pw-" + uuid.uuid4().hex[:8]
    with _pg_connect(server_url("postgresql")) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
    try:
        url = db.url.replace("postgres@", f"{role}@")
        export = cli("export", url, "-o", str(tmp_path / "out"), DBJSON_PASSWORD=password)
        assert export.returncode != 0
        assert "permission denied for table t" in export.stderr
        assert "hint: the role may not read or write this table: GRANT SELECT" in export.stderr
        created = cli(
            "import",
            str(tmp_path / "none"),
            url.rsplit("/", 1)[0] + "/dbjson_never_" + role,
            "--create",
            DBJSON_PASSWORD=password,
        )
        assert created.returncode != 0
        assert "permission denied to create database" in created.stderr
        assert "hint: the role may not create databases: ALTER ROLE" in created.stderr
        assert "internal error" not in created.stderr and password not in created.stderr
    finally:
        with _pg_connect(server_url("postgresql")) as admin:
            admin.execute(f"REASSIGN OWNED BY {role} TO postgres")
            admin.execute(f"DROP OWNED BY {role}")
        db.drop()
        with _pg_connect(server_url("postgresql")) as admin:
            admin.execute(f"DROP ROLE IF EXISTS {role}")


@pytest.mark.parametrize("engine", ["mariadb", "mysql"])
def test_local_infile_disabled_hint(engine: str) -> None:
    """The servers' real refusal of LOAD DATA LOCAL (here: the client did not enable it) gets the hint."""
    conn = _mysql_connect(server_url(engine))
    conn.close()
    import pymysql
    from sqlalchemy.engine import make_url

    u = make_url(server_url(engine))
    plain = pymysql.connect(
        host=u.host, port=u.port or 3306, user=u.username, password=u.password or "", local_infile=False
    )
    try:
        with pytest.raises(pymysql.err.MySQLError) as err, plain.cursor() as cur:
            cur.execute("LOAD DATA LOCAL INFILE 'dbjson-nothing.tsv' INTO TABLE mysql.user")
    finally:
        plain.close()
    hint = hint_for(str(err.value))
    assert hint is not None and "local_infile = 1" in hint, str(err.value)
    from dbjson.engines.mysql import load as mysql_load

    assert err.value.args[0] in mysql_load._LOCAL_REFUSED  # the loader falls back to INSERTs for it


def test_errors_carry_the_hint_in_the_library() -> None:
    err = dbjson.DataError("cannot read the table: permission denied for table orders", table="public.orders")
    assert err.hint is not None and "GRANT SELECT" in err.hint
    assert dbjson.UsageError("bad", hint="mine").hint == "mine"
    assert dbjson.DbjsonError("nothing known").hint is None
    import pymysql._auth

    source = Path(pymysql._auth.__file__).read_text(encoding="utf-8")  # PyMySQL's own wording
    assert "'cryptography' package is required for sha256_password or" in source
    assert "PyMySQL[rsa]" in (
        hint_for("'cryptography' package is required for sha256_password or caching_sha2_password") or ""
    )


# -- the library surface -------------------------------------------------------------------------


def test_py_typed_marker() -> None:
    assert (Path(dbjson.__file__).parent / "py.typed").is_file()


@pytest.mark.parametrize("name", [n for n in dbjson.__all__ if not n.startswith("__") and n != "FORMAT_VERSION"])
def test_every_exported_name_has_a_docstring(name: str) -> None:
    obj = getattr(dbjson, name)
    assert inspect.getdoc(obj), f"dbjson.{name} has no docstring"
    if inspect.isclass(obj) and not issubclass(obj, BaseException):
        for attr, member in vars(obj).items():
            if callable(member) and not attr.startswith("_"):
                assert inspect.getdoc(member), f"dbjson.{name}.{attr} has no docstring"


# -- the reference pages name every field of the JSON Schemas ------------------------------------


def _properties(node: object, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        found.update(node.get("properties", {}))
        for value in node.values():
            _properties(value, found)
    elif isinstance(node, list):
        for value in node:
            _properties(value, found)
    return found


@pytest.mark.parametrize(("schema", "page"), [("schema.json", "format.md"), ("manifest.json", "data-format.md")])
def test_every_json_schema_field_is_documented(schema: str, page: str) -> None:
    import json

    fields = _properties(json.loads((ROOT / "jsonschema" / schema).read_text(encoding="utf-8")), set())
    assert len(fields) > 30
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    missing = sorted(f for f in fields if not re.search(rf'[`."\[]{re.escape(f)}(["`]|\??[,:}}\]])', text))
    assert not missing, f"docs/{page} does not mention {missing} (fields of jsonschema/{schema})"


def test_schema_load_output_file_equals_stdout(fresh_db: Fresh, tmp_path: Path) -> None:
    db = fresh_db("sqlite")
    db.execute("CREATE TABLE t (id integer primary key, v varchar(10) not null);")
    doc = tmp_path / "t.schema.json"
    assert cli("schema-dump", db.url, "-o", str(doc)).returncode == 0
    printed = cli("schema-load", str(doc), "--dialect", "postgresql")
    written = cli("schema-load", str(doc), "--dialect", "postgresql", "-o", str(tmp_path / "t.sql"))
    assert printed.returncode == written.returncode == 0 and written.stdout == ""
    assert 'CREATE TABLE "public"."t"' in printed.stdout
    assert (tmp_path / "t.sql").read_text(encoding="utf-8") == printed.stdout


def test_wrong_path_hints(tmp_path: Path) -> None:
    missing = invoke("verify", str(tmp_path / "nothing"), "sqlite:///x.db")
    assert missing.returncode != 0 and "hint: give the directory that dbjson export -o DIR wrote" in missing.stderr
    directory = invoke("schema-load", str(tmp_path), "--dialect", "mysql")
    assert directory.returncode == 4 and "hint: give the schema document itself" in directory.stderr
