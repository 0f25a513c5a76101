"""SQLite reflection: the type mapper, a declared type name → the standard :class:`~dbjson.model.Type`
(by name, else by SQLite's affinity rules).
"""

from __future__ import annotations

import re

from ... import model as m

_TYPE_RE = re.compile(r"^\s*([A-Za-z_][\w ]*?)\s*(?:\(\s*([+-]?\d+)\s*(?:,\s*([+-]?\d+)\s*)?\))?\s*$")
_INT_BITS = {"TINYINT": 8, "INT1": 8, "SMALLINT": 16, "INT2": 16, "MEDIUMINT": 24, "INT3": 24}
_VARCHAR = {
    "VARCHAR",
    "CHARACTER VARYING",
    "CHAR VARYING",
    "NVARCHAR",
    "VARYING CHARACTER",
    "NATIONAL VARYING CHARACTER",
    "NATIONAL CHARACTER VARYING",
    "NCHAR VARYING",
    "VARCHAR2",
    "NVARCHAR2",
}
_CHAR = {"CHAR", "CHARACTER", "NCHAR", "NATIVE CHARACTER", "NATIONAL CHARACTER", "NATIONAL CHAR"}
_FLOAT = {"REAL", "DOUBLE", "DOUBLE PRECISION", "FLOAT", "FLOAT8"}
_SIMPLE = {
    "BOOLEAN": m.Type(kind="boolean"),
    "BOOL": m.Type(kind="boolean"),
    "TEXT": m.Type(kind="text"),
    "CLOB": m.Type(kind="text"),
    "NTEXT": m.Type(kind="text"),
    "BLOB": m.Type(kind="blob"),
    "DATE": m.Type(kind="date"),
    "JSON": m.Type(kind="json"),
    "UUID": m.Type(kind="uuid"),
    "XML": m.Type(kind="xml"),
    "FLOAT4": m.Type(kind="float", bits=32),
    # other engines' spellings met in real SQLite files (the jOOQ Sakila port: picture bytea)
    "BYTEA": m.Type(kind="blob"),
    "BINARY": m.Type(kind="blob"),
    "VARBINARY": m.Type(kind="blob"),
    "YEAR": m.Type(kind="year"),
}


def standard_type(declared: str) -> m.Type:
    """The standard type for an SQLite declared type name."""
    mt = _TYPE_RE.match(declared)
    if not declared.strip():
        return m.Type(kind="opaque")
    if mt is None:
        return _by_affinity(declared)
    words = mt.group(1).upper().split()
    unsigned = "UNSIGNED" in words
    name = " ".join(w for w in words if w != "UNSIGNED")
    p1 = int(mt.group(2)) if mt.group(2) is not None else None
    p2 = int(mt.group(3)) if mt.group(3) is not None else None
    if name in _INT_BITS:
        return m.Type(kind="integer", bits=_INT_BITS[name], unsigned=unsigned)
    if name in ("INTEGER", "INT", "BIGINT", "INT8", "BIG INT", "INT4"):
        return m.Type(kind="integer", bits=32 if name == "INT4" else 64, unsigned=unsigned)
    if name in _VARCHAR:
        return m.Type(kind="varchar", length=p1)
    if name in _CHAR:
        return m.Type(kind="char", length=p1) if p1 is not None else m.Type(kind="text")
    if name in ("BINARY", "VARBINARY") and p1 is not None:
        return m.Type(kind=name.lower(), length=p1)
    if name in _FLOAT:
        return m.Type(kind="float", bits=32 if name == "FLOAT" and p1 is not None and p1 <= 24 else 64)
    if name in ("NUMERIC", "DECIMAL"):
        return m.Type(kind="decimal", precision=p1, scale=(p2 or 0) if p1 is not None else None)
    if name in ("DATETIME", "TIMESTAMP"):
        return m.Type(kind="timestamp", fsp=p1)
    if name == "TIME":
        return m.Type(kind="time", fsp=p1)
    if name in _SIMPLE and p1 is None:
        return _SIMPLE[name]
    return _by_affinity(declared)


def _by_affinity(declared: str) -> m.Type:
    """SQLite's affinity rules (https://www.sqlite.org/datatype3.html §3.1) for unknown names."""
    up = declared.upper()
    if "INT" in up:
        return m.Type(kind="integer", bits=64)
    if any(w in up for w in ("CHAR", "CLOB", "TEXT")):
        return m.Type(kind="text")
    if "BLOB" in up:
        return m.Type(kind="blob")
    if any(w in up for w in ("REAL", "FLOA", "DOUB")):
        return m.Type(kind="float", bits=64)
    return m.Type(kind="opaque", base=m.Type(kind="decimal"))
