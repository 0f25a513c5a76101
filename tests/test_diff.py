"""``dbjson diff`` / ``dbjson.diff``: schema diffs on the real servers, and the DDL that closes them.

* a database against its own schema document is equal (torture schemas, Chinook);
* after schema changes on one side, ``diff_ddl`` applied to B makes the diff empty again;
* destructive changes only with ``allow_drop`` (else skipped, listed); SQLite rebuilds a table for
  what its ALTER TABLE cannot do;
* the CLI: exit codes, ``--json``, ``--ddl``, ``--allow-drop``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from chinook import load_chinook
from conftest import FreshDatabase

import dbjson
from dbjson import model as m
from dbjson.schemadiff import Change, SchemaDiff, diff, diff_ddl
from dbjson.schemadiff.compare import _narrowing
from dbjson.schemaload import apply_ddl

Fresh = Callable[[str], FreshDatabase]
TORTURE = Path(__file__).parent / "torture"
DBJSON = Path(sys.executable).with_name("dbjson")

BASE = """
CREATE TABLE customer (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, email VARCHAR(100), note VARCHAR(20), legacy INTEGER);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, total DECIMAL(10,2) DEFAULT 0, status VARCHAR(10));
CREATE INDEX orders_status ON orders (status);
CREATE TABLE old_stuff (id INTEGER PRIMARY KEY);
"""
# A: widen a column, NOT NULL, a new default, add/drop column, add/drop index, add FK, add table
# (with a unique key), add view, drop table.
CHANGED = """
CREATE TABLE customer (id INTEGER PRIMARY KEY, name VARCHAR(80) NOT NULL, email VARCHAR(100) NOT NULL,
    note VARCHAR(20) DEFAULT 'x', phone VARCHAR(30));
CREATE INDEX customer_email ON customer (email);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, total DECIMAL(10,2) DEFAULT 0, status VARCHAR(10),
    CONSTRAINT orders_customer_fk FOREIGN KEY (customer_id) REFERENCES customer (id));
CREATE TABLE product (id INTEGER PRIMARY KEY, sku VARCHAR(20) NOT NULL, CONSTRAINT product_sku UNIQUE (sku));
CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 100;
"""
# What SQLite does with ALTER TABLE alone (no table rebuild): add/drop columns, indexes, views, tables.
SQLITE_BASE = """
CREATE TABLE customer (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, legacy INTEGER);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customer (id), status VARCHAR(10));
CREATE INDEX orders_status ON orders (status);
CREATE TABLE old_stuff (id INTEGER PRIMARY KEY);
"""
SQLITE_CHANGED = """
CREATE TABLE customer (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, phone VARCHAR(30));
CREATE INDEX customer_name ON customer (name);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customer (id), status VARCHAR(10));
CREATE TABLE product (id INTEGER PRIMARY KEY, sku VARCHAR(20) NOT NULL UNIQUE, customer_id INTEGER REFERENCES customer (id));
CREATE VIEW open_orders AS SELECT id FROM orders WHERE status = 'open';
"""
TRIGGERS = {
    "mysql": """
CREATE TABLE audit (id INTEGER PRIMARY KEY AUTO_INCREMENT, what VARCHAR(20));
CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2;
CREATE TRIGGER customer_ai AFTER INSERT ON customer FOR EACH ROW INSERT INTO audit (what) VALUES ('insert');
""",
    "postgresql": """
CREATE TABLE audit (id SERIAL PRIMARY KEY, what VARCHAR(20));
CREATE FUNCTION twice(x integer) RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT x * 2';
CREATE FUNCTION customer_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO audit (what) VALUES ('insert'); RETURN NEW; END $$;
CREATE TRIGGER customer_ai AFTER INSERT ON customer FOR EACH ROW EXECUTE FUNCTION customer_audit();
""",
}
TRIGGERS["mariadb"] = TRIGGERS["mysql"]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The console script; no traceback may ever reach the user."""
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "COLUMNS": "200"}
    proc = subprocess.run([str(DBJSON), *args], capture_output=True, text=True, timeout=120, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def describe(d: SchemaDiff) -> list[tuple[str, str, str, str | None]]:
    return [(c.op, c.kind, c.object.split(".", 1)[1], c.field) for c in d.changes]


# -- equal to itself ------------------------------------------------------------------------------


def test_torture_equals_its_document(engine: str, fresh_db: Fresh, tmp_path: Path) -> None:
    db = fresh_db(engine)
    db.execute((TORTURE / f"{engine}.sql").read_text(encoding="utf-8"))
    doc = tmp_path / "torture.schema.json"
    doc.write_text(dbjson.reflect(db.url).to_json(), encoding="utf-8")
    d = diff(doc, db.url)
    assert d.empty, describe(d)
    assert d.to_dict()["equal"] is True
    # the same schema loaded into another database of the same engine is equal too
    other = fresh_db(engine)
    other.execute((TORTURE / f"{engine}.sql").read_text(encoding="utf-8"))
    assert diff(db.url, other.url).empty


def test_chinook_equals_its_document_cli(engine: str, fresh_db: Fresh, tmp_path: Path) -> None:
    db = fresh_db(engine)
    load_chinook(db)
    doc = tmp_path / "chinook.schema.json"
    assert run_cli("schema-dump", db.url, "-o", str(doc)).returncode == 0
    proc = run_cli("diff", str(doc), db.url)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "no differences\n"
    proc = run_cli("diff", str(doc), db.url, "--ddl")
    assert (proc.returncode, proc.stdout) == (0, "")


# -- changes, DDL, applied -------------------------------------------------------------------------


def _key(c: Change) -> tuple[str, str, str, str | None]:
    return (c.op, c.kind, c.object, c.field)


def test_torture_created_and_dropped_by_the_ddl(engine: str, fresh_db: Fresh) -> None:
    """Empty → torture (every object kind) and torture → empty: what the DDL does not do is exactly
    what it lists as skipped."""
    full, empty = fresh_db(engine), fresh_db(engine)
    full.execute((TORTURE / f"{engine}.sql").read_text(encoding="utf-8"))
    for a, b in ((dbjson.reflect(full.url), empty), (dbjson.reflect(empty.url), full)):
        ddl = diff_ddl(diff(a, b.url), allow_drop=True)
        apply_ddl(list(ddl.statements), b.url)
        left = sorted(_key(c) for c in diff(a, b.url).changes)
        assert left == sorted(_key(s.change) for s in ddl.skipped)
        assert all(c[1] == "schema" for c in left), left  # only schema-level options and schemas themselves


def _sides(engine: str, fresh_db: Fresh, simple_sqlite: bool = False) -> tuple[FreshDatabase, FreshDatabase]:
    a, b = fresh_db(engine), fresh_db(engine)
    a.execute(SQLITE_CHANGED if simple_sqlite else CHANGED)
    b.execute(SQLITE_BASE if simple_sqlite else BASE)
    return a, b


def test_changes_are_reported(engine: str, fresh_db: Fresh) -> None:
    a, b = _sides(engine, fresh_db)
    d = diff(a.url, b.url)
    got = set(describe(d))
    assert ("drop", "table", "old_stuff", None) in got
    assert ("add", "table", "product", None) in got
    assert ("drop", "column", "customer.legacy", None) in got
    assert ("add", "column", "customer.phone", None) in got
    assert ("drop", "index", "orders.orders_status", None) in got
    assert ("add", "foreign_key", "orders.orders_customer_fk", None) in got
    assert ("change", "column", "customer.email", "nullable") in got
    assert ("change", "column", "customer.note", "default") in got
    assert ("add", "view", "big_orders", None) in got
    destructive = sorted(c.object.split(".", 1)[1] for c in d.changes if c.destructive)
    assert destructive == ["customer.legacy", "old_stuff"]


def test_ddl_applied_makes_the_diff_empty(engine: str, fresh_db: Fresh) -> None:
    a, b = _sides(engine, fresh_db)
    doc = dbjson.reflect(a.url)
    ddl = diff_ddl(diff(doc, b.url), allow_drop=True)
    assert ddl.skipped == ()
    apply_ddl(list(ddl.statements), b.url)
    after = diff(doc, b.url)
    assert after.empty, describe(after)


def test_without_allow_drop_destructive_changes_are_skipped(engine: str, fresh_db: Fresh) -> None:
    a, b = _sides(engine, fresh_db, simple_sqlite=engine == "sqlite")
    doc = dbjson.reflect(a.url)
    ddl = diff_ddl(diff(doc, b.url))
    skipped = sorted(s.change.object.split(".", 1)[1] for s in ddl.skipped)
    assert skipped == ["customer.legacy", "old_stuff"]
    assert not any(s.sql.upper().startswith("DROP TABLE") or "DROP COLUMN" in s.sql.upper() for s in ddl.statements)
    assert "-- skipped: drop table" in ddl.script()
    apply_ddl(list(ddl.statements), b.url)
    left = [(c.op, c.kind, c.object.split(".", 1)[1]) for c in diff(doc, b.url).changes]
    assert sorted(left) == [("drop", "column", "customer.legacy"), ("drop", "table", "old_stuff")]


@pytest.mark.parametrize("engine", ["mysql", "mariadb", "postgresql"])
def test_routines_and_triggers_round_trip(engine: str, fresh_db: Fresh) -> None:
    a, b = fresh_db(engine), fresh_db(engine)
    a.execute(BASE + TRIGGERS[engine])
    b.execute(BASE)
    doc = dbjson.reflect(a.url)
    d = diff(doc, b.url)
    kinds = {(c.op, c.kind, c.name) for c in d.changes}
    assert {("add", "routine", "twice"), ("add", "trigger", "customer_ai"), ("add", "table", "audit")} <= kinds
    apply_ddl(list(diff_ddl(d).statements), b.url)
    assert diff(doc, b.url).empty
    # a changed routine is dropped and re-created
    b.execute("DROP TRIGGER customer_ai" + (" ON customer" if engine == "postgresql" else ""))
    after = diff(doc, b.url)
    assert describe(after) == [("add", "trigger", "customer_ai", None)]
    apply_ddl(list(diff_ddl(after).statements), b.url)
    assert diff(doc, b.url).empty


@pytest.mark.parametrize("engine", ["mysql", "postgresql"])
def test_narrowing_type_change_needs_allow_drop(engine: str, fresh_db: Fresh) -> None:
    a, b = fresh_db(engine), fresh_db(engine)
    a.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR(20), n BIGINT)")
    b.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR(40), n INTEGER)")
    doc = dbjson.reflect(a.url)
    d = diff(doc, b.url)
    by_column = {c.name: c.destructive for c in d.changes}
    assert by_column == {"name": True, "n": False}  # narrower varchar; wider integer
    safe = diff_ddl(d)
    assert [s.change.name for s in safe.skipped] == ["name"]
    apply_ddl(list(safe.statements), b.url)
    assert [c.name for c in diff(doc, b.url).changes] == ["name"]
    apply_ddl(list(diff_ddl(diff(doc, b.url), allow_drop=True).statements), b.url)
    assert diff(doc, b.url).empty


def test_sqlite_rebuilds_a_table_it_cannot_alter(fresh_db: Fresh) -> None:
    """NOT NULL, a wider type, a new default and a new foreign key: the table-rebuild recipe keeps the
    rows, and the views and triggers that name the table."""
    a, b = fresh_db("sqlite"), fresh_db("sqlite")
    both = (
        "CREATE TRIGGER customer_ai AFTER INSERT ON customer BEGIN UPDATE orders SET status = 'new' WHERE customer_id = NEW.id; END;"
        "CREATE VIEW names AS SELECT name FROM customer;"
    )
    a.execute(CHANGED + both)
    b.execute(
        BASE
        + both
        + "INSERT INTO customer VALUES (1, 'ann', 'a@x', NULL, 5); INSERT INTO orders VALUES (7, 1, 250, 'open');"
    )
    doc = dbjson.reflect(a.url)
    safe = diff_ddl(diff(doc, b.url))
    assert {s.change.table for s in safe.skipped if s.change.kind != "table"} == {
        "customer"
    }  # its rebuild drops legacy
    ddl = diff_ddl(diff(doc, b.url), allow_drop=True)
    assert ddl.skipped == () and any('RENAME TO "orders"' in s.sql for s in ddl.statements)
    apply_ddl(list(ddl.statements), b.url)
    assert diff(doc, b.url).empty
    assert b.query("SELECT id, name, email, note, phone FROM customer") == [(1, "ann", "a@x", None, None)]
    assert b.query("SELECT * FROM big_orders") == [(7, 250)]
    assert b.query("SELECT * FROM names") == [("ann",)]
    b.execute("INSERT INTO customer (id, name, email) VALUES (2, 'bob', 'b@x')")  # trigger still there
    assert b.query("SELECT status FROM orders") == [("open",)]
    assert run_cli("diff", a.url, b.url).returncode == 0


def test_ddl_for_another_dialect(fresh_db: Fresh) -> None:
    a, b = _sides("sqlite", fresh_db, simple_sqlite=True)
    ddl = diff_ddl(diff(a.url, b.url), "postgresql", allow_drop=True)
    assert ddl.dialect == "postgresql"
    sql = "\n".join(s.sql for s in ddl.statements)
    assert 'ALTER TABLE "public"."customer" ADD COLUMN "phone"' in sql
    assert 'DROP TABLE "public"."old_stuff"' in sql


# -- the model alone --------------------------------------------------------------------------------


def _doc(*columns: m.Column, engine: str = "sqlite", counter: int | None = None) -> m.Database:
    table = m.Table(name="t", columns=columns, primary_key=m.PrimaryKey(columns=("id",)), row_estimate=counter)
    seq = m.Sequence(name="s", next_value=counter)
    src = m.Source(
        engine=engine, server_version="1", database="x", dumped_at=f"2026-01-0{1 + (counter or 0) % 8}T00:00:00Z"
    )
    return m.Database(source=src, schemas=(m.Schema(name="main", tables=(table,), sequences=(seq,)),))


def _col(
    name: str, kind: str = "integer", ordinal: int = 1, next_value: int | None = None, **type_args: int
) -> m.Column:
    ident = m.Identity(kind="autoincrement", next_value=next_value) if next_value is not None else None
    return m.Column(
        name=name,
        ordinal=ordinal,
        type=m.Type(kind=kind, **type_args),
        native=m.NativeType(engine="sqlite", raw=kind),
        identity=ident,
    )


def test_counters_and_source_are_noise_unless_asked() -> None:
    a = _doc(_col("id", next_value=5), counter=5)
    b = _doc(_col("id", next_value=9), counter=9)
    assert diff(a, b).empty
    counted = diff(a, b, include_counters=True)
    assert sorted((c.kind, c.field) for c in counted.changes) == [("column", "identity"), ("sequence", "next_value")]


def test_names_match_case_insensitively_when_unambiguous() -> None:
    a = _doc(_col("id"), _col("Name", "text", 2))
    b = _doc(_col("id"), _col("name", "text", 2))
    assert diff(a, b).empty
    c = _doc(_col("id"), _col("name", "text", 2), _col("NAME", "text", 3))
    assert {(x.op, x.name) for x in diff(a, c).changes} == {("add", "Name"), ("drop", "name"), ("drop", "NAME")}


def test_column_order_is_not_a_difference() -> None:
    a = _doc(_col("id"), _col("x", ordinal=2), _col("y", ordinal=3))
    b = _doc(_col("id"), _col("y", ordinal=2), _col("x", ordinal=3))
    assert diff(a, b).empty


def test_narrowing_rules() -> None:
    t = m.Type
    assert _narrowing(t(kind="varchar", length=40), t(kind="varchar", length=20))
    assert not _narrowing(t(kind="varchar", length=20), t(kind="varchar", length=40))
    assert not _narrowing(t(kind="varchar", length=20), t(kind="text"))
    assert _narrowing(t(kind="text"), t(kind="varchar", length=20))
    assert not _narrowing(t(kind="integer", bits=32), t(kind="integer", bits=64))
    assert _narrowing(t(kind="integer", bits=64), t(kind="integer", bits=32))
    assert _narrowing(t(kind="integer", bits=32), t(kind="integer", bits=32, unsigned=True))
    assert _narrowing(t(kind="decimal", precision=10, scale=2), t(kind="decimal", precision=10, scale=4))
    assert not _narrowing(t(kind="decimal", precision=10, scale=2), t(kind="decimal", precision=12, scale=2))
    assert not _narrowing(t(kind="enum", values=("a", "b")), t(kind="enum", values=("a", "b", "c")))
    assert _narrowing(t(kind="enum", values=("a", "b")), t(kind="enum", values=("b", "a")))
    assert _narrowing(t(kind="varchar", length=20), t(kind="integer", bits=64))


# -- the command line ------------------------------------------------------------------------------


def test_cli_exit_codes_json_and_allow_drop(fresh_db: Fresh, tmp_path: Path) -> None:
    a, b = _sides("sqlite", fresh_db, simple_sqlite=True)
    proc = run_cli("diff", a.url, b.url)
    assert proc.returncode == 1
    assert "table customer" in proc.stdout and "+ column phone" in proc.stdout
    assert "- table old_stuff (destructive)" in proc.stdout
    proc = run_cli("diff", a.url, b.url, "--json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["equal"] is False and {"op", "kind", "path"} <= set(doc["changes"][0])
    proc = run_cli("diff", a.url, b.url, "--json", "--ddl")
    doc = json.loads(proc.stdout)
    assert [s["change"]["name"] for s in doc["ddl"]["skipped"]] == ["legacy", "old_stuff"]
    proc = run_cli("diff", a.url, b.url, "--ddl")
    assert proc.returncode == 1
    assert "DROP TABLE" not in proc.stdout and "-- skipped: drop table main.old_stuff" in proc.stdout
    assert "skipped: drop table main.old_stuff" in proc.stderr
    proc = run_cli("diff", a.url, b.url, "--ddl", "--allow-drop")
    assert 'DROP TABLE "old_stuff";' in proc.stdout and "skipped" not in proc.stdout
    script = tmp_path / "fix.sql"
    script.write_text(proc.stdout, encoding="utf-8")
    b_conn = b.connect()
    try:
        b_conn.executescript(script.read_text(encoding="utf-8"))
    finally:
        b_conn.close()
    proc = run_cli("diff", a.url, b.url)
    assert (proc.returncode, proc.stdout) == (0, "no differences\n")


def test_cli_errors(tmp_path: Path, fresh_db: Fresh) -> None:
    db = fresh_db("sqlite")
    assert run_cli("diff", str(tmp_path / "missing.json"), db.url).returncode == 4
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert run_cli("diff", str(bad), db.url).returncode == 4
    assert run_cli("diff", db.url, db.url, "--allow-drop").returncode == 2
    assert run_cli("diff", db.url, db.url, "--ddl", "--dialect", "oracle").returncode == 2
    assert run_cli("diff", db.url, "mysql+pymysql://root@127.0.0.1:1/nope").returncode == 3
