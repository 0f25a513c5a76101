"""``import --dry-run`` and ``migrate --dry-run`` (issue 17): the plan for this target is printed
(tables, DDL, units, losses, pre-flight findings) and the target is left exactly as it was."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson
from typer.testing import CliRunner

from dbjson import export_database, import_database, migrate
from dbjson.cli import app

CATALOG = (
    "SELECT c.relname, c.relkind, count(a.attname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 "
    "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') GROUP BY 1, 2 ORDER BY 1"
)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "NO_COLOR": "1"})
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def _source(fresh_db: Any, tmp_path: Path) -> tuple[Any, Path]:
    src = fresh_db("sqlite")
    src.execute(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL);"
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers (id), note TEXT);"
        "CREATE INDEX orders_customer ON orders (customer_id);"
        "CREATE TRIGGER orders_ins AFTER INSERT ON orders BEGIN SELECT 1; END;"
        "INSERT INTO customers VALUES (1, 'a@example.com'), (2, 'b@example.com');"
        "INSERT INTO orders VALUES (1, 1, 'x'), (2, 2, 'nul' || char(0) || 'here');"
    )
    export_database(src.url, tmp_path / "out", threads=1)
    return src, tmp_path / "out"


def test_import_dry_run_into_sqlite_changes_no_byte(fresh_db: Any, tmp_path: Path) -> None:
    _src, out = _source(fresh_db, tmp_path)
    missing = tmp_path / "new.db"
    r = cli("import", str(out), f"sqlite:///{missing}", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "main.orders: created and loaded" in r.stdout and 'CREATE TABLE "orders"' in r.stdout
    assert 'CREATE INDEX "orders_customer"' in r.stdout and "data/main.orders.jsonl (2 rows" in r.stdout
    assert not missing.exists()  # not even an empty file
    target = fresh_db("sqlite")
    target.execute(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT); INSERT INTO customers VALUES (9, 'z');"
    )
    before = target.path.read_bytes()
    files_before = sorted(p.name for p in out.iterdir())
    r = cli("import", str(out), target.url, "--dry-run")  # --if-exists fail: the real import would stop
    assert r.returncode == 2 and "would fail: table customers already exists" in r.stderr, r.stderr
    assert "main.customers: exists: the import stops" in r.stdout
    r = cli("import", str(out), target.url, "--dry-run", "--if-exists", "replace")
    assert r.returncode == 0 and "exists: dropped and created again" in r.stdout, r.stderr
    report = import_database(out, target.url, if_exists="truncate", dry_run=True)
    assert report.dry_run is not None and report.rows == 0 and report.dry_run.errors == []
    assert report.dry_run.actions["main.customers"].startswith("exists: emptied")
    assert [u["rows"] for u in report.dry_run.units] == [2, 2]
    assert target.path.read_bytes() == before and sorted(p.name for p in out.iterdir()) == files_before
    assert target.query("SELECT * FROM customers") == [(9, "z")]


def test_import_and_migrate_dry_run_into_postgresql_leave_the_catalog_as_it_was(fresh_db: Any, tmp_path: Path) -> None:
    src, out = _source(fresh_db, tmp_path)
    target = fresh_db("postgresql")
    target.execute("CREATE TABLE keep_me (id int PRIMARY KEY); INSERT INTO keep_me VALUES (1);")
    before = target.query(CATALOG)
    # the NUL in orders.note is a pre-flight error on PostgreSQL: reported, exit as the import would
    r = cli("import", str(out), target.url, "--dry-run")
    assert r.returncode == 6 and "pre-flight" in r.stderr and "U+0000" in r.stdout + r.stderr, r.stderr
    assert "translation:" in r.stdout and "trigger" in r.stdout  # the SQLite trigger is not translated
    r = cli("import", str(out), target.url, "--dry-run", "--nul", "strip", "--json")
    assert r.returncode == 0, r.stderr
    doc = orjson.loads(r.stdout)
    assert doc["dry_run"]["actions"] == {"main.customers": "created and loaded", "main.orders": "created and loaded"}
    assert any("CREATE TABLE" in s for s in doc["dry_run"]["pre_data"]) and doc["rows"] == 0
    state = tmp_path / "state"
    r = cli("migrate", src.url, target.url, "--dry-run", "--state-dir", str(state))
    assert r.returncode == 6 and "U+0000" in r.stdout + r.stderr, r.stderr
    report = migrate(src.url, target.url, dry_run=True, state_dir=state, keep=None)
    assert report.load.dry_run is not None and report.rows == 0
    assert {f.column for f in report.load.findings} == {"note"}
    assert not state.exists()
    assert target.query(CATALOG) == before and target.query("SELECT * FROM keep_me") == [(1,)]
