"""jsonschema/schema.json matches dbjson/model.py exactly, and validation reports precise problems."""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from typing import Any

import pytest

import jsonschema
from dbjson import model as m
from dbjson.errors import DocumentError
from dbjson.resources import json_schema
from dbjson.validate import Problem, check_document, validate

SCHEMA = json_schema("schema.json")
DEFS = SCHEMA["$defs"]
MODEL_CLASSES = sorted(
    (c for c in vars(m).values() if dataclasses.is_dataclass(c) and isinstance(c, type) and c.__module__ == m.__name__),
    key=lambda c: c.__name__,
)


# -- the JSON Schema itself ------------------------------------------------------------------------


def test_metaschema_accepts_the_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"] == "https://dbjson.dev/schema/1.0/schema.json"
    assert SCHEMA["title"] and SCHEMA["description"]
    assert SCHEMA["$ref"] == "#/$defs/Database"


@pytest.mark.parametrize("cls", MODEL_CLASSES, ids=lambda c: c.__name__)
def test_defs_entry_matches_dataclass(cls: type) -> None:
    entry = DEFS[cls.__name__]
    fields = {f.name: f for f in dataclasses.fields(cls)}
    assert set(entry["properties"]) == set(fields), "schema.json drifted from model.py"
    required = sorted(
        n for n, f in fields.items() if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    assert sorted(entry.get("required", [])) == required
    assert entry["additionalProperties"] is False
    assert entry["type"] == "object" and entry["description"]
    for name, prop in entry["properties"].items():
        assert prop.get("description"), f"{cls.__name__}.{name} has no description"


def _json_types(tp: Any) -> tuple[set[str], str | None]:
    """JSON types a field's annotation allows, and the $defs name it refers to."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        inner, ref = _json_types(args[0])
        return (inner if ref else inner | {"null"}), ref
    if origin is tuple:
        return {"array"}, None
    if origin is dict:
        return {"object"}, "Options" if typing.get_args(tp)[1] != typing.Any else None
    if dataclasses.is_dataclass(tp):
        return {"object"}, tp.__name__
    return {{str: "string", int: "integer", bool: "boolean"}[tp]}, None


@pytest.mark.parametrize("cls", MODEL_CLASSES, ids=lambda c: c.__name__)
def test_property_types_match_annotations(cls: type) -> None:
    hints = typing.get_type_hints(cls)
    for name, prop in DEFS[cls.__name__]["properties"].items():
        want, ref = _json_types(hints[name])
        if "$ref" in prop:
            assert prop["$ref"] == f"#/$defs/{ref}", f"{cls.__name__}.{name}"
            continue
        got = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
        assert set(got) == want, f"{cls.__name__}.{name}: {got} vs {want}"
        if "array" in want:
            (elem,) = typing.get_args(hints[name])[:1]
            items = prop["items"]
            if dataclasses.is_dataclass(elem):
                assert items["$ref"] == f"#/$defs/{elem.__name__}"
            else:
                assert items.get("type", "string") == "string" or "enum" in items


def test_known_value_sets() -> None:
    assert DEFS["Type"]["properties"]["kind"]["enum"] == list(m.TYPE_KINDS)
    engines = ["mysql", "mariadb", "postgresql", "sqlite"]
    assert DEFS["Source"]["properties"]["engine"]["enum"] == engines
    assert DEFS["NativeType"]["properties"]["engine"]["enum"] == engines
    assert set(DEFS["Options"]["properties"]) == {"mysql", "postgresql", "sqlite"}
    assert DEFS["Database"]["properties"]["format"]["const"] == m.Database.FORMAT


# -- a document using every object validates -----------------------------------------------------


def _t(kind: str, **kw: Any) -> m.Type:
    return m.Type(kind=kind, **kw)


def full_sample() -> m.Database:
    """A document that uses every model class (checked by a test below)."""
    col = m.Column(
        name="id",
        ordinal=1,
        type=_t("integer", bits=64),
        native=m.NativeType(engine="postgresql", raw="bigint"),
        nullable=False,
        identity=m.Identity(
            kind="identity", always=True, start=1, increment=1, next_value=10, sequence="orders_id_seq"
        ),
    )
    cols = (
        col,
        m.Column(
            name="placed",
            ordinal=2,
            type=_t("timestamp", fsp=6, with_timezone=True),
            native=m.NativeType(engine="postgresql", raw="timestamp with time zone"),
            default=m.Default(kind="function", value="current_timestamp"),
        ),
        m.Column(
            name="total",
            ordinal=3,
            type=_t("decimal", precision=10, scale=2),
            native=m.NativeType(engine="postgresql", raw="numeric(10,2)"),
            default=m.Default(kind="literal", value="0.00"),
        ),
        m.Column(
            name="doubled",
            ordinal=4,
            type=_t("decimal", precision=10, scale=2),
            native=m.NativeType(engine="postgresql", raw="numeric(10,2)"),
            generated=m.Generated(expression="total * 2", dialect="postgresql"),
        ),
        m.Column(
            name="tags",
            ordinal=5,
            type=_t("array", element=_t("text")),
            native=m.NativeType(engine="postgresql", raw="text[]"),
            collation="C",
            comment="labels",
            default=m.Default(kind="expression", value="'{}'::text[]", dialect="postgresql"),
        ),
    )
    table = m.Table(
        name="orders",
        columns=cols,
        primary_key=m.PrimaryKey(name="orders_pkey", columns=("id", "placed")),
        uniques=(m.UniqueConstraint(name="orders_total_key", columns=("total",)),),
        foreign_keys=(
            m.ForeignKey(
                name="orders_id_fkey",
                columns=("id",),
                ref_table="c",
                ref_columns=("id",),
                on_delete="CASCADE",
                match="FULL",
                deferrable=True,
            ),
        ),
        checks=(m.Check(name="orders_total_check", expression="total >= 0", dialect="postgresql"),),
        indexes=(
            m.Index(
                name="orders_lower",
                parts=(
                    m.IndexPart(expression="lower(tags[1])", descending=True),
                    m.IndexPart(column="total", nulls="first"),
                ),
                where="total > 0",
                dialect="postgresql",
                include=("placed",),
            ),
        ),
        partitioning=m.Partitioning(
            method="range",
            expression="placed",
            dialect="postgresql",
            partitions=(m.Partition(name="orders_2026", bound="FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')"),),
        ),
        options={"postgresql": {"fillfactor": 90}},
        row_estimate=1000,
    )
    schema = m.Schema(
        name="public",
        tables=(table,),
        views=(
            m.View(
                name="big",
                definition="SELECT * FROM orders WHERE total > 100",
                dialect="postgresql",
                check_option="LOCAL",
                columns=("id",),
            ),
        ),
        sequences=(m.Sequence(name="s", data_type="bigint", start=1, next_value=5, owned_by="orders.id"),),
        enums=(m.EnumType(name="mood", values=("sad", "ok")),),
        domains=(
            m.Domain(
                name="posint",
                type=_t("integer", bits=32),
                native=m.NativeType(engine="postgresql", raw="integer"),
                checks=(m.Check(name="posint_check", expression="VALUE > 0", dialect="postgresql"),),
            ),
        ),
        composites=(
            m.CompositeType(
                name="pair",
                fields=(
                    m.CompositeField(name="a", type=_t("text"), native=m.NativeType(engine="postgresql", raw="text")),
                ),
            ),
        ),
        routines=(
            m.Routine(
                name="f",
                kind="function",
                arguments=(m.Argument(name=None, native="integer"),),
                returns="integer",
                language="sql",
                body="SELECT $1",
                dialect="postgresql",
                deterministic=True,
                security="INVOKER",
            ),
        ),
        triggers=(
            m.Trigger(
                name="tr",
                table="orders",
                timing="BEFORE",
                events=("INSERT", "UPDATE"),
                body="EXECUTE FUNCTION f()",
                dialect="postgresql",
            ),
        ),
        events=(m.Event(name="ev", schedule="EVERY 1 DAY", body="DELETE FROM t", status="DISABLED"),),
    )
    return m.Database(
        source=m.Source(
            engine="postgresql",
            server_version="15.8",
            database="shop",
            dumped_at="2026-01-01T00:00:00Z",
            host="127.0.0.1:5432",
        ),
        schemas=(schema,),
        users=(
            m.User(
                name="app",
                member_of=("readers",),
                grants=(m.Grant(privileges=("SELECT",), on="TABLE public.orders", grantee="app", columns=("id",)),),
            ),
        ),
    )


def _classes_used(obj: Any, seen: set[str]) -> set[str]:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        seen.add(type(obj).__name__)
        for f in dataclasses.fields(obj):
            _classes_used(getattr(obj, f.name), seen)
    elif isinstance(obj, (tuple, list)):
        for v in obj:
            _classes_used(v, seen)
    return seen


def test_full_sample_uses_every_class_and_validates() -> None:
    db = full_sample()
    assert _classes_used(db, set()) == {c.__name__ for c in MODEL_CLASSES}
    assert validate(db.to_dict()) == []
    text = db.to_json()
    again = m.Database.from_json(text)
    assert again == db and again.to_json() == text


# -- broken documents --------------------------------------------------------------------------------


def _doc() -> dict[str, Any]:
    return copy.deepcopy(full_sample().to_dict())


COL = "/schemas/0/tables/0/columns/0"


def _set(doc: dict[str, Any], pointer: str, value: Any) -> None:
    *head, last = pointer.strip("/").split("/")
    node: Any = doc
    for step in head:
        node = node[int(step)] if isinstance(node, list) else node[step]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value


_DELETE = object()


@pytest.mark.parametrize(
    ("pointer", "value", "want_pointer", "want_text"),
    [
        (COL + "/ordinal", "1", COL + "/ordinal", "is not of type 'integer'"),
        (COL + "/nullable", "no", COL + "/nullable", "is not of type 'boolean'"),
        (COL + "/name", _DELETE, COL, "'name' is a required property"),
        ("/source/dumped_at", _DELETE, "/source", "'dumped_at' is a required property"),
        (COL + "/colour", "red", COL + "/colour", "unknown key 'colour'"),
        ("/extra", 1, "/extra", "unknown key 'extra'"),
        (COL + "/type/kind", "string", COL + "/type/kind", "is not one of"),
        (
            "/schemas/0/tables/0/foreign_keys/0/on_delete",
            "EXPLODE",
            "/schemas/0/tables/0/foreign_keys/0/on_delete",
            "is not one of",
        ),
        ("/format", "something-else", "/format", "was expected"),
        ("/format_version", "2.0", "/format_version", "does not match"),
        ("/source/engine", "oracle", "/source/engine", "is not one of"),
        ("/schemas/0/tables/0/options/oracle", {}, "/schemas/0/tables/0/options/oracle", "unknown key 'oracle'"),
        (COL + "/default", {"kind": "function", "value": "now"}, COL + "/default/value", "is not one of"),
        ("/schemas/0/triggers/0/timing", "DURING", "/schemas/0/triggers/0/timing", "is not one of"),
    ],
)
def test_broken_document_problems(pointer: str, value: Any, want_pointer: str, want_text: str) -> None:
    doc = _doc()
    _set(doc, pointer, value)
    problems = validate(doc)
    assert problems, "the broken document validated"
    assert any(p.pointer == want_pointer and want_text in p.message for p in problems), problems


def test_wrong_type_is_reported_once() -> None:
    doc = _doc()
    _set(doc, COL + "/type/bits", "x")
    assert validate(doc) == [Problem(COL + "/type/bits", "'x' is not of type 'integer', 'null'")]


def test_problems_come_in_document_order() -> None:
    doc = _doc()
    _set(doc, "/zzz", 1)
    _set(doc, COL + "/ordinal", "x")
    _set(doc, "/schemas/0/tables/0/columns/4/ordinal", "x")
    assert [p.pointer for p in validate(doc)] == [COL + "/ordinal", "/schemas/0/tables/0/columns/4/ordinal", "/zzz"]


def test_check_document_raises_with_every_problem() -> None:
    doc = _doc()
    _set(doc, "/a", 1)
    _set(doc, "/b", 2)
    with pytest.raises(DocumentError) as exc:
        check_document(doc, file="x.json")
    err = exc.value
    assert err.exit_code == 4
    assert [p.pointer for p in err.problems] == ["/a", "/b"]
    assert str(err).startswith("x.json, at /a: document fails validation: unknown key 'a' (and 1 more)")


# -- Database.from_json ------------------------------------------------------------------------------


def test_from_json_malformed_names_the_file() -> None:
    with pytest.raises(DocumentError) as exc:
        m.Database.from_json('{"format": "dbjson-schema",', filename="shop.schema.json")
    assert exc.value.file == "shop.schema.json"
    assert "malformed JSON" in str(exc.value) and str(exc.value).startswith("shop.schema.json")


def test_from_json_invalid_names_file_and_pointer() -> None:
    doc = _doc()
    _set(doc, COL + "/ordinal", 0)
    import orjson

    with pytest.raises(DocumentError) as exc:
        m.Database.from_json(orjson.dumps(doc), filename="shop.schema.json")
    err = exc.value
    assert err.file == "shop.schema.json" and err.pointer == COL + "/ordinal"
    assert f"shop.schema.json, at {COL}/ordinal:" in str(err)


def test_from_json_rejects_non_object() -> None:
    with pytest.raises(DocumentError, match="must be a JSON object"):
        m.Database.from_json("[1, 2]", filename="a.json")
