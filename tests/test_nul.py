"""NUL characters (U+0000) from MySQL/MariaDB text into PostgreSQL, which cannot hold them (QA B15):
found by the pre-flight under ``--nul error``, removed or replaced under ``strip`` / ``replace``,
and verified after the same rule (never a false mismatch, never a silent pass)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import hold_back_preflight

from dbjson.errors import DataError
from dbjson.export import export_database
from dbjson.importer import import_database
from dbjson.verify import verify

SOURCE = r"""
CREATE TABLE notes (
  id int PRIMARY KEY,
  title varchar(20) NOT NULL,
  body text,
  doc json
);
INSERT INTO notes VALUES
  (1, CONCAT('a', CHAR(0), 'b'), CONCAT('x', CHAR(0), CHAR(0), 'y'), '{"k": "p\\u0000q", "n": [1, 2]}'),
  (2, 'plain', 'no nul', '{"k": "é"}'),
  (3, CONCAT(CHAR(0)), NULL, NULL);
"""


def _export(fresh_db: Any, tmp_path: Path, source: str = "mysql") -> Path:
    src = fresh_db(source)
    src.execute(SOURCE)
    out = tmp_path / "export"
    export_database(src.url, out)
    return out


def _rows(dst: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in dst.query("SELECT id, title, body, doc::text FROM public.notes ORDER BY id")]


@pytest.mark.parametrize("source", ["mysql", "mariadb"])
def test_nul_is_a_preflight_error_by_default(source: str, fresh_db: Any, tmp_path: Path) -> None:
    out = _export(fresh_db, tmp_path, source)
    dst = fresh_db("postgresql")
    with pytest.raises(DataError, match="pre-flight") as ei:
        import_database(out, dst.url)
    problems = ei.value.problems
    assert ei.value.table and ei.value.table.endswith("notes") and ei.value.column == "title"
    assert any("title" in p and "NUL" in p and "a\\x00b" in p and ":1)" in p for p in problems), problems
    assert any("column body" in p for p in problems) and any("column doc" in p for p in problems), problems
    assert dst.query("SELECT count(*) FROM public.notes")[0][0] == 0  # nothing loaded


def test_nul_strip_loads_reports_and_verifies(fresh_db: Any, tmp_path: Path) -> None:
    out = _export(fresh_db, tmp_path)
    dst = fresh_db("postgresql")
    report = import_database(out, dst.url, nul="strip")
    assert report.verify.ok, report.verify.problems
    check = report.verify.tables[0]
    assert check.rules == {"title": "nul-strip", "body": "nul-strip", "doc": "nul-strip"}
    assert {(f.column, f.severity) for f in report.findings} == {
        ("title", "warning"),
        ("body", "warning"),
        ("doc", "warning"),
    }
    rows = _rows(dst)
    assert rows[0][:3] == (1, "ab", "xy") and '"pq"' in rows[0][3]
    assert rows[2][1] == ""
    assert verify(out, dst.url).ok  # the policy comes from the import journal
    # A real difference in a NUL-affected column is still found.
    dst.execute("UPDATE public.notes SET body = 'xz' WHERE id = 1")
    again = verify(out, dst.url)
    assert not again.ok and "checksum" in again.problems[0]


def test_nul_replace_writes_u_fffd_and_verifies(fresh_db: Any, tmp_path: Path) -> None:
    out = _export(fresh_db, tmp_path)
    dst = fresh_db("postgresql")
    report = import_database(out, dst.url, nul="replace")
    assert report.verify.ok, report.verify.problems
    rows = _rows(dst)
    assert rows[0][1:3] == ("a\ufffdb", "x\ufffd\ufffdy") and "p\ufffdq" in rows[0][3]
    assert verify(out, dst.url, nul="replace").ok
    assert not verify(out, dst.url, nul="strip").ok  # the wrong policy is a mismatch, not a pass


def test_verify_without_the_policy_compares_in_the_weaker_mode(fresh_db: Any, tmp_path: Path) -> None:
    out = _export(fresh_db, tmp_path)
    dst = fresh_db("postgresql")
    import_database(out, dst.url, nul="replace")
    for journal in out.glob(".dbjson-import-*.journal"):
        journal.unlink()
    report = verify(out, dst.url)
    assert report.ok, report.problems
    assert set(report.tables[0].rules.values()) == {"nul-unknown"}
    dst.execute("UPDATE public.notes SET title = 'a\ufffdc' WHERE id = 1")
    assert not verify(out, dst.url).ok


def test_nul_policy_is_checked() -> None:
    from dbjson.errors import UsageError

    with pytest.raises(UsageError, match="--nul"):
        import_database("/nonexistent", "sqlite:///x.db", nul="drop")


def test_targets_that_hold_nul_keep_it(fresh_db: Any, tmp_path: Path) -> None:
    out = _export(fresh_db, tmp_path)
    dst = fresh_db("mariadb")
    report = import_database(out, dst.url)  # --nul error: nothing to report on MariaDB
    assert report.verify.ok and not report.findings and not report.verify.tables[0].rules
    assert dst.query("SELECT title FROM notes WHERE id = 1")[0][0] == "a\x00b"


def test_resume_keeps_the_nul_policy(fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.errors import UsageError

    out = _export(fresh_db, tmp_path)
    dst = fresh_db("postgresql")
    import_database(out, dst.url, nul="strip")
    with pytest.raises(UsageError, match="--nul strip"):
        import_database(out, dst.url, nul="replace", resume=True)
    again = import_database(out, dst.url, nul="strip", resume=True)  # nothing left to load
    assert again.resumed_units == 1 and again.verify.ok


@pytest.mark.parametrize("policy", ["strip", "error"])
def test_a_unit_begun_before_its_preflight_loads_on_the_final_rules(
    policy: str, fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pre-flight runs while the units load: a unit that starts before its table's pre-flight
    is done loads on the rules a clean table keeps, and commits only on the final ones. Here the
    pre-flight is held back, so the unit begins on the wrong rules: under ``--nul strip`` it loads
    again with them (same rows, same verify as when the pre-flight ran first); under ``--nul
    error`` nothing is committed and the error is the pre-flight's."""
    out = _export(fresh_db, tmp_path)
    dst = fresh_db("postgresql")
    again, hook = hold_back_preflight(monkeypatch)

    if policy == "error":
        with pytest.raises(DataError, match="pre-flight") as ei:
            import_database(out, dst.url, threads=2, importer_hook=hook)
        assert any("column body" in p for p in ei.value.problems)
        assert dst.query("SELECT count(*) FROM public.notes")[0][0] == 0  # nothing committed
        return
    report = import_database(out, dst.url, nul="strip", threads=2, importer_hook=hook)
    assert again, "the unit did not start before its pre-flight was done"
    assert report.verify.ok, report.verify.problems
    assert report.verify.tables[0].rules == {"title": "nul-strip", "body": "nul-strip", "doc": "nul-strip"}
    rows = _rows(dst)
    assert rows[0][:3] == (1, "ab", "xy") and '"pq"' in rows[0][3] and len(rows) == 3
    assert verify(out, dst.url).ok


def test_units_that_load_while_the_preflight_runs_commit_nothing_when_it_fails(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the pre-flight runs, a loaded unit waits to commit and another loads meanwhile on a
    connection of its own (``TargetSession.parked``); when the pre-flight then fails, none of them
    commits: every table of the target stays empty."""
    src = fresh_db("mariadb")
    src.execute(SOURCE)
    src.execute(
        "CREATE TABLE clean_a (id int PRIMARY KEY, v varchar(20));\n"
        "CREATE TABLE clean_b (id int PRIMARY KEY, v varchar(20));\n"
        "INSERT INTO clean_a SELECT seq, CONCAT('a', seq) FROM seq_1_to_3000;\n"
        "INSERT INTO clean_b SELECT seq, CONCAT('b', seq) FROM seq_1_to_2000;\n"
    )
    out = tmp_path / "export"
    export_database(src.url, out)
    dst = fresh_db("postgresql")
    _again, hold = hold_back_preflight(monkeypatch)
    parked: list[int] = []

    def hook(imp: Any) -> None:
        hold(imp)
        real = imp.parked

        def counting() -> Any:
            parked.append(1)
            return real()

        imp.parked = counting

    with pytest.raises(DataError, match="pre-flight"):
        import_database(out, dst.url, threads=2, importer_hook=hook)
    assert parked, "no unit waited for the pre-flight to commit"
    for table in ("notes", "clean_a", "clean_b"):
        assert dst.query(f"SELECT count(*) FROM public.{table}")[0][0] == 0, table
