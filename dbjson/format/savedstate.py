"""State files dbjson writes and reads back (``migrate``'s unit plan): JSON only, validated on read.

Nothing read back from disk is unpickled or executed: a state file is a JSON document checked
against its JSON Schema in ``jsonschema/`` (``migrate-plan.json``...) and then parsed strictly, so
a planted, tampered or garbled file is a :class:`DocumentError` naming the file and the JSON
pointer of the problem, never code that runs.

Key values (the bounds of a unit's key range, as the source's driver returned them) are written as
``[tag, text]`` pairs (:func:`encode_value`), so they come back as the same Python type:
``["int", "12"]``, ``["str", "a"]``, ``["bytes", "<base64>"]``, ``["decimal", "1.50"]``,
``["float", "0.5"]``, ``["bool", "true"]``, ``["datetime", "<ISO 8601>"]``, ``["date", ...]``,
``["time", ...]``, ``["timedelta", "<microseconds>"]``, ``["uuid", ...]``; SQL NULL is ``null``.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import decimal
import math
import os
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from ..errors import DocumentError
from ..validate import check_document
from .paths import open_for_write

STATE_KINDS = ("migrate-plan",)  # each has jsonschema/<kind>.json


class Unencodable(ValueError):
    """A value of a type :func:`encode_value` does not write (the caller plans without it)."""


def _timedelta_text(v: dt.timedelta) -> str:
    return str((v.days * 86400 + v.seconds) * 1_000_000 + v.microseconds)


_ENCODERS: list[tuple[type, str, Callable[[Any], str]]] = [
    (bool, "bool", lambda v: "true" if v else "false"),  # before int: bool is an int
    (int, "int", str),
    (str, "str", str),
    (bytes, "bytes", lambda v: base64.b64encode(v).decode("ascii")),
    (bytearray, "bytes", lambda v: base64.b64encode(bytes(v)).decode("ascii")),
    (memoryview, "bytes", lambda v: base64.b64encode(bytes(v)).decode("ascii")),
    (decimal.Decimal, "decimal", str),
    (float, "float", repr),
    (dt.datetime, "datetime", lambda v: v.isoformat()),  # before date: a datetime is a date
    (dt.date, "date", lambda v: v.isoformat()),
    (dt.time, "time", lambda v: v.isoformat()),
    (dt.timedelta, "timedelta", _timedelta_text),
    (uuid.UUID, "uuid", str),
]


def encode_value(v: Any) -> list[str] | None:
    """``v`` as a ``[tag, text]`` pair (None as None); :class:`Unencodable` for any other type."""
    if v is None:
        return None
    for cls, tag, enc in _ENCODERS:
        if isinstance(v, cls):
            if isinstance(v, float) and not math.isfinite(v):
                raise Unencodable(f"a key value {v!r} cannot be saved")
            return [tag, enc(v)]
    raise Unencodable(f"a key value of type {type(v).__name__} cannot be saved")


def _bool(text: str) -> bool:
    if text not in ("true", "false"):
        raise ValueError(text)
    return text == "true"


def _int(text: str) -> int:
    if not text.lstrip("-").isdigit() or len(text) > 40:
        raise ValueError(text)
    return int(text)


def _decimal(text: str) -> decimal.Decimal:
    d = decimal.Decimal(text)
    if not d.is_finite():
        raise ValueError(text)
    return d


def _float(text: str) -> float:
    f = float(text)
    if not math.isfinite(f):
        raise ValueError(text)
    return f


def _timedelta(text: str) -> dt.timedelta:
    return dt.timedelta(microseconds=_int(text))


_DECODERS: dict[str, Callable[[str], Any]] = {
    "bool": _bool,
    "int": _int,
    "str": str,
    "bytes": lambda t: base64.b64decode(t, validate=True),
    "decimal": _decimal,
    "float": _float,
    "datetime": dt.datetime.fromisoformat,
    "date": dt.date.fromisoformat,
    "time": dt.time.fromisoformat,
    "timedelta": _timedelta,
    "uuid": uuid.UUID,
}
VALUE_TAGS = tuple(_DECODERS)


def decode_value(pair: Any, *, file: str, pointer: str) -> Any:
    """The value :func:`encode_value` wrote as ``pair``; a DocumentError naming ``file`` and ``pointer``
    for anything else."""
    if pair is None:
        return None
    ok = isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
    if not ok or pair[0] not in _DECODERS:
        raise DocumentError("not a saved key value", file=file, pointer=pointer, value=pair)
    try:
        return _DECODERS[pair[0]](pair[1])
    except (ValueError, TypeError, ArithmeticError, binascii.Error):
        raise DocumentError(f"not a valid {pair[0]} value", file=file, pointer=pointer, value=pair[1]) from None


def decode_values(values: Any, *, file: str, pointer: str) -> tuple[Any, ...] | None:
    """A saved tuple of key values (None: unbounded)."""
    if values is None:
        return None
    if not isinstance(values, list):
        raise DocumentError("not a list of saved key values", file=file, pointer=pointer)
    return tuple(decode_value(v, file=file, pointer=f"{pointer}/{i}") for i, v in enumerate(values))


def encode_values(values: Sequence[Any] | None) -> list[list[str] | None] | None:
    return None if values is None else [encode_value(v) for v in values]


def write_state(path: Path, doc: dict[str, Any], kind: str) -> None:
    """Write the state document ``doc`` (of ``kind``) to ``path`` atomically (``.partial``, fsync, rename)."""
    assert kind in STATE_KINDS and doc.get("format") == f"dbjson-{kind}"
    data = orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    tmp = path.with_name(path.name + ".partial")
    with open_for_write(tmp) as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_state(path: Path, kind: str, *, max_bytes: int = 256 << 20) -> dict[str, Any]:
    """A state document of ``kind`` read from ``path`` and validated against ``jsonschema/<kind>.json``;
    any problem (unreadable, too big, not JSON, invalid) is a DocumentError naming the file."""
    assert kind in STATE_KINDS
    file = str(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise DocumentError(f"a {kind} file larger than {max_bytes} bytes is not one dbjson wrote", file=file)
        raw = path.read_bytes()
    except OSError as e:
        raise DocumentError(f"cannot read the {kind} file: {e.strerror}", file=file) from None
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise DocumentError(f"the {kind} file is not valid JSON (garbled or tampered with): {e}", file=file) from None
    check_document(doc, kind, file=file)
    if not isinstance(doc, dict):  # the schema says object; for mypy
        raise DocumentError(f"a {kind} file must be a JSON object", file=file)
    return doc


__all__ = [
    "STATE_KINDS",
    "Unencodable",
    "VALUE_TAGS",
    "decode_value",
    "decode_values",
    "encode_value",
    "encode_values",
    "read_state",
    "write_state",
]
