"""schema-load on real servers: same-engine fixpoints and every source → target pair.

* Same engine: dump → load into an empty database → dump gives the same document (source
  metadata, row estimates and the database name aside), for the torture schema and Chinook.
* Across engines: the translated torture and Chinook documents load without error, every column
  re-dumps with the standard type the plan announced (``DdlPlan.column_types``), and the tables
  are where ``DdlPlan.table_names`` says.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chinook import load_chinook
from conftest import ENGINES, FreshDatabase
from dbjson import model as m
from dbjson import reflect
from dbjson.ddl import load_schema, to_ddl

TORTURE = Path(__file__).parent / "torture"
CORPORA = ("torture", "chinook")
# Compared between the announced and the re-dumped type.
TYPE_FIELDS = ("kind", "bits", "length", "precision", "scale", "unsigned", "with_timezone", "fsp", "binary", "values")


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], m.Database]]:
    """Reflected source documents, made on first use and shared by the module's tests."""
    made: dict[tuple[str, str], m.Database] = {}
    dbs: list[FreshDatabase] = []

    class Cache(dict):  # type: ignore[type-arg]
        def __missing__(self, key: tuple[str, str]) -> m.Database:
            corpus, engine = key
            db = FreshDatabase(engine, tmp_path_factory.mktemp(engine))
            dbs.append(db)
            if corpus == "chinook":
                load_chinook(db)
            else:
                db.execute((TORTURE / f"{engine}.sql").read_text(encoding="utf-8"))
            doc = reflect(db.url)
            self[key] = doc
            return doc

    cache = Cache(made)
    try:
        yield cache
    finally:
        for db in dbs:
            db.drop()


def comparable(doc: m.Database) -> dict[str, Any]:
    """The document without what legitimately differs between two databases."""
    data = doc.to_dict()
    data.pop("source")
    for schema in data["schemas"]:
        if doc.source.engine in ("mysql", "mariadb") and schema["name"] == doc.source.database:
            schema["name"] = "<database>"
        for table in schema.get("tables", []):
            table.pop("row_estimate", None)
    return data


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """JSON paths where two documents differ (readable assertion output)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in differences(a.get(k), b.get(k), f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}/{i}")]
    return [] if a == b else [f"{path}: {str(a)[:150]} != {str(b)[:150]}"]


@pytest.mark.parametrize("corpus", CORPORA)
def test_same_engine_round_trip_is_a_fixpoint(engine: str, corpus: str, sources: Any, fresh_db: Any) -> None:
    doc = sources[(corpus, engine)]
    target = fresh_db(engine)
    result = load_schema(doc, target.url)
    assert not result.plan.report.items, [str(i) for i in result.plan.report.items]
    assert differences(comparable(doc), comparable(reflect(target.url))) == []


def _announced_vs_dumped(plan: Any, dumped: m.Database) -> list[str]:
    got = {(t.name, c.name): c.type for s in dumped.schemas for t in s.tables for c in t.columns}
    problems = []
    for (schema, table, column), announced in plan.column_types.items():
        tname = plan.table_names[(schema, table)][1]
        cname = plan.column_names[(schema, table, column)]
        typ = got.get((tname, cname))
        if typ is None:
            problems.append(f"{tname}.{cname} missing")
            continue
        if announced.kind == "boolean" and plan.target in ("mysql", "mariadb") and (typ.kind, typ.bits) == ("integer", 8):
            continue  # docs/types.md decision 4: booleans are tinyint(1), which reflects as an integer
        diff = {f: (getattr(announced, f), getattr(typ, f)) for f in TYPE_FIELDS if getattr(announced, f) != getattr(typ, f)}
        if diff:
            problems.append(f"{tname}.{cname}: {diff}")
    return problems


@pytest.mark.parametrize("target", ENGINES)
@pytest.mark.parametrize("source", ENGINES)
@pytest.mark.parametrize("corpus", CORPORA)
def test_cross_engine_load(corpus: str, source: str, target: str, sources: Any, fresh_db: Any) -> None:
    if source == target:
        pytest.skip("same engine: see test_same_engine_round_trip_is_a_fixpoint")
    doc = sources[(corpus, source)]
    db = fresh_db(target)
    result = load_schema(doc, db.url)
    plan = result.plan
    assert not result.rejected, [str(i) for i in plan.report.items if i.rule == "trial-execution"]
    dumped = reflect(db.url)
    tables = {t.name for s in dumped.schemas for t in s.tables}
    assert {name for _, name in plan.table_names.values()} == tables
    assert _announced_vs_dumped(plan, dumped) == []
    if corpus == "chinook":
        assert not plan.report.losses, [str(i) for i in plan.report.losses]
