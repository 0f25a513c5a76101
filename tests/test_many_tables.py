"""PostgreSQL schemas with thousands of tables: one transaction cannot hold a lock per table.

PostgreSQL's lock table has max_locks_per_transaction × (max_connections +
max_prepared_transactions) slots (64 × 100 on a default server), shared by every session. A
CREATE TABLE with a primary key and a text column holds ~4 locks until commit (table, index,
TOAST table and index), so schema-load of a few thousand tables in one transaction fails with
'out of shared memory'; it is then re-run committing in batches. Export workers likewise renew
their snapshot transaction (same exported snapshot) every 100 units.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import FreshDatabase
from dbjson.ddl.apply import load_schema
from dbjson.engines.postgresql.export import PostgreSQLExport
from dbjson.errors import ApplyError
from dbjson.export import export_database
from dbjson.reflect import reflect

Fresh = Callable[[str], FreshDatabase]


def _lock_slots(db: FreshDatabase) -> int:
    (per, conns, prepared), = db.query("SELECT current_setting('max_locks_per_transaction')::int, "
                                       "current_setting('max_connections')::int, "
                                       "current_setting('max_prepared_transactions')::int")
    return int(per) * (int(conns) + int(prepared))


def _tables(n: int) -> str:
    return "".join(f"CREATE TABLE t{i:05d} (id integer PRIMARY KEY, v text);" for i in range(n))


def test_thousands_of_tables(fresh_db: Fresh, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = fresh_db("postgresql")
    n = _lock_slots(source) // 4 + 500  # ~4 locks per table: past the whole lock table
    for lo in range(0, n, 500):
        source.execute(_tables(min(500, n - lo)).replace("CREATE TABLE t", f"CREATE TABLE b{lo}_t"))
    doc = reflect(source.url)
    assert len(doc.schemas[0].tables) == n
    target = fresh_db("postgresql")
    result = load_schema(doc, target.url)
    assert not result.rejected
    assert target.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [(n,)]
    pks = target.query("SELECT count(*) FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace "
                       "WHERE s.nspname = 'public' AND c.contype = 'p'")
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
    report = export_database(source.url, tmp_path / "out", threads=2)
    assert len(report.manifest.tables) == n and report.manifest.snapshot.mode == "exported-snapshot"
    assert len(held) >= n // 100 - 2 and max(b for b, _ in held) >= 100, held[:5]
    assert max(a for _b, a in held) < 10, held  # released: only the snapshot's own locks remain

    # A failure after some batches committed says so: what stays applied, and how to finish.
    other = fresh_db("postgresql")
    other.execute("CREATE TABLE zzz_blocker (x int)")
    source.execute("CREATE TABLE zzz_blocker (id integer PRIMARY KEY)")  # sorts last: fails in a later batch
    with pytest.raises(ApplyError) as info:
        load_schema(reflect(source.url), other.url)
    assert "already exists" in str(info.value) and "stay applied" in str(info.value), str(info.value)
    left = other.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")[0][0]
    assert 1 < left <= n + 1
