"""``dbjson schema-load`` end to end (the installed console script)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from conftest import _pg_connect, server_url
from ddl_fixtures import mysql_document, postgresql_document
from sqlalchemy.engine import make_url

DBJSON = Path(sys.executable).with_name("dbjson")


def dbjson(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(DBJSON), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "COLUMNS": "200"},
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture
def pg_doc(tmp_path: Path) -> Path:
    path = tmp_path / "app.schema.json"
    path.write_text(postgresql_document().to_json())
    return path


@pytest.fixture
def my_doc(tmp_path: Path) -> Path:
    path = tmp_path / "shop.schema.json"
    path.write_text(mysql_document().to_json())
    return path


def _tables(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        }
    finally:
        conn.close()


def test_dialect_prints_ddl_and_the_report(pg_doc: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    proc = dbjson("schema-load", str(pg_doc), "--dialect", "mysql", "--report", str(report))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("-- pre-data\nCREATE TABLE `posts`")
    assert "translation postgresql → mysql:" in proc.stderr
    assert "/schemas/0/tables/1/columns/9/type: unconstrained numeric" in proc.stderr
    data = json.loads(report.read_text())
    assert data["source"] == "postgresql" and data["target"] == "mysql"
    assert data["counts"]["loss"] == sum(1 for i in data["items"] if i["severity"] == "loss") > 0


def test_strict_fails_with_exit_5(pg_doc: Path) -> None:
    proc = dbjson("schema-load", str(pg_doc), "--dialect", "sqlite", "--strict")
    assert proc.returncode == 5
    assert "error:" in proc.stderr and "loss(es) translating postgresql → sqlite" in proc.stderr


def test_needs_exactly_one_target(pg_doc: Path) -> None:
    assert dbjson("schema-load", str(pg_doc)).returncode == 2
    assert dbjson("schema-load", str(pg_doc), "--dialect", "mysql", "--to", "sqlite:///x.db").returncode == 2
    proc = dbjson("schema-load", str(pg_doc), "--dialect", "oracle")
    assert proc.returncode == 2 and "unknown dialect" in proc.stderr


def test_bad_document_exits_4(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "dbjson-schema"')
    assert dbjson("schema-load", str(bad), "--dialect", "mysql").returncode == 4


def test_dry_run_prints_and_changes_nothing(my_doc: Path, tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    sqlite3.connect(db).close()
    proc = dbjson("schema-load", str(my_doc), "--to", f"sqlite:///{db}", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert 'CREATE TABLE "customers"' in proc.stdout
    assert _tables(db) == set()


def test_if_exists_fail_skip_replace_on_sqlite(my_doc: Path, tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    url = f"sqlite:///{db}"
    assert dbjson("schema-load", str(my_doc), "--to", url).returncode == 0
    tables = _tables(db)
    assert {"customers", "orders", "order_items"} <= tables
    again = dbjson("schema-load", str(my_doc), "--to", url)
    assert again.returncode == 8 and "already exists" in again.stderr and "statement: CREATE TABLE" in again.stderr
    assert dbjson("schema-load", str(my_doc), "--to", url, "--if-exists", "skip").returncode == 0
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO customers (email, status, is_vip, big_counter) VALUES ('a@b', 'active', 0, 1)")
    conn.commit()
    conn.close()
    assert dbjson("schema-load", str(my_doc), "--to", url, "--if-exists", "replace").returncode == 0
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*) FROM customers").fetchone()[0] == 0
    conn.close()
    assert _tables(db) == tables
    assert dbjson("schema-load", str(my_doc), "--to", url, "--if-exists", "sometimes").returncode == 2


def test_create_database_on_postgresql(my_doc: Path) -> None:
    admin = server_url("postgresql")
    name = "dbjson_t_" + uuid.uuid4().hex[:10]
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    try:
        proc = dbjson("schema-load", str(my_doc), "--to", url, "--create")
        assert proc.returncode == 0, proc.stderr
        with _pg_connect(admin, name) as conn:
            rows = conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            ).fetchall()
            assert {"customers", "orders", "order_items"} <= {r[0] for r in rows}
            nxt = conn.execute("SELECT nextval(pg_get_serial_sequence('public.orders', 'id'))").fetchone()[0]
            assert nxt == 5000
    finally:
        with _pg_connect(admin) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_failed_statement_names_object_and_rolls_back(fresh_db: Any, my_doc: Path) -> None:
    db = fresh_db("postgresql")
    db.execute('CREATE TABLE "orders" (x int)')
    proc = dbjson("schema-load", str(my_doc), "--to", db.url)
    assert proc.returncode == 8
    assert 'table "public"."orders"' in proc.stderr and "rolled back" in proc.stderr
    # one transaction: nothing of the plan stayed
    assert db.query("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")[0][0] == 1
