"""Regressions found by acceptance runs on real-world sample schemas (Sakila, Pagila, world_x...).

Each test rebuilds the pattern that failed with a small synthetic schema (never third-party
data): the failing command is the one named in the docstring.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dbjson import Database
from dbjson.export import export_database
from dbjson.importer import import_database
from dbjson.reflect import reflect
from dbjson.schemaload import load_schema, to_ddl
from dbjson.verify import verify


def test_schema_load_create_makes_the_mysql_database(server_engine: str, fresh_db: Any) -> None:
    """``schema-load --to mysql://.../new --create`` created nothing: URL.set(database=None) is a no-op."""
    if server_engine == "postgresql":
        pytest.skip("PostgreSQL's admin connection names the postgres database")
    src = fresh_db(server_engine)
    src.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    doc = reflect(src.url)
    target = fresh_db(server_engine)
    target.drop()  # a name that does not exist yet (dropped again by the fixture)
    load_schema(doc, target.url, create=True)
    assert target.query("SELECT COUNT(*) FROM t") == [(0,)]


PG_FUNCTIONS_AND_VIEWS = """
SET check_function_bodies = off;
CREATE FUNCTION _cat(text, text) RETURNS text LANGUAGE sql IMMUTABLE
    AS $$ SELECT CASE WHEN $1 IS NULL THEN $2 ELSE $1 || ', ' || $2 END $$;
CREATE AGGREGATE cat(text) (SFUNC = _cat, STYPE = text);
CREATE TABLE item (id int PRIMARY KEY, name text);
CREATE FUNCTION a_uses_later(p int) RETURNS SETOF int LANGUAGE sql
    AS $$ SELECT id FROM item WHERE z_in_stock(id) AND id = p $$;
CREATE FUNCTION z_in_stock(p int) RETURNS boolean LANGUAGE sql AS $$ SELECT p > 0 $$;
CREATE VIEW names AS SELECT cat(name) AS all_names FROM item;
"""


def test_pg_views_using_user_aggregates_load_same_engine(fresh_db: Any) -> None:
    """Pagila: views calling a user aggregate failed (views were created before routines), and a
    SQL function naming a later function failed its body check."""
    src = fresh_db("postgresql")
    src.execute(PG_FUNCTIONS_AND_VIEWS)
    doc = reflect(src.url)
    target = fresh_db("postgresql")
    load_schema(doc, target.url)
    target.execute("INSERT INTO item VALUES (1, 'a'), (2, 'b')")
    assert target.query("SELECT all_names FROM names") == [("a, b",)]
    assert target.query("SELECT * FROM a_uses_later(2)") == [(2,)]


PG_PARTITIONS = """
CREATE TABLE pay (id int NOT NULL, at date NOT NULL, amount numeric(5,2), PRIMARY KEY (at, id))
    PARTITION BY RANGE (at);
CREATE TABLE pay_a PARTITION OF pay FOR VALUES FROM ('2022-01-01') TO ('2022-02-01');
CREATE TABLE pay_b PARTITION OF pay FOR VALUES FROM ('2022-02-01') TO ('2022-03-01');
INSERT INTO pay VALUES (1, '2022-01-05', 1.50), (2, '2022-02-07', 2.25), (3, '2022-02-08', NULL);
CREATE TABLE base (id int PRIMARY KEY, v text);
CREATE TABLE derived (extra int) INHERITS (base);
INSERT INTO base VALUES (1, 'base row');
INSERT INTO derived VALUES (2, 'derived row', 9);
"""


def _exported_rows(out: Path) -> dict[str, int]:
    manifest = json.loads((out / "manifest.json").read_text())
    return {f"{t['schema']}.{t['name']}": t["rows"] for t in manifest["tables"]}


@pytest.mark.parametrize("target_engine", ["postgresql", "sqlite"])
def test_partitioned_and_inherited_rows_are_exported_once(fresh_db: Any, tmp_path: Path, target_engine: str) -> None:
    """Pagila: the partitioned parent and its partitions were both exported (every row twice), so
    PostgreSQL → PostgreSQL import failed with a duplicate key; inheritance parents likewise."""
    src = fresh_db("postgresql")
    src.execute(PG_PARTITIONS)
    out = tmp_path / "out"
    export_database(src.url, out, threads=2)
    rows = _exported_rows(out)
    assert sum(n for name, n in rows.items() if name.startswith("public.pay")) == 3
    assert sum(n for name, n in rows.items() if name in ("public.base", "public.derived")) == 2
    target = fresh_db(target_engine)
    import_database(out, target.url, threads=2)
    assert verify(out, target.url).ok
    if target_engine == "postgresql":
        assert target.query("SELECT count(*) FROM pay") == [(3,)]
        assert target.query("SELECT count(*) FROM base") == [(2,)]


WORDPRESS_LIKE = """
CREATE TABLE posts (
  id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title varchar(100) NOT NULL DEFAULT '',
  posted datetime NOT NULL DEFAULT '0000-00-00 00:00:00',
  changed datetime DEFAULT '0000-00-00 00:00:00'
);
INSERT INTO posts VALUES (1, 'draft', '0000-00-00 00:00:00', NULL), (2, 'post', '2024-02-29 12:00:00', '0000-00-00 00:00:00');
"""


@pytest.mark.parametrize("target_engine", ["mysql", "mariadb", "postgresql"])
def test_zero_date_defaults_load_everywhere(fresh_db: Any, tmp_path: Path, target_engine: str) -> None:
    """WordPress: ``DEFAULT '0000-00-00 00:00:00'`` failed schema-load even MySQL → MySQL (strict session
    sql_mode) and went verbatim to PostgreSQL; a zero date in a NOT NULL column could not be imported."""
    src = fresh_db("mysql")
    src.execute("SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO';\n" + WORDPRESS_LIKE)
    doc = reflect(src.url)
    target = fresh_db(target_engine)
    result = load_schema(doc, target.url)
    if target_engine == "postgresql":
        rules = {i.rule for i in result.plan.report.items}
        assert {"zero-date-default", "zero-date-not-null"} <= rules
    out = tmp_path / "out"
    export_database(src.url, out, threads=2)
    data = fresh_db(target_engine)
    import_database(out, data.url, threads=2)
    if target_engine == "postgresql":  # zero dates imported as NULL (--zero-dates null), NOT NULL dropped
        assert data.query("SELECT id, posted FROM posts ORDER BY id")[0] == (1, None)
    else:
        assert verify(out, data.url).ok


ROUTINES_UNDER_TRADITIONAL = """
SET SESSION sql_mode = 'TRADITIONAL';
CREATE TABLE t (id int PRIMARY KEY, d date);
CREATE FUNCTION f(x int) RETURNS int DETERMINISTIC RETURN x * 2;
CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.id = NEW.id + 0;
"""


def test_same_engine_routines_keep_their_sql_mode(server_engine: str, fresh_db: Any) -> None:
    """Sakila (created under SQL_MODE='TRADITIONAL'): routines and triggers came back with the loading
    session's sql_mode, so the same-engine round trip was not exact."""
    if server_engine == "postgresql":
        pytest.skip("sql_mode is MySQL/MariaDB's")
    src = fresh_db(server_engine)
    src.execute(ROUTINES_UNDER_TRADITIONAL)
    doc = reflect(src.url)
    target = fresh_db(server_engine)
    load_schema(doc, target.url)
    again = reflect(target.url)

    def modes(db: Database) -> list[tuple[str, str]]:
        return [(r.name, r.options["mysql"]["sql_mode"]) for s in db.schemas for r in s.routines] + [
            (g.name, g.options["mysql"]["sql_mode"]) for s in db.schemas for g in s.triggers
        ]

    assert len(modes(doc)) == 2 and modes(doc) == modes(again)
    assert "STRICT_ALL_TABLES" in modes(doc)[0][1]


JSON_DOCS = """
CREATE TABLE docs (
  doc json,
  _id varbinary(32) GENERATED ALWAYS AS (json_unquote(json_extract(doc, '$._id'))) STORED NOT NULL,
  kind json GENERATED ALWAYS AS ('{"type":"object"}') VIRTUAL,
  PRIMARY KEY (_id)
);
INSERT INTO docs (doc) VALUES ('{"_id": "ABW", "n": 1}'), ('{"_id": "AFG", "n": [2, 3]}');
"""


@pytest.mark.parametrize("target_engine", ["mariadb", "postgresql", "sqlite"])
def test_generated_key_columns_keep_their_values(fresh_db: Any, tmp_path: Path, target_engine: str) -> None:
    """MySQL world_x: a STORED generated primary key made MariaDB refuse the table (NOT NULL / key on a
    generated column), and where the target made it a plain column its values were not loaded."""
    src = fresh_db("mysql")
    src.execute(JSON_DOCS)
    out = tmp_path / "out"
    export_database(src.url, out, threads=2)
    target = fresh_db(target_engine)
    import_database(out, target.url, threads=2)
    assert verify(out, target.url).ok
    assert sorted(
        r[0] if isinstance(r[0], str) else bytes(r[0]).decode() for r in target.query("SELECT _id FROM docs")
    ) == ["ABW", "AFG"]


def test_an_empty_schema_does_not_prefix_table_names(fresh_db: Any) -> None:
    """Airlines demo: every object in schema ``bookings`` and an empty ``public`` made MySQL tables
    ``bookings_flights``..."""
    src = fresh_db("postgresql")
    src.execute("CREATE SCHEMA bookings; CREATE TABLE bookings.flights (id int PRIMARY KEY)")
    doc = reflect(src.url)
    assert sorted(s.name for s in doc.schemas) == ["bookings", "public"]
    plan = to_ddl(doc, "mysql")
    assert plan.table_names[("bookings", "flights")][1] == "flights"
    assert not [i for i in plan.report.items if i.rule == "schema-prefix"]


def test_sqlite_bytea_column_exports_its_blobs(fresh_db: Any, tmp_path: Path) -> None:
    """jOOQ's SQLite Sakila: ``picture bytea`` (NUMERIC affinity by name) holding images made export fail."""
    src = fresh_db("sqlite")
    src.execute(
        "CREATE TABLE staff (id int PRIMARY KEY, picture bytea, born year); INSERT INTO staff VALUES (1, x'00ff10', 1999), (2, NULL, NULL)"
    )
    doc = reflect(src.url)
    cols = {c.name: c.type.kind for _s, t in doc.tables() for c in t.columns}
    assert cols["picture"] == "blob" and cols["born"] == "year"
    out = tmp_path / "out"
    export_database(src.url, out, threads=1)
    target = fresh_db("postgresql")
    import_database(out, target.url, threads=1)
    assert target.query("SELECT picture FROM staff ORDER BY id") == [(b"\x00\xff\x10",), (None,)]


def test_sqlite_reports_widened_keys_and_text_tiers(fresh_db: Any) -> None:
    """Sakila/WordPress → SQLite: SMALLINT UNSIGNED AUTO_INCREMENT keys (and the columns referencing them)
    became INTEGER and TEXT/MEDIUMTEXT lost their byte tier, with nothing in the report."""
    src = fresh_db("mysql")
    src.execute(
        "CREATE TABLE a (id smallint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, note tinytext, pic mediumblob)"
    )
    plan = to_ddl(reflect(src.url), "sqlite")
    rules = {(i.path, i.rule) for i in plan.report.items}
    assert ("/schemas/0/tables/0/columns/0/type", "int-identity-rowid") in rules
    assert ("/schemas/0/tables/0/columns/1/type", "text-tier") in rules
    assert ("/schemas/0/tables/0/columns/2/type", "blob-tier") in rules


def test_pg_serial_with_a_bigint_sequence_round_trips(fresh_db: Any) -> None:
    """Airlines demo: ``CREATE SEQUENCE`` (bigint) ``OWNED BY`` an integer column came back as an
    integer sequence (max 2147483647), so the same-engine round trip was not exact."""
    src = fresh_db("postgresql")
    src.execute(
        "CREATE TABLE flights (id integer NOT NULL PRIMARY KEY); CREATE SEQUENCE flights_id_seq;"
        " ALTER SEQUENCE flights_id_seq OWNED BY flights.id;"
        " ALTER TABLE flights ALTER COLUMN id SET DEFAULT nextval('flights_id_seq'::regclass)"
    )
    doc = reflect(src.url)
    target = fresh_db("postgresql")
    load_schema(doc, target.url)
    ident = next(c.identity for _s, t in reflect(target.url).tables() for c in t.columns)
    assert ident is not None and ident == next(c.identity for _s, t in doc.tables() for c in t.columns)
    assert ident.max_value == 9223372036854775807
