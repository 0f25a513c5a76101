"""MySQL/MariaDB reflection: the type mapper, a column of ``information_schema.COLUMNS`` → the standard
:class:`~dbjson.model.Type` and its :class:`~dbjson.model.NativeType` (types.md §4.3).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ... import model as m
from .sqltext import parse_value_list

if TYPE_CHECKING:
    from .catalog import Row

_INT_BITS = {"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}
_TEXT_TIERS = {"tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": 4294967295}
_BLOB_TIERS = {"tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": 4294967295}
BINARY_TYPES = ("binary", "varbinary", *_BLOB_TIERS)
GEOMETRY_TYPES = {
    "geometry": "geometry",
    "point": "point",
    "linestring": "linestring",
    "polygon": "polygon",
    "multipoint": "multipoint",
    "multilinestring": "multilinestring",
    "multipolygon": "multipolygon",
    "geomcollection": "geometrycollection",
    "geometrycollection": "geometrycollection",
}


def column_type(r: Row, is_json: bool, srid: int | None, *, engine: str, mariadb: bool) -> tuple[m.Type, m.NativeType]:
    """The standard type and the native type of a column of ``information_schema.COLUMNS`` (``is_json``: a MariaDB
    JSON column; ``srid``: a MariaDB geometry column's SRID)."""
    dt = (r["data_type"] or "").lower()
    ct = r["column_type"] or dt
    ctl = ct.lower()
    attrs: dict[str, Any] = {}
    unsigned = " unsigned" in ctl
    width = re.match(r"^\w+\((\d+)(?:,(\d+))?\)", ctl)
    if "zerofill" in ctl:
        attrs["zerofill"] = True
    raw = ct
    t: m.Type
    if dt in _INT_BITS:
        if width:
            attrs["display_width"] = int(width.group(1))
        if dt == "tinyint" and width and width.group(1) == "1" and not unsigned:
            attrs["bool_hint"] = True
        t = m.Type(kind="integer", bits=_INT_BITS[dt], unsigned=unsigned)
    elif dt in ("decimal", "numeric"):
        t = m.Type(kind="decimal", precision=r["num_prec"], scale=r["num_scale"], unsigned=unsigned)
    elif dt in ("float", "double", "real"):
        if width and width.group(2) is not None:
            attrs["precision"], attrs["scale"] = int(width.group(1)), int(width.group(2))
        t = m.Type(kind="float", bits=32 if dt == "float" else 64, unsigned=unsigned)
    elif dt == "bit":
        t = m.Type(kind="bit", length=r["num_prec"])
    elif dt in ("char", "varchar"):
        t = m.Type(kind=dt, length=r["char_len"])
    elif dt in _TEXT_TIERS:
        if is_json:
            raw = "json"
            t = m.Type(kind="json")
        else:
            t = m.Type(kind="text", max_bytes=_TEXT_TIERS[dt])
    elif dt in ("binary", "varbinary"):
        t = m.Type(kind=dt, length=r["char_len"])
    elif dt in _BLOB_TIERS:
        t = m.Type(kind="blob", max_bytes=_BLOB_TIERS[dt])
    elif dt == "date":
        t = m.Type(kind="date", allows_zero=True)
    elif dt == "time":
        t = m.Type(kind="time", fsp=r["dt_prec"] or 0)
    elif dt in ("datetime", "timestamp"):
        t = m.Type(kind="timestamp", fsp=r["dt_prec"] or 0, with_timezone=dt == "timestamp", allows_zero=True)
    elif dt == "year":
        t = m.Type(kind="year")
    elif dt in ("enum", "set"):
        t = m.Type(kind=dt, values=parse_value_list(ct))
    elif dt == "json":
        t = m.Type(kind="json", binary=not mariadb)
    elif dt in GEOMETRY_TYPES:
        sr = srid if mariadb else r["srid"]
        t = m.Type(kind="geometry", subtype=GEOMETRY_TYPES[dt], srid=int(sr) if sr is not None else None)
    elif dt == "uuid":
        t = m.Type(kind="uuid")
    elif dt in ("inet4", "inet6"):
        t = m.Type(kind="inet", family=int(dt[-1]))
    elif dt == "vector":
        t = m.Type(kind="vector", dims=int(width.group(1)) if width else None)
    else:
        t = m.Type(kind="opaque")
    return t, m.NativeType(engine=engine, raw=raw, attrs=attrs)
