"""The encoders of the row codec, one per type kind: a non-NULL driver value → its JSON-ready value.

The values come from PyMySQL, psycopg 3 or sqlite3; each encoder accepts the forms any of them hands
back for its kind and writes the one canonical form (see docs/data-format.md). ``make_*`` functions
build the encoder of a parameterised type (a decimal's scale, a time's precision...). Which kind uses
which encoder is :data:`dbjson.format.codec.KIND_CODECS`.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import re
import struct
import uuid
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

from ..errors import DataError
from .jsontext import compact_json, wrap_json_text

Encoder = Callable[[Any], Any]  # a non-NULL driver value → a JSON-ready value

UTC = dt.UTC

# -- small formatting helpers ------------------------------------------------------------------


def _fail(kind: str, value: Any, why: str = "") -> DataError:
    return DataError(f"cannot encode value as {kind}{': ' + why if why else ''}", value=value)


def _fraction(micro: int, fsp: int) -> str:
    """The fraction of a driver's time value with ``fsp`` digits; non-zero digits beyond them are kept,
    as :func:`_fix_fraction` keeps them in text (a DATETIME(6) column's values checked under a source
    type of unspecified precision, SQLite's, were cut to whole seconds and failed verify)."""
    if micro:
        return _fix_fraction("." + f"{micro:06d}", max(fsp, 0))
    if fsp <= 0:
        return ""
    return "." + "0" * fsp


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


def norm_offset(text: str) -> str:
    """``+05`` / ``+0530`` / ``+05:30`` / ``+05:30:15`` → ``+05:30`` (seconds kept when non-zero)."""
    sign, body = text[0], text[1:].replace(":", "")
    hh, mm, ss = body[0:2], body[2:4] or "00", body[4:6]
    return f"{sign}{hh}:{mm}" + (f":{ss}" if ss and ss != "00" else "")


# The text of a timestamp and of a time (or MySQL elapsed time) as drivers and lines write them; the
# decoders read them too.
TS_RE = re.compile(
    r"^(?P<date>-?\d{4,}-\d{2}-\d{2})(?:[ T](?P<time>\d{2}:\d{2}(?::\d{2})?)(?P<frac>\.\d*)?)?"
    r"(?P<off>Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$"
)
TIME_RE = re.compile(
    r"^(?P<sign>-)?(?P<h>\d{1,3}):(?P<m>\d{2}):(?P<s>\d{2})(?P<frac>\.\d*)?(?P<off>[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$"
)


# -- the encoders ------------------------------------------------------------------------------


def enc_boolean(v: Any) -> bool:
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


def enc_int_number(v: Any) -> int:
    return v if type(v) is int else _to_int(v)


def enc_int_string(v: Any) -> str:
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


DOUBLE_DIGITS = 15  # significant decimal digits a double keeps (SQLite: "only the first 15 ... are preserved")


def significant_digits(v: Any) -> int:
    """How many significant digits the decimal text or number ``v`` has (0 for zero and non-numbers)."""
    try:
        d = v if isinstance(v, Decimal) else Decimal(str(v).strip())
    except InvalidOperation:
        return 0
    if not d.is_finite() or d == 0:
        return 0
    return len(d.normalize().as_tuple().digits)


def round_significant(v: Any, digits: int = DOUBLE_DIGITS) -> Any:
    """``v`` (decimal text, Decimal or number) rounded to ``digits`` significant digits, as a Decimal;
    anything else (None, NaN text) as it is. Verify compares a decimal stored as a double so."""
    if v is None or isinstance(v, bool):
        return v
    try:
        d = v if isinstance(v, Decimal) else Decimal(repr(v) if isinstance(v, float) else str(v).strip())
    except InvalidOperation:
        return v
    if not d.is_finite() or d == 0:
        return d
    return d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1)).normalize()


def make_enc_decimal(scale: int | None) -> Encoder:
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


def enc_float(v: Any) -> Any:
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


def enc_float32(v: Any) -> Any:
    out = enc_float(v)
    return _shortest32(out) if type(out) is float else out


def enc_text(v: Any) -> str:
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


def enc_opaque(v: Any) -> Any:
    """An untyped value (an SQLite column without a declared type, ``ANY``, or one holding values of
    several storage classes) keeping its storage class: text → string, integer → number, finite real →
    number (always with a fraction or an exponent, so it reads back as a real: ``1.0``, ``-0.0``),
    other reals → ``{"$real": "Infinity"}``, blob (a :class:`StoredBlob`) → ``{"$blob": base64}``;
    anything else (other engines' opaque values) → its text, as before."""
    t = type(v)
    if t is str:
        return v
    if t is int:
        return v
    if t is float:
        return v if math.isfinite(v) else {"$real": "NaN" if v != v else "Infinity" if v > 0 else "-Infinity"}
    if t is StoredBlob:
        return {"$blob": base64.b64encode(v).decode("ascii")}
    return enc_text(v)  # other engines' bytes: their UTF-8 text, as before


class StoredBlob(bytes):
    """A value an engine with storage classes holds as a blob (SQLite ``typeof() = 'blob'``), marked
    by its export's adapter: :func:`enc_opaque` writes it ``{"$blob": base64}`` (other engines'
    opaque bytes are their text)."""

    __slots__ = ()


def checked_opaque(v: Any) -> Any:
    return v if type(v) is str else enc_opaque(v)


def enc_uuid(v: Any) -> str:
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, (bytes, bytearray)) and len(v) == 16:
        return str(uuid.UUID(bytes=bytes(v)))
    try:
        return str(uuid.UUID(str(v)))
    except ValueError:
        raise _fail("uuid", v) from None


def enc_binary(v: Any) -> str:
    if isinstance(v, str):
        v = v.encode("utf-8")
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise _fail("binary", v)
    return base64.b64encode(v).decode("ascii")


def make_enc_bit(length: int | None, varying: bool) -> Encoder:
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


def enc_date(v: Any) -> str:
    if isinstance(v, dt.datetime):
        raise _fail("date", v, "a datetime in a date column")
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, str):
        return v  # zero dates, "infinity", BC dates: verbatim
    raise _fail("date", v)


def make_enc_time(fsp: int, with_tz: bool) -> Encoder:
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
            mt = TIME_RE.match(v)
            if not mt:
                return v
            text = f"{mt['sign'] or ''}{int(mt['h']):02d}:{mt['m']}:{mt['s']}{_fix_fraction(mt['frac'], fsp)}"
            if mt["off"]:
                text += norm_offset(mt["off"])
            return text
        raise _fail("time", v)

    return enc


def _format_datetime(v: dt.datetime, fsp: int) -> str:
    y = v.year
    return (
        f"{y:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        f"{_fraction(v.microsecond, fsp) if v.microsecond or fsp else ''}"
    )


def make_enc_timestamp(fsp: int, with_tz: bool) -> Encoder:
    def from_text(text: str) -> str:
        mt = TS_RE.match(text)
        if not mt or not mt["time"]:
            return text  # "infinity", BC dates, anything unusual: verbatim
        hms = mt["time"] if len(mt["time"]) == 8 else mt["time"] + ":00"
        frac = _fix_fraction(mt["frac"], fsp)
        off = mt["off"]
        base = f"{mt['date']}T{hms}{frac}"
        if not with_tz:
            return base + (norm_offset(off) if off and off != "Z" else "")
        if off and off != "Z":
            norm = norm_offset(off)
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


def enc_interval(v: Any) -> str:
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
    return enc_text(v)


def make_enc_set(values: tuple[str, ...]) -> Encoder:
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


def enc_json(v: Any) -> Any:
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


def enc_json_text(v: Any) -> str:
    """A json column stored as text (MariaDB JSON, PostgreSQL ``json``, SQLite), written as the
    JSON string of its exact text (data format 1.3: whitespace, key order, duplicate keys and
    number spellings kept); a value the driver parsed (SQLite numbers) is written as orjson's text."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            raise _fail("json", v, "text that is not UTF-8") from None
    try:
        return orjson.dumps(v).decode()
    except TypeError as e:
        raise _fail("json", v, str(e)) from None


def enc_geometry(v: Any) -> str:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex().upper()
    if isinstance(v, str):
        return v.upper() if HEX_RE.match(v) else v
    raise _fail("geometry", v)


HEX_RE = re.compile(r"^(?:[0-9A-Fa-f]{2})+$")


def enc_vector(v: Any) -> Any:
    if isinstance(v, str):
        try:
            parsed = orjson.loads(v)
        except orjson.JSONDecodeError:
            raise _fail("vector", v) from None
        v = parsed
    if isinstance(v, (list, tuple)):
        return [enc_float(x) for x in v]
    if hasattr(v, "tolist"):
        return [enc_float(x) for x in v.tolist()]
    raise _fail("vector", v)


def make_enc_array(inner: Encoder) -> Encoder:
    """The encoder of an array (nested lists for more dimensions) whose elements ``inner`` encodes."""

    def enc(v: Any) -> list[Any]:
        if isinstance(v, str):
            raise _fail("array", v, "array text form; select the array itself")
        if not isinstance(v, (list, tuple)):
            raise _fail("array", v)
        return [None if x is None else (enc(x) if isinstance(x, list) else inner(x)) for x in v]

    return enc


# The per-row checks of RowEncoder for the kinds whose driver values orjson already writes as they are.


def checked_text(v: Any) -> Any:
    return v if type(v) is str else enc_text(v)


def checked_int(v: Any) -> Any:
    return v if type(v) is int else enc_int_number(v)
