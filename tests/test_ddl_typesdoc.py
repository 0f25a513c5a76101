"""docs/types.md is generated from dialects/*.toml, which validate against jsonschema/dialect.json."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import jsonschema
from dbjson.model import TYPE_KINDS
from dbjson.resources import dialect_table, json_schema

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # tools/ is a top-level folder of the repository, not part of the package
    sys.path.insert(0, str(ROOT))

from tools.docgen import typesdoc

ENGINES = ("mysql", "mariadb", "postgresql", "sqlite")


def test_committed_types_md_is_up_to_date() -> None:
    assert typesdoc.default_path().read_text(encoding="utf-8") == typesdoc.render(), (
        "docs/types.md is stale: run .venv/bin/python -m tools.docgen.typesdoc"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_dialect_table_is_valid(engine: str) -> None:
    table = dialect_table(engine)
    errors = sorted(jsonschema.Draft202012Validator(json_schema("dialect.json")).iter_errors(table), key=str)
    assert [f"{list(e.absolute_path)}: {e.message}" for e in errors] == []
    assert table["name"] == engine


@pytest.mark.parametrize("engine", ENGINES)
def test_every_standard_kind_has_a_fallback_rule(engine: str) -> None:
    types = dialect_table(engine)["types"]
    assert set(types) == set(TYPE_KINDS)
    for kind, rules in types.items():
        assert "when" not in rules[-1], f"{engine}: the last {kind} rule must be unconditional"


def test_check_mode_reports_staleness(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    stale = tmp_path / "types.md"
    stale.write_text("old")
    monkeypatch.setattr(typesdoc, "default_path", lambda: stale)
    assert typesdoc.main(["--check"]) == 1
    assert typesdoc.main([]) == 0 and typesdoc.main(["--check"]) == 0
