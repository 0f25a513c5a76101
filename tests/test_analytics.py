"""Typed views for DuckDB (``dbjson sql duckdb DIR``) and typed Python values (``read_table``) over
the per-kind torture exports of every engine (tests/export_kinds): every value DuckDB reads through
the generated view equals the value dbjson's row decoder gives (the values ``import`` loads, which
the round-trip tests compare with the source's), except the values no DuckDB type holds, each of
which is checked to be one of the documented cases (docs/scale.md)."""

from __future__ import annotations

import datetime as dt
import json
import math
import subprocess
import sys
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from test_export_kinds import load_kinds

import dbjson
from dbjson.analytics import duckdb_sql, read_arrow
from dbjson.export import export_database
from dbjson.format.manifest import read_export

duckdb = pytest.importorskip("duckdb")


def _lost(kind: str, text: Any) -> bool:
    """A value the DuckDB type cannot hold (NULL in the view), as docs/scale.md lists them."""
    if not isinstance(text, str):
        return False
    if kind in ("date", "timestamp"):  # zero and invalid MySQL dates
        try:
            dt.date.fromisoformat(text[:10])
        except ValueError:
            return True
        return False
    if kind in ("decimal", "money"):
        return text in ("NaN", "Infinity", "-Infinity")
    if kind == "bit":  # an empty bit varying (DuckDB's BIT has at least one bit)
        return text == ""
    if kind == "time":  # MySQL elapsed time: negative or past 24 h
        return text.startswith("-") or int(text.split(":")[0]) > 24
    return False


def same(kind: str, t: Any, duck: Any, typed: Any, raw: Any) -> bool:
    if kind == "json" and typed is None and raw is not None:  # the JSON document null (Python: None),
        return duck == "null" and raw in ({"$json": None}, "null")  # nested, or as text (format 1.3)
    if duck is None or typed is None:
        return duck is None and (typed is None or _lost(kind, raw))
    if kind == "json":
        return json.loads(duck, parse_float=Decimal) == typed
    if kind == "opaque" and not isinstance(typed, str):  # an untyped number (format 1.4): DuckDB's VARCHAR of it
        return duck == json.dumps(raw)
    if kind == "array":
        return json.loads(duck) == raw
    if isinstance(typed, float) and math.isnan(typed):
        return math.isnan(duck)
    if kind in ("decimal", "money"):
        d = Decimal(duck) if isinstance(duck, str) else duck
        return d == typed or (d.is_nan() and typed.is_nan())
    if kind == "uuid":
        return str(duck) == typed
    if kind in ("date", "timestamp") and isinstance(typed, str):  # infinity, BC: DuckDB holds them
        if typed.endswith("infinity"):
            return duck in (dt.date.max, dt.date.min, dt.datetime.max, dt.datetime.min) or "infinity" in str(duck)
        if typed.endswith(" BC"):  # Python has no year before 1: the year, month and day as written
            return duck.strftime("%Y-%m-%d") == typed[:10].lstrip("0").rjust(4, "0") or str(duck)[:10] in typed
    if kind == "timestamp" and isinstance(typed, dt.datetime) and typed.tzinfo and not t.with_timezone:
        return duck == typed.astimezone(dt.UTC).replace(tzinfo=None)
    if kind == "time" and isinstance(typed, dt.timedelta):  # 24:00:00
        return str(duck) == "24:00:00" and typed == dt.timedelta(hours=24)
    if kind == "bit":
        return str(duck) == str(typed)
    if kind == "float" and t.bits == 32:
        return float(duck) == pytest.approx(typed, rel=1e-7)
    return bool(duck == typed)


def test_duckdb_reads_every_kind_with_its_type(fresh_db: Any, engine: str, tmp_path: Path) -> None:
    src = load_kinds(fresh_db, engine)
    out = tmp_path / "out"
    export_database(src.url, out, threads=1)
    db, tables, _ = read_export(out)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(duckdb_sql(out))
    checked = lost = 0
    kinds_seen = set()
    for schema, table in db.tables():
        cols = table.columns
        got = con.execute(f'SELECT * FROM "{schema.name}"."{table.name}"').fetchall()
        typed = list(dbjson.read_table(out, f"{schema.name}.{table.name}"))
        mt = next(t for t in tables if (t.schema, t.name) == (schema.name, table.name))
        raws = [json.loads(line, parse_float=Decimal) for f in mt.files for line in f.path.read_bytes().splitlines()]
        key = cols[0].name
        got.sort(key=lambda r: str(r[0]))
        order = sorted(range(len(typed)), key=lambda i: str(typed[i][key]))
        assert len(got) == len(typed) == len(raws)
        for row, i in zip(got, order):
            for c, duck in zip(cols, row):
                value, raw = typed[i][c.name], raws[i][c.name]
                kinds_seen.add(c.type.kind)
                assert same(c.type.kind, c.type, duck, value, raw), (
                    f"{table.name}.{c.name} ({c.type.kind}): DuckDB {duck!r}, dbjson {value!r}, line {raw!r}"
                )
                checked += 1
                lost += duck is None and value is not None
    assert checked > 40 and lost <= 12, (checked, lost)
    assert {"integer", "decimal", "float", "timestamp", "json"} <= kinds_seen


def test_sql_duckdb_cli_and_arrow(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "s.db"
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, big BIGINT, amount NUMERIC(12,2), b BLOB, at TIMESTAMP);"
        "INSERT INTO t VALUES (9007199254740993, 9223372036854775807, 12.5, x'00ff', '2024-01-02 03:04:05');"
    )
    conn.close()
    export_database(f"sqlite:///{db}", tmp_path / "out")
    proc = subprocess.run(
        [sys.executable, "-m", "dbjson", "sql", "duckdb", str(tmp_path / "out")], capture_output=True, check=True
    )
    con = duckdb.connect()
    con.execute(proc.stdout.decode())
    row = con.execute('SELECT id, big, amount, b, "at", typeof(id), typeof(amount) FROM main.t').fetchone()
    assert row == (
        9007199254740993,
        9223372036854775807,
        Decimal("12.50"),
        b"\x00\xff",
        dt.datetime(2024, 1, 2, 3, 4, 5),
        "BIGINT",
        "DECIMAL(12,2)",
    )
    pa = pytest.importorskip("pyarrow")
    table = read_arrow(tmp_path / "out", "t")
    assert table.schema.field("id").type == pa.int64() and table.schema.field("amount").type == pa.decimal128(12, 2)
    assert table.to_pylist()[0]["big"] == 9223372036854775807
    assert uuid  # imported for same()
