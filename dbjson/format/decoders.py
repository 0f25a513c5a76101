"""The decoders of the row codec, one per type kind: a non-null JSON value of a line → the Python
value a loader passes to its driver (``Decimal``, ``int``, ``bytes``, ``datetime``...).

``make_*`` functions build the decoder of a parameterised type. Which kind uses which decoder is
:data:`dbjson.format.codec.KIND_CODECS`.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import math
import re
import uuid
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

from ..errors import DataError
from .encoders import HEX_RE, TIME_RE, TS_RE, norm_offset
from .jsontext import JsonText, unwrap_json, unwrap_json_text

Decoder = Callable[[Any], Any]  # a non-null JSON value → a Python value for the driver


def _bad(kind: str, v: Any) -> DataError:
    return DataError(f"not a valid {kind} value", value=v)


def dec_boolean(v: Any) -> bool:
    if v is True or v is False:
        return v
    raise _bad("boolean", v)


def dec_int(v: Any) -> int:
    if type(v) is int:
        return v
    if isinstance(v, str) and re.fullmatch(r"-?\d+", v):
        return int(v)
    raise _bad("integer", v)


def dec_decimal(v: Any) -> Decimal:
    if isinstance(v, str):
        try:
            return Decimal(v)
        except InvalidOperation:
            pass
    elif isinstance(v, int) and not isinstance(v, bool):
        return Decimal(v)
    raise _bad("decimal", v)


_FLOAT_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def dec_float(v: Any) -> float:
    if type(v) is float:
        return v
    if type(v) is int:
        return float(v)
    if isinstance(v, str) and v in _FLOAT_SPECIAL:
        return _FLOAT_SPECIAL[v]
    raise _bad("float", v)


def dec_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise _bad("string", v)


def dec_opaque(v: Any) -> str | int | float | bytes:
    """An untyped value with its storage class (see :func:`dbjson.format.encoders.enc_opaque`):
    string → str, integer number → int, other number → float, ``{"$blob": base64}`` → bytes,
    ``{"$real": "Infinity"}`` → float."""
    t = type(v)
    if t is str or t is int or t is float:
        return v  # type: ignore[no-any-return]
    if t is dict and len(v) == 1:
        if "$blob" in v:
            return dec_binary(v["$blob"])
        r = v.get("$real")
        if r in ("NaN", "Infinity", "-Infinity"):
            return float(r)
    raise _bad("untyped (string, number, $blob or $real)", v)


def opaque_text(v: Any) -> str:
    """An untyped value (a JSON value of an opaque column) as the text an engine without storage
    classes receives: a string as is, a number as Python prints it (``1``, ``1.0``, ``1e+300``: the
    text exports wrote before data format 1.4), a blob as its UTF-8 text (else an error, as before)."""
    if type(v) is str:
        return v
    d = dec_opaque(v)
    if isinstance(d, bytes):
        try:
            return d.decode("utf-8")
        except UnicodeDecodeError:
            raise DataError(
                "a blob that is not UTF-8 in an untyped column: the target column holds text", value=v
            ) from None
    return str(d)


def dec_binary(v: Any) -> bytes:
    if isinstance(v, str):
        try:
            return base64.b64decode(v, validate=True)
        except binascii.Error:
            pass
    raise _bad("base64", v)


def make_dec_bit(length: int | None, varying: bool) -> Decoder:
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


def is_zero_date_text(v: str) -> bool:
    """Whether the text of a date or timestamp (as :func:`is_date_text` accepts) has a zero year,
    month or day (MySQL's zero dates): year ``0000-``, or month or day ``00`` after ASCII digits
    (``2024-00-10``, ``2024-01-00``). Text whose date part is not digits is not a zero date (the
    target refuses it as not a date); the pre-tests of :mod:`dbjson.format.linefilter` rely on it."""
    if v.startswith("0000-"):
        return True
    if v[4:8] == "-00-":
        return v[:4].isascii() and v[:4].isdigit()
    if v[7:10] == "-00":
        return v[:7].isascii() and v[:4].isdigit() and v[4] == "-" and v[5:7].isdigit()
    return False


def dec_date(v: Any) -> dt.date | str:
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


def make_dec_time(with_tz: bool) -> Decoder:
    def dec(v: Any) -> dt.time | dt.timedelta | str:
        if not isinstance(v, str):
            raise _bad("time", v)
        mt = TIME_RE.match(v)
        if not mt:
            raise _bad("time", v)
        h, mi, s = int(mt["h"]), int(mt["m"]), int(mt["s"])
        micro = int(((mt["frac"] or ".")[1:] + "000000")[:6])
        if mt["off"]:
            off = norm_offset(mt["off"])
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


def make_dec_timestamp(with_tz: bool) -> Decoder:
    def dec(v: Any) -> dt.datetime | str:
        if not isinstance(v, str):
            raise _bad("timestamp", v)
        mt = TS_RE.match(v)
        if mt and mt["time"]:
            try:
                return dt.datetime.fromisoformat(v[:-1] + "+00:00" if v.endswith("Z") else v)
            except ValueError:
                pass  # zero datetimes stay text
        if not _VERBATIM_DATE.match(v):
            raise _bad("timestamp", v)
        return v  # infinity, BC, zero...: verbatim

    return dec


def make_dec_set(values: tuple[str, ...]) -> Decoder:
    def dec(v: Any) -> list[str]:
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return v
        raise _bad("set", v)

    return dec


def dec_json(v: Any) -> str:
    """Nested JSON → its text (RowDecoder passes the raw text, so nothing is re-serialized);
    ``{"$json": X}`` → the text of X (``"null"`` for the JSON document null)."""
    if isinstance(v, JsonText):
        return unwrap_json_text(str(v).encode()).decode()
    return orjson.dumps(unwrap_json(v)).decode()


def dec_uuid(v: Any) -> str:
    if isinstance(v, str):
        try:
            return str(uuid.UUID(v))
        except ValueError:
            pass
    raise _bad("uuid", v)


def dec_geometry(v: Any) -> bytes | str:
    if isinstance(v, str):
        if HEX_RE.match(v):
            return bytes.fromhex(v)
        return v
    raise _bad("geometry", v)


def dec_vector(v: Any) -> list[float]:
    if isinstance(v, list):
        return [dec_float(x) for x in v]
    raise _bad("vector", v)


def make_dec_array(inner: Decoder) -> Decoder:
    """The decoder of an array (nested lists for more dimensions) whose elements ``inner`` decodes."""

    def dec(v: Any) -> list[Any]:
        if not isinstance(v, list):
            raise _bad("array", v)
        return [None if x is None else (dec(x) if isinstance(x, list) else inner(x)) for x in v]

    return dec
