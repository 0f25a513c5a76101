"""Schema documents crafted to inject SQL through names, comments, defaults, checks, enum values,
view bodies, partition keys, index expressions and routine/trigger definitions.

``CASES`` lists ``(id, mutate, expected)``: ``mutate(doc, engine)`` edits a plain document (a dict
from :func:`base_document`) in place; ``expected`` is ``"load"`` (quoted correctly, must load and
keep the text exactly) or ``"refuse"`` (schema-load must stop with a TranslationError or
DocumentError). Every payload, if it ever ran, would drop the ``canary`` table or create ``pwned``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from dbjson import model as m

NATIVE = {
    "mysql": ("int", "varchar(40)", "enum('a','b')"),
    "mariadb": ("int", "varchar(40)", "enum('a','b')"),
    "postgresql": ("integer", "character varying(40)", "text"),
    "sqlite": ("INTEGER", "varchar(40)", "TEXT"),
}
DROP = "DROP TABLE canary"
PWN = "CREATE TABLE pwned (i int)"


def base_document(engine: str) -> dict[str, Any]:
    """A one-table document (``t``: id, name) whose source engine is ``engine`` (expressions verbatim)."""
    i, v, _ = NATIVE[engine]
    cols = (
        m.Column(name="id", ordinal=1, type=m.Type(kind="integer", bits=32), native=m.NativeType(engine=engine, raw=i), nullable=False),
        m.Column(name="name", ordinal=2, type=m.Type(kind="varchar", length=40), native=m.NativeType(engine=engine, raw=v)),
    )
    table = m.Table(name="t", columns=cols, primary_key=m.PrimaryKey(columns=("id",)))
    schema = "public" if engine == "postgresql" else "main" if engine == "sqlite" else "shop"
    src = m.Source(engine=engine, server_version="15.0" if engine == "postgresql" else "9.1.0", database=schema,
                   dumped_at="2026-01-01T00:00:00Z")
    doc: dict[str, Any] = orjson.loads(m.Database(source=src, schemas=(m.Schema(name=schema, tables=(table,)),)).to_json())
    return doc


def _t(doc: dict[str, Any]) -> dict[str, Any]:
    table: dict[str, Any] = doc["schemas"][0]["tables"][0]
    return table


def _col(doc: dict[str, Any], i: int = 1) -> dict[str, Any]:
    col: dict[str, Any] = _t(doc)["columns"][i]
    return col


def _set(path: Callable[[dict[str, Any]], dict[str, Any]], key: str, value: Any) -> Callable[[dict[str, Any], str], None]:
    def mutate(doc: dict[str, Any], engine: str) -> None:
        path(doc)[key] = value(engine) if callable(value) else value
    return mutate


def _append(path: Callable[[dict[str, Any]], dict[str, Any]], key: str, value: Any) -> Callable[[dict[str, Any], str], None]:
    def mutate(doc: dict[str, Any], engine: str) -> None:
        path(doc).setdefault(key, []).append(value(engine) if callable(value) else value)
    return mutate


def _schema(doc: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = doc["schemas"][0]
    return schema


def _enum_column(doc: dict[str, Any], engine: str) -> None:
    _t(doc)["columns"].append({"name": "e", "ordinal": 3, "nullable": True,
                               "type": {"kind": "enum", "values": ["a'); " + DROP + "; --", "b\\'); " + PWN + "; --", "c`\"d"]},
                               "native": {"engine": engine, "raw": NATIVE[engine][2] if engine == "postgresql" or engine == "sqlite"
                                          else "enum('a''); DROP TABLE canary; --','b\\\\''); CREATE TABLE pwned (i int); --','c`\"d')"}})


def _partitioned(expression: str, bound: str) -> Callable[[dict[str, Any], str], None]:
    def mutate(doc: dict[str, Any], engine: str) -> None:
        _t(doc)["partitioning"] = {"method": "range", "expression": expression,
                                   "partitions": [{"name": "p0", "bound": bound}] if engine in ("mysql", "mariadb") else []}
    return mutate


LOAD, REFUSE = "load", "refuse"
QUOTED = "x'); " + DROP + "; -- \\'); " + PWN + "; -- `\"; " + DROP + "; --"

# (id, mutate, expected)
CASES: list[tuple[str, Callable[[dict[str, Any], str], None], str]] = [
    ("table-name", _set(_t, "name", QUOTED), LOAD),
    ("column-name", _set(lambda d: _col(d), "name", QUOTED), LOAD),
    ("table-comment", _set(_t, "comment", QUOTED), LOAD),
    ("column-comment", _set(lambda d: _col(d), "comment", QUOTED), LOAD),
    ("default-literal", _set(lambda d: _col(d), "default", {"kind": "literal", "value": QUOTED[:40]}), LOAD),
    ("index-name", _append(_t, "indexes", {"name": QUOTED[:60].rstrip(), "parts": [{"column": "name"}]}), LOAD),
    ("check-name", _append(_t, "checks", lambda e: {"name": QUOTED[:60].rstrip(), "expression": "id >= 0", "dialect": e}), LOAD),
    ("enum-values", _enum_column, LOAD),
    ("view-name", _append(_schema, "views", lambda e: {"name": QUOTED[:60].rstrip(), "definition": "SELECT 1 AS x", "dialect": e}), LOAD),
    ("default-expression-second-statement",
     _set(lambda d: _col(d), "default", lambda e: {"kind": "expression", "value": f"'x'; {DROP}; --", "dialect": e}), REFUSE),
    ("default-expression-breakout",
     _set(lambda d: _col(d), "default", lambda e: {"kind": "expression", "value": "'x', pwned int", "dialect": e}), REFUSE),
    ("default-expression-comment",
     _set(lambda d: _col(d), "default", lambda e: {"kind": "expression", "value": "'x' -- swallow the rest", "dialect": e}), REFUSE),
    ("check-second-statement",
     _append(_t, "checks", lambda e: {"name": "c1", "expression": f"id > 0); {DROP}; SELECT (1", "dialect": e}), REFUSE),
    ("check-breakout",
     _append(_t, "checks", lambda e: {"name": "c1", "expression": "id > 0), pwned int, CHECK (1 = 1", "dialect": e}), REFUSE),
    ("generated-second-statement",
     _set(lambda d: _col(d), "generated", lambda e: {"expression": f"id); {DROP}; SELECT (1", "stored": True, "dialect": e}), REFUSE),
    ("index-expression",
     _append(_t, "indexes", lambda e: {"name": "ix1", "parts": [{"expression": f"id)); {DROP}; SELECT ((1"}], "dialect": e}), REFUSE),
    ("partial-index-predicate",
     _append(_t, "indexes", lambda e: {"name": "ix2", "parts": [{"column": "id"}], "where": f"id > 0; {DROP}", "dialect": e}), REFUSE),
    ("view-body-second-statement",
     _append(_schema, "views", lambda e: {"name": "v", "definition": f"SELECT 1 AS x; {DROP}", "dialect": e}), REFUSE),
    ("view-body-comment-hides-statement",
     _append(_schema, "views", lambda e: {"name": "v", "definition": f"SELECT 1 AS x /* */; {DROP}; /* */", "dialect": e}), REFUSE),
    ("native-type",
     _set(lambda d: _col(d), "native", lambda e: {"engine": e, "raw": f"int); {DROP}; CREATE TABLE x (i int"}), REFUSE),
    ("partition-key", _partitioned(f"id); {DROP}; SELECT (1", "LESS THAN (10)"), REFUSE),
    ("partition-bound", _partitioned("id", f"LESS THAN (10)); {DROP}; SELECT ((1"), REFUSE),
    ("routine-definition",
     _append(_schema, "routines", {"name": "r", "kind": "procedure", "definition": DROP}), REFUSE),
    ("trigger-definition",
     _append(_schema, "triggers", {"name": "g", "table": "t", "timing": "BEFORE", "events": ["INSERT"], "definition": PWN}), REFUSE),
    ("routine-second-statement",
     _append(_schema, "routines", lambda e: {"name": "r", "kind": "function", "definition":
             "CREATE FUNCTION r() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$; " + DROP if e == "postgresql"
             else "CREATE FUNCTION r() RETURNS int DETERMINISTIC RETURN 1; " + DROP}), REFUSE),
]
