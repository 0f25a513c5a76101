"""Retryable failures on real servers: lock timeouts, deadlock-class errors and dropped connections."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

from dbjson.engines import get_engine
from dbjson.events import Event, Retry, UnitLoaded
from dbjson.importer import import_database


def test_error_classification_postgresql(fresh_db: Any) -> None:
    db = fresh_db("postgresql")
    db.execute("CREATE TABLE t (id int PRIMARY KEY)")
    pg = get_engine("postgresql")
    holder, victim = db.connect(), db.connect()
    try:
        holder.execute("BEGIN")
        holder.execute("LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
        victim.execute("SET lock_timeout = '50ms'")
        try:
            victim.execute("INSERT INTO t VALUES (1)")
        except Exception as e:  # noqa: BLE001
            assert pg.load_error_kind(e) == "retry"  # type: ignore[attr-defined]
        else:
            raise AssertionError("no lock timeout")
        holder.execute("ROLLBACK")
        pid = victim.execute("SELECT pg_backend_pid()").fetchone()[0]
        holder.execute("SELECT pg_terminate_backend(%s)", (pid,))
        time.sleep(0.1)
        try:
            victim.execute("SELECT 1")
        except Exception as e:  # noqa: BLE001
            assert pg.load_error_kind(e) == "disconnect"  # type: ignore[attr-defined]
        else:
            raise AssertionError("the connection survived")
        try:
            holder.execute("CREATE TABLE t (id int)")
        except Exception as e:  # noqa: BLE001
            assert pg.load_error_kind(e) == "exists"  # type: ignore[attr-defined]
    finally:
        holder.close()
        victim.close()


def test_error_classification_mysql(fresh_db: Any) -> None:
    db = fresh_db("mariadb")
    db.execute("CREATE TABLE t (id int PRIMARY KEY) ENGINE=InnoDB")
    my = get_engine("mariadb")
    a, b = db.connect(), db.connect()
    try:
        with a.cursor() as ca, b.cursor() as cb:
            ca.execute("INSERT INTO t VALUES (1), (2)")
            ca.execute("BEGIN")
            ca.execute("UPDATE t SET id = 10 WHERE id = 1")
            cb.execute("SET SESSION innodb_lock_wait_timeout = 1")
            cb.execute("BEGIN")
            try:
                cb.execute("UPDATE t SET id = 20 WHERE id = 1")
            except Exception as e:  # noqa: BLE001
                assert my.load_error_kind(e) == "retry"  # type: ignore[attr-defined]
            else:
                raise AssertionError("no lock wait timeout")
            ca.execute("ROLLBACK")
            cb.execute("ROLLBACK")
    finally:
        a.close()
        b.close()


def test_dropped_connections_are_retried(fresh_db: Any, tmp_path: Path) -> None:
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(20000)}, chunks=10)
    target = target_with(fresh_db, "postgresql", ITEMS_DDL)
    admin = target.connect()
    events: list[Event] = []
    killed = threading.Event()

    def on_event(ev: Event) -> None:
        events.append(ev)
        if isinstance(ev, UnitLoaded) and not killed.is_set():
            killed.set()
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )

    try:
        report = import_database(export, target.url, data_only=True, threads=2, on_event=on_event)
    finally:
        admin.close()
    assert killed.is_set()
    assert any(isinstance(e, Retry) for e in events)
    assert report.verify.ok
    assert target.query("SELECT COUNT(*) FROM items")[0][0] == 20001
