"""MySQL / MariaDB export: one consistent snapshot for every worker, rows as canonical JSON lines.

Snapshot: the coordinator blocks commits (MariaDB ``BACKUP STAGE BLOCK_COMMIT``, MySQL
``FLUSH TABLES WITH READ LOCK``) while every worker runs ``START TRANSACTION WITH CONSISTENT
SNAPSHOT, READ ONLY``; the binary log position and GTID
set are read under the lock, then it is released. Without the RELOAD privilege each worker
takes its own snapshot (mode ``per-worker``, not consistent across workers) and a warning is
emitted. Only transactional tables (InnoDB) are covered by the snapshot.

Rows: the server builds each canonical line with ``CONCAT`` over per-column expressions that
produce exactly the codec's text (see :meth:`MySQLExport.json_expression`), returned as binary
strings through an unbuffered cursor; a column without such an expression (FLOAT, vectors)
sends the whole table through the Python encoder. A value the server cannot encode canonically
(a boolean column holding 2, a line longer than ``max_allowed_packet``) yields a NUL byte, which
cannot occur in canonical JSON, and the export stops with an error instead of writing a wrong line.

With the C speedup ``dbjson._cmyexport`` (and every column of the table convertible by it, see
:meth:`MySQLExport.c_kind`) the server sends plain values instead (``SELECT col, ...``, as
mariadb-dump does, about a third of the server CPU of the expressions): PyMySQL reads the column
definitions, then the row packets are read from its socket file in large chunks and the C code
writes the same canonical lines (:meth:`MySQLExport._stream_c`). ``DBJSON_NO_SPEEDUPS=1`` turns it off.
"""

from __future__ import annotations

import re
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import orjson

from ... import model as m
from ... import speedups
from ...connect import Target
from ...errors import DataError, DbjsonError
from ...format.codec import RowEncoder
from ...format.manifest import SnapshotInfo
from ..interface import BLOCK_BYTES
from ..interface import ExportUnit as Unit
from ..shared.sqlexport import SQLExportBase, encoded_blocks

FETCH_ROWS = 2000
READ_BYTES = 1 << 18  # one read from the socket on the C path (dbjson._cmyexport)
BATCH_BYTES = 1 << 20  # target size of one GROUP_CONCAT batch of lines
_LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
_SIMPLE_LABEL = re.compile(r"^[A-Za-z0-9_ .:+\-]*$")
# A JSON string (possessive, so long strings do not exhaust the regex stack) or whitespace.
_JSON_WS = r'("(?:[^"\\\\]++|\\\\.)*+")|[ \\t\\n\\r]+'


def mysql_geometry_to_ewkb(value: bytes) -> bytes:
    """MySQL's internal geometry (4-byte little-endian SRID + WKB) → EWKB (SRID flag + SRID)."""
    srid, wkb = value[:4], value[4:]
    if srid == b"\x00\x00\x00\x00":
        return wkb
    if wkb[0] == 1:  # little-endian WKB: the type's high byte is the last of the 4
        return wkb[:4] + bytes([wkb[4] | 0x20]) + srid + wkb[5:]
    return wkb[:1] + bytes([wkb[1] | 0x20]) + wkb[2:5] + srid[::-1] + wkb[5:]


def mysql_vector_to_list(value: bytes) -> list[float]:
    """MySQL 9 VECTOR (little-endian float32 array) → floats."""
    return list(struct.unpack(f"<{len(value) // 4}f", value))


def _json_wrapped(q: str, text: str, prefilter: str) -> str:
    """The row encoding's escape of a json value (:func:`dbjson.format.jsontext.wrap_json_text`): the JSON
    document null → ``{"$json":null}``, an object whose only key is ``$json`` wrapped once more."""
    single = f"{prefilter}JSON_LENGTH({q}) = 1 AND JSON_CONTAINS_PATH({q}, 'one', '$.\"$json\"')"
    return (
        f"CASE JSON_TYPE({q}) WHEN 'NULL' THEN '{{\"$json\":null}}' "
        f"WHEN 'OBJECT' THEN IF({single}, CONCAT('{{\"$json\":', {text}, '}}'), {text}) ELSE {text} END"
    )


def _double_json(q: str) -> str:
    """orjson's text of a DOUBLE from MySQL's shortest text ``s``: plain notation with at least one
    decimal for 1e-5 <= |v| < 1e16 (exact through DECIMAL(65,30)), else ``d[.ddd]e±N``."""
    s = f"CAST({q} AS CHAR)"
    plain = f"TRIM(TRAILING '0' FROM CAST(CAST({s} AS DECIMAL(65,30)) AS CHAR))"
    a = f"TRIM(LEADING '-' FROM {s})"  # |v| as text
    mant = f"SUBSTRING_INDEX({a}, 'e', 1)"
    exp = f"IF(LOCATE('e', {a}) > 0, CAST(SUBSTRING_INDEX({a}, 'e', -1) AS SIGNED), 0)"
    ipart = f"SUBSTRING_INDEX({mant}, '.', 1)"
    fpart = f"IF(LOCATE('.', {mant}) > 0, SUBSTRING_INDEX({mant}, '.', -1), '')"
    alld = f"CONCAT({ipart}, {fpart})"
    lead = f"(LENGTH({alld}) - LENGTH(TRIM(LEADING '0' FROM {alld})))"
    digits = f"TRIM(TRAILING '0' FROM TRIM(LEADING '0' FROM {alld}))"
    k = f"(LENGTH({ipart}) - 1 - {lead} + {exp})"
    sci = (
        f"CONCAT(IF({q} < 0, '-', ''), LEFT({digits}, 1), "
        f"IF(LENGTH({digits}) > 1, CONCAT('.', SUBSTRING({digits}, 2)), ''), 'e', IF({k} < 0, '-', '+'), ABS({k}))"
    )
    return (
        f"CASE WHEN {q} = 0 THEN IF(LEFT({s}, 1) = '-', '-0.0', '0.0') "
        f"WHEN ABS({q}) >= 1e-5 AND ABS({q}) < 1e16 THEN IF(RIGHT({plain}, 1) = '.', CONCAT({plain}, '0'), {plain}) "
        f"ELSE {sci} END"
    )


# conversion kinds of dbjson._cmyexport (the module's K_* constants)
_K_NUMBER, _K_BOOL, _K_QUOTED, _K_STRING, _K_BINARY, _K_BIT, _K_TIMESTAMP, _K_SET, _K_JSON, _K_DOUBLE, _K_GEOMETRY = (
    speedups.constants("_cmyexport")[k]
    for k in "K_NUMBER K_BOOL K_QUOTED K_STRING K_BINARY K_BIT K_TIMESTAMP K_SET K_JSON K_DOUBLE K_GEOMETRY".split()
)


class _CState:
    """The C path's read buffer over a PyMySQL connection in the middle of an unbuffered result."""

    def __init__(self, conn: Any, result: Any, deprecate_eof: bool) -> None:
        self.conn, self.result, self.deprecate_eof = conn, result, deprecate_eof
        self.buf = bytearray()
        self.pos = 0
        self.seq = conn._next_seq_id

    def read(self, need: int, stop: threading.Event) -> bool:
        """Read at least one more byte (``need``: bytes wanted from ``pos`` for the next packet);
        False when the socket was closed under a stop (``export_abort``)."""
        import errno

        from pymysql import err
        from pymysql.constants import CR

        del self.buf[: self.pos]
        self.pos = 0
        missing = need - len(self.buf)
        rfile = self.conn._rfile
        while True:
            try:
                if rfile is None:
                    raise OSError("connection closed")
                chunk = rfile.read(missing) if missing > READ_BYTES else rfile.read1(READ_BYTES)
                break
            except OSError as e:
                if e.errno == errno.EINTR:
                    continue
                if stop.is_set():
                    return False
                self.conn._force_close()
                raise err.OperationalError(
                    CR.CR_SERVER_LOST, f"Lost connection to MySQL server during query ({e})"
                ) from e
        if not chunk or (missing > READ_BYTES and len(chunk) < missing):
            if stop.is_set():
                return False
            self.conn._force_close()
            raise err.OperationalError(CR.CR_SERVER_LOST, "Lost connection to MySQL server during query")
        self.buf += chunk
        return True

    def finish(self, server_status: int) -> None:
        """The rows' end (EOF/OK) or an ERR packet was consumed: hand the connection back."""
        if self.pos != len(self.buf):  # bytes after the result: PyMySQL would never see them
            self.conn._force_close()
            from pymysql import err

            raise err.InternalError("unexpected bytes after the result set")
        self.conn._next_seq_id = self.seq
        self.result.unbuffered_active = False
        self.result.has_next = bool(server_status & 8)  # SERVER_MORE_RESULTS_EXISTS
        self.result.connection = None
        if server_status:
            self.conn.server_status = server_status

    def drain(self, cm: Any, stop: threading.Event) -> None:
        """After an error or an abandoned generator: read the rest of the result (as PyMySQL's
        cursor close does), or close the connection if that fails."""
        try:
            while not stop.is_set():
                _, self.pos, self.seq, status, _, _ = cm.skip_rows(self.buf, self.pos, self.seq, self.deprecate_eof)
                if status == 0:
                    del self.buf[: self.pos]
                    self.pos = 0
                    if not self.read(1, stop):
                        return
                    continue
                self.finish(0)
                return
        except Exception:  # noqa: BLE001 - the connection cannot be reused
            self.result.unbuffered_active = False
            self.conn._force_close()


_PYMYSQL_INTERNALS = ("_execute_command", "_rfile", "_next_seq_id", "_force_close", "_result", "server_status")


def _value(q: str, column: m.Column) -> str:
    """The column's value as the export reads it: padded to ``n`` characters for a column whose
    native attributes ask for it (verify reading PostgreSQL ``char(n)`` values, which keep their
    padding, back from MySQL, which strips it: ``MySQLEngine.verify_export_column``)."""
    native = getattr(column, "native", None)
    pad = native.attrs.get("dbjson_pad") if native is not None else None
    return f"RPAD({q}, {int(pad)}, ' ')" if pad else q


def _pymysql_internals_known(conn: Any) -> bool:
    """The C path reads the result packets itself, using PyMySQL internals (the socket file,
    the sequence id, MySQLResult.init_unbuffered_query); a PyMySQL without them keeps the
    server-side path instead of failing."""
    try:
        from pymysql.connections import MySQLResult
    except ImportError:
        return False
    return all(hasattr(conn, a) for a in _PYMYSQL_INTERNALS) and hasattr(MySQLResult, "init_unbuffered_query")


def _integer_key(unit: Unit) -> bool:
    cols = unit.key_columns
    return len(cols) == 1 and unit.table.column(cols[0]).type.kind == "integer"


class MySQLExport(SQLExportBase):
    mark = "%s"

    # -- connections and snapshot -------------------------------------------------------------
    def export_connect(self, target: Target) -> Any:
        """A worker connection. PyMySQL's default is opportunistic TLS without verification; to a
        loopback address (no URL ``ssl_*`` option) that protects nothing and costs client CPU on
        every byte (measured on the 1M-row bench against MySQL 9: about a quarter of the export's
        samples in ``SSLSocket.read``), so it is turned off there. If the server then refuses the
        connection (``require_secure_transport``, an auth plugin wanting TLS), the default is used."""
        url = target.url
        if (url.host or "localhost") in _LOOPBACK and not any(k.startswith("ssl") for k in url.query):
            try:
                return Target(url.update_query_dict({"ssl_disabled": "true"})).connect_raw()
            except DbjsonError:
                pass
        return target.connect_raw()

    def export_session(self, conn: Any) -> None:
        """UTC for TIMESTAMP, utf8mb4, room for long lines and slow readers (one SET for the
        variables: a round trip per connection instead of six)."""
        with conn.cursor() as cur:
            for stmt in (
                "SET NAMES utf8mb4, SESSION time_zone = '+00:00', SESSION net_write_timeout = 3600, "
                "SESSION net_read_timeout = 3600, SESSION lock_wait_timeout = 60, "
                "SESSION group_concat_max_len = @@max_allowed_packet",
                "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
            ):
                cur.execute(stmt)
        conn.autocommit(True)

    def export_snapshot(self, coordinator: Any, workers: Sequence[Any], warn: Callable[[str], None]) -> SnapshotInfo:
        start = "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"
        if coordinator is None:
            self._fetch(workers[0], start)
            return SnapshotInfo(mode="single-connection")
        try:
            mode, release = self._global_lock(coordinator)
        except Exception as e:  # noqa: BLE001 - typically no RELOAD privilege
            warn(
                f"cannot take a global read lock ({e.args[-1] if e.args else e}); each worker uses its own "
                "snapshot, so tables may not be consistent with each other (use --threads 1 for one snapshot)"
            )
            for w in workers:
                self._fetch(w, start)
            return SnapshotInfo(mode="per-worker", consistent=len(workers) <= 1)
        try:
            for w in workers:
                self._fetch(w, start)
            info = SnapshotInfo(mode=mode)
            self._binlog_position(coordinator, info)
        finally:
            self._fetch(coordinator, release)
        return info

    def export_cluster_snapshot(
        self, coordinator: Any, join_all: Callable[[SnapshotInfo], None], warn: Callable[[str], None]
    ) -> SnapshotInfo:
        """The backup lock on the coordinator (as :meth:`export_snapshot`) while every long-lived
        worker starts its transaction (``join_all``), then released: as mydumper does across threads.
        Without the lock privilege the workers' snapshots are not one (``per-worker``, a warning)."""
        try:
            mode, release = self._global_lock(coordinator)
        except Exception as e:  # noqa: BLE001 - typically no RELOAD privilege
            warn(
                f"cannot take a global read lock ({e.args[-1] if e.args else e}); each worker uses its own "
                "snapshot, so tables may not be consistent with each other"
            )
            info = SnapshotInfo(mode="per-worker", consistent=False)
            join_all(info)
            return info
        try:
            info = SnapshotInfo(mode=mode)
            join_all(info)
            self._binlog_position(coordinator, info)
        finally:
            self._fetch(coordinator, release)
        return info

    def export_join_snapshot(self, conn: Any, snapshot: SnapshotInfo) -> None:
        self._fetch(conn, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")

    def _global_lock(self, conn: Any) -> tuple[str, str]:
        """Block commits: (snapshot mode, the statement that releases the lock).

        MariaDB: ``BACKUP STAGE BLOCK_COMMIT`` (running queries go on; only commits wait).
        MySQL: ``FLUSH TABLES WITH READ LOCK`` (``LOCK INSTANCE FOR BACKUP`` does not block DML, so
        it cannot make the workers' snapshots identical).
        """
        if self.capabilities.mariadb:
            try:
                self._fetch(conn, "BACKUP STAGE START")
                self._fetch(conn, "BACKUP STAGE BLOCK_COMMIT")
                return "backup-stage", "BACKUP STAGE END"
            except Exception:  # noqa: BLE001 - fall back to the global read lock
                try:
                    self._fetch(conn, "BACKUP STAGE END")
                except Exception:  # noqa: BLE001 - no stage was started
                    pass
        self._fetch(conn, "FLUSH TABLES WITH READ LOCK")
        return "global-read-lock", "UNLOCK TABLES"

    def _binlog_position(self, conn: Any, info: SnapshotInfo) -> None:
        is_mariadb = self.capabilities.mariadb
        statements = ("SHOW MASTER STATUS",) if is_mariadb else ("SHOW BINARY LOG STATUS", "SHOW MASTER STATUS")
        for stmt in statements:
            try:
                rows = self._fetch(conn, stmt)
            except Exception:  # noqa: BLE001 - binary logging off or statement unknown
                continue
            if rows:
                info.binlog_file, info.binlog_position = str(rows[0][0]), int(rows[0][1])
                if not is_mariadb and len(rows[0]) > 4 and rows[0][4]:
                    info.gtid = str(rows[0][4]).replace("\n", "")
            break
        if is_mariadb:
            try:
                gtid = self._fetch(conn, "SELECT @@GLOBAL.gtid_binlog_pos")[0][0]
                info.gtid = gtid or info.gtid
            except Exception:  # noqa: BLE001
                pass

    def export_abort(self, conn: Any) -> None:
        """Close the socket under a streaming cursor (draining it could take minutes)."""
        sock = getattr(conn, "_sock", None)
        if sock is not None:
            try:
                import socket

                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    # -- SQL ----------------------------------------------------------------------------------
    def _fetch(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with conn.cursor() as cur:
            cur.execute(sql, tuple(params) or None)
            return list(cur.fetchall())

    def export_estimate(self, conn: Any, schema: str, table: m.Table) -> int | None:
        """InnoDB's ``TABLE_ROWS`` statistic (None for other storage engines)."""
        rows = self._fetch(
            conn,
            "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
            "AND ENGINE = 'InnoDB'",
            (schema, table.name),
        )
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    def export_json_text(self, column: m.Column) -> bool:
        """MariaDB keeps JSON as text (LONGTEXT with a JSON_VALID check), MySQL as binary JSON."""
        return column.type.kind == "json" and self.capabilities.mariadb

    def json_expression(self, column: m.Column, json_text: bool = False) -> str | None:
        """SQL producing the column's canonical JSON text exactly as the codec would (NULL for NULL;
        a NUL byte for a value with no canonical form); None when only Python is exact.
        ``json_text``: a json column written as the JSON string of its text (format 1.3)."""
        q = _value(self.quote(column.name), column)
        t = column.type
        k = t.kind
        if k == "json" and json_text:
            return self._json_quote(q)
        if k == "boolean":
            return (
                f"CASE WHEN {q} IS NULL THEN NULL WHEN {q} = 0 THEN 'false' WHEN {q} = 1 THEN 'true' ELSE CHAR(0) END"
            )
        if k == "integer":
            return f"({q} + 0)" if (t.bits or 64) <= 32 else f"CONCAT('\"', {q}, '\"')"
        if k == "year":
            return f"({q} + 0)"
        if k == "decimal":
            return f"CONCAT('\"', {q}, '\"')"
        if k == "float" and t.bits != 32:  # FLOAT is sent with 6 digits: Python path (through DOUBLE)
            return _double_json(q)
        if k in ("char", "varchar", "text", "enum"):
            return self._json_quote(q)
        if k in ("uuid", "inet"):
            return f"CONCAT('\"', {q}, '\"')"
        if k in ("binary", "varbinary", "blob"):
            return f"CONCAT('\"', REPLACE(TO_BASE64({q}), '\\n', ''), '\"')"
        if k == "bit" and t.length:
            return f"CONCAT('\"', LPAD(BIN({q} + 0), {t.length}, '0'), '\"')"
        if k in ("date", "time"):
            return f"CONCAT('\"', {q}, '\"')"
        if k == "timestamp":
            z = "Z" if t.with_timezone else ""
            return f"CONCAT('\"', REPLACE({q}, ' ', 'T'), '{z}\"')"
        if k == "set" and all(_SIMPLE_LABEL.match(v) for v in t.values) and t.values:
            return f"CONCAT('[', IF({q} = '', '', CONCAT('\"', REPLACE({q}, ',', '\",\"'), '\"')), ']')"
        if k == "json":
            if self.capabilities.mariadb:
                # MariaDB keeps JSON as the text written, often already compact: the regular
                # expression runs only on values with whitespace (240k orders.meta: 0.23 s -> 0.06 s)
                text = f"IF({q} REGEXP '[ \\t\\n\\r]', REGEXP_REPLACE({q}, '{_JSON_WS}', '\\\\1'), {q})"
                return _json_wrapped(q, text, f"LOCATE('\"$json\"', {q}) > 0 AND ")
            return _json_wrapped(q, f"REGEXP_REPLACE({q}, '{_JSON_WS}', '$1')", "")
        if k == "geometry":
            h = f"HEX({q})"
            return (
                f"CONCAT('\"', IF(SUBSTR({h}, 1, 8) = '00000000', SUBSTR({h}, 9), "
                f"CONCAT(SUBSTR({h}, 9, 8), LPAD(HEX(CONV(SUBSTR({h}, 17, 2), 16, 10) | 32), 2, '0'), "
                f"SUBSTR({h}, 1, 8), SUBSTR({h}, 19))), '\"')"
            )
        return None

    def _json_quote(self, q: str) -> str:
        """JSON_QUOTE; on MariaDB its upper-case hex escapes of control characters are lowered (as orjson)."""
        quoted = f"JSON_QUOTE({q})"
        if not self.capabilities.mariadb:
            return quoted
        fixed = quoted
        for h in ("0B", "0E", "0F", "1A", "1B", "1C", "1D", "1E", "1F"):
            # an escape \u00XX not itself escaped (preceded by an even run of backslashes)
            pattern = self.literal(r"(?<!\\)((?:\\\\)*)\\u00" + h)
            replacement = self.literal(r"\1\\u00" + h.lower())
            fixed = f"REGEXP_REPLACE({fixed}, {pattern}, {replacement})"
        controls = self.literal(r"[\x0b\x0e\x0f\x1a-\x1f]")
        return f"IF({q} REGEXP {controls}, {fixed}, {quoted})"

    def line_expression(
        self, columns: Sequence[m.Column], *, newline: bool = False, json_text: frozenset[str] = frozenset()
    ) -> str | None:
        """One SQL expression producing the whole canonical line (a binary string), or None.

        ``newline``: the line ends with its ``\\n`` (a NUL line too), so that a ``GROUP_CONCAT``
        of lines is a complete block as the server sends it (no copy on the client)."""
        parts: list[str] = []
        for i, c in enumerate(columns):
            expr = self.json_expression(c, c.name in json_text)
            if expr is None:
                return None
            key = ("{" if i == 0 else ",") + orjson.dumps(c.name).decode() + ":"
            parts.append(self.literal(key))
            parts.append(f"COALESCE({expr}, 'null')")
        if not parts:
            return None
        end, bad = ("'}\\n'", "CONCAT(CHAR(0), '\\n')") if newline else ("'}'", "CHAR(0)")
        return f"COALESCE(CAST(CONCAT({', '.join(parts)}, {end}) AS BINARY), {bad})"

    def select_expression(self, column: m.Column) -> str:
        """The SELECT expression for the Python path: FLOAT through DOUBLE (the text protocol
        would round it to 6 digits)."""
        q = _value(self.quote(column.name), column)
        if column.type.kind == "float" and column.type.bits == 32:
            return f"CAST({q} AS DOUBLE)"
        return q

    def export_adapters(self, columns: Sequence[m.Column]) -> dict[str, Callable[[Any], Any]]:
        """Raw driver forms that the codec does not know: MySQL geometry and vectors."""
        out: dict[str, Callable[[Any], Any]] = {}
        for c in columns:
            if c.type.kind == "geometry":
                out[c.name] = lambda v: mysql_geometry_to_ewkb(bytes(v)) if isinstance(v, (bytes, bytearray)) else v
            elif c.type.kind == "vector":
                out[c.name] = lambda v: mysql_vector_to_list(bytes(v)) if isinstance(v, (bytes, bytearray)) else v
        return out

    # -- streaming ----------------------------------------------------------------------------
    def export_stream(self, conn: Any, unit: Unit, stop: threading.Event) -> Iterator[bytes]:
        """Blocks of complete canonical lines for one unit (unbuffered cursor: bounded memory)."""
        import pymysql.cursors

        # bounds inlined (conn.escape): a --where condition may contain '%', which PyMySQL's
        # parameter formatting would take for a placeholder
        cond, _ = self.export_conditions(unit, inline=conn.escape)
        src = self.export_qualify(unit.schema, unit.table)
        server_side = self.capabilities.server_side_json
        cm = speedups.load("_cmyexport") if server_side and _pymysql_internals_known(conn) else None
        plan = self.c_plan(unit.table.columns, unit.json_text) if cm is not None else None
        if plan is not None:
            yield from self._stream_c(conn, unit, stop, cm, plan)
            return
        line = self.line_expression(unit.table.columns, json_text=unit.json_text) if server_side else None
        if line is not None and _integer_key(unit):
            yield from self._stream_batched(conn, unit, stop)
            return
        if line is not None:
            sql = f"SELECT {line} FROM {src}{cond}"
        else:
            sql = f"SELECT {', '.join(self.select_expression(c) for c in unit.table.columns)} FROM {src}{cond}"
        cur = conn.cursor(pymysql.cursors.SSCursor)
        try:
            cur.execute(sql)
            if line is not None:
                yield from self._blocks_server(cur, stop, unit)
            else:
                enc = RowEncoder(unit.table.columns, self.export_adapters(unit.table.columns), unit.json_text)
                yield from encoded_blocks(cur.fetchmany, enc, stop, FETCH_ROWS)
        finally:
            if not stop.is_set():
                cur.close()

    def _stream_batched(self, conn: Any, unit: Unit, stop: threading.Event) -> Iterator[bytes]:
        """``GROUP_CONCAT`` of the lines over consecutive integer key ranges of about BATCH_BYTES
        (every query in the snapshot's transaction): PyMySQL parses a few large rows instead of
        one per table row (measured: less than half the client CPU of row-by-row streaming). Each
        line carries its newline, so a batch is yielded as received."""
        line = self.line_expression(unit.table.columns, newline=True, json_text=unit.json_text)
        assert line is not None  # export_stream checked that every column has an expression
        key = self.quote(unit.key_columns[0])
        src = self.export_qualify(unit.schema, unit.table)
        cond, _ = self.export_conditions(unit, inline=conn.escape)
        lo, hi = self._fetch(conn, f"SELECT MIN({key}), MAX({key}) FROM {src}{cond}")[0]
        if lo is None:
            return
        extra = f" AND ({unit.where})" if unit.where else ""
        head = f"SELECT GROUP_CONCAT({line} SEPARATOR ''), COUNT(*) FROM {src} WHERE {key} >= "
        start, step, last = int(lo), 1024, int(hi)
        while start <= last and not stop.is_set():
            end = min(start + step, last + 1)
            text, count = self._fetch(conn, f"{head}{start} AND {key} < {end}{extra}")[0]
            if not count:
                start, step = end, min(step * 4, 1 << 40)
                continue
            if text is None or text.count(b"\n") != count:  # cut at group_concat_max_len
                if end - start <= 1:
                    raise DataError("a row is longer than group_concat_max_len", table=unit.qualified)
                step = max(1, (end - start) // 4)
                continue
            yield self._checked(text, unit)
            step = max(1, min(int(BATCH_BYTES * (end - start) / len(text)), step * 8))
            start = end

    # -- the C path: plain values read from the protocol, lines built by dbjson._cmyexport ---------
    def c_kind(self, column: m.Column, json_text: bool = False) -> tuple[int, int] | None:
        """The ``dbjson._cmyexport`` conversion (kind, argument) that gives exactly the bytes of
        :meth:`json_expression` from the column's plain text-protocol value; None when there is none
        (the table then keeps the server-side lines)."""
        t = column.type
        k = t.kind
        if k == "json" and json_text:  # JSON_QUOTE of the text, as a text column
            return _K_STRING, 0
        native = getattr(column, "native", None)
        zerofill = bool(native is not None and native.attrs.get("zerofill"))
        if k == "boolean":
            return _K_BOOL, 0
        if k == "integer":
            if (t.bits or 64) <= 32:
                return _K_NUMBER, 0  # (col + 0): the C code drops ZEROFILL's leading zeros
            return None if zerofill else (_K_QUOTED, 0)
        if k == "year":
            return _K_NUMBER, 0
        if k == "decimal":
            return None if zerofill else (_K_QUOTED, 0)
        if k == "float" and t.bits != 32:
            return None if zerofill else (_K_DOUBLE, 0)
        if k in ("char", "varchar", "text", "enum"):
            return _K_STRING, 0
        if k in ("uuid", "inet", "date", "time"):
            return _K_QUOTED, 0
        if k in ("binary", "varbinary", "blob"):
            return _K_BINARY, 0
        if k == "bit" and t.length and 1 <= t.length <= 64:
            return _K_BIT, t.length
        if k == "timestamp":
            return _K_TIMESTAMP, 1 if t.with_timezone else 0
        if k == "set" and t.values and all(_SIMPLE_LABEL.match(v) and "," not in v for v in t.values):
            return _K_SET, 0
        if k == "json":
            # MySQL's binary JSON is printed normalised: the C code finds a single "$json" key
            # itself; JSON kept as text (MariaDB) gets the server's test in an extra column
            return _K_JSON, 0 if (t.binary and not self.capabilities.mariadb) else 1
        if k == "geometry":
            return _K_GEOMETRY, 0
        return None

    def c_plan(
        self, columns: Sequence[m.Column], json_text: frozenset[str] = frozenset()
    ) -> tuple[list[str], tuple[bytes, ...], tuple[int, ...], tuple[int, ...]] | None:
        """(SELECT expressions, keys, kinds, args) for ``_cmyexport.rows_to_jsonl``, or None."""
        select: list[str] = []
        keys: list[bytes] = []
        kinds: list[int] = []
        args: list[int] = []
        mariadb = self.capabilities.mariadb
        for i, c in enumerate(columns):
            ka = self.c_kind(c, c.name in json_text)
            if ka is None:
                return None
            q = _value(self.quote(c.name), c)
            if ka[0] == _K_BOOL:  # the server's own comparison, as json_expression's CASE
                select.append(f"CASE WHEN {q} IS NULL THEN NULL WHEN {q} = 0 THEN 0 WHEN {q} = 1 THEN 1 ELSE 2 END")
            else:
                select.append(q)
            if ka[0] == _K_JSON and ka[1] == 1:
                pre = f"LOCATE('\"$json\"', {q}) > 0 AND " if mariadb else ""
                select.append(
                    f"IF({pre}JSON_TYPE({q}) = 'OBJECT' AND JSON_LENGTH({q}) = 1 "
                    f"AND JSON_CONTAINS_PATH({q}, 'one', '$.\"$json\"'), 1, 0)"
                )
            keys.append((("{" if i == 0 else ",") + orjson.dumps(c.name).decode() + ":").encode())
            kinds.append(ka[0])
            args.append(ka[1])
        if not keys:
            return None
        return select, tuple(keys), tuple(kinds), tuple(args)

    def _stream_c(self, conn: Any, unit: Unit, stop: threading.Event, cm: Any, plan: Any) -> Iterator[bytes]:
        """A plain ``SELECT col, ...`` sent through PyMySQL, which reads the column definitions;
        the row packets are then read from the connection's socket file in large chunks and
        turned into canonical lines by ``_cmyexport.rows_to_jsonl`` (without the GIL). At the
        end the connection is where PyMySQL expects it (sequence id, no unread bytes)."""
        import pymysql
        from pymysql.connections import MySQLResult
        from pymysql.constants import CLIENT, COMMAND

        select, keys, kinds, args = plan
        cond, _ = self.export_conditions(unit, inline=conn.escape)
        sql = f"SELECT {', '.join(select)} FROM {self.export_qualify(unit.schema, unit.table)}{cond}"
        conn._execute_command(COMMAND.COM_QUERY, sql)
        conn._result = None
        result = MySQLResult(conn)
        result.init_unbuffered_query()
        conn._result = result
        deprecate_eof = bool(getattr(conn, "client_flag", 0) & CLIENT.DEPRECATE_EOF)
        state = _CState(conn, result, deprecate_eof)
        try:
            if not result.unbuffered_active or result.field_count != len(select):
                raise DataError("unexpected result set from the server", table=unit.qualified)
            parts: list[bytes] = []
            size = 0
            while not stop.is_set():
                out, state.pos, state.seq, status, info, _ = cm.rows_to_jsonl(
                    state.buf, state.pos, state.seq, keys, kinds, args, deprecate_eof
                )
                if out:
                    parts.append(out)
                    size += len(out)
                    if size >= BLOCK_BYTES:
                        yield b"".join(parts)
                        parts, size = [], 0
                if status == 0:
                    if not state.read(info, stop):
                        return
                    continue
                if status == 1:
                    state.finish(info)
                    break
                if status == 2:
                    state.finish(0)
                    pymysql.err.raise_mysql_exception(bytes(info))
                col, value = info
                name = unit.table.columns[col].name
                if status == 3:
                    raise DataError(
                        "a value has no canonical encoding (a boolean column holding a value other than 0/1, "
                        "or a row longer than max_allowed_packet)",
                        table=unit.qualified,
                        column=name,
                    )
                raise DataError(
                    "a value the C speedup cannot encode exactly (set DBJSON_NO_SPEEDUPS=1 to use the "
                    "server-side path)",
                    table=unit.qualified,
                    column=name,
                    value=value[:200].decode("utf-8", "replace"),
                )
            if parts and not stop.is_set():
                yield b"".join(parts)
        finally:
            if result.unbuffered_active and not stop.is_set():
                state.drain(cm, stop)
            elif stop.is_set():  # the socket is shut down (export_abort): nothing left to read
                result.unbuffered_active = False
                result.connection = None

    def _blocks_server(self, cur: Any, stop: threading.Event, unit: Unit) -> Iterator[bytes]:
        buf: list[bytes] = []
        size = 0
        while not stop.is_set():
            rows = cur.fetchmany(FETCH_ROWS)
            if not rows:
                break
            for (ln,) in rows:
                buf.append(ln)
                size += len(ln) + 1
            if size >= BLOCK_BYTES:
                yield self._join(buf, unit)
                buf, size = [], 0
        if buf:
            yield self._join(buf, unit)

    @staticmethod
    def _join(lines: list[bytes], unit: Unit) -> bytes:
        return MySQLExport._checked(b"\n".join(lines) + b"\n", unit)

    @staticmethod
    def _checked(block: bytes, unit: Unit) -> bytes:
        """``block`` (complete lines), unless a line holds the NUL that marks a value without a
        canonical encoding."""
        if b"\x00" in block:
            bad = next(ln for ln in block.split(b"\n") if b"\x00" in ln)
            raise DataError(
                "a value has no canonical encoding (a boolean column holding a value other than 0/1, "
                "or a row longer than max_allowed_packet)",
                table=unit.qualified,
                value=bad[:200].replace(b"\x00", b"?").decode("utf-8", "replace"),
            )
        return block
