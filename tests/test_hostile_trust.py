"""Inputs that try to reach outside themselves (issue 16, items 5 and 7-11); docs/security.md.

* state files read back (``migrate --resume``'s plan, the import journal) are data only: a planted
  pickle never runs, a tampered or garbled file is a clear error naming it;
* every manifest field is validated before anything loads;
* paths stay inside the export directory, symlinks too;
* a type spelling is a type, a definition creates exactly the object its entry names;
* a line's memory is bounded (a decompression bomb, one endless line).

Counts per category go to tests/.reliability/hostile.json (via test_hostile.record), which
docs/security.md quotes.
"""

from __future__ import annotations

import datetime as dt
import decimal
import pickle
import shutil
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from chinook import load_chinook
from test_hostile import assert_clean_failure, cli, record
from test_migrate import _interrupt_on_fourth_unit

from dbjson.errors import Cancelled, DataError, DocumentError
from dbjson.format.savedstate import decode_values, encode_values
from dbjson.migrate import migrate

# ---------------------------------------------------------------------------------------------
# Item 7: state files are data, never code
# ---------------------------------------------------------------------------------------------


class _Plant:
    """A pickle that, when loaded, creates the file ``marker`` (what a planted state file could do)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_saved_key_values_round_trip_their_types() -> None:
    values = (
        1,
        -(2**70),
        "ä'\"\\",
        b"\x00\xff",
        decimal.Decimal("-12.3400"),
        0.1,
        True,
        dt.datetime(2024, 2, 29, 23, 59, 59, 999999, tzinfo=dt.UTC),
        dt.datetime(2024, 1, 1),
        dt.date(1, 1, 1),
        dt.time(12, 0, 1, 5),
        dt.timedelta(hours=-838, seconds=1),
        uuid.UUID(int=7),
        None,
    )
    back = decode_values(orjson.loads(orjson.dumps(encode_values(values))), file="f", pointer="/x")
    assert back == values and [type(v) for v in back] == [type(v) for v in values]
    for bad in ([["int", "1e9"]], [["pickle", "x"]], [["bytes", "@@"]], [["date", "2024-13-01"]], [1], "x"):
        with pytest.raises(DocumentError) as e:
            decode_values(bad, file="plan.json", pointer="/units/0/lower")
        assert e.value.file == "plan.json" and (e.value.pointer or "").startswith("/units/0/lower")


def test_migrate_resume_never_unpickles_and_refuses_a_tampered_plan(fresh_db: Any, tmp_path: Path) -> None:
    src, dst = fresh_db("sqlite"), fresh_db("sqlite")
    load_chinook(src)
    state = tmp_path / "state"
    with pytest.raises(Cancelled):
        migrate(src.url, dst.url, threads=1, state_dir=state, importer_hook=_interrupt_on_fourth_unit)
    plan = state / "migrate-plan.json"
    assert plan.is_file() and not list(state.glob("*.pickle"))
    good = plan.read_bytes()
    doc = orjson.loads(good)
    assert doc["format"] == "dbjson-migrate-plan"

    # A planted pickle, under the old name and under the new one, never runs.
    marker = tmp_path / "pwned"
    (state / "migrate-plan.pickle").write_bytes(pickle.dumps(_Plant(marker)))
    plan.write_bytes(pickle.dumps(_Plant(marker)))
    r = cli("migrate", src.url, dst.url, "--state-dir", str(state), "--resume", "-q")
    assert_clean_failure(r, 4)
    assert str(plan) in r.stderr and "not valid JSON" in r.stderr, r.stderr
    assert not marker.exists()
    cases = 1

    # Tampered plans: each a DocumentError naming the file (and where).
    def tampered(edit: Any) -> dict[str, Any]:
        d = orjson.loads(good)
        edit(d)
        return d  # type: ignore[no-any-return]

    edits = {
        "rows-as-text": lambda d: d["units"][0].update(rows_estimate="10"),
        "unknown-tag": lambda d: d["units"][0].update(lower=[["pickle", "gASV"]], key_columns=["x"]),
        "extra-key": lambda d: d.update(code="__import__('os')"),
        "unit-dropped": lambda d: d["units"].pop(),
        "unit-twice": lambda d: d["units"].append(d["units"][0]),
        "index-out-of-range": lambda d: d["units"][0].update(index=5),
        "unknown-table": lambda d: d["units"][0].update(table="elsewhere"),
        "not-an-object": lambda d: d.clear(),
    }
    for name, edit in edits.items():
        plan.write_bytes(orjson.dumps(tampered(edit) if name != "not-an-object" else [1, 2]))
        with pytest.raises(DocumentError) as e:
            migrate(src.url, dst.url, threads=1, state_dir=state, resume=True)
        assert e.value.file == str(plan), (name, e.value)
        cases += 1
    plan.write_bytes(good[: len(good) // 2])  # garbled (cut) file
    with pytest.raises(DocumentError, match="not valid JSON"):
        migrate(src.url, dst.url, threads=1, state_dir=state, resume=True)
    cases += 1

    # A tampered journal record is a clear error too (not an internal one).
    journal = next(state.glob(".dbjson-import-*.journal"))
    kept = journal.read_bytes()
    journal.write_bytes(kept + b'{"op":"done","step":"data:x","rows":"10"}\n{"op":"done","step":"y"}\n')
    plan.write_bytes(good)
    with pytest.raises(DataError, match="corrupt import journal line: 'rows' is not a count"):
        migrate(src.url, dst.url, threads=1, state_dir=state, resume=True)
    cases += 1
    journal.write_bytes(kept)

    # The genuine plan still resumes.
    report = migrate(src.url, dst.url, threads=1, state_dir=state, resume=True)
    assert report.load.verify is not None and report.load.verify.ok
    assert not marker.exists()
    record("planted or tampered state files (migrate plan, journal)", cases, cases, 0)
    shutil.rmtree(state)


# ---------------------------------------------------------------------------------------------
# Item 11: every manifest field is validated before anything loads
# ---------------------------------------------------------------------------------------------

MANIFEST_EDITS: list[tuple[str, Any, str]] = [
    ("table-rows-as-text", lambda m_: m_["tables"][0].update(rows="10"), "/tables/0/rows"),
    ("file-rows-as-text", lambda m_: m_["tables"][0]["files"][0].update(rows="10"), "/tables/0/files/0/rows"),
    ("file-rows-negative", lambda m_: m_["tables"][0]["files"][0].update(rows=-1), "/tables/0/files/0/rows"),
    ("file-rows-float", lambda m_: m_["tables"][0]["files"][0].update(rows=1.5), "/tables/0/files/0/rows"),
    ("bytes-as-text", lambda m_: m_["tables"][0]["files"][0].update(bytes="12"), "/tables/0/files/0/bytes"),
    ("checksum-a-number", lambda m_: m_["tables"][0].update(checksum=12), "/tables/0/checksum"),
    ("file-checksum-list", lambda m_: m_["tables"][0]["files"][0].update(checksum=[1]), "/tables/0/files/0/checksum"),
    ("xxh128-not-hex", lambda m_: m_["tables"][0]["files"][0].update(xxh128="zz"), "/tables/0/files/0/xxh128"),
    ("columns-a-string", lambda m_: m_["tables"][0].update(columns="id,name"), "/tables/0/columns"),
    ("columns-twice", lambda m_: m_["tables"][0]["columns"].append("id"), "/tables/0/columns"),
    ("name-a-number", lambda m_: m_["tables"][0].update(name=7), "/tables/0/name"),
    ("compression-unknown", lambda m_: m_.update(compression="lzma"), "/compression"),
    ("format-version-number", lambda m_: m_.update(format_version=1.2), "/format_version"),
    ("unknown-field", lambda m_: m_["tables"][0].update(sql="DROP TABLE x"), "/tables/0/sql"),
    ("snapshot-a-string", lambda m_: m_.update(snapshot="x"), "/snapshot"),
    (
        "file-listed-twice",
        lambda m_: m_["tables"][0]["files"].append(dict(m_["tables"][0]["files"][0])),
        "/tables/0/files/1/path",
    ),
    ("table-listed-twice", lambda m_: m_["tables"].append(m_["tables"][0]), "/tables/1/name"),
    ("rows-not-the-files-sum", lambda m_: m_["tables"][0].update(rows=m_["tables"][0]["rows"] + 1), "/tables/0/rows"),
    (
        "key-range-columns-text",
        lambda m_: m_["tables"][0]["files"][0].update(key_range={"columns": "id"}),
        "/tables/0/files/0/key_range/columns",
    ),
]


def test_every_manifest_field_is_validated_before_loading(fresh_db: Any, tmp_path: Path) -> None:
    from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

    from dbjson.importer import import_database

    target = target_with(fresh_db, "sqlite", ITEMS_DDL)
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(9)})
    good = (export / "manifest.json").read_bytes()
    for case, edit, pointer in MANIFEST_EDITS:
        doc = orjson.loads(good)
        edit(doc)
        (export / "manifest.json").write_bytes(orjson.dumps(doc))
        with pytest.raises(DocumentError) as e:
            import_database(export, target.url, data_only=True, threads=1)
        assert e.value.file == str(export / "manifest.json"), (case, e.value)
        assert e.value.pointer == pointer, (case, str(e.value))
        assert target.query("SELECT COUNT(*) FROM items") == [(0,)], case  # nothing loaded
    # Through the CLI: exit 4 (a document error), the file and the field named, no traceback.
    doc = orjson.loads(good)
    doc["tables"][0]["rows"] = "10"
    (export / "manifest.json").write_bytes(orjson.dumps(doc))
    r = cli("import", str(export), target.url, "--data-only", "-q")
    assert_clean_failure(r, 4)
    assert "manifest.json" in r.stderr and "/tables/0/rows" in r.stderr, r.stderr
    assert target.query("SELECT COUNT(*) FROM items") == [(0,)]
    # A hand-made manifest (no checksums, sizes, format fields) still loads.
    (export / "manifest.json").write_bytes(
        orjson.dumps({"tables": {"shop.items": {"files": ["data/shop.items.jsonl"]}}})
    )
    report = import_database(export, target.url, data_only=True, threads=1, verify=False)
    assert report.rows == 10
    record("wrongly typed or inconsistent manifest fields", len(MANIFEST_EDITS) + 1, len(MANIFEST_EDITS) + 1, 0)
