"""Regressions found by migrating real PostgreSQL schemas that are not in the corpus (issue 15, "the
same holds on real databases that are not in the corpus"; docs/unseen-migrations.md, "Databases
outside the corpus"). Each test rebuilds one class on a minimal excerpt of the idiom."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from dbjson.errors import DataError
from dbjson.migrate import migrate


def _verified(report: Any) -> None:
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems


# -- 1. Rewrite rules (CREATE RULE): pagila routes payment rows into its inherited partitions ----------

# the idiom of pagila-schema.sql (devrimgunduz/pagila): partitions by INHERITS + CHECK, and an
# ON INSERT ... DO INSTEAD rule per partition on the parent
PAGILA_RULES = """
CREATE TABLE payment (payment_id serial PRIMARY KEY, amount numeric(5,2) NOT NULL, payment_date timestamp NOT NULL);
CREATE TABLE payment_p2007_01 (
  CONSTRAINT payment_p2007_01_payment_date_check
  CHECK (payment_date >= '2007-01-01' AND payment_date < '2007-02-01')
) INHERITS (payment);
CREATE RULE payment_insert_p2007_01 AS ON INSERT TO payment
  WHERE (new.payment_date >= '2007-01-01' AND new.payment_date < '2007-02-01')
  DO INSTEAD INSERT INTO payment_p2007_01 VALUES (new.*);
COMMENT ON RULE payment_insert_p2007_01 ON payment IS 'January 2007';
INSERT INTO payment (amount, payment_date) VALUES (2.99, '2007-01-24 21:40:19'), (0.99, '2007-01-25 15:16:50');
"""


def test_postgresql_rules_are_copied_and_reported_elsewhere(fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.schemadiff import diff

    src = fresh_db("postgresql")
    src.execute(PAGILA_RULES)
    pg = fresh_db("postgresql")
    _verified(migrate(src.url, pg.url, threads=2, state_dir=tmp_path / "s1"))
    # the rule was not read at all: the copy lost it, and diff (comparing documents) saw nothing
    rules = (
        "SELECT r.rulename, obj_description(r.oid, 'pg_rewrite') FROM pg_rewrite r"
        " JOIN pg_rules p USING (rulename) WHERE p.schemaname = 'public'"
    )
    assert pg.query(rules) == [("payment_insert_p2007_01", "January 2007")]
    assert not diff(src.url, pg.url).changes
    # the data went in before the rule (else it would redirect the load's own rows): still in the partition
    assert pg.query("SELECT count(*) FROM ONLY payment") == [(0,)]
    pg.execute("INSERT INTO payment (amount, payment_date) VALUES (1.99, '2007-01-26')")
    assert pg.query("SELECT count(*) FROM payment_p2007_01") == [(3,)]
    # another engine has no rules: the loss report says so
    lite = fresh_db("sqlite")
    report = migrate(src.url, lite.url, threads=2, state_dir=tmp_path / "s2")
    _verified(report)
    assert any("/options/postgresql/rules" in item and "payment_insert_p2007_01" in item for item in report.translation)


def test_a_crafted_rule_is_refused(fresh_db: Any, tmp_path: Path) -> None:
    """A rule definition is document text run on the target: it must be one CREATE RULE statement."""
    import dbjson
    from dbjson.errors import TranslationError
    from dbjson.model import Database

    src = fresh_db("postgresql")
    src.execute(PAGILA_RULES)
    doc = dbjson.reflect(src.url).to_dict()
    table = next(t for t in doc["schemas"][0]["tables"] if t["name"] == "payment")
    rule = table["options"]["postgresql"]["rules"][0]
    for bad in (
        "DROP TABLE payment",
        rule["definition"] + "; DROP TABLE payment",
        "CREATE RULE r AS ON INSERT TO payment DO (SELECT 1); DROP TABLE payment; (SELECT 1)",
    ):
        rule["definition"] = bad
        try:
            dbjson.to_ddl(Database.from_dict(doc), "postgresql")
        except TranslationError as e:
            assert "rule refused" in str(e)
        else:
            raise AssertionError(f"accepted: {bad}")


# -- 2. PostgreSQL inet into MariaDB: INET6 refused every IPv4 address and every netmask ---------------

# Rails (Devise's trackable: current_sign_in_ip inet), OpenStreetMap (creation_address inet), ...
INET_TABLE = """
CREATE TABLE users (id serial PRIMARY KEY, current_sign_in_ip inet, last_sign_in_ip inet NOT NULL);
INSERT INTO users (current_sign_in_ip, last_sign_in_ip) VALUES
  ('192.168.0.1', '::1'), ('10.0.0.1/24', '2001:db8::ff00:42:8329'), (NULL, '127.0.0.1');
"""


def test_postgresql_inet_into_mariadb_keeps_ipv4_and_netmasks(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("postgresql")
    src.execute(INET_TABLE)
    ma = fresh_db("mariadb")
    # was: "Incorrect inet6 value: '192.168.0.1'" and the migration stopped (exit 6)
    report = migrate(src.url, ma.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    assert ma.query("SELECT current_sign_in_ip, last_sign_in_ip FROM users ORDER BY id") == [
        ("192.168.0.1", "::1"),
        ("10.0.0.1/24", "2001:db8::ff00:42:8329"),
        (None, "127.0.0.1"),
    ]
    assert sum("[inet-varchar43]" in item for item in report.translation) == 2


def test_mariadb_inet6_stays_inet6(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("mariadb")
    src.execute("CREATE TABLE t (id INT PRIMARY KEY, a INET6)")
    src.execute("INSERT INTO t VALUES (1, '::ffff:1.2.3.4'), (2, '::1')")
    ma = fresh_db("mariadb")
    _verified(migrate(src.url, ma.url, threads=2, state_dir=tmp_path / "s"))
    sql = "SELECT data_type FROM information_schema.columns WHERE table_schema = DATABASE() AND column_name = 'a'"
    assert ma.query(sql) == [("inet6",)]


# -- 3. The independent check of the corpus test saw no generated column of a SQLite target -------------


def test_corpus_check_sees_generated_columns_in_sqlite(tmp_path: Path) -> None:
    from corpus_check import catalog

    path = tmp_path / "g.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " lower_name TEXT GENERATED ALWAYS AS (lower(name)) STORED, v TEXT AS (upper(name)) VIRTUAL);"
    )
    cat = catalog("sqlite", conn)
    conn.close()
    assert list(cat["u"].columns) == ["id", "name", "lower_name", "v"]


# -- 4. PostgreSQL's infinite dates ('infinity', '-infinity': a validity period's open end) into MySQL ------

INFINITY_TABLE = """
CREATE TABLE prices (
  id serial PRIMARY KEY,
  valid_from date NOT NULL DEFAULT '-infinity',
  valid_until timestamp DEFAULT 'infinity'
);
INSERT INTO prices (valid_from, valid_until) VALUES ('2024-01-01', DEFAULT), ('2024-02-01', '2025-01-01 00:00');
"""


@pytest.mark.parametrize("target_engine", ["mysql", "mariadb"])
def test_infinite_dates_into_mysql(fresh_db: Any, tmp_path: Path, target_engine: str) -> None:
    src = fresh_db("postgresql")
    src.execute(INFINITY_TABLE)
    dst = fresh_db(target_engine)
    # was: CREATE TABLE refused (1067, "Invalid default value for 'valid_until'"); then, with the
    # default gone, verify failed: the rows' 'infinity' loaded as NULL under no value rule
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s1")
    _verified(report)
    assert dst.query("SELECT valid_from, valid_until FROM prices ORDER BY id") == [
        (date(2024, 1, 1), None),
        (date(2024, 2, 1), datetime(2025, 1, 1)),
    ]
    rules = " ".join(report.translation)
    assert rules.count("[infinite-date-default]") == 2 and "[infinite-date-not-null]" in rules
    assert any("infinite date" in str(f) for f in report.load.findings)
    # --zero-dates error: the value stops the run before any row loads, named
    again = fresh_db(target_engine)
    with pytest.raises(DataError, match="infinite date"):
        migrate(src.url, again.url, threads=2, state_dir=tmp_path / "s2", zero_dates="error")


def test_infinite_dates_stay_in_postgresql_and_sqlite(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("postgresql")
    src.execute(INFINITY_TABLE)
    lite = fresh_db("sqlite")
    _verified(migrate(src.url, lite.url, threads=2, state_dir=tmp_path / "s1"))
    assert lite.query("SELECT valid_until FROM prices ORDER BY id")[0] == ("infinity",)
    pg = fresh_db("postgresql")
    _verified(migrate(src.url, pg.url, threads=2, state_dir=tmp_path / "s2"))
    assert pg.query("SELECT valid_until::text FROM prices ORDER BY id")[0] == ("infinity",)


# -- 5. LEAST/GREATEST ignore NULLs in PostgreSQL, not in MySQL/MariaDB (Supabase's auth.users) --------------

LEAST_TABLE = """
CREATE TABLE users (
  id int PRIMARY KEY,
  email_confirmed_at timestamp,
  phone_confirmed_at timestamp,
  confirmed_at timestamp GENERATED ALWAYS AS (LEAST(email_confirmed_at, phone_confirmed_at)) STORED,
  last_seen timestamp GENERATED ALWAYS AS (GREATEST(email_confirmed_at, phone_confirmed_at)) STORED
);
INSERT INTO users (id, email_confirmed_at, phone_confirmed_at) VALUES
  (1, '2024-01-01', NULL), (2, NULL, NULL), (3, '2024-03-01', '2024-02-01');
"""


@pytest.mark.parametrize("target_engine", ["mysql", "mariadb"])
def test_least_greatest_ignore_nulls_into_mysql(fresh_db: Any, tmp_path: Path, target_engine: str) -> None:
    src = fresh_db("postgresql")
    src.execute(LEAST_TABLE)
    dst = fresh_db(target_engine)
    # was: LEAST(`email_confirmed_at`, `phone_confirmed_at`), NULL for user 1: verify failed
    _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s"))
    assert dst.query("SELECT confirmed_at, last_seen FROM users ORDER BY id") == [
        (datetime(2024, 1, 1), datetime(2024, 1, 1)),
        (None, None),
        (datetime(2024, 2, 1), datetime(2024, 3, 1)),
    ]


# -- 6. A policy that calls a function (Supabase: USING (auth.uid() = id)) ----------------------------------

POLICY_FUNCTION = """
CREATE SCHEMA auth;
CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE
  AS $$ SELECT nullif(current_setting('request.jwt.claim.sub', true), '')::uuid $$;
CREATE TABLE profiles (id uuid PRIMARY KEY, username text);
ALTER TABLE profiles ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Users can update own profile." ON profiles FOR UPDATE USING (auth.uid() = id);
CREATE RULE profiles_no_delete AS ON DELETE TO profiles WHERE old.id = auth.uid() DO INSTEAD NOTHING;
"""


def test_policies_and_rules_come_after_the_routines_they_call(fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.schemadiff import diff

    src = fresh_db("postgresql")
    src.execute(POLICY_FUNCTION)
    pg = fresh_db("postgresql")
    # was: "function auth.uid() does not exist": the table's policies ran before the routines
    _verified(migrate(src.url, pg.url, threads=2, state_dir=tmp_path / "s"))
    assert pg.query("SELECT policyname FROM pg_policies") == [("Users can update own profile.",)]
    assert not diff(src.url, pg.url).changes


# -- 7. Two identity (or serial) columns in one table: MySQL and MariaDB allow one AUTO_INCREMENT --------------

TWO_IDENTITIES = """
CREATE TABLE tickets (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  number serial NOT NULL,
  counter smallint GENERATED BY DEFAULT AS IDENTITY (START WITH 100 INCREMENT BY 10),
  title text
);
INSERT INTO tickets (title) VALUES ('a'), ('b');
"""


@pytest.mark.parametrize("target_engine", ["mysql", "mariadb"])
def test_second_identity_column_into_mysql(fresh_db: Any, tmp_path: Path, target_engine: str) -> None:
    src = fresh_db("postgresql")
    src.execute(TWO_IDENTITIES)
    dst = fresh_db(target_engine)
    # was: (1075, 'Incorrect table definition; there can be only one auto column ...'), nothing created
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    assert dst.query("SELECT id, number, counter, title FROM tickets ORDER BY id") == [
        (1, 1, 100, "a"),
        (2, 2, 110, "b"),
    ]
    dropped = [item for item in report.translation if "[identity-second-dropped]" in item]
    assert len(dropped) == 2 and "/columns/1/identity" in dropped[0] + dropped[1]
    dst.execute("INSERT INTO tickets (number, counter, title) VALUES (3, 120, 'c')")  # the key still counts
    assert dst.query("SELECT max(id) FROM tickets") == [(3,)]


# -- 8. Rules on a view (the updatable-view idiom of older schemas) -------------------------------------------

VIEW_RULE = """
CREATE TABLE account (id serial PRIMARY KEY, name text NOT NULL, deleted boolean NOT NULL DEFAULT false);
CREATE VIEW live_account AS SELECT id, name FROM account WHERE NOT deleted;
CREATE RULE live_account_ins AS ON INSERT TO live_account DO INSTEAD INSERT INTO account (name) VALUES (new.name);
INSERT INTO account (name) VALUES ('a');
"""


def test_rules_on_views(fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.schemadiff import diff

    src = fresh_db("postgresql")
    src.execute(VIEW_RULE)
    pg = fresh_db("postgresql")
    _verified(migrate(src.url, pg.url, threads=2, state_dir=tmp_path / "s1"))
    pg.execute("INSERT INTO live_account (name) VALUES ('b')")
    assert pg.query("SELECT name FROM account ORDER BY id") == [("a",), ("b",)]
    assert not diff(src.url, pg.url).changes
    my = fresh_db("mysql")
    report = migrate(src.url, my.url, threads=2, state_dir=tmp_path / "s2")
    _verified(report)
    assert any("[view-rule-dropped]" in item and "live_account_ins" in item for item in report.translation)


# -- 9. time with time zone into MySQL/MariaDB: the local time is kept (reported), verify compares that ----------


@pytest.mark.parametrize("target_engine", ["mysql", "mariadb"])
def test_timetz_into_mysql_verifies_the_local_time(fresh_db: Any, tmp_path: Path, target_engine: str) -> None:
    src = fresh_db("postgresql")
    src.execute(
        "CREATE TABLE t (id int PRIMARY KEY, a timetz, b time(3) with time zone);"
        "INSERT INTO t VALUES (1, '10:00:00+02', '23:59:59.123-05:30'), (2, '00:00:00Z', NULL), (3, NULL, '12:00+00');"
    )
    dst = fresh_db(target_engine)
    # was: verify failed (exit 7) on the offsets the report says are dropped
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    assert sum("[timetz-time]" in item for item in report.translation) == 2
    rows = dst.query("SELECT CAST(a AS CHAR), CAST(b AS CHAR) FROM t ORDER BY id")
    assert rows == [("10:00:00.000000", "23:59:59.123"), ("00:00:00.000000", None), (None, "12:00:00.000")]


# -- 10. A column whose type is another table's row type: that table is created first ---------------------------


def test_row_type_column_table_comes_first(fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.schemadiff import diff

    src = fresh_db("postgresql")
    # "a_holder" sorts (and was created) before "zz_item", whose row type its columns use
    src.execute(
        "CREATE TABLE zz_item (id int PRIMARY KEY, name text);"
        "CREATE TABLE a_holder (id int PRIMARY KEY, st zz_item, items public.zz_item[]);"
        "INSERT INTO zz_item VALUES (1, 'x');"
        "INSERT INTO a_holder VALUES (1, ROW(1, 'x'), ARRAY[ROW(2, 'y')::zz_item]), (2, NULL, '{}');"
    )
    pg = fresh_db("postgresql")
    # was: type "public.zz_item" does not exist, exit 8
    _verified(migrate(src.url, pg.url, threads=2, state_dir=tmp_path / "s"))
    assert pg.query("SELECT st::text, items::text FROM a_holder ORDER BY id") == [("(1,x)", '{"(2,y)"}'), (None, "{}")]
    assert not diff(src.url, pg.url).changes


# -- 11. ... and the other way: MySQL's and SQLite's LEAST/GREATEST (MIN/MAX) are NULL when any argument is ------


@pytest.mark.parametrize("source_engine", ["mysql", "sqlite"])
def test_least_greatest_propagate_nulls_into_postgresql(fresh_db: Any, tmp_path: Path, source_engine: str) -> None:
    src = fresh_db(source_engine)
    least = "LEAST(a, b)" if source_engine == "mysql" else "min(a, b)"
    src.execute(f"CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, lo INT GENERATED ALWAYS AS ({least}) STORED)")
    src.execute("INSERT INTO t (id, a, b) VALUES (1, 1, NULL), (2, 3, 2)")
    pg = fresh_db("postgresql")
    # was: LEAST("a", "b"), which PostgreSQL computes as 1 for row 1 (NULL in the source): verify failed
    _verified(migrate(src.url, pg.url, threads=2, state_dir=tmp_path / "s"))
    assert pg.query("SELECT lo FROM t ORDER BY id") == [(None,), (2,)]


def test_a_rule_with_several_actions(fresh_db: Any, tmp_path: Path) -> None:
    """pg_get_ruledef prints DO (a; b;): the ';' inside the action list is not a second statement."""
    from dbjson.schemadiff import diff

    src = fresh_db("postgresql")
    src.execute(
        "CREATE TABLE t (id int PRIMARY KEY, v text); CREATE TABLE log (id serial PRIMARY KEY, what text);"
        "CREATE RULE t_log AS ON INSERT TO t DO ALSO (INSERT INTO log (what) VALUES ('a');"
        " INSERT INTO log (what) VALUES (new.v));"
    )
    pg = fresh_db("postgresql")
    _verified(migrate(src.url, pg.url, threads=2, state_dir=tmp_path / "s"))
    pg.execute("INSERT INTO t VALUES (1, 'b')")
    assert pg.query("SELECT what FROM log ORDER BY id") == [("a",), ("b",)]
    assert not diff(src.url, pg.url).changes


def test_timetz_into_sqlite_keeps_its_text(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("postgresql")
    src.execute("CREATE TABLE t (id int PRIMARY KEY, a timetz); INSERT INTO t VALUES (1, '10:00:00+02'), (2, NULL);")
    lite = fresh_db("sqlite")
    _verified(migrate(src.url, lite.url, threads=2, state_dir=tmp_path / "s"))
    assert lite.query("SELECT a FROM t ORDER BY id") == [("10:00:00.000000+02:00",), (None,)]  # the offset stays


# -- 12. Unconstrained numeric with more than 15 significant digits into SQLite (a double there) -----------------


def test_long_numeric_into_sqlite_is_a_finding_and_verifies_at_double_precision(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("postgresql")
    src.execute(
        "CREATE TABLE t (id int PRIMARY KEY, big numeric, fixed numeric(40, 9));"
        "INSERT INTO t VALUES (1, 123456789012345678901234567890.123456789, 1), (2, 2.70, 2),"
        " (3, NULL, NULL), (4, 12345678901234567.5, 4), (5, 0.1234567890123456789, 5);"
    )
    lite = fresh_db("sqlite")
    # was: verify failed (exit 7) on the values the report says are stored inexactly
    report = migrate(src.url, lite.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    digits = [f for f in report.load.findings if "significant digits" in str(f)]
    assert digits and all(f.column == "big" for f in digits)
    assert lite.query("SELECT big FROM t WHERE id = 2") == [(2.7,)]


def test_nan_double_into_sqlite_is_refused_not_nulled(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("postgresql")
    src.execute("CREATE TABLE t (id int PRIMARY KEY, d double precision); INSERT INTO t VALUES (1, 1.5), (2, 'NaN');")
    lite = fresh_db("sqlite")
    # was: stored as NULL by SQLite, then verify failed (exit 7); now named, as MySQL does
    with pytest.raises(DataError, match="NaN does not fit a SQLite number"):
        migrate(src.url, lite.url, threads=2, state_dir=tmp_path / "s")
