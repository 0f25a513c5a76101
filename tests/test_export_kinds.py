"""Every kind exports to its canonical text, on every engine, and the server-built lines (COPY /
CONCAT) are byte for byte what the Python codec writes.

``tests/export_kinds/<engine>.sql`` creates a table ``kinds`` with edge values of each type (zero
dates, infinity, NaN, extreme integers, control characters, JSON with exact numbers, geometry
with SRID...); ``<engine>.jsonl`` holds the expected lines (reviewed by hand, see
docs/data-format.md for the rules).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import orjson
import pytest

import dbjson
from dbjson.connect import Target, parse_url
from dbjson.engines import detect_engine
from dbjson.export import export_database
from dbjson.format.codec import RowEncoder
from dbjson.format.jsontext import raw_values

HERE = Path(__file__).parent / "export_kinds"


def load_kinds(fresh_db: Any, engine: str) -> Any:
    db = fresh_db(engine)
    db.execute((HERE / f"{engine}.sql").read_text(encoding="utf-8"))
    return db


def exported_lines(out: Path) -> list[bytes]:
    (path,) = sorted((out / "data").glob("*kinds*"))
    return sorted(path.read_bytes().splitlines(), key=lambda ln: orjson.loads(raw_values(ln)["id"]))


def test_kinds_export_to_expected_lines(fresh_db: Any, engine: str, tmp_path: Path) -> None:
    db = load_kinds(fresh_db, engine)
    export_database(db.url, tmp_path / "out", threads=2, tables=["kinds"])
    got = exported_lines(tmp_path / "out")
    expected = (HERE / f"{engine}.jsonl").read_bytes().splitlines()
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        gv, ev = raw_values(g), raw_values(e)
        assert list(gv) == list(ev)  # every column, in ordinal order
        diffs = {k: (gv[k], ev[k]) for k in ev if gv[k] != ev[k]}
        assert not diffs
        assert g == e


@pytest.mark.parametrize("engine_name", ["postgresql", "mysql", "mariadb"])
def test_server_side_json_equals_python_encoding_per_column(fresh_db: Any, engine_name: str) -> None:
    """For each column the server can encode: its SQL gives exactly the codec's bytes."""
    db = load_kinds(fresh_db, engine_name)
    model = dbjson.reflect(db.url)
    schema = model.schemas[0]
    target = Target(parse_url(db.url))
    conn = target.connect_raw()
    try:
        eng: Any = detect_engine(target.family, conn)
        eng.export_session(conn)
        checked = 0
        for table in schema.tables:
            src = eng.export_qualify(schema.name, table)
            for col in table.columns:
                expr = eng.json_expression(col)
                if expr is None:
                    assert col.type.kind in ("float", "array", "time", "vector"), col.name
                    continue
                server = eng._fetch(conn, f"SELECT {eng.quote('id')}, {expr} FROM {src} ORDER BY 1")
                python = eng._fetch(
                    conn, f"SELECT {eng.quote('id')}, {eng.select_expression(col)} FROM {src} ORDER BY 1"
                )
                enc = RowEncoder([col], eng.export_adapters([col]) if hasattr(eng, "export_adapters") else None)
                for (_, s), (_, p) in zip(server, python):
                    text = None if s is None else (s.decode() if isinstance(s, bytes) else str(s))
                    want = None if p is None else enc.line([p])[len(orjson.dumps(col.name)) + 2 : -1].decode()
                    assert text == want, (table.name, col.name, text, want)
                checked += 1
        assert checked >= 20
    finally:
        conn.close()


@pytest.mark.parametrize("engine_name", ["postgresql", "mysql", "mariadb"])
def test_server_and_python_paths_write_identical_files(
    fresh_db: Any, engine_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table without Python-only columns goes through the server path; forcing the Python path
    gives the same bytes."""
    db = load_kinds(fresh_db, engine_name)
    model = dbjson.reflect(db.url, tables=["kinds"])
    table = model.schemas[0].table("kinds")
    target = Target(parse_url(db.url))
    conn = target.connect_raw()
    eng: Any = detect_engine(target.family, conn)
    conn.close()
    keep = [c.name for c in table.columns if eng.json_expression(c) is not None]
    q = eng.quote
    relax = "SET SESSION sql_mode = 'ALLOW_INVALID_DATES';\n" if engine_name != "postgresql" else ""
    db.execute(f"{relax}CREATE TABLE srv AS SELECT {', '.join(q(c) for c in keep)} FROM {q('kinds')}")
    db.execute(f"{relax}CREATE TABLE srv_pk AS SELECT * FROM srv;\nALTER TABLE srv_pk ADD PRIMARY KEY ({q('id')})")
    for name in ("srv", "srv_pk"):  # without and with a primary key (split into key ranges)
        outs = []
        for flag in (True, False):
            monkeypatch.setattr(type(eng), "capabilities", dataclasses.replace(eng.capabilities, server_side_json=flag))
            export_database(db.url, tmp_path / f"{name}{flag}", threads=1, tables=[name])
            (path,) = (tmp_path / f"{name}{flag}" / "data").glob(f"*.{name}.jsonl")
            outs.append(sorted(path.read_bytes().splitlines()))
        assert outs[0] == outs[1] and len(outs[0]) >= 4


NOT_NULL_TABLES = {
    "postgresql": """
CREATE TABLE nn (id bigint PRIMARY KEY, i int NOT NULL, b boolean NOT NULL, d numeric(6,2) NOT NULL,
  u uuid NOT NULL, dt date NOT NULL, ts timestamp(6) NOT NULL, tz timestamptz(3) NOT NULL, v varchar(40) NOT NULL,
  by bytea NOT NULL, jb jsonb NOT NULL, j json NOT NULL, jn jsonb);
INSERT INTO nn VALUES
 (1, -5, true, -1.50, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '2024-02-29', '2024-01-01 00:00:00', '2024-01-01 10:00:00.5+02',
  'a "q" \\ é', '\\x00ff', '{"k": "a, b: c", "n": [1, 2.50], "e": {}}', '{ "a" : [1 , 2] }', '{"x": ", ", "y": ": "}'),
 (2, 0, false, 0, '00000000-0000-0000-0000-000000000000', 'infinity', '-infinity', 'infinity', '', '\\x', '[]', 'null', NULL),
 (3, 7, true, 99.99, 'ffffffff-ffff-ffff-ffff-ffffffffffff', '0044-03-15 BC', '2024-01-01 00:00:00.000001',
  '1970-01-01 00:00:00+00', 'x', '\\xdeadbeef', '{"a\\"b": "c\\", \\"d\\": e", "": [{}, []]}', '"s"', '"x: y, z"');
""",
}


@pytest.mark.parametrize("engine_name", sorted(NOT_NULL_TABLES))
def test_not_null_columns_and_json_separators_in_strings(
    fresh_db: Any, engine_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NOT NULL columns (built without COALESCE) and JSON strings holding ", " or ": " (the fast
    whitespace removal must fall back) give the Python codec's bytes on the server path."""
    db = fresh_db(engine_name)
    db.execute(NOT_NULL_TABLES[engine_name])
    target = Target(parse_url(db.url))
    conn = target.connect_raw()
    eng: Any = detect_engine(target.family, conn)
    conn.close()
    outs = []
    for flag in (True, False):
        monkeypatch.setattr(type(eng), "capabilities", dataclasses.replace(eng.capabilities, server_side_json=flag))
        export_database(db.url, tmp_path / str(flag), threads=1, tables=["nn"])
        (path,) = (tmp_path / str(flag) / "data").glob("*.nn.jsonl")
        outs.append(sorted(path.read_bytes().splitlines()))
    assert outs[0] == outs[1] and len(outs[0]) == 3
    assert b'"k":"a, b: c"' in b"".join(outs[0])
