"""The C path of the MySQL/MariaDB export (``dbjson._cmyexport``, ``MySQLExport._stream_c``).

The server sends plain values; the C code reads the text-protocol packets and writes the canonical
lines. Every test compares it byte for byte with the server-side lines (``DBJSON_NO_SPEEDUPS=1``)
and, where the Python codec can encode the table, with the Python path; a spy on ``_stream_c``
makes sure the C path really ran. Fuzz tests feed the parser random and mutated packets.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import orjson
import pymysql
import pytest
from conftest import compiled_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_export_perf import flags_with_a_2

from dbjson.connect import Target, parse_url
from dbjson.engines import detect_engine
from dbjson.engines.interface import ExportUnit as Unit
from dbjson.engines.mysql import MariaDB, MySQL
from dbjson.engines.mysql.export import MySQLExport
from dbjson.errors import DataError
from dbjson.export import export_database
from dbjson.reflect import reflect

HERE = Path(__file__).parent
ENGINES = ["mysql", "mariadb"]


def _module() -> Any:
    return compiled_module("_cmyexport")


@pytest.fixture
def cm() -> Any:
    return _module()


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch, cm: Any) -> list[str]:
    """Names of the units that went through the C path."""
    calls: list[str] = []
    orig = MySQLExport._stream_c

    def wrapped(self: Any, conn: Any, unit: Unit, *a: Any, **k: Any) -> Any:
        calls.append(unit.table.name)
        return orig(self, conn, unit, *a, **k)

    monkeypatch.setattr(MySQLExport, "_stream_c", wrapped)
    return calls


def set_mode(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """``c``: the C path; ``server``: server-built lines; ``python``: the Python codec."""
    if mode == "c":
        monkeypatch.delenv("DBJSON_NO_SPEEDUPS", raising=False)
    else:
        monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")
    for cls in (MySQL, MariaDB):
        monkeypatch.setattr(
            cls, "capabilities", dataclasses.replace(cls.capabilities, server_side_json=mode != "python")
        )


def export_modes(
    db: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spy: list[str],
    tables: list[str],
    modes: tuple[str, ...] = ("c", "server", "python"),
    **kw: Any,
) -> dict[str, dict[str, list[bytes]]]:
    out: dict[str, dict[str, list[bytes]]] = {}
    for mode in modes:
        set_mode(monkeypatch, mode)
        before = len(spy)
        export_database(db.url, tmp_path / mode, threads=1, tables=tables, **kw)
        if mode == "c":
            assert sorted(set(spy[before:])) == sorted(tables), "the C path did not run"
        else:
            assert len(spy) == before
        out[mode] = {p.name: sorted(p.read_bytes().splitlines()) for p in (tmp_path / mode / "data").glob("*.jsonl")}
    return out


def assert_same(outs: dict[str, dict[str, list[bytes]]]) -> None:
    ref = outs["c"]
    assert ref and all(ref.values())
    for mode, files in outs.items():
        assert files.keys() == ref.keys()
        for name in ref:
            for a, b in zip(ref[name], files[name]):
                assert a == b, (mode, name, a[:500], b[:500])
            assert len(ref[name]) == len(files[name])


def engine_conn(db: Any) -> tuple[Any, Any, Target]:
    target = Target(parse_url(db.url))
    raw = target.connect_raw()
    eng: Any = detect_engine(target.family, raw)
    raw.close()
    conn = eng.export_connect(target)
    eng.export_session(conn)
    return eng, conn, target


def stream(eng: Any, conn: Any, unit: Unit) -> bytes:
    return b"".join(eng.export_stream(conn, unit, threading.Event()))


# -- parity on the type-coverage data ---------------------------------------------------------------
@pytest.mark.parametrize("engine_name", ENGINES)
def test_kinds_parity(
    fresh_db: Any, engine_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spy: list[str]
) -> None:
    """tests/export_kinds: every column the C code converts (all but FLOAT), and the DOUBLE edge values."""
    db = fresh_db(engine_name)
    db.execute((HERE / "export_kinds" / f"{engine_name}.sql").read_text(encoding="utf-8"))
    table = reflect(db.url, tables=["kinds"]).schemas[0].table("kinds")
    eng, conn, _ = engine_conn(db)
    conn.close()
    keep = [c.name for c in table.columns if eng.c_kind(c) is not None]
    assert len(keep) >= len(table.columns) - 1
    cols = ", ".join(f"`{c}`" for c in keep)
    db.execute(
        f"SET SESSION sql_mode = 'ALLOW_INVALID_DATES';\nCREATE TABLE srv AS SELECT {cols} FROM kinds;\n"
        "CREATE TABLE dbl (id INT PRIMARY KEY, d DOUBLE) AS SELECT id, d FROM floats"
    )
    assert_same(export_modes(db, tmp_path, monkeypatch, spy, ["srv", "dbl"]))


EDGE_MYSQL = r"""
SET SESSION sql_mode = '';
CREATE TABLE edge (
  id INT PRIMARY KEY, s VARCHAR(100), t LONGTEXT, c CHAR(4), j JSON, b BLOB, bn BINARY(3), bits BIT(13), b64 BIT(64),
  st SET('a','b','c d'), dt DATETIME(3), ts TIMESTAMP(6) NULL, d DATE, tm TIME(2), y YEAR, z INT(6) ZEROFILL,
  big BIGINT UNSIGNED, dbl DOUBLE, e ENUM('x','y z'), dec0 DECIMAL(30,10), g GEOMETRY
);
INSERT INTO edge VALUES
 (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (2, '', '', '', '{}', X'', X'', b'0', b'0', '', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00', '00:00:00', 0, 0,
  0, -0.0, '', 0, ST_GeomFromText('POINT(0 0)')),
 (3, CONCAT(CHAR(0), CHAR(1), CHAR(8), CHAR(9), CHAR(10), CHAR(12), CHAR(13), CHAR(27), CHAR(31), CHAR(127), '"\\/'),
  CONCAT('😀 é ', CHAR(11), ' \u00 ', X'F09F9880'), 'ab  ', '{"$json": 1}', X'00FF', X'01', b'1111111111111', b'1',
  'a,c d', '2024-02-29 23:59:59.999', '2038-01-19 03:14:07.999999', '2024-02-30', '-838:59:59.99', 1901, 42,
  18446744073709551615, 1e-5, 'y z', -12345678901234567890.0123456789, ST_GeomFromText('POINT(1 2)', 4326)),
 (4, 'x', 'y', 'z', '{"$json": null}', X'FFFFFF', X'FFFFFF', b'1000000000000', 18446744073709551615, 'a,b,c d',
  '9999-12-31 23:59:59.999', '1970-01-01 00:00:01', '9999-12-31', '838:59:59', 2155, 999999, 1, 9.999999999999999e15,
  'x', 0.0000000001, ST_GeomFromText('LINESTRING(0 0, 1 1.5)')),
 (5, ' lead', 'trail ', ' ', '{"$json": 1, "b": 2}', X'61', X'6162', b'1', b'0', 'c d', NULL, NULL, NULL, '00:00:00.5', NULL,
  NULL, NULL, 1e16, NULL, NULL, NULL),
 (6, NULL, NULL, NULL, '[null]', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, -1.5e-7, NULL, NULL, NULL),
 (7, NULL, NULL, NULL, 'null', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 5e-324, NULL, NULL, NULL),
 (8, NULL, NULL, NULL, '{"a": "x, y: z", "b": [1, 2.50, -0.0, 1e300], "c": {"$json": 1}}', NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1.7976931348623157e308, NULL, NULL, NULL),
 (9, NULL, NULL, NULL, '{"k\\"q": "v\\\\ \\n \\u0001 \\u00e9", " ": " , : "}', NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, 123456789012345680, NULL, NULL, NULL),
 (10, NULL, NULL, NULL, '{ "$json" : [ 1 , { "a" : 2 } ] }', NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, 9.99e-6, NULL, NULL, NULL),
 (11, NULL, NULL, NULL, '"$json"', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1e-4, NULL, NULL, NULL),
 (12, NULL, NULL, NULL, '{"$jsonx": 1}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0.1, NULL, NULL, NULL),
 (13, NULL, NULL, NULL, '[{"$json": 1}]', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, -0.3, NULL, NULL, NULL),
 (14, NULL, NULL, NULL, '{"b": 1, "$json": 2}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1e21, NULL, NULL, NULL),
 (15, NULL, NULL, NULL, '{"\\u0024json": 1}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 33554432, NULL, NULL, NULL),
 (16, NULL, NULL, NULL, '{"$json": {"$json": [{}, []]}}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1e15, NULL, NULL, NULL),
 (17, NULL, NULL, NULL, ' 1.50 ', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 123e20, NULL, NULL, NULL),
 (18, NULL, NULL, NULL, '"a\\tb \\" c"', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0.30000000000000004, NULL, NULL, NULL);
"""


@pytest.mark.parametrize("engine_name", ENGINES)
def test_edge_values_parity(
    fresh_db: Any, engine_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spy: list[str]
) -> None:
    """NULLs, empty strings, control characters, 4-byte UTF-8, JSON edge cases ($json wrapping,
    ", " and ": " inside strings, escapes), zero dates, BIT, SET, ZEROFILL, DOUBLE edges."""
    db = fresh_db(engine_name)
    db.execute(EDGE_MYSQL)
    outs = export_modes(db, tmp_path, monkeypatch, spy, ["edge"])
    assert_same(outs)
    (lines,) = outs["c"].values()
    if engine_name == "mariadb":  # JSON kept as text: the JSON string of the text (format 1.3), no escape
        assert any(b'"j":"null"' in ln for ln in lines) and any(b'"j":"{\\"$json\\": 1}"' in ln for ln in lines)
    else:
        assert any(b'"j":{"$json":null}' in ln for ln in lines)
        assert any(b'"j":{"$json":{"$json":1}}' in ln for ln in lines)


def test_bigint_zerofill_keeps_server_path(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spy: list[str]
) -> None:
    """A column the C code has no exact conversion for (BIGINT ZEROFILL, FLOAT) keeps the table
    on the server-side path."""
    db = fresh_db("mariadb")
    db.execute(
        "CREATE TABLE zf (id INT PRIMARY KEY, b BIGINT(12) ZEROFILL, f FLOAT);\nINSERT INTO zf VALUES (1, 5, 0.1)"
    )
    set_mode(monkeypatch, "c")
    export_database(db.url, tmp_path / "o", threads=1)
    assert spy == []


# -- hypothesis ---------------------------------------------------------------------------------------
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text,
    lambda c: (
        st.lists(c, max_size=3)
        | st.dictionaries(st.sampled_from(["$json", "a", "b, c", 'q"', ""]) | _text, c, max_size=3)
    ),
    max_leaves=8,
)
_row = st.tuples(
    _text,
    _text,
    st.binary(max_size=40),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(0, 127),
    st.tuples(_json, st.booleans()),
    st.sets(st.sampled_from(["a", "b", "c d"])),
)


@pytest.mark.parametrize("engine_name", ENGINES)
def test_hypothesis_values_parity(fresh_db: Any, engine_name: str, cm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    db = fresh_db(engine_name)
    db.execute(
        "CREATE TABLE h (id INT PRIMARY KEY, s VARCHAR(200), t TEXT, b VARBINARY(100), n INT, big BIGINT, "
        "d DOUBLE, bits BIT(7), j JSON, st SET('a','b','c d'))"
    )
    table = reflect(db.url, tables=["h"]).schemas[0].table("h")
    eng, conn, _ = engine_conn(db)
    unit = Unit(schema=db.name, table=table)
    admin = db.connect()

    @settings(
        max_examples=12,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.lists(_row, min_size=1, max_size=25))
    def check(rows: list[tuple[Any, ...]]) -> None:
        with admin.cursor() as cur:
            cur.execute("DELETE FROM h")
            cur.executemany(
                "INSERT INTO h VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (
                        i,
                        s,
                        t,
                        b,
                        n,
                        big,
                        d,
                        bits,
                        json.dumps(j, ensure_ascii=False) if spaced else orjson.dumps(j).decode(),
                        ",".join(sorted(sv)),
                    )
                    for i, (s, t, b, n, big, d, bits, (j, spaced), sv) in enumerate(rows)
                ],
            )
        admin.commit()
        got = {}
        for mode in ("c", "server"):
            set_mode(monkeypatch, mode)
            got[mode] = stream(eng, conn, unit)
        assert got["c"] == got["server"]
        assert got["c"].count(b"\n") == len(rows)

    try:
        check()
    finally:
        admin.close()
        conn.close()


# -- large values: continuation packets ---------------------------------------------------------------
@pytest.mark.parametrize("engine_name", ENGINES)
def test_values_across_the_16mb_packet_boundary(
    fresh_db: Any, engine_name: str, cm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MySQL (max_allowed_packet 64 MB): 20 MB LONGBLOB and LONGTEXT values. MariaDB (16 MB): a row
    of exactly 0xFFFFFF bytes, followed by an empty continuation packet."""
    db = fresh_db(engine_name)
    db.execute("CREATE TABLE big (id INT PRIMARY KEY, b LONGBLOB, t LONGTEXT)")
    (maxp,) = db.query("SELECT @@max_allowed_packet")[0]
    if maxp >= 64 << 20:
        db.execute("INSERT INTO big VALUES (1, REPEAT(X'00FF10', 7000000), REPEAT('é\"x', 5000000)), (2, 'a', 'b')")
    else:
        n = 0xFFFFFF - 2 - 4 - 1  # id "1" (2 bytes), the blob's 4-byte length, t NULL (1 byte)
        db.execute(
            f"INSERT INTO big VALUES (1, REPEAT('x', {n}), NULL), (2, REPEAT('y', {n - 1}), NULL), (3, 'a', 'b')"
        )
    table = reflect(db.url, tables=["big"]).schemas[0].table("big")
    eng, conn, _ = engine_conn(db)
    try:
        unit = Unit(schema=db.name, table=table)
        got = {}
        for mode in ("c", "python"):  # MariaDB's server path stops at group_concat_max_len (16 MB)
            set_mode(monkeypatch, mode)
            text = stream(eng, conn, unit)
            got[mode] = hashlib.sha256(text).hexdigest(), text.count(b"\n"), len(text)
            del text
        assert got["c"] == got["python"] and got["c"][2] > 0xFFFFFF
        assert eng._fetch(conn, "SELECT 1") == [(1,)]
    finally:
        conn.close()


# -- errors and the connection's state -----------------------------------------------------------------
@pytest.mark.parametrize("engine_name", ENGINES)
def test_boolean_holding_2_stops_with_a_data_error(
    fresh_db: Any, engine_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spy: list[str]
) -> None:
    db = fresh_db(engine_name)
    doc = flags_with_a_2(db)
    set_mode(monkeypatch, "c")
    with pytest.raises(DataError) as e:
        export_database(db.url, tmp_path / "out", threads=1, database=doc)
    assert "no canonical encoding" in str(e.value) and (e.value.table or "").endswith(".flags")
    assert e.value.column == "ok" and spy == ["flags"]
    # at the engine level: the rest of the result is drained, the connection stays usable
    eng, conn, _ = engine_conn(db)
    try:
        with pytest.raises(DataError):
            stream(eng, conn, Unit(schema=db.name, table=doc.schemas[0].tables[0]))
        assert eng._fetch(conn, "SELECT 2") == [(2,)]
    finally:
        conn.close()
    # NULL, 0 and 1 in a nullable boolean column: null, false, true (as the Python codec writes them)
    db.execute("ALTER TABLE flags MODIFY ok TINYINT(1) NULL;\nUPDATE flags SET ok = NULL WHERE id = 777")
    files = []
    for mode in ("c", "server", "python"):
        set_mode(monkeypatch, mode)
        export_database(db.url, tmp_path / mode, threads=1, database=doc)
        (path,) = (tmp_path / mode / "data").glob("*.jsonl")
        files.append(path.read_bytes())
    assert files[0] == files[1] == files[2] and b'{"id":777,"ok":null}' in files[0]


@pytest.mark.parametrize("engine_name", ENGINES)
def test_connection_usable_after_units_and_key_ranges(
    fresh_db: Any, engine_name: str, cm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several units (key ranges, a --where condition with '%') on one connection, C and server
    path alternating: same lines, and PyMySQL queries work in between."""
    db = fresh_db(engine_name)
    rows = ", ".join(f"({i}, 'v%{i}', {i * 1.5})" for i in range(1, 3001))
    db.execute(f"CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20), d DOUBLE);\nINSERT INTO t VALUES {rows};")
    table = reflect(db.url, tables=["t"]).schemas[0].table("t")
    eng, conn, _ = engine_conn(db)
    try:
        units = [
            Unit(schema=db.name, table=table, key_columns=("id",), lower=lo, upper=hi, where=w)
            for lo, hi, w in (((None), (1000,), None), ((1000,), (2500,), "s LIKE 'v%1%'"), ((2500,), None, None))
        ]
        for unit in units:
            got = {}
            for mode in ("c", "server", "c"):
                set_mode(monkeypatch, mode)
                got.setdefault(mode, []).append(stream(eng, conn, unit))
                assert eng._fetch(conn, "SELECT 1") == [(1,)]
            assert got["c"][0] == got["c"][1] == got["server"][0] and got["c"][0]
    finally:
        conn.close()


@pytest.mark.parametrize("engine_name", ENGINES)
def test_kill_query_mid_stream(fresh_db: Any, engine_name: str, cm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """KILL QUERY while the C path streams: the server's error is raised (the export turns it into
    a DataError), and the connection is usable afterwards."""
    db = fresh_db(engine_name)
    digits = ", ".join(f"({i})" for i in range(10))
    cross = " CROSS JOIN ".join(f"d d{k}" for k in range(6))
    value = " + ".join(f"d{k}.i * {10**k}" for k in range(6))
    db.execute(
        f"CREATE TABLE d (i INT);\nINSERT INTO d VALUES {digits};\nCREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(200));\n"
        f"INSERT INTO t SELECT {value}, REPEAT('x', 150) FROM {cross} WHERE {value} < 300000"
    )
    table = reflect(db.url, tables=["t"]).schemas[0].table("t")
    eng, conn, _ = engine_conn(db)
    set_mode(monkeypatch, "c")
    admin = db.connect()
    try:
        gen = eng.export_stream(conn, Unit(schema=db.name, table=table), threading.Event())
        next(gen)
        with admin.cursor() as cur:
            cur.execute(f"KILL QUERY {conn.thread_id()}")
        with pytest.raises(pymysql.err.OperationalError) as e:
            for _ in gen:
                pass
        assert e.value.args[0] in (1317, 1927, 3024), e.value.args
        assert eng._fetch(conn, "SELECT 3") == [(3,)]
    finally:
        admin.close()
        conn.close()


# -- end to end: the real command ----------------------------------------------------------------------
@pytest.mark.parametrize("engine_name", ENGINES)
def test_cli_export_identical_with_and_without_speedups(
    fresh_db: Any, engine_name: str, tmp_path: Path, cm: Any
) -> None:
    """``dbjson export`` of the torture schema (one default row per table) plus the kinds tables:
    the same files, byte for byte, with the C path on and with DBJSON_NO_SPEEDUPS=1."""
    db = fresh_db(engine_name)
    db.execute((HERE / "torture" / f"{engine_name}.sql").read_text(encoding="utf-8"))
    conn = db.connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SET SESSION sql_mode = ''")
            cur.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() "
                "AND table_type = 'BASE TABLE'"
            )
            for (name,) in cur.fetchall():
                try:
                    cur.execute(f"INSERT INTO `{name}` () VALUES ()")
                except pymysql.MySQLError:
                    pass
        conn.commit()
    finally:
        conn.close()
    db.execute(EDGE_MYSQL)
    env = {k: v for k, v in os.environ.items() if k != "DBJSON_NO_SPEEDUPS"}
    files = {}
    for flag in ("", "1"):
        out = tmp_path / f"out{flag or 'c'}"
        subprocess.run(
            [sys.executable, "-m", "dbjson", "export", db.url, "-o", str(out), "--threads", "1"],
            check=True,
            env={**env, "DBJSON_NO_SPEEDUPS": flag},
            capture_output=True,
        )
        files[flag] = {p.name: p.read_bytes() for p in (out / "data").glob("*")}
        manifest = orjson.loads((out / "manifest.json").read_bytes())
        files[flag]["checksums"] = orjson.dumps([(t["name"], t["rows"], t["checksum"]) for t in manifest["tables"]])
    assert files[""] == files["1"]
    assert sum(f.count(b"\n") for n, f in files[""].items() if n != "checksums") >= 20


# -- the parser alone: fuzz and resumability ---------------------------------------------------------
def lenenc(v: bytes | None) -> bytes:
    if v is None:
        return b"\xfb"
    n = len(v)
    if n < 251:
        head = bytes([n])
    elif n < 1 << 16:
        head = b"\xfc" + struct.pack("<H", n)
    elif n < 1 << 24:
        head = b"\xfd" + struct.pack("<I", n)[:3]
    else:
        head = b"\xfe" + struct.pack("<Q", n)
    return head + v


def packets(payloads: list[bytes], seq: int = 1) -> tuple[bytes, int]:
    out = bytearray()
    for pl in payloads:
        while True:
            part, pl = pl[:0xFFFFFF], pl[0xFFFFFF:]
            out += struct.pack("<I", len(part))[:3] + bytes([seq])
            out += part
            seq = (seq + 1) % 256
            if len(part) < 0xFFFFFF:
                break
    return bytes(out), seq


EOF_PACKET = b"\xfe\x00\x00\x22\x00"


def sample_stream(cm: Any) -> tuple[bytes, tuple[bytes, ...], tuple[int, ...], tuple[int, ...]]:
    rng = random.Random(7)
    kinds = (cm.K_NUMBER, cm.K_STRING, cm.K_BINARY, cm.K_BIT, cm.K_SET, cm.K_JSON, cm.K_DOUBLE, cm.K_TIMESTAMP)
    args = (0, 0, 0, 10, 0, 0, 0, 1)
    keys = tuple((("{" if i == 0 else ",") + f'"c{i}":').encode() for i in range(len(kinds)))
    rows = []
    for i in range(300):
        rows.append(
            b"".join(
                lenenc(v)
                for v in (
                    str(i).encode(),
                    bytes(rng.randrange(128) for _ in range(rng.randrange(40))),
                    rng.randbytes(rng.randrange(30)),
                    bytes([rng.randrange(4), rng.randrange(256)]) if i % 3 else None,
                    b"a,b" if i % 2 else b"",
                    b'{"a": [1, "x y"], "$json": 2}' if i % 4 else b'{"$json": "q"}',
                    f"{rng.random() * 10 ** rng.randrange(-30, 30)!r}".encode(),
                    b"2024-01-01 00:00:00.5",
                )
            )
        )
    rows.append(
        b"".join(
            lenenc(v) for v in (b"-7", b"x" * 70000, None, b"\x03\xff", b"", b"null", b"1e16", b"0000-00-00 00:00:00")
        )
    )
    data, _ = packets(rows + [EOF_PACKET])
    return data, keys, kinds, args


def test_parser_resumes_at_every_chunk_size(cm: Any) -> None:
    data, keys, kinds, args = sample_stream(cm)
    whole = cm.rows_to_jsonl(data, 0, 1, keys, kinds, args, False)
    assert whole[3] == 1 and whole[4] == 0x22 and whole[1] == len(data) and whole[5] == 301
    assert whole[0].count(b"\n") == 301
    for line in whole[0].splitlines():
        orjson.loads(line)  # valid JSON
    rng = random.Random(3)
    for _ in range(20):
        buf, pos, seq, out = bytearray(), 0, 1, []
        feed = 0
        while True:
            res = cm.rows_to_jsonl(buf, pos, seq, keys, kinds, args, False)
            out.append(res[0])
            _, pos, seq, status, info, _ = res
            if status == 1:
                break
            assert status == 0 and info > len(buf) - pos
            step = rng.choice([1, 7, 100, 5000, 70000])
            buf += data[feed : feed + step]
            feed += step
        assert b"".join(out) == whole[0] and pos == len(buf) == len(data)


def test_parser_err_packet_and_sequence(cm: Any) -> None:
    keys, kinds, args = (b'{"a":',), (cm.K_NUMBER,), (0,)
    err = b"\xff\x25\x05#70100Query execution was interrupted"
    data, seq = packets([lenenc(b"1"), err])
    out, pos, seq2, status, info, rows = cm.rows_to_jsonl(data, 0, 1, keys, kinds, args, False)
    assert (out, pos, seq2, status, info, rows) == (b'{"a":1}\n', len(data), seq, 2, err, 1)
    with pytest.raises(ValueError):
        cm.rows_to_jsonl(data, 0, 5, keys, kinds, args, False)  # wrong sequence id
    with pytest.raises(ValueError):  # two values for one column
        cm.rows_to_jsonl(packets([lenenc(b"1") + lenenc(b"2")])[0], 0, 1, keys, kinds, args, False)
    ok, _ = packets([b"\xfe\x00\x00\x02\x00\x00\x00"])  # CLIENT_DEPRECATE_EOF: an OK packet with 0xFE
    assert cm.rows_to_jsonl(ok, 0, 1, keys, kinds, args, True)[3:5] == (1, 2)
    assert cm.skip_rows(data, 0, 1, False)[3] == 2


def test_parser_never_crashes_on_random_bytes(cm: Any) -> None:
    rng = random.Random(11)
    all_kinds = [getattr(cm, n) for n in dir(cm) if n.startswith("K_")]
    data, keys, kinds, args = sample_stream(cm)
    for i in range(4000):
        n = rng.randrange(1, 5)
        ks = tuple(rng.choice(all_kinds) for _ in range(n))
        a = tuple(rng.randrange(1, 65) if k == cm.K_BIT else rng.randrange(2) if k == cm.K_JSON else 0 for k in ks)
        keyz = tuple(b'{"k":' for _ in range(n))
        if i % 2:
            blob = rng.randbytes(rng.randrange(0, 300))
        else:  # a mutated valid stream (headers mostly intact)
            start = rng.randrange(0, 2000)
            blob = bytearray(data[start : start + rng.randrange(0, 3000)])
            for _ in range(rng.randrange(1, 8)):
                if blob:
                    blob[rng.randrange(len(blob))] = rng.randrange(256)
            blob = bytes(blob)
            ks, a, keyz = kinds, args, keys
        for fn in (
            lambda: cm.rows_to_jsonl(blob, 0, rng.randrange(256), keyz, ks, a, bool(i % 3)),
            lambda: cm.skip_rows(blob, 0, rng.randrange(256), bool(i % 3)),
        ):
            try:
                res = fn()
            except ValueError:
                continue
            assert 0 <= res[1] <= len(blob) and res[3] in (0, 1, 2, 3, 4)
    for bad in ((b"", -1), (b"", 1)):
        with pytest.raises(ValueError):
            cm.rows_to_jsonl(bad[0], bad[1], 1, keys, kinds, args, False)
    with pytest.raises(ValueError):
        cm.rows_to_jsonl(b"", 0, 1, (b"{",), (99,), (0,), False)
    with pytest.raises(ValueError):
        cm.rows_to_jsonl(b"", 0, 1, (b"{",), (cm.K_BIT,), (65,), False)


def test_c_path_over_tls(fresh_db: Any, cm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An ``ssl_*`` URL option keeps PyMySQL's TLS (the MySQL 9 test server offers it): the C path
    reads through the TLS socket file like PyMySQL does."""
    db = fresh_db("mysql")
    rows = ", ".join(f"({i}, REPEAT('é', {i % 300}), {i})" for i in range(1, 4001))
    db.execute(f"CREATE TABLE t (id INT PRIMARY KEY, s TEXT, n BIGINT);\nINSERT INTO t VALUES {rows};")
    table = reflect(db.url, tables=["t"]).schemas[0].table("t")
    url = parse_url(db.url).update_query_dict({"ssl_check_hostname": "false"})
    target = Target(url)
    raw = target.connect_raw()
    eng: Any = detect_engine(target.family, raw)
    raw.close()
    conn = eng.export_connect(target)
    try:
        eng.export_session(conn)
        assert eng._fetch(conn, "SHOW SESSION STATUS LIKE 'Ssl_cipher'")[0][1] != ""
        got = {}
        for mode in ("c", "server", "c"):
            set_mode(monkeypatch, mode)
            got.setdefault(mode, []).append(stream(eng, conn, Unit(schema=db.name, table=table)))
        assert got["c"][0] == got["c"][1] == got["server"][0] and got["c"][0].count(b"\n") == 4000
    finally:
        conn.close()


@pytest.mark.parametrize("engine_name", ENGINES)
def test_stop_and_abort_end_a_blocked_c_stream(
    fresh_db: Any, engine_name: str, cm: Any, monkeypatch: pytest.MonkeyPatch, spy: list[str]
) -> None:
    """Ctrl-C: the stream has rows and waits in a socket read (the server sleeps on the later rows); setting ``stop`` and
    ``export_abort`` (socket shut down) end it promptly, without an error."""
    db = fresh_db(engine_name)
    db.execute(
        "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(2000));\nINSERT INTO t VALUES "
        + ", ".join(f"({i}, REPEAT('x', 1500))" for i in range(1, 71))
    )
    table = reflect(db.url, tables=["t"]).schemas[0].table("t")
    eng, conn, _ = engine_conn(db)
    set_mode(monkeypatch, "c")
    stop = threading.Event()
    got: list[Any] = []

    def consume() -> None:
        try:
            got.extend(
                eng.export_stream(conn, Unit(schema=db.name, table=table, where="IF(id > 50, SLEEP(0.2), 0) = 0"), stop)
            )
            got.append("ended")
        except BaseException as e:  # noqa: BLE001
            got.append(e)

    worker = threading.Thread(target=consume, daemon=True)
    worker.start()
    try:
        worker.join(1.0)
        assert worker.is_alive() and spy == ["t"]
        stop.set()
        eng.export_abort(conn)
        worker.join(5.0)
        assert not worker.is_alive(), "the stream did not end after the abort"
        assert got == ["ended"], got
    finally:
        conn.close()


def test_c_path_only_with_the_pymysql_internals_it_reads(fresh_db: Any) -> None:
    """A PyMySQL whose private attributes differ (a future version) keeps the server-side path."""
    from dbjson.connect import Target, parse_url
    from dbjson.engines.mysql.export import _pymysql_internals_known

    db = fresh_db("mariadb")
    conn = Target(parse_url(db.url)).connect_raw()
    try:
        assert _pymysql_internals_known(conn)

        class Changed:
            pass

        assert not _pymysql_internals_known(Changed())
    finally:
        conn.close()


# REGEXP_REPLACE(text, '("(?:[^"\\]++|\\.)*+")|[ \t\n\r]+', '\1'): the server path's compaction
_JSON_WS = __import__("re").compile(rb'("(?:[^"\\]++|\\.)*+")|[ \t\n\r]+')


def _compact_like_the_server(doc: bytes) -> bytes:
    return _JSON_WS.sub(lambda mt: mt.group(1) or b"", doc)


def test_json_and_string_word_scans_at_every_offset(cm: Any) -> None:
    """K_JSON's compaction finds a string's end 8 bytes at a time and K_STRING's quoting jumps to
    the byte that needs an escape: a quote, backslash escape or control byte at every offset of
    strings up to 40 bytes, near the end of the value too, converts as the server path's REGEXP_REPLACE
    (JSON) and orjson (strings) do; the ``$json`` wrapping of ``null``, of a single ``$json`` key
    (MySQL: decided here) and of MariaDB's flag still applies."""
    specials = [b'\\"', b"\\\\", b"\\n", b"\\u0041", b"\\/", b"\xc3\xa9", b" ", b"\t"]
    rows, want = [], []
    for n in range(41):
        for pos in range(n + 1):
            for sp in specials:
                s = b"p" * pos + sp + b"q" * (n - pos)
                for doc in (b'{"k": "' + s + b'", "n": [1, 2]}', b'["' + s + b'"]', b'"' + s + b'"'):
                    rows.append(lenenc(doc))
                    want.append(b'{"a":' + _compact_like_the_server(doc) + b"}\n")
    rows.append(lenenc(b"null"))
    want.append(b'{"a":{"$json":null}}\n')
    rows.append(lenenc(b'{"$json": [1, "x y"]}'))
    want.append(b'{"a":{"$json":{"$json":[1,"x y"]}}}\n')
    data, _ = packets([*rows, EOF_PACKET])
    out, pos, _, status, _, count = cm.rows_to_jsonl(data, 0, 1, (b'{"a":',), (cm.K_JSON,), (0,), False)
    assert status == 1 and count == len(rows) and pos == len(data)
    assert out.split(b"\n")[:-1] == [w[:-1] for w in want]
    # MariaDB: the server's flag in the next column decides the wrapping
    data, _ = packets([lenenc(b'{"a": 1}') + lenenc(b"1"), lenenc(b'{"a": 1}') + lenenc(b"0"), EOF_PACKET])
    out = cm.rows_to_jsonl(data, 0, 1, (b'{"a":',), (cm.K_JSON,), (1,), False)[0]
    assert out == b'{"a":{"$json":{"a":1}}}\n{"a":{"a":1}}\n'
    # strings: every byte that needs an escape, at every offset
    texts = [
        b"p" * pos + sp + b"q" * (n - pos)
        for n in range(41)
        for pos in range(n + 1)
        for sp in (b'"', b"\\", b"\n", b"\x01", b"\x1f", b"\xc3\xa9", b"\x7f")
    ]
    data, _ = packets([*(lenenc(t) for t in texts), EOF_PACKET])
    out = cm.rows_to_jsonl(data, 0, 1, (b'{"a":',), (cm.K_STRING,), (0,), False)[0]
    assert out.split(b"\n")[:-1] == [b'{"a":' + orjson.dumps(t.decode()) + b"}" for t in texts]
