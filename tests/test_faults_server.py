"""Server-side faults during `dbjson import`: connections killed mid-load from a second connection,
deadlocks and lock waits provoked by a concurrent writer. Expected: a retry where a retry is right
(a dropped connection, a deadlock victim, a lock timeout), success after it, a clear error once the
retry budget is spent, and a target verified equal to the source. Figures: faultlib.record.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import faultlib as fl
import pytest
from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

from dbjson.errors import DataError, RetriesExhausted
from dbjson.events import Event, Retry, UnitLoaded, Warning
from dbjson.export import export_database
from dbjson.importer import import_database


def _kill_other_sessions(admin: Any, engine: str) -> int:
    """Kill every other session of the admin connection's database; returns how many."""
    if engine == "postgresql":
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
        return sum(1 for (ok,) in rows if ok)
    n = 0
    with admin.cursor() as cur:
        cur.execute("SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID()")
        for (pid,) in cur.fetchall():
            try:
                cur.execute(f"KILL CONNECTION {int(pid)}")
                n += 1
            except Exception:  # noqa: BLE001 - it ended on its own meanwhile
                pass
    return n


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb"])
def test_connections_killed_mid_load_are_retried(engine: str, fresh_db: Any, tmp_path: Path) -> None:
    """KILL CONNECTION / pg_terminate_backend of the loader's sessions at seeded unit events."""
    src = fresh_db(engine)
    counts = fl.fill_source(src)
    export = tmp_path / "export"
    export_database(src.url, export, threads=2, chunk_rows=300)
    want = fl.table_fingerprint(src)
    target = fresh_db(engine)
    admin = target.connect()
    r = fl.rng("connection-kill", engine)
    at = set(r.sample(range(1, 15), 3))  # the unit events after which every loader session is killed
    events: list[Event] = []
    kills: list[int] = []
    seen = 0
    lock = threading.Lock()  # events come from every loader thread; the admin connection is shared

    def on_event(ev: Event) -> None:
        nonlocal seen
        with lock:
            events.append(ev)
            if isinstance(ev, UnitLoaded):
                seen += 1
                if seen in at:
                    kills.append(_kill_other_sessions(admin, engine))

    try:
        report = import_database(export, target.url, threads=2, on_event=on_event)
    finally:
        admin.close()
    retries = [e for e in events if isinstance(e, Retry)]
    injected = sum(1 for k in kills if k)
    assert injected >= 2, f"the kills found no session to kill: {kills}"
    assert retries, "no retry after the connections were killed"
    assert report.verify is not None and report.verify.ok
    got = fl.table_fingerprint(target)
    lost, dup = fl.lost_and_duplicated(counts, got)
    assert got == want
    fl.record(
        "connection killed mid-load (KILL CONNECTION / pg_terminate_backend)",
        engine,
        injected,
        injected,
        lost,
        dup,
        retries=len(retries),
    )


def _wait_for_lock_wait(
    admin: Any, engine: str, writer_id: int, loader: threading.Thread, result: dict[str, Any], timeout: float = 30
) -> None:
    """Until a session waits for a lock the writer (session ``writer_id``) holds."""
    if engine == "postgresql":
        sql = f"SELECT count(*) FROM pg_locks WHERE NOT granted AND {writer_id} = ANY(pg_blocking_pids(pid))"
    elif engine == "mysql":
        sql = (
            "SELECT count(*) FROM performance_schema.data_lock_waits w JOIN information_schema.innodb_trx t "
            f"ON t.trx_id = w.blocking_engine_transaction_id WHERE t.trx_mysql_thread_id = {writer_id}"
        )
    else:
        # (MariaDB does not always list a LOAD DATA's wait on a row lock in innodb_lock_waits: a load
        # running for three seconds on a thousand rows is waiting.)
        sql = (
            "SELECT count(*) FROM information_schema.processlist WHERE db = DATABASE() "
            "AND info LIKE 'LOAD DATA%' AND time_ms >= 3000"
        )
    deadline = time.monotonic() + timeout
    while True:
        assert loader.is_alive(), f"the import ended without waiting for the lock: {result}"
        if engine == "postgresql":
            n = admin.execute(sql).fetchone()[0]
        else:
            n = _fetch(admin, sql)[0][0]
        if n:
            return
        if time.monotonic() > deadline:
            diag = (
                []
                if engine == "postgresql"
                else _fetch(admin, "SELECT * FROM information_schema.innodb_lock_waits")
                + _fetch(admin, "SELECT trx_id, trx_mysql_thread_id, trx_state FROM information_schema.innodb_trx")
            )
            raise AssertionError(f"the import never waited for the writer's lock {writer_id} {diag}")
        time.sleep(0.01)


def _fetch(conn: Any, sql: str) -> list[Any]:
    with conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def _run(engine: str, cur_or_conn: Any, sql: str) -> None:
    if engine == "postgresql":
        cur_or_conn.execute(sql)
    else:
        with cur_or_conn.cursor() as cur:
            cur.execute(sql)


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb"])
def test_deadlock_with_a_concurrent_writer_is_retried(engine: str, fresh_db: Any, tmp_path: Path) -> None:
    """A writer holds key X of a unit; the unit's load waits on it while holding key Y < X; the writer
    then asks for Y: a real deadlock. The server picks a victim (the import, made the lighter
    transaction on MySQL/MariaDB, or the first to run PostgreSQL's deadlock check); the import
    retries the unit after the writer rolls back and the result verifies."""
    n = 4000
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(n)}, chunks=4)
    target = target_with(fresh_db, engine, ITEMS_DDL)
    x, y = 1990, 1200  # both in the second unit (ids 1002..2002), y loaded before x
    writer, admin = target.connect(), target.connect()
    if engine != "postgresql":
        _run(engine, writer, "CREATE TABLE ballast (id int PRIMARY KEY) ENGINE=InnoDB")
    _run(engine, writer, "BEGIN")
    if engine != "postgresql":  # make the writer the heavier transaction, so InnoDB picks the import
        values = ", ".join(f"({i})" for i in range(20000))
        _run(engine, writer, f"INSERT INTO ballast VALUES {values}")
    _run(engine, writer, f"INSERT INTO items (id, name) VALUES ({x}, 'writer')")
    writer_id = int(
        writer.execute("SELECT pg_backend_pid()").fetchone()[0]
        if engine == "postgresql"
        else _fetch(writer, "SELECT CONNECTION_ID()")[0][0]
    )
    events: list[Event] = []
    result: dict[str, Any] = {}

    def load() -> None:
        try:
            # (a budget of 300 s: lock waits of 50 s, so that the load still waits when the writer
            # closes the cycle on a slow machine)
            result["report"] = import_database(
                export, target.url, data_only=True, threads=1, on_event=events.append, retry_budget=300
            )
        except Exception as e:  # noqa: BLE001 - checked below
            result["error"] = e

    t = threading.Thread(target=load)
    t.start()
    writer_victim = False
    try:
        _wait_for_lock_wait(admin, engine, writer_id, t, result)
        try:
            _run(engine, writer, f"INSERT INTO items (id, name) VALUES ({y}, 'writer')")
        except Exception:  # noqa: BLE001 - the server chose the writer as the victim
            writer_victim = True
    finally:
        _run(engine, writer, "ROLLBACK")
        writer.close()
        admin.close()
        t.join(60)
    assert not t.is_alive()
    assert "error" not in result, result.get("error")
    retries = [e for e in events if isinstance(e, Retry)]
    assert writer_victim or retries, "a deadlock with neither victim"
    if not writer_victim:
        assert any("deadlock" in e.message.lower() for e in retries), [e.message for e in retries]
    assert result["report"].verify.ok
    assert target.query(
        "SELECT COUNT(*), COUNT(DISTINCT id), SUM(CASE WHEN name = 'writer' THEN 1 ELSE 0 END) FROM items"
    )[0] == (n + 1, n + 1, 0)
    fl.record(
        "deadlock with a concurrent writer",
        engine,
        1,
        1,
        0,
        0,
        victim="writer" if writer_victim else "import (retried)",
    )


def test_lock_timeouts_are_retried_with_backoff_then_a_clear_error(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL with lock_timeout = 150ms (PGOPTIONS, read by libpq): a writer holding a SHARE lock
    (no INSERT or COPY; reads pass) for about a second costs retries and no rows; one holding it past the retry budget
    ends in a clear DataError naming the file and the table, and --resume then finishes the load."""
    monkeypatch.setenv("PGOPTIONS", "-c lock_timeout=150ms")
    n = 3000
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(n)}, chunks=3)
    target = target_with(fresh_db, "postgresql", ITEMS_DDL)
    # 1. A short lock: retried, then loaded.
    locker = target.connect()
    locker.execute("BEGIN")
    locker.execute("LOCK TABLE items IN SHARE MODE")
    timer = threading.Timer(1.0, lambda: locker.execute("ROLLBACK"))
    timer.start()
    events: list[Event] = []
    try:
        report = import_database(export, target.url, data_only=True, threads=1, on_event=events.append)
    finally:
        timer.join()
    assert any(isinstance(e, Retry) and "lock" in e.message.lower() for e in events)
    assert report.verify is not None and report.verify.ok
    assert target.query("SELECT COUNT(*) FROM items")[0][0] == n + 1
    # 2. A lock held for the whole retry budget: a clear error, nothing half-loaded, then --resume.
    target.execute("TRUNCATE items")
    locker.execute("BEGIN")
    locker.execute("LOCK TABLE items IN SHARE MODE")
    t0 = time.monotonic()
    try:
        with pytest.raises(DataError) as err:
            import_database(export, target.url, data_only=True, threads=1, if_exists="truncate", retry_budget=2)
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    waited = time.monotonic() - t0
    assert waited > 1.0, "gave up without backing off"
    assert err.value.table and err.value.file, str(err.value)
    assert "lock" in str(err.value).lower(), str(err.value)
    assert target.query("SELECT COUNT(*) FROM items")[0][0] == 0
    report = import_database(export, target.url, data_only=True, threads=1, resume=True)
    assert report.verify is not None and report.verify.ok
    assert target.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items")[0] == (n + 1, n + 1)
    fl.record(
        "lock timeout from a concurrent writer (retry budget)",
        "postgresql",
        2,
        2,
        0,
        0,
        retries=sum(1 for e in events if isinstance(e, Retry)),
    )


_HOLD_LOCK = {  # a session that holds a lock on the table in an open transaction
    "postgresql": ["BEGIN", "LOCK TABLE items IN ACCESS SHARE MODE"],
    "mysql": ["BEGIN", "UPDATE items SET name = name WHERE id = 1"],
    "mariadb": ["BEGIN", "UPDATE items SET name = name WHERE id = 1"],
}


def _session_id(engine: str, conn: Any) -> int:
    if engine == "postgresql":
        return int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])
    return int(_fetch(conn, "SELECT CONNECTION_ID()")[0][0])


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb"])
def test_truncate_behind_a_lock_names_the_holder_and_gives_up_within_the_budget(
    engine: str, fresh_db: Any, tmp_path: Path
) -> None:
    """--if-exists truncate while another session holds a lock on the table (an open transaction
    that read or wrote it): the import says, while it retries, what it waits for and on whom (the
    holder's session id), and stops with RetriesExhausted (exit 6, hint --resume) once the budget
    is spent; it never waits silently forever. Then the lock is released and --resume loads."""
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(500)}, chunks=2)
    target = target_with(fresh_db, engine, ITEMS_DDL)
    target.execute("INSERT INTO items (id, name) VALUES (1, 'old')")
    holder = target.connect()
    for sql in _HOLD_LOCK[engine]:
        _run(engine, holder, sql)
    holder_id = _session_id(engine, holder)
    events: list[Event] = []
    result: dict[str, Any] = {}

    def load() -> None:
        try:
            import_database(export, target.url, if_exists="truncate", retry_budget=3, on_event=events.append)
        except Exception as e:  # noqa: BLE001 - checked below
            result["error"] = e

    t0 = time.monotonic()
    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(40)
    hung = t.is_alive()
    _run(engine, holder, "ROLLBACK")
    t.join(30)
    holder.close()
    waited = time.monotonic() - t0
    assert not hung, "the import waited for the lock without end"
    err = result.get("error")
    assert isinstance(err, RetriesExhausted), repr(err)
    assert err.exit_code == 6 and "--resume" in (err.hint or "")
    assert "lock" in str(err).lower() and f"session {holder_id}" in str(err), str(err)
    retries = [e.message for e in events if isinstance(e, Retry)]
    assert retries and all(f"session {holder_id}" in m for m in retries), retries
    assert waited < 20, f"{waited:.1f} s for a budget of 3 s"
    report = import_database(export, target.url, if_exists="truncate", resume=True)
    assert report.verify is not None and report.verify.ok
    assert target.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items")[0] == (501, 501)
    fl.record(
        "lock held on a target table (--if-exists truncate), retry budget", engine, 1, 1, 0, 0, retries=len(retries)
    )


def _kill_loaders_in_flight(admin: Any, engine: str, stop: threading.Event, kills: list[int]) -> None:
    """Kill every session of the database that is running the bulk statement (LOAD DATA / COPY),
    three times, while the import streams rows into it."""
    if engine == "postgresql":
        sql = (
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND query LIKE 'COPY%' AND state = 'active'"
        )
    else:
        sql = (
            "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND id <> CONNECTION_ID() "
            "AND info LIKE 'LOAD DATA%'"
        )
    while not stop.is_set() and len(kills) < 3:
        if engine == "postgresql":
            n = sum(1 for (ok,) in admin.execute(sql).fetchall() if ok)
        else:
            n = 0
            for (pid,) in _fetch(admin, sql):
                try:
                    _run(engine, admin, f"KILL CONNECTION {int(pid)}")
                    n += 1
                except Exception:  # noqa: BLE001 - it ended meanwhile
                    pass
        if n:
            kills.append(n)
            time.sleep(0.3)
        time.sleep(0.003)


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb"])
def test_a_connection_killed_under_the_bulk_load_is_reconnected_not_bad_data(
    engine: str, fresh_db: Any, tmp_path: Path
) -> None:
    """KILL CONNECTION (pg_terminate_backend) of a loader in the middle of its LOAD DATA (COPY): a
    lost connection, retried on a new one; never a reason to load the unit row by row."""
    n = 60000
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(n)}, chunks=6)
    target = target_with(fresh_db, engine, ITEMS_DDL)
    admin = target.connect()
    events: list[Event] = []
    kills: list[int] = []
    stop = threading.Event()
    killer = threading.Thread(target=_kill_loaders_in_flight, args=(admin, engine, stop, kills))
    killer.start()
    try:
        report = import_database(export, target.url, data_only=True, threads=2, on_event=events.append)
    finally:
        stop.set()
        killer.join(30)
        admin.close()
    assert kills, "no bulk statement was caught in flight"
    slow = [e.message for e in events if isinstance(e, Warning) and "row by row" in e.message]
    assert not slow, slow
    assert any(isinstance(e, Retry) for e in events)
    assert report.verify is not None and report.verify.ok
    assert target.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM items")[0] == (n + 1, n + 1)
    fl.record("connection killed inside the bulk statement (LOAD DATA / COPY)", engine, len(kills), len(kills), 0, 0)
