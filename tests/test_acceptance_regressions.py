"""Regressions found by acceptance runs on real-world sample schemas (Sakila, Pagila, world_x...).

Each test rebuilds the pattern that failed with a small synthetic schema (never third-party
data): the failing command is the one named in the docstring.
"""

from __future__ import annotations

from typing import Any

import pytest

from dbjson.ddl.apply import load_schema
from dbjson.reflect import reflect


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
