"""schema-dump on PostgreSQL 15: the torture schema, Chinook, determinism, filters, grants, speed."""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chinook import chinook_row_counts, load_chinook
from conftest import FreshDatabase

import dbjson
from dbjson import model as m
from dbjson.engines.postgresql.sqltext import (
    check_expression,
    parse_default,
    split_top_level,
)
from dbjson.errors import UsageError

TORTURE = Path(__file__).parent / "torture" / "postgresql.sql"
SCHEMAS = ("inventory", "public")
IN_SCHEMAS = "('public', 'inventory')"


@pytest.fixture(scope="module")
def torture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FreshDatabase, m.Database]]:
    """The torture schema in a fresh database, reflected once for the whole module."""
    db = FreshDatabase("postgresql", tmp_path_factory.mktemp("pg"))
    try:
        db.execute(TORTURE.read_text(encoding="utf-8"))
        yield db, dbjson.reflect(db.url)
    finally:
        db.drop()


def count(db: FreshDatabase, sql: str) -> int:
    return int(db.query(sql)[0][0])


def type_dict(t: m.Type) -> dict[str, Any]:
    return dict(m.to_dict(t))


# -- pure helpers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("'abc'::text", m.Default(kind="literal", value="abc")),
        ("'it''s'::character varying", m.Default(kind="literal", value="it's")),
        ("'{1,2}'::integer[]", m.Default(kind="literal", value="{1,2}")),
        ("'happy'::public.mood", m.Default(kind="literal", value="happy")),
        ("'101'::\"bit\"", m.Default(kind="literal", value="101")),
        ("42", m.Default(kind="literal", value="42")),
        ("'-1'::integer", m.Default(kind="literal", value="-1")),
        ("1.5", m.Default(kind="literal", value="1.5")),
        ("true", m.Default(kind="literal", value="true")),
        ("NULL::character varying", None),
        (None, None),
        ("now()", m.Default(kind="function", value="current_timestamp")),
        ("CURRENT_TIMESTAMP", m.Default(kind="function", value="current_timestamp")),
        ("CURRENT_TIMESTAMP(3)", m.Default(kind="function", value="current_timestamp", fsp=3)),
        ("LOCALTIMESTAMP(2)", m.Default(kind="function", value="current_timestamp", fsp=2)),
        ("CURRENT_DATE", m.Default(kind="function", value="current_date")),
        ("LOCALTIME", m.Default(kind="function", value="current_time")),
        ("gen_random_uuid()", m.Default(kind="function", value="uuid")),
        (
            "('a'::text || 'b'::text)",
            m.Default(kind="expression", value="'a'::text || 'b'::text", dialect="postgresql"),
        ),
        ("(a) + (b)", m.Default(kind="expression", value="(a) + (b)", dialect="postgresql")),
        ("(1, 2)", m.Default(kind="expression", value="(1, 2)", dialect="postgresql")),
        (
            "('2147483648'::bigint)::integer",
            m.Default(kind="expression", value="('2147483648'::bigint)::integer", dialect="postgresql"),
        ),
    ],
)
def test_parse_default(expr: str | None, expected: m.Default | None) -> None:
    assert parse_default(expr) == expected


def test_next_value_of_a_sequence() -> None:
    from dbjson.engines.postgresql.assemble import next_value

    asc = {"increment": 5, "min_value": 1, "max_value": 20, "cycle": False}
    assert next_value(None, asc) is None  # unreadable
    assert next_value((1, False), asc) == 1  # never called: start
    assert next_value((10, True), asc) == 15
    assert next_value((20, True), asc) is None  # exhausted
    assert next_value((20, True), {**asc, "cycle": True}) == 1
    desc = {"increment": -1, "min_value": -3, "max_value": -1, "cycle": True}
    assert next_value((-3, True), desc) == -1


def test_split_and_check_helpers() -> None:
    assert split_top_level("0.2, 'a, b'::text, f(1, 2), ARRAY[1, 2]") == [
        "0.2",
        "'a, b'::text",
        "f(1, 2)",
        "ARRAY[1, 2]",
    ]
    assert check_expression("CHECK (a > 0) NO INHERIT NOT VALID") == "a > 0"
    assert check_expression("CHECK ((a > 0) AND (b < 1))") == "(a > 0) AND (b < 1)"


# -- the torture schema: types ------------------------------------------------------------------

INT32 = {"kind": "integer", "bits": 32}
TSTZ6 = {"kind": "timestamp", "fsp": 6, "with_timezone": True}
MOOD = {"kind": "enum", "values": ["sad", "ok", "happy"], "type_name": "mood", "type_schema": "public"}
ZIP = {"kind": "varchar", "length": 10, "type_name": "us_postal_code", "type_schema": "public"}

ALL_TYPES: dict[str, tuple[str, dict[str, Any]]] = {
    "id": ("integer", INT32),
    "c_smallint": ("smallint", {"kind": "integer", "bits": 16}),
    "c_integer": ("integer", INT32),
    "c_bigint": ("bigint", {"kind": "integer", "bits": 64}),
    "c_numeric": ("numeric", {"kind": "decimal"}),
    "c_numeric_ps": ("numeric(12,3)", {"kind": "decimal", "precision": 12, "scale": 3}),
    "c_real": ("real", {"kind": "float", "bits": 32}),
    "c_double": ("double precision", {"kind": "float", "bits": 64}),
    "c_char": ("character(3)", {"kind": "char", "length": 3}),
    "c_varchar": ("character varying(50)", {"kind": "varchar", "length": 50}),
    "c_varchar_unbounded": ("character varying", {"kind": "varchar"}),
    "c_text": ("text", {"kind": "text"}),
    "c_bytea": ("bytea", {"kind": "blob"}),
    "c_bit": ("bit(8)", {"kind": "bit", "length": 8}),
    "c_varbit": ("bit varying(16)", {"kind": "bit", "length": 16, "varying": True}),
    "c_varbit_unbounded": ("bit varying", {"kind": "bit", "varying": True}),
    "c_date": ("date", {"kind": "date"}),
    "c_time": ("time without time zone", {"kind": "time", "fsp": 6}),
    "c_time3": ("time(3) without time zone", {"kind": "time", "fsp": 3}),
    "c_timetz": ("time with time zone", {"kind": "time", "fsp": 6, "with_timezone": True}),
    "c_timestamp": ("timestamp without time zone", {"kind": "timestamp", "fsp": 6}),
    "c_timestamp0": ("timestamp(0) without time zone", {"kind": "timestamp", "fsp": 0}),
    "c_timestamptz": ("timestamp with time zone", TSTZ6),
    "c_timestamptz3": ("timestamp(3) with time zone", {"kind": "timestamp", "fsp": 3, "with_timezone": True}),
    "c_interval": ("interval", {"kind": "interval", "fsp": 6}),
    "c_interval_ds": ("interval day to second(3)", {"kind": "interval", "fields": "DAY TO SECOND", "fsp": 3}),
    "c_interval_ym": ("interval year to month", {"kind": "interval", "fields": "YEAR TO MONTH"}),
    "c_boolean": ("boolean", {"kind": "boolean"}),
    "c_json": ("json", {"kind": "json"}),
    "c_jsonb": ("jsonb", {"kind": "json", "binary": True}),
    "c_uuid": ("uuid", {"kind": "uuid"}),
    "c_inet": ("inet", {"kind": "inet"}),
    "c_cidr": ("cidr", {"kind": "inet", "network": True}),
    "c_macaddr": ("macaddr", {"kind": "macaddr", "length": 6}),
    "c_macaddr8": ("macaddr8", {"kind": "macaddr", "length": 8}),
    "c_money": ("money", {"kind": "money"}),
    "c_xml": ("xml", {"kind": "xml"}),
    "c_tsvector": ("tsvector", {"kind": "opaque"}),
    "c_point": ("point", {"kind": "opaque"}),
    "c_polygon": ("polygon", {"kind": "opaque"}),
    "c_int_array": ("integer[]", {"kind": "array", "element": INT32, "dims": 1}),
    "c_text_array": ("text[]", {"kind": "array", "element": {"kind": "text"}, "dims": 1}),
    "c_numeric_array": (
        "numeric(5,2)[]",
        {"kind": "array", "element": {"kind": "decimal", "precision": 5, "scale": 2}, "dims": 1},
    ),
    "c_matrix": ("double precision[]", {"kind": "array", "element": {"kind": "float", "bits": 64}, "dims": 2}),
    "c_timestamptz_array": ("timestamp with time zone[]", {"kind": "array", "element": TSTZ6, "dims": 1}),
    "c_int4range": ("int4range", {"kind": "range", "subtype": "integer"}),
    "c_int8range": ("int8range", {"kind": "range", "subtype": "bigint"}),
    "c_numrange": ("numrange", {"kind": "range", "subtype": "numeric"}),
    "c_tsrange": ("tsrange", {"kind": "range", "subtype": "timestamp without time zone"}),
    "c_tstzrange": ("tstzrange", {"kind": "range", "subtype": "timestamp with time zone"}),
    "c_daterange": ("daterange", {"kind": "range", "subtype": "date"}),
    "c_int4multirange": ("int4multirange", {"kind": "range", "subtype": "integer", "multi": True}),
    "c_datemultirange": ("datemultirange", {"kind": "range", "subtype": "date", "multi": True}),
    "c_mood": ("public.mood", MOOD),
    "c_mood_array": ("public.mood[]", {"kind": "array", "element": MOOD, "dims": 1}),
    "c_zip": ("public.us_postal_code", ZIP),
    "c_address": ("public.address", {"kind": "opaque", "type_name": "address", "type_schema": "public"}),
    "c_expr_default": ("text", {"kind": "text"}),
    "c_total": ("numeric", {"kind": "decimal"}),
    "c_floatrange": (
        "public.floatrange",
        {"kind": "range", "subtype": "double precision", "type_name": "floatrange", "type_schema": "public"},
    ),
    "c_floatmultirange": (
        "public.floatmultirange",
        {
            "kind": "range",
            "subtype": "double precision",
            "multi": True,
            "type_name": "floatmultirange",
            "type_schema": "public",
        },
    ),
    "c_ci": ("text", {"kind": "text"}),
}


def test_every_torture_column_type(torture: tuple[FreshDatabase, m.Database]) -> None:
    db, doc = torture
    table = doc.schema("public").table("all_types")
    assert [c.name for c in table.columns] == list(ALL_TYPES)
    assert [c.ordinal for c in table.columns] == list(range(1, len(ALL_TYPES) + 1))
    for col in table.columns:
        raw, expected = ALL_TYPES[col.name]
        assert col.native == m.NativeType(engine="postgresql", raw=raw), col.name
        assert type_dict(col.type) == expected, col.name
    # Every column of every table has the server's format_type (printed with an empty search_path).
    conn = db.connect()  # type: ignore[no-untyped-call]
    try:
        conn.execute("SET search_path = ''")
        rows = conn.execute(
            "SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
            f"WHERE n.nspname IN {IN_SCHEMAS} AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped"
        ).fetchall()
    finally:
        conn.close()
    raw_by_col = {(s.name, t.name, c.name): c.native.raw for s in doc.schemas for t in s.tables for c in t.columns}
    assert raw_by_col == {(s, t, c): raw for s, t, c, raw in rows}


def test_torture_column_attributes(torture: tuple[FreshDatabase, m.Database]) -> None:
    _, doc = torture
    t = doc.schema("public").table("all_types")
    assert t.column("id").identity == m.Identity(
        kind="identity",
        always=True,
        start=100,
        increment=5,
        min_value=1,
        max_value=2147483647,
        cache=1,
        next_value=100,
        sequence="all_types_id_seq",
    )
    assert t.column("id").default is None and not t.column("id").nullable
    assert t.column("c_integer").default == m.Default(kind="literal", value="42")
    assert t.column("c_bigint").default == m.Default(kind="literal", value="-1")
    assert t.column("c_varchar").default == m.Default(kind="literal", value="it's")
    assert t.column("c_bit").default == m.Default(kind="literal", value="10101010")
    assert t.column("c_boolean").default == m.Default(kind="literal", value="true")
    assert t.column("c_mood").default == m.Default(kind="literal", value="ok")
    assert t.column("c_timestamptz").default == m.Default(kind="function", value="current_timestamp")
    assert t.column("c_timestamptz3").default == m.Default(kind="function", value="current_timestamp", fsp=3)
    assert t.column("c_timestamp").default == m.Default(kind="function", value="current_timestamp")
    assert t.column("c_date").default == m.Default(kind="function", value="current_date")
    assert t.column("c_uuid").default == m.Default(kind="function", value="uuid")
    assert t.column("c_expr_default").default == m.Default(
        kind="expression", value="'a'::text || 'b'::text", dialect="postgresql"
    )
    assert t.column("c_total").generated == m.Generated(
        expression="c_numeric_ps * (2)::numeric", stored=True, dialect="postgresql"
    )
    assert t.column("c_total").default is None
    assert t.column("c_text").collation == "C"
    assert t.column("c_varchar").collation is None
    assert t.column("c_ci").collation == "case_insensitive"  # in the table's schema
    assert t.column("c_jsonb").comment == "binary JSON"
    assert t.comment == "one column per core type"
    assert t.checks == (
        m.Check(
            name="all_types_money_check",
            expression="c_money >= 0::money",
            dialect="postgresql",
            enforced=False,
            comment="no debts",
        ),
    )

    public = doc.schema("public")
    customer = public.table("customer")
    assert customer.column("id").identity == m.Identity(
        kind="serial",
        start=1,
        increment=1,
        min_value=1,
        max_value=2147483647,
        cache=1,
        next_value=42,
        sequence="customer_id_seq",
    )
    assert customer.column("id").default is None
    assert customer.column("mood").type == public.table("all_types").column("c_mood").type
    assert public.table("store").column("id").identity.always is False  # type: ignore[union-attr]
    staff_id = public.table("staff").column("id")
    assert staff_id.identity is not None and staff_id.identity.kind == "serial" and staff_id.identity.next_value == 1
    assert "customer_id_seq" not in {s.name for s in public.sequences}


def test_torture_constraints(torture: tuple[FreshDatabase, m.Database]) -> None:
    _, doc = torture
    public = doc.schema("public")
    customer = public.table("customer")
    assert customer.primary_key == m.PrimaryKey(name="customer_pkey", columns=("id",))
    assert customer.uniques == (
        m.UniqueConstraint(name="customer_email_key", columns=("email",), deferrable=True),
        m.UniqueConstraint(name="customer_email_phone_key", columns=("email", "phone"), nulls_not_distinct=True),
    )
    store = public.table("store")
    assert store.foreign_keys == (
        m.ForeignKey(
            name="store_manager_fk",
            columns=("manager_id",),
            ref_table="staff",
            ref_columns=("id",),
            deferrable=True,
            initially_deferred=True,
            comment="the manager works here",
        ),
        m.ForeignKey(
            name="store_warehouse_fk",
            columns=("warehouse_code",),
            ref_table="warehouse",
            ref_columns=("code",),
            ref_schema="inventory",
            on_delete="SET NULL",
            match="FULL",
            enforced=False,
        ),
    )
    staff = public.table("staff")
    assert staff.foreign_keys == (
        m.ForeignKey(
            name="staff_store_id_fkey",
            columns=("store_id",),
            ref_table="store",
            ref_columns=("id",),
            on_update="RESTRICT",
            on_delete="CASCADE",
        ),
    )
    assert staff.checks == (m.Check(name="staff_salary_check", expression="salary > 0::numeric", dialect="postgresql"),)
    stock = doc.schema("inventory").table("stock")
    assert stock.primary_key == m.PrimaryKey(name="stock_pkey", columns=("warehouse_code", "store_id"))
    assert [(fk.name, fk.ref_schema, fk.ref_table) for fk in stock.foreign_keys] == [
        ("stock_store_fk", "public", "store"),
        ("stock_warehouse_code_fkey", None, "warehouse"),
    ]
    cities = public.table("cities")
    assert cities.checks == (
        m.Check(
            name="cities_name_check",
            expression="name <> ''::text",
            dialect="postgresql",
            options={"postgresql": {"no_inherit": True}},
        ),
        m.Check(name="cities_population_check", expression="population >= 0", dialect="postgresql"),
    )
    assert public.table("capitals").checks == ()  # inherited from cities, listed there
    assert public.table("booking").options["postgresql"]["exclusions"] == [
        {
            "name": "booking_no_overlap",
            "definition": "EXCLUDE USING gist (during WITH &&)",
            "comment": "one booking at a time",
        }
    ]


def test_torture_indexes(torture: tuple[FreshDatabase, m.Database]) -> None:
    _, doc = torture
    public = doc.schema("public")
    idx = {i.name: i for i in public.table("all_types").indexes}
    assert sorted(idx) == [
        "all_types_jsonb_gin",
        "all_types_range_gist",
        "all_types_text_collate",
        "all_types_ts_brin",
        "all_types_uuid_hash",
    ]
    assert idx["all_types_jsonb_gin"] == m.Index(
        name="all_types_jsonb_gin", kind="gin", parts=(m.IndexPart(column="c_jsonb", opclass="jsonb_path_ops"),)
    )
    assert idx["all_types_range_gist"].kind == "gist"
    assert idx["all_types_ts_brin"] == m.Index(
        name="all_types_ts_brin",
        kind="brin",
        parts=(m.IndexPart(column="c_timestamp"),),
        options={"postgresql": {"with": ["pages_per_range=32"]}},
    )
    assert idx["all_types_uuid_hash"].kind == "hash" and idx["all_types_uuid_hash"].comment == "hash lookups"
    assert idx["all_types_text_collate"].parts == (
        m.IndexPart(column="c_varchar", descending=True, nulls="last", collation="C"),
        m.IndexPart(column="c_integer", nulls="first"),
    )
    staff = {i.name: i for i in public.table("staff").indexes}
    assert sorted(staff) == ["staff_active_partial", "staff_email_lower", "staff_store_include"]
    assert staff["staff_email_lower"] == m.Index(
        name="staff_email_lower", unique=True, parts=(m.IndexPart(expression="lower(email)"),), dialect="postgresql"
    )
    assert staff["staff_active_partial"].where == "active"
    assert staff["staff_store_include"].include == ("name", "email")
    assert public.table("store").indexes == (
        m.Index(
            name="store_name_warehouse",
            unique=True,
            nulls_not_distinct=True,
            parts=(m.IndexPart(column="name"), m.IndexPart(column="warehouse_code")),
        ),
    )
    assert [p.column for p in staff["staff_store_include"].parts] == ["store_id"]
    # Indexes backing PRIMARY KEY / UNIQUE / EXCLUDE constraints are not listed as indexes.
    assert public.table("customer").indexes == ()
    assert public.table("booking").indexes == ()
    # The partitioned index is on the parent only.
    assert [i.name for i in public.table("measurement").indexes] == ["measurement_peak"]
    assert public.table("measurement_2023").indexes == ()


def test_torture_tables(torture: tuple[FreshDatabase, m.Database]) -> None:
    _, doc = torture
    public = doc.schema("public")
    meas = public.table("measurement")
    assert meas.partitioning == m.Partitioning(method="range", expression="logdate", dialect="postgresql")
    assert meas.primary_key == m.PrimaryKey(name="measurement_pkey", columns=("id", "logdate"))
    parts = {t.name: t for t in public.tables if t.partition_of == "measurement"}
    assert {n: t.partition_bound for n, t in parts.items()} == {
        "measurement_2023": "FOR VALUES FROM ('2023-01-01') TO ('2024-01-01')",
        "measurement_2024": "FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
        "measurement_other": "DEFAULT",
    }
    assert [c.name for c in parts["measurement_2024"].columns] == ["id", "logdate", "peak"]
    capitals = public.table("capitals")
    assert capitals.inherits == ("cities",)
    assert [(c.name, c.options) for c in capitals.columns] == [
        ("name", {"postgresql": {"inherited": True}}),
        ("population", {"postgresql": {"inherited": True}}),
        ("country", {}),
    ]
    assert public.table("scratch").options == {
        "postgresql": {
            "unlogged": True,
            "with": ["fillfactor=70", "autovacuum_enabled=false"],
            "row_security": True,
            "replica_identity": "full",
            "policies": [
                {
                    "name": "scratch_guard",
                    "command": "ALL",
                    "restrictive": True,
                    "roles": ["PUBLIC"],
                    "using": "v IS NOT NULL",
                },
                {
                    "name": "scratch_own",
                    "command": "UPDATE",
                    "roles": ["PUBLIC"],
                    "using": "k = CURRENT_USER",
                    "with_check": "k <> ''::text",
                },
            ],
        }
    }
    assert public.table("customer").options == {}
    assert doc.schema("inventory").table("warehouse").options == {
        "postgresql": {"replica_identity": "index", "replica_identity_index": "warehouse_pkey"}
    }


def test_torture_views_sequences_types(torture: tuple[FreshDatabase, m.Database]) -> None:
    _, doc = torture
    public = doc.schema("public")
    views = {v.name: v for v in public.views}
    assert sorted(views) == ["active_staff", "big_stores", "local_staff", "store_headcount"]
    active = views["active_staff"]
    assert active.columns == ("id", "store_id", "name") and active.comment == "only active staff"
    assert active.definition.startswith("SELECT staff.id,") and "FROM public.staff" in active.definition
    assert not active.definition.endswith(";")
    assert views["big_stores"].check_option == "CASCADED"
    assert views["big_stores"].options == {"postgresql": {"with": ["security_barrier=true"]}}
    assert views["local_staff"].check_option == "LOCAL"
    mv = views["store_headcount"]
    assert mv.materialized and mv.comment == "refresh nightly"
    assert mv.indexes == (m.Index(name="store_headcount_store", unique=True, parts=(m.IndexPart(column="store_id"),)),)

    # CACHE 5: the first nextval() logged 1000..1040 as used, so another session gets 1050 next.
    assert public.sequences == (
        m.Sequence(
            name="invoice_no",
            data_type="integer",
            start=1000,
            increment=10,
            min_value=1000,
            max_value=999999,
            cycle=True,
            cache=5,
            next_value=1050,
            comment="invoice numbers",
        ),
        m.Sequence(
            name="staff_badge_seq",
            data_type="bigint",
            start=1,
            increment=1,
            min_value=1,
            max_value=9223372036854775807,
            cache=1,
            next_value=1,
            owned_by="staff.name",
        ),
    )
    assert public.enums == (m.EnumType(name="mood", values=("sad", "ok", "happy"), comment="how it feels"),)
    assert doc.schema("inventory").enums == (m.EnumType(name="status", values=("in", "out")),)
    (domain,) = public.domains
    assert domain.name == "us_postal_code" and not domain.nullable
    assert domain.native.raw == "character varying(10)"
    assert type_dict(domain.type) == ZIP
    assert domain.default == m.Default(kind="literal", value="00000")
    assert domain.comment == "US ZIP code"
    (check,) = domain.checks
    assert check.name == "us_postal_code_check" and "VALUE" in check.expression and "CHECK" not in check.expression
    (address,) = public.composites
    assert address.comment == "a postal address"
    assert [(f.name, f.native.raw, type_dict(f.type)) for f in address.fields] == [
        ("street", "text", {"kind": "text"}),
        ("city", "character varying(80)", {"kind": "varchar", "length": 80}),
        ("zip", "public.us_postal_code", ZIP),
    ]
    assert doc.schema("inventory").comment == "second schema (cross-schema FK target)"
    assert public.options["postgresql"]["collations"] == [
        {
            "name": "case_insensitive",
            "provider": "icu",
            "locale": "und-u-ks-level2",
            "deterministic": False,
            "comment": "ICU, ignores case",
            "definition": "CREATE COLLATION public.case_insensitive (provider = icu, locale = 'und-u-ks-level2', "
            "deterministic = false)",
        }
    ]
    assert public.options["postgresql"]["range_types"] == [
        {
            "name": "floatrange",
            "subtype": "double precision",
            "multirange": "public.floatmultirange",
            "definition": "CREATE TYPE public.floatrange AS RANGE (SUBTYPE = double precision, SUBTYPE_DIFF = float8mi, "
            "MULTIRANGE_TYPE_NAME = public.floatmultirange)",
        }
    ]
    assert doc.schema("inventory").options == {}


def test_torture_routines_and_triggers(torture: tuple[FreshDatabase, m.Database]) -> None:
    _, doc = torture
    public = doc.schema("public")
    routines = {(r.name, r.signature): r for r in public.routines}
    assert sorted(routines) == [
        ("add_tax", "amount integer"),
        ("add_tax", "amount numeric, rate numeric, label text"),
        ("audit_store", ""),
        ("close_store", "IN p_store integer, VARIADIC p_reasons text[]"),
        ("staff_of", "p_store integer, OUT staff_id bigint, INOUT note text"),
        ("store_count", ""),
        ("store_names", ""),
        ("text_concat", "text"),
        ("touch_staff", ""),
    ]
    tax = routines[("add_tax", "amount numeric, rate numeric, label text")]
    assert tax.kind == "function" and tax.language == "sql" and tax.returns == "numeric"
    assert tax.arguments == (
        m.Argument(name="amount", native="numeric"),
        m.Argument(name="rate", native="numeric", default="0.2"),
        m.Argument(name="label", native="text", default="'vat, incl.'::text"),
    )
    assert tax.body.strip() == "SELECT amount * (1 + rate)"
    assert tax.definition is not None and tax.definition.startswith("CREATE OR REPLACE FUNCTION public.add_tax(")
    assert tax.comment == "price with tax" and tax.deterministic is True
    assert tax.options == {"postgresql": {"volatility": "immutable", "strict": True, "parallel": "safe"}}
    staff_of = routines[("staff_of", "p_store integer, OUT staff_id bigint, INOUT note text")]
    assert [a.mode for a in staff_of.arguments] == ["IN", "OUT", "INOUT"]
    assert staff_of.returns == "SETOF record"
    assert routines[("store_names", "")].returns == "TABLE(id integer, name character varying)"
    assert routines[("store_names", "")].arguments == ()
    atomic = routines[("store_count", "")]  # an SQL-standard body: the parsed body, not prosrc
    assert atomic.body == "BEGIN ATOMIC\n SELECT count(*) AS count\n    FROM public.store;\nEND"
    proc = routines[("close_store", "IN p_store integer, VARIADIC p_reasons text[]")]
    assert proc.kind == "procedure" and proc.returns is None and proc.language == "plpgsql"
    assert proc.arguments[1] == m.Argument(name="p_reasons", native="text[]", mode="VARIADIC")
    touch = routines[("touch_staff", "")]
    assert touch.security == "DEFINER" and touch.returns == "trigger"
    assert touch.options["postgresql"]["config"] == ["search_path=public"]
    agg = routines[("text_concat", "text")]
    assert agg.kind == "aggregate" and agg.body == ""
    assert agg.definition == (
        "CREATE AGGREGATE public.text_concat(text) (\n    SFUNC = textcat,\n    STYPE = text,\n    INITCOND = ''\n)"
    )
    assert agg.options["postgresql"]["sfunc"] == "textcat" and agg.options["postgresql"]["initcond"] == ""

    triggers = {t.name: t for t in public.triggers}
    assert sorted(triggers) == ["staff_touch", "store_audit"]
    touch_trg = triggers["staff_touch"]
    assert (touch_trg.table, touch_trg.timing, touch_trg.events, touch_trg.orientation) == (
        "staff",
        "BEFORE",
        ("INSERT", "UPDATE"),
        "ROW",
    )
    assert touch_trg.when == "new.name IS NOT NULL"
    assert touch_trg.body == "EXECUTE FUNCTION public.touch_staff()"
    assert touch_trg.definition is not None and touch_trg.definition.startswith("CREATE TRIGGER staff_touch BEFORE")
    assert touch_trg.comment == "normalise names"
    assert touch_trg.options == {"postgresql": {"function": "touch_staff", "update_columns": ["name"]}}
    audit = triggers["store_audit"]
    assert (audit.timing, audit.events, audit.orientation, audit.when) == (
        "AFTER",
        ("INSERT", "DELETE"),
        "STATEMENT",
        None,
    )


def test_every_catalog_object_is_present(torture: tuple[FreshDatabase, m.Database]) -> None:
    db, doc = torture
    assert [s.name for s in doc.schemas] == list(SCHEMAS)
    nsp = f"n.nspname IN {IN_SCHEMAS}"
    rel = f"FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {nsp}"
    tables = [t for s in doc.schemas for t in s.tables]
    views = [v for s in doc.schemas for v in s.views]
    assert len(tables) == count(db, f"SELECT count(*) {rel} AND c.relkind IN ('r', 'p')") == 14
    assert len(views) == count(db, f"SELECT count(*) {rel} AND c.relkind IN ('v', 'm')") == 5
    columns = sum(len(t.columns) for t in tables) + sum(len(v.columns) for v in views)
    assert columns == count(
        db,
        "SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
        f"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {nsp} "
        "AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0 AND NOT a.attisdropped",
    )
    owned = [c for t in tables for c in t.columns if c.identity is not None]
    sequences = [q for s in doc.schemas for q in s.sequences]
    assert len(owned) + len(sequences) == count(db, f"SELECT count(*) {rel} AND c.relkind = 'S'")
    assert {c.identity.sequence for c in owned} | {q.name for q in sequences} == {  # type: ignore[union-attr]
        r[0] for r in db.query(f"SELECT c.relname {rel} AND c.relkind = 'S'")
    }
    indexes = sum(len(t.indexes) for t in tables) + sum(len(v.indexes) for v in views)
    assert indexes == count(
        db,
        "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        f"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {nsp} AND NOT c.relispartition "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint x WHERE x.conindid = i.indexrelid "
        "AND x.conrelid = i.indrelid AND x.contype IN ('p', 'u', 'x'))",
    )
    constraints = {
        "p": sum(t.primary_key is not None for t in tables),
        "u": sum(len(t.uniques) for t in tables),
        "f": sum(len(t.foreign_keys) for t in tables),
        "c": sum(len(t.checks) for t in tables),
        "x": sum(len(t.options.get("postgresql", {}).get("exclusions", [])) for t in tables),
    }
    catalog = dict(
        db.query(
            "SELECT contype::text, count(*) FROM pg_constraint x JOIN pg_namespace n ON n.oid = x.connamespace "
            f"WHERE {nsp} AND x.conrelid <> 0 AND x.conparentid = 0 AND x.conislocal GROUP BY 1"
        )
    )
    assert constraints == catalog
    assert (
        sum(len(s.routines) for s in doc.schemas)
        == count(
            db,
            f"SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE {nsp} "
            "AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'i')",
        )
        == 9
    )
    assert (
        sum(len(s.triggers) for s in doc.schemas)
        == count(
            db,
            f"SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            f"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {nsp} AND NOT t.tgisinternal",
        )
        == 2
    )
    types = dict(
        db.query(
            "SELECT t.typtype::text, count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
            f"LEFT JOIN pg_class c ON c.oid = t.typrelid WHERE {nsp} AND t.typtype IN ('e', 'd', 'c', 'r') "
            "AND (c.relkind IS NULL OR c.relkind = 'c') GROUP BY 1"
        )
    )
    assert types == {
        "e": sum(len(s.enums) for s in doc.schemas),
        "d": sum(len(s.domains) for s in doc.schemas),
        "c": sum(len(s.composites) for s in doc.schemas),
        "r": sum(len(s.options.get("postgresql", {}).get("range_types", [])) for s in doc.schemas),
    }
    assert (
        sum(len(s.options.get("postgresql", {}).get("collations", [])) for s in doc.schemas)
        == count(db, f"SELECT count(*) FROM pg_collation c JOIN pg_namespace n ON n.oid = c.collnamespace WHERE {nsp}")
        == 1
    )


def test_document_round_trip_and_validation(torture: tuple[FreshDatabase, m.Database]) -> None:
    _, doc = torture
    text = doc.to_json()
    again = m.Database.from_json(text, validate=False)
    assert again == doc
    assert again.to_json() == text
    assert doc.source.engine == "postgresql" and doc.source.server_version.startswith("15.")
    assert doc.source.database.startswith("dbjson_t_") and doc.source.host == "127.0.0.1:5432"
    db_options = doc.options["postgresql"]
    assert db_options["encoding"] == "UTF8" and db_options["collate"] and db_options["ctype"]
    assert "extensions" not in db_options and "public_grants" not in db_options
    assert dbjson.validate(doc.to_dict()) == []


def _stable(doc: m.Database) -> m.Database:
    """The document without what legitimately changes between two dumps (time, planner estimates)."""
    schemas = tuple(m.replace(s, tables=tuple(m.replace(t, row_estimate=None) for t in s.tables)) for s in doc.schemas)
    return m.replace(doc, source=m.replace(doc.source, dumped_at=""), schemas=schemas)


def test_deterministic(torture: tuple[FreshDatabase, m.Database]) -> None:
    db, doc = torture
    assert _stable(dbjson.reflect(db.url)).to_json() == _stable(doc).to_json()


def test_helper_connection_reads_the_same_document(torture: tuple[FreshDatabase, m.Database]) -> None:
    """ReflectOptions.helpers: part of the catalog is read on a second connection of the same
    snapshot at the same time (an export's other worker); the document is the one read on one
    connection, and the helper's session (search path, transaction) is left as it was."""
    import psycopg

    from dbjson.connect import Target, parse_url
    from dbjson.engines import get_engine
    from dbjson.engines.interface import ReflectOptions

    db, doc = torture
    conn, helper = db.connect(), db.connect()
    try:
        conn.autocommit = helper.autocommit = True
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        snap = conn.execute("SELECT pg_export_snapshot()").fetchone()[0]
        helper.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        helper.execute(f"SET TRANSACTION SNAPSHOT '{snap}'")
        helper.execute("SET LOCAL search_path = inventory")
        engine: Any = get_engine("postgresql")
        options = ReflectOptions(helpers=(helper,))
        got = engine.reflect_database(conn, Target(parse_url(db.url)), options)
        assert _stable(got).to_json() == _stable(doc).to_json()
        assert helper.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        assert helper.execute("SHOW search_path").fetchone()[0] == "inventory"
        # a failing query on the helper is the reflection's error (and the helper is waited for)
        helper.execute("ROLLBACK")
        helper.execute("BEGIN")
        with pytest.raises(psycopg.Error):
            helper.execute("SELECT 1/0")
        with pytest.raises(psycopg.Error):
            engine.reflect_database(conn, Target(parse_url(db.url)), options)
    finally:
        conn.close()
        helper.close()


def test_table_globs_and_schemas(torture: tuple[FreshDatabase, m.Database]) -> None:
    db, _ = torture
    doc = dbjson.reflect(db.url, tables=["measurement*", "inventory.*"], exclude=["*_other"])
    assert {(s.name, t.name) for s, t in doc.tables()} == {
        ("public", "measurement"),
        ("public", "measurement_2023"),
        ("public", "measurement_2024"),
        ("inventory", "stock"),
        ("inventory", "warehouse"),
    }
    assert doc.schema("public").triggers == ()  # their tables were not selected
    # Sequences of unselected tables (serial, identity, OWNED BY) stay out; standalone ones stay in.
    assert [q.name for q in doc.schema("public").sequences] == ["invoice_no"]
    only = dbjson.reflect(db.url, schemas=["inventory"])
    assert [s.name for s in only.schemas] == ["inventory"]
    assert [v.name for v in only.schema("inventory").views] == ["low_stock"]
    with pytest.raises(UsageError, match="schema not found: nope"):
        dbjson.reflect(db.url, schemas=["nope"])


# -- other databases -----------------------------------------------------------------------------


def test_chinook(fresh_db: Any) -> None:
    db = fresh_db("postgresql")
    load_chinook(db)
    db.execute("ANALYZE")
    doc = dbjson.reflect(db.url)
    (public,) = doc.schemas
    assert len(public.tables) == 11
    for t in public.tables:
        assert t.primary_key is not None and t.primary_key.name == f"{t.name}_pkey"
    assert public.table("playlist_track").primary_key == m.PrimaryKey(
        name="playlist_track_pkey", columns=("playlist_id", "track_id")
    )
    fks = {(t.name, fk.columns, fk.ref_table, fk.ref_columns) for t in public.tables for fk in t.foreign_keys}
    assert len(fks) == 11
    assert ("album", ("artist_id",), "artist", ("artist_id",)) in fks
    assert ("employee", ("reports_to",), "employee", ("employee_id",)) in fks
    assert sum(len(t.indexes) for t in public.tables) == 11
    track = public.table("track")
    assert type_dict(track.column("unit_price").type) == {"kind": "decimal", "precision": 10, "scale": 2}
    assert track.row_estimate == chinook_row_counts()["Track"]  # reltuples after ANALYZE
    assert m.Database.from_json(doc.to_json(), validate=False).to_json() == doc.to_json()
    assert dbjson.validate(doc.to_dict()) == []


def test_extension_objects_are_skipped(fresh_db: Any) -> None:
    db = fresh_db("postgresql")
    db.execute(
        "CREATE EXTENSION citext; CREATE EXTENSION pg_trgm; CREATE TABLE t (name citext PRIMARY KEY, "
        "note text); CREATE INDEX t_note_trgm ON t USING gin (note gin_trgm_ops);"
    )
    doc = dbjson.reflect(db.url)
    (public,) = doc.schemas
    assert public.routines == () and public.domains == () and public.enums == ()
    assert [(e["name"], e["schema"]) for e in doc.options["postgresql"]["extensions"]] == [
        ("citext", "public"),
        ("pg_trgm", "public"),
    ]
    assert public.table("t").indexes[0].parts == (m.IndexPart(column="note", opclass="gin_trgm_ops"),)
    assert dbjson.validate(doc.to_dict()) == []
    # citext is text compared case-insensitively: kind text, named, so other engines pick a ci collation
    assert type_dict(public.table("t").column("name").type) == {
        "kind": "text",
        "type_name": "citext",
        "type_schema": "public",
    }


@pytest.fixture
def roles() -> Iterator[tuple[str, str]]:
    """Two cluster-wide roles with unique names, dropped afterwards."""
    import psycopg
    from conftest import server_url
    from sqlalchemy.engine import make_url

    u = make_url(server_url("postgresql"))
    tag = uuid.uuid4().hex[:8]
    names = (f"dbjson_t_{tag}_group", f"dbjson_t_{tag}_reader")
    dsn = {"host": u.host, "port": u.port, "user": u.username, "dbname": u.database, "autocommit": True}
    with psycopg.connect(**dsn) as c:  # type: ignore[arg-type]
        c.execute(f'CREATE ROLE "{names[0]}" NOLOGIN')
        c.execute(f'CREATE ROLE "{names[1]}" LOGIN PASSWORD \'secret-pw\' CONNECTION LIMIT 3 IN ROLE "{names[0]}"')
    yield names
    with psycopg.connect(**dsn) as c:  # type: ignore[arg-type]
        for name in reversed(names):
            c.execute(f'DROP ROLE IF EXISTS "{name}"')


def test_grants(fresh_db: Any, roles: tuple[str, str]) -> None:
    group, reader = roles
    db = fresh_db("postgresql")
    db.execute(f"""
        CREATE SCHEMA app;
        CREATE TABLE app.orders (id integer PRIMARY KEY, total numeric, secret text);
        CREATE TABLE app.hidden (id integer);
        CREATE SEQUENCE app.counter;
        CREATE TYPE app.color AS ENUM ('red');
        REVOKE USAGE ON TYPE app.color FROM PUBLIC;
        GRANT USAGE ON TYPE app.color TO "{reader}";
        GRANT CONNECT, TEMPORARY ON DATABASE "{db.name}" TO "{group}";
        CREATE FUNCTION app.double(x integer) RETURNS integer LANGUAGE sql AS 'SELECT x * 2';
        REVOKE EXECUTE ON FUNCTION app.double(integer) FROM PUBLIC;
        GRANT USAGE ON SCHEMA app TO "{group}";
        GRANT SELECT, INSERT ON app.orders TO "{group}" WITH GRANT OPTION;
        GRANT SELECT ON app.hidden TO "{group}";
        GRANT UPDATE (total, id) ON app.orders TO "{reader}";
        GRANT USAGE ON SEQUENCE app.counter TO "{reader}";
        GRANT EXECUTE ON FUNCTION app.double(integer) TO "{reader}";
    """)
    try:
        doc = dbjson.reflect(db.url, grants=True, schemas=["app"], exclude=["hidden"])
        assert dbjson.reflect(db.url, schemas=["app"]).users == ()
        users = {u.name: u for u in doc.users}
        assert not any(n.startswith("pg_") for n in users)
        g, r = users[group], users[reader]
        assert (g.can_login, r.can_login) == (False, True)
        assert r.member_of == (group,)
        assert r.options == {"postgresql": {"connection_limit": 3}}
        assert "secret-pw" not in doc.to_json()
        assert dbjson.validate(doc.to_dict()) == []
        # the object privileges (Database.grants, reflected without --grants too): every grant to a
        # role on the reflected objects, none on the database, none of the owner's own
        plain = dbjson.reflect(db.url, schemas=["app"], exclude=["hidden"])
        assert plain.grants == doc.grants
        assert {(x.grantee, x.object_type, x.schema, x.name, x.signature) for x in doc.grants} == {
            (group, "schema", "app", None, None),
            (group, "table", "app", "orders", None),
            (reader, "function", "app", "double", "x integer"),
            (reader, "sequence", "app", "counter", None),
            (reader, "table", "app", "orders", None),
            (reader, "type", "app", "color", None),
        }
        assert dbjson.reflect(db.url, schemas=["app"], privileges=False).grants == ()
        structure = {"object_type": None, "schema": None, "name": None, "signature": None}
        assert tuple(dataclasses.replace(x, **structure) for x in g.grants) == (
            m.Grant(
                privileges=("TEMPORARY", "CONNECT"),
                on=f"DATABASE {db.name}",
                grantee=group,
                statement=f'GRANT TEMPORARY, CONNECT ON DATABASE "{db.name}" TO "{group}"',
            ),
            m.Grant(
                privileges=("USAGE",),
                on="SCHEMA app",
                grantee=group,
                statement=f'GRANT USAGE ON SCHEMA "app" TO "{group}"',
            ),
            m.Grant(
                privileges=("SELECT", "INSERT"),
                on="TABLE app.orders",
                grantee=group,
                grantable=True,
                statement=f'GRANT SELECT, INSERT ON TABLE "app"."orders" TO "{group}" WITH GRANT OPTION',
            ),
        )
        assert tuple(dataclasses.replace(x, **structure) for x in r.grants) == (
            m.Grant(
                privileges=("EXECUTE",),
                on="FUNCTION app.double(x integer)",
                grantee=reader,
                statement=f'GRANT EXECUTE ON FUNCTION "app"."double"(x integer) TO "{reader}"',
            ),
            m.Grant(
                privileges=("USAGE",),
                on="SEQUENCE app.counter",
                grantee=reader,
                statement=f'GRANT USAGE ON SEQUENCE "app"."counter" TO "{reader}"',
            ),
            m.Grant(
                privileges=("UPDATE",),
                on="TABLE app.orders",
                grantee=reader,
                columns=("id", "total"),
                statement=f'GRANT UPDATE ("id", "total") ON TABLE "app"."orders" TO "{reader}"',
            ),
            m.Grant(
                privileges=("USAGE",),
                on="TYPE app.color",
                grantee=reader,
                statement=f'GRANT USAGE ON TYPE "app"."color" TO "{reader}"',
            ),
        )
    finally:
        db.execute(f'DROP OWNED BY "{group}", "{reader}"')


# -- performance ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_reflects_1000_tables_quickly(fresh_db: Any) -> None:
    db = fresh_db("postgresql")
    ddl = "".join(
        f"CREATE TABLE t{i:04d} (id serial PRIMARY KEY, a integer NOT NULL DEFAULT 0, b text, c varchar(40), "
        f"d numeric(10,2), e timestamptz DEFAULT now(), f boolean, g jsonb, h bytea, "
        f"r integer REFERENCES t{max(i - 1, 0):04d} (id));"
        for i in range(1000)
    )
    db.execute(ddl + "CREATE INDEX t0001_a ON t0001 (a);")
    start = time.perf_counter()
    doc = dbjson.reflect(db.url)
    elapsed = time.perf_counter() - start
    print(f"\nreflected 1000 tables x 10 columns in {elapsed:.2f} s")
    tables = doc.schema("public").tables
    assert len(tables) == 1000
    assert all(len(t.columns) == 10 and t.primary_key is not None and len(t.foreign_keys) == 1 for t in tables)
    assert all(t.column("id").identity is not None for t in tables)
    assert doc.schema("public").sequences == ()
    assert elapsed < 15, f"reflection took {elapsed:.1f} s"


@pytest.mark.parametrize("state", ["autocommit", "idle", "in_transaction"])
def test_connection_state_is_left_as_found(fresh_db: Any, state: str) -> None:
    import psycopg

    from dbjson.connect import Target, parse_url
    from dbjson.engines import get_engine
    from dbjson.engines.interface import ReflectOptions

    db = fresh_db("postgresql")
    db.execute("CREATE TABLE t (id integer PRIMARY KEY)")
    conn = db.connect()
    try:
        conn.autocommit = state == "autocommit"
        conn.execute("SET search_path = public")
        if state == "idle":
            conn.commit()
        in_tx = psycopg.pq.TransactionStatus.INTRANS
        assert (conn.info.transaction_status == in_tx) == (state == "in_transaction")
        before = (conn.autocommit, conn.isolation_level, conn.read_only, conn.info.transaction_status)
        engine: Any = get_engine("postgresql")
        doc = engine.reflect_database(conn, Target(parse_url(db.url)), ReflectOptions())
        assert [t.name for t in doc.schema("public").tables] == ["t"]
        assert (conn.autocommit, conn.isolation_level, conn.read_only, conn.info.transaction_status) == before
        assert conn.execute("SHOW search_path").fetchone()[0] == "public"
    finally:
        conn.close()


def test_odd_identifiers(fresh_db: Any) -> None:
    db = fresh_db("postgresql")
    table = '"Odd Schema"."My ""Table"""'
    db.execute(
        'CREATE SCHEMA "Odd Schema";'
        f"CREATE TABLE {table} (\"Id\" serial PRIMARY KEY, \"a,b\" text DEFAULT 'x,''y''', "
        '"Ünïcode" integer CHECK ("Ünïcode" > 0));'
        f'CREATE INDEX "Idx ""q""" ON {table} (lower("a,b") DESC, "Ünïcode");'
        f'CREATE TABLE "Odd Schema".child ("Ref" integer REFERENCES {table} ("Id"));'
    )
    doc = dbjson.reflect(db.url)
    schema = doc.schema("Odd Schema")
    t = schema.table('My "Table"')
    assert [c.name for c in t.columns] == ["Id", "a,b", "Ünïcode"]
    ident = t.column("Id").identity
    assert ident is not None and ident.kind == "serial" and ident.sequence == 'My "Table"_Id_seq'
    assert schema.sequences == ()
    assert t.column("a,b").default == m.Default(kind="literal", value="x,'y'")
    assert t.checks[0].expression == '"Ünïcode" > 0'
    (idx,) = t.indexes
    assert idx.name == 'Idx "q"'
    assert idx.parts == (m.IndexPart(expression='lower("a,b")', descending=True), m.IndexPart(column="Ünïcode"))
    (fk,) = schema.table("child").foreign_keys
    assert (fk.columns, fk.ref_table, fk.ref_columns, fk.ref_schema) == (("Ref",), 'My "Table"', ("Id",), None)
