"""Zero dates (MySQL ``0000-00-00``) into targets without them (QA B17 and the NOT NULL case):
``--zero-dates null`` loads NULL and both verifications compare content under that rule; a NOT NULL
target column is a pre-flight error, never a failure in the middle of the load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import hold_back_preflight

from dbjson.errors import DataError
from dbjson.export import export_database
from dbjson.importer import import_database
from dbjson.verify import verify

NULLABLE = """
SET SESSION sql_mode = '';
CREATE TABLE events (id int PRIMARY KEY, d date NULL, at datetime(3) NULL, note varchar(10));
INSERT INTO events VALUES (1, '0000-00-00', '0000-00-00 00:00:00.000', 'zero'),
  (2, '2024-02-29', '2024-02-29 12:00:00.500', 'real'), (3, '2024-00-10', NULL, 'month0'), (4, NULL, NULL, NULL);
"""
# NULLABLE's rows on the target under zero-null: the zero date and the month-0 date arrive as NULL
ZERO_NULL_ROWS = [(1, None, None), (2, "2024-02-29", "2024-02-29 12:00:00.5"), (3, None, None), (4, None, None)]


def _export(fresh_db: Any, tmp_path: Path, script: str, source: str = "mysql") -> Path:
    src = fresh_db(source)
    src.execute(script)
    out = tmp_path / "export"
    export_database(src.url, out)
    return out


@pytest.mark.parametrize("source", ["mysql", "mariadb"])
def test_zero_dates_as_null_verify_by_content(source: str, fresh_db: Any, tmp_path: Path) -> None:
    out = _export(fresh_db, tmp_path, NULLABLE, source)
    dst = fresh_db("postgresql")
    report = import_database(out, dst.url, zero_dates="null")
    check = report.verify.tables[0]
    assert report.verify.ok and check.mode == "checksum", report.verify.problems
    assert check.rules == {"d": "zero-null", "at": "zero-null"}
    assert {(f.column, f.severity) for f in report.findings} == {("d", "warning"), ("at", "warning")}
    rows = dst.query("SELECT id, d::text, at::text FROM public.events ORDER BY id")
    assert [tuple(r) for r in rows] == ZERO_NULL_ROWS
    alone = verify(out, dst.url)  # standalone verify: the same rule, content compared
    assert alone.ok and alone.tables[0].mode == "checksum" and alone.tables[0].checksum, alone.problems
    assert alone.tables[0].path == "export"  # proved by the target's export, the rules' lines from the manifest's sum
    # A changed value is a mismatch (the old built-in verify only counted such tables' rows).
    dst.execute("UPDATE public.events SET d = '2024-03-01' WHERE id = 2")
    bad = verify(out, dst.url)
    assert not bad.ok and "checksum" in bad.problems[0]
    dst.execute("UPDATE public.events SET d = '2000-01-01' WHERE id = 1")  # a zero date that is not NULL
    dst.execute("UPDATE public.events SET d = '2024-02-29' WHERE id = 2")
    assert not verify(out, dst.url).ok


def test_zero_date_in_not_null_column_is_a_preflight_error(fresh_db: Any, tmp_path: Path) -> None:
    out = _export(
        fresh_db,
        tmp_path,
        """
SET SESSION sql_mode = '';
CREATE TABLE strict_days (id int PRIMARY KEY, d date NOT NULL, other date NOT NULL);
INSERT INTO strict_days VALUES (1, '2024-01-01', '2024-01-01'), (2, '0000-00-00', '2024-01-02');
""",
    )
    dst = fresh_db("postgresql")
    with pytest.raises(DataError, match="pre-flight") as ei:
        import_database(out, dst.url)
    assert ei.value.column == "d" and ei.value.table and ei.value.table.endswith("strict_days")
    problem = ei.value.problems[0]
    assert "NOT NULL" in problem and "0000-00-00" in problem and ":2)" in problem
    assert dst.query("SELECT count(*) FROM public.strict_days")[0][0] == 0


def test_zero_date_default_column_loads_as_null(fresh_db: Any, tmp_path: Path) -> None:
    """A zero-date default makes schema-load drop NOT NULL (zero-date-not-null): those rows load."""
    out = _export(
        fresh_db,
        tmp_path,
        """
SET SESSION sql_mode = '';
CREATE TABLE posts (id int PRIMARY KEY, modified datetime NOT NULL DEFAULT '0000-00-00 00:00:00');
INSERT INTO posts VALUES (1, '0000-00-00 00:00:00'), (2, '2020-05-05 05:05:05');
""",
    )
    dst = fresh_db("postgresql")
    report = import_database(out, dst.url)
    assert report.verify.ok and report.verify.tables[0].rules == {"modified": "zero-null"}
    assert [f.severity for f in report.findings] == ["warning"]


def test_sqlite_keeps_zero_dates(fresh_db: Any, tmp_path: Path) -> None:
    out = _export(fresh_db, tmp_path, NULLABLE)
    dst = fresh_db("sqlite")
    report = import_database(out, dst.url)
    assert report.verify.ok and not report.findings and not report.verify.tables[0].rules
    assert dst.query("SELECT d FROM events WHERE id = 1")[0][0] == "0000-00-00"


def test_migrate_unit_begun_before_its_preflight_loads_zero_dates_as_null(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """dbjson migrate's pre-flight reads the source on connections of its own while the units
    load: held back here, the unit starts on the rules of a clean table (no zero-null), and loads
    again once the pre-flight has found the zero dates: they arrive as NULL and the verify passes."""
    from dbjson.migrate import migrate

    src = fresh_db("mariadb")
    src.execute(NULLABLE)
    dst = fresh_db("postgresql")
    again, hook = hold_back_preflight(monkeypatch)

    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "state", importer_hook=hook)
    assert again, "the unit did not start before its pre-flight was done"
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems
    assert {(f.column, f.severity) for f in report.load.findings} == {("d", "warning"), ("at", "warning")}
    rows = dst.query("SELECT id, d::text, at::text FROM public.events ORDER BY id")
    assert [tuple(r) for r in rows] == ZERO_NULL_ROWS
