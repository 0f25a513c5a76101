"""PostgreSQL idioms real databases use (issue 15; found by tests/test_corpus.py), each rebuilt here on a
small schema: extensions, cast and sequence defaults, partitioned tables, ICU collations,
materialized views, database defaults and large objects, into every engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dbjson import model as m
from dbjson.errors import ApplyError
from dbjson.migrate import migrate
from dbjson.reflect import reflect
from dbjson.schemadiff import diff
from dbjson.schemaload import load_schema

OTHERS = ("mysql", "mariadb", "sqlite")


def _verified(report: Any) -> None:
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems


def _items(report: Any) -> list[str]:
    return [str(i) for i in report.translation]


# -- 1. extensions -----------------------------------------------------------------------------------

EXTENSIONS = """
CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE TABLE people (
  id uuid DEFAULT public.uuid_generate_v1() PRIMARY KEY,
  token uuid DEFAULT uuid_generate_v4() NOT NULL,
  email citext NOT NULL UNIQUE,
  name text NOT NULL,
  attrs hstore,
  n integer
);
CREATE INDEX people_name_trgm ON people USING gin (name gin_trgm_ops);
CREATE INDEX people_n_gin ON people USING gin (n);
INSERT INTO people (email, name, attrs, n) VALUES ('Ann@Example.com', 'Ann', 'a=>1', 1), ('bob@example.com', 'Bob', NULL, 2);
"""


def test_extensions_are_created_on_postgresql(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("postgresql")
    src.execute(EXTENSIONS)
    dst = fresh_db("postgresql")
    _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s"))
    assert diff(src.url, dst.url).empty
    installed = {r[0] for r in dst.query("SELECT extname FROM pg_extension")}
    assert {"uuid-ossp", "citext", "pg_trgm", "hstore", "btree_gin"} <= installed
    dst.execute("INSERT INTO people (email, name) VALUES ('cat@example.com', 'Cat')")
    with pytest.raises(Exception, match="people_email_key"):  # citext: case-insensitive uniqueness
        dst.execute("INSERT INTO people (email, name) VALUES ('ANN@example.com', 'Ann2')")


def test_a_missing_extension_names_its_package(fresh_db: Any) -> None:
    src = fresh_db("postgresql")
    src.execute("CREATE TABLE t (id int PRIMARY KEY)")
    doc = reflect(src.url).to_dict()
    doc["options"]["postgresql"]["extensions"] = [{"name": "dbjson_no_such_ext", "schema": "public", "version": "1"}]
    dst = fresh_db("postgresql")
    with pytest.raises(ApplyError) as err:
        load_schema(m.Database.from_dict(doc), dst.url)
    assert "dbjson_no_such_ext" in str(err.value) and "postgresql-15-dbjson-no-such-ext" in str(err.value)
    assert dst.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [(0,)]  # nothing applied


@pytest.mark.parametrize("target", OTHERS)
def test_extension_features_translate_across_engines(fresh_db: Any, tmp_path: Path, target: str) -> None:
    """citext keeps its case-insensitive uniqueness (a case-insensitive collation); the uuid-ossp and
    pgcrypto generators become the target's UUID function; what cannot be translated is reported."""
    src = fresh_db("postgresql")
    src.execute(EXTENSIONS)
    dst = fresh_db(target)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    items = _items(report)
    assert any("citext" in i for i in items)
    assert any("extension 'hstore' not created" in i for i in items)
    dst.execute("INSERT INTO people (email, name) VALUES ('cat@example.com', 'Cat')")
    ids = dst.query("SELECT id, token FROM people WHERE name = 'Cat'")
    assert ids[0][0] and ids[0][1] and ids[0][0] != ids[0][1]
    with pytest.raises(Exception, match="(?i)unique|duplicate"):
        dst.execute("INSERT INTO people (email, name) VALUES ('ANN@example.com', 'Ann2')")


# -- 3. PostgreSQL idioms -----------------------------------------------------------------------------

MATVIEWS = """
CREATE SCHEMA person;
CREATE TABLE person.t (id int PRIMARY KEY, code text);
INSERT INTO person.t VALUES (1, 'a'), (2, 'b');
CREATE MATERIALIZED VIEW person.mv AS SELECT id, code FROM person.t;
CREATE UNIQUE INDEX ix_mv ON person.mv (id, code);
CREATE MATERIALIZED VIEW person.mv_empty AS SELECT id FROM person.t WITH NO DATA;
"""


def test_materialized_views_keep_their_indexes_and_populated_state(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("postgresql")
    src.execute(MATVIEWS)
    dst = fresh_db("postgresql")
    _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s"))
    assert diff(src.url, dst.url).empty
    assert dst.query("SELECT matviewname, ispopulated FROM pg_matviews ORDER BY 1") == [
        ("mv", True),
        ("mv_empty", False),
    ]
    assert dst.query("SELECT indexname FROM pg_indexes WHERE tablename = 'mv'") == [("ix_mv",)]
    assert dst.query("SELECT count(*) FROM person.mv") == [(2,)]


PARENTHESIZED = """
CREATE TABLE e (
  id int PRIMARY KEY, plan_id int, sub_id int,
  CONSTRAINT exactly_one CHECK ((plan_id IS NOT NULL) <> (sub_id IS NOT NULL))
);
CREATE INDEX e_one ON e (id) WHERE (plan_id IS NOT NULL) <> (sub_id IS NOT NULL);
INSERT INTO e VALUES (1, 1, NULL), (2, NULL, 2);
"""


@pytest.mark.parametrize("target", ("postgresql", *OTHERS))
def test_an_expression_of_two_parenthesized_operands_keeps_its_parentheses(
    fresh_db: Any, tmp_path: Path, target: str
) -> None:
    """``(a IS NOT NULL) <> (b IS NOT NULL)`` starts with '(' and ends with ')' but is not wrapped:
    CHECK needs parentheses around all of it (it was emitted as ``CHECK (a IS NOT NULL) <> (...)``)."""
    src = fresh_db("postgresql")
    src.execute(PARENTHESIZED)
    dst = fresh_db(target)
    _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s"))
    if target == "postgresql":
        assert diff(src.url, dst.url).empty
    with pytest.raises(Exception, match="(?i)check|constraint"):
        dst.execute("INSERT INTO e VALUES (3, 1, 1)")
