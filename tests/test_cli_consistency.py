"""CLI consistency: --create refused by the server is an ApplyError with a hint (library and CLI),
migrate takes --create and DBJSON_URL like import, -q on schema-load and verify, and "no such
export directory" is the same exit code for import and verify."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import FreshDatabase, _mysql_connect, _pg_connect, server_url

from dbjson.errors import ApplyError, UsageError
from dbjson.schemaload import create_database

DBJSON = str(Path(sys.executable).parent / "dbjson")
Fresh = Callable[[str], FreshDatabase]


def cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``dbjson ARGS`` as a user runs it (output captured), with extra environment variables."""
    full = {
        k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "DBJSON_URL", "DBJSON_PASSWORD")
    }
    full.update(COLUMNS="200", **env)
    return subprocess.run([DBJSON, *args], env=full, capture_output=True, text=True, timeout=180)


# -- create_database: refusals become ApplyError with a hint ----------------------------------
@pytest.fixture
def pg_role() -> Iterator[tuple[str, str]]:
    """A PostgreSQL role that may log in but not create databases."""
    role, password = "dbjson_r_" + uuid.uuid4().hex[:8], "pw-" + uuid.uuid4().hex[:8]
    with _pg_connect(server_url("postgresql")) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN NOCREATEDB PASSWORD '{password}'")
    try:
        yield role, password
    finally:
        with _pg_connect(server_url("postgresql")) as admin:
            admin.execute(f"DROP ROLE IF EXISTS {role}")


def _url(engine: str, user: str, password: str, database: str) -> str:
    admin = server_url(engine)
    scheme, rest = admin.split("://", 1)
    host = rest.split("@", 1)[1].split("/", 1)[0]
    return f"{scheme}://{user}:{password}@{host}/{database}"


def test_create_database_without_createdb_postgresql(pg_role: tuple[str, str]) -> None:
    role, password = pg_role
    name = "dbjson_t_" + uuid.uuid4().hex[:10]
    with pytest.raises(ApplyError) as info:
        create_database(_url("postgresql", role, password, name))
    err = info.value
    assert name in str(err) and "permission denied to create database" in str(err)
    assert err.hint and "CREATEDB" in err.hint
    assert err.statement and "CREATE DATABASE" in err.statement
    assert password not in str(err)


def test_create_database_without_create_privilege_mariadb(mariadb_user: tuple[str, str]) -> None:
    user, password = mariadb_user
    name = "dbjson_t_" + uuid.uuid4().hex[:10]
    with pytest.raises(ApplyError) as info:
        create_database(_url("mariadb", user, password, name))
    err = info.value
    assert name in str(err) and "Access denied" in str(err)
    assert err.hint and "GRANT" in err.hint
    assert password not in str(err)


def test_create_database_that_exists_needs_no_privilege_mariadb(mariadb_user: tuple[str, str], fresh_db: Fresh) -> None:
    """--create for a database the user may use but not create: nothing to do, no error."""
    db = fresh_db("mariadb")
    user, password = mariadb_user
    conn = _mysql_connect(server_url("mariadb"))
    with conn.cursor() as cur:
        cur.execute(f"GRANT SELECT ON `{db.name}`.* TO '{user}'@'%'")
    conn.close()
    create_database(_url("mariadb", user, password, db.name))


def test_create_database_unreachable_is_connection_failed() -> None:
    from dbjson.errors import ConnectionFailed

    with pytest.raises(ConnectionFailed):
        create_database("postgresql://postgres@127.0.0.1:1/nowhere")


def test_import_create_refused_exits_8_with_hint(pg_role: tuple[str, str], fresh_db: Fresh, tmp_path: Path) -> None:
    source = fresh_db("sqlite")
    source.execute("CREATE TABLE t (id integer primary key, v text); INSERT INTO t VALUES (1, 'a');")
    assert cli("export", source.url, "-o", str(tmp_path / "out"), "-q").returncode == 0
    role, password = pg_role
    url = _url("postgresql", role, "", "dbjson_t_" + uuid.uuid4().hex[:10]).replace(":@", "@")
    proc = cli("import", str(tmp_path / "out"), url, "--create", "-q", DBJSON_PASSWORD=password)
    assert proc.returncode == 8, proc.stderr
    assert (
        "permission denied to create database" in proc.stderr and "hint:" in proc.stderr and "CREATEDB" in proc.stderr
    )
    assert "internal error" not in proc.stderr and password not in proc.stderr


# -- migrate: --create and DBJSON_URL ---------------------------------------------------------
def test_migrate_create_and_dbjson_url(fresh_db: Fresh) -> None:
    source = fresh_db("sqlite")
    source.execute("CREATE TABLE t (id integer primary key, v text); INSERT INTO t VALUES (1, 'a'), (2, 'b');")
    target = fresh_db("postgresql")
    target.drop()  # the name is known and dropped again after the test
    proc = cli("migrate", source.url, "--create", "-q", DBJSON_URL=target.url)
    assert proc.returncode == 0, proc.stderr
    assert target.query("SELECT v FROM t ORDER BY id") == [("a",), ("b",)]


def test_migrate_without_target_nor_dbjson_url_is_a_usage_error() -> None:
    proc = cli("migrate", "sqlite:///nothing.db")
    assert proc.returncode == 2 and "Missing argument" in proc.stderr, proc.stderr


# -- -q and exit codes ------------------------------------------------------------------------
@pytest.fixture
def export_dir(fresh_db: Fresh, tmp_path: Path) -> tuple[Path, FreshDatabase]:
    """A small SQLite export (with a boolean: PostgreSQL's translation has notes) and its source."""
    source = fresh_db("sqlite")
    source.execute("CREATE TABLE t (id integer primary key, v text, m mediumint); INSERT INTO t VALUES (1, 'a', 3);")
    out = tmp_path / "out"
    assert cli("export", source.url, "-o", str(out), "-q").returncode == 0
    return out, source


def test_schema_load_quiet_prints_no_summary(
    export_dir: tuple[Path, FreshDatabase], fresh_db: Fresh, tmp_path: Path
) -> None:
    out, _source = export_dir
    loud = cli("schema-load", str(out / "schema.json"), "--dialect", "mysql")
    assert loud.returncode == 0 and "translation sqlite → mysql" in loud.stderr, loud.stderr
    quiet = cli(
        "schema-load", str(out / "schema.json"), "--dialect", "mysql", "-q", "--report", str(tmp_path / "r.json")
    )
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    assert quiet.stdout == loud.stdout  # the DDL itself is not affected
    assert (tmp_path / "r.json").read_text().count('"severity"') >= 1


def test_verify_quiet(export_dir: tuple[Path, FreshDatabase], fresh_db: Fresh) -> None:
    out, _source = export_dir
    target = fresh_db("sqlite")
    assert cli("import", str(out), target.url, "-q").returncode == 0
    loud = cli("verify", str(out), target.url)
    assert loud.returncode == 0 and "ok       main.t: 1 rows" in loud.stdout, loud.stdout
    quiet = cli("verify", str(out), target.url, "-q")
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""
    target.execute("DELETE FROM t")
    broken = cli("verify", str(out), target.url, "-q")
    assert broken.returncode == 7 and "main.t" in broken.stderr and broken.stdout == "", broken.stderr


@pytest.mark.parametrize("command", ["import", "verify"])
def test_no_such_export_directory_is_exit_2(command: str, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-export"
    proc = cli(command, str(missing), f"sqlite:///{tmp_path / 'x.db'}")
    assert proc.returncode == 2, proc.stderr
    assert f"not an export directory: {missing}" in proc.stderr and "hint:" in proc.stderr


def test_verify_library_no_such_export_directory(tmp_path: Path) -> None:
    from dbjson.verify import verify

    with pytest.raises(UsageError, match="not an export directory"):
        verify(tmp_path / "nope", f"sqlite:///{tmp_path / 'x.db'}")
