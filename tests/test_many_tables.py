"""PostgreSQL schemas with thousands of tables: one transaction cannot hold a lock per table.

PostgreSQL's lock table has max_locks_per_transaction × (max_connections +
max_prepared_transactions) slots (64 × 100 on a default server), shared by every session. A
CREATE TABLE with a primary key and a text column holds ~4 locks until commit (table, index,
TOAST table and index), so schema-load of a few thousand tables in one transaction fails with
'out of shared memory'; it is then re-run committing in batches. Export workers likewise renew
their snapshot transaction (same exported snapshot) every 100 units.

The test runs on a private server with a small lock table (its own ``initdb``; see
tests/test_faults_restart.py): filling the shared server's lock table would make every other test
running at the same time fail with 'out of shared memory'.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from test_faults_restart import PrivatePostgres, start_private_pg

import dbjson.schemaload as schemaload
from dbjson.engines.postgresql.export import PostgreSQLExport
from dbjson.errors import ApplyError
from dbjson.export import export_database
from dbjson.reflect import reflect
from dbjson.schemaload import load_schema

# max_connections=20 and few background workers: a lock table of about 64 x 26 slots
SMALL_LOCK_TABLE = "-c max_connections=20 -c max_worker_processes=2 -c max_wal_senders=0"


@pytest.fixture
def small_pg() -> Iterator[PrivatePostgres]:
    pg = start_private_pg(SMALL_LOCK_TABLE)
    try:
        yield pg
    finally:
        pg.stop()


def _query(pg: PrivatePostgres, db: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(host="127.0.0.1", port=pg.port, user="postgres", dbname=db) as c:
        return [tuple(r) for r in c.execute(sql).fetchall()]


def _lock_slots(pg: PrivatePostgres) -> int:
    """max_locks_per_transaction x (every backend slot + prepared transactions), as PostgreSQL sizes it."""
    ((per, backends),) = _query(
        pg,
        "postgres",
        (
            "SELECT current_setting('max_locks_per_transaction')::int, "
            "current_setting('max_connections')::int + current_setting('autovacuum_max_workers')::int + 1 "
            "+ current_setting('max_worker_processes')::int + current_setting('max_wal_senders')::int "
            "+ current_setting('max_prepared_transactions')::int"
        ),
    )
    return int(per) * int(backends)


def _tables(prefix: str, n: int) -> str:
    return "".join(f"CREATE TABLE {prefix}{i:05d} (id integer PRIMARY KEY, v text);" for i in range(n))


def test_thousands_of_tables(small_pg: PrivatePostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schemaload, "LOCK_BATCH", 100)  # a batch must fit the small lock table
    for db in ("source", "target", "other"):
        small_pg.execute(f"CREATE DATABASE {db}")
    n = _lock_slots(small_pg) // 4 + 200  # ~4 locks per table: past the whole lock table
    for lo in range(0, n, 200):
        small_pg.execute(_tables(f"b{lo}_t", min(200, n - lo)), db="source")
    source = small_pg.url("source")
    doc = reflect(source)
    assert len(doc.schemas[0].tables) == n
    result = load_schema(doc, small_pg.url("target"))
    assert not result.rejected
    assert _query(small_pg, "target", "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [(n,)]
    pks = _query(
        small_pg,
        "target",
        "SELECT count(*) FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace "
        "WHERE s.nspname = 'public' AND c.contype = 'p'",
    )
    assert pks == [(n,)]

    # export: workers renew their transaction on the same snapshot every 100 units (locks released)
    held: list[tuple[int, int]] = []  # a connection's locks before and after each refresh
    refresh = PostgreSQLExport.export_refresh

    def counting(self: PostgreSQLExport, conn: Any) -> None:
        locks = "SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid()"
        before = conn.execute(locks).fetchone()[0]
        refresh(self, conn)
        held.append((before, conn.execute(locks).fetchone()[0]))

    monkeypatch.setattr(PostgreSQLExport, "export_refresh", counting)
    report = export_database(source, tmp_path / "out", threads=2)
    assert len(report.manifest.tables) == n and report.manifest.snapshot.mode == "exported-snapshot"
    assert len(held) >= n // 100 - 2 and max(b for b, _ in held) >= 100, held[:5]
    assert max(a for _b, a in held) < 10, held  # released: only the snapshot's own locks remain

    # A failure after some batches committed says so: what stays applied, and how to finish.
    small_pg.execute("CREATE TABLE zzz_blocker (x int)", db="other")
    small_pg.execute("CREATE TABLE zzz_blocker (id integer PRIMARY KEY)", db="source")  # sorts last: a later batch
    with pytest.raises(ApplyError) as info:
        load_schema(reflect(source), small_pg.url("other"))
    assert "already exists" in str(info.value) and "stay applied" in str(info.value), str(info.value)
    left = _query(small_pg, "other", "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")[0][0]
    assert 1 < left <= n + 1
