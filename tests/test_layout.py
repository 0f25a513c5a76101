"""Project layout rules that keep the package installable and the data dirs data-only."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_python_in_data_dirs() -> None:
    # A jsonschema/__init__.py would shadow the jsonschema library; dialects/ is data only.
    for d in ("jsonschema", "dialects"):
        assert not list((ROOT / d).rglob("*.py")), f"{d}/ must hold data files only"


def test_json_schemas_have_ids() -> None:
    import json

    for path in (ROOT / "jsonschema").glob("*.json"):
        doc = json.loads(path.read_text())
        assert doc.get("$schema") == "https://json-schema.org/draft/2020-12/schema", path.name
        assert doc.get("$id", "").endswith(path.name), path.name


def test_resources_resolve_from_checkout() -> None:
    from dbjson.resources import data_dir

    assert data_dir("jsonschema") == ROOT / "jsonschema" or (data_dir("jsonschema") / "README.md").exists()
