"""The row codec: lossless, canonical JSON lines (see docs/data-format.md and the team brief).

Encoding turns the values a driver hands back (PyMySQL, psycopg 3, sqlite3) into JSON-ready values,
one compiled converter per column kind; a row becomes one compact JSON object keyed by column name
in ordinal order. Decoding turns the parsed JSON values back into plain Python values that the
loaders pass to the drivers (``Decimal``, ``int``, ``bytes``, ``datetime``...). The encoding is
canonical, so checksums computed over the lines can be compared across engines:

* :func:`line_hash` — the 64-bit hash of one canonical line: XXH3-64 (``xxh3-64-sum``, the
  default) or, for exports of data format 1.0–1.1, the first 8 bytes of BLAKE2b-512, little-endian
  (``blake2b64-sum``);
* :class:`Checksum` — the order-independent table checksum (sum of the line hashes modulo 2^64,
  written as 16 hex digits), of one algorithm.

The public entry points are :class:`RowEncoder` (export), :class:`RowDecoder` (import) and
:func:`encoder` / :func:`decoder` for single values.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import json
import math
import re
import struct
import sys
import uuid
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson
import xxhash

from .. import model as m
from .. import speedups
from ..errors import DataError, DocumentError

Encoder = Callable[[Any], Any]  # a non-NULL driver value → a JSON-ready value
Decoder = Callable[[Any], Any]  # a non-null JSON value → a Python value for the driver

MASK64 = (1 << 64) - 1
UTC = dt.UTC

# Kinds whose JSON form is a plain string of the engine's text.
TEXT_KINDS = frozenset({"char", "varchar", "text", "enum", "xml", "opaque", "inet", "macaddr", "range", "interval"})


# ---------------------------------------------------------------------------------------------
# Checksums
# ---------------------------------------------------------------------------------------------


# The manifest's ``checksum_algorithm`` names the line hash; a checksum is the sum of its line
# hashes modulo 2^64 either way. XXH3 is a non-cryptographic hash (as in zstd's frame checksum and
# rsync's): it detects damaged, truncated, missing or changed lines, not deliberate forgery.
XXH3_SUM = "xxh3-64-sum"  # XXH3-64, seed 0, of the line: the default since data format 1.2
BLAKE2B_SUM = "blake2b64-sum"  # first 8 bytes of BLAKE2b-512, little-endian: data format 1.0-1.1
CHECKSUM_ALGORITHMS = (XXH3_SUM, BLAKE2B_SUM)
DEFAULT_CHECKSUM = XXH3_SUM
_C_ALGORITHM = {BLAKE2B_SUM: 0, XXH3_SUM: 1}  # dbjson._cchecksum's algorithm numbers


def check_algorithm(algorithm: Any, **where: Any) -> str:
    """``algorithm`` if dbjson knows it, else a :class:`DocumentError` naming the known ones
    (``where``: the manifest's ``file`` and ``pointer``, when it comes from one; the value may be
    any JSON value there)."""
    if not isinstance(algorithm, str) or algorithm not in _C_ALGORITHM:
        raise DocumentError(
            f"unknown checksum algorithm {algorithm!r} (known: {', '.join(CHECKSUM_ALGORITHMS)}): "
            "the export was written by a newer dbjson",
            **where,
        )
    return algorithm


def _blake2b_value(line: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(line).digest()[:8], "little")


_LINE_HASH: dict[str, Callable[[bytes], int]] = {XXH3_SUM: xxhash.xxh3_64_intdigest, BLAKE2B_SUM: _blake2b_value}


def line_hash(line: bytes, algorithm: str = DEFAULT_CHECKSUM) -> int:
    """The 64-bit hash of one canonical line (without its newline) under ``algorithm``."""
    return _LINE_HASH[algorithm](line)


def format_checksum(value: int) -> str:
    """A checksum as 16 lower-case hex digits."""
    return f"{value & MASK64:016x}"


_LITTLE_ENDIAN = sys.byteorder == "little"


def sum_lines(lines: list[bytes], algorithm: str = DEFAULT_CHECKSUM) -> int:
    """The content checksum value of ``lines`` (each without its newline), modulo 2^64.

    One C call with the speedup ``dbjson._cchecksum``; else XXH3 through the ``xxhash`` package,
    or BLAKE2b with the digests joined and their first 8 bytes read as native (little-endian)
    uint64 words in C, 15-20 % less CPU than ``int.from_bytes`` per line."""
    fast = speedups.load("_cchecksum")
    if fast is not None:
        return int(fast.sum_lines(lines, _C_ALGORITHM[algorithm]))
    if algorithm == BLAKE2B_SUM and _LITTLE_ENDIAN:
        digests = memoryview(b"".join([hashlib.blake2b(ln).digest() for ln in lines])).cast("Q")
        return sum(digests[::8].tolist()) & MASK64
    return sum(map(_LINE_HASH[algorithm], lines)) & MASK64


class Checksum:
    """An order-independent content checksum: the sum of the line hashes modulo 2^64.

    Feed lines with :meth:`add` (one line) or :meth:`add_block` (newline-terminated lines);
    combine partial checksums (chunks, workers) of the same algorithm with :meth:`merge` or ``+``.
    """

    __slots__ = ("value", "rows", "algorithm")

    def __init__(self, value: int = 0, rows: int = 0, algorithm: str = DEFAULT_CHECKSUM) -> None:
        self.value = value & MASK64
        self.rows = rows
        self.algorithm = check_algorithm(algorithm)

    def add(self, line: bytes) -> None:
        """Add one canonical line (without its trailing newline)."""
        self.value = (self.value + _LINE_HASH[self.algorithm](line)) & MASK64
        self.rows += 1

    def add_block(self, block: bytes) -> None:
        """Add every line of ``block``: complete lines, each terminated by ``\\n``.

        With the C speedup ``dbjson._cchecksum`` (same sums, one call per block, without the
        interpreter lock) when it is built; this method's Python body is the reference."""
        fast = speedups.load("_cchecksum")
        if fast is not None:
            value, rows = fast.sum_block(block, _C_ALGORITHM[self.algorithm])
            self.value = (self.value + value) & MASK64
            self.rows += rows
            return
        lines = block.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        self.add_lines(lines)

    def add_lines(self, lines: list[bytes]) -> None:
        """Add a list of canonical lines (without newlines): one :func:`sum_lines` call."""
        self.value = (self.value + sum_lines(lines, self.algorithm)) & MASK64
        self.rows += len(lines)

    def merge(self, other: Checksum) -> None:
        self._same(other)
        self.value = (self.value + other.value) & MASK64
        self.rows += other.rows

    def __add__(self, other: Checksum) -> Checksum:
        self._same(other)
        return Checksum(self.value + other.value, self.rows + other.rows, self.algorithm)

    def _same(self, other: Checksum) -> None:
        if other.algorithm != self.algorithm:
            raise ValueError(f"cannot combine a {other.algorithm} checksum with a {self.algorithm} one")

    def hexdigest(self) -> str:
        return format_checksum(self.value)

    @classmethod
    def from_hex(cls, text: str, rows: int = 0, algorithm: str = DEFAULT_CHECKSUM) -> Checksum:
        return cls(int(text, 16), rows, algorithm)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Checksum) and (self.value, self.rows, self.algorithm) == (
            other.value,
            other.rows,
            other.algorithm,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Checksum({self.hexdigest()}, rows={self.rows}, {self.algorithm})"


def row_checksum(line: bytes, algorithm: str = DEFAULT_CHECKSUM) -> str:
    """The hash of one canonical line as 16 hex digits."""
    return format_checksum(line_hash(line, algorithm))


def table_checksum(lines: Iterable[bytes], algorithm: str = DEFAULT_CHECKSUM) -> str:
    """The content checksum of an iterable of canonical lines (without newlines)."""
    c = Checksum(algorithm=algorithm)
    for ln in lines:
        c.add(ln)
    return c.hexdigest()


# ---------------------------------------------------------------------------------------------
# Small formatting helpers
# ---------------------------------------------------------------------------------------------


def _fail(kind: str, value: Any, why: str = "") -> DataError:
    return DataError(f"cannot encode value as {kind}{': ' + why if why else ''}", value=value)


def _fraction(micro: int, fsp: int) -> str:
    if fsp <= 0:
        return ""
    return "." + f"{micro:06d}"[:fsp].ljust(fsp, "0")


def _fix_fraction(frac: str | None, fsp: int) -> str:
    """A fraction (``.123`` or None) with exactly ``fsp`` digits; extra non-zero digits are kept."""
    digits = (frac or ".")[1:]
    if len(digits) < fsp:
        digits = digits.ljust(fsp, "0")
    elif len(digits) > fsp:
        keep = digits.rstrip("0")
        digits = keep if len(keep) > fsp else digits[:fsp]
    return "." + digits if digits else ""


def _offset_text(off: dt.timedelta) -> str:
    secs = int(off.total_seconds())
    sign = "-" if secs < 0 else "+"
    secs = abs(secs)
    hh, rest = divmod(secs, 3600)
    mm, ss = divmod(rest, 60)
    return f"{sign}{hh:02d}:{mm:02d}" + (f":{ss:02d}" if ss else "")


def _norm_offset(text: str) -> str:
    """``+05`` / ``+0530`` / ``+05:30`` / ``+05:30:15`` → ``+05:30`` (seconds kept when non-zero)."""
    sign, body = text[0], text[1:].replace(":", "")
    hh, mm, ss = body[0:2], body[2:4] or "00", body[4:6]
    return f"{sign}{hh}:{mm}" + (f":{ss}" if ss and ss != "00" else "")


_TS_RE = re.compile(
    r"^(?P<date>-?\d{4,}-\d{2}-\d{2})(?:[ T](?P<time>\d{2}:\d{2}(?::\d{2})?)(?P<frac>\.\d*)?)?"
    r"(?P<off>Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$"
)
_TIME_RE = re.compile(
    r"^(?P<sign>-)?(?P<h>\d{1,3}):(?P<m>\d{2}):(?P<s>\d{2})(?P<frac>\.\d*)?(?P<off>[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$"
)


# ---------------------------------------------------------------------------------------------
# Encoders per kind
# ---------------------------------------------------------------------------------------------


def _enc_boolean(v: Any) -> bool:
    if v is True or v is False:
        return v
    if isinstance(v, int) and v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.lower() in ("t", "f", "true", "false", "0", "1"):
        return v.lower() in ("t", "true", "1")
    raise _fail("boolean", v, "not 0/1/true/false")


def _to_int(v: Any, kind: str = "integer") -> int:
    if type(v) is int:
        return v
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, Decimal) and v.is_finite() and v == v.to_integral_value():
        return int(v)
    if isinstance(v, (str, bytes)):
        try:
            return int(v)
        except ValueError:
            pass
    raise _fail(kind, v, "not an integer")


def _enc_int_number(v: Any) -> int:
    return v if type(v) is int else _to_int(v)


def _enc_int_string(v: Any) -> str:
    return str(v if type(v) is int else _to_int(v))


def _decimal_text(d: Decimal, scale: int | None) -> str:
    if not d.is_finite():
        if d.is_nan():
            return "NaN"
        return "-Infinity" if d.is_signed() else "Infinity"
    if scale is not None and scale >= 0 and -d.as_tuple().exponent != scale:  # type: ignore[operator]
        try:
            q = d.quantize(Decimal(1).scaleb(-scale))
        except InvalidOperation:
            q = d
        if q == d:  # never round: a value with more digits than the scale keeps them
            d = q
    return format(d, "f")


def _make_decimal(scale: int | None) -> Encoder:
    def enc(v: Any) -> str:
        if isinstance(v, Decimal):
            return _decimal_text(v, scale)
        if isinstance(v, bool):
            raise _fail("decimal", v)
        if isinstance(v, int):
            return _decimal_text(Decimal(v), scale)
        if isinstance(v, float):
            if math.isnan(v):
                return "NaN"
            if math.isinf(v):
                return "Infinity" if v > 0 else "-Infinity"
            return _decimal_text(Decimal(repr(v)), scale)
        if isinstance(v, (str, bytes)):
            text = v.decode() if isinstance(v, bytes) else v
            try:
                return _decimal_text(Decimal(text.strip()), scale)
            except InvalidOperation:
                raise _fail("decimal", v) from None
        raise _fail("decimal", v)

    return enc


def _enc_float(v: Any) -> Any:
    if type(v) is not float:
        if isinstance(v, bool):
            raise _fail("float", v)
        if isinstance(v, (int, Decimal)):
            v = float(v)
        elif isinstance(v, (str, bytes)):
            try:
                v = float(v)
            except ValueError:
                raise _fail("float", v) from None
        else:
            raise _fail("float", v)
    if v != v:
        return "NaN"
    if v in (math.inf, -math.inf):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def _shortest32(v: float) -> float:
    """The float32 nearest ``v``, as the double of its shortest decimal form (``0.1``, not
    ``0.10000000149011612``), so every engine's REAL/FLOAT encodes the same way."""
    try:
        f32 = _F32.unpack(_F32.pack(v))[0]
    except OverflowError:
        return v
    for digits in range(1, 10):
        candidate = float(f"{f32:.{digits}g}")
        try:
            if _F32.unpack(_F32.pack(candidate))[0] == f32:
                return candidate
        except OverflowError:  # rounded beyond the float32 range
            continue
    return float(f32)


_F32 = struct.Struct("<f")


def _enc_float32(v: Any) -> Any:
    out = _enc_float(v)
    return _shortest32(out) if type(out) is float else out


def _enc_text(v: Any) -> str:
    if type(v) is str:
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            raise _fail("text", v, "bytes that are not UTF-8 in a text column") from None
    if isinstance(v, (int, float, Decimal)) and not isinstance(v, bool):
        return str(v)
    return str(v)


def _enc_uuid(v: Any) -> str:
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, (bytes, bytearray)) and len(v) == 16:
        return str(uuid.UUID(bytes=bytes(v)))
    try:
        return str(uuid.UUID(str(v)))
    except ValueError:
        raise _fail("uuid", v) from None


def _enc_binary(v: Any) -> str:
    if isinstance(v, str):
        v = v.encode("utf-8")
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise _fail("binary", v)
    return base64.b64encode(v).decode("ascii")


def _make_bit(length: int | None, varying: bool) -> Encoder:
    def enc(v: Any) -> str:
        if isinstance(v, str):
            if v.strip("01"):
                raise _fail("bit", v)
            return v
        if isinstance(v, (bytes, bytearray)):
            n = int.from_bytes(v, "big")
            width = length if length and not varying else len(v) * 8
        elif isinstance(v, int) and not isinstance(v, bool):
            n = v
            width = length or max(1, n.bit_length())
        else:
            raise _fail("bit", v)
        if n.bit_length() > width:
            raise _fail("bit", v, f"more than {width} bits")
        return format(n, f"0{width}b") if width else ""

    return enc


def _enc_date(v: Any) -> str:
    if isinstance(v, dt.datetime):
        raise _fail("date", v, "a datetime in a date column")
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, str):
        return v  # zero dates, "infinity", BC dates: verbatim
    raise _fail("date", v)


def _make_time(fsp: int, with_tz: bool) -> Encoder:
    def enc(v: Any) -> str:
        if isinstance(v, dt.timedelta):  # PyMySQL TIME: elapsed time, may be negative or ≥ 24h
            micros = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
            sign = "-" if micros < 0 else ""
            micros = abs(micros)
            secs, frac = divmod(micros, 1_000_000)
            hh, rest = divmod(secs, 3600)
            mm, ss = divmod(rest, 60)
            return f"{sign}{hh:02d}:{mm:02d}:{ss:02d}{_fraction(frac, fsp)}"
        if isinstance(v, dt.time):
            text = f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}{_fraction(v.microsecond, fsp)}"
            if with_tz or v.tzinfo is not None:
                off = v.utcoffset()
                text += _offset_text(off) if off is not None else ""
            return text
        if isinstance(v, (bytes, bytearray)):
            v = bytes(v).decode()
        if isinstance(v, str):
            mt = _TIME_RE.match(v)
            if not mt:
                return v
            text = f"{mt['sign'] or ''}{int(mt['h']):02d}:{mt['m']}:{mt['s']}{_fix_fraction(mt['frac'], fsp)}"
            if mt["off"]:
                text += _norm_offset(mt["off"])
            return text
        raise _fail("time", v)

    return enc


def _format_datetime(v: dt.datetime, fsp: int) -> str:
    y = v.year
    return (
        f"{y:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        f"{_fraction(v.microsecond, fsp) if v.microsecond or fsp else ''}"
    )


def _make_timestamp(fsp: int, with_tz: bool) -> Encoder:
    def from_text(text: str) -> str:
        mt = _TS_RE.match(text)
        if not mt or not mt["time"]:
            return text  # "infinity", BC dates, anything unusual: verbatim
        hms = mt["time"] if len(mt["time"]) == 8 else mt["time"] + ":00"
        frac = _fix_fraction(mt["frac"], fsp)
        off = mt["off"]
        base = f"{mt['date']}T{hms}{frac}"
        if not with_tz:
            return base + (_norm_offset(off) if off and off != "Z" else "")
        if off and off != "Z":
            norm = _norm_offset(off)
            if norm not in ("+00:00", "-00:00"):
                try:
                    parsed = dt.datetime.fromisoformat(f"{mt['date']}T{hms}{(mt['frac'] or '')[:7]}{norm}")
                except ValueError:
                    return base + norm
                return _format_datetime(parsed.astimezone(UTC), fsp) + "Z"
        return base + "Z"

    def enc(v: Any) -> str:
        if isinstance(v, dt.datetime):
            if v.tzinfo is not None and v.utcoffset() is not None:
                if with_tz:
                    return _format_datetime(v.astimezone(UTC), fsp) + "Z"
                return _format_datetime(v, fsp) + _offset_text(v.utcoffset())  # type: ignore[arg-type]
            return _format_datetime(v, fsp) + ("Z" if with_tz else "")
        if isinstance(v, dt.date):
            return _format_datetime(dt.datetime(v.year, v.month, v.day), fsp) + ("Z" if with_tz else "")
        if isinstance(v, (bytes, bytearray)):
            v = bytes(v).decode()
        if isinstance(v, str):
            return from_text(v)
        if isinstance(v, (int, float)) and not isinstance(v, bool):  # SQLite unix time
            raise _fail("timestamp", v, "a number in a timestamp column")
        raise _fail("timestamp", v)

    return enc


def _enc_interval(v: Any) -> str:
    if isinstance(v, dt.timedelta):
        micros = (v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds
        sign = "-" if micros < 0 else ""
        micros = abs(micros)
        days, rest = divmod(micros, 86_400_000_000)
        secs, frac = divmod(rest, 1_000_000)
        hh, rest2 = divmod(secs, 3600)
        mm, ss = divmod(rest2, 60)
        out = "P" + (f"{sign}{days}D" if days else "")
        t = ""
        if hh:
            t += f"{sign}{hh}H"
        if mm:
            t += f"{sign}{mm}M"
        if ss or frac:
            t += f"{sign}{ss}" + (f".{frac:06d}".rstrip("0") if frac else "") + "S"
        if t:
            out += "T" + t
        return out if out != "P" else "PT0S"
    return _enc_text(v)


def _make_set(values: tuple[str, ...]) -> Encoder:
    order = {v: i for i, v in enumerate(values)}

    def enc(v: Any) -> list[str]:
        if isinstance(v, (bytes, bytearray)):
            v = bytes(v).decode()
        if isinstance(v, str):
            items = v.split(",") if v else []
        elif isinstance(v, (set, frozenset, list, tuple)):
            items = [str(x) for x in v]
        else:
            raise _fail("set", v)
        if order:
            return sorted(items, key=lambda x: order.get(x, len(order)))
        return items

    return enc


# Possessive string patterns: a plain ``(?:[^"\\]|\\.)*`` keeps a backtracking frame per character
# (a 4 MB JSON string took ~400 MB and seconds to match).
_JSON_WS = re.compile(rb'("(?:[^"\\]++|\\.)*+")|[ \t\n\r]+', re.S)


def compact_json(raw: bytes) -> bytes:
    """JSON text without insignificant whitespace (strings, numbers and key order untouched)."""
    if not any(c in raw for c in (b" ", b"\n", b"\t", b"\r")):
        return raw
    return _JSON_WS.sub(lambda mt: mt.group(1) or b"", raw)


JSON_WRAPPER = "$json"
JSON_NULL_TEXT = b'{"$json":null}'
_WRAPPER_START = b'{"$json":'


def wrap_json_text(raw: bytes) -> bytes:
    """The row encoding of a json column's (compact) JSON text: the JSON document ``null`` is
    written ``{"$json":null}`` (a bare ``null`` is SQL NULL), and an object whose only key is
    ``$json`` is wrapped once more (``{"$json":{"$json":1}}``) so that it cannot be mistaken for
    the escape; every other value is its text."""
    if raw == b"null":
        return JSON_NULL_TEXT
    if raw.startswith(_WRAPPER_START) and len(raw_values(raw)) == 1:
        return _WRAPPER_START + raw + b"}"
    return raw


def unwrap_json(v: Any) -> Any:
    """The JSON document of a parsed json column value of a line (the inverse of
    :func:`wrap_json_text`): ``{"$json": X}`` → X (``None`` is then the JSON document null)."""
    if type(v) is dict and len(v) == 1 and JSON_WRAPPER in v:
        return v[JSON_WRAPPER]
    return v


def unwrap_json_text(raw: bytes) -> bytes:
    """:func:`unwrap_json` on the text of the value (``b'{"$json":null}'`` → ``b"null"``)."""
    if raw.startswith(_WRAPPER_START) or raw[:1] == b"{" and JSON_WRAPPER.encode() in raw[:16]:
        spans = raw_values(raw)
        if len(spans) == 1 and JSON_WRAPPER in spans:
            return spans[JSON_WRAPPER]
    return raw


def _enc_json(v: Any) -> Any:
    if isinstance(v, orjson.Fragment):
        return v
    if isinstance(v, str):
        raw = v.encode("utf-8")
    elif isinstance(v, (bytes, bytearray, memoryview)):
        raw = bytes(v)
    else:  # an already parsed value (SQLite json_extract, psycopg default loaders)
        try:
            return orjson.Fragment(wrap_json_text(orjson.dumps(v)))
        except TypeError as e:
            raise _fail("json", v, str(e)) from None
    raw = compact_json(raw.strip())
    if not raw:
        raise _fail("json", v, "empty text")
    return orjson.Fragment(wrap_json_text(raw))


def _enc_geometry(v: Any) -> str:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex().upper()
    if isinstance(v, str):
        return v.upper() if _HEX_RE.match(v) else v
    raise _fail("geometry", v)


_HEX_RE = re.compile(r"^(?:[0-9A-Fa-f]{2})+$")


def _enc_vector(v: Any) -> Any:
    if isinstance(v, str):
        try:
            parsed = orjson.loads(v)
        except orjson.JSONDecodeError:
            raise _fail("vector", v) from None
        v = parsed
    if isinstance(v, (list, tuple)):
        return [_enc_float(x) for x in v]
    if hasattr(v, "tolist"):
        return [_enc_float(x) for x in v.tolist()]
    raise _fail("vector", v)


def _make_array(element: m.Type | None) -> Encoder:
    inner = encoder_for_type(element) if element is not None else _enc_text

    def enc(v: Any) -> list[Any]:
        if isinstance(v, str):
            raise _fail("array", v, "array text form; select the array itself")
        if not isinstance(v, (list, tuple)):
            raise _fail("array", v)
        return [None if x is None else (enc(x) if isinstance(x, list) else inner(x)) for x in v]

    return enc


def encoder_for_type(t: m.Type) -> Encoder:
    """The encoder for non-NULL values of one standard type."""
    kind = t.kind
    if kind == "boolean":
        return _enc_boolean
    if kind == "integer":
        return _enc_int_number if (t.bits or 64) <= 32 else _enc_int_string
    if kind == "year":
        return _enc_int_number
    if kind in ("decimal", "money"):
        return _make_decimal(t.scale if kind == "decimal" else (t.scale if t.scale is not None else None))
    if kind == "float":
        return _enc_float32 if t.bits == 32 else _enc_float
    if kind == "interval":
        return _enc_interval
    if kind in TEXT_KINDS:
        return _enc_text
    if kind == "uuid":
        return _enc_uuid
    if kind in ("binary", "varbinary", "blob"):
        return _enc_binary
    if kind == "bit":
        return _make_bit(t.length, t.varying)
    if kind == "date":
        return _enc_date
    if kind == "time":
        return _make_time(t.fsp or 0, t.with_timezone)
    if kind == "timestamp":
        return _make_timestamp(t.fsp or 0, t.with_timezone)
    if kind == "set":
        return _make_set(t.values)
    if kind == "json":
        return _enc_json
    if kind == "geometry":
        return _enc_geometry
    if kind == "vector":
        return _enc_vector
    if kind == "array":
        return _make_array(t.element)
    raise DataError(f"unknown type kind {kind!r}")


def encoder(column: m.Column) -> Encoder:
    """The encoder for non-NULL values of ``column`` (errors name the column)."""
    enc = encoder_for_type(column.type)

    def named(v: Any) -> Any:
        try:
            return enc(v)
        except DataError as e:
            e.column = e.column or column.name
            raise

    return named


def encode_value(t: m.Type, value: Any) -> Any:
    """Encode one value of type ``t`` (None → None)."""
    return None if value is None else encoder_for_type(t)(value)


# Kinds whose driver values orjson already writes canonically (so no converter is needed).
def _passthrough(t: m.Type) -> bool:
    return (
        t.kind in ("char", "varchar", "text", "enum", "xml", "opaque")
        or (t.kind == "integer" and (t.bits or 64) <= 32)
        or t.kind == "year"
    )


class RowEncoder:
    """Builds canonical lines from driver rows of one table (columns in ordinal order).

    ``adapters`` maps a column name to a function applied to its non-NULL driver value first
    (engine-specific raw forms, e.g. MySQL's internal geometry bytes → EWKB).
    """

    def __init__(self, columns: Sequence[m.Column], adapters: dict[str, Callable[[Any], Any]] | None = None) -> None:
        self.columns = tuple(columns)
        self.names = tuple(c.name for c in self.columns)
        adapters = adapters or {}
        self._plan: list[tuple[int, str, Encoder | None]] = []
        for i, c in enumerate(self.columns):
            enc: Encoder | None = None if _passthrough(c.type) else encoder(c)
            ad = adapters.get(c.name)
            if ad is not None:
                base = enc or encoder(c)
                enc = _compose(ad, base)
            elif enc is None:
                enc = (
                    _checked_text
                    if c.type.kind in ("char", "varchar", "text", "enum", "xml", "opaque")
                    else _checked_int
                )
            self._plan.append((i, c.name, enc))

    def values(self, row: Sequence[Any]) -> dict[str, Any]:
        """The JSON-ready object of one row."""
        out: dict[str, Any] = {}
        for i, name, enc in self._plan:
            v = row[i]
            out[name] = None if v is None else enc(v) if enc is not None else v
        return out

    def line(self, row: Sequence[Any]) -> bytes:
        """The canonical line of one row (no newline)."""
        try:
            return orjson.dumps(self.values(row))
        except orjson.JSONEncodeError as e:
            raise DataError(f"cannot encode row: {e}") from None

    def lines(self, rows: Iterable[Sequence[Any]]) -> bytes:
        """Newline-terminated canonical lines of many rows, as one block."""
        dumps = orjson.dumps
        vals = self.values
        try:
            return b"".join([dumps(vals(r)) + b"\n" for r in rows])
        except orjson.JSONEncodeError as e:
            raise DataError(f"cannot encode row: {e}") from None


def _checked_text(v: Any) -> Any:
    return v if type(v) is str else _enc_text(v)


def _checked_int(v: Any) -> Any:
    return v if type(v) is int else _enc_int_number(v)


def _compose(first: Callable[[Any], Any], then: Encoder) -> Encoder:
    return lambda v: then(first(v))


def encode_row(columns: Sequence[m.Column], row: Sequence[Any]) -> bytes:
    """One canonical line (convenience; build a :class:`RowEncoder` for many rows)."""
    return RowEncoder(columns).line(row)


# ---------------------------------------------------------------------------------------------
# Decoders per kind
# ---------------------------------------------------------------------------------------------


def _bad(kind: str, v: Any) -> DataError:
    return DataError(f"not a valid {kind} value", value=v)


def _dec_boolean(v: Any) -> bool:
    if v is True or v is False:
        return v
    raise _bad("boolean", v)


def _dec_int(v: Any) -> int:
    if type(v) is int:
        return v
    if isinstance(v, str) and re.fullmatch(r"-?\d+", v):
        return int(v)
    raise _bad("integer", v)


def _dec_decimal(v: Any) -> Decimal:
    if isinstance(v, str):
        try:
            return Decimal(v)
        except InvalidOperation:
            pass
    elif isinstance(v, int) and not isinstance(v, bool):
        return Decimal(v)
    raise _bad("decimal", v)


_FLOAT_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _dec_float(v: Any) -> float:
    if type(v) is float:
        return v
    if type(v) is int:
        return float(v)
    if isinstance(v, str) and v in _FLOAT_SPECIAL:
        return _FLOAT_SPECIAL[v]
    raise _bad("float", v)


def _dec_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise _bad("string", v)


def _dec_binary(v: Any) -> bytes:
    if isinstance(v, str):
        try:
            return base64.b64decode(v, validate=True)
        except binascii.Error:
            pass
    raise _bad("base64", v)


def _make_dec_bit(length: int | None, varying: bool) -> Decoder:
    def dec(v: Any) -> str:
        if isinstance(v, str) and not v.strip("01") and (varying or not length or len(v) == length):
            return v
        raise _bad("bit", v)

    return dec


_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


# Date/timestamp text kept verbatim (the target decides): zero and out-of-calendar dates (MySQL),
# infinity, BC and 5-digit years (PostgreSQL), 24:00:00. Anything else is not a date: a DataError.
_VERBATIM_DATE = re.compile(
    r"^(?:-?infinity|-?\d{4,}-(?:0\d|1[0-2])-(?:[0-2]\d|3[01])"
    r"(?:[ T]\d{2}:\d{2}(?::\d{2})?(?:\.\d*)?)?(?:Z|[+-]\d{2}(?::?\d{2}){0,2})?(?: BC)?)$"
)


def is_date_text(v: str) -> bool:
    """Whether ``v`` is the text of a date or timestamp as the row encoding writes it (ISO 8601,
    zero and out-of-calendar MySQL dates, infinity, BC): what a loader may store as text."""
    return _VERBATIM_DATE.match(v) is not None


def _dec_date(v: Any) -> dt.date | str:
    if not isinstance(v, str):
        raise _bad("date", v)
    if _DATE_RE.match(v):
        try:
            return dt.date.fromisoformat(v)
        except ValueError:
            pass  # zero or invalid dates stay text: the importer applies its policy
    if not _VERBATIM_DATE.match(v):
        raise _bad("date", v)
    return v


def _make_dec_time(with_tz: bool) -> Decoder:
    def dec(v: Any) -> dt.time | dt.timedelta | str:
        if not isinstance(v, str):
            raise _bad("time", v)
        mt = _TIME_RE.match(v)
        if not mt:
            raise _bad("time", v)
        h, mi, s = int(mt["h"]), int(mt["m"]), int(mt["s"])
        micro = int(((mt["frac"] or ".")[1:] + "000000")[:6])
        if mt["off"]:
            off = _norm_offset(mt["off"])
            sign = -1 if off[0] == "-" else 1
            parts = [int(p) for p in off[1:].split(":")]
            delta = dt.timedelta(hours=parts[0], minutes=parts[1], seconds=parts[2] if len(parts) > 2 else 0)
            if h < 24:
                return dt.time(h, mi, s, micro, tzinfo=dt.timezone(sign * delta))
            return v
        if mt["sign"] or h >= 24:  # MySQL elapsed time
            td = dt.timedelta(hours=h, minutes=mi, seconds=s, microseconds=micro)
            return -td if mt["sign"] else td
        return dt.time(h, mi, s, micro)

    return dec


def _make_dec_timestamp(with_tz: bool) -> Decoder:
    def dec(v: Any) -> dt.datetime | str:
        if not isinstance(v, str):
            raise _bad("timestamp", v)
        mt = _TS_RE.match(v)
        if mt and mt["time"]:
            try:
                return dt.datetime.fromisoformat(v[:-1] + "+00:00" if v.endswith("Z") else v)
            except ValueError:
                pass  # zero datetimes stay text
        if not _VERBATIM_DATE.match(v):
            raise _bad("timestamp", v)
        return v  # infinity, BC, zero...: verbatim

    return dec


def _make_dec_set(values: tuple[str, ...]) -> Decoder:
    def dec(v: Any) -> list[str]:
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return v
        raise _bad("set", v)

    return dec


def _dec_json(v: Any) -> str:
    """Nested JSON → its text (RowDecoder passes the raw text, so nothing is re-serialized);
    ``{"$json": X}`` → the text of X (``"null"`` for the JSON document null)."""
    if isinstance(v, JsonText):
        return unwrap_json_text(str(v).encode()).decode()
    return orjson.dumps(unwrap_json(v)).decode()


class JsonText(str):
    """The exact text of a json column's value as cut from a line (see :class:`RowDecoder`)."""


def _dec_uuid(v: Any) -> str:
    if isinstance(v, str):
        try:
            return str(uuid.UUID(v))
        except ValueError:
            pass
    raise _bad("uuid", v)


def _dec_geometry(v: Any) -> bytes | str:
    if isinstance(v, str):
        if _HEX_RE.match(v):
            return bytes.fromhex(v)
        return v
    raise _bad("geometry", v)


def _dec_vector(v: Any) -> list[float]:
    if isinstance(v, list):
        return [_dec_float(x) for x in v]
    raise _bad("vector", v)


def _make_dec_array(element: m.Type | None) -> Decoder:
    inner = decoder_for_type(element) if element is not None else _dec_text

    def dec(v: Any) -> list[Any]:
        if not isinstance(v, list):
            raise _bad("array", v)
        return [None if x is None else (dec(x) if isinstance(x, list) else inner(x)) for x in v]

    return dec


def decoder_for_type(t: m.Type) -> Decoder:
    """The decoder for non-null JSON values of one standard type.

    Results: boolean → bool; integer/year → int; decimal/money → Decimal; float → float (NaN/inf);
    text kinds, interval, range, inet, macaddr, uuid → str; binary kinds → bytes; bit → str of 0/1;
    date → date (zero/infinity dates: the text); time → time, aware time (timetz) or timedelta
    (MySQL elapsed values); timestamp → naive or UTC-aware datetime (zero/infinity: the text);
    set → list[str]; json → the JSON text; geometry → EWKB bytes; vector → list[float]; array →
    list of decoded elements.
    """
    kind = t.kind
    if kind == "boolean":
        return _dec_boolean
    if kind in ("integer", "year"):
        return _dec_int
    if kind in ("decimal", "money"):
        return _dec_decimal
    if kind == "float":
        return _dec_float
    if kind == "uuid":
        return _dec_uuid
    if kind in TEXT_KINDS:
        return _dec_text
    if kind in ("binary", "varbinary", "blob"):
        return _dec_binary
    if kind == "bit":
        return _make_dec_bit(t.length, t.varying)
    if kind == "date":
        return _dec_date
    if kind == "time":
        return _make_dec_time(t.with_timezone)
    if kind == "timestamp":
        return _make_dec_timestamp(t.with_timezone)
    if kind == "set":
        return _make_dec_set(t.values)
    if kind == "json":
        return _dec_json
    if kind == "geometry":
        return _dec_geometry
    if kind == "vector":
        return _dec_vector
    if kind == "array":
        return _make_dec_array(t.element)
    raise DataError(f"unknown type kind {kind!r}")


def decoder(column: m.Column) -> Decoder:
    """The decoder for non-null JSON values of ``column`` (errors name the column)."""
    dec = decoder_for_type(column.type)

    def named(v: Any) -> Any:
        try:
            return dec(v)
        except DataError as e:
            e.column = e.column or column.name
            raise

    return named


def decode_value(t: m.Type, value: Any) -> Any:
    """Decode one JSON value of type ``t`` (None → None)."""
    return None if value is None else decoder_for_type(t)(value)


# -- raw spans of JSON values inside a line (for json columns) ----------------------------------

_STR_RE = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.S)  # possessive: see _JSON_WS
_TOKEN_RE = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[][{}]', re.S)  # strings (skipped whole) and brackets
_WS = b" \t\n\r"


def _value_end(line: bytes, i: int) -> int:
    """Index just past the JSON value starting at ``line[i]``."""
    c = line[i]
    if c == 0x22:  # "
        mt = _STR_RE.match(line, i)
        if not mt:
            raise DataError("unterminated string")
        return mt.end()
    if c in (0x7B, 0x5B):  # { [
        depth = 0
        for mt in _TOKEN_RE.finditer(line, i):
            tok = mt.group()
            if tok in (b"{", b"["):
                depth += 1
            elif tok in (b"}", b"]"):
                depth -= 1
                if depth == 0:
                    return mt.end()
        raise DataError("unbalanced JSON value")
    j = i
    n = len(line)
    while j < n and line[j] not in (0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D):  # , } ] whitespace
        j += 1
    return j


def _skip_ws(line: bytes, i: int) -> int:
    n = len(line)
    while i < n and line[i] in _WS:
        i += 1
    return i


def raw_values(line: bytes) -> dict[str, bytes]:
    """The raw text of every top-level value of a JSON object line, by key (whitespace between
    tokens allowed; a malformed line raises DataError or orjson.JSONDecodeError)."""
    out: dict[str, bytes] = {}
    line = line.strip(_WS)
    n = len(line)
    if not line.startswith(b"{") or not line.endswith(b"}"):
        raise DataError("a line must be a JSON object")
    i = _skip_ws(line, 1)
    while i < n and line[i] != 0x7D:
        kend = _value_end(line, i)
        key = orjson.loads(line[i:kend])
        i = _skip_ws(line, kend)
        if i >= n or line[i] != 0x3A:  # :
            raise DataError("malformed JSON object: ':' expected")
        i = _skip_ws(line, i + 1)
        vend = _value_end(line, i)
        out[key] = line[i:vend]
        i = _skip_ws(line, vend)
        if i < n and line[i] == 0x2C:
            i = _skip_ws(line, i + 1)
            if i < n and line[i] == 0x7D:
                raise DataError("malformed JSON object: ',' before '}'")
        elif i < n and line[i] != 0x7D:
            raise DataError("malformed JSON object: ',' or '}' expected")
    if i != n - 1:
        raise DataError("malformed JSON object: text after the closing '}'")
    return out


def _json_text(span: bytes) -> JsonText:
    """The exact text of a json column's value, after checking it is JSON (stdlib: any number size)."""
    try:
        text = span.decode()
        json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise DataError("malformed JSON value") from None
    return JsonText(text)


class RowDecoder:
    """Parses canonical lines of one table into Python values in column order.

    ``decode(line)`` checks that every column is present and no other key is; json columns come
    back as their exact JSON text (numbers and key order untouched).
    """

    def __init__(self, columns: Sequence[m.Column]) -> None:
        self.columns = tuple(columns)
        self.names = tuple(c.name for c in self.columns)
        self._decoders = [decoder(c) for c in self.columns]
        self._json = [i for i, c in enumerate(self.columns) if c.type.kind == "json"]
        self._json_names = frozenset(self.names[i] for i in self._json)
        self._names = frozenset(self.names)

    def decode(self, line: bytes | str) -> list[Any]:
        """Python values of one line, in column order."""
        raw = line.encode() if isinstance(line, str) else line
        obj = self._parse(raw)
        if len(obj) != len(self.names) or obj.keys() != self._names:
            missing = [n for n in self.names if n not in obj]
            extra = [k for k in obj if k not in self._names]
            raise DataError(f"line keys do not match the columns (missing {missing}, unexpected {extra})")
        out: list[Any] = []
        for name, dec in zip(self.names, self._decoders):
            v = obj[name]
            out.append(None if v is None else dec(v))
        return out

    def _parse(self, raw: bytes) -> dict[str, Any]:
        try:
            if not self._json:
                obj = orjson.loads(raw)
                if not isinstance(obj, dict):
                    raise DataError("a line must be a JSON object")
                return obj
            # json columns keep their exact text (numbers beyond double range, key order)
            spans = raw_values(raw.strip())
            return {
                k: (_json_text(v) if k in self._json_names and v != b"null" else orjson.loads(v))
                for k, v in spans.items()
            }
        except orjson.JSONDecodeError as e:
            raise DataError(f"malformed JSON line: {e}") from None


__all__ = [
    "Checksum",
    "RowEncoder",
    "RowDecoder",
    "encoder",
    "decoder",
    "encoder_for_type",
    "decoder_for_type",
    "encode_value",
    "decode_value",
    "encode_row",
    "line_hash",
    "row_checksum",
    "table_checksum",
    "format_checksum",
    "compact_json",
    "raw_values",
    "MASK64",
    "wrap_json_text",
    "unwrap_json",
    "unwrap_json_text",
    "JSON_NULL_TEXT",
    "sum_lines",
    "check_algorithm",
    "XXH3_SUM",
    "BLAKE2B_SUM",
    "CHECKSUM_ALGORITHMS",
    "DEFAULT_CHECKSUM",
]
