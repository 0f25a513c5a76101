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


IDIOMS = """
CREATE TYPE order_status AS ENUM ('created', 'paid', 'shipped');
CREATE TABLE orders (
  id bigint NOT NULL PRIMARY KEY,
  status order_status NOT NULL DEFAULT 'created'::order_status,
  created_on date DEFAULT ('now'::text)::date,
  created_at timestamp without time zone DEFAULT ('now'::text)::timestamp without time zone,
  midnight timestamp without time zone DEFAULT ('today'::text)::timestamp without time zone,
  tags character varying[] DEFAULT '{}'::character varying[] NOT NULL,
  amount numeric(10,2) DEFAULT 0.0 NOT NULL
);
-- pg_dump's order: the sequence apart, owned afterwards, the default set last
CREATE SEQUENCE public.orders_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE public.orders_id_seq OWNED BY public.orders.id;
ALTER TABLE ONLY public.orders ALTER COLUMN id SET DEFAULT nextval('public.orders_id_seq'::regclass);
-- a sequence no column owns, shared by two tables
CREATE SEQUENCE shared_seq;
CREATE TABLE shared_a (id integer DEFAULT nextval('shared_seq'::regclass) PRIMARY KEY, v text);
CREATE TABLE shared_b (id integer DEFAULT nextval('shared_seq'::regclass) PRIMARY KEY, v text);
INSERT INTO orders (status) VALUES ('paid'), (DEFAULT);
INSERT INTO shared_a (v) VALUES ('a');
INSERT INTO shared_b (v) VALUES ('b');
"""


@pytest.mark.parametrize("target", ("postgresql", *OTHERS))
def test_cast_and_sequence_defaults(fresh_db: Any, tmp_path: Path, target: str) -> None:
    """'now'::text::date is CURRENT_DATE everywhere (MySQL got CAST('now' AS DATE), which fails at
    insert time; MariaDB silently stored NULL); 'today'::text::timestamp has no counterpart and is
    reported; a nextval() default keeps inserts without the id working (MariaDB: DEFAULT NEXTVAL(seq);
    MySQL and SQLite: the column's own auto-increment, reported)."""
    src = fresh_db("postgresql")
    src.execute(IDIOMS)
    dst = fresh_db(target)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    items = _items(report)
    if target == "postgresql":
        assert diff(src.url, dst.url).empty
    else:
        assert any("columns/4/default" in i and "'today'" in i for i in items), items
    dst.execute("INSERT INTO orders (amount) VALUES (1)")
    today = src.query("SELECT CAST(current_date AS text)")[0][0]
    row = dst.query("SELECT id, status, created_on, created_at FROM orders WHERE amount = 1")[0]
    assert row[0] == 3 and row[1] == "created" and str(row[2])[:10] == today and row[3] is not None
    dst.execute("INSERT INTO shared_a (v) VALUES ('x')")
    assert dst.query("SELECT id FROM shared_a WHERE v = 'x'") == [(3,)]  # where the sequence stood
    if target in ("mysql", "sqlite"):
        assert any("no longer shares the sequence" in i for i in items), items


def test_now_text_casts_reflect_as_functions() -> None:
    from dbjson.engines.postgresql.sqltext import parse_default

    assert parse_default("('now'::text)::date") == m.Default(kind="function", value="current_date")
    assert parse_default("('today'::text)::date") == m.Default(kind="function", value="current_date")
    assert parse_default("('now'::text)::timestamp(6) with time zone") == m.Default(
        kind="function", value="current_timestamp"
    )
    assert parse_default("('today'::text)::timestamp without time zone").kind == "expression"  # midnight


PARTITIONS = """
CREATE TABLE events (
  id bigserial, kind text NOT NULL, at timestamp NOT NULL DEFAULT now(), body jsonb,
  PRIMARY KEY (id, kind)
) PARTITION BY LIST (kind);
CREATE TABLE events_a PARTITION OF events FOR VALUES IN ('a');
CREATE TABLE events_b PARTITION OF events FOR VALUES IN ('b');
CREATE TABLE events_rest PARTITION OF events DEFAULT;
CREATE INDEX events_at ON events (at);
CREATE TABLE ref (id int PRIMARY KEY, event_id bigint, event_kind text,
  FOREIGN KEY (event_id, event_kind) REFERENCES events (id, kind));
CREATE TABLE m (id int, at date NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
CREATE TABLE m_2024 PARTITION OF m FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE m_2025 PARTITION OF m FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
INSERT INTO events (kind) VALUES ('a'), ('b'), ('c'), ('a');
INSERT INTO ref VALUES (1, 1, 'a');
INSERT INTO m VALUES (1, '2024-05-01'), (2, '2025-05-01');
"""


@pytest.mark.parametrize("target", OTHERS)
def test_partitioned_tables_become_one_table_with_the_parents_keys(fresh_db: Any, tmp_path: Path, target: str) -> None:
    """The partitions were created as empty plain tables (no primary key, the rows in the parent):
    now each partitioned table is one table holding every row, the partitions are not created, and
    both are reported."""
    src = fresh_db("postgresql")
    src.execute(PARTITIONS)
    dst = fresh_db(target)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    listing = {
        "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table'",
    }.get(target, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")
    assert sorted(r[0] for r in dst.query(listing)) == ["events", "m", "ref"]
    assert dst.query("SELECT count(*) FROM events") == [(4,)] and dst.query("SELECT count(*) FROM m") == [(2,)]
    items = _items(report)
    merged = [i for i in items if "[partition-merged]" in i]
    assert len(merged) == 5 and all("not created: its rows are in" in i for i in merged)
    assert sum("[partitioning-dropped]" in i for i in items) == 2
    assert not any("sequence-default" in i for i in items)
    if target != "sqlite":  # SQLite auto-increments only a one-column INTEGER PRIMARY KEY (reported)
        dst.execute("INSERT INTO events (kind) VALUES ('z')")


ICU = """
CREATE COLLATION case_insensitive (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE SCHEMA app;
CREATE COLLATION app.german (provider = icu, locale = 'de-DE');
CREATE DOMAIN app.name_ci AS text COLLATE public.case_insensitive;
CREATE TABLE app.users (id int PRIMARY KEY, name text COLLATE case_insensitive UNIQUE, city text COLLATE app.german,
  nick app.name_ci, code text COLLATE "C");
CREATE INDEX users_city_c ON app.users (city COLLATE "C");
INSERT INTO app.users VALUES (1, 'Ann', 'Köln', 'A', 'x'), (2, 'bob', 'Berlin', 'B', 'y');
"""


def test_collations_made_with_create_collation_are_created_and_used(fresh_db: Any, tmp_path: Path) -> None:
    """A column collation of another schema was quoted as one name ("public.case_insensitive"), one of
    the table's own schema left to the search path: PostgreSQL → PostgreSQL failed."""
    src = fresh_db("postgresql")
    src.execute(ICU)
    dst = fresh_db("postgresql")
    _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s"))
    assert diff(src.url, dst.url).empty
    with pytest.raises(Exception, match="users_name_key"):  # the nondeterministic collation holds
        dst.execute("INSERT INTO app.users (id, name) VALUES (3, 'ANN')")


# -- 6. database defaults --------------------------------------------------------------------------


def _named_db(engine: str, tmp_path: Path, create_sql: str) -> Any:
    """A database made by ``create_sql`` (``{name}`` its name), dropped by the test through fresh_db's class."""
    import uuid

    from conftest import FreshDatabase, _mysql_connect, _pg_connect, server_url

    db = FreshDatabase.__new__(FreshDatabase)
    db.engine, db.name = engine, "dbjson_t_" + uuid.uuid4().hex[:10]
    db.admin = server_url(engine)
    from sqlalchemy.engine import make_url

    db.url = make_url(db.admin).set(database=db.name).render_as_string(hide_password=False)
    if engine == "postgresql":
        with _pg_connect(db.admin) as c:
            c.execute(create_sql.format(name=db.name))
    else:
        c = _mysql_connect(db.admin)
        with c.cursor() as cur:
            cur.execute(create_sql.format(name=db.name))
        c.close()
    return db


@pytest.mark.parametrize(
    ("engine", "create_sql", "probe", "expected"),
    [
        (
            "mariadb",
            "CREATE DATABASE `{name}` CHARACTER SET latin1 COLLATE latin1_swedish_ci",
            "SELECT default_character_set_name, default_collation_name FROM information_schema.schemata "
            "WHERE schema_name = DATABASE()",
            ("latin1", "latin1_swedish_ci"),
        ),
        (
            "mysql",
            "CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_as_cs",
            "SELECT default_character_set_name, default_collation_name FROM information_schema.schemata "
            "WHERE schema_name = DATABASE()",
            ("utf8mb4", "utf8mb4_0900_as_cs"),
        ),
        (
            "postgresql",
            """CREATE DATABASE "{name}" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'""",
            "SELECT datcollate, datctype FROM pg_database WHERE datname = current_database()",
            ("C", "C"),
        ),
    ],
)
def test_create_carries_the_database_defaults_on_the_same_engine(
    tmp_path: Path, engine: str, create_sql: str, probe: str, expected: tuple[str, str]
) -> None:
    """migrate --create made a latin1 MariaDB database come back utf8mb4 (and a PostgreSQL 'C' one
    with the server's collation); diff did not see PostgreSQL's database defaults at all."""
    from corpus import TargetDatabase

    src = _named_db(engine, tmp_path, create_sql)
    dst = TargetDatabase(engine, tmp_path)
    try:
        src.execute("CREATE TABLE t (id int PRIMARY KEY, name varchar(20))")
        _verified(migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s", create=True))
        assert tuple(dst.query(probe)[0]) == expected
        assert diff(src.url, dst.url).empty
        if engine == "postgresql":  # and diff sees a database that differs
            other = _named_db(
                engine, tmp_path, """CREATE DATABASE "{name}" TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'"""
            )
            try:
                other.execute("CREATE TABLE t (id int PRIMARY KEY, name varchar(20))")
                changes = diff(src.url, other.url).changes
                assert [(c.kind, c.field) for c in changes] == [("database", "ctype")]
            finally:
                other.drop()
    finally:
        src.drop()
        dst.drop()


# -- 7. large objects --------------------------------------------------------------------------------

LARGE_OBJECTS = """
CREATE TABLE docs (id int PRIMARY KEY, body oid, note text);
INSERT INTO docs VALUES (1, lo_from_bytea(0, '\\x68656c6c6f'::bytea), 'hello'),
  (2, lo_from_bytea(0, ''::bytea), 'empty'), (3, NULL, 'none'), (4, 4000000001, 'names no object');
"""


@pytest.mark.parametrize("target", ("postgresql", *OTHERS))
def test_large_objects_travel_as_their_content(fresh_db: Any, tmp_path: Path, target: str) -> None:
    """Only the OID was exported: after the import lo_get failed (it named no object there) while
    verify said ok. Now the content travels (a bytea/BLOB column), and the change is reported."""
    src = fresh_db("postgresql")
    src.execute(LARGE_OBJECTS)
    dst = fresh_db(target)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "s")
    _verified(report)
    assert any("[large-object-" in i for i in _items(report))
    rows = [(i, None if b is None else bytes(b)) for i, b in dst.query("SELECT id, body FROM docs ORDER BY id")]
    assert rows == [(1, b"hello"), (2, b""), (3, None), (4, None)]


def test_a_table_gets_at_most_one_auto_increment_column(fresh_db: Any) -> None:
    """MySQL allows one AUTO_INCREMENT column per table: a nextval() default beside a serial key stays
    a reported, dropped default."""
    from dbjson.schemaload import to_ddl

    src = fresh_db("postgresql")
    src.execute("CREATE SEQUENCE s; CREATE TABLE t (id serial PRIMARY KEY, n bigint DEFAULT nextval('s') NOT NULL)")
    plan = to_ddl(reflect(src.url), "mysql")
    assert plan.script().count("NOT NULL AUTO_INCREMENT") == 1
    assert any("uses a sequence" in str(i) for i in plan.report.items)
