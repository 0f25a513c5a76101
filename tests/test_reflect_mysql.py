"""schema-dump on MySQL 9 and MariaDB 10.11: information_schema reflection against real servers."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chinook import CHINOOK_TABLES, load_chinook
from conftest import FreshDatabase, _mysql_connect
from sqlalchemy.engine import make_url

from dbjson import model as m
from dbjson.engines.mysql.assemble import TableAssembler
from dbjson.engines.mysql.sqltext import (
    parse_value_list,
    strip_outer_parens,
    unescape_is,
)
from dbjson.errors import UsageError
from dbjson.reflect import reflect
from dbjson.validate import validate

TORTURE = Path(__file__).parent / "torture"
MYSQLS = ("mysql", "mariadb")


@pytest.fixture(params=MYSQLS)
def my_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module", params=MYSQLS)
def torture(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[FreshDatabase, m.Database]]:
    """The torture schema, loaded once per engine for this module (the tests only read it)."""
    engine = str(request.param)
    db = FreshDatabase(engine, tmp_path_factory.mktemp(engine))
    try:
        db.execute((TORTURE / f"{engine}.sql").read_text(encoding="utf-8"))
        yield db, reflect(db.url)
    finally:
        db.drop()


def _col(doc: m.Database, table: str, column: str) -> m.Column:
    return doc.schemas[0].table(table).column(column)


def _index(table: m.Table, name: str) -> m.Index:
    return next(i for i in table.indexes if i.name == name)


# -- helpers (no server) -------------------------------------------------------------------------


def test_value_list_parsing() -> None:
    assert parse_value_list("enum('a','b''q','c,d','x\\\\y')") == ("a", "b'q", "c,d", "x\\y")
    assert parse_value_list("set('')") == ("",)


def test_information_schema_unescaping() -> None:
    assert unescape_is("concat(_utf8mb4\\'a\\\\\\\\b\\')") == "concat(_utf8mb4'a\\\\b')"
    assert unescape_is("`a` > 0") == "`a` > 0"


def test_strip_outer_parens() -> None:
    assert strip_outer_parens("((`a` > 0))") == "`a` > 0"
    assert strip_outer_parens("(a) + (b)") == "(a) + (b)"
    assert strip_outer_parens("(')' = x)") == "')' = x"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("'it''s'", m.Default(kind="literal", value="it's")),
        ("_utf8mb4'x\\\\y'", m.Default(kind="literal", value="x\\y")),
        ("'a' 'b'", m.Default(kind="expression", value="'a' 'b'", dialect="mariadb")),
        ("(-1.5e3)", m.Default(kind="literal", value="-1.5e3")),
        ("current_timestamp(3)", m.Default(kind="function", value="current_timestamp", fsp=3)),
        ("NOW()", m.Default(kind="function", value="current_timestamp")),
        ("curdate()", m.Default(kind="function", value="current_date")),
        ("uuid()", m.Default(kind="function", value="uuid")),
        ("nextval(`db`.`s`)", m.Default(kind="expression", value="nextval(`s`)", dialect="mariadb")),
    ],
)
def test_default_expressions(text: str, expected: m.Default) -> None:
    assert TableAssembler("mariadb", True).expression_default(text, "db") == expected


# -- the torture schema --------------------------------------------------------------------------

COMMON_TYPES: dict[tuple[str, str], dict[str, Any]] = {
    ("ints", "t"): {"kind": "integer", "bits": 8},
    ("ints", "tu"): {"kind": "integer", "bits": 8, "unsigned": True},
    ("ints", "tz"): {"kind": "integer", "bits": 8, "unsigned": True},
    ("ints", "s"): {"kind": "integer", "bits": 16},
    ("ints", "su"): {"kind": "integer", "bits": 16, "unsigned": True},
    ("ints", "m"): {"kind": "integer", "bits": 24},
    ("ints", "mu"): {"kind": "integer", "bits": 24, "unsigned": True},
    ("ints", "i"): {"kind": "integer", "bits": 32},
    ("ints", "iu"): {"kind": "integer", "bits": 32, "unsigned": True},
    ("ints", "iz"): {"kind": "integer", "bits": 32, "unsigned": True},
    ("ints", "bi"): {"kind": "integer", "bits": 64},
    ("ints", "bu"): {"kind": "integer", "bits": 64, "unsigned": True},
    ("ints", "b"): {"kind": "integer", "bits": 8},
    ("nums", "id"): {"kind": "integer", "bits": 64, "unsigned": True},
    ("nums", "d"): {"kind": "decimal", "precision": 10, "scale": 2},
    ("nums", "du"): {"kind": "decimal", "precision": 65, "scale": 30, "unsigned": True},
    ("nums", "d0"): {"kind": "decimal", "precision": 10, "scale": 0},
    ("nums", "n"): {"kind": "decimal", "precision": 5, "scale": 0},
    ("nums", "f"): {"kind": "float", "bits": 32},
    ("nums", "fu"): {"kind": "float", "bits": 32, "unsigned": True},
    ("nums", "f24"): {"kind": "float", "bits": 32},
    ("nums", "f53"): {"kind": "float", "bits": 64},
    ("nums", "fmd"): {"kind": "float", "bits": 32},
    ("nums", "dbl"): {"kind": "float", "bits": 64},
    ("nums", "r"): {"kind": "float", "bits": 64},
    ("nums", "bit1"): {"kind": "bit", "length": 1},
    ("nums", "bit5"): {"kind": "bit", "length": 5},
    ("nums", "bit64"): {"kind": "bit", "length": 64},
    ("strs", "c"): {"kind": "char", "length": 10},
    ("strs", "c0"): {"kind": "char", "length": 0},
    ("strs", "vc"): {"kind": "varchar", "length": 200},
    ("strs", "tt"): {"kind": "text", "max_bytes": 255},
    ("strs", "tx"): {"kind": "text", "max_bytes": 65535},
    ("strs", "mt"): {"kind": "text", "max_bytes": 16777215},
    ("strs", "lt"): {"kind": "text", "max_bytes": 4294967295},
    ("strs", "bn"): {"kind": "binary", "length": 16},
    ("strs", "vb"): {"kind": "varbinary", "length": 300},
    ("strs", "tb"): {"kind": "blob", "max_bytes": 255},
    ("strs", "bl"): {"kind": "blob", "max_bytes": 65535},
    ("strs", "mb"): {"kind": "blob", "max_bytes": 16777215},
    ("strs", "lb"): {"kind": "blob", "max_bytes": 4294967295},
    ("strs", "e"): {"kind": "enum", "values": ["a", "b'q", "c,d", "x\\y"]},
    ("strs", "st"): {"kind": "set", "values": ["r", "g", "b"]},
    ("times", "d"): {"kind": "date", "allows_zero": True},
    ("times", "t"): {"kind": "time", "fsp": 0},
    ("times", "t3"): {"kind": "time", "fsp": 3},
    ("times", "dt"): {"kind": "timestamp", "fsp": 0, "allows_zero": True},
    ("times", "dt6"): {"kind": "timestamp", "fsp": 6, "allows_zero": True},
    ("times", "ts"): {"kind": "timestamp", "fsp": 0, "with_timezone": True, "allows_zero": True},
    ("times", "ts3"): {"kind": "timestamp", "fsp": 3, "with_timezone": True, "allows_zero": True},
    ("times", "y"): {"kind": "year"},
    ("geo", "g"): {"kind": "geometry", "subtype": "geometry"},
    ("geo", "p"): {"kind": "geometry", "subtype": "point", "srid": 4326},
    ("geo", "pg"): {"kind": "geometry", "subtype": "polygon"},
    ("geo", "mp"): {"kind": "geometry", "subtype": "multipoint"},
    ("geo", "mls"): {"kind": "geometry", "subtype": "multilinestring"},
    ("geo", "mpg"): {"kind": "geometry", "subtype": "multipolygon"},
    ("geo", "gc"): {"kind": "geometry", "subtype": "geometrycollection"},
}
ENGINE_TYPES: dict[str, dict[tuple[str, str], dict[str, Any]]] = {
    "mysql": {
        ("strs", "j"): {"kind": "json", "binary": True},
        ("strs", "v"): {"kind": "vector", "dims": 3},
        ("geo", "ls"): {"kind": "geometry", "subtype": "linestring", "srid": 0},
    },
    "mariadb": {
        ("strs", "j"): {"kind": "json"},
        ("strs", "jd"): {"kind": "json"},
        ("strs", "uid"): {"kind": "uuid"},
        ("strs", "ip4"): {"kind": "inet", "family": 4},
        ("strs", "ip6"): {"kind": "inet", "family": 6},
        ("geo", "ls"): {"kind": "geometry", "subtype": "linestring"},
    },
}
NATIVE: dict[str, dict[tuple[str, str], tuple[str, dict[str, Any]]]] = {
    "mysql": {
        ("ints", "b"): ("tinyint(1)", {"bool_hint": True, "display_width": 1}),
        ("ints", "tz"): ("tinyint(3) unsigned zerofill", {"display_width": 3, "zerofill": True}),
        ("ints", "mu"): ("mediumint unsigned", {}),
        ("nums", "fmd"): ("float(7,3)", {"precision": 7, "scale": 3}),
        ("geo", "gc"): ("geomcollection", {}),
        ("strs", "j"): ("json", {}),
    },
    "mariadb": {
        ("ints", "b"): ("tinyint(1)", {"bool_hint": True, "display_width": 1}),
        ("ints", "i"): ("int(11)", {"display_width": 11}),
        ("ints", "mu"): ("mediumint(8) unsigned", {"display_width": 8}),
        ("ints", "iz"): ("int(8) unsigned zerofill", {"display_width": 8, "zerofill": True}),
        ("strs", "j"): ("json", {}),
        ("strs", "ip6"): ("inet6", {}),
    },
}


def test_torture_types(torture: tuple[FreshDatabase, m.Database]) -> None:
    db, doc = torture
    expected = {**COMMON_TYPES, **ENGINE_TYPES[db.engine]}
    for (table, column), want in expected.items():
        assert m.to_dict(_col(doc, table, column).type) == want, (table, column)
    for (table, column), (raw, attrs) in NATIVE[db.engine].items():
        native = _col(doc, table, column).native
        assert (native.engine, native.raw, native.attrs) == (db.engine, raw, attrs), (table, column)
    # every column has a standard kind (nothing fell through to opaque)
    for _, t in doc.tables():
        for c in t.columns:
            assert c.type.kind in m.TYPE_KINDS and c.type.kind != "opaque", (t.name, c.name)


def test_torture_columns(torture: tuple[FreshDatabase, m.Database]) -> None:
    db, doc = torture
    lit = lambda v: m.Default(kind="literal", value=v)
    ts = lambda fsp=None: m.Default(kind="function", value="current_timestamp", fsp=fsp)
    assert _col(doc, "strs", "c").default == lit("it's")
    assert _col(doc, "strs", "vc").default == lit("a,b")
    assert _col(doc, "strs", "vu").default == lit("")
    assert _col(doc, "strs", "txd").default == lit("dflt")
    assert _col(doc, "strs", "e").default == lit("b'q")
    assert _col(doc, "strs", "st").default == lit("r,b")
    assert _col(doc, "nums", "d").default == lit("1.50")
    assert _col(doc, "nums", "bit5").default == lit("00101")
    assert _col(doc, "nums", "bit1").default == lit("1")
    assert _col(doc, "ints", "s").default == lit("-5")
    assert _col(doc, "strs", "bt").default == lit("ab")
    assert _col(doc, "strs", "bd").default == m.Default(kind="expression", value="0x00FF", dialect=db.engine)
    assert _col(doc, "times", "t3").default == lit("12:00:00.500")
    assert _col(doc, "times", "dn").default == m.Default(kind="function", value="current_date")
    assert _col(doc, "times", "u").default == m.Default(kind="function", value="uuid")
    assert _col(doc, "times", "expr_def").default == m.Default(kind="expression", value="`id` * 2", dialect=db.engine)
    dt6 = _col(doc, "times", "dt6")
    assert (dt6.default, dt6.on_update) == (ts(6), ts(6))
    assert _col(doc, "times", "ts").default == ts()
    ts3 = _col(doc, "times", "ts3")
    assert (ts3.default, ts3.on_update) == (None, ts(3))
    assert _col(doc, "times", "d").on_update is None
    # charset/collation on every string column
    assert (_col(doc, "strs", "vc").charset, _col(doc, "strs", "vc").collation) == ("latin1", "latin1_bin")
    assert _col(doc, "strs", "vu").collation == "utf8mb4_unicode_ci"
    assert _col(doc, "strs", "nv").charset == "utf8mb3"
    assert _col(doc, "strs", "bn").charset is None
    # identity with the next AUTO_INCREMENT value, comments, invisible, generated
    assert _col(doc, "ints", "id").identity == m.Identity(kind="auto_increment", next_value=1000)
    assert _col(doc, "features", "id").identity == m.Identity(kind="auto_increment", next_value=43)
    assert _col(doc, "ints", "id").comment == "surrogate key"
    assert _col(doc, "features", "secret").invisible and not _col(doc, "features", "email").invisible
    total, label = _col(doc, "features", "total"), _col(doc, "features", "label")
    assert total.generated == m.Generated(expression="`price` * `qty`", stored=True, dialect=db.engine)
    assert label.generated is not None and not label.generated.stored and "`qty`" in label.generated.expression
    assert total.default is None and _col(doc, "ints", "mu").nullable is False


def test_torture_indexes_and_constraints(torture: tuple[FreshDatabase, m.Database]) -> None:
    db, doc = torture
    s = doc.schemas[0]
    strs, times, features = s.table("strs"), s.table("times"), s.table("features")
    ft = _index(strs, "ft_body")
    assert (ft.kind, ft.comment, [p.column for p in ft.parts]) == ("fulltext", "fulltext on two columns", ["tt", "mt"])
    assert [(p.column, p.length) for p in _index(strs, "ix_prefix").parts] == [("vc", 10), ("bn", 4)]
    assert strs.uniques == (m.UniqueConstraint(name="uq_vu", columns=("vu",)),)
    assert _index(strs, "uq_vu").constraint and _index(strs, "uq_vu").unique
    assert [(p.column, p.descending) for p in _index(times, "ix_desc").parts] == [("d", True), ("t", False)]
    hidden = _index(times, "ix_invisible" if db.engine == "mysql" else "ix_ignored")
    assert (hidden.visible, hidden.comment) == (False, "not used by the optimizer")
    spatial = _index(s.table("geo"), "sp_p")
    assert (spatial.kind, spatial.parts) == ("spatial", (m.IndexPart(column="p"),))
    assert _index(s.table("memo"), "ix_hash").kind == "hash"
    assert s.table("parent").uniques == (m.UniqueConstraint(name="uq_ab", columns=("a", "b"), comment="natural key"),)
    hidden_unique = _index(times, "uq_u_hidden")
    assert (hidden_unique.unique, hidden_unique.visible, hidden_unique.constraint, times.uniques) == (
        True,
        False,
        False,
        (),
    )
    assert s.table("lparts").primary_key == m.PrimaryKey(columns=("id", "region"))
    checks = {c.name: c for c in features.checks}
    if db.engine == "mysql":
        func = _index(features, "ix_func")
        assert func.parts == (m.IndexPart(expression="lower(`email`)"), m.IndexPart(column="qty", descending=True))
        assert func.dialect == "mysql"
        assert "json_extract(`doc`,_utf8mb4'$.k')" in (_index(features, "ix_json").parts[0].expression or "")
        ngram = _index(s.table("ft_cjk"), "ft_ngram")
        assert (ngram.kind, ngram.comment, ngram.options) == ("fulltext", "CJK tokens", {"mysql": {"parser": "ngram"}})
        assert checks["chk_lax"].enforced is False and checks["chk_price"].enforced is True
        assert checks["chk_price"].expression == "`price` >= 0"
        assert checks["features_chk_1"].expression == "`email` like _utf8mb4'%@%'"
    else:
        assert checks["price"] == m.Check(name="price", expression="`price` >= 0", dialect="mariadb", column="price")
        assert checks["chk_qty"].column is None
        assert s.table("strs").checks == ()  # the automatic json_valid() checks are folded into kind json
    # foreign keys with actions, including a cycle parent -> child -> parent
    fks = {f.name: f for f in s.table("child").foreign_keys}
    assert fks["fk_child_parent"] == m.ForeignKey(
        name="fk_child_parent",
        columns=("parent_id",),
        ref_table="parent",
        ref_columns=("id",),
        on_update="SET NULL",
        on_delete="CASCADE",
    )
    assert (fks["fk_child_ab"].columns, fks["fk_child_ab"].ref_columns, fks["fk_child_ab"].on_delete) == (
        ("pa", "pb"),
        ("a", "b"),
        "RESTRICT",
    )
    assert [f.ref_table for f in s.table("parent").foreign_keys] == ["child"]


def test_torture_tables_and_objects(torture: tuple[FreshDatabase, m.Database]) -> None:
    db, doc = torture
    s = doc.schemas[0]
    assert doc.source.engine == db.engine and doc.source.database == db.name
    assert doc.source.server_version.lower().count("mariadb") == (db.engine == "mariadb")
    assert s.table("ints").comment == "integer widths" and s.table("strs").comment == "strings & blobs"
    assert s.table("nums").options["mysql"]["row_format"] == "COMPACT"
    assert s.table("memo").options["mysql"]["engine"] == "MEMORY"
    assert s.table("ints").options["mysql"] == {
        "engine": "InnoDB",
        "charset": "utf8mb4",
        "collation": s.table("ints").options["mysql"]["collation"],
    }
    assert "auto_increment" not in str(s.table("ints").options)
    parts = s.table("parts").partitioning
    assert parts is not None
    assert (parts.method, parts.expression, parts.subpartitioning) == ("range", "year(`created`)", "HASH (`id`)")
    assert [(p.name, p.bound, p.comment) for p in parts.partitions] == [
        ("p2020", "LESS THAN (2021)", "old"),
        ("p2021", "LESS THAN (2022)", None),
        ("pmax", "LESS THAN (MAXVALUE)", None),
    ]
    assert parts.partitions[0].options["mysql"]["subpartitions"] == ["p2020sp0", "p2020sp1"]
    lparts = s.table("lparts").partitioning
    assert lparts is not None and (lparts.method, [p.bound for p in lparts.partitions]) == (
        "list columns",
        ["IN ('de','fr')", "IN ('us')"],
    )
    kparts = s.table("kparts").partitioning
    assert kparts is not None and (kparts.method, len(kparts.partitions)) == ("key", 3)
    views = {v.name: v for v in s.views}
    assert views["v_parent"].check_option == "CASCADED" and views["v_local"].check_option == "LOCAL"
    assert views["v_local"].columns == ("pid", "total")
    assert views["v_local"].options["mysql"]["algorithm"] == "MERGE"
    assert views["v_local"].options["mysql"]["security"] == "INVOKER"
    assert db.name not in views["v_parent"].definition and "`parent`" in views["v_parent"].definition
    routines = {r.name: r for r in s.routines}
    proc, func = routines["add_parent"], routines["twice"]
    assert proc.kind == "procedure" and proc.comment == "inserts a parent"
    assert [(a.name, a.mode) for a in proc.arguments] == [("p_id", "IN"), ("p_a", "INOUT"), ("p_out", "OUT")]
    assert proc.arguments[2].native == "varchar(20)" and "SET p_out = 'done'" in proc.body
    assert (func.kind, func.returns, func.deterministic, func.security, func.body) == (
        "function",
        "decimal(12,2)",
        True,
        "INVOKER",
        "RETURN x * 2",
    )
    assert func.options["mysql"]["sql_data_access"] == "NO SQL"
    label = routines["label_of"]
    assert label.arguments[0].native == "varchar(20) CHARSET latin1 COLLATE latin1_swedish_ci"
    assert label.returns == "varchar(30) CHARSET utf8mb4 COLLATE utf8mb4_bin"
    triggers = {t.name: t for t in s.triggers}
    assert (triggers["trg_child_bi2"].timing, triggers["trg_child_bi2"].events, triggers["trg_child_bi2"].order) == (
        "BEFORE",
        ("INSERT",),
        2,
    )
    assert triggers["trg_parent_au"].table == "parent" and triggers["trg_parent_au"].timing == "AFTER"
    events = {e.name: e for e in s.events}
    assert events["ev_cleanup"].schedule == "EVERY 1 DAY STARTS '2030-01-01 03:00:00'"
    assert (events["ev_cleanup"].status, events["ev_cleanup"].on_completion) == ("DISABLED", "PRESERVE")
    assert events["ev_cleanup"].comment == "nightly cleanup"
    assert events["ev_once"].schedule == "AT '2031-06-01 12:00:00'"
    assert (
        events["ev_odd"].schedule == "EVERY '1:30' HOUR_MINUTE STARTS '2030-01-01 00:00:00' ENDS '2032-01-01 00:00:00'"
    )
    if db.engine == "mariadb":
        assert s.table("versioned").options["mysql"]["system_versioning"] is True
        seqs = {q.name: q for q in s.sequences}
        assert seqs["seq_order"] == m.Sequence(
            name="seq_order",
            start=100,
            increment=5,
            min_value=100,
            max_value=100000,
            cycle=True,
            cache=10,
            next_value=100,
            comment="order numbers",
        )
        assert seqs["seq_plain"].next_value == 1001  # next_not_cached_value after one NEXTVAL with cache 1000
        assert all(t.name not in seqs for t in s.tables)
        assert s.table("orders").column("id").default == m.Default(
            kind="expression", value="nextval(`seq_order`)", dialect="mariadb"
        )
        sv = s.table("sv_explicit")
        assert sv.options["mysql"]["period_for_system_time"] == ["rs", "re"]
        assert sv.column("rs").options == {"mysql": {"row_period": "start"}} and sv.column("rs").generated is None
        assert sv.column("nv").options == {"mysql": {"without_system_versioning": True}}
        assert sv.partitioning is not None and (
            sv.partitioning.method,
            [p.bound for p in sv.partitioning.partitions],
        ) == ("system_time", ["HISTORY", "CURRENT"])
    odd = s.table("odd name`s")
    assert [c.name for c in odd.columns] == ['co"l', "ünï"] and odd.primary_key == m.PrimaryKey(columns=('co"l',))
    assert (odd.column('co"l').comment, odd.column("ünï").default) == ("quote's", m.Default(kind="literal", value="ä"))


def test_torture_matches_catalog_counts(torture: tuple[FreshDatabase, m.Database]) -> None:
    """Every object the catalog lists is in the document."""
    db, doc = torture
    s = doc.schemas[0]
    n = db.name

    def count(sql: str) -> int:
        return int(db.query(sql.replace("{db}", n))[0][0])

    assert len(s.tables) == count(
        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='{db}' AND TABLE_TYPE IN ('BASE TABLE','SYSTEM VERSIONED')"
    )
    assert len(s.views) == count("SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA='{db}'")
    assert sum(len(t.columns) for t in s.tables) + sum(len(v.columns) for v in s.views) == count(
        "SELECT COUNT(*) FROM information_schema.COLUMNS c JOIN information_schema.TABLES t USING (TABLE_SCHEMA, TABLE_NAME)"
        " WHERE c.TABLE_SCHEMA='{db}' AND t.TABLE_TYPE <> 'SEQUENCE'"
    )
    assert sum(len(t.indexes) + (t.primary_key is not None) for t in s.tables) == count(
        "SELECT COUNT(DISTINCT TABLE_NAME, INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='{db}'"
    )
    assert sum(len(t.foreign_keys) for t in s.tables) == count(
        "SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA='{db}'"
    )
    json_checks = (
        sum(c.type.kind == "json" for _, t in doc.tables() for c in t.columns) if db.engine == "mariadb" else 0
    )
    assert sum(len(t.checks) for t in s.tables) + json_checks == count(
        "SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA='{db}' AND CONSTRAINT_TYPE='CHECK'"
    )
    assert len(s.routines) == count("SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA='{db}'")
    assert len(s.triggers) == count("SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA='{db}'")
    assert len(s.events) == count("SELECT COUNT(*) FROM information_schema.EVENTS WHERE EVENT_SCHEMA='{db}'")
    assert len(s.sequences) == count(
        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='{db}' AND TABLE_TYPE='SEQUENCE'"
    )
    assert len(s.routines) == 3 and len(s.triggers) == 3 and len(s.events) == 3


def test_torture_document_round_trip(torture: tuple[FreshDatabase, m.Database]) -> None:
    """dump → to_json → from_json → to_json is byte-identical, and the document validates."""
    _, doc = torture
    text = doc.to_json()
    assert m.Database.from_json(text, validate=False).to_json() == text
    assert validate(doc.to_dict()) == []
    assert m.Database.from_json(text).to_json() == text


def test_torture_is_deterministic(torture: tuple[FreshDatabase, m.Database]) -> None:
    db, first = torture
    second = reflect(db.url)
    same_time = m.replace(second, source=m.replace(second.source, dumped_at=first.source.dumped_at))
    assert _without_estimates(same_time) == _without_estimates(first)


def _without_estimates(db: m.Database) -> str:
    """The document text with ``row_estimate`` (volatile InnoDB statistics) blanked."""
    schemas = tuple(m.replace(s, tables=tuple(m.replace(t, row_estimate=None) for t in s.tables)) for s in db.schemas)
    return m.replace(db, schemas=schemas).to_json()


# -- Chinook, filters, schemas, counters ---------------------------------------------------------


def test_chinook(my_engine: str, fresh_db: Any) -> None:
    db = fresh_db(my_engine)
    load_chinook(db)
    doc = reflect(db.url)
    s = doc.schemas[0]
    assert {t.name for t in s.tables} == CHINOOK_TABLES
    assert all(t.primary_key is not None for t in s.tables)
    assert s.table("PlaylistTrack").primary_key == m.PrimaryKey(columns=("PlaylistId", "TrackId"))
    fks = {(t.name, f.ref_table) for t in s.tables for f in t.foreign_keys}
    assert ("Track", "Album") in fks and ("InvoiceLine", "Invoice") in fks and ("Employee", "Employee") in fks
    assert sum(len(t.foreign_keys) for t in s.tables) == 11
    assert s.table("Track").column("UnitPrice").type == m.Type(kind="decimal", precision=10, scale=2)
    assert validate(doc.to_dict()) == []


def test_table_globs(my_engine: str, fresh_db: Any) -> None:
    db = fresh_db(my_engine)
    db.execute(
        "CREATE TABLE film (id INT PRIMARY KEY);\nCREATE TABLE film_actor (id INT PRIMARY KEY);\n"
        "CREATE TABLE actor (id INT PRIMARY KEY);\nCREATE TABLE tmp_x (id INT);\n"
        "CREATE TRIGGER trg BEFORE INSERT ON actor FOR EACH ROW SET NEW.id = NEW.id;\n"
    )
    names = lambda doc: [t.name for t in doc.schemas[0].tables]
    assert names(reflect(db.url)) == ["actor", "film", "film_actor", "tmp_x"]
    assert names(reflect(db.url, tables=["film*"])) == ["film", "film_actor"]
    assert names(reflect(db.url, tables=[f"{db.name}.actor"])) == ["actor"]
    only_film = reflect(db.url, exclude=["tmp_*", "actor"])
    assert names(only_film) == ["film", "film_actor"]
    assert only_film.schemas[0].triggers == ()  # a trigger follows its table


def test_schema_selection(my_engine: str, fresh_db: Any) -> None:
    a, b = fresh_db(my_engine), fresh_db(my_engine)
    a.execute("CREATE TABLE ta (id INT PRIMARY KEY)")
    b.execute(f"CREATE TABLE tb (id INT, CONSTRAINT fk_a FOREIGN KEY (id) REFERENCES `{a.name}`.ta (id))")
    server = a.admin  # the server URL, without a database
    both = reflect(server, schemas=[b.name, a.name])
    assert [s.name for s in both.schemas] == sorted([a.name, b.name])
    (fk,) = both.schema(b.name).table("tb").foreign_keys
    assert (fk.ref_schema, fk.ref_table) == (a.name, "ta")
    assert both.source.database == "" and validate(both.to_dict()) == []
    with pytest.raises(UsageError):
        reflect(server, schemas=["dbjson_no_such_db"])
    with pytest.raises(UsageError, match="names no database"):  # every database only when asked for
        reflect(server, tables=["ta", "tb"])
    everything = reflect(server, tables=["ta", "tb"], all_databases=True)
    names = {s.name for s in everything.schemas}
    assert {a.name, b.name} <= names and not names & {"mysql", "sys", "information_schema", "performance_schema"}


def test_auto_increment_counter_is_fresh(my_engine: str, fresh_db: Any) -> None:
    db = fresh_db(my_engine)
    db.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    assert reflect(db.url).schemas[0].table("t").column("id").identity is not None
    db.execute("INSERT INTO t (v) VALUES (1), (2), (3);\nDELETE FROM t WHERE id = 3;\n")
    ident = reflect(db.url).schemas[0].table("t").column("id").identity
    assert ident == m.Identity(kind="auto_increment", next_value=4)


def test_grants(my_engine: str, fresh_db: Any) -> None:
    db = fresh_db(my_engine)
    db.execute("CREATE TABLE t (a INT, b INT)")
    user = "dbjson_u_" + uuid.uuid4().hex[:8]
    role = "dbjson_r_" + uuid.uuid4().hex[:8]
    role_account = f"'{role}'" if my_engine == "mariadb" else f"'{role}'@'%'"
    admin = _mysql_connect(db.admin)
    try:
        with admin.cursor() as cur:
            cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'S3cret-pw!'")
            cur.execute(f"GRANT SELECT, INSERT ON `{db.name}`.* TO '{user}'@'%' WITH GRANT OPTION")
            cur.execute(f"GRANT UPDATE (a) ON `{db.name}`.`t` TO '{user}'@'%'")
            cur.execute(f"CREATE ROLE {role_account}")
            cur.execute(f"GRANT DELETE ON `{db.name}`.* TO {role_account}")
            cur.execute(f"GRANT {role_account} TO '{user}'@'%'")
        doc = reflect(db.url, grants=True)
        assert reflect(db.url).users == ()
        u = next(x for x in doc.users if x.name == user)
        assert (u.host, u.can_login, u.superuser) == ("%", True, False)
        on_db = next(g for g in u.grants if g.on == f"{db.name}.*")
        assert (on_db.privileges, on_db.grantable, on_db.grantee) == (("SELECT", "INSERT"), True, f"{user}@%")
        col = next(g for g in u.grants if g.columns)
        assert (col.on, col.privileges, col.columns) == (f"{db.name}.t", ("UPDATE",), ("a",))
        assert u.member_of == ((role,) if my_engine == "mariadb" else (f"{role}@%",))
        r = next(x for x in doc.users if x.name == role)
        assert r.can_login is False and [(g.on, g.privileges) for g in r.grants] == [(f"{db.name}.*", ("DELETE",))]
        text = doc.to_json()
        assert "S3cret" not in text and "IDENTIFIED" not in text and "PASSWORD '" not in text
        assert validate(doc.to_dict()) == []
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
            cur.execute(f"DROP ROLE IF EXISTS {role_account}")
        admin.close()


@pytest.mark.slow  # creating 1,000 InnoDB tables takes 5-25 s (DDL fsyncs); the reflection itself < 1 s
def test_reflects_1000_tables_quickly(my_engine: str, fresh_db: Any) -> None:
    """1,000 tables × 10 columns reflect in seconds (batched catalog queries, no per-table round trips)."""
    import pymysql
    from pymysql.constants import CLIENT

    db = fresh_db(my_engine)
    u = make_url(db.url)
    conn = pymysql.connect(
        host=u.host,
        port=u.port or 3306,
        user=u.username or "root",
        password=u.password or "",
        database=db.name,
        client_flag=CLIENT.MULTI_STATEMENTS,
        autocommit=True,
    )
    cols = ", ".join(f"c{i} VARCHAR(20) DEFAULT 'x{i}'" for i in range(1, 9))
    try:
        with conn.cursor() as cur:
            cur.execute(
                ";".join(
                    f"CREATE TABLE t{n:04d} (id INT AUTO_INCREMENT PRIMARY KEY, {cols}, r INT, KEY ix_r (r))"
                    for n in range(1000)
                )
            )
            while cur.nextset():
                pass
    finally:
        conn.close()
    start = time.monotonic()
    doc = reflect(db.url)
    elapsed = time.monotonic() - start
    print(f"\n{my_engine}: reflected 1000 tables in {elapsed:.2f} s")
    tables = doc.schemas[0].tables
    assert len(tables) == 1000 and all(len(t.columns) == 10 and len(t.indexes) == 1 for t in tables)
    assert elapsed < 15, f"reflection took {elapsed:.1f} s"


def test_low_privilege_account(my_engine: str, fresh_db: Any) -> None:
    """A user with SELECT on one database reflects it; --grants fails clearly, without the password."""
    db = fresh_db(my_engine)
    db.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5) DEFAULT 'x')")
    user, password = "dbjson_lo_" + uuid.uuid4().hex[:8], "Lo-pw-" + uuid.uuid4().hex[:8]
    admin = _mysql_connect(db.admin)
    try:
        with admin.cursor() as cur:
            cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'")
            cur.execute(f"GRANT SELECT ON `{db.name}`.* TO '{user}'@'%'")
        url = make_url(db.url).set(username=user, password=password)
        doc = reflect(url)
        assert doc.schemas[0].table("t").column("v").default == m.Default(kind="literal", value="x")
        with pytest.raises(UsageError) as err:
            reflect(url, grants=True)
        assert password not in str(err.value) and "--grants" in (err.value.hint or "")
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
        admin.close()


def test_torture_same_engine_fixpoint(torture: tuple[FreshDatabase, m.Database], fresh_db: Any) -> None:
    """schema-load of the torture document into an empty database of the same engine reflects the same
    document (every reflected attribute is one the DDL can re-create: nothing is lost on the way)."""
    from dbjson.schemaload import apply_ddl, to_ddl

    db, doc = torture
    target = fresh_db(db.engine)
    plan = to_ddl(doc, db.engine, server_version=doc.source.server_version)
    apply_ddl([*plan.pre_data, *plan.post_data], target.url, db.engine)
    again = reflect(target.url)

    def normalized(d: m.Database) -> dict[str, Any]:
        (schema,) = d.to_dict()["schemas"]
        schema.pop("name")
        for t in schema.get("tables", []):
            t.pop("row_estimate", None)
        return dict(schema)

    assert normalized(again) == normalized(doc)


def test_invalid_view_still_reflects(my_engine: str, fresh_db: Any) -> None:
    """A view whose base table was dropped is still listed, with its body (it loads once the table is back)."""
    db = fresh_db(my_engine)
    db.execute("CREATE TABLE base (a INT);\nCREATE VIEW v AS SELECT a FROM base;\nDROP TABLE base;\n")
    (view,) = reflect(db.url).schemas[0].views
    assert view.name == "v" and "`base`" in view.definition and view.columns == ()
