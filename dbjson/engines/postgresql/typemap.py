"""PostgreSQL reflection: the type mapper, ``(pg_type oid, typmod)`` → the standard
:class:`~dbjson.model.Type` (arrays, domains, enums, ranges, the built-in types and their typmods).
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import model as m

# pg_catalog types whose standard type does not depend on the typmod.
_FIXED_TYPES: dict[str, m.Type] = {
    "bool": m.Type(kind="boolean"),
    "int2": m.Type(kind="integer", bits=16),
    "int4": m.Type(kind="integer", bits=32),
    "int8": m.Type(kind="integer", bits=64),
    "float4": m.Type(kind="float", bits=32),
    "float8": m.Type(kind="float", bits=64),
    "text": m.Type(kind="text"),
    "bytea": m.Type(kind="blob"),
    "date": m.Type(kind="date"),
    "json": m.Type(kind="json"),
    "jsonb": m.Type(kind="json", binary=True),
    "uuid": m.Type(kind="uuid"),
    "inet": m.Type(kind="inet"),
    "cidr": m.Type(kind="inet", network=True),
    "macaddr": m.Type(kind="macaddr", length=6),
    "macaddr8": m.Type(kind="macaddr", length=8),
    "money": m.Type(kind="money"),
    "xml": m.Type(kind="xml"),
}

_VARHDRSZ = 4
_DEFAULT_FSP = 6
_INTERVAL_FULL_RANGE = 0x7FFF
_INTERVAL_FULL_PRECISION = 0xFFFF
# Interval typmod range masks (bits of datetime.h: MONTH=1, YEAR=2, DAY=3, HOUR=10, MINUTE=11, SECOND=12).
_Y, _MO, _D, _H, _MI, _S = 1 << 2, 1 << 1, 1 << 3, 1 << 10, 1 << 11, 1 << 12
_INTERVAL_FIELDS = {
    _Y: "YEAR",
    _MO: "MONTH",
    _D: "DAY",
    _H: "HOUR",
    _MI: "MINUTE",
    _S: "SECOND",
    _Y | _MO: "YEAR TO MONTH",
    _D | _H: "DAY TO HOUR",
    _D | _H | _MI: "DAY TO MINUTE",
    _D | _H | _MI | _S: "DAY TO SECOND",
    _H | _MI: "HOUR TO MINUTE",
    _H | _MI | _S: "HOUR TO SECOND",
    _MI | _S: "MINUTE TO SECOND",
}


@dataclass(frozen=True, slots=True)
class TypeInfo:
    """One ``pg_type`` row, as much as the mapping needs."""

    oid: int
    schema: str
    name: str
    typtype: str
    category: str
    elem: int
    basetype: int
    basetypmod: int
    display: str
    range_subtype: int | None
    multi: bool


class TypeMapper:
    """Maps ``(type oid, typmod)`` to the standard :class:`~dbjson.model.Type`."""

    def __init__(self, types: dict[int, TypeInfo], enum_labels: dict[int, tuple[str, ...]]) -> None:
        self.types = types
        self.enum_labels = enum_labels

    def standard(self, oid: int, typmod: int, ndims: int = 0) -> m.Type:
        """The standard type of a column/field/argument of type ``oid`` with ``typmod``."""
        info = self.types.get(oid)
        if info is None:  # e.g. the row type of a table used as a column type
            return m.Type(kind="opaque")
        if info.category == "A" and info.elem:
            return m.Type(kind="array", element=self.standard(info.elem, typmod), dims=ndims or None)
        if info.typtype == "d":
            base = self.standard(info.basetype, info.basetypmod)
            return m.replace(base, type_name=info.name, type_schema=info.schema)
        if info.typtype == "e":
            return m.Type(
                kind="enum", values=self.enum_labels.get(oid, ()), type_name=info.name, type_schema=info.schema
            )
        if info.typtype in ("r", "m"):
            return self._range(info)
        if info.name == "oid" and info.schema == "pg_catalog":  # a large object's id: its content is exported
            return m.Type(kind="blob", type_name="oid")
        if info.name == "citext" and info.typtype == "b":  # the citext extension: text compared case-insensitively
            return m.Type(kind="text", type_name=info.name, type_schema=info.schema)
        if info.schema != "pg_catalog":  # composite types, extension base types
            return m.Type(kind="opaque", type_name=info.name, type_schema=info.schema)
        return self._builtin(info.name, typmod)

    def _range(self, info: TypeInfo) -> m.Type:
        sub = self.types.get(info.range_subtype or 0)
        user = info.schema != "pg_catalog"
        return m.Type(
            kind="range",
            subtype=sub.display if sub else None,
            multi=info.multi,
            type_name=info.name if user else None,
            type_schema=info.schema if user else None,
        )

    @staticmethod
    def _builtin(name: str, typmod: int) -> m.Type:
        fixed = _FIXED_TYPES.get(name)
        if fixed is not None:
            return fixed
        if name == "numeric":
            return _numeric(typmod)
        if name in ("bpchar", "varchar"):
            length = typmod - _VARHDRSZ if typmod >= 0 else None
            return m.Type(kind="char" if name == "bpchar" else "varchar", length=length)
        if name in ("bit", "varbit"):
            return m.Type(kind="bit", length=typmod if typmod >= 0 else None, varying=name == "varbit")
        if name in ("time", "timetz", "timestamp", "timestamptz"):
            fsp = typmod if typmod >= 0 else _DEFAULT_FSP
            kind = "time" if name in ("time", "timetz") else "timestamp"
            return m.Type(kind=kind, fsp=fsp, with_timezone=name.endswith("tz"))
        if name == "interval":
            return _interval(typmod)
        return m.Type(kind="opaque")


def _numeric(typmod: int) -> m.Type:
    if typmod < 0:
        return m.Type(kind="decimal")
    tm = typmod - _VARHDRSZ
    scale = ((tm & 0x7FF) ^ 0x400) - 0x400  # 11-bit signed (PostgreSQL 15 allows negative scales)
    return m.Type(kind="decimal", precision=(tm >> 16) & 0xFFFF, scale=scale)


def _interval(typmod: int) -> m.Type:
    if typmod < 0:
        return m.Type(kind="interval", fsp=_DEFAULT_FSP)
    mask = (typmod >> 16) & _INTERVAL_FULL_RANGE
    precision = typmod & 0xFFFF
    fields = None if mask == _INTERVAL_FULL_RANGE else _INTERVAL_FIELDS.get(mask)
    has_seconds = fields is None or fields.endswith("SECOND")
    fsp = (_DEFAULT_FSP if precision == _INTERVAL_FULL_PRECISION else precision) if has_seconds else None
    return m.Type(kind="interval", fields=fields, fsp=fsp)
