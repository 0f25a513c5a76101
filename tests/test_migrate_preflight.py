"""`dbjson migrate`'s pre-flight filtered on the source server finds what the line-based pre-flight finds.

The same crafted source is checked twice against PostgreSQL: by ``dbjson migrate`` (the source
server returns only the rows that may fail a check, dbjson.preflight.source_filter) and by
``dbjson export`` + ``dbjson import`` (every line of the files read). Same findings, same tables,
columns and example values, in the same order; only the line numbers are the files'.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import migrate_and_files_findings

from dbjson import model as m
from dbjson.engines import get_engine
from dbjson.importer import Importer

# Values the PostgreSQL target cannot hold, none of them in the first rows, some twice (the
# example must be the first one in the table's order).
CRAFTED = r"""
SET SESSION sql_mode = '';
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), note TEXT, flag TINYINT(1), d DATE, dt DATETIME,
                el TIME, j JSON, e ENUM('a', 'b') );
INSERT INTO t VALUES
 (1, 'fine', 'fine', 1, '2024-01-02', '2024-01-02 03:04:05', '01:02:03', '{"a": 1}', 'a'),
 (2, CONCAT('a', CHAR(0), 'b'), 'ok', 0, '2024-01-02', '2024-01-02 03:04:05', '01:02:03', '[1]', 'b'),
 (3, 'x', CONCAT('n', CHAR(0)), 0, '0000-00-00', '2024-01-02 03:04:05', '-01:00:00', '{"k": "x\\u0000y"}', 'a'),
 (4, CONCAT(CHAR(0), 'second'), 'ok', 1, '2024-00-10', '2024-05-00 00:00:00', '25:00:00', '{"a\\u0000": 1}', 'b'),
 (5, 'y', 'ok', 1, '2024-01-02', '0000-00-00 00:00:00', '23:59:59', NULL, NULL);
CREATE TABLE clean (id INT PRIMARY KEY, v VARCHAR(10), d DATE);
INSERT INTO clean VALUES (1, 'x', '2024-01-01'), (2, 'y', NULL);
CREATE TABLE zeros (id BIGINT PRIMARY KEY, d DATE);
INSERT INTO zeros VALUES (10, '2024-01-01'), (20, '2024-02-00'), (30, '0000-00-00');
"""

NUL = "CONVERT(CHAR(0) USING utf8mb4)"


@pytest.mark.parametrize("source_engine", ["mariadb", "mysql"])
def test_source_filtered_preflight_finds_what_the_line_based_one_finds(
    fresh_db: Any, tmp_path: Path, source_engine: str
) -> None:
    src = fresh_db(source_engine)
    src.execute(CRAFTED)
    filtered: dict[str, Any] = {}

    def hook(imp: Importer) -> None:
        filtered["imp"] = imp

    live, live_err, files, files_err, out = migrate_and_files_findings(fresh_db, src, tmp_path, hook)
    assert live_err is not None and files_err is not None
    assert live == files
    assert str(live_err).split(";")[0] == str(files_err).split(";")[0]
    # every check of the crafted data was found, with the first failing row as example
    text = "\n".join(live)
    for expected in (
        "column name: a NUL character",
        "example 'a\\x00b'",
        "column note: a NUL character",
        "column j: a NUL character",
        "example {'k': 'x\\x00y'}",
        "column d: zero date",
        "example '0000-00-00'",
        "column dt: zero date",
        "example '2024-05-00T00:00:00'",
        "column el: an elapsed time",
        "example '-01:00:00'",
        "zeros, column d: zero date",
        "example '2024-02-00'",
    ):
        assert expected in text, (expected, live)
    assert "clean" not in text
    # the source did filter: every table with checks had a condition, none read in full
    imp = filtered["imp"]
    assert set(imp.filters) == {f"{src.name}.t", f"{src.name}.clean", f"{src.name}.zeros"}
    assert all(imp.filters.values())
    # and the live findings carry the unit's file but no line number (the files' ones do)
    assert all(f.file and f.line is None for f in imp.report.findings)


def test_preflight_reads_a_tables_other_units_ahead(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tables split into several units: while the pre-flight reads a table's first unit, its other
    units are read ahead on the other snapshot connection; the findings are the same as the
    line-based pre-flight's of an export split the same way, in the same order."""
    import importlib

    monkeypatch.setattr(importlib.import_module("dbjson.export"), "SPLIT_MIN_ROWS", 2)
    src = fresh_db("mariadb")
    src.execute(CRAFTED)
    kinds: list[str] = []

    def hook(imp: Importer) -> None:
        scan = imp.preflight_file

        def scanning(f: Any) -> Any:
            fh = scan(f)
            kinds.append(type(fh).__name__)
            return fh

        imp.preflight_file = scanning  # type: ignore[method-assign]

    live, live_err, files, files_err, out = migrate_and_files_findings(fresh_db, src, tmp_path, hook)
    assert live_err is not None and files_err is not None
    assert live == files and len(live) >= 7
    assert str(live_err).split(";")[0] == str(files_err).split(";")[0]
    assert "_FilteredRead" in kinds and "_Filtered" in kinds, kinds  # some read ahead, each table's first not
    assert len(list((out / "data").glob("*.t.*"))) > 1  # (t was split)


def _column(kind: str, **kw: Any) -> m.Column:
    return m.Column(name="c", ordinal=2, type=m.Type(kind=kind, **kw), native=m.NativeType(engine="mysql", raw=kind))


@pytest.mark.parametrize("source_engine", ["mariadb", "mysql"])
def test_every_condition_selects_the_failing_values(fresh_db: Any, source_engine: str) -> None:
    """Each pre-flight condition as MySQL SQL, evaluated by the server on values on both sides of the limit."""
    db = fresh_db(source_engine)
    engine = get_engine(source_engine)
    cases: list[tuple[str, str, m.Column, tuple[Any, ...], list[tuple[str, bool]]]] = [
        (
            "INT",
            "int",
            _column("integer", bits=32),
            ("int_outside", -5, 5),
            [("5", False), ("-5", False), ("6", True), ("-6", True)],
        ),
        (
            "BIGINT UNSIGNED",
            "int",
            _column("integer", bits=64, unsigned=True),
            ("int_outside", 0, 9223372036854775807),
            [("9223372036854775807", False), ("18446744073709551615", True)],
        ),
        (
            "VARCHAR(20)",
            "chars",
            _column("varchar", length=20),
            ("chars_over", 3),
            [("'abc'", False), ("'ééé'", False), ("'abcd'", True)],
        ),
        ("TEXT", "bytes", _column("text"), ("bytes_over", 4), [("'abcd'", False), ("'abé'", False), ("'abcé'", True)]),
        (
            "VARBINARY(10)",
            "binary",
            _column("varbinary", length=10),
            ("binary_over", 2),
            [("X'0000'", False), ("X'000000'", True)],
        ),
        (
            "TIME",
            "time",
            _column("time"),
            ("elapsed_time",),
            [("'23:59:59'", False), ("'00:00:00'", False), ("'24:00:00'", True), ("'-00:00:01'", True)],
        ),
        (
            "DATETIME",
            "zero",
            _column("timestamp", allows_zero=True),
            ("zero_date",),
            [
                ("'2024-01-01 00:00:00'", False),
                ("'0000-00-00 00:00:00'", True),
                ("'2024-00-01 00:00:00'", True),
                ("'2024-01-00 00:00:00'", True),
                ("'0000-01-01 00:00:00'", True),
            ],
        ),
        (
            "VARCHAR(10)",
            "nul",
            _column("varchar", length=10),
            ("nul",),
            [("'a0'", False), (f"CONCAT('a', {NUL})", True), (f"CONCAT({NUL}, 'b')", True)],
        ),
        (
            "JSON",
            "nul",
            _column("json"),
            ("nul",),
            [
                (f"JSON_OBJECT('a', CONCAT('x', {NUL}))", True),
                ("JSON_OBJECT('a', 'b')", False),
                (f"JSON_OBJECT(CONCAT('k', {NUL}), 1)", True),
                ("JSON_ARRAY(1, 'u0000')", False),
            ],
        ),
    ]
    for i, (sqltype, _label, column, cond, values) in enumerate(cases):
        table = f"c{i}"
        db.execute(
            f"SET SESSION sql_mode = '';\nCREATE TABLE {table} (id INT PRIMARY KEY, c {sqltype});\n"
            + "".join(f"INSERT INTO {table} VALUES ({n}, {v});\n" for n, (v, _) in enumerate(values))
        )
        sql = engine.preflight_condition(column, cond)
        assert sql is not None
        got = [int(r[0]) for r in db.query(f"SELECT id FROM {table} WHERE {sql} ORDER BY id")]
        assert got == [n for n, (_v, hit) in enumerate(values) if hit], (sqltype, cond, sql)


def test_every_condition_selects_the_failing_values_on_postgresql(fresh_db: Any) -> None:
    """Each pre-flight condition as PostgreSQL SQL: what PostgreSQL cannot hold (U+0000 in text or
    jsonb, zero dates) is FALSE, so a PostgreSQL source's pre-flight reads no row for it; the json
    type keeps its text, so \\u0000 escapes in it are still selected."""
    db = fresh_db("postgresql")
    engine = get_engine("postgresql")
    cases: list[tuple[str, m.Column, tuple[Any, ...], list[tuple[str, bool]]]] = [
        ("integer", _column("integer", bits=32), ("int_outside", -5, 5), [("5", False), ("6", True), ("-6", True)]),
        ("varchar(20)", _column("varchar", length=20), ("chars_over", 3), [("'ééé'", False), ("'abcd'", True)]),
        ("text", _column("text"), ("bytes_over", 4), [("'abé'", False), ("'abcé'", True)]),
        ("bytea", _column("blob"), ("binary_over", 2), [("'\\x0000'", False), ("'\\x000000'", True)]),
        ("timestamp", _column("timestamp"), ("zero_date",), [("'2024-01-01'", False)]),
        ("text", _column("text"), ("nul",), [("'a0'", False), ("'\\\\u0000'", False)]),
        ("jsonb", _column("json", binary=True), ("nul",), [('\'{"a": "b"}\'', False)]),
        ("json", _column("json"), ("nul",), [('\'{"a": "x\\u0000"}\'', True), ('\'{"a": "b"}\'', False)]),
    ]
    for i, (sqltype, column, cond, values) in enumerate(cases):
        table = f"c{i}"
        db.execute(
            f"CREATE TABLE {table} (id int PRIMARY KEY, c {sqltype});"
            + "".join(f"INSERT INTO {table} VALUES ({n}, {v});" for n, (v, _) in enumerate(values))
        )
        sql = engine.preflight_condition(column, cond)
        assert sql is not None
        got = [int(r[0]) for r in db.query(f"SELECT id FROM {table} WHERE {sql} ORDER BY id")]
        assert got == [n for n, (_v, hit) in enumerate(values) if hit], (sqltype, cond, sql)
