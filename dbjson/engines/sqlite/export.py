"""SQLite export: every worker reads the same snapshot; rows encoded by the Python codec.

Snapshot: the coordinator takes the write lock (``BEGIN IMMEDIATE``: no other connection can
commit), every worker then starts a read transaction and reads once (which fixes its snapshot: a
WAL read mark, or a SHARED lock in rollback-journal mode), and the coordinator releases the write
lock. All workers therefore see the same committed state. The lock is taken on a read-write
connection of its own (``mode=rw``: never creates the file, writes nothing): on the read-only
connections the workers read with, ``BEGIN IMMEDIATE`` takes no write lock at all, so in WAL mode
a writer could commit between two workers' snapshots, and in rollback-journal mode a writer's
COMMIT (its PENDING lock) could keep the workers from starting while it waits for the
coordinator. If the write lock cannot be taken (a read-only file or directory, a long writer) each
worker takes its own snapshot (mode ``per-worker``).

SQLite values are dynamically typed, so rows always go through :class:`dbjson.format.codec.RowEncoder`,
which checks each value against the column's declared kind.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import orjson

from ... import model as m
from ...connect import Target, check_sqlite_exists, sqlite_connect_args
from ...errors import DataError
from ...format.codec import RowEncoder
from ...format.encoders import StoredBlob
from ...format.manifest import SnapshotInfo
from ..interface import ExportUnit as Unit
from ..shared.sqlexport import SQLExportBase, encoded_blocks

FETCH_ROWS = 5000


class SQLiteExport(SQLExportBase):
    mark = "?"

    def export_connect(self, target: Target) -> Any:
        """A connection usable from a worker thread, with explicit transactions."""
        check_sqlite_exists(target.url)  # a source is read, never created
        filename, kw = sqlite_connect_args(target.url, read_only=True)  # the URL's file and options, read-only
        kw.setdefault("timeout", 30)
        return sqlite3.connect(filename, **{**kw, "check_same_thread": False, "isolation_level": None})

    def export_session(self, conn: Any) -> None:
        conn.isolation_level = None

    def export_snapshot(self, coordinator: Any, workers: Sequence[Any], warn: Callable[[str], None]) -> SnapshotInfo:
        def start(conn: Any) -> None:
            conn.execute("BEGIN")
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()

        if coordinator is None:
            start(workers[0])
            return SnapshotInfo(mode="single-connection")
        locker: Any = None
        try:
            locker = self._lock_connection(coordinator)
            self._write_lock(locker)
        except sqlite3.Error as e:
            if locker not in (None, coordinator):
                locker.close()
            warn(f"cannot take the SQLite write lock ({e}); each worker uses its own snapshot")
            for w in workers:
                start(w)
            return SnapshotInfo(mode="per-worker", consistent=len(workers) <= 1)
        try:
            for w in workers:
                start(w)
        finally:
            locker.execute("ROLLBACK")
            if locker is not coordinator:
                locker.close()
        return SnapshotInfo(mode="sqlite-write-lock")

    @staticmethod
    def _lock_connection(conn: Any) -> Any:
        """A read-write connection to the file ``conn`` reads (``mode=rw``: fails rather than
        create it), for the write lock only. An in-memory or temporary database has no other
        writer: its own connection serves."""
        path = next((r[2] for r in conn.execute("PRAGMA database_list").fetchall() if r[1] == "main"), "")
        if not path:
            return conn
        return sqlite3.connect(
            "file:" + urllib.parse.quote(path) + "?mode=rw",
            uri=True,
            isolation_level=None,
            check_same_thread=False,
        )

    @staticmethod
    def _write_lock(conn: Any, wait: float = 30.0) -> None:
        """``BEGIN IMMEDIATE``, polling: SQLite's busy handler sleeps too long to ever catch the
        short gaps between the transactions of a busy writer."""
        conn.execute("PRAGMA busy_timeout = 0")
        deadline = time.monotonic() + wait
        try:
            while True:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as e:
                    if "locked" not in str(e) or time.monotonic() > deadline:
                        raise
                    time.sleep(0.0002)
        finally:
            conn.execute("PRAGMA busy_timeout = 30000")

    def export_abort(self, conn: Any) -> None:
        conn.interrupt()

    def export_current_schema(self, conn: Any) -> str | None:
        return "main"

    def export_json_text(self, column: m.Column) -> bool:
        """SQLite keeps what a column declared JSON holds as text (JSON functions parse it each time)."""
        return column.type.kind == "json"

    def _fetch(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(conn.execute(sql, tuple(params)).fetchall())

    def export_stream(self, conn: Any, unit: Unit, stop: threading.Event) -> Iterator[bytes]:
        """Blocks of complete canonical lines for one unit."""
        cond, params = self.export_conditions(unit)
        cols = ", ".join(self.quote(c.name) for c in unit.table.columns)
        cur = conn.execute(f"SELECT {cols} FROM {self.export_qualify(unit.schema, unit.table)}{cond}", tuple(params))
        enc = RowEncoder(
            unit.table.columns, {**_json_checks(unit.table), **stored_blobs(unit.table.columns)}, unit.json_text
        )
        try:
            yield from encoded_blocks(cur.fetchmany, enc, stop, FETCH_ROWS)
        finally:
            cur.close()


def stored_blobs(columns: Sequence[m.Column]) -> dict[str, Callable[[Any], Any]]:
    """Adapters that mark the blobs of untyped columns (:class:`~dbjson.format.encoders.StoredBlob`),
    so that they are written as blobs (``{"$blob": ...}``), not as text: each value keeps its storage class."""
    return {c.name: _mark_blob for c in columns if c.type.kind == "opaque"}


def _mark_blob(v: Any) -> Any:
    return StoredBlob(v) if type(v) is bytes else v


def _json_checks(table: m.Table) -> dict[str, Callable[[Any], Any]]:
    """Adapters that refuse text which is not JSON in a JSON column (SQLite does not check what a
    column declared JSON holds; the codec passes JSON text through as is, so such a value would
    make a malformed line). The error names the table, the column and the value."""
    out: dict[str, Callable[[Any], Any]] = {}
    for c in table.columns:
        if c.type.kind != "json":
            continue

        def check(v: Any, _name: str = c.name) -> Any:
            if isinstance(v, (str, bytes)):
                try:
                    orjson.loads(v)
                except orjson.JSONDecodeError as e:
                    raise DataError(
                        f"text that is not JSON in a JSON column ({e})",
                        table=table.name,
                        column=_name,
                        value=v,
                        hint="fix the value, or declare the column TEXT if it is not meant to hold JSON",
                    ) from None
            return v

        out[c.name] = check
    return out
