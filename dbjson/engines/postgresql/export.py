"""PostgreSQL export: one exported snapshot shared by every worker, rows as canonical JSON lines.

Snapshot: the coordinator opens ``REPEATABLE READ, READ ONLY`` and calls ``pg_export_snapshot()``;
each worker opens the same kind of transaction and runs ``SET TRANSACTION SNAPSHOT``.

Rows: when every column has a server-side expression that produces exactly the canonical JSON
text (see :meth:`PostgreSQLExport.json_expression`), the server builds whole lines and streams them
with ``COPY (SELECT ...) TO STDOUT`` in CSV format with control-character quote and delimiter, so
the JSON passes through untouched and Python only moves bytes (and hashes lines). Otherwise a
server-side (named) cursor fetches typed values and :class:`dbjson.format.codec.RowEncoder` encodes them.
Session settings make text forms canonical: ``TimeZone=UTC``, ``DateStyle=ISO``,
``IntervalStyle=iso_8601``.

With the C speedup ``dbjson._cpgexport`` the server does less: a plain ``COPY (SELECT col, ...)
TO STDOUT`` in text format (only the kinds without a client-side conversion still get their
``json_expression``), and :func:`copy_to_jsonl_py` — or its C twin, byte for byte the same — turns
blocks of those rows into the same canonical lines (see :meth:`PostgreSQLExport.copy_plan`).
When every column's result type has a native binary decoder (:func:`binary_decoders`: boolean,
integers, numeric, date, timestamp(tz), text types, json/jsonb, bytea), the COPY is ``FORMAT
binary`` instead (no output function or COPY escaping on the server: 14-19 % less server CPU on the
benchmark tables) and :func:`copy_binary_to_jsonl_py` — or its C twin — decodes each value to the
text its output function writes in this session, so the lines are the same bytes.
"""

from __future__ import annotations

import base64
import itertools
import re
import select
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import orjson

from ... import model as m
from ... import speedups
from ...errors import DataError
from ...format.codec import RowEncoder
from ...format.manifest import SnapshotInfo
from ..interface import BLOCK_BYTES
from ..interface import ExportUnit as Unit
from ..shared.sqlexport import SQLExportBase, encoded_blocks
from .copyread import block_reader

FETCH_ROWS = 5000
_cursor_ids = itertools.count(1)
_JSON_COMPACT = r"""regexp_replace(%s, '("(?:[^"\\]|\\.)*")|[ \t\n\r]+', '\1', 'g')"""
# jsonb prints its only whitespace as the separators ", " and ": ". Removing those with replace() is
# exact unless a string holds ", " or ": " too, which the jsonb comparison detects (a changed string
# or key never compares equal); only then the regular expression runs (measured on 240k orders:
# 1.4 s → 0.6 s of server CPU for the table).
_JSONB_REPLACE = "replace(replace({q}::text, '\": ', '\":'), ', ', ',')"
_JSONB_COMPACT = (
    f"CASE WHEN {_JSONB_REPLACE}::jsonb = {{q}} THEN {_JSONB_REPLACE} "
    f"ELSE {_JSON_COMPACT.replace('{', '{{').replace('}', '}}') % '{q}::text'} END"
)


def _json_wrapped(q: str, text: str, binary: bool) -> str:
    """The row encoding's escape of a json value (:func:`dbjson.format.jsontext.wrap_json_text`): the JSON
    document null → ``{"$json":null}``, an object whose only key is ``$json`` wrapped once more.
    Nested CASEs keep the cheap tests first (jsonb: a key lookup, no serialization); no subquery
    (a SubPlan in the line expression tripled the time of a 200k-row jsonb export)."""
    b = "b" if binary else ""
    has_key = f"jsonb_exists({q}, '$json')" if binary else f"strpos({q}::text, '\"$json\"') > 0"
    only_key = f"({q}{'' if binary else '::jsonb'} - '$json') = '{{}}'::jsonb"
    wrapped = f"'{{\"$json\":' || {text} || '}}'"
    return (
        f"CASE json{b}_typeof({q}) WHEN 'null' THEN '{{\"$json\":null}}' "
        f"WHEN 'object' THEN CASE WHEN {has_key} THEN CASE WHEN {only_key} THEN {wrapped} ELSE {text} END "
        f"ELSE {text} END ELSE {text} END"
    )


PIPE_GROUP = 64  # pieces per || chain (concat() joins the chains: bounded expression depth)
# orjson's float format from PostgreSQL's shortest text: plain notation (at least one decimal) for
# 1e-5 <= |v| < 1e16, else exponent form without zero padding ("1e+16", "1.5e-7").
_FLOAT_JSON = (
    "CASE WHEN {q}::text IN ('NaN', 'Infinity', '-Infinity') THEN '\"' || {q}::text || '\"' "
    "WHEN {q}::text = '-0' THEN '-0.0' "
    "WHEN {q} = 0 OR (abs({q}::text::float8) >= 1e-5 AND abs({q}::text::float8) < 1e16) THEN "
    "(SELECT CASE WHEN strpos(n, '.') > 0 THEN n ELSE n || '.0' END FROM (SELECT {q}::text::numeric::text AS n) AS f) "
    "ELSE regexp_replace({q}::text, 'e([+-])0*([0-9])', 'e\\1\\2') END"
)
_TEXT_CAST_KINDS = frozenset(
    {
        "date",
        "time",
        "timestamp",
        "interval",
        "json",
        "inet",
        "macaddr",
        "range",
        "xml",
        "opaque",
        "geometry",
        "bit",
        "vector",
        "enum",
        "uuid",
    }
)
_ARRAY_TEXT_ELEMENTS = frozenset(
    {
        "date",
        "time",
        "timestamp",
        "interval",
        "inet",
        "macaddr",
        "range",
        "xml",
        "opaque",
        "json",
        "money",
        "geometry",
        "bit",
    }
)


def _drain(pg: Any) -> None:
    """Consume the remaining results of a query sent on the raw libpq connection."""
    while pg.get_result() is not None:
        pass


def _discard_copy_out(pg: Any, read_block: Callable[[int], tuple[int, bytes]]) -> None:
    """Read a COPY OUT to its end and drop the rows (best effort: a broken connection is left as it is)."""
    try:
        while True:
            status, _data = read_block(BLOCK_BYTES)
            if status == 0:
                select.select([pg.socket], [], [], 1.0)
                pg.consume_input()
            elif status < 0:
                break
        _drain(pg)
    except Exception:  # noqa: BLE001 - the connection is unusable; its next query reports it
        pass


def _message(result: Any) -> str:
    if result is None:
        return "no result"
    return bytes(result.error_message or b"").decode("utf-8", "replace").strip() or str(result.status)


def _rows_reader(pg: Any) -> Callable[[int], tuple[int, bytes]]:
    """The pure-Python counterpart of :func:`.copyread.block_reader`: ``PQgetCopyData`` one row per
    call (non-blocking: a blocking call would hold the GIL while libpq waits for the server)."""
    get = pg.get_copy_data

    def read(max_bytes: int) -> tuple[int, bytes]:
        out = bytearray()
        while len(out) < max_bytes:
            nbytes, data = get(1)
            if nbytes <= 0:  # 0: no complete row buffered; -1: done; -2: error
                return (0 if nbytes == 0 else -1 if nbytes == -1 else -2), bytes(out)
            out += data
        return 1, bytes(out)

    return read


def _fsp_pad(txt: str, fsp: int) -> str:
    """SQL padding a time text ('12:34:56' or '12:34:56.5') to exactly ``fsp`` fraction digits."""
    if not fsp:
        return txt
    return f"rpad(CASE WHEN strpos({txt}, '.') > 0 THEN {txt} ELSE {txt} || '.' END, {9 + fsp}, '0')"


def _json_array_element(element: m.Type) -> bool:
    """Element kinds whose to_json() text is already canonical (numbers ≤ 32 bits, booleans, text)."""
    return element.kind in ("boolean", "char", "varchar", "text") or (
        element.kind == "integer" and (element.bits or 64) <= 32
    )


# -- client-side conversion of plain COPY text rows (the C speedup and its Python reference) --------
# Column kinds of copy_to_jsonl_py / dbjson._cpgexport.copy_to_jsonl (the module's K_* constants).
K_RAW, K_NUMBER, K_BOOL, K_QUOTED, K_STRING, K_TIMESTAMP, K_BINARY, K_JSON, K_FLOAT = (
    speedups.constants("_cpgexport")[k]
    for k in "K_RAW K_NUMBER K_BOOL K_QUOTED K_STRING K_TIMESTAMP K_BINARY K_JSON K_FLOAT".split()
)
_COPY_ESCAPES = {b"\\": b"\\", b"b": b"\b", b"f": b"\f", b"n": b"\n", b"r": b"\r", b"t": b"\t", b"v": b"\v"}
_COPY_ESCAPE = re.compile(rb"\\(.)", re.S)
_TS = re.compile(rb"([0-9]{4,}-[0-9]{2}-[0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.([0-9]{1,6}))?")
_JSON_WS = re.compile(rb'("(?:[^"\\]|\\.)*")|[ \t\n\r]+', re.S)
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_JSON_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.S)
_STRING_ESCAPES = {0x22: b'\\"', 0x5C: b"\\\\", 0x08: b"\\b", 0x0C: b"\\f", 0x0A: b"\\n", 0x0D: b"\\r", 0x09: b"\\t"}
_STRING_ESCAPE = re.compile(rb'["\\\x00-\x1f]')


def _copy_unescape(field: bytes) -> bytes:
    def one(mt: re.Match[bytes]) -> bytes:
        try:
            return _COPY_ESCAPES[mt.group(1)]
        except KeyError:
            raise DataError(f"unexpected escape in COPY output: {mt.group(0)!r}") from None

    return _COPY_ESCAPE.sub(one, field)


def _to_json_string(text: bytes) -> bytes:
    """PostgreSQL's escape_json (to_json of a text value)."""
    return (
        b'"'
        + _STRING_ESCAPE.sub(lambda mt: _STRING_ESCAPES.get(mt.group()[0]) or b"\\u%04x" % mt.group()[0], text)
        + b'"'
    )


def _timestamp(text: bytes, arg: int) -> bytes:
    """``to_char(q, 'YYYY-MM-DD"T"HH24:MI:SS.FF<fsp>')`` (+ ``Z``) for finite AD values, else ``q::text``."""
    fsp, tz = arg & 0xFF, bool(arg >> 8 & 1)
    if text in (b"infinity", b"-infinity") or text.endswith(b" BC"):
        return b'"' + text + b'"'
    body = text[:-3] if tz and text.endswith(b"+00") else None if tz else text
    mt = _TS.fullmatch(body) if body is not None else None
    if mt is None or fsp > 6:
        raise DataError(f"unexpected timestamp text in COPY output: {text!r}")
    frac = b"." + (mt.group(3) or b"").ljust(fsp, b"0")[:fsp] if fsp else b""
    return b'"' + mt.group(1) + b"T" + mt.group(2) + frac + (b"Z" if tz else b"") + b'"'


def _bytea(text: bytes) -> bytes:
    if not text.startswith(b"\\x"):
        raise DataError("unexpected bytea text in COPY output (bytea_output must be hex)")
    try:
        return b'"' + base64.b64encode(bytes.fromhex(text[2:].decode("ascii"))) + b'"'
    except ValueError:
        raise DataError("unexpected bytea text in COPY output") from None


def _skip_string(doc: bytes, i: int) -> int:
    """Index just past the JSON string starting at ``doc[i] == '"'``, or -1."""
    n = len(doc)
    i += 1
    while i < n:
        if doc[i] == 0x5C:
            i += 2
            continue
        if doc[i] == 0x22:
            return i + 1
        i += 1
    return -1


_KEY_ESCAPES = {ord(k): ord(v) for k, v in zip('"\\/bfnrt', '"\\/\b\f\n\r\t')}


def _key_is_dollar_json(key: bytes) -> bool:
    """Does the JSON string ``key`` (quotes included) decode to exactly ``$json``?"""
    decoded: list[int] = []
    i, end = 1, len(key) - 1
    while i < end:
        ch = key[i]
        if ch == 0x5C:
            if i + 1 >= end:
                return False
            i += 1
            e = key[i]
            if e == 0x75:  # \uXXXX
                if i + 4 >= end:
                    return False
                digits = key[i + 1 : i + 5]
                if not all(c in b"0123456789abcdefABCDEF" for c in digits):
                    return False
                v = int(digits, 16)
                i += 4
                ch = v if v < 0x80 else -1
            elif e in _KEY_ESCAPES:
                ch = _KEY_ESCAPES[e]
            else:
                return False
        decoded.append(ch)
        if len(decoded) > 5 or decoded[-1] != b"$json"[len(decoded) - 1]:
            return False
        i += 1
    return len(decoded) == 5


def _dollar_json_keys(doc: bytes) -> int:
    """1 when the compact object ``doc`` has keys and every top-level key decodes to ``$json``,
    0 when not, -1 when it is not a well-formed object (a structural scan, as the C code does)."""
    n = len(doc)
    if n < 2 or doc[0] != 0x7B:
        return -1
    if doc[1] == 0x7D:
        return 0 if n == 2 else -1
    i, every = 1, True
    while True:
        if i >= n or doc[i] != 0x22:
            return -1
        e = _skip_string(doc, i)
        if e < 0:
            return -1
        every = every and _key_is_dollar_json(doc[i:e])
        i = e
        if i >= n or doc[i] != 0x3A:
            return -1
        i += 1
        depth = 0
        while True:
            if i >= n:
                return -1
            c = doc[i]
            if c == 0x22:
                i = _skip_string(doc, i)
                if i < 0:
                    return -1
                continue
            if c in (0x7B, 0x5B):
                depth += 1
            elif c in (0x7D, 0x5D):
                if depth == 0:
                    return int(every) if c == 0x7D and i == n - 1 else -1
                depth -= 1
            elif c == 0x2C and depth == 0:
                i += 1
                break
            i += 1


def _jsonb_castable(doc: bytes) -> bool:
    """False when a string of ``doc`` holds \\u0000 or an unpaired surrogate escape: the
    server's ``json::jsonb`` (in the $json test of a json column) fails on those."""
    for string in _JSON_STRING.finditer(doc):
        high = False
        last = 0
        for mt in _JSON_ESCAPE.finditer(string.group()):
            cp = int(mt.group(1), 16) if mt.group(1) else None
            if high:
                high = False
                if cp is not None and 0xDC00 <= cp <= 0xDFFF and mt.start() == last:
                    continue
                return False
            if cp == 0 or (cp is not None and 0xDC00 <= cp <= 0xDFFF):
                return False
            if cp is not None and 0xD800 <= cp <= 0xDBFF:
                high, last = True, mt.end()
        if high:
            return False
    return True


def _json(text: bytes, binary: int) -> bytes:
    """``_json_wrapped`` of the compacted document (see :meth:`PostgreSQLExport.json_expression`)."""
    doc = _JSON_WS.sub(rb"\1", text)
    if doc == b"null":
        return b'{"$json":null}'
    if doc[:1] == b"{" and (binary or b'"$json"' in doc):
        if not binary and not _jsonb_castable(doc):
            raise DataError("a json value with \\u0000 or an unpaired surrogate escape cannot be converted to jsonb")
        wrap = _dollar_json_keys(doc)
        if wrap < 0:
            raise DataError("unexpected json text in COPY output")
        if wrap:
            return b'{"$json":' + doc + b"}"
    return doc


_FLOAT_TEXT = re.compile(rb"(-?)([0-9]+)(?:\.([0-9]+))?(?:e([+-][0-9]{1,4}))?")
_FLOAT_EXPONENT = re.compile(rb"e([+-])0*([0-9])")


def _float(text: bytes) -> bytes:
    """``_FLOAT_JSON`` from the shortest float text: decides 0 and 1e-5 <= |v| < 1e16 on the decimal
    text (the float8 comparisons of the SQL give the same answer for shortest texts)."""
    if text in (b"NaN", b"Infinity", b"-Infinity"):
        return b'"' + text + b'"'
    if text == b"-0":
        return b"-0.0"
    mt = _FLOAT_TEXT.fullmatch(text)
    if mt is None:
        raise DataError(f"unexpected float text in COPY output: {text!r}")
    sign, ip, fp, ex = mt.group(1), mt.group(2), mt.group(3) or b"", int(mt.group(4) or 0)
    digits = (ip + fp).lstrip(b"0")
    if not digits:
        return b"0.0"
    p = ex - len(fp)  # value = digits * 10**p
    if not -5 <= len(digits) - 1 + p <= 15:
        return _FLOAT_EXPONENT.sub(rb"e\1\2", text, count=1)
    if p >= 0:
        return sign + digits + b"0" * p + b".0"
    padded = digits.rjust(1 - p, b"0")
    return sign + padded[:p] + b"." + padded[p:]


def copy_to_jsonl_py(block: bytes, keys: Sequence[bytes], kinds: Sequence[int], args: Sequence[int]) -> bytes:
    """Complete rows of ``COPY (SELECT ...) TO STDOUT`` text → canonical JSON lines: ``keys[i]`` then
    column i's JSON text, as ``json_expression`` makes the server write it. The reference of
    ``dbjson._cpgexport.copy_to_jsonl`` (same bytes) and its fallback for blocks it declines."""
    out: list[bytes] = []
    ncols = len(keys)
    rows = block.split(b"\n")
    if rows.pop() != b"":
        raise DataError("incomplete row in COPY output")
    for row in rows:
        fields = row.split(b"\t")
        if len(fields) != ncols:
            raise DataError(f"COPY output row with {len(fields)} fields, expected {ncols}")
        for key, kind, arg, f in zip(keys, kinds, args, fields):
            out.append(key)
            if f == b"\\N":
                out.append(b"null")
                continue
            if b"\\" in f:
                f = _copy_unescape(f)
            out.append(_text_value(kind, arg, f))
        out.append(b"}\n")
    return b"".join(out)


def _text_value(kind: int, arg: int, f: bytes) -> bytes:
    """The JSON text of one value from its output function's text (``f``, unescaped)."""
    if kind in (K_RAW, K_NUMBER):
        return f
    if kind == K_BOOL:
        if f not in (b"t", b"f"):
            raise DataError(f"unexpected boolean text in COPY output: {f!r}")
        return b"true" if f == b"t" else b"false"
    if kind == K_QUOTED:
        return b'"' + f + b'"'
    if kind == K_STRING:
        return _to_json_string(f)
    if kind == K_TIMESTAMP:
        return _timestamp(f, arg)
    if kind == K_BINARY:
        return _bytea(f)
    if kind == K_JSON:
        return _json(f, arg)
    if kind == K_FLOAT:
        return _float(f)
    raise ValueError(f"unknown column kind {kind}")


# -- binary COPY: values decoded to their output function's text (C twin: copy_binary_to_jsonl) ----
D_TEXT, D_BOOL, D_INT2, D_INT4, D_INT8, D_BYTEA, D_JSONB, D_NUMERIC, D_TIMESTAMP, D_TIMESTAMPTZ, D_DATE = (
    speedups.constants("_cpgexport")[k]
    for k in "D_TEXT D_BOOL D_INT2 D_INT4 D_INT8 D_BYTEA D_JSONB D_NUMERIC D_TIMESTAMP D_TIMESTAMPTZ D_DATE".split()
)
BINARY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_POSTGRES_EPOCH_JDATE = 2451545
_USECS_PER_DAY = 86_400_000_000
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_NUMERIC_SPECIAL = {0xC000: b"NaN", 0xD000: b"Infinity", 0xF000: b"-Infinity"}


def _j2date(jd: int) -> tuple[int, int, int]:
    """PostgreSQL's ``j2date`` (Julian day → proleptic Gregorian year, month, day; year 0 is 1 BC)."""
    julian = jd + 32044
    quad = julian // 146097
    extra = (julian - quad * 146097) * 4 + 3
    julian += 60 + quad * 3 + extra // 146097
    quad = julian // 1461
    julian -= quad * 1461
    y = julian * 4 // 1461
    julian = ((julian + 305) % 365 if y != 0 else (julian + 306) % 366) + 123
    y += quad * 4
    quad = julian * 2141 // 65536
    return y - 4800, (quad + 10) % 12 + 1, julian - 7834 * quad // 256


def _date_text(jd: int) -> tuple[bytes, bool]:
    """ISO ``Y-MM-DD`` of a Julian day (the year of its era, zero-padded to 4) and whether it is BC."""
    y, mo, d = _j2date(jd)
    return b"%04d-%02d-%02d" % (y if y > 0 else 1 - y, mo, d), y <= 0


def _binary_timestamp(us: int, tz: bool) -> bytes:
    """``timestamp_out`` / ``timestamptz_out`` (DateStyle ISO, TimeZone UTC) of microseconds since 2000-01-01."""
    if us == _INT64_MIN:
        return b"-infinity"
    if us == _INT64_MAX:
        return b"infinity"
    date, time = divmod(us, _USECS_PER_DAY)  # floor: time >= 0, as timestamp2tm adjusts it
    jd = date + _POSTGRES_EPOCH_JDATE
    if not 0 <= jd <= _INT32_MAX:
        raise DataError("timestamp out of range in binary COPY output")
    day, bc = _date_text(jd)
    hour, time = divmod(time, 3_600_000_000)
    minute, time = divmod(time, 60_000_000)
    sec, fsec = divmod(time, 1_000_000)
    text = day + b" %02d:%02d:%02d" % (hour, minute, sec)
    if fsec:
        text += b"." + (b"%06d" % fsec).rstrip(b"0")
    return text + (b"+00" if tz else b"") + (b" BC" if bc else b"")


def _binary_date(days: int) -> bytes:
    """``date_out`` (DateStyle ISO) of days since 2000-01-01."""
    if days == _INT32_MIN:
        return b"-infinity"
    if days == _INT32_MAX:
        return b"infinity"
    jd = days + _POSTGRES_EPOCH_JDATE
    if not 0 <= jd <= _INT32_MAX:
        raise DataError("date out of range in binary COPY output")
    text, bc = _date_text(jd)
    return text + b" BC" if bc else text


def _binary_numeric(v: bytes) -> bytes:
    """``numeric_out`` of numeric_send's form (PostgreSQL's get_str_from_var, digit by digit)."""
    if len(v) < 8:
        raise DataError("unexpected numeric in binary COPY output")
    ndigits, weight, sign, dscale = struct.unpack_from(">hhHh", v)
    if sign in _NUMERIC_SPECIAL:
        return _NUMERIC_SPECIAL[sign]
    if ndigits < 0 or dscale < 0 or len(v) != 8 + 2 * ndigits or sign not in (0, 0x4000):
        raise DataError("unexpected numeric in binary COPY output")
    digits = struct.unpack_from(f">{ndigits}H", v, 8)
    if any(d > 9999 for d in digits):
        raise DataError("unexpected numeric in binary COPY output")

    def digit(k: int) -> int:
        return digits[k] if 0 <= k < ndigits else 0

    out = [b"-"] if sign == 0x4000 else []
    if weight < 0:
        k = weight + 1
        out.append(b"0")
    else:
        out.append(b"%d" % digit(0))  # the first group without leading zeros
        out += [b"%04d" % digit(k) for k in range(1, weight + 1)]
        k = weight + 1
    if dscale > 0:
        groups = (dscale + 3) // 4
        out.append(b"." + b"".join(b"%04d" % digit(k + g) for g in range(groups))[:dscale])
    return b"".join(out)


def _binary_text(decoder: int, v: bytes) -> bytes:
    """The output function's text of one binary value (D_BYTEA is not text: see the caller)."""
    n = len(v)
    if decoder == D_TEXT:
        return v
    if decoder == D_BOOL and n == 1 and v[0] <= 1:
        return b"t" if v[0] else b"f"
    if decoder in (D_INT2, D_INT4, D_INT8) and n == {D_INT2: 2, D_INT4: 4, D_INT8: 8}[decoder]:
        return b"%d" % int.from_bytes(v, "big", signed=True)
    if decoder == D_JSONB and n >= 1 and v[0] == 1:
        return v[1:]
    if decoder == D_NUMERIC:
        return _binary_numeric(v)
    if decoder in (D_TIMESTAMP, D_TIMESTAMPTZ) and n == 8:
        return _binary_timestamp(int.from_bytes(v, "big", signed=True), decoder == D_TIMESTAMPTZ)
    if decoder == D_DATE and n == 4:
        return _binary_date(int.from_bytes(v, "big", signed=True))
    raise DataError(f"unexpected value in binary COPY output (decoder {decoder}, {n} bytes)")


def copy_binary_to_jsonl_py(
    block: bytes, keys: Sequence[bytes], kinds: Sequence[int], args: Sequence[int], decoders: Sequence[int]
) -> bytes:
    """Complete tuples of ``COPY (SELECT ...) TO STDOUT (FORMAT binary)`` (header stripped, the
    trailer allowed at the end) → the same canonical lines as :func:`copy_to_jsonl_py` makes from
    the text COPY of the same rows: each value is decoded to its output function's text in the
    export session (:meth:`PostgreSQLExport.export_session`), then converted as its kind says. The
    reference of ``dbjson._cpgexport.copy_binary_to_jsonl`` (same bytes)."""
    out: list[bytes] = []
    ncols, i, n = len(keys), 0, len(block)
    while i < n:
        if n - i < 2:
            raise DataError("incomplete tuple in binary COPY output")
        (nf,) = struct.unpack_from(">h", block, i)
        i += 2
        if nf == -1:
            if i != n:
                raise DataError("data after the binary COPY trailer")
            break
        if nf != ncols:
            raise DataError(f"binary COPY tuple with {nf} fields, expected {ncols}")
        for key, kind, arg, decoder in zip(keys, kinds, args, decoders):
            if n - i < 4:
                raise DataError("incomplete tuple in binary COPY output")
            (fl,) = struct.unpack_from(">i", block, i)
            i += 4
            out.append(key)
            if fl == -1:
                out.append(b"null")
                continue
            if fl < 0 or fl > n - i:
                raise DataError("incomplete tuple in binary COPY output")
            v = block[i : i + fl]
            i += fl
            if decoder == D_BYTEA:
                if kind != K_BINARY:
                    raise ValueError("D_BYTEA goes with K_BINARY only")
                out.append(b'"' + base64.b64encode(v) + b'"')
            else:
                out.append(_text_value(kind, arg, _binary_text(decoder, v)))
        out.append(b"}\n")
    return b"".join(out)


def copy_binary_to_jsonl(
    block: bytes, keys: tuple[bytes, ...], kinds: tuple[int, ...], args: tuple[int, ...], decoders: tuple[int, ...]
) -> bytes:
    """The C conversion of binary COPY tuples when built (and not disabled), else the Python reference."""
    mod = speedups.load("_cpgexport")
    if mod is not None:
        out = mod.copy_binary_to_jsonl(block, keys, kinds, args, decoders)
        if out is not None:
            return out  # type: ignore[no-any-return]
    return copy_binary_to_jsonl_py(block, keys, kinds, args, decoders)


def binary_header_length(block: bytes) -> int:
    """Length of the binary COPY header at the start of ``block`` (signature, flags, extension)."""
    if len(block) < 19 or not block.startswith(BINARY_SIGNATURE):
        raise DataError("binary COPY output without its header")
    flags, ext = struct.unpack_from(">II", block, 11)
    if flags & 0x1FFFF or len(block) < 19 + ext:  # bits 0-15: critical; 16: row OIDs included
        raise DataError("unexpected binary COPY header")
    return 19 + int(ext)


# The binary decoder of each result type (pg_type OID) that decodes natively, and the kinds of
# copy_kind each may feed: a column whose expression has another type keeps the text COPY.
_BINARY_DECODERS: dict[int, tuple[int, frozenset[int]]] = {
    16: (D_BOOL, frozenset({K_BOOL})),
    21: (D_INT2, frozenset({K_NUMBER})),
    23: (D_INT4, frozenset({K_NUMBER})),
    20: (D_INT8, frozenset({K_QUOTED})),
    25: (D_TEXT, frozenset({K_RAW, K_STRING})),  # text, and every ::text expression
    1043: (D_TEXT, frozenset({K_STRING})),  # varchar
    1042: (D_TEXT, frozenset({K_STRING})),  # bpchar (sent padded, as its output function writes it)
    114: (D_TEXT, frozenset({K_JSON, K_STRING})),  # json
    3802: (D_JSONB, frozenset({K_JSON, K_STRING})),  # jsonb
    17: (D_BYTEA, frozenset({K_BINARY})),
    1700: (D_NUMERIC, frozenset({K_QUOTED})),
    1114: (D_TIMESTAMP, frozenset({K_TIMESTAMP})),
    1184: (D_TIMESTAMPTZ, frozenset({K_TIMESTAMP})),
    1082: (D_DATE, frozenset({K_QUOTED})),
}


_BINARY_KINDS = frozenset().union(*(kinds for _d, kinds in _BINARY_DECODERS.values()))
# A unit smaller than this (its share of pg_table_size) keeps the text COPY: binary saves ~15 % of
# the server's ~5 ms per MB, about what the type query's round trip costs.
BINARY_MIN_BYTES = 1 << 20


def binary_decoders(kinds: Sequence[int], args: Sequence[int], oids: Sequence[int]) -> tuple[int, ...] | None:
    """The decoders of a copy plan's columns from their result types, or None when one column has
    no native decoder for its kind (the table then keeps the text COPY)."""
    if len(oids) != len(kinds):
        return None
    out: list[int] = []
    for kind, arg, oid in zip(kinds, args, oids, strict=True):
        entry = _BINARY_DECODERS.get(oid)
        if entry is None or kind not in entry[1]:
            return None
        if kind == K_TIMESTAMP and bool(arg >> 8 & 1) != (entry[0] == D_TIMESTAMPTZ):
            return None
        if kind == K_JSON and bool(arg) != (entry[0] == D_JSONB):
            return None
        out.append(entry[0])
    return tuple(out)


def copy_to_jsonl(block: bytes, keys: tuple[bytes, ...], kinds: tuple[int, ...], args: tuple[int, ...]) -> bytes:
    """The C conversion when built (and not disabled), the Python reference otherwise or for a block
    the C code declines."""
    mod = speedups.load("_cpgexport")
    if mod is not None:
        out = mod.copy_to_jsonl(block, keys, kinds, args)
        if out is not None:
            return out  # type: ignore[no-any-return]
    return copy_to_jsonl_py(block, keys, kinds, args)


def _binary_converter(
    keys: tuple[bytes, ...], kinds: tuple[int, ...], args: tuple[int, ...], decoders: tuple[int, ...]
) -> Callable[[bytes], bytes]:
    """Blocks of a binary COPY → lines: the first block starts with the header, which is checked
    and skipped."""
    first = True

    def convert(blk: bytes) -> bytes:
        nonlocal first
        if first:
            first = False
            blk = blk[binary_header_length(blk) :]
        return copy_binary_to_jsonl(blk, keys, kinds, args, decoders)

    return convert


class PostgreSQLExport(SQLExportBase):
    mark = "%s"
    # libpq waits for the server (a backend is forked per connection: 5-10 ms) without the GIL:
    # the coordinator and the workers connect at once
    export_connect_concurrently = True
    # pg_class statistics and pg_table_size read the same on every connection of the snapshot:
    # the tables are planned on every worker (200 tables: 161 -> 108 ms)
    export_plan_concurrently = True
    _snapshot_id: str | None = None  # the exported snapshot workers return to (export_refresh)

    # -- connections and snapshot -------------------------------------------------------------
    def export_session(self, conn: Any) -> None:
        """Autocommit (transactions are explicit) and canonical text forms."""
        if not conn.autocommit:
            conn.rollback()  # e.g. the server-version query of engine detection
            conn.autocommit = True
        conn.execute(
            "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'iso_8601'; "
            "SET extra_float_digits = 1; SET bytea_output = 'hex'; SET client_encoding = 'UTF8'"
        )

    def export_snapshot(self, coordinator: Any, workers: Sequence[Any], warn: Callable[[str], None]) -> SnapshotInfo:
        begin = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
        if coordinator is None:
            workers[0].execute(begin)
            return SnapshotInfo(mode="single-connection")
        coordinator.execute(begin)
        snap_id, lsn = coordinator.execute(
            "SELECT pg_export_snapshot(), CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() "
            "ELSE pg_current_wal_lsn() END::text"
        ).fetchone()
        try:
            for w in workers:
                w.execute(begin)
                w.execute(f"SET TRANSACTION SNAPSHOT {self.literal(snap_id)}")
        except BaseException:
            coordinator.execute("COMMIT")
            raise
        # The coordinator's transaction stays open for the whole export (closing its connection
        # ends it): the snapshot can be imported again by export_refresh.
        self._snapshot_id = snap_id
        return SnapshotInfo(mode="exported-snapshot", id=snap_id, lsn=lsn)

    def export_cluster_snapshot(
        self, coordinator: Any, join_all: Callable[[SnapshotInfo], None], warn: Callable[[str], None]
    ) -> SnapshotInfo:
        """pg_export_snapshot() in the coordinator's transaction, which stays open for the whole
        export (closing its connection ends it): any task joins it meanwhile (``export_join_snapshot``)."""
        coordinator.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        snap_id, lsn = coordinator.execute(
            "SELECT pg_export_snapshot(), CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() "
            "ELSE pg_current_wal_lsn() END::text"
        ).fetchone()
        info = SnapshotInfo(mode="exported-snapshot", id=snap_id, lsn=lsn)
        try:
            join_all(info)
        except BaseException:
            coordinator.execute("COMMIT")
            raise
        return info

    def export_join_snapshot(self, conn: Any, snapshot: SnapshotInfo) -> None:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        conn.execute(f"SET TRANSACTION SNAPSHOT {self.literal(snapshot.id or '')}")
        self._snapshot_id = snapshot.id

    def export_refresh(self, conn: Any) -> None:
        """End a worker's transaction and open another on the same exported snapshot, releasing
        the AccessShareLock of every table read so far: a database of thousands of tables does
        not fit PostgreSQL's lock table in one transaction ('out of shared memory'). The data
        seen is the same snapshot; as with pg_dump without a lock on every table up front, a
        table dropped or rewritten concurrently between two refreshes makes the export fail
        naming it. No-op without an exported snapshot (single-connection mode)."""
        snap_id = self._snapshot_id
        if snap_id is None:
            return
        conn.execute("COMMIT")
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        conn.execute(f"SET TRANSACTION SNAPSHOT {self.literal(snap_id)}")

    def export_abort(self, conn: Any) -> None:
        """Cancel the running query (from another thread) so a worker stops at once."""
        conn.cancel_safe() if hasattr(conn, "cancel_safe") else conn.cancel()

    # -- SQL ----------------------------------------------------------------------------------
    def export_qualify(self, schema: str, table: m.Table) -> str:
        """``ONLY`` the table itself: rows of inheritance children are exported with the children
        (a partitioned table, whose partitions are skipped, is read whole)."""
        name = f"{self.quote(schema)}.{self.quote(table.name)}"
        return name if table.partitioning is not None else f"ONLY {name}"

    def export_estimate(self, conn: Any, schema: str, table: m.Table) -> int | None:
        """``pg_class.reltuples`` (None before the first VACUUM/ANALYZE, and for partitioned tables)."""
        rows = self._fetch(
            conn,
            "SELECT c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relname = %s AND c.relkind = 'r'",
            (schema, table.name),
        )
        return int(rows[0][0]) if rows and rows[0][0] is not None and rows[0][0] >= 0 else None

    def export_stats(self, conn: Any, schema: str, table: m.Table) -> tuple[int | None, int | None]:
        """``pg_class.reltuples`` (None before the first VACUUM/ANALYZE) and ``pg_table_size`` (the
        heap and its TOAST: what the rows take, current without statistics); both None for a
        partitioned table."""
        rows = self._fetch(
            conn,
            "SELECT c.reltuples, pg_table_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relname = %s AND c.relkind = 'r'",
            (schema, table.name),
        )
        if not rows:
            return None, None
        tuples, size = rows[0]
        return (int(tuples) if tuples is not None and tuples >= 0 else None), (int(size) if size is not None else None)

    def _fetch(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with conn.cursor() as cur:
            cur.execute(sql, list(params) or None)
            return list(cur.fetchall())

    def select_expression(self, column: m.Column) -> str:
        """The SELECT expression whose driver value the codec encodes (Python path)."""
        q = self.quote(column.name)
        t = column.type
        if is_large_object(column):
            return large_object_content(q)
        if t.kind == "money":
            return f"{q}::numeric"
        if t.kind == "array":
            el = t.element.kind if t.element else "opaque"
            return f"{q}::text[]" if el in _ARRAY_TEXT_ELEMENTS or el in ("enum", "uuid", "vector") else q
        if t.kind == "inet":  # the output function's text ('::1'); inet::text always adds the mask
            return f"(to_json({q}) #>> '{{}}')"
        if t.kind in _TEXT_CAST_KINDS:
            return f"{q}::text"
        return q

    def json_expression(self, column: m.Column, json_text: bool = False) -> str | None:
        """SQL producing the column's canonical JSON text exactly as the codec would (NULL for NULL);
        None when only the Python encoder is exact for this type. ``json_text``: a json column
        written as the JSON string of its text (format 1.3)."""
        q = self.quote(column.name)
        t = column.type
        k = t.kind
        if k == "json" and json_text:
            return f"to_json({q}::text)::text"
        if is_large_object(column):
            q = large_object_content(q)
        if k == "boolean":
            return f"{q}::text"
        if k == "integer":
            return f"{q}::text" if (t.bits or 64) <= 32 else f"'\"' || {q}::text || '\"'"
        if k == "year":
            return f"{q}::text"
        if k == "decimal":
            return f"'\"' || {q}::text || '\"'"
        if k == "money":
            return f"'\"' || {q}::numeric::text || '\"'"
        if k == "float":
            return _FLOAT_JSON.format(q=q)
        if k in ("char", "varchar", "text"):
            return f"to_json({q})::text"
        if k == "inet":
            return f"to_json({q})::text"
        if k in ("enum", "xml", "opaque", "macaddr", "range", "interval"):
            return f"to_json({q}::text)::text"
        if k in ("uuid", "bit", "date"):
            return f"'\"' || {q}::text || '\"'"
        if k in ("binary", "varbinary", "blob"):
            # base64 output wraps lines every 76 characters: only long values need the newlines removed
            return (
                f"'\"' || CASE WHEN length({q}) <= 54 THEN encode({q}, 'base64') "
                f"ELSE translate(encode({q}, 'base64'), E'\\n', '') END || '\"'"
            )
        if k == "timestamp":
            fmt = 'YYYY-MM-DD"T"HH24:MI:SS' + (f".FF{t.fsp}" if t.fsp else "")
            z = " || 'Z'" if t.with_timezone else ""
            return (
                f"'\"' || CASE WHEN isfinite({q}) AND {q} >= '0001-01-01' THEN to_char({q}, '{fmt}'){z} "
                f"ELSE {q}::text END || '\"'"
            )
        if k == "time":
            txt = f"{q}::text"
            if t.with_timezone:  # '12:34:56.5+05' → time part padded, offset as +HH:MM
                clock = _fsp_pad(f"substring({txt} from '^[0-9:.]+')", t.fsp or 0)
                off = f"substring({txt} from '[+-][0-9:]+$')"
                return f"'\"' || {clock} || CASE WHEN length({off}) = 3 THEN {off} || ':00' ELSE {off} END || '\"'"
            return f"'\"' || {_fsp_pad(txt, t.fsp or 0)} || '\"'"
        if k == "array" and t.element is not None and _json_array_element(t.element):
            return f"to_json({q})::text"
        if k == "json":
            return _json_wrapped(q, _JSONB_COMPACT.format(q=q) if t.binary else _JSON_COMPACT % f"{q}::text", t.binary)
        if k == "geometry":
            txt = f"{q}::text"
            return f"to_json(CASE WHEN {txt} ~ '^([0-9A-Fa-f]{{2}})+$' THEN upper({txt}) ELSE {txt} END)::text"
        return None

    def _not_null_parts(self, column: m.Column, expr: str) -> list[tuple[bool, str]]:
        """(is_literal, text) pieces of a NOT NULL column's JSON text: the quotes of quoted numbers
        are literals (merged with the neighbouring keys)."""
        t = column.type
        if (t.kind == "integer" and (t.bits or 64) > 32) or t.kind in ("decimal", "uuid", "bit", "date"):
            return [(True, '"'), (False, f"{self.quote(column.name)}::text"), (True, '"')]
        return [(False, expr)]

    def line_expression(self, columns: Sequence[m.Column], json_text: frozenset[str] = frozenset()) -> str | None:
        """One SQL expression producing the whole canonical line, or None (Python path needed).

        A chain of ``||`` over text pieces (keys merged into literals; NOT NULL columns without
        COALESCE): measured on 700k order_items 1.0 s → 0.75 s of server CPU against ``concat()``
        with a COALESCE per column, since concat() looks up every argument's output function per row.
        """
        pieces: list[tuple[bool, str]] = []
        for i, c in enumerate(columns):
            expr = self.json_expression(c, c.name in json_text)
            if expr is None:
                return None
            pieces.append((True, ("{" if i == 0 else ",") + orjson.dumps(c.name).decode() + ":"))
            pieces += [(False, f"COALESCE({expr}, 'null')")] if c.nullable else self._not_null_parts(c, expr)
        if not pieces:
            return None
        pieces.append((True, "}"))
        merged: list[tuple[bool, str]] = []
        for lit, text in pieces:
            if lit and merged and merged[-1][0]:
                merged[-1] = (True, merged[-1][1] + text)
            else:
                merged.append((lit, text))
        sql = [self.literal(text) if lit else f"({text})" for lit, text in merged]
        chains = [" || ".join(sql[i : i + PIPE_GROUP]) for i in range(0, len(sql), PIPE_GROUP)]
        return chains[0] if len(chains) == 1 else "concat(" + ", ".join(f"({c})::text" for c in chains) + ")"

    # -- client-side conversion (C speedup) ----------------------------------------------------
    def copy_kind(self, column: m.Column, json_text: bool = False) -> tuple[int, int, str] | None:
        """(kind, arg, SELECT expression) of a column for :func:`copy_to_jsonl`: the plain column
        when the client converts its COPY text, else its ``json_expression`` (K_RAW); None when
        neither is exact. ``json_text``: as for :meth:`json_expression`."""
        q = self.quote(column.name)
        t = column.type
        k = t.kind
        if k == "json" and json_text:  # to_json(q::text): the COPY text of json is its text
            return K_STRING, 0, q
        if is_large_object(column):
            return K_BINARY, 0, large_object_content(q)
        if k == "boolean":
            return K_BOOL, 0, q
        if (k == "integer" and (t.bits or 64) <= 32) or k == "year":
            return K_NUMBER, 0, q
        if k in ("integer", "decimal", "uuid", "bit", "date"):
            return K_QUOTED, 0, q
        if k == "money":
            return K_QUOTED, 0, f"{q}::numeric"
        # to_json({q}) / to_json({q}::text): the COPY text is the output function's text, as ::text
        if k in ("char", "varchar", "text", "enum", "xml", "macaddr", "range", "interval"):
            return K_STRING, 0, q
        if k in ("binary", "varbinary", "blob"):
            return K_BINARY, 0, q
        if k == "timestamp":
            return K_TIMESTAMP, (t.fsp or 0) | (256 if t.with_timezone else 0), q
        if k == "json":
            return K_JSON, 1 if t.binary else 0, q
        if k == "float":  # the COPY text is the shortest text (extra_float_digits = 1)
            return K_FLOAT, 0, q
        expr = self.json_expression(column)
        return None if expr is None else (K_RAW, 0, expr)

    def copy_plan(
        self, columns: Sequence[m.Column], json_text: frozenset[str] = frozenset()
    ) -> tuple[str, tuple[bytes, ...], tuple[int, ...], tuple[int, ...]] | None:
        """SELECT list and (keys, kinds, args) for :func:`copy_to_jsonl`, or None."""
        exprs: list[str] = []
        keys: list[bytes] = []
        kinds: list[int] = []
        args: list[int] = []
        for i, c in enumerate(columns):
            plan = self.copy_kind(c, c.name in json_text)
            if plan is None:
                return None
            keys.append(b"{" if i == 0 else b",")
            keys[-1] += orjson.dumps(c.name) + b":"
            kinds.append(plan[0])
            args.append(plan[1])
            exprs.append(plan[2] if plan[0] != K_RAW else f"({plan[2]})")
        if not exprs:
            return None
        return ", ".join(exprs), tuple(keys), tuple(kinds), tuple(args)

    # -- streaming ----------------------------------------------------------------------------
    def export_stream(self, conn: Any, unit: Unit, stop: threading.Event) -> Iterator[bytes]:
        """Blocks of complete canonical lines for one unit."""
        line = self.line_expression(unit.table.columns, unit.json_text)
        if line is None or not self.capabilities.server_side_json:
            yield from self._stream_cursor(conn, unit, stop)
            return
        plan = self.copy_plan(unit.table.columns, unit.json_text) if speedups.load("_cpgexport") is not None else None
        if plan is None:
            opts = "FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02'"
            yield from self._stream_copy(conn, unit, line, opts, stop, None)
        else:
            select_list, keys, kinds, args = plan
            decoders = self._binary_plan(conn, unit, select_list, kinds, args)
            if decoders is not None:
                convert = _binary_converter(keys, kinds, args, decoders)
                yield from self._stream_copy(conn, unit, select_list, "FORMAT binary", stop, convert)
                return
            yield from self._stream_copy(
                conn, unit, select_list, "FORMAT text", stop, lambda blk: copy_to_jsonl(blk, keys, kinds, args)
            )

    def _binary_plan(
        self, conn: Any, unit: Unit, select_list: str, kinds: tuple[int, ...], args: tuple[int, ...]
    ) -> tuple[int, ...] | None:
        """The binary COPY's decoders for this unit, or None (text COPY): not for a unit known to be
        smaller than BINARY_MIN_BYTES (the type query's round trip would cost about what binary
        saves: a database of thousands of small tables pays nothing more), nor when a kind has no
        native decoder at all (float); else from the server's result types."""
        if 0 < unit.bytes_estimate < BINARY_MIN_BYTES or not _BINARY_KINDS.issuperset(kinds):
            return None
        oids = self._result_types(conn, unit, select_list)
        return None if oids is None else binary_decoders(kinds, args, oids)

    def _result_types(self, conn: Any, unit: Unit, select_list: str) -> tuple[int, ...] | None:
        """The type OIDs of ``SELECT select_list FROM`` the unit's table (a ``LIMIT 0`` query in the
        unit's own transaction, just before its COPY; about 1 ms): what the binary COPY will send,
        so each column's decoder is chosen from the server's own types (a domain or an unknown type
        keeps the text COPY). None when the server's timestamps are not 64-bit integers
        (``integer_datetimes``, always on since PostgreSQL 10): no binary COPY then."""
        if conn.info.parameter_status("integer_datetimes") != "on":
            return None
        src = self.export_qualify(unit.schema, unit.table)
        with conn.cursor() as cur:
            cur.execute(f"SELECT {select_list} FROM {src} LIMIT 0")
            return tuple(int(d.type_code) for d in cur.description or ())

    def _stream_copy(
        self,
        conn: Any,
        unit: Unit,
        select_list: str,
        options: str,
        stop: threading.Event,
        convert: Callable[[bytes], bytes] | None,
    ) -> Iterator[bytes]:
        """``COPY (SELECT select_list ...) TO STDOUT WITH (options)`` read straight from libpq
        (``conn.pgconn``): one ``PQgetCopyData`` call per row instead of psycopg's per-row Python
        machinery (measured: a quarter less client CPU). Non-blocking, waiting in ``select``:
        psycopg's binary ``get_copy_data(0)`` keeps the GIL while libpq waits for the server, which
        stalled every other worker (py-spy --gil: 59 % of the GIL-holding samples of an export
        there). Without ``convert`` the rows are the lines; with it, blocks of rows are converted
        (plain COPY text rows → lines, :func:`copy_to_jsonl`)."""
        from psycopg import pq

        cond, _ = self.export_conditions(unit, inline=self._inline(conn))
        src = self.export_qualify(unit.schema, unit.table)
        sql = f"COPY (SELECT {select_list} FROM {src}{cond}) TO STDOUT WITH ({options})"
        pg = conn.pgconn
        pg.send_query(sql.encode())
        started = pg.get_result()
        if started is None or started.status != pq.ExecStatus.COPY_OUT:
            _drain(pg)
            raise DataError(f"export query failed: {_message(started)}", table=unit.qualified)
        # whole rows, about BLOCK_BYTES per call: in C (dbjson._cpgcopy, without the GIL) or here
        read_block = block_reader(pg) or _rows_reader(pg)
        fd, consume = pg.socket, pg.consume_input
        buf = bytearray()
        ended = False
        try:
            yield from self._copy_blocks(read_block, fd, consume, buf, stop, convert)
            ended = True
            if stop.is_set():
                return  # the coordinator cancels the query and closes the connection
        finally:
            # Closed before the end (the unit's load failed on the target and is retried, a row
            # could not be converted): read the rest, so that the connection is lent again with
            # its snapshot transaction intact (a cancel would abort that transaction). Not when
            # the whole export stops (the coordinator cancels the query and closes the connection).
            if not ended and not stop.is_set():
                _discard_copy_out(pg, read_block)
        final = pg.get_result()
        _drain(pg)
        if final is None or final.status != pq.ExecStatus.COMMAND_OK:
            raise DataError(f"export query failed: {_message(final)}", table=unit.qualified)
        if buf:
            yield bytes(buf) if convert is None else convert(bytes(buf))

    @staticmethod
    def _copy_blocks(
        read_block: Callable[[int], tuple[int, bytes]],
        fd: int,
        consume: Callable[[], Any],
        buf: bytearray,
        stop: threading.Event,
        convert: Callable[[bytes], bytes] | None,
    ) -> Iterator[bytes]:
        """The blocks of a COPY OUT until its data ends (what is left over stays in ``buf``)."""
        while True:
            status, data = read_block(BLOCK_BYTES - len(buf))
            if status == 1 and not buf:  # a whole block in one read (the usual case): no copies
                yield data if convert is None else convert(data)
                if stop.is_set():
                    return  # the coordinator cancels the query and closes the connection
                continue
            buf += data
            if status == 0:  # no complete row buffered: wait for the socket without the GIL
                select.select([fd], [], [])
                consume()
                continue
            if status < 0:  # -1: done; -2: error (reported by the result below)
                break
            if len(buf) >= BLOCK_BYTES:
                yield bytes(buf) if convert is None else convert(bytes(buf))
                buf.clear()
                if stop.is_set():
                    return  # the coordinator cancels the query and closes the connection

    # -- the native row stream (a same-engine migrate) -----------------------------------------
    def export_native_stream(
        self, conn: Any, unit: Unit, columns: Sequence[str], stop: threading.Event
    ) -> Iterator[bytes]:
        """``COPY (SELECT columns FROM the unit) TO STDOUT`` in text format, blocks of whole rows as
        the server writes them (``capabilities.native_stream`` = "postgresql-copy-text").

        Text, not binary: COPY text is what pg_dump writes and every later server loads, while the
        binary format is each type's send function (version- and build-dependent, e.g. for
        extension types), and text rows are lines the content checksum sums as they are. The
        text of a value depends only on the session settings that :meth:`export_session` pins on
        both servers (``TimeZone``, ``DateStyle``, ``IntervalStyle``, ``extra_float_digits``,
        ``bytea_output``, ``client_encoding``); ``lc_monetary`` (money) is not pinned, so such
        tables are refused (``load_native_refusal``)."""
        select_list = ", ".join(self.quote(c) for c in columns)
        yield from self._stream_copy(conn, unit, select_list, "FORMAT text", stop, None)

    def _inline(self, conn: Any) -> Callable[[Any], str]:
        """Key bounds as SQL literals (COPY takes no parameters; a --where may contain '%')."""
        from psycopg import sql as pgsql

        return lambda v: pgsql.Literal(v).as_string(conn)

    def _stream_cursor(self, conn: Any, unit: Unit, stop: threading.Event) -> Iterator[bytes]:
        cond, _ = self.export_conditions(unit, inline=self._inline(conn))
        cols = ", ".join(self.select_expression(c) for c in unit.table.columns)
        sql = f"SELECT {cols} FROM {self.export_qualify(unit.schema, unit.table)}{cond}"
        enc = RowEncoder(unit.table.columns, json_text=unit.json_text)
        with conn.cursor(name=f"dbjson_export_{next(_cursor_ids)}") as cur:
            cur.itersize = FETCH_ROWS
            cur.execute(sql)
            yield from encoded_blocks(cur.fetchmany, enc, stop, FETCH_ROWS)


def is_large_object(column: m.Column) -> bool:
    """A column holding large object ids (type ``oid`` or a domain over it, such as the lo
    extension's ``lo``): reflected as a blob whose values are the objects' contents."""
    return (
        column.type.kind == "blob"
        and column.type.type_name is not None
        and column.native.raw.split(".")[-1]
        in (
            "oid",
            "lo",
            column.type.type_name,
        )
    )


def large_object_content(q: str) -> str:
    """The content of the large object a column names (NULL for an id that names none: no id is
    exported that would point nowhere on the target)."""
    return f"(SELECT lo_get(lo.oid) FROM pg_largeobject_metadata lo WHERE lo.oid = {q})"
