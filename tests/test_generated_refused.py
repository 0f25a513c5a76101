"""Issue 15: generated columns and expression indexes PostgreSQL refuses as not immutable.

A MySQL/MariaDB generated column over an ENUM (``CONCAT(status, '-x')``, ``status + 0``) or a
SQLite one concatenating a number (``n || '-x'``) translates to an expression PostgreSQL refuses
in a generated column (enum casts and ``anynonarray || text`` are not IMMUTABLE; ``enum + integer``
does not exist): the schema load failed and the whole migrate with it. The PostgreSQL DDL now
creates such a column as a plain column whose values the rows load (the export carries them),
reported with its JSON pointer (rule ``generated-refused``); an expression index the target
refuses is skipped by the trial execution and reported.
"""

from __future__ import annotations

from typing import Any

import pytest

from dbjson.migrate import migrate

MYSQL_TABLE = (
    "CREATE TABLE t (id INT PRIMARY KEY, status ENUM('new','done') NOT NULL, n INT,"
    " g VARCHAR(20) AS (CONCAT(status, '-x')) STORED,"
    " v INT AS (status + 0) VIRTUAL,"
    " s VARCHAR(30) AS (CONCAT(n, '-', status)) VIRTUAL{index})"
)
ROWS = "INSERT INTO t (id, status, n) VALUES (1, 'new', 7), (2, 'done', NULL), (3, 'done', -1)"
EXPECTED = [(1, "new-x", 1, "7-new"), (2, "done-x", 2, None), (3, "done-x", 2, "-1-done")]


def _translation(report: Any) -> list[str]:
    return [str(i) for i in report.load.translation]


@pytest.mark.parametrize("source", ["mysql", "mariadb"])
def test_enum_generated_columns_to_postgresql(source: str, fresh_db: Any) -> None:
    src = fresh_db(source)
    # MySQL: a functional index over the enum; MariaDB (no functional index): an index on the VIRTUAL column
    src.execute(
        MYSQL_TABLE.format(index=", KEY ix_e ((CONCAT(status, '!')))" if source == "mysql" else ", KEY ix_v (v)")
    )
    src.execute(ROWS)
    assert [tuple(r) for r in src.query("SELECT id, g, v, s FROM t ORDER BY id")] == EXPECTED
    dst = fresh_db("postgresql")
    report = migrate(src.url, dst.url, threads=2)
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems
    assert [tuple(r) for r in dst.query("SELECT id, g, v, s FROM public.t ORDER BY id")] == EXPECTED
    notes = _translation(report)
    for i in (3, 4, 5):  # g, v, s: each named by its pointer
        assert any(
            n.startswith(f"/schemas/0/tables/0/columns/{i}/generated:") and "generated-refused" in n for n in notes
        ), notes
    if source == "mysql":  # the functional index: refused by the target, skipped and reported
        assert any(n.startswith("/schemas/0/tables/0/indexes/") and "refused" in n for n in notes), notes


def test_sqlite_generated_text_of_a_date_to_postgresql(fresh_db: Any) -> None:
    src = fresh_db("sqlite")
    src.execute(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, d DATE,"
        " g TEXT GENERATED ALWAYS AS (d || ' 00:00') STORED, h TEXT GENERATED ALWAYS AS (n || '!') VIRTUAL)"
    )
    src.execute("INSERT INTO t (id, n, d) VALUES (1, 5, '2024-02-29'), (2, NULL, '1999-12-31'), (3, -2, NULL)")
    dst = fresh_db("postgresql")
    report = migrate(src.url, dst.url, threads=1)
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems
    assert [tuple(r) for r in dst.query("SELECT id, g, h FROM public.t ORDER BY id")] == [
        (1, "2024-02-29 00:00", "5!"),
        (2, "1999-12-31 00:00", None),
        (3, None, "-2!"),
    ]
    notes = _translation(report)
    assert any(n.startswith("/schemas/0/tables/0/columns/3/generated:") and "generated-refused" in n for n in notes), (
        notes
    )
    # bigint || text is immutable (int8out is): that one stays a generated column
    assert not any("columns/4/generated:" in n for n in notes), notes
    kinds = dict(dst.query("SELECT column_name, is_generated FROM information_schema.columns WHERE table_name = 't'"))
    assert kinds["g"] == "NEVER" and kinds["h"] == "ALWAYS"


@pytest.mark.parametrize("source", ["mysql", "mariadb", "sqlite"])
def test_generated_column_over_a_generated_column_to_postgresql(source: str, fresh_db: Any) -> None:
    """MySQL, MariaDB and SQLite take a generated column over an earlier one; PostgreSQL does not
    ("cannot use generated column in column generation expression")."""
    src = fresh_db(source)
    key = "INTEGER" if source == "sqlite" else "INT"
    src.execute(
        f"CREATE TABLE t (id {key} PRIMARY KEY, a INT, b INT GENERATED ALWAYS AS (a * 2) STORED,"
        " c INT GENERATED ALWAYS AS (b + 1) VIRTUAL)"
    )
    src.execute("INSERT INTO t (id, a) VALUES (1, 3), (2, NULL)")
    dst = fresh_db("postgresql")
    report = migrate(src.url, dst.url, threads=1)
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems
    assert [tuple(r) for r in dst.query("SELECT id, b, c FROM public.t ORDER BY id")] == [(1, 6, 7), (2, None, None)]
    notes = _translation(report)
    assert any(n.startswith("/schemas/0/tables/0/columns/3/generated:") and "generated-refused" in n for n in notes)
    kinds = dict(dst.query("SELECT column_name, is_generated FROM information_schema.columns WHERE table_name = 't'"))
    assert kinds["b"] == "ALWAYS" and kinds["c"] == "NEVER"


@pytest.mark.parametrize("source", ["mysql", "mariadb", "sqlite"])
def test_generated_comparison_in_a_number_column_to_postgresql(source: str, fresh_db: Any) -> None:
    """A comparison is a number in MySQL, MariaDB and SQLite and a boolean in PostgreSQL, which
    refused it in an integer generated column ("is of type integer but default expression is of
    type boolean"): it is cast to integer, and stays a generated column (an enum in a comparison
    too: enum = label is immutable)."""
    src = fresh_db(source)
    if source == "sqlite":
        src.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, status TEXT, y INT GENERATED ALWAYS AS (status = 'new') STORED)"
        )
    else:
        src.execute("CREATE TABLE t (id INT PRIMARY KEY, status ENUM('new','done'), y INT AS (status = 'new') VIRTUAL)")
    src.execute("INSERT INTO t (id, status) VALUES (1, 'new'), (2, 'done'), (3, NULL)")
    dst = fresh_db("postgresql")
    report = migrate(src.url, dst.url, threads=1)
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems
    assert [tuple(r) for r in dst.query("SELECT id, y FROM public.t ORDER BY id")] == [(1, 1), (2, 0), (3, None)]
    kinds = dict(dst.query("SELECT column_name, is_generated FROM information_schema.columns WHERE table_name = 't'"))
    assert kinds["y"] == "ALWAYS"
