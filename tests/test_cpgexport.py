"""The C speedup of PostgreSQL export (``csrc/_cpgexport.c``): plain COPY text rows turned into
canonical lines on the client must be byte for byte the lines the server builds itself
(``line_expression``), and the C conversion byte for byte its Python reference
(``copy_to_jsonl_py``).

Parity is checked on the per-kind data (tests/export_kinds), the torture schema (tests/torture) and
an edge table below (json/jsonb $json wrapping, timestamps at the edges, bytea of every length up to
100, control characters), on hypothesis-generated text and json values against the server, with a
fuzz test (random bytes never crash the C function, and when it answers it agrees with Python), and
end to end: ``dbjson export`` with the C path on and with ``DBJSON_NO_SPEEDUPS=1`` writes the same
files and manifests.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import compiled_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dbjson
from dbjson.connect import Target, parse_url
from dbjson.engines import detect_engine
from dbjson.engines.postgresql import export as pgx
from dbjson.errors import DataError

ROOT = Path(__file__).resolve().parents[1]
KINDS_SQL = ROOT / "tests" / "export_kinds" / "postgresql.sql"
TORTURE_SQL = ROOT / "tests" / "torture" / "postgresql.sql"

EDGE_SQL = r"""
CREATE TABLE edge (
  id integer PRIMARY KEY, j json, jb jsonb, t text, c char(3), ts timestamp, ts0 timestamp(0), ts3 timestamp(3),
  tstz timestamptz, tstz2 timestamptz(2), b bytea, big bigint, d date, flag boolean
);
INSERT INTO edge (id, j, jb) VALUES
 (1, '{"$json": 1}', '{"$json": 1}'),
 (2, '{"$json": {"$json": null}}', '{"$json": {"$json": null}}'),
 (3, '{"$json": 1, "$json": 2}', '{"$json": 1, "$json": 2}'),
 (4, '{"\u0024json": 1}', '{"\u0024json": 1}'),
 (5, '{"\u0024json": 1, "$json": 2}', '{"\u0024json": 1, "$json": 2}'),
 (6, '{"\u0024json": {"$json": 2}}', '{"\u0024json": {"$json": 2}}'),
 (7, '{"$json": 1, "a": 2}', '{"$json": 1, "a": 2}'),
 (8, '{"a": {"$json": 1}}', '{"a": {"$json": 1}}'),
 (9, '{"a": "\"$json\""}', '{"a": "\"$json\""}'),
 (10, '  null  ', 'null'),
 (11, '"null"', '"null"'),
 (12, '[null, {"$json": 1}]', '[null, {"$json": 1}]'),
 (13, '{}', '{}'),
 (14, '{ }', '[ ]'),
 (15, E'{ "k" : "v, with: \\" quotes\\", and \\\\ slashes" ,\n\t"n" : [ 1 , 2.50 , 1e400 ] }',
      E'{ "k" : "v, with: \\" quotes\\", and \\\\ slashes" ,\n\t"n" : [ 1 , 2.50 , 1e400 ] }'),
 (16, '{"a": ", ", "b": ": ", "c": "\", \""}', '{"a": ", ", "b": ": ", "c": "\", \""}'),
 (17, '{"u": "\u00e9\ud83d\ude00 \u2028 /\/"}', '{"u": "\u00e9\ud83d\ude00 \u2028 /\/"}'),
 (18, '{"k": 1, "k": 2}', '{"k": 1, "k": 2}'),
 (19, '"\ud800 lone"', '"\u0001 ctrl"'),
 (20, '{"a":{"b":[{"c":"x y"}]},"z":"é😀"}', '{"a":{"b":[{"c":"x y"}]},"z":"é😀"}'),
 (21, '{"a":"\u0000"}', '"\\u0000 text"'),
 (22, '{"$json": "\ud83d\ude00", "$json": "x"}', '{"$json": "\u00e9"}'),
 (23, '{"\u0024\u006a\u0073\u006f\u006e": [], "$json": {}}', '{"$json": [1, {"$json": 2}]}'),
 (24, '{"$json" : 3 }', '{"a\"b": 1, "$json": 2}'),
 (25, '12.50', '12.50'),
 (26, 'true', 'false'),
 (27, E'[1,\r\n2]', '[]');
INSERT INTO edge (id, t, c) VALUES
 (40, E'\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f', 'a'),
 (41, E'"\\/ \u2028 \u2029 é 😀 \\N \\\\N', ''),
 (42, '', 'abc'),
 (43, E'tab\there\nnewline\rcr\\back', ' '),
 (44, '\N', E'\t');
INSERT INTO edge (id, ts, ts0, ts3, tstz, tstz2, d) VALUES
 (60, 'infinity', 'infinity', 'infinity', 'infinity', 'infinity', 'infinity'),
 (61, '-infinity', '-infinity', '-infinity', '-infinity', '-infinity', '-infinity'),
 (62, '0044-03-15 12:00:00 BC', '4713-01-01 00:00:00 BC', '0001-12-31 23:59:59.999 BC', '0044-03-15 12:00:00+00 BC', '0001-01-01 00:00:00.5+00 BC', '0044-03-15 BC'),
 (63, '0001-01-01 00:00:00', '0001-01-01 00:00:00', '0001-01-01 00:00:00.001', '0001-01-01 00:00:00+00', '0001-01-01 00:00:00.01+00', '0001-01-01'),
 (64, '9999-12-31 23:59:59.999999', '9999-12-31 23:59:59', '9999-12-31 23:59:59.999', '9999-12-31 23:59:59.999999+00', '9999-12-31 23:59:59.99+00', '9999-12-31'),
 (65, '10000-01-01 00:00:00.5', '294276-12-31 23:59:59', '12345-06-07 08:09:10.1', '294276-12-31 23:59:59.999999+00', '10000-01-01 00:00:00.1+00', '5874897-12-31'),
 (66, '2024-02-29 12:00:00.1', '2024-02-29 12:00:00', '2024-02-29 12:00:00.12', '2024-06-01 12:00:00.25+02', '2024-06-01 12:00:00-11:30', '2024-02-29'),
 (67, '1970-01-01 00:00:00.000001', '1970-01-01 00:00:01', '1970-01-01 00:00:00.1', '1969-12-31 23:59:59.999999+00', '1970-01-01 00:00:00.05+00', '1970-01-01');
INSERT INTO edge (id, b) SELECT 100 + n, CASE WHEN n = 0 THEN ''::bytea ELSE decode(repeat(lpad(to_hex(n), 2, '0'), n), 'hex') END
  FROM generate_series(0, 100) AS n;
INSERT INTO edge (id, b) VALUES (201, '\x00'), (202, '\x0a0d09'), (203, '\x5c4e'), (204, decode(repeat('ff', 300), 'hex'));
INSERT INTO edge (id, big, flag) VALUES (300, -9223372036854775808, true), (301, 9223372036854775807, false), (302, 0, NULL);
"""


@pytest.fixture(scope="module")
def cmod() -> Any:
    """The compiled module, imported directly (DBJSON_NO_SPEEDUPS plays no part here): a missing
    one skips locally and fails under CI=true."""
    return compiled_module("_cpgexport")


class Server:
    """A reflected PostgreSQL database with an export session, for comparing the paths per table."""

    def __init__(self, url: str) -> None:
        self.model = dbjson.reflect(url)
        target = Target(parse_url(url))
        self.conn = target.connect_raw()
        self.eng: Any = detect_engine(target.family, self.conn)
        self.eng.export_session(self.conn)

    def close(self) -> None:
        self.conn.close()

    def tables(self) -> list[tuple[str, Any]]:
        return [(s.name, t) for s in self.model.schemas for t in s.tables]

    def exportable(self, table: Any) -> list[Any]:
        """The columns with a server-side JSON expression (a table with others exports through the
        cursor path; its other columns are still compared)."""
        return [c for c in table.columns if self.eng.json_expression(c) is not None]

    def server_lines(self, schema: str, table: Any, columns: list[Any]) -> bytes:
        """What today's server-side path produces (one line per row, ordered by the first column)."""
        line = self.eng.line_expression(columns)
        assert line is not None
        src = self.eng.export_qualify(schema, table)
        order = self.eng.quote(table.columns[0].name)
        rows = self.eng._fetch(self.conn, f"SELECT {line} FROM {src} ORDER BY {order}")
        return b"".join(r[0].encode() + b"\n" for r in rows)

    def copy_rows(self, schema: str, table: Any, columns: list[Any]) -> tuple[bytes, tuple[Any, ...]]:
        """The plain COPY text rows of the export's C path, and (keys, kinds, args)."""
        plan = self.eng.copy_plan(columns)
        assert plan is not None
        select_list, *spec = plan
        src = self.eng.export_qualify(schema, table)
        order = self.eng.quote(table.columns[0].name)
        with self.conn.cursor() as cur:
            with cur.copy(f"COPY (SELECT {select_list} FROM {src} ORDER BY {order}) TO STDOUT") as cp:
                data = b"".join(bytes(b) for b in cp)
        return data, tuple(spec)


def compare_database(url: str, cmod: Any, min_tables: int = 1, min_columns: int = 1) -> int:
    """Every table (its columns with a server-side expression): server lines == C == Python, also
    converted in random block splits (the C function sees blocks of complete rows)."""
    srv = Server(url)
    checked = columns = 0
    try:
        for schema, table in srv.tables():
            cols = srv.exportable(table)
            if not cols:
                continue
            want = srv.server_lines(schema, table, cols)
            data, spec = srv.copy_rows(schema, table, cols)
            py = pgx.copy_to_jsonl_py(data, *spec)
            c = cmod.copy_to_jsonl(data, *spec)
            assert py == want, (table.name, _first_diff(py, want))
            assert c == want, (table.name, None if c is None else _first_diff(c, want))
            rows = data.splitlines(keepends=True)
            rng = random.Random(len(rows))
            cut = sorted(rng.sample(range(1, len(rows)), min(3, len(rows) - 1))) if len(rows) > 1 else []
            parts = [b"".join(rows[a:b]) for a, b in zip([0, *cut], [*cut, len(rows)])]
            assert b"".join(cmod.copy_to_jsonl(p, *spec) for p in parts) == want
            checked += 1
            columns += len(cols)
    finally:
        srv.close()
    assert checked >= min_tables and columns >= min_columns
    return checked


def _first_diff(a: bytes, b: bytes) -> tuple[bytes, bytes]:
    for x, y in zip(a.splitlines(), b.splitlines()):
        if x != y:
            return x, y
    return a[-200:], b[-200:]


# -- parity against the server ---------------------------------------------------------------------
def test_export_kinds_parity(fresh_db: Any, cmod: Any) -> None:
    db = fresh_db("postgresql")
    db.execute(KINDS_SQL.read_text(encoding="utf-8"))
    compare_database(db.url, cmod, min_tables=2, min_columns=30)


def test_torture_parity(fresh_db: Any, cmod: Any) -> None:
    db = fresh_db("postgresql")
    db.execute(TORTURE_SQL.read_text(encoding="utf-8"))
    compare_database(db.url, cmod, min_tables=5, min_columns=40)


def test_edge_parity(fresh_db: Any, cmod: Any) -> None:
    """json/jsonb $json wrapping, duplicate and escaped keys, separators inside strings, timestamps
    at the edges (BC, infinity, 5- and 6-digit years, every fsp), bytea of lengths 0..100 and 300."""
    db = fresh_db("postgresql")
    db.execute(EDGE_SQL)
    compare_database(db.url, cmod)


def test_json_the_server_cannot_cast_raises_like_the_server(fresh_db: Any, cmod: Any) -> None:
    """A json value containing "$json" that jsonb refuses (\\u0000, a lone surrogate): the server
    path fails; the C code declines the block and the Python path raises too."""
    db = fresh_db("postgresql")
    db.execute(
        "CREATE TABLE j (id int PRIMARY KEY, v json); "
        'INSERT INTO j VALUES (1, \'{"$json": "\\u0000"}\'), (2, \'{"$json": "\\udc00"}\')'
    )
    srv = Server(db.url)
    try:
        ((schema, table),) = srv.tables()
        data, spec = srv.copy_rows(schema, table, table.columns)
        for row in data.splitlines(keepends=True):
            assert cmod.copy_to_jsonl(row, *spec) is None
            with pytest.raises(DataError):
                pgx.copy_to_jsonl(row, *spec)
        with pytest.raises(Exception):
            srv.server_lines(schema, table, table.columns)
    finally:
        srv.close()


# -- hypothesis: generated values against the server ------------------------------------------------
_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text,
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(st.sampled_from(["$json", "a", "", " k ", '"', "\\", "é"]) | _text, kids, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def _json_text(draw: Any) -> str:
    """A JSON document with random whitespace and random escaping."""
    value = draw(_json_values)
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        separators=draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,\n", " :\t")])),
    )
    return text


@pytest.fixture(scope="module")
def gen_db(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.conftest import FreshDatabase

    db = FreshDatabase("postgresql", tmp_path_factory.mktemp("gen"))
    db.execute("CREATE TABLE gen (id int PRIMARY KEY, t text, j json, jb jsonb)")
    yield db
    db.drop()


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(texts=st.lists(_text, min_size=1, max_size=20), docs=st.lists(_json_text(), min_size=1, max_size=20))
def test_generated_values_parity(gen_db: Any, cmod: Any, texts: list[str], docs: list[str]) -> None:
    conn = gen_db.connect()
    try:
        conn.execute("TRUNCATE gen")
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO gen VALUES (%s, %s, %s::json, %s::jsonb)",
                [
                    (i, texts[i % len(texts)], docs[i % len(docs)], docs[i % len(docs)])
                    for i in range(max(len(texts), len(docs)))
                ],
            )
    finally:
        conn.close()
    srv = Server(gen_db.url)
    try:
        ((schema, table),) = srv.tables()
        want = srv.server_lines(schema, table, table.columns)
        data, spec = srv.copy_rows(schema, table, table.columns)
        assert cmod.copy_to_jsonl(data, *spec) == want
        assert pgx.copy_to_jsonl_py(data, *spec) == want
    finally:
        srv.close()


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    doubles=st.lists(st.floats(), min_size=1, max_size=50),
    reals=st.lists(st.floats(width=32), min_size=1, max_size=50),
    exps=st.lists(st.integers(-320, 308), min_size=1, max_size=20),
)
def test_generated_floats_parity(
    float_db: Any, cmod: Any, doubles: list[float], reals: list[float], exps: list[int]
) -> None:
    """real / double precision against _FLOAT_JSON on the server, around every power of ten."""
    edges = [*exps, *range(-8, 19)]  # every power of ten near the plain-notation bounds
    doubles = doubles + [float(f"{m}e{e}") for e in edges for m in ("1", "9.99", "-1.5")]
    conn = float_db.connect()
    try:
        conn.execute("TRUNCATE f")
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO f VALUES (%s, %s::float4, %s::float8)",
                [
                    (i, str(reals[i % len(reals)]), str(doubles[i % len(doubles)]))
                    for i in range(max(len(reals), len(doubles)))
                ],
            )
    finally:
        conn.close()
    srv = Server(float_db.url)
    try:
        ((schema, table),) = srv.tables()
        want = srv.server_lines(schema, table, table.columns)
        data, spec = srv.copy_rows(schema, table, table.columns)
        assert spec[1] == (pgx.K_NUMBER, pgx.K_FLOAT, pgx.K_FLOAT)
        assert cmod.copy_to_jsonl(data, *spec) == want
        assert pgx.copy_to_jsonl_py(data, *spec) == want
    finally:
        srv.close()


@pytest.fixture(scope="module")
def float_db(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.conftest import FreshDatabase

    db = FreshDatabase("postgresql", tmp_path_factory.mktemp("floats"))
    db.execute("CREATE TABLE f (id int PRIMARY KEY, r real, d double precision)")
    yield db
    db.drop()


# -- C against the Python reference without a server -----------------------------------------------
KEYS = (
    b'{"id":',
    b',"n":',
    b',"b":',
    b',"q":',
    b',"s":',
    b',"ts":',
    b',"tz":',
    b',"x":',
    b',"j":',
    b',"jb":',
    b',"r":',
    b',"f":',
)
KINDS = (
    pgx.K_NUMBER,
    pgx.K_NUMBER,
    pgx.K_BOOL,
    pgx.K_QUOTED,
    pgx.K_STRING,
    pgx.K_TIMESTAMP,
    pgx.K_TIMESTAMP,
    pgx.K_BINARY,
    pgx.K_JSON,
    pgx.K_JSON,
    pgx.K_RAW,
    pgx.K_FLOAT,
)
ARGS = (0, 0, 0, 0, 0, 3, 6 | 256, 0, 0, 1, 0, 0)


def _agree(cmod: Any, block: bytes) -> None:
    """C answers None, or exactly what the Python reference answers (which must not fail then)."""
    c = cmod.copy_to_jsonl(block, KEYS, KINDS, ARGS)
    try:
        py = pgx.copy_to_jsonl_py(block, KEYS, KINDS, ARGS)
    except (DataError, ValueError, UnicodeDecodeError):
        py = None
    if c is not None:
        assert c == py, block


_FIELD_ALPHABET = b'\\\t\nNtfx0123456789abcdefABCDEF-: .+BCinfity{}[]",$json \x01\xc3\xa9uaNI'


def test_fuzz_random_bytes_never_crash(cmod: Any) -> None:
    rng = random.Random(1234)
    for _ in range(20000):
        n = rng.randrange(0, 120)
        if rng.random() < 0.5:
            block = bytes(rng.randrange(256) for _ in range(n))
        else:
            block = bytes(rng.choice(_FIELD_ALPHABET) for _ in range(n))
        if rng.random() < 0.7:
            block += b"\n"
        _agree(cmod, block)


def test_fuzz_mutated_valid_rows(cmod: Any) -> None:
    """Valid rows with a few bytes changed, cut or inserted: the interesting paths of each kind."""
    base = (
        b"1\t-2\tt\t12.50\ta\\tb\\\\c\x01\t2024-01-02 03:04:05.5\t2024-01-02 03:04:05.123456+00\t\\\\x00ff10\t"
        b'{"$json": {"a": [1, "x y"]}}\t{"$json": 1}\t{"r": 1}\t-1.5e-07\n'
        b'2\t\\N\tf\t\\N\t\t0044-03-15 12:00:00 BC\tinfinity\t\\\\x\tnull\t{"\\\\u0024json": 2}\t\\N\t0.00015\n'
        b"3\t0\tt\t0\tx\tinfinity\t-infinity\t\\\\xff\t{}\t[]\t1\t1.2345e+15\n"
    )
    assert cmod.copy_to_jsonl(base, KEYS, KINDS, ARGS) == pgx.copy_to_jsonl_py(base, KEYS, KINDS, ARGS)
    rng = random.Random(99)
    for _ in range(20000):
        b = bytearray(base)
        for _ in range(rng.randrange(1, 4)):
            op = rng.randrange(3)
            i = rng.randrange(len(b))
            if op == 0:
                b[i] = rng.choice(_FIELD_ALPHABET)
            elif op == 1:
                del b[i]
            else:
                b.insert(i, rng.choice(_FIELD_ALPHABET))
        _agree(cmod, bytes(b))
        _agree(cmod, bytes(b[: rng.randrange(len(b) + 1)]))


def test_fuzz_float_texts(cmod: Any) -> None:
    """Float-shaped texts (and the shortest texts of random doubles): C answers as Python does."""
    rng = random.Random(5)
    keys, kinds, args = (b"{", b","), (pgx.K_FLOAT, pgx.K_FLOAT), (0, 0)
    answered = 0
    for _ in range(30000):
        blk = bytes(rng.choice(b"-0123456789.e+NaInfity\t\n") for _ in range(rng.randrange(0, 30)))
        d = repr(rng.uniform(-2, 2) * 10.0 ** rng.randrange(-300, 300)).encode()
        for block in (blk, b"1\t" + d + b"\n"):
            c = cmod.copy_to_jsonl(block, keys, kinds, args)
            if c is not None:
                assert c == pgx.copy_to_jsonl_py(block, keys, kinds, args), block
                answered += 1
    assert answered > 30000


def test_word_at_a_time_scans_agree(cmod: Any) -> None:
    """The field scan and the JSON quoting read 8 bytes at a time: a byte that ends a field, starts
    an escape or needs one (tab, newline, backslash escapes, quote, control byte, non-ASCII) at
    every offset of fields and strings up to 40 bytes long converts exactly as the reference does,
    the block's last bytes (fewer than 8) included."""
    keys, kinds, args = (b'{"a":', b',"b":', b',"c":'), (pgx.K_STRING, pgx.K_QUOTED, pgx.K_STRING), (0, 0, 0)
    specials = [b"\\t", b"\\n", b"\\\\", b'"', b"\x01", b"\x1f", b"\xc3\xa9", b"\\x41", b"\x7f"]
    answered = 0
    for n in range(41):
        for pos in range(n + 1):
            for sp in specials:
                field = b"p" * pos + sp + b"q" * (n - pos)
                for block in (
                    field + b"\t" + field.replace(b'"', b"x") + b"\t" + field + b"\n",
                    b"x\t1\t" + field + b"\n",
                    b"x\t1\t" + field,  # an incomplete last row: declined
                ):
                    c = cmod.copy_to_jsonl(block, keys, kinds, args)
                    if c is not None:
                        assert c == pgx.copy_to_jsonl_py(block, keys, kinds, args), block
                        answered += 1
    assert answered > 10000


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.binary(max_size=200))
def test_hypothesis_binary_agrees(cmod: Any, data: bytes) -> None:
    _agree(cmod, data)
    _agree(cmod, data + b"\n")


def test_bad_arguments_raise(cmod: Any) -> None:
    with pytest.raises(ValueError):
        cmod.copy_to_jsonl(b"", (), (), ())
    with pytest.raises(ValueError):
        cmod.copy_to_jsonl(b"1\n", (b"{",), (99,), (0,))
    with pytest.raises(TypeError):
        cmod.copy_to_jsonl(b"1\n", ("{",), (1,), (0,))
    with pytest.raises(TypeError):
        cmod.copy_to_jsonl("1\n", (b"{",), (1,), (0,))
    assert cmod.copy_to_jsonl(b"", (b'{"a":',), (1,), (0,)) == b""
    assert cmod.copy_to_jsonl(bytearray(b"7\n"), (b'{"a":',), (1,), (0,)) == b'{"a":7}\n'


# -- end to end ------------------------------------------------------------------------------------
def _export(url: str, out: Path, no_speedups: bool) -> None:
    env = dict(os.environ)
    env.pop("DBJSON_NO_SPEEDUPS", None)
    if no_speedups:
        env["DBJSON_NO_SPEEDUPS"] = "1"
    subprocess.run(
        [sys.executable, "-m", "dbjson", "export", url, "-o", str(out), "--threads", "2"],
        check=True,
        env=env,
        cwd=ROOT,
        capture_output=True,
    )


def _manifest(out: Path, name: str = "manifest.json") -> Any:
    """The manifest (or schema.json) without what differs between two runs (times, snapshot ids, durations)."""
    volatile = {
        "started",
        "finished",
        "created",
        "created_at",
        "duration",
        "duration_s",
        "elapsed",
        "seconds",
        "snapshot",
        "dumped_at",
        "rows_per_second",
        "started_at",
        "finished_at",
        "exported_at",
    }

    def strip(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in volatile}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    return strip(orjson.loads((out / name).read_bytes()))


def test_cli_export_same_files_with_and_without_c(fresh_db: Any, cmod: Any, tmp_path: Path) -> None:
    db = fresh_db("postgresql")
    db.execute(KINDS_SQL.read_text(encoding="utf-8"))
    db.execute(EDGE_SQL)
    db.execute(
        "CREATE TABLE many AS SELECT n AS id, md5(n::text) AS t, n * 1000000000000::bigint AS big, "
        "jsonb_build_object('n', n, 's', repeat('x', n % 7)) AS jb, now() - n * interval '1 minute' AS ts, "
        "decode(md5(n::text), 'hex') AS b FROM generate_series(1, 30000) AS n"
    )
    _export(db.url, tmp_path / "c", no_speedups=False)
    _export(db.url, tmp_path / "py", no_speedups=True)
    files_c = sorted(p.relative_to(tmp_path / "c") for p in (tmp_path / "c").rglob("*") if p.is_file())
    files_py = sorted(p.relative_to(tmp_path / "py") for p in (tmp_path / "py").rglob("*") if p.is_file())
    assert files_c == files_py
    data = [f for f in files_c if f.parts[0] == "data"]
    assert len(data) >= 3
    for f in data:
        assert (tmp_path / "c" / f).read_bytes() == (tmp_path / "py" / f).read_bytes(), f
    assert _manifest(tmp_path / "c", "schema.json") == _manifest(tmp_path / "py", "schema.json")
    assert _manifest(tmp_path / "c") == _manifest(tmp_path / "py")


def test_c_path_is_used(fresh_db: Any, cmod: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the module the export sends a plain COPY and converts the rows in C (binary format here:
    every column has a native decoder, see tests/test_cpgbinary.py); with DBJSON_NO_SPEEDUPS=1 it
    sends today's server-built lines."""
    db = fresh_db("postgresql")
    db.execute("CREATE TABLE t (id int PRIMARY KEY, jb jsonb); INSERT INTO t VALUES (1, '{\"$json\": 1}')")
    monkeypatch.delenv("DBJSON_NO_SPEEDUPS", raising=False)
    sent: list[bytes] = []
    srv = Server(db.url)
    try:
        ((schema, table),) = srv.tables()
        real = srv.conn.pgconn

        class Spy:
            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

            def send_query(self, q: bytes) -> None:
                sent.append(q)
                real.send_query(q)

        class Conn:
            pgconn = Spy()

            def __getattr__(self, name: str) -> Any:
                return getattr(srv.conn, name)

        from dbjson.engines.interface import ExportUnit as Unit

        unit = Unit(schema=schema, table=table)

        out_c = b"".join(srv.eng.export_stream(Conn(), unit, threading.Event()))
        monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")
        out_py = b"".join(srv.eng.export_stream(Conn(), unit, threading.Event()))
    finally:
        srv.close()
    assert out_c == out_py == b'{"id":1,"jb":{"$json":{"$json":1}}}\n'
    assert b"FORMAT binary" in sent[0] and b"jsonb_typeof" not in sent[0]
    assert b"FORMAT csv" in sent[1] and b"jsonb_typeof" in sent[1]


def test_json_word_scans_at_every_offset(cmod: Any) -> None:
    """json(b) compaction, the ``$json`` key scan and COPY's unescaping skip to the next quote or
    backslash 8 bytes at a time (memchr for COPY's backslashes): a quote, a backslash escape
    (doubled in COPY text), a ``\\u`` escape, a tab or newline (escaped by COPY) at every offset of
    strings up to 40 bytes convert as the reference does, for json and jsonb, keys and values."""
    keys, kinds = (b'{"a":', b',"b":'), (pgx.K_JSON, pgx.K_JSON)
    specials = [b'\\"', b"\\\\", b"\\n", b"\\u0041", b"\\u0000", b"\\ud83d\\ude00", b"\xc3\xa9", b"\t", b"\n"]
    answered = 0
    for n in range(41):
        for pos in range(n + 1):
            for sp in specials:
                s = b"p" * pos + sp + b"q" * (n - pos)
                for doc in (b'{"' + s + b'": "' + s + b'", "n": [1, {"$json": 2}]}', b'{"$json": "' + s + b'"}'):
                    field = doc.replace(b"\\", b"\\\\").replace(b"\t", b"\\t").replace(b"\n", b"\\n")
                    for args in ((0, 1), (1, 0)):
                        block = field + b"\t" + field + b"\n"
                        c = cmod.copy_to_jsonl(block, keys, kinds, args)
                        if c is not None:
                            assert c == pgx.copy_to_jsonl_py(block, keys, kinds, args), block
                            answered += 1
    assert answered > 5000
