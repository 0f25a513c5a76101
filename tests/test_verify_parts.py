"""``dbjson verify`` reads a large table with a one-column integer key in parts (key modulo the
number of worker processes), one per worker process: the parts' checksums add up to exactly the
whole table's (negative keys included), and a difference is still found."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

import pytest
from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

from dbjson.importer import import_database
from dbjson.importer.session import connect_target

V = importlib.import_module("dbjson.verify")  # the module (dbjson.verify is also the function's name)


def _loaded(fresh_db: Any, engine: str, tmp_path: Path, n: int = 60) -> tuple[Path, Any]:
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(n)})
    target = target_with(fresh_db, engine, ITEMS_DDL)
    import_database(export, target.url, data_only=True, threads=1, verify=False)
    return export, target


def _spy_ranges(monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, Any]], list[str]]:
    """Record verify's target reads: (table, key bounds or None) per sum, and each whole-table check."""
    spans: list[tuple[str, Any]] = []
    whole: list[str] = []
    real_sum, real_check = V._target_sum, V.check_table

    def ranged(*a: Any, **k: Any) -> Any:
        spans.append((a[2].display, a[5] if len(a) > 5 else k.get("bounds")))
        return real_sum(*a, **k)

    def counting(eng: Any, conn: Any, tp: Any, *a: Any, **k: Any) -> Any:
        whole.append(tp.display)
        return real_check(eng, conn, tp, *a, **k)

    monkeypatch.setattr(V, "_target_sum", ranged)
    monkeypatch.setattr(V, "check_table", counting)
    return spans, whole


@pytest.mark.parametrize("engine", ["postgresql", "mysql"])
def test_parts_add_up_to_the_whole(fresh_db: Any, tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    export, target = _loaded(fresh_db, engine, tmp_path)
    target.execute("INSERT INTO items (id, name) VALUES (-7, 'minus seven'), (-2, 'minus two'), (0, 'zero')")
    seen: list[tuple[Any, Any, Any]] = []
    original = V.check_table

    def capture(eng: Any, conn: Any, tp: Any, *a: Any, **k: Any) -> Any:
        seen.append((eng, conn, tp))
        return original(eng, conn, tp, *a, **k)

    monkeypatch.setattr(V, "check_table", capture)
    report = V.verify(export, target.url, threads=1)
    assert not report.ok  # three rows more than the manifest
    eng, _conn, tp = seen[0]
    assert V.part_key(eng, tp) == "id"
    conn = eng.load_connect(connect_target(target.url)[0])
    try:
        whole = V.target_checksum(eng, conn, tp)
        for n in (2, 3):
            parts = [V.target_checksum(eng, conn, tp, ("id", k, n)) for k in range(n)]
            assert all(p.rows > 0 for p in parts)
            assert sum(p.rows for p in parts) == whole.rows == 64
            assert sum(p.value for p in parts) % 2**64 == whole.value
    finally:
        eng.load_disconnect(conn)


_ORIGINAL_CHECK_PART = V._check_part


def _marked(*args: Any) -> tuple[int, int]:
    """``_check_part`` leaving a file per part (it runs in a forked worker, which has the patch)."""
    (Path(os.environ["DBJSON_TEST_PARTS"]) / str(args[4][1])).touch()
    return _ORIGINAL_CHECK_PART(*args)  # type: ignore[no-any-return]


_IN_WORKERS = r"""
import importlib, os, sys
from pathlib import Path
sys.path.insert(0, os.environ["DBJSON_TEST_DIR"])
import test_verify_parts as T
from dbjson.importer import encoders
V = importlib.import_module("dbjson.verify")
encoders.PROCESS_MIN_BYTES = 0
V.PART_MIN_ROWS = 0
V._check_part = T._marked
V.exact_check = lambda *a, **k: None  # the full check, in parts
report = V.verify(sys.argv[1], sys.argv[2], threads=2)
print("ok" if report.ok else "FAILED " + "; ".join(report.problems))
"""


def _verify_in_a_process_of_its_own(export: Path, url: str, marker: Path) -> str:
    """Verify in a new interpreter: a thread another test left in this one (a Dask client's, an
    object store's event loop) rightly keeps verify from forking its worker processes."""
    import subprocess
    import sys

    env = dict(os.environ, DBJSON_TEST_PARTS=str(marker), DBJSON_TEST_DIR=str(Path(__file__).parent))
    proc = subprocess.run(
        [sys.executable, "-c", _IN_WORKERS, str(export), url], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


def test_verify_in_worker_processes(fresh_db: Any, tmp_path: Path) -> None:
    export, target = _loaded(fresh_db, "postgresql", tmp_path)
    marker = tmp_path / "parts"
    marker.mkdir()
    assert _verify_in_a_process_of_its_own(export, target.url, marker) == "ok"
    assert sorted(p.name for p in marker.iterdir()) == ["0", "1"]  # both parts were read by workers
    target.execute("UPDATE items SET name = 'changed' WHERE id = 8")
    out = _verify_in_a_process_of_its_own(export, target.url, marker)
    assert out.startswith("FAILED") and "checksum" in out


@pytest.mark.parametrize("engine", ["postgresql", "mariadb", "mysql", "sqlite"])
def test_exact_check_by_the_targets_export(
    fresh_db: Any, tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table whose target rows export to exactly the manifest's lines is verified by the target's
    own export path (no re-encoding in Python); any difference falls through to the full check,
    which reports it."""
    export, target = _loaded(fresh_db, engine, tmp_path)
    full: list[str] = []
    original = V.check_table

    def counting(eng: Any, conn: Any, tp: Any, *a: Any, **k: Any) -> Any:
        full.append(tp.display)
        return original(eng, conn, tp, *a, **k)

    monkeypatch.setattr(V, "check_table", counting)
    report = V.verify(export, target.url, threads=1)
    assert report.ok, report.problems
    assert full == [] and [t.mode for t in report.tables] == ["checksum"]
    q = "`" if engine in ("mysql", "mariadb") else '"'
    target.execute(f"UPDATE {q}items{q} SET {q}name{q} = 'changed' WHERE {q}id{q} = 8")
    report = V.verify(export, target.url, threads=1)
    assert not report.ok and "content checksum" in report.problems[0]
    assert len(full) == 1  # the exact path could not confirm it: the full check ran and reported


def test_big_same_engine_table_verified_in_key_ranges(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big table of a same-engine import is checked by the target's own export in key ranges on
    every thread: ranges cut on the target that cover the whole key space (first open below, last
    open above, each starting where the one before ends), their checksums added. A changed row
    in one range still fails the table, reported by the whole-table check."""
    from dbjson.export import export_database

    monkeypatch.setattr(V, "SPLIT_VERIFY_ROWS", 100)
    src = fresh_db("postgresql")
    src.execute(
        "CREATE TABLE ev (id bigint PRIMARY KEY, doc jsonb, body text);\n"
        "INSERT INTO ev SELECT g * 7 - 500, jsonb_build_object('n', g, 'tags', ARRAY['a', 'ü']), "
        "CASE WHEN g % 5 = 0 THEN NULL ELSE repeat('x\tY\n', g % 9) END FROM generate_series(1, 1000) g;"
    )
    out = tmp_path / "out"
    export_database(src.url, out, threads=2)
    dst = fresh_db("postgresql")
    import_database(out, dst.url, threads=2, verify=False)
    spans, whole = _spy_ranges(monkeypatch)
    report = V.verify(out, dst.url, threads=2)
    assert report.ok, report.problems
    assert [t.mode for t in report.tables] == ["checksum"] and whole == []
    bounds = sorted((b for _, b in spans if b is not None), key=lambda b: (b[0] is not None, b[0] or (0,)))
    assert len(bounds) == 2 * V.RANGES_PER_THREAD
    assert bounds[0][0] is None and bounds[-1][1] is None
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))  # contiguous: every key in one range
    dst.execute("UPDATE ev SET body = 'changed' WHERE id = 7 * 500 - 500")
    report = V.verify(out, dst.url, threads=2)
    assert not report.ok and "content checksum" in report.problems[0]
    assert whole == ["public.ev"]  # the ranges could not confirm it: the whole-table check reported


@pytest.mark.parametrize("engine", ["mysql", "mariadb"])
def test_key_ranges_on_mysql_family(
    fresh_db: Any, tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key-range check of a big same-engine table on MySQL and MariaDB: verified in ranges,
    and a changed row found and reported."""
    from dbjson.export import export_database

    monkeypatch.setattr(V, "SPLIT_VERIFY_ROWS", 100)
    src = fresh_db(engine)
    values = ", ".join(f"({i * 7 - 500}, 'body {i}\\t\\\\x', '{{\"n\": {i}}}')" for i in range(1, 1001))
    src.execute(f"CREATE TABLE ev (id bigint PRIMARY KEY, body text, doc json);\nINSERT INTO ev VALUES {values};")
    out = tmp_path / "out"
    export_database(src.url, out, threads=2)
    dst = fresh_db(engine)
    import_database(out, dst.url, threads=2, verify=False)
    spans: list[Any] = []
    real_sum = V._target_sum

    def ranged(*a: Any, **k: Any) -> Any:
        spans.append(a[5] if len(a) > 5 else k.get("bounds"))
        return real_sum(*a, **k)

    monkeypatch.setattr(V, "_target_sum", ranged)
    report = V.verify(out, dst.url, threads=2)
    assert report.ok, report.problems
    assert len([s for s in spans if s is not None]) == 2 * V.RANGES_PER_THREAD
    dst.execute("UPDATE ev SET body = 'changed' WHERE id = 7 * 500 - 500")
    report = V.verify(out, dst.url, threads=2)
    assert not report.ok and "content checksum" in report.problems[0]


def test_cross_engine_table_under_value_rules_verified_in_key_ranges(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big MariaDB table loaded into PostgreSQL with zero dates as NULL, without by-meaning
    columns: its lines match byte for byte under the rule, so it is checked in key ranges too, the
    export's side through the rule alongside; a changed value (a date, or a zero date that is not
    NULL) still fails it, reported by the whole-table check. A table with a JSON column (compared by
    meaning across engines) is checked whole."""
    from dbjson.export import export_database

    monkeypatch.setattr(V, "SPLIT_VERIFY_ROWS", 100)
    src = fresh_db("mariadb")
    values = ", ".join(
        f"({i * 7 - 500}, 'body {i}', {'NULL' if i % 3 else repr('0000-00-00' if i % 2 else '2024-02-29')})"
        for i in range(1, 1001)
    )
    docs = ", ".join(f'({i}, \'{{"b": {i}, "a": [1.50]}}\')' for i in range(1, 301))
    src.execute(
        "SET SESSION sql_mode = '';\n"
        f"CREATE TABLE ev (id bigint PRIMARY KEY, body text, d date NULL);\nINSERT INTO ev VALUES {values};\n"
        f"CREATE TABLE docs (id int PRIMARY KEY, doc json);\nINSERT INTO docs VALUES {docs};"
    )
    out = tmp_path / "out"
    export_database(src.url, out, threads=2)
    dst = fresh_db("postgresql")
    import_database(out, dst.url, threads=2, verify=False, zero_dates="null")
    spans, whole = _spy_ranges(monkeypatch)
    report = V.verify(out, dst.url, threads=2)
    assert report.ok, report.problems
    ev = next(t for t in report.tables if t.table.endswith(".ev"))
    assert ev.rules == {"d": "zero-null"} and whole == []
    assert len([b for name, b in spans if name.endswith(".ev") and b is not None]) == 2 * V.RANGES_PER_THREAD
    assert all(b is None for name, b in spans if name.endswith(".docs"))  # by meaning: whole
    changes = [  # (row i = 6 holds 2024-02-29; row i = 3 a zero date, NULL in the target)
        (
            "UPDATE ev SET d = '2024-03-01' WHERE id = 6 * 7 - 500",
            "UPDATE ev SET d = '2024-02-29' WHERE id = 6 * 7 - 500",
        ),
        ("UPDATE ev SET d = '2000-01-01' WHERE id = 3 * 7 - 500", "UPDATE ev SET d = NULL WHERE id = 3 * 7 - 500"),
    ]
    for change, back in changes:
        whole.clear()
        dst.execute(change)
        report = V.verify(out, dst.url, threads=2)
        assert not report.ok and "content checksum" in report.problems[0], change
        assert [w for w in whole if w.endswith(".ev")], change  # the ranges could not confirm it: the whole check
        dst.execute(back)
    assert V.verify(out, dst.url, threads=2).ok
