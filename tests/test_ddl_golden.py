"""Golden DDL: every document × every target dialect, compared with tests/golden/*.sql.

Regenerate with ``DBJSON_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_ddl_golden.py`` (this also
re-dumps the torture documents in tests/golden/torture/ from the servers when they are reachable)
and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from ddl_fixtures import mysql_document, postgresql_document

from dbjson import model as m
from dbjson.schemaload import to_ddl

GOLDEN = Path(__file__).parent / "golden"
TORTURE = Path(__file__).parent / "torture"
UPDATE = os.environ.get("DBJSON_UPDATE_GOLDEN") == "1"
TARGETS = ("mysql", "mariadb", "postgresql", "sqlite")


def _rich(name: str) -> m.Database:
    return {
        "rich-mysql": lambda: mysql_document("mysql"),
        "rich-mariadb": lambda: mysql_document("mariadb"),
        "rich-postgresql": postgresql_document,
    }[name]()


def _torture(engine: str, fresh_db) -> m.Database:  # type: ignore[no-untyped-def]
    """The reflected torture document (committed; re-dumped from the server under UPDATE)."""
    path = GOLDEN / "torture" / f"{engine}.schema.json"
    if UPDATE:
        from dbjson import reflect

        db = fresh_db(engine)
        db.execute((TORTURE / f"{engine}.sql").read_text(encoding="utf-8"))
        doc = reflect(db.url)
        doc = m.replace(
            doc,
            source=m.replace(doc.source, database="torture", dumped_at="2026-01-01T00:00:00Z", host=None),
            schemas=tuple(m.replace(s, name="torture") if s.name == db.name else s for s in doc.schemas),
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(doc.to_json(), encoding="utf-8")
    if not path.exists():
        pytest.fail(f"{path} missing: run with DBJSON_UPDATE_GOLDEN=1")
    return m.Database.from_json(path.read_bytes(), filename=str(path))


def render(doc: m.Database, target: str) -> str:
    """The golden text: the DDL script, then the translation report as SQL comments."""
    plan = to_ddl(doc, target)
    lines = [plan.script().rstrip(), "", f"-- translation report: {len(plan.report.items)} item(s)"]
    lines += [f"-- {i.severity}: {i.path}: {i.lost} [{i.rule}]" for i in plan.report.items]
    return "\n".join(lines) + "\n"


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"{path} missing: run with DBJSON_UPDATE_GOLDEN=1")
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs from the golden file (DBJSON_UPDATE_GOLDEN=1 to accept)"
    )


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("doc", ["rich-mysql", "rich-mariadb", "rich-postgresql"])
def test_rich_documents(doc: str, target: str) -> None:
    _check(f"{doc}.{target}.sql", render(_rich(doc), target))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source", TARGETS)
def test_torture_documents(source: str, target: str, fresh_db) -> None:  # type: ignore[no-untyped-def]
    _check(f"torture-{source}.{target}.sql", render(_torture(source, fresh_db), target))


def test_golden_reports_are_json_serializable() -> None:
    plan = to_ddl(postgresql_document(), "mysql")
    data = orjson.loads(orjson.dumps(plan.report.to_dict()))
    assert data["counts"]["loss"] == len(plan.report.losses) > 0
    assert all(item["path"].startswith("/schemas/") for item in data["items"])
