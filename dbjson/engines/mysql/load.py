"""MySQL/MariaDB bulk load: ``LOAD DATA LOCAL INFILE`` fed from memory, one unit per transaction.

Rows become tab-separated text built in Python and streamed to the server through PyMySQL's
LOCAL INFILE protocol: the importer registers a generator under a private name
(``dbjson-mem:<n>``) and a small hook answers the server's file request with that stream, so no
temporary file is written. On dbjson's own connections the hook serves nothing else (a server
asking for any other file is refused); other PyMySQL connections in the process keep PyMySQL's
behaviour. Binary and geometry values travel as hex (``SET col = UNHEX(@v)``), BIT values as
binary digits (``CONV``).

``LOAD DATA LOCAL`` turns data errors into warnings (the server cannot stop the stream), so after
each unit the warning count and the row count are checked; any warning rolls the unit back and
the importer re-runs it row by row with strict ``INSERT`` (which names the row and column). When
the server refuses LOCAL INFILE the loader falls back to multi-row INSERTs sized by bytes.

Session for loading: ``unique_checks = 0``, ``foreign_key_checks = 0``, ``time_zone = '+00:00'``,
strict ``sql_mode`` with zero dates allowed and ``NO_AUTO_VALUE_ON_ZERO`` (a 0 in an
AUTO_INCREMENT column stays 0); restored before the connection closes.
"""

from __future__ import annotations

import base64
import itertools
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

import orjson

from ...connect import close_quietly, connection_error, mysql_connect_args
from ...ddl.plan import Statement
from ...errors import ConnectionFailed, DataError
from ...format.decoders import is_zero_date_text, opaque_text
from ..shared.bulktext import LOAD_DATA_TEXT, encode_rows
from ..shared.bulktext import scalar_text as _text
from ..shared.loading import error_column_value, row_batches

# CREATE [UNIQUE] INDEX `name` ON `table` (parts) tail, as MySQLDDL.ddl_index writes it
_CREATE_INDEX = re.compile(
    r"CREATE (?P<unique>UNIQUE )?INDEX (?P<name>`(?:[^`]|``)+`) ON "
    r"(?P<table>`(?:[^`]|``)+`(?:\.`(?:[^`]|``)+`)?) (?P<rest>\(.*)\Z",
    re.S,
)
if TYPE_CHECKING:
    from ... import model as m
    from ...connect import Target
    from ..interface import LoadErrorKind, TablePlan

_PACKET = 1 << 20
_INSERT_BYTES = 4 << 20
_RETRY_CODES = {1205, 1213, 1614, 1637, 1040}  # 1040: too many connections
# 1021 disk full, 1114 table full, 1041/1037/1038 out of memory, 3 and 1030 with errno 28 (no space)
_RESOURCE_CODES = {1021, 1114, 1041, 1037, 1038}
_DISCONNECT_CODES = {2006, 2013, 2055, 2003, 1053, 1927, 4031}
_EXISTS_CODES = {1050, 1061, 1826, 1022, 1060, 1304, 1359, 1007, 1068, 4028, 1831, 3822}
_LOCAL_REFUSED = {1148, 3948, 4166, 2068, 1227}  # 4166: MariaDB's 'local infile capability' disabled
_LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
# Kinds whose canonical JSON value (a string, or an integer number) is MySQL's input text.
_PASS_KINDS = frozenset({"char", "varchar", "text", "enum", "uuid", "inet", "decimal", "integer", "year"})


def _relax_fk_keys(cur: Any) -> None:
    """MySQL 8.4+: accept a foreign key to a non-unique key prefix, as MariaDB and MySQL 8.0 do (a
    source database may hold one; the translation report says so). Other servers lack the variable."""
    try:
        cur.execute("SET SESSION restrict_fk_on_non_standard_key = OFF")
    except Exception:  # noqa: BLE001 - MariaDB, MySQL before 8.4: nothing to relax
        pass


_SESSION = (
    "SET SESSION unique_checks = 0, foreign_key_checks = 0, time_zone = '+00:00', "
    "sql_mode = 'STRICT_ALL_TABLES,NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION,ERROR_FOR_DIVISION_BY_ZERO'"
)

# -- in-memory LOCAL INFILE ---------------------------------------------------------------------

_streams: dict[str, Iterator[bytes]] = {}
_streams_lock = threading.Lock()
_counter = itertools.count(1)
_hooked = False


def _quote(ident: str) -> str:
    """An always-quoted identifier."""
    return "`" + ident.replace("`", "``") + "`"


def _install_hook() -> None:
    """Route PyMySQL's LOCAL INFILE reads of our private names to registered in-memory streams."""
    global _hooked
    if _hooked:
        return
    import pymysql.connections as pc
    from pymysql import err

    original = pc._send_local_file

    def send_stream(filename: str | bytes, conn: Any) -> None:
        name = filename.decode("utf-8", "replace") if isinstance(filename, bytes) else filename
        with _streams_lock:
            src = _streams.pop(name, None)
        if src is None:
            if not hasattr(conn, "_dbjson_local"):  # not dbjson's connection: PyMySQL's own behaviour
                original(filename, conn)
                return
            raise err.OperationalError(1148, f"dbjson refuses the server's request for local file {name!r}")
        _send_packets(conn, src, max(16 * 1024, min(conn.max_allowed_packet - 1024, _PACKET)))

    pc._send_local_file = send_stream
    _hooked = True


def _send_packets(conn: Any, src: Iterator[bytes], size: int) -> None:
    """``src``'s bytes as LOCAL INFILE data packets of at most ``size`` bytes, in order. A chunk is
    sent in place (its slices, through a memoryview); chunks under a quarter of ``size`` (the row
    path's) are joined first. Each packet is PyMySQL's ``write_packet`` without its copy of the
    payload into the header's bytes: the header and the payload are two writes (measured on the
    wide MariaDB import: the client's copies of each block, joined, sliced, copied again, took
    more CPU than the sends)."""
    small: list[bytes] = []
    pending = 0
    for chunk in src:
        if len(chunk) < size // 4:
            small.append(chunk)
            pending += len(chunk)
            if pending < size:
                continue
            chunk = b"".join(small)
        elif small:
            _write_packet(conn, b"".join(small))
        small, pending = [], 0
        view = memoryview(chunk)
        for at in range(0, len(view), size):
            _write_packet(conn, view[at : at + size])
    if small:
        _write_packet(conn, b"".join(small))


def _write_packet(conn: Any, payload: bytes | memoryview) -> None:
    """PyMySQL's ``Connection.write_packet`` (the 3-byte length and the sequence number, then the
    payload), the payload not copied."""
    n = len(payload)
    conn._write_bytes(bytes((n & 0xFF, (n >> 8) & 0xFF, n >> 16, conn._next_seq_id)))
    conn._write_bytes(payload)
    conn._next_seq_id = (conn._next_seq_id + 1) % 256


def _register(stream: Iterator[bytes]) -> str:
    name = f"dbjson-mem:{next(_counter)}"
    with _streams_lock:
        _streams[name] = stream
    return name


def _ewkb_to_mysql(hexstr: str) -> str:
    """Hex EWKB (SRID flag) → hex of MySQL's internal geometry (4-byte LE SRID + plain WKB)."""
    b = bytes.fromhex(hexstr)
    order: Literal["little", "big"] = "little" if b[0] == 1 else "big"
    gtype = int.from_bytes(b[1:5], order)
    srid = 0
    body = b[5:]
    if gtype & 0x20000000:
        srid = int.from_bytes(b[5:9], order)
        body = b[9:]
        gtype &= ~0x20000000
    wkb = b[:1] + gtype.to_bytes(4, order) + body
    return (srid.to_bytes(4, "little") + wkb).hex()


def _mysql_to_ewkb(raw: bytes) -> bytes:
    """MySQL's internal geometry bytes → EWKB with the SRID flag (what the encoding contract holds)."""
    srid = int.from_bytes(raw[:4], "little")
    wkb = raw[4:]
    order: Literal["little", "big"] = "little" if wkb[0] == 1 else "big"
    gtype = int.from_bytes(wkb[1:5], order)
    if srid:
        return wkb[:1] + (gtype | 0x20000000).to_bytes(4, order) + srid.to_bytes(4, order) + wkb[5:]
    return wkb


class MySQLLoad:
    """The MySQL/MariaDB side of ``dbjson import`` and ``dbjson verify``."""

    # -- connections ----------------------------------------------------------------------------
    def load_connect(self, target: Target, *, data_only: bool = False, lock_timeout: float = 10.0) -> Any:
        """A PyMySQL connection set up for bulk loading (LOCAL INFILE from memory)."""
        import pymysql

        _install_hook()
        u = target.url
        # the URL's arguments as for every other connection (host, socket, TLS...), in autocommit
        args = {**mysql_connect_args(u), "autocommit": True, "max_allowed_packet": 64 << 20}
        conn = None
        # PyMySQL negotiates TLS (unverified) whenever the server offers it. To a loopback address
        # with no ``ssl*`` URL option that protects nothing and costs client CPU on every byte of
        # the LOAD DATA stream (MySQL 9 offers TLS by default), so it is turned off there; if the
        # server then refuses the connection (require_secure_transport...), the default is used.
        if (u.host or "localhost") in _LOOPBACK and not any(k.startswith("ssl") for k in u.query):
            try:
                conn = pymysql.connect(ssl_disabled=True, **args)
            except pymysql.MySQLError:
                conn = None
        try:
            if conn is None:
                conn = pymysql.connect(**args)
        except Exception as e:  # noqa: BLE001
            raise connection_error(e, u) from None
        with conn.cursor() as cur:
            cur.execute("SELECT @@SESSION.sql_mode, @@SESSION.time_zone")
            conn._dbjson_saved = cur.fetchone()
            cur.execute(_SESSION)
            _relax_fk_keys(cur)
            # A lock another session holds (a metadata lock for TRUNCATE or DDL, a row lock) is
            # waited for ``lock_timeout`` seconds at a time; then the importer names the holders and retries
            # within its budget (the defaults wait a year for a metadata lock, 50 s for a row).
            cur.execute("SELECT @@SESSION.lock_wait_timeout, @@SESSION.innodb_lock_wait_timeout")
            most = max(1, round(lock_timeout))  # (whole seconds)
            waits = cur.fetchone() or (most, most)
            cur.execute(
                "SET SESSION lock_wait_timeout = %s, innodb_lock_wait_timeout = %s",
                tuple(min(int(w), most) for w in waits),
            )
            if target.read_only:  # a dry run: any write would be refused by the server
                cur.execute("SET SESSION TRANSACTION READ ONLY")
        conn._dbjson_local = True
        return conn

    def load_disconnect(self, conn: Any) -> None:
        """Restore the session settings and close."""
        try:
            if conn.open:
                conn.rollback()
                saved = getattr(conn, "_dbjson_saved", None)
                with conn.cursor() as cur:
                    cur.execute("SET SESSION unique_checks = 1, foreign_key_checks = 1")
                    if saved:
                        cur.execute("SET SESSION sql_mode = %s, time_zone = %s", saved)
        finally:
            close_quietly([conn])

    def load_interrupt(self, conn: Any, target: Target) -> None:
        """KILL QUERY the statement running on ``conn`` (from a second connection)."""
        import pymysql

        other = pymysql.connect(**{**mysql_connect_args(target.url), "connect_timeout": 5})
        try:
            with other.cursor() as cur:
                cur.execute(f"KILL QUERY {int(conn.thread_id())}")
        finally:
            other.close()

    # -- transactions ---------------------------------------------------------------------------
    def load_begin(self, conn: Any) -> None:
        conn.begin()

    def load_commit(self, conn: Any) -> None:
        conn.commit()

    def load_rollback(self, conn: Any) -> None:
        if conn.open:
            conn.rollback()

    def load_execute_ddl(self, conn: Any, sql: str) -> None:
        with conn.cursor() as cur:
            cur.execute(sql)

    # -- catalog --------------------------------------------------------------------------------
    def load_existing_roles(self, conn: Any) -> set[str] | None:
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT User, Host FROM mysql.user")
                rows = cur.fetchall()
        except Exception:  # noqa: BLE001 - no SELECT on mysql.user: unknown, the grants are tried
            return None
        out = set()
        for user, host in rows:
            user, host = (v.decode() if isinstance(v, bytes) else v for v in (user, host))
            out.add(f"{user}@{host}" if host else user)  # MariaDB roles have an empty host
        return out

    def load_existing_tables(self, conn: Any, schemas: set[str | None]) -> set[tuple[str | None, str]]:
        with conn.cursor() as cur:
            cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")
            return {(None, r[0]) for r in cur.fetchall()}

    def _name(self, schema: str | None, table: str) -> str:
        return _quote(table)

    def load_merge_indexes(self, statements: Sequence[Statement]) -> list[Statement]:
        """Post-data index statements of one table as one ``ALTER TABLE t ADD INDEX a (...), ADD
        INDEX b (...)``: InnoDB builds them in one scan of the table, where separate ``CREATE
        INDEX`` statements each scan it and wait for each other's metadata lock (measured on the
        1M-row benchmark: two indexes of order_items built one after the other). FULLTEXT and
        SPATIAL indexes (InnoDB adds one FULLTEXT index per statement), statements that may be
        skipped (``optional``) and any text not in the form :meth:`ddl_index` writes stay apart.
        The statements' order is kept: a merged statement takes the place of its table's first."""
        groups: dict[str, list[tuple[int, Statement, re.Match[str]]]] = {}
        for i, st in enumerate(statements):
            match = _CREATE_INDEX.match(st.sql) if st.kind in ("index", "unique") and not st.optional else None
            if match and st.table and match.group("table") == st.table:
                groups.setdefault(st.table, []).append((i, st, match))
        merged: dict[int, Statement] = {}
        dropped: set[int] = set()
        for table, items in groups.items():
            if len(items) < 2:
                continue
            adds = ", ".join(
                f"ADD {mt.group('unique') or ''}INDEX {mt.group('name')} {mt.group('rest')}" for _i, _st, mt in items
            )
            first = items[0][1]
            merged[items[0][0]] = Statement(
                f"ALTER TABLE {table} {adds}", first.kind, ", ".join(st.object for _i, st, _m in items), table
            )
            dropped.update(i for i, _st, _m in items[1:])
        return [merged.get(i, st) for i, st in enumerate(statements) if i not in dropped]

    def load_truncate(self, conn: Any, schema: str | None, table: str) -> None:
        with conn.cursor() as cur:
            cur.execute(f"TRUNCATE TABLE {self._name(schema, table)}")

    def load_drop(self, conn: Any, schema: str | None, table: str) -> None:
        with conn.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS {self._name(schema, table)}")

    def load_count(self, conn: Any, schema: str | None, table: str) -> int:
        with conn.cursor() as cur:
            cur.execute(f"SELECT COUNT(*) FROM {self._name(schema, table)}")
            return int(cur.fetchone()[0])

    def load_collations(self, conn: Any, schema: str | None, table: str) -> dict[str, str]:
        """Collations of the table's text columns (``_ci``/``_ai`` ones compare case-insensitively)."""
        with conn.cursor() as cur:
            cur.execute(
                "SELECT column_name, collation_name FROM information_schema.columns "
                "WHERE table_schema = DATABASE() AND table_name = %s AND collation_name IS NOT NULL",
                (table,),
            )
            return {a: c for a, c in cur.fetchall()}

    # -- values ---------------------------------------------------------------------------------
    def load_converter(self, src: m.Type, tgt: m.Type, *, zero_dates: str = "null") -> Callable[[Any], Any] | None:
        """JSON value (non-null) of a ``src`` column → MySQL input text (raw, unescaped) for ``tgt``.

        None means "as is": the JSON string or number is already the input text.
        """
        sk, tk = src.kind, tgt.kind
        if sk == "opaque" and tk not in ("boolean", "geometry", "binary", "varbinary", "blob"):
            # an untyped value of any storage class: its text (the bulk op "pass" does the same)
            return opaque_text
        if (
            sk in _PASS_KINDS
            and tk in _PASS_KINDS
            or (sk in ("date", "timestamp") and tk == sk and not src.with_timezone and src.allows_zero)
        ):
            return None  # MySQL-to-MySQL dates: zero dates load as they are; 'T' is accepted
        if sk == "boolean" or tk == "boolean":
            return lambda v: "1" if (v is True or (v not in (False, 0, "0") and bool(v))) else "0"
        if tk == "geometry":
            return _ewkb_to_mysql if sk == "geometry" else (lambda v: base64.b64decode(v, validate=True).hex())
        if tk in ("binary", "varbinary", "blob"):
            if sk == "geometry":
                return lambda v: v
            if sk == "uuid":
                return lambda v: v.replace("-", "")
            return lambda v: base64.b64decode(v, validate=True).hex()
        if tk in ("decimal", "float", "integer", "year") and sk in ("decimal", "float", "money"):

            def number(v: Any) -> str:
                if type(v) is str and v in ("NaN", "Infinity", "-Infinity"):
                    raise DataError(f"{v} does not fit a MySQL number")
                return v if type(v) is str else repr(v) if type(v) is float else str(v)

            return number
        if sk in ("date", "timestamp"):
            return self._temporal_converter(tk == sk, zero_dates)
        if sk == "time":
            return lambda v: v[:-6] if len(v) > 6 and v[-6] in "+-" and v[-3] == ":" else v
        if sk == "set" and tk == "set":
            return lambda v: ",".join(v)
        if sk in ("json", "array", "vector", "set"):
            return lambda v: orjson.dumps(v).decode()
        return _text

    def load_bulk_op(self, src: m.Type, tgt: m.Type, *, zero_dates: str = "null") -> str | None:
        """What :meth:`load_converter` does to a ``src`` value for a ``tgt`` column, as the name of
        a ``dbjson._cimport`` op (branch by branch the same order), or None: no C op."""
        sk, tk = src.kind, tgt.kind
        if (
            sk in _PASS_KINDS
            and tk in _PASS_KINDS
            or (sk in ("date", "timestamp") and tk == sk and not src.with_timezone and src.allows_zero)
        ):
            return "pass"
        if sk == "boolean" or tk == "boolean":
            return "bool10"
        if tk == "geometry":
            return None
        if tk in ("binary", "varbinary", "blob"):
            return None if sk in ("geometry", "uuid") else "b64hex"
        if tk in ("decimal", "float", "integer", "year") and sk in ("decimal", "float", "money"):
            return "mynum"
        if sk in ("date", "timestamp"):
            return "mytemp_same" if tk == sk else "mytemp_other"
        if sk == "time":
            return "mytime"
        if sk == "set" and tk == "set":
            return None
        if sk in ("json", "array", "vector", "set"):
            return "jsondump"
        return "pass"  # scalar_text

    @staticmethod
    def _temporal_converter(same_kind: bool, zero_dates: str) -> Callable[[Any], Any]:
        def conv(v: Any) -> Any:
            if type(v) is not str:
                raise DataError("a date/time must be a string")
            if v in ("infinity", "-infinity") or v.startswith("-") or (is_zero_date_text(v) and not same_kind):
                if zero_dates == "error":
                    raise DataError("a date MySQL cannot hold (--zero-dates null loads NULL)")
                return None
            if len(v) > 10:
                v = v.replace("T", " ", 1)
                if v.endswith("Z"):
                    v = v[:-1]
            return v

        return conv

    def _column_template(self, t: m.Type, src: m.Type | None) -> str | None:
        """How a loaded text value becomes the column's value (None: the text as is)."""
        if t.kind in ("binary", "varbinary", "blob", "geometry"):
            return "UNHEX({})"
        if t.kind == "bit":
            return "CAST(CONV({}, 2, 10) AS UNSIGNED)"
        return None

    def _templates(self, tp: TablePlan) -> list[str | None]:
        data = [self._column_template(t, c.type) for c, t in zip(tp.columns, tp.target_types)]
        return data + [None] * (len(tp.fixed) + len(tp.increments))

    # -- loading --------------------------------------------------------------------------------
    def load_unit(self, conn: Any, tp: TablePlan, rows: Iterator[tuple[Any, ...]]) -> int:
        """Stream the rows through LOAD DATA LOCAL INFILE (inside the caller's transaction)."""
        if not getattr(conn, "_dbjson_local", True):
            return self._insert_batches(conn, tp, rows)
        counter = [0]
        loaded = self._load_data(conn, tp, self._tsv(rows, counter))
        if loaded != counter[0]:
            raise _LoadWarning(f"the server took {loaded} of {counter[0]} rows")
        return counter[0]

    def load_can_encode(self, conn: Any, tp: TablePlan) -> bool:
        """Whether rows encoded elsewhere (``load_encode_rows``) can be streamed: not once the server
        refused LOCAL INFILE on ``conn``."""
        return bool(getattr(conn, "_dbjson_local", True))

    def load_unit_encoded(self, conn: Any, tp: TablePlan, blocks: Iterator[bytes]) -> int:
        """LOAD DATA blocks of already encoded text; returns the server's row count."""
        return self._load_data(conn, tp, blocks)

    def _load_data(self, conn: Any, tp: TablePlan, stream: Iterator[bytes]) -> int:
        import pymysql

        name = _register(stream)
        q = _quote
        cols, sets = [], []
        for i, (col, tpl) in enumerate(zip(tp.insert_columns, self._templates(tp))):
            if tpl is None:
                cols.append(q(col))
            else:
                cols.append(f"@v{i}")
                sets.append(f"{q(col)} = {tpl.format(f'@v{i}')}")
        sets += [f"{q(c)} = {expr}" for c, expr in tp.exprs.items()]
        sql = (
            f"LOAD DATA LOCAL INFILE '{name}' INTO TABLE {self._name(tp.tschema, tp.tname)} CHARACTER SET utf8mb4 "
            f"FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' ({', '.join(cols)})"
            + (" SET " + ", ".join(sets) if sets else "")
        )
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
                loaded = int(cur.rowcount)
                warnings = conn._result.warning_count if conn._result is not None else 0
                if warnings:
                    cur.execute("SHOW WARNINGS LIMIT 1")
                    w = cur.fetchone()
                    raise _LoadWarning(f"the server changed or skipped values: {w[2] if w else 'warning'}")
        except Exception as e:
            with _streams_lock:
                _streams.pop(name, None)
            if not conn.open:  # the connection died under the stream (KILL CONNECTION, a restart):
                # PyMySQL then fails on its closed socket ("'NoneType' object has no attribute
                # 'sendall'"), which is no fault of the data
                raise pymysql.err.OperationalError(2013, f"Lost connection to server during LOAD DATA ({e})") from None
            if _code(e) in _LOCAL_REFUSED:
                conn._dbjson_local = False
                raise _LocalRefused(str(e)) from None
            raise
        return loaded

    @staticmethod
    def _tsv(rows: Iterator[tuple[Any, ...]], counter: list[int]) -> Iterator[bytes]:
        for batch in row_batches(rows):
            counter[0] += len(batch)
            yield encode_rows(batch, LOAD_DATA_TEXT)

    def _insert_sql(self, tp: TablePlan) -> tuple[str, str, str, str]:
        """(head, one row, separator, tail) of a multi-row INSERT. With ``--set-sql`` expressions the
        rows are a derived table of SELECTs (``UNION ALL``) the expressions read the source values
        from, a column they replace included."""
        q = _quote
        ph = ["%s" if t is None else t.format("%s") for t in self._templates(tp)]
        table = self._name(tp.tschema, tp.tname)
        if not tp.exprs:
            cols = ", ".join(q(c) for c in tp.insert_columns)
            return f"INSERT INTO {table} ({cols}) VALUES ", "(" + ", ".join(ph) + ")", ",", ""
        direct = [q(c) for c in tp.direct_columns]
        targets = ", ".join(direct + [q(c) for c in tp.exprs])
        select = ", ".join(direct + list(tp.exprs.values()))
        one = "SELECT " + ", ".join(f"{p} AS {q(c)}" for p, c in zip(ph, tp.insert_columns))
        return f"INSERT INTO {table} ({targets}) SELECT {select} FROM (", one, " UNION ALL ", ") AS _dbjson_src"

    def _insert_batches(self, conn: Any, tp: TablePlan, rows: Iterator[tuple[Any, ...]]) -> int:
        """Multi-row INSERTs of about 4 MB each (when the server refuses LOCAL INFILE)."""
        head, one, sep, tail = self._insert_sql(tp)
        n = 0
        with conn.cursor() as cur:
            parts: list[str] = []
            size = 0
            for row in rows:
                text = one % tuple(conn.escape(v) for v in row)
                parts.append(text)
                size += len(text)
                n += 1
                if size >= _INSERT_BYTES:
                    cur.execute(head + sep.join(parts) + tail)
                    parts, size = [], 0
            if parts:
                cur.execute(head + sep.join(parts) + tail)
        return n

    def load_row_safely(self, conn: Any, tp: TablePlan, row: tuple[Any, ...]) -> None:
        """Insert one row under a savepoint with strict checking (rolled back to on failure)."""
        head, one, _sep, tail = self._insert_sql(tp)
        with conn.cursor() as cur:
            cur.execute("SAVEPOINT dbjson_row")
            try:
                cur.execute(head + one + tail, row)
            except BaseException as e:
                try:
                    cur.execute("ROLLBACK TO SAVEPOINT dbjson_row")
                except Exception:  # noqa: BLE001
                    # The server ended the whole transaction (a deadlock, a lock-wait timeout): report
                    # the original error, which the importer classifies as retryable.
                    raise e from None
                raise
            cur.execute("RELEASE SAVEPOINT dbjson_row")

    # -- errors ---------------------------------------------------------------------------------
    def load_error_kind(self, exc: BaseException) -> LoadErrorKind:
        """retry | disconnect | exists | data | other."""
        import pymysql

        if isinstance(exc, (_LoadWarning, _LocalRefused)):
            return "data" if isinstance(exc, _LoadWarning) else "retry"
        code = _code(exc)
        if code in _RETRY_CODES:
            return "retry"
        if code in _RESOURCE_CODES or (code in (3, 1030) and ("28" in str(exc) or "space" in str(exc).lower())):
            return "resource"
        if code in _DISCONNECT_CODES or isinstance(
            exc, (pymysql.err.InterfaceError, ConnectionFailed, ConnectionError)
        ):
            return "disconnect"
        if code in _EXISTS_CODES:
            return "exists"
        if isinstance(exc, (pymysql.err.DataError, pymysql.err.IntegrityError)) or (code and 1260 <= code <= 1300):
            return "data"
        return "other"

    def load_durability(self, conn: Any) -> str | None:
        """innodb_flush_log_at_trx_commit other than 1 (server-wide; a session cannot change it):
        the log is flushed about once a second, so a crash loses the last commits; with 2 only a
        crash of the machine does. A binary log not synced at every commit (sync_binlog other than
        1) can lose, in a crash, commits the tables kept (replicas then miss them)."""
        with conn.cursor() as cur:
            cur.execute("SELECT @@innodb_flush_log_at_trx_commit, @@log_bin, @@sync_binlog")
            row = cur.fetchone()
        if row is None:
            return None
        flush, log_bin, sync_binlog = (int(x or 0) for x in row)
        out = []
        if flush != 1:
            lost = "a crash of the server" if flush == 0 else "a crash of its machine"
            out.append(f"server runs with innodb_flush_log_at_trx_commit = {flush}: {lost} can lose committed units")
        if log_bin and sync_binlog != 1:
            out.append(
                f"binary log is not synced at every commit (sync_binlog = {sync_binlog}): a crash can leave replicas without units"
            )
        return "; its ".join(out) or None

    def load_session(self, conn: Any) -> str | None:
        """The connection id (``CONNECTION_ID()``, from the handshake)."""
        return str(conn.thread_id())

    def load_sessions_busy(self, conn: Any, sessions: Sequence[str]) -> list[str]:
        """Connections of ``sessions`` that still have a transaction (InnoDB) or run a statement."""
        import pymysql

        ids = [int(s) for s in sessions if s.isdigit() and len(s) < 20]
        if not ids:
            return []
        marks = ", ".join(["%s"] * len(ids))
        busy: set[int] = set()
        with conn.cursor() as cur:
            # innodb_trx is a copy InnoDB refreshes only when no one read it for 0.1 s: a poller
            # reading faster (this one included) would see the same transactions forever
            time.sleep(0.11)
            try:
                cur.execute(
                    f"SELECT trx_mysql_thread_id FROM information_schema.innodb_trx "
                    f"WHERE trx_mysql_thread_id IN ({marks})",
                    ids,
                )
                busy |= {int(r[0]) for r in cur.fetchall()}
            except pymysql.MySQLError:  # no PROCESS privilege: the process list (one's own sessions)
                pass
            cur.execute(
                f"SELECT id FROM information_schema.processlist WHERE id IN ({marks}) AND command <> 'Sleep'",
                ids,
            )
            busy |= {int(r[0]) for r in cur.fetchall()}
        return [str(i) for i in sorted(busy - {int(conn.thread_id())})]

    def load_lock_holders(self, conn: Any, schema: str | None, table: str) -> list[str]:
        """Sessions holding a metadata lock on the table (performance_schema, MySQL), else the
        other sessions with an open InnoDB transaction, those using the table's database first
        (MariaDB keeps performance_schema off)."""
        import pymysql

        rows: Any = ()
        with conn.cursor() as cur:
            try:
                cur.execute(
                    """SELECT t.processlist_id, t.processlist_user, t.processlist_host, m.lock_type,
                              t.processlist_command, t.processlist_time, LEFT(t.processlist_info, 120)
                       FROM performance_schema.metadata_locks m
                       JOIN performance_schema.threads t ON t.thread_id = m.owner_thread_id
                       WHERE m.object_type = 'TABLE' AND m.object_schema = COALESCE(%s, DATABASE())
                         AND m.object_name = %s AND m.lock_status = 'GRANTED'
                         AND t.processlist_id <> CONNECTION_ID() LIMIT 10""",
                    (schema, table),
                )
                rows = cur.fetchall()
            except pymysql.MySQLError:  # no performance_schema (or no right to read it)
                rows = ()
            if not rows:
                cur.execute(
                    """SELECT p.id, p.user, p.host, 'transaction', p.command,
                              TIMESTAMPDIFF(SECOND, t.trx_started, NOW()), LEFT(COALESCE(t.trx_query, p.info, ''), 120)
                       FROM information_schema.innodb_trx t
                       JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id
                       WHERE p.id <> CONNECTION_ID()
                       ORDER BY p.db = COALESCE(%s, DATABASE()) DESC, t.trx_started LIMIT 10""",
                    (schema,),
                )
                rows = cur.fetchall()
        return [
            f"session {pid} of {user}@{host}: {kind} lock, {command} for {age} s, statement: {query or 'none'!r}"
            for pid, user, host, kind, command, age, query in rows
        ]

    def load_error_column(self, exc: BaseException, tp: TablePlan, row: tuple[Any, ...]) -> tuple[str | None, Any]:
        """The column (and its value) a server error names (``... for column 'x' at row 1``)."""
        mt = re.search(r"column '([^']+)'", str(exc)) or re.search(r"for key '(?:[^'.]+\.)?([^']+)'", str(exc))
        return error_column_value(tp, row, mt.group(1) if mt else None)

    # -- verify ---------------------------------------------------------------------------------
    def verify_select(
        self, conn: Any, tp: TablePlan, part: tuple[str, int, int] | None = None
    ) -> Iterator[tuple[Any, ...]]:
        """The target rows of ``tp.verify_columns``, streamed (unbuffered cursor); ``part`` =
        (integer key column, k, n): only the rows whose key is k modulo n."""
        import pymysql.cursors

        cols = ", ".join(_quote(name) for _c, name, _t in tp.verify_columns)
        where = ""
        if part is not None:
            key, k, n = _quote(part[0]), int(part[1]), int(part[2])
            where = f" WHERE MOD(MOD({key}, {n}) + {n}, {n}) = {k}"
        with conn.cursor(pymysql.cursors.SSCursor) as cur:
            cur.execute(f"SELECT {cols} FROM {self._name(tp.tschema, tp.tname)}{where}")
            yield from cur

    def verify_adapters(self, tp: TablePlan) -> dict[str, Callable[[Any], Any]]:
        """Per source column: target driver value → a value the source kind's encoder understands."""
        out: dict[str, Callable[[Any], Any]] = {}
        for src, _name, tgt in tp.verify_columns:
            sk = src.type.kind
            if sk == "geometry" and tgt.kind == "geometry":
                out[src.name] = lambda v: _mysql_to_ewkb(bytes(v))
            elif sk in ("array", "vector") or (sk == "set" and tgt.kind == "json"):
                out[src.name] = lambda v: orjson.loads(v) if isinstance(v, (str, bytes)) else v
            elif sk == "uuid" and tgt.kind in ("binary", "varbinary"):
                out[src.name] = lambda v: bytes(v)
            elif sk == "bit" and tgt.kind == "bit":
                out[src.name] = _bits_reader(src.type.length or 1)
            elif sk == "char" and src.native.engine == "postgresql" and tgt.kind == "char" and tgt.length:
                out[src.name] = _padder(tgt.length)
        return out

    def verify_export_column(self, source: m.Column, target: m.Type) -> m.Column:
        """The source column under the target's type, respelled where MySQL keeps an equal value
        in a type that its export spells otherwise: an instant (``timestamptz``) in a DATETIME holds
        the UTC time, spelled with the ``Z`` of the source kind; PostgreSQL's ``char(n)`` keeps its
        padding, which MySQL strips on reading (the export pads to ``n`` again, ``RPAD``)."""
        from ... import model as m

        t = super().verify_export_column(source, target).type  # type: ignore[misc]
        st = source.type
        if st.kind == "timestamp" and st.with_timezone and t.kind == "timestamp" and not t.with_timezone:
            t = m.replace(t, with_timezone=True)
        if st.kind == "char" and source.native.engine == "postgresql" and t.kind == "char" and t.length:
            native = m.NativeType(engine="mysql", raw=f"char({t.length})", attrs={PAD_ATTR: t.length})
            return m.replace(source, type=t, native=native)
        return m.replace(source, type=t)


PAD_ATTR = "dbjson_pad"  # a column's native attribute: its export pads values to this many characters


def _bits_reader(n: int) -> Callable[[Any], Any]:
    """MySQL BIT bytes → exactly ``n`` binary digits."""
    return lambda v: format(int.from_bytes(v, "big"), f"0{n}b") if isinstance(v, (bytes, bytearray)) else v


def _padder(n: int) -> Callable[[Any], Any]:
    """PostgreSQL char(n) values keep their padding; MySQL returns them unpadded."""
    return lambda v: v.ljust(n) if isinstance(v, str) else v


class _LoadWarning(Exception):
    """LOAD DATA LOCAL changed or skipped values (reported as warnings): redo the unit strictly."""


class _LocalRefused(Exception):
    """The server refuses LOAD DATA LOCAL: the unit is retried with INSERT batches."""


def _code(exc: BaseException) -> int | None:
    args = getattr(exc, "args", ())
    return args[0] if args and isinstance(args[0], int) else None
