"""`import --if-exists replace|skip|truncate` into a target that already holds the document's
objects: PostgreSQL enum types and sequences the pre-data creates are dropped and recreated by
replace (never objects the document does not define, never with CASCADE), kept by skip/truncate;
MariaDB sequences likewise. The sample shop database (examples/sample_db.py) is the reproduction."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FreshDatabase

from dbjson.errors import ApplyError, UsageError
from dbjson.export import export_database
from dbjson.importer import import_database

ROOT = Path(__file__).resolve().parents[1]
Fresh = Callable[[str], FreshDatabase]


def sample_export(fresh_db: Fresh, tmp_path: Path, engine: str = "postgresql") -> Path:
    """The sample shop database made on ``engine`` and exported."""
    source = fresh_db(engine)
    made = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "sample_db.py"), source.url, "--customers", "30"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    out = tmp_path / "exp"
    export_database(source.url, out)
    return out


def test_replace_twice_into_postgresql_recreates_enum_types(fresh_db: Fresh, tmp_path: Path) -> None:
    exp = sample_export(fresh_db, tmp_path)
    target = fresh_db("postgresql")
    import_database(exp, target.url)
    target.execute(
        "INSERT INTO orders (customer_id, status, placed_at) SELECT customer_id, status, placed_at FROM orders LIMIT 1"
    )
    before = target.query("SELECT count(*) FROM orders")[0][0]
    report = import_database(exp, target.url, if_exists="replace")
    assert report.verify is not None and report.verify.ok, report.verify.problems
    after = target.query("SELECT count(*) FROM orders")[0][0]
    assert after == before - 1  # the extra row went with the replaced table
    types = target.query(
        "SELECT typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
        "WHERE n.nspname = 'public' AND t.typtype = 'e'"
    )
    assert types == [("order_status",)]


@pytest.mark.parametrize("mode", ["skip", "truncate"])
def test_skip_and_truncate_keep_existing_enum_types(mode: str, fresh_db: Fresh, tmp_path: Path) -> None:
    exp = sample_export(fresh_db, tmp_path)
    target = fresh_db("postgresql")
    import_database(exp, target.url)
    loaded = target.query("SELECT count(*) FROM orders")[0][0]
    target.execute(
        "INSERT INTO orders (customer_id, status, placed_at) SELECT customer_id, status, placed_at FROM orders LIMIT 1"
    )
    # every table: truncate empties them together and loads the referenced tables' rows first (their
    # foreign keys stay in place during the load)
    report = import_database(exp, target.url, if_exists=mode, threads=2)
    # skip leaves the table (and its extra row) alone; truncate empties it and loads it again
    assert target.query("SELECT count(*) FROM orders")[0][0] == (loaded + 1 if mode == "skip" else loaded)
    if mode == "truncate":
        assert report.verify is not None and report.verify.ok, report.verify.problems


def test_truncate_never_empties_a_table_outside_the_import(fresh_db: Fresh, tmp_path: Path) -> None:
    """Truncating ``orders`` alone while ``order_lines`` references it: a clear error, and neither
    table emptied (TRUNCATE ... CASCADE would have emptied order_lines silently)."""
    exp = sample_export(fresh_db, tmp_path)
    target = fresh_db("postgresql")
    import_database(exp, target.url)
    lines = target.query("SELECT count(*) FROM order_lines")[0][0]
    orders = target.query("SELECT count(*) FROM orders")[0][0]
    assert lines > 0
    with pytest.raises(UsageError) as info:
        import_database(exp, target.url, if_exists="truncate", tables=["orders"])
    assert "order_lines" in str(info.value) and "--if-exists replace" in (info.value.hint or "")
    assert target.query("SELECT count(*) FROM order_lines")[0][0] == lines
    assert target.query("SELECT count(*) FROM orders")[0][0] == orders


def test_replace_never_drops_a_type_used_outside_the_document(fresh_db: Fresh, tmp_path: Path) -> None:
    exp = sample_export(fresh_db, tmp_path)
    target = fresh_db("postgresql")
    import_database(exp, target.url)
    target.execute(
        "CREATE TABLE audit (id int PRIMARY KEY, s order_status NOT NULL); INSERT INTO audit VALUES (1, 'paid')"
    )
    with pytest.raises(ApplyError) as info:
        import_database(exp, target.url, if_exists="replace")
    assert "order_status" in str(info.value) and "outside" in (info.value.hint or "")
    assert target.query("SELECT s::text FROM audit") == [("paid",)]


def test_replace_recreates_a_postgresql_sequence(fresh_db: Fresh, tmp_path: Path) -> None:
    source = fresh_db("postgresql")
    source.execute(
        "CREATE SEQUENCE ticket_no START 100; "
        "CREATE TABLE tickets (id int PRIMARY KEY DEFAULT nextval('ticket_no'), what text); "
        "INSERT INTO tickets (what) VALUES ('a'), ('b')"
    )
    exp = tmp_path / "exp"
    export_database(source.url, exp)
    target = fresh_db("postgresql")
    import_database(exp, target.url)
    report = import_database(exp, target.url, if_exists="replace")
    assert report.verify is not None and report.verify.ok, report.verify.problems
    assert target.query("SELECT count(*) FROM tickets") == [(2,)]
    assert target.query("SELECT count(*) FROM pg_class WHERE relname = 'ticket_no' AND relkind = 'S'") == [(1,)]


def test_replace_recreates_a_mariadb_sequence(fresh_db: Fresh, tmp_path: Path) -> None:
    source = fresh_db("mariadb")
    source.execute(
        "CREATE SEQUENCE ticket_no START WITH 100;\n"
        "CREATE TABLE tickets (id int PRIMARY KEY DEFAULT (NEXT VALUE FOR ticket_no), what text);\n"
        "INSERT INTO tickets (what) VALUES ('a'), ('b');\n"
    )
    exp = tmp_path / "exp"
    export_database(source.url, exp)
    target = fresh_db("mariadb")
    import_database(exp, target.url)
    report = import_database(exp, target.url, if_exists="replace")
    assert report.verify is not None and report.verify.ok, report.verify.problems
    assert target.query("SELECT count(*) FROM tickets") == [(2,)]


@pytest.mark.parametrize("engine", ["mysql", "sqlite"])
def test_replace_twice_elsewhere(engine: str, fresh_db: Fresh, tmp_path: Path) -> None:
    exp = sample_export(fresh_db, tmp_path, engine)
    target = fresh_db(engine)
    import_database(exp, target.url)
    report = import_database(exp, target.url, if_exists="replace")
    assert report.verify is not None and report.verify.ok, report.verify.problems
    assert target.query("SELECT count(*) FROM customers") == [(30,)]
