"""`dbjson migrate`: Chinook between every pair of engines (verify passing), --keep, resume, the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from chinook import CHINOOK_TABLES, chinook_row_counts, chinook_table_name, load_chinook

import dbjson
from dbjson.errors import Cancelled, DataError, UsageError
from dbjson.importer import Importer, import_database
from dbjson.migrate import MigrateReport, migrate

ENGINES = ("mysql", "mariadb", "postgresql", "sqlite")
PAIRS = [(s, t) for s in ENGINES for t in ENGINES if s != t]
DBJSON = [sys.executable, "-m", "dbjson"]


def _counts(db: Any, source_engine: str) -> dict[str, int]:
    """Row counts of the Chinook tables in ``db`` (named as in the source's script)."""
    out = {}
    for t in sorted(CHINOOK_TABLES):
        name = chinook_table_name(source_engine, t)
        quoted = f"`{name}`" if db.engine in ("mysql", "mariadb") else f'"{name}"'
        out[t] = int(db.query(f"SELECT COUNT(*) FROM {quoted}")[0][0])
    return out


def _check(report: MigrateReport, target: Any, source_engine: str) -> None:
    expected = chinook_row_counts()
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems
    assert {c.mode for c in report.load.verify.tables} <= {"checksum", "checksum-semantic"}
    assert report.rows == sum(expected.values())
    assert _counts(target, source_engine) == expected


@pytest.mark.parametrize(("source_engine", "target_engine"), PAIRS, ids=[f"{s}-to-{t}" for s, t in PAIRS])
def test_chinook_between_every_pair(fresh_db: Any, tmp_path: Path, source_engine: str, target_engine: str) -> None:
    src = fresh_db(source_engine)
    load_chinook(src)
    dst = fresh_db(target_engine)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "state")
    _check(report, dst, source_engine)
    assert report.snapshot.consistent
    assert report.to_dict()["ok"] is True


def test_keep_writes_an_export_that_imports_identically(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("mariadb")
    load_chinook(src)
    dst = fresh_db("postgresql")
    keep = tmp_path / "keep"
    report = migrate(src.url, dst.url, threads=2, keep=keep)
    _check(report, dst, "mariadb")
    manifest = orjson.loads((keep / "manifest.json").read_bytes())
    assert sum(t["rows"] for t in manifest["tables"]) == report.rows
    assert not list((keep / "data").glob("*.partial"))
    # the migrated target is what the kept export describes...
    assert dbjson.verify(keep, dst.url).ok
    # ...and the kept export loads into a third database with the same content
    other = fresh_db("sqlite")
    loaded = import_database(keep, other.url, threads=2)
    assert loaded.verify is not None and loaded.verify.ok
    assert {t.name: t.rows for t in loaded.tables.values()} == {
        f"{src.name}.{t}": n for t, n in chinook_row_counts().items()
    } or loaded.rows == report.rows
    assert loaded.rows == report.rows


def _interrupt_on_fourth_unit(imp: Importer) -> None:
    stream = imp.open_file
    opened: list[str] = []

    def open_file(f: Any) -> Any:
        opened.append(f.rel)
        if len(opened) == 4:
            imp.cancel.set()  # like Ctrl-C while the fourth unit is being loaded
        return stream(f)

    imp.open_file = open_file  # type: ignore[method-assign]


def test_interrupted_migrate_resumes_without_losing_or_duplicating_rows(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("postgresql")
    load_chinook(src)
    dst = fresh_db("mysql")
    state = tmp_path / "state"
    with pytest.raises(Cancelled):
        migrate(src.url, dst.url, threads=1, state_dir=state, importer_hook=_interrupt_on_fourth_unit)
    partial = _counts(dst, "postgresql")
    assert 0 < sum(partial.values()) < sum(chinook_row_counts().values())
    with pytest.raises(UsageError, match="interrupted migrate") as err:
        migrate(src.url, dst.url, threads=1, state_dir=state)  # not without --resume
    assert "--resume" in (err.value.hint or "")
    report = migrate(src.url, dst.url, threads=2, state_dir=state, resume=True)
    assert report.load.resumed_units == 3
    _check(report, dst, "postgresql")


def test_resume_with_keep_completes_the_kept_export(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("sqlite")
    load_chinook(src)
    dst = fresh_db("postgresql")
    keep = tmp_path / "keep"
    with pytest.raises(Cancelled):
        migrate(src.url, dst.url, threads=1, keep=keep, importer_hook=_interrupt_on_fourth_unit)
    assert not (keep / "manifest.json").exists()  # an interrupted export never looks complete
    report = migrate(src.url, dst.url, threads=1, keep=keep, resume=True)
    _check(report, dst, "sqlite")
    manifest = orjson.loads((keep / "manifest.json").read_bytes())
    assert {t["name"]: t["rows"] for t in manifest["tables"]} == chinook_row_counts()
    assert dbjson.verify(keep, dst.url).ok  # the files of both runs describe the target
    loaded = import_database(keep, fresh_db("mariadb").url, threads=2)
    assert loaded.verify is not None and loaded.verify.ok and loaded.rows == report.rows


def test_migrate_is_dbjson_migrate() -> None:
    assert dbjson.migrate is migrate


def _cli(*args: str, **kw: Any) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([*DBJSON, "migrate", *args], capture_output=True, timeout=180, env=env, **kw)


def test_cli_json_report_and_exit_codes(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("sqlite")
    load_chinook(src)
    dst = fresh_db("postgresql")
    state = ["--state-dir", str(tmp_path / "state")]
    r = _cli(src.url, dst.url, "--threads", "2", "--json", "--exclude", "Playlist*", *state)
    assert r.returncode == 0, r.stderr
    report = orjson.loads(r.stdout)
    counts = chinook_row_counts()
    assert report["ok"] is True and report["verify"]["ok"] is True
    assert report["rows"] == sum(n for t, n in counts.items() if not t.startswith("Playlist"))
    assert report["snapshot"]["consistent"] is True
    # the tables are there now: --if-exists fail is a usage error (exit 2), naming the table
    r = _cli(src.url, dst.url, "--tables", "Genre", *state)
    assert r.returncode == 2, r.stderr
    assert b"already exists" in r.stderr and b"Genre" in r.stderr
    # --if-exists replace loads it again; the summary line goes to stderr
    r = _cli(src.url, dst.url, "--tables", "Genre", "--if-exists", "replace", *state)
    assert r.returncode == 0, r.stderr
    assert b"migrated 25 rows of 1 table(s)" in r.stderr and b"verified" in r.stderr
    # an unreachable source is a connection error (exit 3), without a traceback
    r = _cli("postgresql://postgres@127.0.0.1:1/nothing", dst.url, *state)
    assert r.returncode == 3, r.stderr
    assert b"Traceback" not in r.stderr
    # the same database on both sides is refused
    r = _cli(src.url, src.url, *state)
    assert r.returncode == 2 and b"same database" in r.stderr


def test_preflight_reads_the_source_and_stops_before_loading(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("mariadb")
    src.execute(
        "CREATE TABLE t (id INT PRIMARY KEY, n BIGINT UNSIGNED, note TEXT, other VARCHAR(10));\n"
        "INSERT INTO t VALUES (1, 5, 'fine', 'a'), (2, 18446744073709551615, CONCAT('a', CHAR(0), 'b'), 'b');\n"
        "CREATE TABLE u (id INT PRIMARY KEY, v VARCHAR(10));\nINSERT INTO u VALUES (1, 'x');\n"
    )
    dst = fresh_db("postgresql")
    with pytest.raises(DataError) as err:
        migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "state")
    problems = "\n".join(err.value.problems)
    assert "column note: a NUL character" in problems
    assert err.value.table == f"{src.name}.t"
    assert dst.query("SELECT COUNT(*) FROM public.u")[0][0] == 0  # nothing was loaded


def test_json_columns_verify_by_meaning_from_the_source(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("mariadb")
    src.execute(
        "CREATE TABLE docs (id INT PRIMARY KEY, body JSON);\n"
        'INSERT INTO docs VALUES (1, \'{"b": 1, "a": [1, 2]}\'), (2, NULL), (3, \'"x"\');\n'
    )
    dst = fresh_db("postgresql")
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "state")
    assert report.load.verify is not None and report.load.verify.ok
    assert [t.mode for t in report.load.verify.tables] == ["checksum-semantic"]
    assert dst.query("SELECT body->>'b' FROM public.docs WHERE id = 1")[0][0] == "1"


@pytest.mark.parametrize("target_engine", ["postgresql", "mysql"])
def test_cross_engine_verify_uses_the_sums_taken_while_loading(
    fresh_db: Any, tmp_path: Path, target_engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cross-engine migrate sums each unit's lines the way verify's proof needs them (by meaning,
    after the value rules) while they load: every table is proved by the target's own export as
    soon as its last unit committed (while others load), the source is never read a second time,
    and the journal keeps the sums for --resume."""
    import importlib

    verify_module = importlib.import_module("dbjson.verify")
    src = fresh_db("mariadb")
    src.execute(
        "CREATE TABLE docs (id INT PRIMARY KEY, at DATETIME(3), price DECIMAL(10,2), body JSON);\n"
        'INSERT INTO docs VALUES (1, \'2024-02-29 12:34:56.789\', 1.50, \'{"b": 1.50, "a": [1, {"z": 2, "y": 1}]}\'),'
        " (2, NULL, NULL, NULL), (3, '1970-01-01 00:00:01', -0.01, '\"x\"');\n"
        "CREATE TABLE plain (id INT PRIMARY KEY, name VARCHAR(20));\n"
        "INSERT INTO plain VALUES (1, 'a'), (2, NULL);\n"
    )

    def no_second_read(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("verify read the source again for its expected side")

    monkeypatch.setattr(verify_module, "_expected_side", no_second_read)
    migrate_module = importlib.import_module("dbjson.migrate")
    during_load: list[str] = []  # tables proved as soon as their last unit committed

    def proving(*a: Any, **k: Any) -> Any:
        check = verify_module.exact_check(*a, **k)
        if check is not None:
            during_load.append(check.table.split(".")[-1])
        return check

    monkeypatch.setattr(migrate_module, "exact_check", proving)
    dst = fresh_db(target_engine)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "state")
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems
    checks = {t.table.split(".")[-1]: t for t in report.load.verify.tables}
    assert {n: (c.mode, c.path) for n, c in checks.items()} == {
        "docs": ("checksum-semantic", "export"),
        "plain": ("checksum", "export"),
    }
    assert sorted(during_load) == ["docs", "plain"]


@pytest.mark.parametrize("fail_early", [False, True])
def test_a_tables_keys_and_indexes_are_made_when_its_last_unit_commits(
    fresh_db: Any, tmp_path: Path, fail_early: bool
) -> None:
    """A table's deferred primary key, indexes and unique constraints are made by its loading
    thread as soon as its last unit commits (while other tables may still load), a foreign key
    once both its tables are loaded and keyed, journaled under the post-data phase's steps: that
    phase runs each of them no second time. An early statement that fails is run again (and
    would be reported) by the post-data phase."""
    src = fresh_db("mariadb")
    src.execute(
        "CREATE TABLE parent (id INT PRIMARY KEY, code VARCHAR(10) NOT NULL, UNIQUE KEY parent_code (code));\n"
        "INSERT INTO parent VALUES (1, 'a'), (2, 'b'), (3, 'c');\n"
        "CREATE TABLE child (id INT PRIMARY KEY, parent_id INT, qty INT, KEY child_qty (qty),\n"
        " CONSTRAINT child_parent FOREIGN KEY (parent_id) REFERENCES parent (id));\n"
        "INSERT INTO child VALUES (1, 1, 5), (2, 2, 6), (3, NULL, 7), (4, 3, 5);\n"
    )
    dst = fresh_db("postgresql")
    ran: list[tuple[str, str, str]] = []  # (phase, kind, sql) of every statement run after the pre-data
    failed: list[str] = []

    def hook(imp: Importer) -> None:
        apply = imp._apply_statement

        def recording(st: Any, *, tolerate_exists: bool) -> None:
            if imp.phase in ("data", "post-data"):
                if fail_early and imp.phase == "data" and not failed and st.kind == "index":
                    failed.append(st.sql)
                    raise RuntimeError("refused once")
                ran.append((imp.phase, st.kind, st.sql))
            apply(st, tolerate_exists=tolerate_exists)

        imp._apply_statement = recording  # type: ignore[method-assign]

    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "state", importer_hook=hook)
    assert report.load.verify is not None and report.load.verify.ok
    sqls = [sql for _p, _k, sql in ran]
    assert len(sqls) == len(set(sqls)), "a post-data statement ran twice"
    early = {(k, sql) for p, k, sql in ran if p == "data"}
    late = {(k, sql) for p, k, sql in ran if p == "post-data"}
    if fail_early:  # the table's statements after it wait for the post-data phase too
        assert ("index", failed[0]) in late and {k for k, _s in early} >= {"primary_key", "unique"}
    else:  # the foreign key too, once both tables were loaded and keyed
        assert {k for k, _s in early} == {"primary_key", "index", "unique", "foreign_key"}
        assert not late
    keys = dst.query(
        "SELECT conname, contype FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace"
        " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY conname"
    )
    assert {(str(n), str(t)) for n, t in keys} >= {("child_parent", "f"), ("parent_code", "u")}
    assert len([t for _n, t in keys if str(t) == "p"]) == 2
    indexes = dst.query("SELECT indexname FROM pg_indexes WHERE tablename IN ('parent', 'child')")
    assert "child_qty" in {str(r[0]) for r in indexes}
