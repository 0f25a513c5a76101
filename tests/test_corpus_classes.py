"""One focused test per failure class found by migrating the real databases of ``../shared/corpus``
(issue 15; the corpus itself runs in tests/test_corpus.py). Each test rebuilds the idiom on a small
synthetic schema, so it fails on the class, not on one corpus database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymysql
import pytest

from dbjson.migrate import migrate


def _verified(report: Any) -> None:
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems


# -- class 2: keys longer than InnoDB's 3072 bytes (PostgreSQL/SQLite text and uuid columns) -------------

LONG_KEYS_PG = """
CREATE TABLE attachment (
  id bigint PRIMARY KEY,
  record_type varchar NOT NULL,
  record_id uuid,
  name text NOT NULL,
  note varchar(2000),
  CONSTRAINT attachment_note_key UNIQUE (note)
);
CREATE UNIQUE INDEX attachment_uniq ON attachment (record_type, record_id, name);
CREATE INDEX attachment_name ON attachment (name);
INSERT INTO attachment VALUES
  (1, repeat('T', 1500), '6f1c1f6e-0000-4000-8000-000000000001', repeat('n', 5000) || 'a', repeat('x', 1999) || 'a'),
  (2, repeat('T', 1500), '6f1c1f6e-0000-4000-8000-000000000001', repeat('n', 5000) || 'b', repeat('x', 1999) || 'b'),
  (3, repeat('T', 1500), NULL, repeat('n', 5000) || 'a', NULL),
  (4, repeat('T', 1500), NULL, repeat('n', 5000) || 'a', NULL);
"""


@pytest.mark.parametrize("target", ["mysql", "mariadb"])
def test_unique_keys_and_indexes_over_long_text_keep_the_columns_and_the_uniqueness(
    fresh_db: Any, tmp_path: Path, target: str
) -> None:
    src = fresh_db("postgresql")
    src.execute(LONG_KEYS_PG)
    dst = fresh_db(target)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    text = "\n".join(report.translation)
    # the columns keep every character (no VARCHAR(n) shortening, no row rejected) ...
    assert "text-key-varchar" not in text and "varchar-unbounded-key" not in text, text
    assert [r[0] for r in dst.query("SELECT length(name) FROM attachment ORDER BY id")] == [5001] * 4
    # ... the long unique keys still refuse a duplicate (a hash), several NULLs are still allowed ...
    assert "long-unique-hash" in text and "long-key-prefix" in text, text
    for dup in (
        "INSERT INTO attachment (id, record_type, record_id, name) "
        "SELECT 9, record_type, record_id, name FROM attachment WHERE id = 1",
        "INSERT INTO attachment (id, record_type, name, note) SELECT 9, 'x', 'y', note FROM attachment WHERE id = 2",
    ):
        with pytest.raises(pymysql.err.IntegrityError):
            dst.execute(dup)
    # ... and values sharing a long prefix are still distinct keys
    dst.execute(
        "INSERT INTO attachment (id, record_type, record_id, name, note) "
        "SELECT 9, record_type, record_id, concat(name, 'z'), concat(left(note, 1999), 'c') FROM attachment WHERE id = 1"
    )


# -- schema-load, import and migrate leave no half schema on a target without transactional DDL ------------

TWO_TABLES = """
CREATE TABLE a (id INT PRIMARY KEY, note VARCHAR(20));
CREATE TABLE b (id INT PRIMARY KEY, a_id INT REFERENCES a (id));
CREATE TABLE c (id INT PRIMARY KEY);
INSERT INTO a VALUES (1, 'x');
INSERT INTO b VALUES (1, 1);
"""


def _relations(db: Any) -> set[str]:
    if db.engine == "postgresql":
        sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
    else:
        sql = f"SELECT table_name FROM information_schema.tables WHERE table_schema = '{db.name}'"
    return {r[0] for r in db.query(sql)}


def test_schema_load_on_mysql_undoes_what_it_created_when_a_statement_fails(fresh_db: Any) -> None:
    from dbjson.errors import ApplyError
    from dbjson.reflect import reflect
    from dbjson.schemaload import load_schema

    src = fresh_db("mysql")
    src.execute(TWO_TABLES)
    dst = fresh_db("mysql")
    dst.execute("CREATE VIEW b AS SELECT 1 AS one")  # table b cannot be created: a view holds the name
    with pytest.raises(ApplyError) as e:
        load_schema(reflect(src.url), dst.url)
    assert "undone" in str(e.value), str(e.value)
    assert _relations(dst) == {"b"}  # table a, created before the failure, was dropped again


@pytest.mark.parametrize("target", ["mariadb", "postgresql"])
def test_import_pre_data_failure_drops_the_tables_it_created(fresh_db: Any, tmp_path: Path, target: str) -> None:
    import orjson

    from dbjson.errors import ApplyError
    from dbjson.export import export_database
    from dbjson.importer.run import import_database

    src = fresh_db(target)
    src.execute(
        TWO_TABLES.replace("CREATE TABLE c (id INT PRIMARY KEY)", "CREATE TABLE c (id INT PRIMARY KEY, a_id INT)")
    )
    export_database(src.url, tmp_path / "out", threads=1)
    doc_file = tmp_path / "out" / "schema.json"
    doc = orjson.loads(doc_file.read_bytes())
    for t in doc["schemas"][0]["tables"]:
        if t["name"] == "c":  # a type the target does not have: CREATE TABLE c fails after a and b exist
            t["columns"][1]["native"]["raw"] = "no_such_type"
    doc_file.write_bytes(orjson.dumps(doc))
    dst = fresh_db(target)
    with pytest.raises(ApplyError) as e:
        import_database(tmp_path / "out", dst.url, threads=1)
    assert "undone" in str(e.value), str(e.value)
    assert _relations(dst) == set()


# -- class 4: SQLite ------------------------------------------------------------------------------------

SQLITE_DATES = """
CREATE TABLE o (
  id INTEGER PRIMARY KEY,
  made DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
  at_ms TIMESTAMP,
  day DATE,
  required DATETIME
);
INSERT INTO o VALUES
  (1, '2006-02-15 04:34:33', '2006-02-15 04:34:33.123', '2006-02-15', '2007-08-04 00:00:00'),
  (2, '2006-02-15 04:34:34', NULL, '0000-00-00', '2007-08-04- 00:00:00.000');
"""


def test_sqlite_dates_keep_their_text_on_sqlite_and_malformed_ones_stop_other_targets(
    fresh_db: Any, tmp_path: Path
) -> None:
    from dbjson.errors import DataError

    src = fresh_db("sqlite")
    src.execute(SQLITE_DATES)
    same = fresh_db("sqlite")
    _verified(migrate(src.url, same.url, threads=2, state_dir=tmp_path / "s1"))
    # SQLite → SQLite: the same text, byte for byte (no 'T'), the malformed text as the source held it
    assert same.query("SELECT * FROM o ORDER BY id") == src.query("SELECT * FROM o ORDER BY id")
    # ... and a row written by SQLite's own default has the same form as the loaded ones
    same.execute("INSERT INTO o (id) VALUES (3)")
    made = [r[0] for r in same.query("SELECT made FROM o ORDER BY id")]
    assert all(len(v) == 19 and v[10] == " " for v in made), made
    # another engine cannot hold the malformed text: a pre-flight error naming the column, nothing loaded
    dst = fresh_db("mysql")
    with pytest.raises(DataError) as e:
        migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s2")
    assert e.value.column == "required" and "not a date" in str(e.value)
    assert dst.query("SELECT count(*) FROM o") == [(0,)]


PG_FOR_SQLITE = """
CREATE TABLE t (
  id int PRIMARY KEY,
  price numeric,
  at timestamptz(3) DEFAULT now(),
  st text,
  a int,
  b int,
  CONSTRAINT one_of CHECK ((a IS NOT NULL) <> (b IS NOT NULL))
);
CREATE INDEX t_st ON t (st) WHERE st <> 'x';
CREATE INDEX t_a ON t (a);
CREATE INDEX t_b ON t (b);
INSERT INTO t VALUES (1, 2.70, '2024-01-02 03:04:05.678+00', 'a', 1, NULL), (2, 100.0, '2024-01-02 03:04:05+02', 'x', NULL, 2);
"""


def test_postgresql_into_sqlite_checks_partial_indexes_numeric_and_timestamps(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("postgresql")
    src.execute(PG_FOR_SQLITE)
    dst = fresh_db("sqlite")
    _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s"))  # numeric 2.70 reads back 2.7
    sql = " ".join(r[0] for r in dst.query("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"))
    assert "<>" in sql and "t_st" in sql  # the check and the partial index, both parsed by SQLite
    import sqlite3

    with pytest.raises(sqlite3.IntegrityError):
        dst.execute("INSERT INTO t (id, a, b) VALUES (3, 1, 1)")
    # timestamps in SQLite's own form, as its CURRENT_TIMESTAMP default writes them
    dst.execute("INSERT INTO t (id, a) VALUES (4, 1)")
    ats = [r[0] for r in dst.query("SELECT at FROM t ORDER BY id")]
    assert ats[:2] == ["2024-01-02 03:04:05.678", "2024-01-02 01:04:05.000"], ats
    assert all("T" not in v and not v.endswith("Z") for v in ats), ats


# -- class 5: MySQL <-> MariaDB ---------------------------------------------------------------------------

FAMILY = """
CREATE TABLE so (order_id INT NOT NULL, cust_id INT NOT NULL, doc JSON, PRIMARY KEY (order_id, cust_id));
CREATE TABLE od (id INT PRIMARY KEY, order_id INT NOT NULL, FOREIGN KEY (order_id) REFERENCES so (order_id));
INSERT INTO so VALUES (1, 7, '{"b": 1,  "a": [1, 2.50]}'), (2, 7, NULL);
INSERT INTO od VALUES (1, 1);
SET SESSION sql_mode = 'TRADITIONAL,ALLOW_INVALID_DATES';
CREATE PROCEDURE p() SELECT 1;
CREATE TRIGGER od_bi BEFORE INSERT ON od FOR EACH ROW SET NEW.id = NEW.id;
"""


def _modes(db: Any) -> dict[str, set[str]]:
    rows = db.query(
        "SELECT routine_name, sql_mode FROM information_schema.routines WHERE routine_schema = DATABASE() "
        "UNION ALL SELECT trigger_name, sql_mode FROM information_schema.triggers WHERE trigger_schema = DATABASE()"
    )
    # MariaDB's information_schema spells ALLOW_INVALID_DATES as INVALID_DATES
    return {
        name: {"ALLOW_INVALID_DATES" if w == "INVALID_DATES" else w for w in mode.split(",")} for name, mode in rows
    }


@pytest.mark.parametrize(("source", "target"), [("mariadb", "mysql"), ("mysql", "mariadb")])
def test_mysql_family_keeps_sql_modes_non_standard_foreign_keys_and_reports_json(
    fresh_db: Any, tmp_path: Path, source: str, target: str
) -> None:
    src = fresh_db(source)
    if source == "mysql":
        src.execute("SET SESSION restrict_fk_on_non_standard_key = OFF;\n" + FAMILY)
    else:
        src.execute(FAMILY)
    dst = fresh_db(target)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    text = "\n".join(report.translation)
    # the routine and the trigger carry their own sql_mode, not dbjson's session's
    for name, mode in _modes(dst).items():
        assert {"STRICT_TRANS_TABLES", "NO_ZERO_DATE", "ALLOW_INVALID_DATES"} <= mode, (name, mode)
        assert "NO_AUTO_VALUE_ON_ZERO" not in mode, (name, mode)
    # the foreign key to a non-unique key prefix (MariaDB takes it; MySQL 9 only with the check off)
    fks = dst.query(
        "SELECT constraint_name FROM information_schema.referential_constraints "
        "WHERE constraint_schema = DATABASE() AND table_name = 'od'"
    )
    assert len(fks) == 1, text
    if target == "mysql":
        assert "fk-non-standard-key" in text, text
        # MariaDB keeps the JSON text as written; MySQL's binary JSON does not: reported, verified by meaning
        assert "json-text-binary" in text, text
