"""SQLite load: ``executemany`` inside one transaction per unit, a single writer.

SQLite serializes writers, so the importer loads SQLite units one at a time
(``capabilities.parallel_writers`` is False); reading and converting still overlap with the writes of
the sqlite3 module, which releases the GIL while it steps statements. Session for loading:
``PRAGMA synchronous = NORMAL`` and a busy timeout; foreign keys stay off during the load.
"""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from ...connect import sqlite_connect_args
from ...errors import ConnectionFailed, DataError, UnsupportedError
from ...format.decoders import dec_opaque, is_date_text, is_zero_date_text
from ...format.encoders import round_significant
from ..shared.loading import in_savepoint, row_batches

if TYPE_CHECKING:
    from ... import model as m
    from ...connect import Target
    from ..interface import LoadErrorKind, TablePlan


def _quote(ident: str) -> str:
    """An always-quoted identifier."""
    return '"' + ident.replace('"', '""') + '"'


def _date_check(kind: str, zero_is_error: bool) -> Callable[[Any], Any]:
    """SQLite stores dates as text: the text must be a date (not any string), zero dates per policy;
    a timestamp is written in SQLite's own form, ``YYYY-MM-DD HH:MM:SS[.fff]`` (what its
    CURRENT_TIMESTAMP and date functions write: one form per column), UTC without the ``Z``."""

    def check(v: Any) -> Any:
        if type(v) is not str or not is_date_text(v):
            raise DataError(f"not a valid {kind} value", value=v)
        if zero_is_error and is_zero_date_text(v):
            raise DataError("zero date (--zero-dates error)")
        if len(v) > 10 and v[10] == "T":
            v = v[:10] + " " + v[11:]
        return v[:-1] if v.endswith("Z") else v

    return check


class SQLiteLoad:
    """The SQLite side of ``dbjson import`` and ``dbjson verify``."""

    # -- connections ----------------------------------------------------------------------------
    def load_connect(self, target: Target, *, data_only: bool = False, lock_timeout: float = 10.0) -> Any:
        """A connection in autocommit mode (the importer opens the transactions); a locked
        database is waited for ``lock_timeout`` seconds at a time (then the importer retries);
        ``synchronous = FULL``: a unit journaled done survives a power loss too (one sync per unit)."""
        # the URL's file and options, as for every connection (a dry run: read-only, or empty if missing)
        path, kw = sqlite_connect_args(target.url, read_only=target.read_only, missing_ok=True)
        kw.setdefault("timeout", lock_timeout)
        try:
            conn = sqlite3.connect(path, **{**kw, "isolation_level": None, "check_same_thread": False})
        except sqlite3.Error as e:
            raise ConnectionFailed(f"cannot open SQLite database {path}: {e}") from None
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = OFF")
        return conn

    def load_disconnect(self, conn: Any) -> None:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.execute("PRAGMA synchronous = FULL")
        finally:
            conn.close()

    def load_interrupt(self, conn: Any, target: Target) -> None:
        conn.interrupt()

    # -- transactions ---------------------------------------------------------------------------
    def load_begin(self, conn: Any) -> None:
        conn.execute("BEGIN IMMEDIATE")

    def load_commit(self, conn: Any) -> None:
        conn.execute("COMMIT")

    def load_rollback(self, conn: Any) -> None:
        if conn.in_transaction:
            conn.execute("ROLLBACK")

    def load_execute_ddl(self, conn: Any, sql: str) -> None:
        conn.execute(sql)

    # -- catalog --------------------------------------------------------------------------------
    def load_existing_tables(self, conn: Any, schemas: set[str | None]) -> set[tuple[str | None, str]]:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return {(None, r[0]) for r in rows}

    def _name(self, schema: str | None, table: str) -> str:
        return _quote(table)

    def load_truncate(self, conn: Any, schema: str | None, table: str) -> None:
        conn.execute(f"DELETE FROM {self._name(schema, table)}")

    def load_drop(self, conn: Any, schema: str | None, table: str) -> None:
        conn.execute(f"DROP TABLE IF EXISTS {self._name(schema, table)}")

    def load_count(self, conn: Any, schema: str | None, table: str) -> int:
        return int(conn.execute(f"SELECT count(*) FROM {self._name(schema, table)}").fetchone()[0])

    def load_collations(self, conn: Any, schema: str | None, table: str) -> dict[str, str]:
        """Columns declared ``COLLATE NOCASE`` (case-insensitive for ASCII)."""
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
        out: dict[str, str] = {}
        if not sql or "NOCASE" not in (sql[0] or "").upper():
            return out
        for cid, name, *_rest in conn.execute(f"PRAGMA table_info({self._name(schema, table)})"):
            del cid
            if f"{name}" in sql[0] and "NOCASE" in sql[0].upper().split(name.upper(), 1)[-1].split(",", 1)[0]:
                out[name] = "nocase_ci"
        return out

    # -- values ---------------------------------------------------------------------------------
    def load_converter(self, src: m.Type, tgt: m.Type, *, zero_dates: str = "null") -> Callable[[Any], Any] | None:
        """JSON value (non-null) → a Python value for sqlite3 (None: the JSON value as is)."""
        sk = src.kind
        if sk == "opaque":  # an untyped value keeps its storage class: int, float, str or bytes (typeof())
            return dec_opaque
        if sk in ("char", "varchar", "text", "enum", "uuid", "decimal", "time", "interval"):
            return None
        if sk in ("date", "timestamp"):
            return _date_check(sk, zero_dates == "error")
        if sk == "boolean":
            return lambda v: 1 if v else 0
        if sk in ("binary", "varbinary", "blob"):
            return lambda v: base64.b64decode(v, validate=True)
        if sk == "geometry":
            return bytes.fromhex
        if sk == "integer" or sk == "year":
            return int
        if sk == "float":

            def double(v: Any) -> Any:
                if v == "NaN":  # SQLite has no NaN: it would store NULL without a word
                    raise DataError("NaN does not fit a SQLite number (it would be stored as NULL)")
                return float(v) if type(v) is str else v

            return double
        if sk == "set":
            if tgt.kind == "json":  # SET kept as a JSON array (the set-json rule): the array as JSON text
                return lambda v: orjson.dumps(v).decode()
            return lambda v: ",".join(v)
        if sk in ("json", "array", "vector"):
            return lambda v: orjson.dumps(v).decode()
        return lambda v: v

    # -- loading --------------------------------------------------------------------------------
    def _insert_sql(self, tp: TablePlan) -> str:
        q = _quote
        cols = [q(c) for c in tp.insert_columns]
        table = self._name(tp.tschema, tp.tname)
        if not tp.exprs:
            return f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        inner = ", ".join(f"? AS {c}" for c in cols)  # the source values, seen by the expressions
        direct = [q(c) for c in tp.direct_columns]
        targets = direct + [q(c) for c in tp.exprs]
        return (
            f"INSERT INTO {table} ({', '.join(targets)}) SELECT {', '.join(direct + list(tp.exprs.values()))} "
            f"FROM (SELECT {inner})"
        )

    def load_unit(self, conn: Any, tp: TablePlan, rows: Iterator[tuple[Any, ...]]) -> int:
        sql = self._insert_sql(tp)
        n = 0
        for batch in row_batches(rows):
            conn.executemany(sql, batch)
            n += len(batch)
        return n

    def load_row_safely(self, conn: Any, tp: TablePlan, row: tuple[Any, ...]) -> None:
        in_savepoint(conn.execute, lambda: conn.execute(self._insert_sql(tp), row))

    # -- errors ---------------------------------------------------------------------------------
    def load_error_kind(self, exc: BaseException) -> LoadErrorKind:
        text = str(exc).lower()
        if isinstance(exc, sqlite3.OperationalError) and (
            "locked" in text or "busy" in text or "schema has changed" in text
        ):
            return "retry"
        if "already exists" in text:
            return "exists"
        if "disk is full" in text or "out of memory" in text:
            return "resource"
        if isinstance(exc, (sqlite3.IntegrityError, sqlite3.DataError)):
            return "data"
        return "other"

    def load_error_column(self, exc: BaseException, tp: TablePlan, row: tuple[Any, ...]) -> tuple[str | None, Any]:
        text = str(exc)
        for i, c in enumerate(tp.insert_columns):
            if f".{c}" in text or f"column {c}" in text:
                return c, row[i]
        return None, None

    # -- verify ---------------------------------------------------------------------------------
    def verify_select(
        self, conn: Any, tp: TablePlan, part: tuple[str, int, int] | None = None
    ) -> Iterator[tuple[Any, ...]]:
        """The target rows of ``tp.verify_columns`` (the whole table: ``part`` is unsupported)."""
        if part is not None:
            raise UnsupportedError("SQLite reads a table back whole (no verify parts)")
        cols = ", ".join(_quote(name) for _c, name, _t in tp.verify_columns)
        yield from conn.execute(f"SELECT {cols} FROM {self._name(tp.tschema, tp.tname)}")

    def verify_adapters(self, tp: TablePlan) -> dict[str, Callable[[Any], Any]]:
        from .export import stored_blobs

        out: dict[str, Callable[[Any], Any]] = stored_blobs([c for c, _n, _t in tp.verify_columns])
        for src, _name, tgt in tp.verify_columns:
            if src.type.kind in ("array", "vector") or (src.type.kind == "set" and tgt.kind == "json"):
                out[src.name] = lambda v: orjson.loads(v) if isinstance(v, (str, bytes)) else v
            elif tp.value_rules.get(src.name) == "decimal-double":  # the export's lines are rounded alike
                out[src.name] = round_significant
        return out
