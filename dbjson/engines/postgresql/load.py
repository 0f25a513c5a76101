"""PostgreSQL bulk load: ``COPY ... FROM STDIN`` (text format) built in Python, one unit per transaction.

Values arrive as canonical JSON values (see the row encoding contract) and become PostgreSQL's
input text, which COPY parses on the server. Session for loading: ``synchronous_commit`` at least
``on`` (the importer journals a unit done when its COMMIT returns, so that commit must be durable:
one WAL flush per unit; the rows before it stream without waiting), ``TimeZone = UTC``, ISO date
style. With ``--data-only`` into tables that already
carry foreign keys and triggers, ``session_replication_role = replica`` is tried so that units
can load in any order (superuser only; otherwise the load runs with the checks on).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from ...connect import connection_error, postgresql_connect_args
from ...drivers import import_psycopg
from ...errors import ConnectionFailed, DataError, UsageError, first_line
from ...format.decoders import is_date_text, is_zero_date_text, opaque_text
from ..shared.batches import byte_batches
from ..shared.bulktext import COPY_TEXT, encode_rows
from ..shared.bulktext import scalar_text as _text
from ..shared.loading import error_column_value, in_savepoint, row_batches

if TYPE_CHECKING:
    from ... import model as m
    from ...connect import Target
    from ..interface import LoadErrorKind, TablePlan

_RETRY_STATES = {"40001", "40P01", "55P03", "57P03", "53300"}  # 53300: too many connections
_RESOURCE_STATES = {"53100", "53200", "53400"}  # disk full, out of memory, a configured limit
_DISCONNECT_STATES = {"57P01", "57P02", "08000", "08003", "08006", "08001", "08004"}
_EXISTS_STATES = {"42P07", "42710", "42P06", "42723", "42P16"}
_DATE_KINDS = ("date", "timestamp")


def _date_text(v: Any) -> Any:
    """A date/timestamp value as PostgreSQL input text, refused unless it is the format's date text."""
    if type(v) is not str or not is_date_text(v):
        raise DataError("not a valid date/time value", value=v)
    return v


# Kinds whose canonical JSON value (a string, or an integer number) is PostgreSQL's input text.
_PASS_KINDS = frozenset(
    {
        "char",
        "varchar",
        "text",
        "enum",
        "uuid",
        "inet",
        "macaddr",
        "xml",
        "opaque",
        "range",
        "interval",
        "time",
        "decimal",
        "money",
        "integer",
        "year",
    }
)


def _quote(ident: str) -> str:
    """An always-quoted identifier."""
    return '"' + ident.replace('"', '""') + '"'


def _array_literal(v: Any) -> str:
    """A PostgreSQL array literal (``{"a","b",NULL}``) from a JSON array (nested for more dims)."""
    parts = []
    for x in v:
        if x is None:
            parts.append("NULL")
        elif isinstance(x, list):
            parts.append(_array_literal(x))
        else:
            text = (
                x
                if isinstance(x, str)
                else (orjson.dumps(x).decode() if not isinstance(x, bool) else ("t" if x else "f"))
            )
            parts.append('"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return "{" + ",".join(parts) + "}"


class PostgreSQLLoad:
    """The PostgreSQL side of ``dbjson import`` and ``dbjson verify``."""

    # -- connections ----------------------------------------------------------------------------
    def load_connect(self, target: Target, *, data_only: bool = False, lock_timeout: float = 10.0) -> Any:
        """A psycopg connection set up for bulk loading (transactions managed by the importer)."""
        psycopg = import_psycopg()  # not `import psycopg`: its version without importlib.metadata

        u = target.url
        args = postgresql_connect_args(u)  # the URL's arguments as for every other connection
        try:
            conn = psycopg.connect(**args, autocommit=True)
        except Exception as e:  # noqa: BLE001
            raise connection_error(e, u) from None
        # The journal records a unit (or a DDL statement) done when COMMIT returns: with
        # synchronous_commit = off a server crash in the next ~200 ms loses a unit the journal says
        # is done (and --resume skips it). One flushed commit per unit costs little.
        # A lock another session holds is waited for ``lock_timeout`` seconds at a time (then the importer
        # names the holders and retries within its budget), unless the role or the connection
        # set a lock_timeout of its own.
        sync, waits = conn.execute(
            "SELECT current_setting('synchronous_commit'), current_setting('lock_timeout')"
        ).fetchone() or ("on", "0")
        if sync == "off":
            conn.execute("SET synchronous_commit = on")
        if waits == "0":
            conn.execute(f"SET lock_timeout = '{max(1, int(lock_timeout * 1000))}ms'")
        conn.execute("SET TIME ZONE 'UTC'")
        conn.execute("SET datestyle = 'ISO, YMD'")
        conn.execute("SET intervalstyle = 'iso_8601'")
        conn.execute("SET extra_float_digits = 1")
        if target.read_only:  # a dry run: any write would be refused by the server
            conn.execute("SET default_transaction_read_only = on")
        if data_only:
            try:
                conn.execute("SET session_replication_role = replica")
            except Exception:  # noqa: BLE001 - not a superuser: load with the checks on
                pass
        return conn

    def load_disconnect(self, conn: Any) -> None:
        """Restore the session settings and close."""
        try:
            if not conn.closed:
                conn.rollback()
                conn.execute("RESET ALL")
        finally:
            conn.close()

    def load_interrupt(self, conn: Any, target: Target) -> None:
        """Cancel the statement running on ``conn`` (called from another thread)."""
        conn.cancel_safe(timeout=3.0)

    # -- transactions ---------------------------------------------------------------------------
    def load_begin(self, conn: Any) -> None:
        conn.execute("BEGIN")

    def load_commit(self, conn: Any) -> None:
        conn.execute("COMMIT")

    def load_rollback(self, conn: Any) -> None:
        if not conn.closed:
            conn.execute("ROLLBACK")

    def load_execute_ddl(self, conn: Any, sql: str) -> None:
        conn.execute(sql, binary=True)  # extended protocol: one statement only (see dbjson.schemaload)

    # -- catalog --------------------------------------------------------------------------------
    def load_existing_roles(self, conn: Any) -> set[str] | None:
        return {r[0] for r in conn.execute("SELECT rolname FROM pg_roles").fetchall()} | {"PUBLIC"}

    def load_existing_tables(self, conn: Any, schemas: set[str | None]) -> set[tuple[str | None, str]]:
        names = [s or "public" for s in schemas]
        rows = conn.execute(
            "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = ANY(%s)", (names,)
        ).fetchall()
        return {(s, t) for s, t in rows}

    def _name(self, schema: str | None, table: str) -> str:
        return f"{_quote(schema)}.{_quote(table)}" if schema else _quote(table)

    def load_truncate(self, conn: Any, schema: str | None, table: str) -> None:
        self.load_truncate_tables(conn, [(schema, table)])

    def load_truncate_tables(self, conn: Any, tables: Sequence[tuple[str | None, str]]) -> None:
        """Empty ``tables`` in one statement (tables referencing each other can only be emptied
        together), never with CASCADE: a table outside the import that references one of them
        makes it fail, instead of silently emptying that table too."""
        names = ", ".join(self._name(s, t) for s, t in tables)
        try:
            conn.execute(f"TRUNCATE TABLE {names}")
        except Exception as e:  # noqa: BLE001 - psycopg.errors.FeatureNotSupported
            if getattr(e, "sqlstate", None) != "0A000":
                raise
            diag = getattr(e, "diag", None)
            detail = " ".join(
                x for x in (getattr(diag, "message_primary", None), getattr(diag, "message_detail", None)) if x
            )
            raise UsageError(
                f"--if-exists truncate: {detail or first_line(e)}",
                hint="include the referencing tables in the import, or use --if-exists replace",
            ) from None

    def load_drop(self, conn: Any, schema: str | None, table: str) -> None:
        conn.execute(f"DROP TABLE IF EXISTS {self._name(schema, table)} CASCADE")

    def load_count(self, conn: Any, schema: str | None, table: str) -> int:
        return int(conn.execute(f"SELECT count(*) FROM {self._name(schema, table)}").fetchone()[0])

    def load_not_null_columns(self, conn: Any, schema: str | None, table: str) -> set[str]:
        """The table's NOT NULL columns (as created on the target)."""
        rows = conn.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
            "AND attnotnull AND NOT attisdropped",
            (self._name(schema, table),),
        ).fetchall()
        return {r[0] for r in rows}

    def load_collations(self, conn: Any, schema: str | None, table: str) -> dict[str, str]:
        """Non-deterministic (case/accent-insensitive) collations of the table's columns."""
        rows = conn.execute(
            """SELECT a.attname, c.collname FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation
               WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT c.collisdeterministic""",
            (self._name(schema, table),),
        ).fetchall()
        return {a: f"{c}_ci" for a, c in rows}

    # -- values ---------------------------------------------------------------------------------
    def load_converter(self, src: m.Type, tgt: m.Type, *, zero_dates: str = "null") -> Callable[[Any], Any] | None:
        """JSON value (non-null) of a ``src`` column → PostgreSQL input text for a ``tgt`` column.

        None means "as is": the JSON string or number is already the input text.
        """
        sk, tk = src.kind, tgt.kind
        if sk == "opaque" and tk in _PASS_KINDS:  # an untyped value of any storage class: its text
            return opaque_text
        if sk in _PASS_KINDS and tk in _PASS_KINDS:
            return None
        if sk in _DATE_KINDS and tk == sk and not src.allows_zero:
            return _date_text  # as is, once it is a date ('yesterday' is one for PostgreSQL, not for the format)
        if tk == "boolean":
            return lambda v: "t" if (v is True or (v not in (False, 0, "0", "f", "false") and bool(v))) else "f"
        if sk == "boolean":
            return lambda v: "1" if v else "0"
        if tk in ("binary", "varbinary", "blob") or (tk == "geometry" and sk != "geometry"):
            if sk == "geometry":
                return lambda v: "\\x" + v
            return lambda v: "\\x" + base64.b64decode(v, validate=True).hex()
        if tk == "float" or sk == "float":
            return lambda v: v if type(v) is str else repr(v) if type(v) is float else str(v)
        if sk in _DATE_KINDS:
            return self._zero_date_converter(zero_dates)
        if tk == "json" or sk == "json":
            return lambda v: orjson.dumps(v).decode()
        if tk == "array" or (sk == "set" and tk != "text" and tk != "varchar"):
            return lambda v: _array_literal(v) if isinstance(v, list) else str(v)
        if sk == "set":
            return lambda v: ",".join(v)
        if sk in ("array", "vector"):
            return lambda v: orjson.dumps(v).decode() if tk not in ("array", "vector") else _array_literal(v)
        return _text

    def load_bulk_op(self, src: m.Type, tgt: m.Type, *, zero_dates: str = "null") -> str | None:
        """What :meth:`load_converter` does to a ``src`` value for a ``tgt`` column, as the name of
        a ``dbjson._cimport`` op (branch by branch the same order), or None: no C op."""
        sk, tk = src.kind, tgt.kind
        if sk in _PASS_KINDS and tk in _PASS_KINDS:
            return "pass"
        if sk in _DATE_KINDS and tk == sk and not src.allows_zero:
            return "pgdate"
        if tk == "boolean":
            return "pgbool"
        if sk == "boolean":
            return "bool10"
        if tk in ("binary", "varbinary", "blob") or (tk == "geometry" and sk != "geometry"):
            return None if sk == "geometry" else "b64hex"
        if tk == "float" or sk == "float":
            return "floatpass"
        if sk in _DATE_KINDS:
            return "pgdatez"
        if tk == "json" or sk == "json":
            return "jsondump"
        if tk == "array" or sk in ("set", "array", "vector"):
            return None
        return "pass"  # scalar_text

    @staticmethod
    def _zero_date_converter(zero_dates: str) -> Callable[[Any], Any]:
        def conv(v: Any) -> Any:
            if type(v) is not str or not is_date_text(v):
                raise DataError("not a valid date/time value", value=v)
            if is_zero_date_text(v):
                if zero_dates == "error":
                    raise DataError("zero date: PostgreSQL cannot hold it (--zero-dates null loads NULL)")
                return None
            return v

        return conv

    # -- loading --------------------------------------------------------------------------------
    def _copy_sql(self, tp: TablePlan, into: str | None = None) -> str:
        cols = ", ".join(_quote(c) for c in tp.insert_columns)
        return f"COPY {into or self._name(tp.tschema, tp.tname)} ({cols}) FROM STDIN"

    def load_unit(self, conn: Any, tp: TablePlan, rows: Iterator[tuple[Any, ...]]) -> int:
        """COPY the rows into the table (inside the caller's transaction); returns the row count."""
        if tp.exprs:
            return self._load_with_exprs(conn, tp, rows)
        return self._copy(conn, self._copy_sql(tp), rows)

    @staticmethod
    def _copy(conn: Any, sql: str, rows: Iterator[tuple[Any, ...]]) -> int:
        n = 0
        with conn.cursor() as cur, cur.copy(sql) as cp:
            for batch in row_batches(rows):
                cp.write(encode_rows(batch, COPY_TEXT))
                n += len(batch)
        return n

    def load_can_encode(self, conn: Any, tp: TablePlan) -> bool:
        """Whether rows encoded elsewhere (``load_encode_rows``) can be streamed for ``tp``: not
        with ``--set-sql`` expressions (those load through a staging table)."""
        return not tp.exprs

    def load_unit_encoded(self, conn: Any, tp: TablePlan, blocks: Iterator[bytes]) -> int:
        """COPY blocks of already encoded COPY text; returns the server's row count."""
        with conn.cursor() as cur:
            with cur.copy(self._copy_sql(tp)) as cp:
                for block in blocks:
                    cp.write(block)
            return int(cur.rowcount)

    def _load_with_exprs(self, conn: Any, tp: TablePlan, rows: Iterator[tuple[Any, ...]]) -> int:
        """COPY into a temporary staging table, then INSERT ... SELECT with the --set-sql expressions
        (evaluated over the staged source values)."""
        q = _quote
        table = self._name(tp.tschema, tp.tname)
        cols = ", ".join(q(c) for c in tp.insert_columns)
        conn.execute("DROP TABLE IF EXISTS pg_temp._dbjson_stage")
        conn.execute(f"CREATE TEMP TABLE _dbjson_stage ON COMMIT DROP AS SELECT {cols} FROM {table} WITH NO DATA")
        n = self._copy(conn, self._copy_sql(tp, into="pg_temp._dbjson_stage"), rows)
        # the expressions see the staged (source) values, a column they replace included
        direct = [q(c) for c in tp.direct_columns]
        exprs = list(tp.exprs.values())
        targets = ", ".join(direct + [q(c) for c in tp.exprs])
        conn.execute(f"INSERT INTO {table} ({targets}) SELECT {', '.join(direct + exprs)} FROM pg_temp._dbjson_stage")
        conn.execute("DROP TABLE pg_temp._dbjson_stage")
        return n

    # -- the native row stream (a same-engine migrate) -------------------------------------------
    def load_native_refusal(self, tp: TablePlan, source: Any) -> str | None:
        """Why ``tp``'s rows cannot be copied as COPY text from ``source`` (see
        :meth:`PostgreSQLExport.export_native_stream`), or None."""
        from .export import is_large_object

        me: Any = self
        if source.capabilities.native_stream != me.capabilities.native_stream:
            return f"the source is {source.name}"
        if source.version[:1] > me.version[:1]:
            return f"the target server ({me.server_version}) is older than the source ({source.server_version})"
        if tp.altered:
            return "column options change the values"
        if tp.value_rules:
            return "values are changed by policy (" + ", ".join(sorted(set(tp.value_rules.values()))) + ")"
        if not tp.columns:
            return "no column to copy"
        for c, t in zip(tp.columns, tp.target_types):
            if c.type != t:
                return f"column {c.name} changes type ({c.type.kind} to {t.kind}: --cast)"
            if is_large_object(c):
                return f"column {c.name} holds large object ids (their contents are copied)"
            if c.type.kind == "money" or (c.type.element is not None and c.type.element.kind == "money"):
                return f"column {c.name} is money (its text depends on lc_monetary)"
        return None

    def load_native_unit(self, conn: Any, tp: TablePlan, blocks: Iterator[bytes]) -> int:
        """COPY text rows from another PostgreSQL server into ``tp`` (the caller's transaction): the
        bytes are UTF-8 (the export session's client_encoding); input functions read the ISO
        dates and ISO 8601 intervals of the export session whatever the target's styles."""
        conn.execute("SET LOCAL client_encoding = 'UTF8'")
        return self.load_unit_encoded(conn, tp, blocks)

    def verify_native_checksum(
        self,
        target: Target,
        tp: TablePlan,
        part: tuple[str, int, int] | None = None,
        seal: dict[str, int] | None = None,
    ) -> Any:
        """The checksum of ``COPY (SELECT target_names FROM the table) TO STDOUT`` on a connection
        set up as the export's (:meth:`export_session`, a read-only transaction), or None;
        ``part`` = (integer key column, k, n): only the rows whose key is k modulo n. ``seal``:
        filled, in the same snapshot (the transaction is REPEATABLE READ), with the number of
        rows per ``xmin`` of the whole table (:meth:`verify_native_unchanged`)."""
        import dataclasses
        import threading

        from ...format.checksum import Checksum
        from ..interface import ExportUnit

        engine: Any = self
        try:
            conn = engine.export_connect(target)
        except Exception:  # noqa: BLE001 - the full check connects and reports its own way
            return None
        total = Checksum(algorithm=tp.checksum_algorithm)
        try:
            engine.export_session(conn)
            engine.export_snapshot(None, [conn], lambda _m: None)
            schema = tp.tschema if tp.tschema is not None else engine.export_current_schema(conn)
            where = None
            if part is not None:
                key, k, n = _quote(part[0]), int(part[1]), int(part[2])
                where = f"({key} % {n} + {n}) % {n} = {k}"
            unit = ExportUnit(schema, dataclasses.replace(tp.table, name=tp.tname), where=where)
            for block in engine.export_native_stream(conn, unit, tp.target_names, threading.Event()):
                total.add_block(block)
            if seal is not None:  # of the whole table, even when reading a part
                seal.update(_rows_by_xmin(conn, engine.export_qualify(schema, unit.table), tp.target_names))
        except Exception:  # noqa: BLE001 - the full check reads the table its own way (and reports)
            return None
        finally:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass
        return total

    def verify_native_unchanged(self, target: Target, tp: TablePlan, seal: dict[str, int]) -> bool:
        """The rows per ``xmin`` now equal to ``seal`` (taken with the read-back, see
        :meth:`verify_native_checksum`): then no row changed since. Every insert or update writes a
        row version whose ``xmin`` is its transaction's (or subtransaction's) id, and a transaction
        whose rows were visible to the read-back had committed before it, so it writes nothing
        later: a new or updated row brings an ``xmin`` the seal lacks, a deleted one lowers a
        count. (``xmin`` is kept by VACUUM, freezing, CLUSTER and VACUUM FULL, which change no
        content; a rewrite by ALTER TABLE writes new row versions.) The column list is named so
        that a dropped or renamed column fails here too. A scan of the table's rows without
        their values' output functions: a fraction of reading them back."""
        engine: Any = self
        if not seal:
            return False
        try:
            conn = engine.export_connect(target)
        except Exception:  # noqa: BLE001 - the full check connects and reports its own way
            return False
        try:
            engine.export_session(conn)
            engine.export_snapshot(None, [conn], lambda _m: None)
            schema = tp.tschema if tp.tschema is not None else engine.export_current_schema(conn)
            import dataclasses

            table = dataclasses.replace(tp.table, name=tp.tname)
            now = _rows_by_xmin(conn, engine.export_qualify(schema, table), tp.target_names)
        except Exception:  # noqa: BLE001 - cannot tell: the caller reads the table back again
            return False
        finally:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass
        return now == seal

    def load_row_safely(self, conn: Any, tp: TablePlan, row: tuple[Any, ...]) -> None:
        """Load one row under a savepoint (rolled back to on failure, then re-raised)."""
        in_savepoint(conn.execute, lambda: self.load_unit(conn, tp, iter([row])))

    # -- errors ---------------------------------------------------------------------------------
    def load_error_kind(self, exc: BaseException) -> LoadErrorKind:
        """retry | disconnect | exists | data | other."""
        psycopg = import_psycopg()

        state = getattr(getattr(exc, "diag", None), "sqlstate", None) or getattr(exc, "sqlstate", None)
        if state in _RETRY_STATES:
            return "retry"
        if state in _DISCONNECT_STATES or isinstance(exc, (psycopg.InterfaceError, ConnectionFailed)):
            return "disconnect"
        if isinstance(exc, psycopg.OperationalError) and state is None:
            return "disconnect"
        if state in _EXISTS_STATES:
            return "exists"
        if state in _RESOURCE_STATES or (state == "58030" and "space" in str(exc).lower()):
            return "resource"
        if state and state[:2] in ("22", "23"):
            return "data"
        return "other"

    def load_durability(self, conn: Any) -> str | None:
        """fsync = off: a crash of the server's machine can lose acknowledged commits."""
        row = conn.execute("SELECT current_setting('fsync')").fetchone()
        if row and row[0] == "off":
            return "server runs with fsync = off: a crash of its machine can lose committed units"
        return None

    def load_session(self, conn: Any) -> str | None:
        """The backend's process id."""
        return str(conn.info.backend_pid)

    def load_sessions_busy(self, conn: Any, sessions: Sequence[str]) -> list[str]:
        """Backends of ``sessions`` still in a transaction or a statement (not ``idle``): one whose
        client died after sending COMMIT reads and runs it first."""
        pids = [int(s) for s in sessions if s.isdigit() and len(s) < 10]
        if not pids:
            return []
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE pid = ANY(%s) AND pid <> pg_backend_pid() "
            "AND state IS DISTINCT FROM 'idle'",
            (pids,),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def load_lock_holders(self, conn: Any, schema: str | None, table: str) -> list[str]:
        """Other sessions holding a lock on the table (pg_locks, pg_stat_activity), or blocking a
        session that waits for one."""
        rows = conn.execute(
            """SELECT DISTINCT a.pid, a.usename, a.application_name, a.client_addr::text, a.state,
                      l.mode, extract(epoch FROM now() - a.xact_start)::bigint, left(a.query, 120)
               FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
               WHERE l.granted AND l.locktype = 'relation' AND l.relation = to_regclass(%s)
                 AND a.pid <> pg_backend_pid()
               ORDER BY 1 LIMIT 10""",
            (self._name(schema, table),),
        ).fetchall()
        out = []
        for pid, user, app, addr, state, mode, age, query in rows:
            since = f", its transaction open for {age} s" if age is not None else ""
            who = f"{user}" + (f" ({app})" if app else "") + (f" from {addr}" if addr else "")
            out.append(f"session {pid} of {who}: {mode}, {state}{since}, last statement: {query!r}")
        return out

    def load_error_detail(self, exc: BaseException) -> tuple[str | None, str | None]:
        """The constraint a server error names and the server's DETAIL line (``Key (id)=(7) is
        duplicated.`` when ADD PRIMARY KEY finds duplicate keys), each None when not given."""
        diag = getattr(exc, "diag", None)
        return getattr(diag, "constraint_name", None), getattr(diag, "message_detail", None)

    def load_error_column(self, exc: BaseException, tp: TablePlan, row: tuple[Any, ...]) -> tuple[str | None, Any]:
        """The column (and its value) a server error is about, when the server says."""
        diag = getattr(exc, "diag", None)
        col = getattr(diag, "column_name", None)
        if col is None:
            ctx = getattr(diag, "context", None) or ""
            mt = re.search(r"column (\w+):", ctx)
            col = mt.group(1) if mt else None
        return error_column_value(tp, row, col)

    # -- verify ---------------------------------------------------------------------------------
    def verify_select(
        self, conn: Any, tp: TablePlan, part: tuple[str, int, int] | None = None
    ) -> Iterator[tuple[Any, ...]]:
        """The target rows of ``tp.verify_columns`` (temporal, json and interval columns as text);
        ``part`` = (integer key column, k, n): only the rows whose key is k modulo n."""
        exprs = []
        for src, name, tgt in tp.verify_columns:
            q = _quote(name)
            if tgt.kind in ("date", "time", "timestamp", "interval", "json", "range") or src.type.kind in (
                "interval",
                "range",
            ):
                exprs.append(f"{q}::text")
            elif tgt.kind == "money":
                exprs.append(f"{q}::numeric")
            else:
                exprs.append(q)
        only = "" if tp.table.partitioning is not None else "ONLY "  # as exported: a table's own rows
        sql = f"SELECT {', '.join(exprs)} FROM {only}{self._name(tp.tschema, tp.tname)}"
        if part is not None:
            key, k, n = _quote(part[0]), int(part[1]), int(part[2])
            sql += f" WHERE ({key} % {n} + {n}) % {n} = {k}"
        with conn.transaction(), conn.cursor(name="dbjson_verify") as cur:
            cur.execute(sql)
            # round trips sized by bytes, not rows: 5,000 rows of 5 MB would be 25 GB in memory
            yield from byte_batches(cur.fetchmany)

    def verify_adapters(self, tp: TablePlan) -> dict[str, Callable[[Any], Any]]:
        """Per source column: target driver value → a value the source kind's encoder understands."""
        out: dict[str, Callable[[Any], Any]] = {}
        for src, _name, tgt in tp.verify_columns:
            if src.type.kind in ("array", "vector") and tgt.kind in ("json", "text", "varchar"):
                out[src.name] = lambda v: orjson.loads(v) if isinstance(v, str) else v
            elif src.type.kind == "set" and tgt.kind in ("json",):
                out[src.name] = orjson.loads
            elif src.type.kind == "char" and tgt.kind == "char" and src.native.engine != "postgresql":
                out[src.name] = lambda v: v.rstrip(" ") if isinstance(v, str) else v
            elif src.type.kind == "boolean" and tgt.kind != "boolean":
                out[src.name] = lambda v: bool(int(v)) if not isinstance(v, bool) else v
            elif src.type.kind == "geometry" and tgt.kind != "geometry":
                out[src.name] = lambda v: bytes(v).hex() if isinstance(v, (bytes, memoryview)) else v
        return out


def _rows_by_xmin(conn: Any, qualified: str, columns: Sequence[str]) -> dict[str, int]:
    """How many rows of the table each ``xmin`` (transaction id) wrote, as the snapshot sees them;
    ``columns`` are named (not read) so that the query fails when one was dropped or renamed."""
    named = ", ".join(_quote(c) for c in columns)
    rows = conn.execute(
        f"SELECT x, count(*) FROM (SELECT xmin::text AS x, {named} FROM {qualified}) s GROUP BY x"
    ).fetchall()
    return {str(x): int(n) for x, n in rows}
