"""Exports as typed tables for analytics tools.

The row encoding is lossless by design: 64-bit integers and decimals are JSON strings, binary
values base64, timestamps ISO text. A tool that infers types from the lines (DuckDB's
``read_json``, pandas, polars) reads them as text, or worse. The schema document says what each
column is, so the types are given to the tools instead:

- :func:`duckdb_sql`: ``CREATE VIEW`` statements over DuckDB's ``read_json`` with every column read
  as its encoded JSON type and cast to its DuckDB type (``dbjson sql duckdb DIR``);
- :func:`read_table`: the rows of one table as typed Python values (``Decimal``, ``int``, ``bytes``,
  ``datetime`` with its zone...), decoded by the row codec the import uses;
  :func:`read_arrow` the same as a ``pyarrow.Table`` (the ``arrow`` extra).

docs/scale.md lists the DuckDB type of every kind and the values a DuckDB type cannot hold.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from . import model as m
from .errors import UsageError
from .format.codec import RowDecoder
from .format.datafiles import iter_lines, open_data
from .format.manifest import ManifestTable, read_export
from .format.storage import Location, ObjectPath, location

# kind → (how read_json reads the value, the DuckDB type it is cast to; None: kept as read)
_TEXT = ("VARCHAR", None)


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def duckdb_type(t: m.Type, json_text: bool = False) -> tuple[str, str]:
    """How ``read_json`` reads a column of type ``t`` and the SQL expression (``{c}``: the column)
    that gives its typed value. ``json_text``: a json column written as the JSON string of its
    text (the manifest's ``json_text``): the text, as DuckDB's JSON type (its exact text)."""
    k = t.kind
    if k == "json" and json_text:
        return "VARCHAR", "CAST({c} AS JSON)"
    if k == "boolean":
        return "BOOLEAN", "{c}"
    if k in ("integer", "year"):
        if k == "year" or (t.bits or 64) <= 32:
            return "BIGINT", "{c}"
        return "VARCHAR", "CAST({c} AS HUGEINT)" if t.unsigned else "CAST({c} AS BIGINT)"
    if k in ("decimal", "money"):
        p, s = t.precision, t.scale
        if k == "money" and p is None:
            p, s = 19, 2
        if p is not None and p <= 38:
            return "VARCHAR", f"TRY_CAST({{c}} AS DECIMAL({p},{s or 0}))"  # NaN/Infinity: NULL
        return "VARCHAR", "{c}"  # beyond DECIMAL(38): the exact text
    if k == "float":
        return "VARCHAR", "CAST({c} AS FLOAT)" if t.bits == 32 else "CAST({c} AS DOUBLE)"
    if k == "uuid":
        return "VARCHAR", "CAST({c} AS UUID)"
    if k in ("binary", "varbinary", "blob"):
        return "VARCHAR", "from_base64({c})"
    if k == "bit":
        return "VARCHAR", "TRY_CAST(NULLIF({c}, '') AS BIT)"
    if k == "date":
        return "VARCHAR", "TRY_CAST({c} AS DATE)"  # zero and invalid MySQL dates: NULL
    if k == "time":
        return "VARCHAR", "TRY_CAST({c} AS TIMETZ)" if t.with_timezone else "TRY_CAST({c} AS TIME)"
    if k == "timestamp":
        if t.with_timezone:
            return "VARCHAR", "TRY_CAST({c} AS TIMESTAMPTZ)"
        # a local timestamp; a value with an offset (SQLite holds any text) is the instant in UTC
        return "VARCHAR", (
            "CASE WHEN regexp_matches({c}, '(Z|[+-][0-9][0-9](:?[0-9][0-9])?)$') "
            "THEN timezone('UTC', TRY_CAST({c} AS TIMESTAMPTZ)) ELSE TRY_CAST({c} AS TIMESTAMP) END"
        )
    if k == "json":
        # the JSON document null is {"$json":null}; an object whose only key is $json is wrapped once more
        return "JSON", (
            "CASE WHEN json_type({c}) = 'OBJECT' AND json_keys({c}) = ['$json'] "
            "THEN json_extract({c}, '$.\"$json\"') ELSE {c} END"
        )
    if k == "set":
        return "VARCHAR[]", "{c}"
    if k == "vector":
        return "DOUBLE[]", "{c}"
    if k == "array":
        return "JSON", "{c}"
    if k == "geometry":
        return "VARCHAR", "from_hex({c})"  # EWKB (ST_GeomFromWKB of the spatial extension reads it)
    return _TEXT[0], "{c}"  # char, varchar, text, enum, interval, inet, xml, range, opaque: the text


def _files(directory: Location, tables: list[ManifestTable], schema: str, name: str) -> list[str]:
    for t in tables:
        if (t.schema, t.name) == (schema, name):
            return [str(f.path) for f in t.files]
    return []


def _json_text(tables: list[ManifestTable], schema: str, name: str) -> tuple[str, ...]:
    for t in tables:
        if (t.schema, t.name) == (schema, name):
            return t.json_text
    return ()


def duckdb_sql(directory: str | os.PathLike[str] | ObjectPath) -> str:
    """``CREATE SCHEMA``/``CREATE OR REPLACE VIEW`` statements, one view per table of the export in
    ``directory``, each over ``read_json`` of the table's data files with every column cast to its
    DuckDB type (see :func:`duckdb_type`). Paths are absolute (or the object storage URLs: DuckDB's
    httpfs extension reads ``s3://``)."""
    d = location(directory)
    if isinstance(d, os.PathLike):
        d = location(os.path.abspath(d))
    db, tables, _ = read_export(d)
    out = ["-- generated by dbjson from " + str(d)]
    for schema in db.schemas:
        out.append(f"CREATE SCHEMA IF NOT EXISTS {_ident(schema.name)};")
        for table in schema.tables:
            if table.partition_of:
                continue
            files = _files(d, tables, schema.name, table.name)
            texts = _json_text(tables, schema.name, table.name)
            types = [duckdb_type(c.type, c.name in texts) for c in table.columns]
            cols = ", ".join(f"{_sql_str(c.name)}: {_sql_str(ty[0])}" for c, ty in zip(table.columns, types))
            exprs = ",\n  ".join(
                ty[1].format(c=_ident(c.name)) + f" AS {_ident(c.name)}" for c, ty in zip(table.columns, types)
            )
            source = (
                f"read_json([{', '.join(_sql_str(f) for f in files)}], format = 'newline_delimited', "
                f"columns = {{{cols}}})"
                if files
                else "(SELECT "
                + ", ".join(f"NULL::{ty[0]} AS {_ident(c.name)}" for c, ty in zip(table.columns, types))
                + " LIMIT 0)"
            )
            out.append(
                f"CREATE OR REPLACE VIEW {_ident(schema.name)}.{_ident(table.name)} AS SELECT\n  {exprs}\nFROM {source};"
            )
    return "\n".join(out) + "\n"


def _table(directory: Location, table: str) -> tuple[m.Table, ManifestTable]:
    db, tables, _ = read_export(directory)
    for s, t in db.tables():
        if table in (t.name, f"{s.name}.{t.name}"):
            mt = next((x for x in tables if (x.schema, x.name) == (s.name, t.name)), None)
            if mt is None:
                raise UsageError(f"table {table!r} has no data in the export")
            return t, mt
    raise UsageError(f"table {table!r} is not in the export")


def read_table(directory: str | os.PathLike[str] | ObjectPath, table: str) -> Iterator[dict[str, Any]]:
    """The rows of ``table`` (``name`` or ``schema.name``) as dicts of typed Python values: ``int``
    (64-bit and unsigned too), ``Decimal``, ``float``, ``bytes``, ``datetime.date``/``time``/
    ``datetime`` (aware when the column holds instants), ``uuid`` text, JSON values parsed with exact
    numbers (``Decimal``); values no Python type holds (zero dates, infinity, BC) stay text."""
    d = location(directory)
    t, mt = _table(d, table)
    decoder = RowDecoder(t.columns, mt.json_text)  # json written as text: its text
    json_cols = [i for i, c in enumerate(t.columns) if c.type.kind == "json"]
    names = decoder.names
    for f in mt.files:
        with open_data(f.path) as fh:
            for _number, line in iter_lines(fh, f.rel):
                values = decoder.decode(line)
                for i in json_cols:
                    if values[i] is not None:
                        values[i] = json.loads(values[i], parse_float=Decimal)
                yield dict(zip(names, values))


def read_arrow(directory: str | os.PathLike[str] | ObjectPath, table: str) -> Any:
    """:func:`read_table` as a ``pyarrow.Table`` (``pip install 'dbjson[arrow]'``); 64-bit integers
    become int64 (uint64 when unsigned), decimals decimal128, binary values binary."""
    try:
        import pyarrow as pa
    except ImportError:
        raise UsageError("read_arrow needs pyarrow", hint="pip install 'dbjson[arrow]'") from None
    d = location(directory)
    t, _mt = _table(d, table)
    fields = []
    for c in t.columns:
        k = c.type
        typ: Any = None
        if k.kind == "integer":
            typ = pa.uint64() if k.unsigned and (k.bits or 64) == 64 else pa.int64()
        elif k.kind in ("decimal", "money") and k.precision is not None and k.precision <= 38:
            typ = pa.decimal128(k.precision, k.scale or 0)
        elif k.kind in ("binary", "varbinary", "blob", "geometry"):
            typ = pa.binary()
        elif k.kind == "boolean":
            typ = pa.bool_()
        elif k.kind == "float":
            typ = pa.float32() if k.bits == 32 else pa.float64()
        fields.append((c.name, typ))
    rows = list(read_table(d, table))
    columns = {}
    for name, typ in fields:
        values = [r[name] for r in rows]
        try:
            columns[name] = pa.array(values, type=typ) if typ is not None else pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            columns[name] = pa.array([None if v is None else str(v) for v in values], type=pa.string())
    return pa.table(columns)


__all__ = ["duckdb_sql", "duckdb_type", "read_table", "read_arrow"]
