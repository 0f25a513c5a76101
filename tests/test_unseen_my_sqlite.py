"""Failure classes found by migrating real MySQL, MariaDB and SQLite databases that are not in the corpus
(WordPress, MediaWiki, a Firefox places.sqlite, Django and Rails SQLite schemas; docs/unseen-migrations.md,
"Databases outside the corpus: MySQL, MariaDB, SQLite"). Each test rebuilds the idiom on a small schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dbjson.migrate import migrate
from dbjson.reflect import reflect


def _verified(report: Any) -> None:
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems


# -- 1. BINARY/VARBINARY defaults that are not text (MediaWiki: ``bp_token BINARY(32) DEFAULT '' NOT NULL``) --------
# MySQL pads '' to 32 NUL bytes. Reflection read the bytes with DEFAULT(col) over an outer-joined row, which is
# NULL for a NOT NULL column: MySQL then fell back to information_schema's '0x' (a different default), MariaDB to
# the NUL text, which PostgreSQL ("unterminated quoted string") and SQLite ("null character") refused, stopping
# the schema load; a 0x… default was dropped (expression-guard), so inserts without the column failed.

BINARY_DEFAULTS = """
CREATE TABLE bot_passwords (
  bp_user INT UNSIGNED NOT NULL PRIMARY KEY,
  bp_token BINARY(4) DEFAULT '' NOT NULL,
  bp_flag VARBINARY(2) NOT NULL DEFAULT 0xFF00,
  bp_opt VARBINARY(2) DEFAULT 0x00FF,
  bp_text VARBINARY(8) NOT NULL DEFAULT 'ab'
)
"""


@pytest.mark.parametrize("source_engine", ["mysql", "mariadb"])
def test_binary_defaults_keep_their_bytes_on_every_engine(fresh_db: Any, tmp_path: Path, source_engine: str) -> None:
    src = fresh_db(source_engine)
    src.execute(BINARY_DEFAULTS)  # no rows: the defaults must come from the catalog alone
    defaults = {c.name: c.default for c in reflect(src.url).schemas[0].tables[0].columns}
    assert defaults["bp_token"] is not None and defaults["bp_token"].value.upper() == "0X00000000"
    assert defaults["bp_flag"] is not None and defaults["bp_flag"].value.upper() == "0XFF00"
    assert defaults["bp_opt"] is not None and defaults["bp_opt"].value.upper() == "0X00FF"
    for target in ("postgresql", "sqlite", "mysql" if source_engine == "mariadb" else "mariadb"):
        dst = fresh_db(target)
        report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / target)
        _verified(report)
        assert not [t for t in report.translation if "/default" in str(t)], report.translation
        dst.execute("INSERT INTO bot_passwords (bp_user) VALUES (7)")
        row = dst.query("SELECT bp_token, bp_flag, bp_opt, bp_text FROM bot_passwords WHERE bp_user = 7")[0]
        assert [bytes(v) for v in row] == [b"\0\0\0\0", b"\xff\0", b"\0\xff", b"ab"], (target, row)


# -- 2. SQLite values of another storage class than the declared type ---------------------------------------------
# '' and 'n/a' in an INTEGER column, Unix times in a DATETIME column, 'yes' in a BOOLEAN one: SQLite keeps them
# (tables that are not STRICT), and every real SQLite database has some. The export stopped at the first one
# ("cannot encode value as integer: not an integer (value '')"), even SQLite -> SQLite. Such a column is now
# reflected untyped (opaque): SQLite -> SQLite keeps the declared type and every value with its storage class
# (the column's affinity turns the text back into numbers); other engines get text, reported.

MIXED = """
CREATE TABLE m (id INTEGER PRIMARY KEY, n INTEGER, r REAL, ts DATETIME, b BOOLEAN, fine INTEGER, t TEXT);
INSERT INTO m VALUES (1, 5, 1.5, '2024-01-02 03:04:05', 1, 1, 'x');
INSERT INTO m VALUES (2, '', 'abc', 1700000000, 'yes', 2, 12);
INSERT INTO m VALUES (3, 'n/a', 7, 1700000000.5, 2, 3, NULL);
"""
MIXED_QUERY = "SELECT quote(n), quote(r), quote(ts), quote(b), quote(fine), quote(t) FROM m ORDER BY id"


def test_sqlite_values_of_another_storage_class_migrate(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("sqlite")
    src.execute(MIXED)
    kinds = {c.name: c.type.kind for c in reflect(src.url).schemas[0].tables[0].columns}
    assert kinds == {
        "id": "integer",
        "n": "opaque",
        "r": "opaque",
        "ts": "opaque",
        "b": "opaque",
        "fine": "integer",
        "t": "text",
    }
    lite = fresh_db("sqlite")
    report = migrate(src.url, lite.url, threads=2, state_dir=tmp_path / "lite")
    _verified(report)
    assert lite.query(MIXED_QUERY) == src.query(MIXED_QUERY)  # the storage classes too
    assert "INTEGER" in lite.query("SELECT sql FROM sqlite_master WHERE name = 'm'")[0][0]
    for target in ("postgresql", "mysql"):
        dst = fresh_db(target)
        report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / target)
        _verified(report)
        assert any("/columns/1/type" in str(t) for t in report.translation), report.translation
        got = dst.query("SELECT n, ts, b FROM m ORDER BY id")
        assert [tuple(map(str, r)) for r in got] == [
            ("5", "2024-01-02 03:04:05", "1"),
            ("", "1700000000", "yes"),
            ("n/a", "1700000000.5", "2"),
        ]


def test_sqlite_bytes_in_an_untyped_column_stop_naming_table_and_column(fresh_db: Any, tmp_path: Path) -> None:
    """Bytes that are not UTF-8 in an untyped column mixed with text (Firefox's ``moz_meta.value``) have no
    text for a target column of text: the run stops, naming the table and the column (the message named
    neither). SQLite keeps them as blobs (data format 1.4: tests/test_sqlite_storage_class.py)."""
    from dbjson.errors import DataError

    src = fresh_db("sqlite")
    src.execute("CREATE TABLE moz_meta (key TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID;")
    src.execute("INSERT INTO moz_meta VALUES ('a', 'text'), ('b', x'00ff');")
    with pytest.raises(DataError) as e:
        migrate(src.url, fresh_db("postgresql").url, threads=2, state_dir=tmp_path / "s")
    assert e.value.table == "main.moz_meta" and e.value.column == "value", str(e.value)


# -- 3. MySQL <-> MariaDB partitioned tables: the partitioning is written as it is, but the report said -----------
#       "partitioning not translated (the table is created unpartitioned)" (a false loss).


@pytest.mark.parametrize(("source_engine", "target_engine"), [("mysql", "mariadb"), ("mariadb", "mysql")])
def test_partitioning_kept_in_the_family_is_not_reported_lost(
    fresh_db: Any, tmp_path: Path, source_engine: str, target_engine: str
) -> None:
    src = fresh_db(source_engine)
    src.execute(
        "CREATE TABLE events (id BIGINT NOT NULL, happened DATE NOT NULL, PRIMARY KEY (id, happened)) "
        "PARTITION BY RANGE (YEAR(happened)) (PARTITION p2023 VALUES LESS THAN (2024), "
        "PARTITION pmax VALUES LESS THAN MAXVALUE)"
    )
    src.execute("INSERT INTO events VALUES (1, '2023-05-01'), (2, '2030-01-01')")
    dst = fresh_db(target_engine)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    assert not [t for t in report.translation if "partitioning" in str(t)], report.translation
    names = dst.query(
        "SELECT partition_name FROM information_schema.partitions WHERE table_schema = DATABASE() "
        "AND table_name = 'events' ORDER BY partition_ordinal_position"
    )
    assert [r[0] for r in names] == ["p2023", "pmax"]


# -- 4. SQLite schema idioms: STRICT tables' ANY columns, Django's CHECK ((...)), FTS5 virtual tables -------------
# ANY was typed as an opaque type over decimal (the affinity of an unknown name), so its text failed to load on
# every other engine; CHECK ((a OR b)) came back as CHECK (a OR b), and the same-engine diff was never empty;
# a virtual table (FTS5) became a plain table on SQLite without a word (other engines report the option).


def _diff(a: str, b: str) -> list[Any]:
    import orjson
    from typer.testing import CliRunner

    from dbjson.cli import app

    result = CliRunner().invoke(app, ["diff", a, b, "--json"])
    return list(orjson.loads(result.stdout)["changes"]) if result.stdout else [result.exit_code]


def test_sqlite_strict_any_django_checks_and_fts5(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("sqlite")
    src.execute(
        "CREATE TABLE strict_t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, a ANY) STRICT;"
        "INSERT INTO strict_t VALUES (1, 2, 'any'), (2, 3, 3), (3, 4, 2.5), (4, 5, NULL);"
        'CREATE TABLE "shop_order" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, '
        '"data" text NOT NULL CHECK ((JSON_VALID("data") OR "data" IS NULL)));'
        "INSERT INTO shop_order (data) VALUES ('{}');"
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
        "CREATE VIRTUAL TABLE notes_fts USING fts5(body);"
        "INSERT INTO notes_fts (body) VALUES ('hello world');"
    )
    lite = fresh_db("sqlite")
    report = migrate(src.url, lite.url, threads=2, state_dir=tmp_path / "lite")
    _verified(report)
    assert [str(t) for t in report.translation if "virtual-table-plain" in str(t)], report.translation
    # the values (a number in a column without affinity comes back as its text: docs/unseen-migrations.md)
    assert lite.query("SELECT CAST(a AS TEXT) FROM strict_t ORDER BY id") == [("any",), ("3",), ("2.5",), (None,)]
    changes = _diff(src.url, lite.url)
    assert [c["path"] for c in changes] == ["/schemas/0/tables/1/options"], changes  # only the virtual table
    pg = fresh_db("postgresql")
    report = migrate(src.url, pg.url, threads=2, state_dir=tmp_path / "pg")
    _verified(report)
    assert pg.query("SELECT a FROM strict_t ORDER BY id") == [("any",), ("3",), ("2.5",), (None,)]


# -- 5. The corpus check (tests/corpus_check.py) and MySQL key idioms: WordPress's prefix keys ----------------------
# ``KEY meta_key (meta_key(191))`` becomes ``substr(meta_key, 1, 191)`` on PostgreSQL and SQLite (the same
# key), which the independent check reported as a missing index; a SPATIAL key's SUB_PART (32, the bounding
# box) read as a prefix made MySQL <-> MariaDB copies look different.


@pytest.mark.parametrize("target", ["postgresql", "sqlite", "mariadb"])
def test_prefix_and_spatial_keys_are_recognized_by_the_corpus_check(fresh_db: Any, tmp_path: Path, target: str) -> None:
    import orjson
    from corpus_check import catalog, unreported

    src = fresh_db("mysql")
    src.execute(
        "CREATE TABLE wp_postmeta (meta_id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, "
        "meta_key VARCHAR(255) DEFAULT NULL, domain VARCHAR(200) NOT NULL DEFAULT '', path VARCHAR(100) NOT NULL "
        "DEFAULT '', pt POINT NOT NULL SRID 0, KEY meta_key (meta_key(191)), KEY domain (domain(140), path(51)), "
        "SPATIAL KEY sp (pt))"
    )
    dst = fresh_db(target)
    keep = tmp_path / "keep"
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s", keep=keep)
    _verified(report)
    doc = orjson.loads((keep / "schema.json").read_bytes())
    conn = dst.connect()
    try:
        cat = catalog(target, conn, getattr(dst, "name", None))
    finally:
        conn.close()
    parts = sorted(i.parts for t in cat.values() for i in t.indexes)
    assert ("meta_key(191)",) in parts and ("domain(140)", "path(51)") in parts, parts
    got = unreported(doc, report.to_dict(), cat)
    assert got == [], got


# -- 6. MySQL -> MySQL: a CHECK on an ascii/latin1 column is stored with the creating session's charset ------------
#       introducer (``_ascii''``); the copy, made over utf8mb4, reads ``_utf8mb4''``: never a fixpoint.


def test_mysql_check_charset_introducers_do_not_make_a_copy_differ(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("mysql")
    src.execute(
        "CREATE TABLE tree (id INT PRIMARY KEY, name VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL, "
        "l VARCHAR(10) CHARACTER SET latin1, CONSTRAINT chk_name CHECK (name <> ''), CONSTRAINT chk_l CHECK (l <> 'x'))"
    )
    dst = fresh_db("mysql")
    _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s"))
    checks = [c.expression for c in reflect(src.url).schemas[0].tables[0].checks]
    assert any("_" in c for c in checks), checks  # the server's introducers are there
    assert _diff(src.url, dst.url) == []


# -- 7. MySQL: an ENUM of a binary-charset table (MediaWiki: DEFAULT CHARSET=binary) ---------------------------------
#       information_schema shows its default in hex ('0x70616765' for 'page'): MySQL and MariaDB refused it
#       ("Invalid default value"), PostgreSQL too; SQLite silently got the hex text as the default.


@pytest.mark.parametrize("target", ["mysql", "mariadb", "postgresql", "sqlite"])
def test_enum_default_of_a_binary_charset_table(fresh_db: Any, tmp_path: Path, target: str) -> None:
    src = fresh_db("mysql")
    src.execute(
        "CREATE TABLE categorylinks (cl_from INT UNSIGNED NOT NULL PRIMARY KEY, "
        "cl_type ENUM('page', 'subcat', 'file') DEFAULT 'page' NOT NULL) ENGINE=InnoDB, DEFAULT CHARSET=binary"
    )
    default = reflect(src.url).schemas[0].tables[0].columns[1].default
    assert default is not None and default.value == "page"
    dst = fresh_db(target)
    _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s"))
    dst.execute("INSERT INTO categorylinks (cl_from) VALUES (1)")
    value = dst.query("SELECT cl_type FROM categorylinks")[0][0]
    assert (value.decode() if isinstance(value, bytes) else value) == "page"


# -- 8. Django's SQLite ``datetime`` columns (no precision) hold microseconds: into MySQL/MariaDB (DATETIME(6)) ------
#       verify re-encoded the target's values under the source type (precision unspecified, 0) and cut them to
#       whole seconds: "content checksum differs" after a load that was right.


@pytest.mark.parametrize("target", ["mysql", "mariadb"])
def test_sqlite_datetimes_with_microseconds_verify_on_mysql(fresh_db: Any, tmp_path: Path, target: str) -> None:
    src = fresh_db("sqlite")
    src.execute(
        'CREATE TABLE "django_migrations" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, '
        '"app" varchar(255) NOT NULL, "applied" datetime NOT NULL);'
        "INSERT INTO django_migrations VALUES (1, 'auth', '2024-01-02 03:04:05.123456'), "
        "(2, 'shop', '2024-01-02 03:04:06'), (3, 'x', '2024-01-02 03:04:07.5');"
    )
    dst = fresh_db(target)
    _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s"))
    got = [str(r[0]) for r in dst.query("SELECT applied FROM django_migrations ORDER BY id")]
    assert got == ["2024-01-02 03:04:05.123456", "2024-01-02 03:04:06", "2024-01-02 03:04:07.500000"]


# -- 9. SQLite DATETIME text with a UTC offset ('2024-06-02T03:04:05+02:00', as many JavaScript and Python libraries
#       write): MySQL shifted it to UTC and PostgreSQL dropped the offset, both failing verify after the load;
#       MariaDB refused the row halfway through. Now the pre-flight stops before any row loads, naming the value.


@pytest.mark.parametrize("target", ["mysql", "mariadb", "postgresql"])
def test_sqlite_timestamp_text_with_an_offset_stops_at_the_preflight(
    fresh_db: Any, tmp_path: Path, target: str
) -> None:
    from dbjson.errors import DbjsonError

    src = fresh_db("sqlite")
    src.execute(
        "CREATE TABLE iso (id INTEGER PRIMARY KEY, at DATETIME);"
        "INSERT INTO iso VALUES (1, '2024-01-02T03:04:05Z'), (2, '2024-06-02T03:04:05+02:00');"
    )
    dst = fresh_db(target)
    with pytest.raises(DbjsonError) as e:
        migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    assert e.value.exit_code == 6 and "UTC offset" in str(e.value) and "+02:00" in str(e.value), str(e.value)
    lite = fresh_db("sqlite")  # the same engine keeps the text as it is
    _verified(migrate(src.url, lite.url, threads=2, state_dir=tmp_path / "lite"))


# -- 10. MariaDB ``DEFAULT NEXTVAL(seq)`` into PostgreSQL: the sequence was created, the default dropped
#        (expression-guard), so an insert without the key failed there.


def test_mariadb_nextval_default_into_postgresql(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("mariadb")
    src.execute("CREATE SEQUENCE seq_ord START WITH 100 INCREMENT BY 5")
    src.execute("CREATE TABLE ord (id INT NOT NULL DEFAULT NEXTVAL(seq_ord) PRIMARY KEY, note VARCHAR(20))")
    src.execute("INSERT INTO ord (note) VALUES ('a'), ('b')")
    dst = fresh_db("postgresql")
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    assert not [t for t in report.translation if "/columns/0/default" in str(t)], report.translation
    dst.execute("INSERT INTO ord (note) VALUES ('c')")
    ids = [r[0] for r in dst.query("SELECT id FROM ord ORDER BY id")]
    assert ids[:2] == [100, 105] and ids[2] > 105 and (ids[2] - 100) % 5 == 0, ids
