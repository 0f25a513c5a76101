"""Type-mapping rules (--cast): parsed strictly, applied by schema-load, import and migrate to the
column's type and native spelling, shown in the loss report; the rows load and verify."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import dbjson
from dbjson import model as m
from dbjson.casts import apply_casts, parse_cast
from dbjson.cli import app
from dbjson.errors import UsageError


def test_rules_are_parsed_strictly() -> None:
    r = parse_cast("type TINYINT(1) to boolean")
    assert (r.kind, r.match, r.target) == ("type", "tinyint(1)", m.Type(kind="boolean"))
    assert r.matches_type("tinyint(1)") and not r.matches_type("tinyint(4)")
    assert parse_cast("type int to bigint").matches_type("int(11) unsigned")
    assert parse_cast("column shop.orders.total to decimal(12, 2)").target == m.Type(
        kind="decimal", precision=12, scale=2
    )
    for bad, words in (
        ("tinyint to boolean", "cannot read cast rule"),
        ("type tinyint to bool2", "unknown target type 'bool2'"),
        ("column status to text", "TABLE.COLUMN"),
        ("type int to varchar", "needs a length"),
        ("type int to text(3)", "takes no parameter"),
        ("type int); drop table x; -- to text", "not a type spelling"),
    ):
        with pytest.raises(UsageError, match=words.replace("(", r"\(").replace(")", r"\)")):
            parse_cast(bad)


def test_a_column_rule_naming_no_column_is_an_error(fresh_db: Any) -> None:
    src = fresh_db("sqlite")
    src.execute("CREATE TABLE orders (id integer PRIMARY KEY, status integer)")
    doc = dbjson.reflect(src.url)
    with pytest.raises(UsageError, match="orders.stauts"):
        apply_casts(doc, ["column orders.stauts to text"])
    cast, applied = apply_casts(doc, ["column orders.status to text"])
    col = cast.schemas[0].table("orders").column("status")
    assert col.type == m.Type(kind="text") and col.native.raw == "text" and len(applied) == 1
    assert doc.schemas[0].table("orders").column("status").type.kind == "integer"  # unchanged


@pytest.mark.mariadb
@pytest.mark.postgresql
def test_cast_rules_load_and_verify(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("mariadb")
    src.execute("""
        CREATE TABLE orders (id int PRIMARY KEY, flag tinyint NOT NULL, status int, note varchar(20));
        INSERT INTO orders VALUES (1, 1, 3, 'a'), (2, 0, NULL, 'b'), (3, 1, 12, NULL);
    """)
    out = tmp_path / "exp"
    dbjson.export_database(src.url, out)
    rules = ["type tinyint to boolean", "column orders.status to text"]

    # schema-load --dialect: both the type and the native spelling follow the rule, in the report
    res = CliRunner().invoke(
        app,
        ["schema-load", str(out / "schema.json"), "--dialect", "postgresql", *sum((["--cast", r] for r in rules), [])],
    )
    assert res.exit_code == 0, res.output
    assert '"flag" boolean NOT NULL' in res.output and '"status" text' in res.output
    assert "tinyint(4) cast to boolean" in res.output and "cast rule 'column orders.status to text'" in res.output

    # import (verified: the rows are converted to the new type, verify compares the source's values)
    dst = fresh_db("postgresql")
    report = dbjson.import_database(out, dst.url, casts=rules)
    assert report.verify is not None and report.verify.ok
    assert any("cast" in t for t in report.translation)
    assert dst.query("SELECT id, flag, status FROM orders ORDER BY id") == [
        (1, True, "3"),
        (2, False, None),
        (3, True, "12"),
    ]
    types = dict(dst.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'orders'"))
    assert (types["flag"], types["status"]) == ("boolean", "text")

    # migrate and the CLI's error for a typo
    dst2 = fresh_db("postgresql")
    moved = dbjson.migrate(src.url, dst2.url, casts=rules)
    assert moved.load.verify is not None and moved.load.verify.ok
    assert dst2.query("SELECT flag FROM orders WHERE id = 2") == [(False,)]
    res = CliRunner().invoke(
        app, ["import", str(out), fresh_db("postgresql").url, "--cast", "column orders.stauts to text"]
    )
    assert res.exit_code != 0 and "orders.stauts" in res.output
