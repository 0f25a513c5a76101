"""``dbjson schema-dump`` and ``dbjson validate`` end to end (the installed console script).

Also the documented failure modes: clear one-line messages, the documented exit codes, never a
traceback, never a password.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import FreshDatabase, _mysql_connect, server_url
from sqlalchemy.engine import make_url

from dbjson.validate import validate

DBJSON = Path(sys.executable).with_name("dbjson")
TORTURE = Path(__file__).parent / "torture" / "sqlite.sql"
Fresh = Callable[[str], FreshDatabase]


def dbjson(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the console script; asserts that no traceback ever reaches the user."""
    base = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "COLUMNS": "200"}
    proc = subprocess.run([str(DBJSON), *args], capture_output=True, text=True, timeout=60, env={**base, **(env or {})})
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr
    return proc


@pytest.fixture
def sqlite_url(fresh_db: Fresh) -> str:
    db = fresh_db("sqlite")
    db.execute(TORTURE.read_text(encoding="utf-8"))
    return db.url


# -- schema-dump ------------------------------------------------------------------------------------


def test_schema_dump_to_stdout(sqlite_url: str) -> None:
    proc = dbjson("schema-dump", sqlite_url)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert validate(doc) == []
    assert doc["source"]["engine"] == "sqlite"
    assert [t["name"] for t in doc["schemas"][0]["tables"]] == ["author", "book", "book_tag", "strict_counter", "tag"]
    assert proc.stdout.endswith("}\n") and proc.stderr == ""


def test_schema_dump_to_file(sqlite_url: str, tmp_path: Path) -> None:
    out = tmp_path / "shop.schema.json"
    proc = dbjson("schema-dump", sqlite_url, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("shop")) == ["shop.schema.json"]
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert validate(doc) == []
    again = dbjson("validate", str(out))
    assert again.returncode == 0 and "valid" in again.stdout


def test_schema_dump_url_from_environment(sqlite_url: str) -> None:
    proc = dbjson("schema-dump", env={"DBJSON_URL": sqlite_url})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["source"]["engine"] == "sqlite"


def test_schema_dump_tables_and_exclude(sqlite_url: str) -> None:
    proc = dbjson("schema-dump", sqlite_url, "--tables", "book*", "--tables", "tag")
    names = [t["name"] for t in json.loads(proc.stdout)["schemas"][0]["tables"]]
    assert names == ["book", "book_tag", "tag"]
    proc = dbjson("schema-dump", sqlite_url, "-x", "book*", "--exclude", "main.strict_*")
    names = [t["name"] for t in json.loads(proc.stdout)["schemas"][0]["tables"]]
    assert names == ["author", "tag"]


def test_schema_dump_unwritable_output(sqlite_url: str, tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "x.json"
    proc = dbjson("schema-dump", sqlite_url, "-o", str(target))
    assert proc.returncode == 2
    assert f"{target}: cannot write the document" in proc.stderr


# -- validate ---------------------------------------------------------------------------------------


@pytest.fixture
def document(sqlite_url: str, tmp_path: Path) -> Path:
    out = tmp_path / "doc.json"
    assert dbjson("schema-dump", sqlite_url, "-o", str(out)).returncode == 0
    return out


def test_validate_invalid_document_lists_pointers(document: Path) -> None:
    doc = json.loads(document.read_text(encoding="utf-8"))
    doc["schemas"][0]["tables"][1]["columns"][2]["ordinal"] = "three"
    doc["schemas"][0]["tables"][0]["[bold]colour"] = "red"  # looks like console markup: printed verbatim
    del doc["source"]["engine"]
    document.write_text(json.dumps(doc), encoding="utf-8")
    proc = dbjson("validate", str(document))
    assert proc.returncode == 4
    err = proc.stderr
    assert f"{document}, at /schemas/0/tables/0/[bold]colour: document fails validation" in err
    assert "(and 2 more)" in err
    assert "/schemas/0/tables/1/columns/2/ordinal: 'three' is not of type 'integer'" in err
    assert "/source: 'engine' is a required property" in err
    assert proc.stdout == ""


def test_validate_malformed_json_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "dbjson-schema",\n  "schemas": [', encoding="utf-8")
    proc = dbjson("validate", str(bad))
    assert proc.returncode == 4
    assert f"{bad}: malformed JSON" in proc.stderr


def test_validate_missing_file(tmp_path: Path) -> None:
    proc = dbjson("validate", str(tmp_path / "nope.json"))
    assert proc.returncode == 4
    assert "nope.json: cannot read" in proc.stderr


# -- connection failures ------------------------------------------------------------------------------


def test_unreachable_server() -> None:
    proc = dbjson("schema-dump", "mysql://root@127.0.0.1:1/x")
    assert proc.returncode == 3
    assert "cannot connect to mysql+pymysql://root@127.0.0.1:1/x" in proc.stderr
    assert "hint: is the server running" in proc.stderr


@pytest.mark.parametrize(
    ("url", "hint"),
    [
        ("oracle://scott@db/orcl", "supported: mysql://, mariadb://, postgresql://, sqlite:///"),
        ("postgresql+psycopg2://u@h/db", "dbjson uses psycopg 3"),
    ],
)
def test_unsupported_scheme(url: str, hint: str) -> None:
    proc = dbjson("schema-dump", url)
    assert proc.returncode == 2
    assert "unsupported URL scheme" in proc.stderr and hint in proc.stderr


def test_missing_sqlite_file_is_not_created(tmp_path: Path) -> None:
    path = tmp_path / "absent.db"
    proc = dbjson("schema-dump", f"sqlite:///{path}")
    assert proc.returncode == 3
    assert "no such SQLite database file" in proc.stderr and "hint:" in proc.stderr
    assert not path.exists()


def test_not_an_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "text.db"
    path.write_text("hello, I am not a database\n" * 100, encoding="utf-8")
    proc = dbjson("schema-dump", f"sqlite:///{path}")
    assert proc.returncode == 3
    assert "file is not a database" in proc.stderr


@pytest.fixture
def mariadb_user(fresh_db: Fresh) -> Iterator[tuple[FreshDatabase, str, str]]:
    """A MariaDB account with a password and rights on a fresh database; dropped afterwards."""
    db = fresh_db("mariadb")
    db.execute("CREATE TABLE t (id INT PRIMARY KEY);")
    user, password = "dbjson_u_" + uuid.uuid4().hex[:8], "Right-" + uuid.uuid4().hex[:12]
    admin = _mysql_connect(server_url("mariadb"))
    try:
        with admin.cursor() as cur:
            cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'")
            cur.execute(f"GRANT ALL ON `{db.name}`.* TO '{user}'@'%'")
        yield db, user, password
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
        admin.close()


def _user_url(db: FreshDatabase, user: str, password: str | None) -> str:
    u = make_url(db.url).set(drivername="mysql", username=user, password=password)
    return u.render_as_string(hide_password=False)


def test_wrong_password_is_never_shown(mariadb_user: tuple[FreshDatabase, str, str]) -> None:
    db, user, password = mariadb_user
    wrong = "Wrong-" + uuid.uuid4().hex[:12]
    for args, env in [
        ((_user_url(db, user, wrong),), None),
        ((_user_url(db, user, None),), {"DBJSON_PASSWORD": wrong}),
    ]:
        proc = dbjson("schema-dump", *args, env=env)
        assert proc.returncode == 3, proc.stderr
        assert "cannot connect" in proc.stderr and "Access denied" in proc.stderr
        assert "hint: check the user name and password" in proc.stderr
        assert wrong not in proc.stderr + proc.stdout
        assert password not in proc.stderr + proc.stdout


def test_right_password_dumps_without_showing_it(mariadb_user: tuple[FreshDatabase, str, str]) -> None:
    db, user, password = mariadb_user
    proc = dbjson("schema-dump", _user_url(db, user, None), env={"DBJSON_PASSWORD": password})
    assert proc.returncode == 0, proc.stderr
    assert password not in proc.stdout
    doc = json.loads(proc.stdout)
    assert doc["source"]["engine"] == "mariadb" and doc["source"]["host"] == "127.0.0.1:3306"


@pytest.mark.parametrize("engine", ["mariadb", "postgresql"])
def test_missing_database(engine: str) -> None:
    url = make_url(server_url(engine)).set(database="dbjson_no_such_db_" + uuid.uuid4().hex[:6])
    proc = dbjson("schema-dump", url.render_as_string(hide_password=False))
    assert proc.returncode == 3
    assert "cannot connect" in proc.stderr
    assert "hint: check the database name" in proc.stderr
