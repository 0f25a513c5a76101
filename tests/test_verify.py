"""dbjson verify: checksums of the target re-encoded under the source kinds, across engines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dbjson.export import export_database
from dbjson.importer import import_database
from dbjson.verify import verify

MYSQL_TYPES = """
CREATE TABLE kinds (
  id int unsigned PRIMARY KEY,
  big bigint unsigned,
  flag tinyint(1),
  price decimal(12,4),
  ratio double,
  name varchar(40),
  body text,
  raw varbinary(16),
  day date,
  at datetime(3),
  ts timestamp(6) NULL,
  dur time(2),
  yr year,
  mood enum('sad','ok','happy'),
  tags set('a','b','c'),
  doc json,
  bits bit(5)
)"""
MYSQL_ROWS = """
INSERT INTO kinds VALUES
 (1, 9223372036854775807, 1, 12.5, 0.1, 'Grüße 😀', 'tab\there\nnew line \\\\ back', x'00ff10', '2024-02-29',
  '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.123456', '12:30:00.50', 2024, 'happy', 'a,c', '{"k": [1, 2.5, "x"], "bb": {"zz": 1, "y": null}, "a": "\\u00e9"}', b'10101'),
 (2, 0, 0, -0.0001, -1e300, '', '', x'', '1000-01-01', '9999-12-31 23:59:59.999', '1970-01-01 00:00:01', '23:59:59', 1901,
  'sad', '', '[]', b'00000'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
"""


@pytest.mark.parametrize("target", ["mysql", "mariadb", "postgresql", "sqlite"])
def test_mysql_kinds_verify_on_every_target(target: str, fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("mysql")
    src.execute(MYSQL_TYPES)
    src.execute(MYSQL_ROWS)
    out = tmp_path / "export"
    export_database(src.url, out)
    dst = fresh_db(target)
    report = import_database(out, dst.url)
    assert report.verify.ok, report.verify.problems
    assert report.verify.tables[0].mode in ("checksum", "checksum-semantic")  # a JSON column: compared by meaning
    again = verify(out, dst.url)
    assert again.ok and again.tables[0].checksum == again.tables[0].expected_checksum


def test_mysql_values_postgresql_cannot_hold_are_found_before_loading(fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.errors import DataError

    src = fresh_db("mariadb")
    src.execute("CREATE TABLE t (id int PRIMARY KEY, dur time, d date)")
    src.execute("SET SESSION sql_mode = ''")
    src.execute("INSERT INTO t VALUES (1, '-01:00:00', '2020-01-01'), (2, '100:00:00', '2020-01-02')")
    out = tmp_path / "export"
    export_database(src.url, out)
    dst = fresh_db("postgresql")
    with pytest.raises(DataError, match="pre-flight") as ei:
        import_database(out, dst.url)
    assert ei.value.column == "dur" and "-01:00:00" in ei.value.problems[0]


JSON_SOURCE = """
CREATE TABLE docs (id integer PRIMARY KEY, body json);
INSERT INTO docs VALUES (1, '{"zeta": 1, "alpha": "bl\\u00e5", "n": [1, 2.5]}');
INSERT INTO docs VALUES (2, '{"b": {"y": true, "x": null}, "a": "å"}');
INSERT INTO docs VALUES (3, NULL);
"""


@pytest.mark.parametrize("target_engine", ["postgresql", "mariadb", "sqlite"])
def test_json_columns_verify_by_meaning(fresh_db: Any, tmp_path: Path, target_engine: str) -> None:
    """jsonb reorders keys, text targets keep escapes as written: verify compares JSON by meaning,
    and still notices a JSON value that really changed."""
    src = fresh_db("sqlite")
    src.execute(JSON_SOURCE)
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    tgt = fresh_db(target_engine)
    report = import_database(out, tgt.url, threads=1)
    assert report.verify is not None and report.verify.ok, report.verify.problems if report.verify else None
    # jsonb reorders keys: only a by-meaning comparison matches; text targets keep the lines exact
    # (proved by the target's own export, verify.exact_check) or, failing that, by meaning
    expected_modes = {"checksum-semantic"} if target_engine == "postgresql" else {"checksum", "checksum-semantic"}
    assert report.verify.tables[0].mode in expected_modes
    q = '"' if target_engine != "mariadb" else "`"
    tgt.execute(f"UPDATE {q}docs{q} SET {q}body{q} = '{{\"zeta\": 2}}' WHERE {q}id{q} = 1")
    again = verify(out, tgt.url)
    assert not again.ok
    assert "content checksum" in again.problems[0]


@pytest.mark.parametrize("target_engine", ["mysql", "mariadb"])
def test_unconstrained_numeric_verifies_into_fixed_scale(fresh_db: Any, tmp_path: Path, target_engine: str) -> None:
    """SQLite/PostgreSQL ``numeric`` becomes DECIMAL(65,30) on MySQL: 2.99 reads back as 2.990000…,
    the same value, so verify passes; a changed amount still fails."""
    src = fresh_db("sqlite")
    src.execute(
        "CREATE TABLE pay (id integer PRIMARY KEY, amount numeric NOT NULL);"
        "INSERT INTO pay VALUES (1, 2.99), (2, 0), (3, 10.5);"
    )
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    tgt = fresh_db(target_engine)
    report = import_database(out, tgt.url, threads=1)
    assert report.verify is not None and report.verify.ok, report.verify.problems if report.verify else None
    assert report.verify.tables[0].mode == "checksum-semantic"
    tgt.execute("UPDATE pay SET amount = 2.98 WHERE id = 1")
    assert not verify(out, tgt.url).ok


def test_verify_against_a_missing_sqlite_database_is_a_connection_error(fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.errors import ConnectionFailed

    src = fresh_db("sqlite")
    src.execute("CREATE TABLE t (id integer PRIMARY KEY); INSERT INTO t VALUES (1);")
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    missing = tmp_path / "missing.db"
    with pytest.raises(ConnectionFailed):
        verify(out, f"sqlite:///{missing}")
    assert not missing.exists()


def test_cross_engine_verify_confirms_by_meaning_from_the_targets_export(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MariaDB → PostgreSQL: jsonb respells the documents and the zero-date rule applies, yet the
    target's own export (C), put in its by-meaning form (C), proves the table without the per-row
    re-encoding (``target_checksum``); a document whose nested number changed still fails."""
    import importlib

    verify_module = importlib.import_module("dbjson.verify")
    src = fresh_db("mariadb")
    src.execute("CREATE TABLE ev (id int PRIMARY KEY, at datetime(3), doc json, note text)")
    src.execute(
        'INSERT INTO ev VALUES (1, \'2024-02-29 12:34:56.789\', \'{"b": [1.50, {"z": 1, "a": "\\\\u00e9"}], "a": null}\', \'x\'),'
        " (2, NULL, '[]', NULL), (3, '1970-01-01 00:00:01', '{\"k\": 12345678901234567890.10}', 'y')"
    )
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    tgt = fresh_db("postgresql")
    report = import_database(out, tgt.url, threads=1, verify=False)
    assert report.rows == 3

    def no_full_check(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("the per-row re-encoding ran: the target's export did not prove the table")

    monkeypatch.setattr(verify_module, "target_checksum", no_full_check)
    first = verify(out, tgt.url)
    assert first.ok and first.tables[0].mode == "checksum-semantic", first.problems
    monkeypatch.undo()
    tgt.execute("""UPDATE ev SET doc = '{"k": 12345678901234567890.11}' WHERE id = 3""")
    again = verify(out, tgt.url)
    assert not again.ok and "content checksum" in again.problems[0]


# PostgreSQL kinds that MySQL/MariaDB keep in a type whose own export spells equal values otherwise
# (or spells the same): verify's proof exports the target under the source kinds' spelling
# (``engine.verify_export_column``), so a correct load is proved by the target's export path (C)
# and only a real difference reaches the per-row check.
PG_KINDS = [
    "CREATE TYPE mood AS ENUM ('sad','ok','happy')",
    """CREATE TABLE kinds (
 id int PRIMARY KEY, flag boolean, u uuid, tz timestamptz, tz3 timestamptz(3), ts timestamp(6), d date,
 t3 time(3), iv interval, n numeric, n4 numeric(12,4), b5 bit(5), vb varbit(10), ia int[], ta text[],
 m mood, f4 real, f8 double precision, by bytea, j json, jb jsonb, c5 char(5), s smallint, bi bigint)""",
    """INSERT INTO kinds VALUES
 (1, true, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-02-29 12:34:56.123456+02', '2024-02-29 12:34:56.5+00',
  '2024-02-29 12:34:56.100000', '2024-02-29', '12:30:00.5', '1 day 02:03:04.5', 12.50, 1.5, B'10101', B'101',
  '{1,2,3}', '{"a","b c"}', 'happy', 0.1, 0.1, '\\x00ff10', '{"b": 1, "a": [1.50, "x"]}', '{"b": 1, "a": [1.50]}',
  'ab', 7, 9007199254740993),
 (2, false, NULL, '1970-01-01 00:00:00+00', NULL, '1999-12-31 23:59:59', NULL, '23:59:59.999', '-1 mons',
  -0.0001, 0, B'00000', B'', '{}', '{}', 'sad', -1e30, 1e300, '\\x', '[]', '{}', 'abcde', -1, 0),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL)""",
]
# column → a different value for row 1, as MySQL takes it (each pair of source kind and target type)
PG_KIND_TAMPERS = {
    "flag": "0",  # boolean → tinyint(1)
    "u": "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'",  # uuid → char(36)
    "tz": "'2024-02-29 10:34:56.123457'",  # timestamptz → DATETIME(6) (UTC, the Z respelled)
    "tz3": "'2024-02-29 12:34:56.501'",  # timestamptz(3) → DATETIME(3)
    "ts": "'2024-02-29 12:34:56.100001'",  # timestamp(6) → DATETIME(6)
    "t3": "'12:30:00.501'",  # time(3) with fractional digits
    "n": "12.51",  # numeric → DECIMAL(65,30) (scale padding, by meaning)
    "n4": "1.5001",  # numeric(12,4)
    "b5": "b'10100'",  # bit(5)
    "ia": "'[1,2,4]'",  # int[] → JSON
    "ta": '\'["a","b  c"]\'',  # text[] → JSON
    "m": "'ok'",  # enum → ENUM
    "f8": "0.2",  # double precision
    "f4": "0.25",  # real → FLOAT
    "by": "x'00ff11'",  # bytea → blob
    "j": '\'{"b": 1, "a": [1.51, "x"]}\'',  # json → JSON (by meaning)
    "c5": "'ab  x'",  # char(5) → CHAR(5) (PostgreSQL keeps the padding, MySQL strips it)
    "bi": "9007199254740992",  # bigint
}


@pytest.mark.parametrize("target_engine", ["mariadb", "mysql"])
def test_postgresql_kinds_prove_by_the_targets_export(
    fresh_db: Any, tmp_path: Path, target_engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL → MySQL/MariaDB: every column proves by the target's own export (``path ==
    "export"``, the per-row check never runs), and a changed value in any of them still fails."""
    import importlib

    verify_module = importlib.import_module("dbjson.verify")
    src = fresh_db("postgresql")
    for statement in PG_KINDS:
        src.execute(statement)
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    dst = fresh_db(target_engine)
    assert import_database(out, dst.url, threads=1, verify=False).rows == 3
    real_check = verify_module.check_table

    def no_full_check(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("the per-row check ran: the target's export did not prove the table")

    monkeypatch.setattr(verify_module, "check_table", no_full_check)
    first = verify(out, dst.url, threads=1)
    assert first.ok, first.problems
    assert [(t.mode, t.path) for t in first.tables] == [("checksum-semantic", "export")]
    monkeypatch.setattr(verify_module, "check_table", real_check)
    conn = dst.connect()
    try:
        for column, tampered in PG_KIND_TAMPERS.items():
            with conn.cursor() as cur:
                cur.execute(f"SELECT `{column}` FROM kinds WHERE id = 1")
                original = cur.fetchone()[0]
                cur.execute(f"UPDATE kinds SET `{column}` = {tampered} WHERE id = 1")
            conn.commit()
            report = verify(out, dst.url, threads=1)
            assert not report.ok and "content checksum" in report.problems[0], column
            assert report.tables[0].path == "rows"  # the proof failed: the per-row check decided
            with conn.cursor() as cur:
                cur.execute(f"UPDATE kinds SET `{column}` = %s WHERE id = 1", (original,))
            conn.commit()
    finally:
        conn.close()
    monkeypatch.setattr(verify_module, "check_table", no_full_check)
    again = verify(out, dst.url, threads=1)
    assert again.ok and again.tables[0].path == "export", again.problems


@pytest.mark.parametrize(("source_engine", "target_engine"), [("mysql", "postgresql"), ("mariadb", "postgresql")])
def test_mysql_kinds_prove_by_the_postgresql_export(
    fresh_db: Any, tmp_path: Path, source_engine: str, target_engine: str
) -> None:
    """MySQL/MariaDB → PostgreSQL: an ``int unsigned`` key (a JSON number) kept in a bigint (whose
    export writes a string) and the other kinds prove by the target's export; a changed key fails."""
    src = fresh_db(source_engine)
    src.execute(MYSQL_TYPES)
    src.execute(MYSQL_ROWS)
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    dst = fresh_db(target_engine)
    import_database(out, dst.url, threads=1, verify=False)
    first = verify(out, dst.url, threads=1)
    assert first.ok and first.tables[0].path == "export", first.problems
    dst.execute("UPDATE kinds SET id = 4 WHERE id = 1")
    again = verify(out, dst.url, threads=1)
    assert not again.ok and "content checksum" in again.problems[0]


_VERIFY_MODULES = """
import atexit, runpy, sys
atexit.register(lambda: print("MODULES " + " ".join(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["dbjson", "verify", sys.argv[1], sys.argv[2], "--quiet"]
runpy.run_module("dbjson", run_name="__main__")
"""


def test_cross_engine_verify_does_not_import_sqlglot(fresh_db: Any, tmp_path: Path) -> None:
    """Verify plans the target's names and types through the DDL translation; a table without a
    ``nextval()`` default needs no SQL expression parsed, so sqlglot (0.1-0.2 s of start-up) is not
    imported by a MariaDB → PostgreSQL verify."""
    import subprocess
    import sys

    src = fresh_db("mariadb")
    src.execute("CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(40) DEFAULT 'x', doc JSON)")
    src.execute("""INSERT INTO t VALUES (1, 'a', '{"b": 1, "a": 2}')""")
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    dst = fresh_db("postgresql")
    import_database(out, dst.url, threads=1)
    p = subprocess.run(
        [sys.executable, "-c", _VERIFY_MODULES, str(out), dst.url], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, p.stderr
    loaded = set(next(ln for ln in p.stderr.splitlines() if ln.startswith("MODULES ")).split()[1:])
    assert "dbjson.verify" in loaded and "sqlglot" not in loaded
