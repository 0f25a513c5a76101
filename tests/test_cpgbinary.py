"""PostgreSQL binary COPY (``copy_binary_to_jsonl`` in ``csrc/_cpgexport.c`` and its Python twin
``copy_binary_to_jsonl_py``): each binary value decoded to the text its output function writes in
the export session must be that text byte for byte, so that the lines are those of the text COPY.

Values are generated on the server (numerics of every weight, scale and sign with NaN and
±Infinity, timestamps and timestamptz from 4714 BC to 294276 AD with random microsecond fractions
and ±infinity, dates over their whole range, integers at their limits) and the decoded text of
each, by the C code and by the Python twin, is compared with the server's own text COPY of the same
rows. Then whole lines (every kind of the export's plan, the edge table of test_cpgexport) against
the text COPY path and the server-built lines; a fuzz test (the C code never crashes, and when it
answers it agrees with Python); and which tables take the binary COPY.
"""

from __future__ import annotations

import random
import struct
import threading
from typing import Any

import pytest
from conftest import compiled_module

from dbjson.engines.interface import ExportUnit
from dbjson.engines.postgresql import export as pgx
from dbjson.errors import DataError
from tests.test_cpgexport import EDGE_SQL, KINDS_SQL, TORTURE_SQL, Server

GEN_SQL = r"""
SELECT setseed(0.4242);
CREATE TABLE num (id serial PRIMARY KEY, v numeric);
INSERT INTO num (v) SELECT round(((random() - 0.5) * 2)::numeric * 10::numeric ^ w, s)
  FROM generate_series(-40, 80, 3) AS w, generate_series(0, 24, 2) AS s, generate_series(1, 4);
INSERT INTO num (v) SELECT round(k::numeric, s) FROM generate_series(-20, 20, 7) AS k, generate_series(0, 9) AS s;
INSERT INTO num (v) SELECT (random() * 10::numeric ^ 30)::numeric(40, 10) FROM generate_series(1, 200);
INSERT INTO num (v) SELECT 1 / (3 + k)::numeric ^ k FROM generate_series(1, 60) AS k;
INSERT INTO num (v) SELECT -(10::numeric ^ k) FROM generate_series(0, 300, 7) AS k;
INSERT INTO num (v) SELECT 10::numeric ^ (-k) FROM generate_series(0, 300, 7) AS k;
INSERT INTO num (v) VALUES ('NaN'), ('Infinity'), ('-Infinity'), (0), ('0.000'), ('-0.000'), ('0.0001'),
  ('-0.0001'), (9999), (10000), (-10000), ('99999999.9999'), ('1e-1000'), ('1.5e300'), (repeat('9', 1000)::numeric),
  ((repeat('1', 500) || '.' || repeat('2', 500))::numeric), (('0.' || repeat('0', 900) || '1')::numeric), (NULL),
  (10::numeric ^ 131071);

CREATE TABLE ts (id serial PRIMARY KEY, t timestamp, tz timestamptz, d date);
INSERT INTO ts (t) SELECT make_timestamp(y, 1 + (random() * 11)::int, 1 + (random() * 27)::int,
    (random() * 23)::int, (random() * 59)::int, round((random() * 59.999999)::numeric, (random() * 6)::int)::float8)
  FROM (SELECT CASE WHEN random() < 0.4 THEN -1 - (random() * 4712)::int
                    WHEN random() < 0.5 THEN 1 + (random() * 294275)::int
                    ELSE 1 + (random() * 3000)::int END AS y FROM generate_series(1, 20000)) AS g;
INSERT INTO ts (t) SELECT timestamp '2000-01-01' + n * interval '1 microsecond'
  FROM (SELECT ((random() - 0.5) * 2e12)::bigint AS n FROM generate_series(1, 5000)) AS g;
INSERT INTO ts (t) SELECT timestamp '2000-01-01' + n * interval '1 microsecond' FROM generate_series(-3, 3) AS n;
INSERT INTO ts (t) VALUES ('infinity'), ('-infinity'), ('4714-11-24 00:00:00 BC'), ('294276-12-31 23:59:59.999999'),
  ('0001-01-01 00:00:00'), ('0001-12-31 23:59:59.999999 BC'), ('1999-12-31 23:59:59.999999'), ('1970-01-01'),
  ('2024-02-29 12:00:00.1'), ('2024-02-29 12:00:00.12'), ('2024-02-29 12:00:00.000001'), ('0044-03-15 BC'),
  ('10000-01-01 00:00:00.5'), ('9999-12-31 23:59:59'), ('1600-02-29'), ('1900-03-01'), (NULL);
UPDATE ts SET tz = t AT TIME ZONE 'UTC';
INSERT INTO ts (tz) VALUES ('1850-06-01 12:00:00 America/New_York'), ('2024-06-01 12:00:00.25+02'),
  ('2024-06-01 12:00:00-11:30'), ('1900-01-01 00:00:00 Asia/Kolkata');
UPDATE ts SET d = date '2000-01-01' + n
  FROM (SELECT id AS i, (-2451545 + random() * (2147483494 - 2451545 + 2451545))::int AS n FROM ts) AS r
  WHERE r.i = ts.id AND ts.id % 3 = 0;
UPDATE ts SET d = t::date WHERE d IS NULL AND t IS NOT NULL;
INSERT INTO ts (d) VALUES ('infinity'), ('-infinity'), ('4714-11-24 BC'), ('5874897-12-31'), ('0001-01-01'),
  ('0001-12-31 BC'), ('2000-01-01'), ('1999-12-31'), ('2000-02-29'), ('1582-10-04');

CREATE TABLE ints (id serial PRIMARY KEY, a smallint, b integer, c bigint, f boolean);
INSERT INTO ints (a, b, c, f) SELECT ((random() - 0.5) * 65535)::int, ((random() - 0.5) * 4294967295)::bigint,
    ((random() - 0.5) * 1.8e19)::numeric::bigint, random() < 0.5 FROM generate_series(1, 3000);
INSERT INTO ints (a, b, c, f) VALUES (-32768, -2147483648, -9223372036854775808, true), (32767, 2147483647,
  9223372036854775807, false), (0, 0, 0, NULL), (-1, -1, -1, true), (NULL, NULL, NULL, NULL);
"""

ALL_SQL = r"""
CREATE TABLE allk (id integer PRIMARY KEY, n numeric, n2 numeric(12, 2), n4 numeric(5, 4), t timestamp,
  t3 timestamp(3), t0 timestamp(0), tz timestamptz, tz2 timestamptz(2), d date, a smallint, b integer,
  c bigint NOT NULL, f boolean, s text, v varchar(30), ch char(5), j json, jb jsonb, by bytea);
INSERT INTO allk SELECT ts.id, num.v, round(num.v % 1e9, 2), round(num.v % 1, 4), ts.t, ts.t, ts.t, ts.tz, ts.tz, ts.d,
    ints.a, ints.b, coalesce(ints.c, 0), ints.f, 'é "q" \ ' || ts.id || E'\t\n', 'v' || ts.id, chr(65 + ts.id % 26),
    ('{"k": ' || ts.id || ', "s": "a, b: c", "$json": ' || (ts.id % 3) || '}')::json,
    CASE WHEN ts.id % 7 = 0 THEN '{"$json": null}' WHEN ts.id % 11 = 0 THEN 'null'
         ELSE '{"a": [1, 2.50, "x"], "id": ' || ts.id || '}' END::jsonb,
    decode(repeat(lpad(to_hex(ts.id % 256), 2, '0'), ts.id % 50), 'hex')
  FROM ts LEFT JOIN num ON num.id = ts.id AND num.v IS NOT NULL AND num.v::text NOT IN ('NaN', 'Infinity', '-Infinity')
    AND abs(num.v) < 1e30
  LEFT JOIN ints ON ints.id = ts.id
  WHERE ts.id <= 6000;
CREATE TABLE fl (id integer PRIMARY KEY, x double precision);
INSERT INTO fl SELECT g, g / 3.0 FROM generate_series(1, 100) AS g;
"""


@pytest.fixture(scope="module")
def cmod() -> Any:
    return compiled_module("_cpgexport")


@pytest.fixture(scope="module")
def bin_db(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from tests.conftest import FreshDatabase

    db = FreshDatabase("postgresql", tmp_path_factory.mktemp("bin"))
    db.execute(GEN_SQL)
    db.execute(ALL_SQL)
    db.execute(EDGE_SQL)
    yield db
    db.drop()


@pytest.fixture(scope="module")
def srv(bin_db: Any) -> Any:
    s = Server(bin_db.url)
    yield s
    s.close()


def _copy(conn: Any, query: str, fmt: str) -> bytes:
    with conn.cursor() as cur:
        with cur.copy(f"COPY ({query}) TO STDOUT (FORMAT {fmt})") as cp:
            return b"".join(bytes(b) for b in cp)


def _both(conn: Any, query: str) -> tuple[bytes, bytes]:
    """Text COPY rows, and the binary COPY tuples without the header (trailer kept)."""
    text = _copy(conn, query, "text")
    binary = _copy(conn, query, "binary")
    return text, binary[pgx.binary_header_length(binary) :]


@pytest.mark.parametrize(
    ("table", "column", "decoder"),
    [
        ("num", "v", "D_NUMERIC"),
        ("ts", "t", "D_TIMESTAMP"),
        ("ts", "tz", "D_TIMESTAMPTZ"),
        ("ts", "d", "D_DATE"),
        ("ints", "a", "D_INT2"),
        ("ints", "b", "D_INT4"),
        ("ints", "c", "D_INT8"),
        ("ints", "f", "D_BOOL"),
    ],
)
def test_decoded_text_is_the_servers_text(srv: Any, cmod: Any, table: str, column: str, decoder: str) -> None:
    """Every generated value: the decoded text (C and Python) equals the server's text COPY."""
    text, binary = _both(srv.conn, f"SELECT {column} FROM {table} ORDER BY id")
    keys, kinds, args, decs = (b'{"v":',), (pgx.K_RAW,), (0,), (getattr(pgx, decoder),)
    want = pgx.copy_to_jsonl_py(text, keys, kinds, args)
    assert want.count(b"\n") > 8
    got_c = cmod.copy_binary_to_jsonl(binary, keys, kinds, args, decs)
    assert got_c is not None
    if got_c != want:  # name the first differing value
        for a, b in zip(got_c.split(b"\n"), want.split(b"\n"), strict=True):
            assert a == b
    assert pgx.copy_binary_to_jsonl_py(binary, keys, kinds, args, decs) == want


def test_generated_values_cover_the_edges(srv: Any) -> None:
    """The generated sets do hold what the decoders must get right (a guard on GEN_SQL)."""
    nums = {r[0] for r in srv.conn.execute("SELECT v::text FROM num")}
    assert {"NaN", "Infinity", "-Infinity", "0", "0.000", "0.0001", "-0.0001", "10000"} <= nums
    assert any(v and v.startswith("-") and "." in v for v in nums) and any(v and len(v) > 1000 for v in nums)
    ts = [r[0] for r in srv.conn.execute("SELECT t::text FROM ts WHERE t IS NOT NULL")]
    assert sum(t.endswith(" BC") for t in ts) > 1000 and sum(len(t.split("-")[0]) > 4 for t in ts) > 1000
    assert {len(t.split(".")[1]) for t in ts if "." in t and not t.endswith("BC")} == {1, 2, 3, 4, 5, 6}
    ds = [r[0] for r in srv.conn.execute("SELECT d::text FROM ts WHERE d IS NOT NULL")]
    assert sum(d.endswith(" BC") for d in ds) > 100 and "5874897-12-31" in ds and "infinity" in ds


def _plan(srv: Any, table: str) -> tuple[str, tuple[Any, ...], tuple[int, ...] | None, Any]:
    t = next(t for _s, t in srv.tables() if t.name == table)
    plan = srv.eng.copy_plan(t.columns)
    assert plan is not None
    select_list, keys, kinds, args = plan
    with srv.conn.cursor() as cur:
        cur.execute(f"SELECT {select_list} FROM {table} LIMIT 0")
        oids = [d.type_code for d in cur.description]
    return select_list, (keys, kinds, args), pgx.binary_decoders(kinds, args, oids), t


@pytest.mark.parametrize("table", ["allk", "edge"])
def test_lines_equal_the_text_copy_and_the_server_lines(srv: Any, cmod: Any, table: str) -> None:
    """Whole lines of every kind the plan has: binary (C, Python) == text COPY (C) == server-built."""
    select_list, spec, decoders, t = _plan(srv, table)
    assert decoders is not None
    text, binary = _both(srv.conn, f"SELECT {select_list} FROM {table} ORDER BY id")
    want = cmod.copy_to_jsonl(text, *spec)
    assert want == srv.server_lines("public", t, t.columns)
    assert cmod.copy_binary_to_jsonl(binary, *spec, decoders) == want
    assert pgx.copy_binary_to_jsonl_py(binary, *spec, decoders) == want
    # a block ends between tuples (the trailer only after the last one); a cut tuple is refused
    assert cmod.copy_binary_to_jsonl(binary[:-2], *spec, decoders) == want
    assert cmod.copy_binary_to_jsonl(binary[:-3], *spec, decoders) is None
    with pytest.raises(DataError):
        pgx.copy_binary_to_jsonl_py(binary[:-3], *spec, decoders)
    assert cmod.copy_binary_to_jsonl(binary + b"\x00", *spec, decoders) is None  # data after the trailer


def test_decoders_follow_the_result_types(srv: Any) -> None:
    """A float (no native decoder: it would need a ::text cast) or another type keeps the text COPY."""
    t_plan = srv.eng.copy_plan(
        [c for _s, t in srv.tables() if t.name == "allk" for c in t.columns if c.name in ("id", "n")]
    )
    assert t_plan is not None
    assert pgx.binary_decoders(t_plan[2], t_plan[3], [23, 1700]) == (pgx.D_INT4, pgx.D_NUMERIC)
    assert pgx.binary_decoders(t_plan[2], t_plan[3], [23, 701]) is None  # float8
    assert pgx.binary_decoders(t_plan[2], t_plan[3], [20, 1700]) is None  # int8 is quoted, not K_NUMBER
    assert pgx.binary_decoders((pgx.K_TIMESTAMP,), (256,), [1114]) is None  # tz flag vs timestamp
    assert pgx.binary_decoders((pgx.K_JSON,), (1,), [114]) is None  # jsonb flag vs json


def test_export_stream_takes_binary_only_where_covered(srv: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    orig = pgx.PostgreSQLExport._stream_copy

    def spy(self: Any, conn: Any, unit: Any, select_list: str, options: str, *rest: Any) -> Any:
        seen.append(options)
        return orig(self, conn, unit, select_list, options, *rest)

    monkeypatch.setattr(pgx.PostgreSQLExport, "_stream_copy", spy)
    outs = []
    for name, size in (("allk", 0), ("fl", 0), ("allk", 1 << 20), ("allk", 100_000)):
        t = next(t for _s, t in srv.tables() if t.name == name)
        unit = ExportUnit(schema="public", table=t, bytes_estimate=size)
        lines = b"".join(srv.eng.export_stream(srv.conn, unit, threading.Event()))
        assert lines.count(b"\n") == srv.conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
        outs.append(lines)
    # unknown or >= 1 MiB: binary; a float column, or a unit known to be small: text
    assert seen == ["FORMAT binary", "FORMAT text", "FORMAT binary", "FORMAT text"]
    assert outs[0] == outs[2] == outs[3]


def _tuple(fields: list[bytes | None]) -> bytes:
    out = struct.pack(">h", len(fields))
    for f in fields:
        out += struct.pack(">i", -1) if f is None else struct.pack(">i", len(f)) + f
    return out


def _agree(cmod: Any, block: bytes, spec: tuple[Any, ...]) -> None:
    got = cmod.copy_binary_to_jsonl(block, *spec)
    try:
        ref = pgx.copy_binary_to_jsonl_py(block, *spec)
    except (DataError, ValueError, IndexError):
        ref = None
    if got is not None:
        assert got == ref


def test_fuzz_mutated_tuples(srv: Any, cmod: Any) -> None:
    """Random bytes and mutated real tuples: the C code never crashes or reads past the block, and
    when it answers it agrees with the Python twin."""
    select_list, spec, decoders, _t = _plan(srv, "allk")
    _text, binary = _both(srv.conn, f"SELECT {select_list} FROM allk ORDER BY id LIMIT 40")
    full = (*spec, decoders)
    rnd = random.Random(7)
    for _ in range(3000):
        b = bytearray(binary)
        for _k in range(rnd.randint(1, 4)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        _agree(cmod, bytes(b[: rnd.randint(0, len(b))]), full)
    num_spec = ((b'{"v":',), (pgx.K_QUOTED,), (0,), (pgx.D_NUMERIC,))
    for _ in range(3000):
        nd = rnd.randint(0, 5)
        v = struct.pack(
            ">hhHh",
            nd,
            rnd.randint(-40, 40),
            rnd.choice([0, 0x4000, 0xC000, 0xD000, 0xF000, 0x8000]),
            rnd.choice([0, 1, 3, 4, 9, 40, -1]),
        )
        v += b"".join(struct.pack(">H", rnd.choice([0, 1, 9999, 10000, rnd.randrange(65536)])) for _d in range(nd))
        _agree(cmod, _tuple([v[: rnd.choice([len(v), len(v), 7, len(v) - 1])]]), num_spec)
    for dec, width in (("D_TIMESTAMP", 8), ("D_TIMESTAMPTZ", 8), ("D_DATE", 4)):
        spec1 = ((b'{"v":',), (pgx.K_QUOTED,), (0,), (getattr(pgx, dec),))
        for _ in range(2000):
            val = rnd.choice([rnd.getrandbits(8 * width), 0, 2 ** (8 * width - 1), 2 ** (8 * width - 1) - 1])
            _agree(cmod, _tuple([val.to_bytes(width, "big")]), spec1)
    for n in range(0, 600):
        _agree(cmod, bytes(rnd.randrange(256) for _i in range(n % 60)), full)


def test_bad_arguments_raise(cmod: Any) -> None:
    with pytest.raises(ValueError):
        cmod.copy_binary_to_jsonl(b"", (b"{",), (pgx.K_QUOTED,), (0,), (pgx.D_BYTEA,))
    with pytest.raises(ValueError):
        cmod.copy_binary_to_jsonl(b"", (b"{",), (pgx.K_JSON,), (1,), (pgx.D_NUMERIC,))
    with pytest.raises(ValueError):
        cmod.copy_binary_to_jsonl(b"", (b"{",), (pgx.K_RAW,), (0,), (99,))
    with pytest.raises(ValueError):
        cmod.copy_binary_to_jsonl(b"", (b"{",), (pgx.K_RAW,), (0,), ())
    with pytest.raises(DataError):
        pgx.binary_header_length(b"PGCOPY\n\xff\r\n\x00" + struct.pack(">II", 0x10000, 0))


def test_no_binary_without_integer_datetimes(srv: Any) -> None:
    """A server whose timestamps are floats (integer_datetimes off, before PostgreSQL 10) never
    gets the binary COPY: its timestamps would not be the int64 the decoders read."""

    class Info:
        def parameter_status(self, name: str) -> str | None:
            return "off" if name == "integer_datetimes" else srv.conn.info.parameter_status(name)

    class Conn:
        info = Info()

        def __getattr__(self, name: str) -> Any:
            return getattr(srv.conn, name)

    t = next(t for _s, t in srv.tables() if t.name == "allk")
    unit = ExportUnit(schema="public", table=t)
    plan = srv.eng.copy_plan(t.columns)
    assert plan is not None
    assert srv.eng._result_types(Conn(), unit, plan[0]) is None
    assert srv.eng._result_types(srv.conn, unit, plan[0]) is not None


def _binary_parity(url: str, cmod: Any) -> tuple[int, int]:
    """Every table, on its columns that decode natively (the binary COPY's subset): binary lines
    (C, Python) == the text COPY's lines == the server-built lines. (tables, columns checked)"""
    s = Server(url)
    tables = columns = 0
    try:
        for schema, table in s.tables():
            src = s.eng.export_qualify(schema, table)
            cols = []
            for c in s.exportable(table):
                plan = s.eng.copy_plan([c])
                if plan is None:
                    continue
                with s.conn.cursor() as cur:
                    cur.execute(f"SELECT {plan[0]} FROM {src} LIMIT 0")
                    oid = cur.description[0].type_code
                if pgx.binary_decoders(plan[2], plan[3], [oid]) is not None:
                    cols.append(c)
            if not cols:
                continue
            plan = s.eng.copy_plan(cols)
            assert plan is not None
            select_list, *spec = plan
            with s.conn.cursor() as cur:
                cur.execute(f"SELECT {select_list} FROM {src} LIMIT 0")
                oids = [d.type_code for d in cur.description]
            decoders = pgx.binary_decoders(spec[1], spec[2], oids)
            assert decoders is not None
            order = s.eng.quote(table.columns[0].name)
            text, binary = _both(s.conn, f"SELECT {select_list} FROM {src} ORDER BY {order}")
            want = s.server_lines(schema, table, cols)
            assert cmod.copy_to_jsonl(text, *spec) == want, table.name
            assert cmod.copy_binary_to_jsonl(binary, *spec, decoders) == want, table.name
            assert pgx.copy_binary_to_jsonl_py(binary, *spec, decoders) == want, table.name
            tables += 1
            columns += len(cols)
    finally:
        s.close()
    return tables, columns


def test_export_kinds_and_torture_binary_parity(fresh_db: Any, cmod: Any) -> None:
    """The per-kind data (tests/export_kinds) and the torture schema, on every column the binary
    COPY decodes natively (money as numeric, large objects as bytea included): the text path's lines."""
    db = fresh_db("postgresql")
    db.execute(KINDS_SQL.read_text(encoding="utf-8"))
    tables, columns = _binary_parity(db.url, cmod)
    db2 = fresh_db("postgresql")
    db2.execute(TORTURE_SQL.read_text(encoding="utf-8"))
    tables2, columns2 = _binary_parity(db2.url, cmod)
    assert tables >= 2 and columns >= 25 and tables2 >= 10 and columns2 >= 60  # 2/29, 14/75 today
