"""One translation of driver errors (dbjson.connect.raise_if_connection_error), used by export and
reflection: connection-level errors become ConnectionFailed without the password, others pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dbjson.connect import is_connection_problem, parse_url, raise_if_connection_error
from dbjson.errors import ConnectionFailed, DataError


def _translate(exc: BaseException, url: str) -> BaseException:
    try:
        try:
            raise exc
        except Exception as e:  # noqa: BLE001 - the pattern the library uses
            raise_if_connection_error(e, parse_url(url))
            raise
    except BaseException as out:  # noqa: BLE001
        return out
    raise AssertionError("nothing raised")


def test_connection_errors_of_each_driver_are_translated() -> None:
    import psycopg
    import pymysql

    lost = pymysql.err.OperationalError(2013, "Lost connection to MySQL server during query")
    out = _translate(lost, "mysql+pymysql://root:s3cret@127.0.0.1:3307/shop")
    assert isinstance(out, ConnectionFailed) and "Lost connection" in str(out) and "s3cret" not in str(out)
    gone = psycopg.OperationalError("terminating connection due to administrator command")
    assert isinstance(_translate(gone, "postgresql+psycopg://postgres:pw@127.0.0.1/x"), ConnectionFailed)
    killed = pymysql.err.OperationalError(1927, "Connection was killed")
    assert isinstance(_translate(killed, "mysql+pymysql://root@127.0.0.1/x"), ConnectionFailed)
    closed = pymysql.err.InterfaceError(0, "")
    assert isinstance(_translate(closed, "mysql+pymysql://root@127.0.0.1/x"), ConnectionFailed)


def test_statement_errors_and_dbjson_errors_pass_unchanged() -> None:
    import psycopg
    import pymysql

    for exc in (
        pymysql.err.ProgrammingError(1064, "syntax"),
        psycopg.errors.UndefinedTable("no table"),
        pymysql.err.OperationalError(1213, "Deadlock found"),
        pymysql.err.OperationalError(1205, "Lock wait"),
        DataError("bad row", table="t"),
        ValueError("x"),
    ):
        assert _translate(exc, "mysql+pymysql://root@127.0.0.1/x") is exc
        assert not is_connection_problem(exc)


def test_a_killed_session_during_export_is_a_connection_error(fresh_db: Any, tmp_path: Path) -> None:
    """Real server: the export's session is terminated while it streams rows."""
    import threading
    import time

    from dbjson.export import export_database

    db = fresh_db("postgresql")
    db.execute(
        "CREATE TABLE big (id int PRIMARY KEY, v text); "
        "INSERT INTO big SELECT g, repeat('x', 500) FROM generate_series(1, 400000) g;"
    )
    dbname = db.query("SELECT current_database()")[0][0]

    def kill() -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            rows = db.query(
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{dbname}' "
                "AND pid <> pg_backend_pid() AND query ILIKE '%big%'"
            )
            if rows:
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill)
    killer.start()
    try:
        with pytest.raises(ConnectionFailed, match="cannot connect to"):
            export_database(db.url, tmp_path / "out", threads=1)
    finally:
        killer.join()


def test_load_errors_are_classified_by_cause() -> None:
    """The importer's classification (``engine.load_error_kind``): a server out of disk space or
    memory is a 'resource' (no retry, no row-by-row search for a bad row), a lost connection a
    'disconnect' (reconnect and retry), a lock timeout a 'retry', a refused value 'data'."""
    import sqlite3

    import psycopg
    import pymysql

    from dbjson.engines import get_engine

    pg, my, lite = get_engine("postgresql"), get_engine("mariadb"), get_engine("sqlite")

    def _pg(state: str, msg: str) -> BaseException:
        return psycopg.errors.lookup(state)(msg)  # the class the driver raises for that SQLSTATE

    assert pg.load_error_kind(_pg("53100", 'could not extend file "base/1/2": No space left on device')) == "resource"
    assert pg.load_error_kind(_pg("53200", "out of memory")) == "resource"
    assert pg.load_error_kind(_pg("55P03", "canceling statement due to lock timeout")) == "retry"
    assert pg.load_error_kind(_pg("57P01", "terminating connection due to administrator command")) == "disconnect"
    assert pg.load_error_kind(ConnectionFailed("cannot connect")) == "disconnect"
    assert my.load_error_kind(pymysql.err.OperationalError(1114, "The table 'items' is full")) == "resource"
    assert my.load_error_kind(pymysql.err.OperationalError(1021, "Disk full (/tmp/x)")) == "resource"
    assert (
        my.load_error_kind(
            pymysql.err.OperationalError(3, "Error writing file 'x' (Errcode: 28 \"No space left on device\")")
        )
        == "resource"
    )
    assert (
        my.load_error_kind(pymysql.err.OperationalError(2013, "Lost connection to server during LOAD DATA"))
        == "disconnect"
    )
    assert my.load_error_kind(pymysql.err.OperationalError(1205, "Lock wait timeout exceeded")) == "retry"
    assert my.load_error_kind(pymysql.err.DataError(1406, "Data too long for column 'name'")) == "data"
    assert lite.load_error_kind(sqlite3.OperationalError("database or disk is full")) == "resource"
    assert lite.load_error_kind(sqlite3.OperationalError("database is locked")) == "retry"
