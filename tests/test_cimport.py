"""The C speedup of import (``csrc/_cimport.c``): a block of JSON lines straight to COPY /
LOAD DATA text must be byte for byte what the Python block encoder writes
(``build_block_encoder`` with ``DBJSON_NO_SPEEDUPS=1``), and must refuse (None) every line it does
not convert exactly so (the Python path then names the bad line and column as before).

- parity per engine flavor on hand-picked edge values and hypothesis-generated rows of every
  column op, line by line (a line C refuses is fine; a line C answers must be Python's bytes);
- float text: C writes a float's text only when it is Python's ``repr`` of the parsed double;
- the per-kind data (tests/export_kinds) and the torture schemas (tests/torture) exported from
  each server and imported into PostgreSQL, MariaDB and MySQL 9 through a shim that checks every
  line C answers against the Python path;
- bad lines give the same errors (file, line, column) with the C path on;
- fuzz: random bytes and mutated valid lines never crash it, and whenever it answers, it agrees;
- end to end: ``import`` with the C path on and with ``DBJSON_NO_SPEEDUPS=1`` into the three
  servers, then ``verify``.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import compiled_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbjson import model as m
from dbjson import speedups
from dbjson.engines import get_engine
from dbjson.engines.interface import TablePlan
from dbjson.errors import DataError
from dbjson.export import export_database
from dbjson.format.jsontext import raw_values
from dbjson.importer import encoders, import_database
from dbjson.importer.encoders import build_block_encoder, c_block_plan, encode_block
from dbjson.verify import verify

ROOT = Path(__file__).resolve().parents[1]
VERSIONS = {"postgresql": "15.0", "mysql": "9.1.0", "mariadb": "10.11.9-MariaDB"}
FLAVORS = list(VERSIONS)
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def cmod() -> Any:
    """The compiled module (even under DBJSON_NO_SPEEDUPS=1: the tests call it directly): a
    missing build skips locally and fails under CI=true."""
    return compiled_module("_cimport")


@pytest.fixture
def python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """build_block_encoder's encoders use the Python path (C is called directly by the tests)."""
    monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")


# -- a table of every column op ---------------------------------------------------------------


def dumps(v: Any) -> bytes:
    """A compact JSON line (the json module for integers beyond 64 bits, which orjson refuses)."""
    try:
        return orjson.dumps(v)
    except TypeError:
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()


def _col(name: str, ordinal: int, t: m.Type, engine: str = "postgresql") -> m.Column:
    return m.Column(name=name, ordinal=ordinal, type=t, native=m.NativeType(engine=engine, raw=t.kind))


T = m.Type
# (name, source type, PostgreSQL target, MySQL target): each name a different op somewhere
SPECS: list[tuple[str, m.Type, m.Type, m.Type]] = [
    ("i32", T(kind="integer", bits=32), T(kind="integer", bits=32), T(kind="integer", bits=32)),
    ("i64", T(kind="integer", bits=64), T(kind="integer", bits=64), T(kind="integer", bits=64)),
    ("dec", T(kind="decimal", precision=12, scale=2), T(kind="decimal"), T(kind="decimal")),
    ("f64", T(kind="float", bits=64), T(kind="float", bits=64), T(kind="float", bits=64)),
    ("txt", T(kind="text"), T(kind="text"), T(kind="text")),
    ("vc", T(kind="varchar", length=50), T(kind="varchar", length=50), T(kind="varchar", length=50)),
    ("flag", T(kind="boolean"), T(kind="boolean"), T(kind="integer", bits=8)),
    ("bin", T(kind="blob"), T(kind="blob"), T(kind="blob")),
    ("ts", T(kind="timestamp", fsp=6), T(kind="timestamp", fsp=6), T(kind="timestamp", fsp=6)),
    (
        "tstz",
        T(kind="timestamp", fsp=3, with_timezone=True),
        T(kind="timestamp", fsp=3, with_timezone=True),
        T(kind="timestamp", fsp=3, with_timezone=True),
    ),
    ("tsz", T(kind="timestamp", allows_zero=True), T(kind="timestamp"), T(kind="timestamp")),
    ("dt", T(kind="date", allows_zero=True), T(kind="date"), T(kind="timestamp")),
    ("j", T(kind="json"), T(kind="json"), T(kind="json")),
    ("jb", T(kind="json", binary=True), T(kind="json", binary=True), T(kind="json", binary=True)),
    ("jt", T(kind="json"), T(kind="text"), T(kind="text")),
    ("arr", T(kind="array", element=T(kind="integer", bits=32)), T(kind="json"), T(kind="json")),
    ("b2i", T(kind="boolean"), T(kind="integer", bits=8), T(kind="integer", bits=8)),
    ("uuid", T(kind="uuid"), T(kind="uuid"), T(kind="char", length=36)),
    ("tm", T(kind="time", fsp=3, with_timezone=True), T(kind="time", fsp=3, with_timezone=True), T(kind="time", fsp=3)),
]
NAMES = [s[0] for s in SPECS]


def plan_for(engine_name: str, names: list[str] | None = None) -> TablePlan:
    specs = [s for s in SPECS if names is None or s[0] in names]
    cols = [_col(n, i + 1, src) for i, (n, src, _pg, _my) in enumerate(specs)]
    tgts = [pg if engine_name == "postgresql" else my for _n, _s, pg, my in specs]
    table = m.Table(name="t", columns=tuple(cols))
    return TablePlan(
        schema="s",
        name="t",
        table=table,
        tschema=None,
        tname="t",
        columns=cols,
        target_names=[c.name for c in cols],
        target_types=tgts,
    )


def python_bytes(engine_name: str, tp: TablePlan, block: bytes) -> bytes | DataError:
    """What the Python path gives for ``block`` (run with DBJSON_NO_SPEEDUPS=1)."""
    assert speedups.load("_cimport") is None
    encode = build_block_encoder(get_engine(engine_name, VERSIONS[engine_name]), tp, "null", "f.jsonl")
    try:
        return encode(block, 1)[0]
    except DataError as e:
        return e


def c_bytes(cmod: Any, engine_name: str, tp: TablePlan, block: bytes) -> bytes | None:
    cplan = c_block_plan(get_engine(engine_name, VERSIONS[engine_name]), tp, "null")
    assert cplan is not None
    return cmod.jsonl_to_bulk(block, *cplan)  # type: ignore[no-any-return]


def check_lines(cmod: Any, engine_name: str, tp: TablePlan, lines: list[bytes]) -> int:
    """Each line alone and all together: C is None or Python's bytes. Returns lines C answered."""
    answered = 0
    for ln in lines:
        got = c_bytes(cmod, engine_name, tp, ln + b"\n")
        if got is not None:
            answered += 1
            assert got == python_bytes(engine_name, tp, ln + b"\n"), ln
    block = b"".join(ln + b"\n" for ln in lines)
    got = c_bytes(cmod, engine_name, tp, block)
    if got is not None:
        assert got == python_bytes(engine_name, tp, block)
        assert answered == len(lines)
    return answered


def test_plans_use_the_expected_ops() -> None:
    ops = {
        e: dict(zip(NAMES, c_block_plan(get_engine(e, VERSIONS[e]), plan_for(e), "null")[1]))  # type: ignore[index]
        for e in FLAVORS
    }
    c = encoders._C_OPS
    assert ops["postgresql"] == {
        "i32": c["pass"],
        "i64": c["pass"],
        "dec": c["pass"],
        "f64": c["floatpass"],
        "txt": c["pass"],
        "vc": c["pass"],
        "flag": c["pgbool"],
        "bin": c["b64hex"],
        "ts": c["pgdate"],
        "tstz": c["pgdate"],
        "tsz": c["pgdatez"],
        "dt": c["pgdatez"],
        "j": c["jsonraw"],
        "jb": c["jsonraw"],
        "jt": c["jsondump"],
        "arr": c["jsondump_nowrap"],
        "b2i": c["bool10"],
        "uuid": c["pass"],
        "tm": c["pass"],
    }
    assert (
        ops["mysql"]
        == ops["mariadb"]
        == {
            "i32": c["pass"],
            "i64": c["pass"],
            "dec": c["pass"],
            "f64": c["mynum"],
            "txt": c["pass"],
            "vc": c["pass"],
            "flag": c["bool10"],
            "bin": c["b64hex"],
            "ts": c["mytemp_same"],
            "tstz": c["mytemp_same"],
            "tsz": c["pass"],
            "dt": c["mytemp_other"],
            "j": c["jsonraw"],
            "jb": c["jsondump"],
            "jt": c["jsondump"],
            "arr": c["jsondump_nowrap"],
            "b2i": c["bool10"],
            "uuid": c["pass"],
            "tm": c["mytime"],
        }
    )


def test_tables_with_options_keep_the_python_path() -> None:
    eng = get_engine("postgresql", VERSIONS["postgresql"])
    for change in ({"fixed": {"x": "1"}}, {"increments": {"n": 1}}, {"value_rules": {"txt": "nul-strip"}}):
        tp = plan_for("postgresql")
        for k, v in change.items():
            setattr(tp, k, v)
        assert c_block_plan(eng, tp, "null") is None


# -- edge values ------------------------------------------------------------------------------

TEXTS = [
    "plain",
    "tab\there",
    "new\nline",
    "back\\slash",
    "cr\rx",
    "nul\x00x",
    "ünïcødé 🎉 \u2028",
    "",
    "\\N",
    "x\ufdd0y",
    'quote"',
    "\x01\x1f\x7f",
    "/",
    "𝄞" * 3,
]
FLOATS = [
    0.0,
    -0.0,
    1.0,
    2.0,
    0.5,
    0.1,
    1 / 3,
    2 / 3,
    1e15,
    123456789012345.6,
    1e16,
    1e-4,
    1.5e-5,
    0.3,
    1e300,
    5e-324,
    2.0**52,
    2.0**-3,
    100.0,
    12.5,
    -7.25,
    9007199254740993.0,
]
TIMESTAMPS = [
    "2024-02-29T23:59:59.123456",
    "2024-01-01T00:00:00",
    "2038-01-19T03:14:07.99Z",
    "infinity",
    "-infinity",
    "0000-00-00T00:00:00",
    "2024-00-10T00:00:00",
    "0044-03-15 BC",
    "2024-01-01",
    "2024-01-01T00:00:00+05:30",
    "2024-01-01 10:00",
    "10000-01-01T00:00:00",
    "yesterday",
    "2024-13-01",
    "2024-01-01T00:00:00.Z",
    "2024-01-01T1:00:00",
    "2024-01-01T00:00:00+0530",
    "2024-01-01T00:00:00-05",
]
JSONS: list[Any] = [
    {"a": 1},
    {"$json": None},
    {"$json": {"$json": 5}},
    {"$json": 1, "b": 2},
    [1, "x"],
    "s",
    1.5,
    10**30,
    {"k": 'tab\t\\ "q" é'},
    [],
    {},
    True,
    False,
    {"a": [1.50, None]},
]


def edge_rows() -> Iterator[dict[str, Any]]:
    rnd = random.Random(7)
    for i in range(120):
        yield {
            "i32": rnd.choice([0, -1, 2147483647, -2147483648, i, None]),
            "i64": rnd.choice(["9223372036854775807", "-9223372036854775808", "18446744073709551615", "0", None]),
            "dec": rnd.choice(["1.10", "-0.001", "12345678901234567890", "NaN", "Infinity", "0", None]),
            "f64": rnd.choice(FLOATS + ["NaN", "Infinity", "-Infinity", None, 5]),
            "txt": rnd.choice(TEXTS + [None]),
            "vc": rnd.choice(TEXTS),
            "flag": rnd.choice([True, False, None]),
            "bin": rnd.choice(
                [None, ""]
                + [base64.b64encode(bytes(rnd.randrange(256) for _ in range(n))).decode() for n in (1, 2, 3, 4, 16)]
            ),
            "ts": rnd.choice(TIMESTAMPS + [None]),
            "tstz": rnd.choice(TIMESTAMPS),
            "tsz": rnd.choice(TIMESTAMPS),
            "dt": rnd.choice(["2024-01-01", "0000-00-00", "2024-02-30", None]),
            "j": rnd.choice(JSONS + [None]),
            "jb": rnd.choice(JSONS),
            "jt": rnd.choice(JSONS),
            "arr": rnd.choice([[1, 2], [], None, [[1], [2]]]),
            "b2i": rnd.choice([True, False, None]),
            "uuid": rnd.choice(["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", None]),
            "tm": rnd.choice(
                [
                    "12:34:56.789+05:30",
                    "-838:59:59",
                    "24:00:00",
                    "12:00:00-08:00",
                    "1+05:30",
                    "é2:00:00+01:00",
                    "12:00:00+0530",
                    None,
                    5,
                ]
            ),
        }


@pytest.mark.parametrize("engine_name", FLAVORS)
def test_edge_values_line_by_line(cmod: Any, python_path: None, engine_name: str) -> None:
    tp = plan_for(engine_name)
    lines = [dumps(r) for r in edge_rows()]
    answered = check_lines(cmod, engine_name, tp, lines)
    assert answered >= 10  # the test exercises the C path, not only its refusals


@pytest.mark.parametrize("engine_name", FLAVORS)
@pytest.mark.parametrize("name", NAMES)
def test_each_column_alone(cmod: Any, python_path: None, engine_name: str, name: str) -> None:
    """Every value of the edge rows in a two-column table (so one refusal hides no other value)."""
    tp = plan_for(engine_name, ["i32", name] if name != "i32" else ["i32", "txt"])
    keys = [c.name for c in tp.columns]
    lines = [dumps({k: r[k] for k in keys}) for r in edge_rows()]
    lines += [dumps({keys[0]: 1, keys[1]: None})]
    answered = check_lines(cmod, engine_name, tp, lines)
    assert answered >= 1


def test_bench_like_blocks_are_answered(cmod: Any, python_path: None) -> None:
    """The benchmark's kinds in canonical form: C answers every line, for every flavor."""
    names = ["i32", "i64", "dec", "f64", "txt", "flag", "bin", "ts", "tstz", "j", "uuid"]
    rnd = random.Random(3)
    rows = []
    for i in range(500):
        rows.append(
            {
                "i32": i,
                "i64": str(10**12 + i),
                "dec": f"{i}.{i % 100:02d}",
                "f64": round(rnd.random() * 100, 3),
                "txt": rnd.choice(["a\tb", "c\\d", "é😀", "line\nbreak", None, "plain"]),
                "flag": i % 2 == 0,
                "bin": base64.b64encode(bytes([i % 256, 0, 255])).decode() if i % 5 else None,
                "ts": "2024-02-29T23:59:59",
                "tstz": "2024-06-01T10:00:00.250000Z",
                "j": {"k": i, "t": "x"} if i % 3 else None,
                "uuid": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            }
        )
    block = b"".join(orjson.dumps(r) + b"\n" for r in rows)
    for e in FLAVORS:
        tp = plan_for(e, names)
        got = c_bytes(cmod, e, tp, block)
        assert got is not None, e
        assert got == python_bytes(e, tp, block)


# -- hypothesis ------------------------------------------------------------------------------

_json_scalars = (
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=12)
)
_json = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
_value = (
    st.none()
    | st.booleans()
    | st.integers(-(2**65), 2**65)
    | st.floats(allow_nan=False)
    | st.text()
    | st.sampled_from(TEXTS + TIMESTAMPS + ["NaN", "Infinity", "1.10", "-0"])
    | _json
)
_b64 = st.binary(max_size=20).map(lambda b: base64.b64encode(b).decode())


@pytest.mark.parametrize("engine_name", FLAVORS)
@SETTINGS
@given(
    rows=st.lists(
        st.fixed_dictionaries({n: (_value | _b64 if n == "bin" else _value) for n in NAMES}), min_size=1, max_size=4
    )
)
def test_hypothesis_rows(cmod: Any, python_path: None, engine_name: str, rows: list[dict[str, Any]]) -> None:
    check_lines(cmod, engine_name, plan_for(engine_name), [dumps(r) for r in rows])


@pytest.mark.parametrize("engine_name", FLAVORS)
@SETTINGS
@given(data=st.data())
def test_hypothesis_single_columns(cmod: Any, python_path: None, engine_name: str, data: Any) -> None:
    name = data.draw(st.sampled_from(NAMES[1:]))
    tp = plan_for(engine_name, ["i32", name])
    vals = data.draw(st.lists(_b64 | _value if name == "bin" else _value, min_size=1, max_size=5))
    check_lines(cmod, engine_name, tp, [dumps({"i32": 1, name: v}) for v in vals])


@SETTINGS
@given(f=st.floats(allow_nan=False, allow_infinity=False), spelled=st.sampled_from(["orjson", "repr", "fixed"]))
def test_float_text_is_python_repr(cmod: Any, f: float, spelled: str) -> None:
    """A float C writes is ``str(orjson.loads(token))``: the token when it is Python's repr,
    refused otherwise (whatever the spelling: orjson's, repr's, or a fixed-point one)."""
    token = orjson.dumps(f) if spelled == "orjson" else repr(f).encode() if spelled == "repr" else f"{f:.6f}".encode()
    tp = plan_for("postgresql", ["i32", "f64"])
    got = c_bytes(cmod, "postgresql", tp, b'{"i32":1,"f64":' + token + b"}\n")
    if got is not None:
        assert got == b"1\t" + str(orjson.loads(token)).encode() + b"\n", token


@pytest.mark.parametrize(
    "token",
    [
        b"0.1",
        b"0.3",
        b"1.0",
        b"2.0",
        b"0.5",
        b"123.456",
        b"0.0001",
        b"-0.0",
        b"0.0",
        b"0.3333333333333333",
        b"1e+16",
        b"1e16",
        b"0.30000000000000004",
        b"1.10",
        b"1E2",
        b"1.5e-7",
        b"0.00001",
        b"3.4028235e+38",
        b"1234567890123456.8",
        b"5e-324",
        b"-0e5",
        b"100.000",
        b"12345678901234567890.5",
        b"1e400",
        b"1e-400",
        b"0.1000000000000000055511",
    ],
)
def test_float_tokens(cmod: Any, token: bytes) -> None:
    """Answered as Python's str(float) (whatever the spelling), or refused where C cannot be sure."""
    tp = plan_for("postgresql", ["i32", "f64"])
    got = c_bytes(cmod, "postgresql", tp, b'{"i32":1,"f64":' + token + b"}\n")
    if token in (b"1e400", b"1e-400", b"0.1000000000000000055511", b"12345678901234567890.5"):
        assert got is None  # infinity (orjson refuses), underflow, > 17 digits
    else:
        assert got == b"1\t" + str(orjson.loads(token)).encode() + b"\n"


# -- refusals and errors ----------------------------------------------------------------------

BAD_LINES = [
    b"{",
    b"[]",
    b'{"i32":1}',
    b'{"i32":1,"txt":"a","x":2}',
    b'{"txt":"a","i32":1}',
    b'{"i32":1,"i32":2}',
    b'{"i32":1,"txt":"\\ud800"}',
    b'{"i32":1,"txt":"\xff"}',
    b'{"i32":01,"txt":"a"}',
    b'{"i32":1,"txt":"a"} x',
    b'{"i32":1,"txt":"a",}',
    b'{"i32":NaN,"txt":"a"}',
    b'{"i32":1,"txt":"a\x01"}',
    b'{"i32":1, "txt":"a"}',
    b'{"i32":1,"txt":[1]}',
    b'{"i32":-0,"txt":"a"}',
    b'{"i32":1e400,"txt":"a"}',
    b'{"i32":99999999999999999999999,"txt":"a"}',
    b'{"i32":1,"txt":"\\x"}',
    b"null",
    b'"s"',
]


@pytest.mark.parametrize("engine_name", FLAVORS)
@pytest.mark.parametrize("bad", BAD_LINES)
def test_refused_lines(cmod: Any, engine_name: str, bad: bytes) -> None:
    tp = plan_for(engine_name, ["i32", "txt"])
    block = b'{"i32":1,"txt":"ok"}\n' + bad + b"\n"
    assert c_bytes(cmod, engine_name, tp, block) is None


@pytest.mark.parametrize("engine_name", FLAVORS)
@pytest.mark.parametrize(
    "bad",
    [
        b"{",
        b'{"i32":1}',
        b'{"i32":1,"txt":"a","x":2}',
        b'{"i32":"x","txt":"a"}',
        b'{"i32":1,"ts":"yesterday"}',
        b'{"i32":1,"bin":"%%%%"}',
        b'{"i32":1,"f64":"NaN"}',
    ],
)
def test_errors_name_file_line_and_column_as_before(
    cmod: Any, monkeypatch: pytest.MonkeyPatch, engine_name: str, bad: bytes
) -> None:
    import pickle

    name = bad.split(b'"')[3].decode() if bad.count(b'"') >= 4 else "txt"
    tp = plan_for(engine_name, ["i32", name if name in NAMES else "txt"])
    keys = [c.name for c in tp.columns]
    good = orjson.dumps({keys[0]: 1, keys[1]: None})
    block = good + b"\n" + good + b"\n" + bad + b"\n"
    plan = pickle.dumps(tp)
    results = []
    for off in ("", "1"):
        monkeypatch.setenv("DBJSON_NO_SPEEDUPS", off)
        encoders._ENCODERS.clear()
        results.append(encode_block(engine_name, VERSIONS[engine_name], plan, "null", "f.jsonl", 10, block))
    assert results[0] == results[1]


# -- fuzz ------------------------------------------------------------------------------------


def _mutations(rnd: random.Random, line: bytes, n: int) -> Iterator[bytes]:
    alphabet = b'{}[]":,\\0123456789.eE+-tfnulrsaxXZT \t\x00\x7f\xc3\xa9\xed\xa0\x80\xf0\x9f\x98\x80'
    for _ in range(n):
        b = bytearray(line)
        for _k in range(rnd.randint(1, 4)):
            op = rnd.randrange(3)
            pos = rnd.randrange(len(b) + 1)
            if op == 0 and b:
                del b[min(pos, len(b) - 1)]
            elif op == 1:
                b.insert(pos, rnd.choice(alphabet))
            elif b:
                b[min(pos, len(b) - 1)] = rnd.choice(alphabet)
        yield bytes(b).replace(b"\n", b"").replace(b"\r", b"")


@pytest.mark.parametrize("engine_name", FLAVORS)
def test_fuzz_mutated_lines_agree_or_refuse(cmod: Any, python_path: None, engine_name: str) -> None:
    rnd = random.Random(11)
    tp = plan_for(engine_name)
    answered = 0
    for row in list(edge_rows())[:40]:
        for mutated in _mutations(rnd, dumps(row), 25):
            if not mutated:
                continue
            got = c_bytes(cmod, engine_name, tp, mutated + b"\n")
            if got is not None:
                answered += 1
                assert got == python_bytes(engine_name, tp, mutated + b"\n"), mutated
    assert answered > 0


def test_fuzz_random_bytes_never_crash(cmod: Any) -> None:
    rnd = random.Random(5)
    for e in FLAVORS:
        for names in (NAMES, ["j", "jb"], ["bin", "f64"], ["ts", "dt"]):
            cplan = c_block_plan(get_engine(e, VERSIONS[e]), plan_for(e, names), "null")
            assert cplan is not None
            for _ in range(400):
                n = rnd.choice([0, 1, 2, 5, 30, 300])
                data = bytes(rnd.randrange(256) for _ in range(n))
                for block in (data, data + b"\n", b"{" + data + b"}\n"):
                    out = cmod.jsonl_to_bulk(block, *cplan)
                    assert out is None or isinstance(out, bytes)
    # deep nesting and long values
    cplan = c_block_plan(get_engine("postgresql", "15.0"), plan_for("postgresql", ["i32", "j"]), "null")
    assert cplan is not None
    assert cmod.jsonl_to_bulk(b'{"i32":1,"j":' + b"[" * 100000 + b"]" * 100000 + b"}\n", *cplan) is None
    long = cmod.jsonl_to_bulk(b'{"i32":1,"j":"' + b"\\\\" * 500000 + b'"}\n', *cplan)
    assert long == b'1\t"' + b"\\\\\\\\" * 500000 + b'"\n'
    with pytest.raises(ValueError):
        cmod.jsonl_to_bulk(b"", (b'"a"',), b"\x00\x00", 0)
    with pytest.raises(ValueError):
        cmod.jsonl_to_bulk(b"", (b'"a"',), b"\xff", 0)
    with pytest.raises(TypeError):
        cmod.jsonl_to_bulk(b"", ("a",), b"\x00", 0)


def test_threads_share_the_module(cmod: Any) -> None:
    """The byte loop runs without the GIL: several threads converting at once get each their bytes."""
    import threading

    tp = plan_for("postgresql")
    cplan = c_block_plan(get_engine("postgresql", "15.0"), tp, "null")
    assert cplan is not None
    rows = [r for r in edge_rows() if cmod.jsonl_to_bulk(dumps(r) + b"\n", *cplan) is not None]
    block = b"".join(dumps(r) + b"\n" for r in rows) * 200
    want = cmod.jsonl_to_bulk(block, *cplan)
    assert want is not None
    got: list[bytes | None] = []

    def work() -> None:
        for _ in range(5):
            got.append(cmod.jsonl_to_bulk(block, *cplan))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 20


# -- real exports through the importer, with a parity shim -------------------------------------


class ParityShim:
    """Wraps build_block_encoder: every block the import encodes is checked line by line, C
    (called directly) against the Python path (the encoder built with the C path off)."""

    def __init__(self, cmod: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.cmod = cmod
        self.lines = self.answered = self.blocks_c = self.column_values = self.column_answered = 0
        self.mismatches: list[tuple[str, bytes, bytes | None, bytes | None]] = []
        real = encoders.build_block_encoder

        def build(engine: Any, tp: TablePlan, zero_dates: str, file: str) -> Any:
            encode = real(engine, tp, zero_dates, file)
            cplan = c_block_plan(engine, tp, zero_dates) if tp.columns else None

            def checked(block: bytes, first_line: int, hash_lines: bool = True) -> Any:
                if speedups.load("_cimport") is not None and b"\r" not in block:
                    self._check(engine, tp, zero_dates, file, cplan, block)
                return encode(block, first_line, hash_lines)

            return checked

        monkeypatch.setattr(encoders, "build_block_encoder", build)
        encoders._ENCODERS.clear()

    def _check(self, engine: Any, tp: TablePlan, zero_dates: str, file: str, cplan: Any, block: bytes) -> None:
        saved = os.environ.get("DBJSON_NO_SPEEDUPS")
        os.environ["DBJSON_NO_SPEEDUPS"] = "1"
        try:
            self._check_columns(engine, tp, zero_dates, file, block)
            if cplan is None:
                return
            ref = _REAL_BUILD(engine, tp, zero_dates, file)
            if self.cmod.jsonl_to_bulk(block, *cplan) is not None:
                self.blocks_c += 1
            for ln in block.split(b"\n")[:-1]:
                if not ln:
                    continue
                self.lines += 1
                got = self.cmod.jsonl_to_bulk(ln + b"\n", *cplan)
                if got is None:
                    continue
                self.answered += 1
                try:
                    want: bytes | None = ref(ln + b"\n", 1)[0]
                except DataError:
                    want = None
                if got != want:
                    self.mismatches.append((tp.display, ln, got, want))
        finally:
            if saved is None:
                del os.environ["DBJSON_NO_SPEEDUPS"]
            else:
                os.environ["DBJSON_NO_SPEEDUPS"] = saved

    def _check_columns(self, engine: Any, tp: TablePlan, zero_dates: str, file: str, block: bytes) -> None:
        """Each column alone (one-column plans, lines cut to that column's text): a table with
        one column C has no op for still has its other columns checked."""
        for i, c in enumerate(tp.columns):
            sub = dataclasses.replace(
                tp,
                columns=[c],
                target_names=[tp.target_names[i]],
                target_types=[tp.target_types[i]],
                table=dataclasses.replace(tp.table, columns=(c,)),
                fixed={},
                increments={},
                exprs={},
                value_rules={k: v for k, v in tp.value_rules.items() if k == c.name},
            )
            cplan = c_block_plan(engine, sub, zero_dates)
            if cplan is None:
                continue
            ref = _REAL_BUILD(engine, sub, zero_dates, file)
            for ln in block.split(b"\n")[:-1]:
                try:
                    span = raw_values(ln)[c.name]
                except Exception:  # noqa: BLE001 - not a plain line: the full-line check covers it
                    continue
                one = b"{" + orjson.dumps(c.name) + b":" + span + b"}\n"
                self.column_values += 1
                got = self.cmod.jsonl_to_bulk(one, *cplan)
                if got is None:
                    continue
                self.column_answered += 1
                try:
                    want: bytes | None = ref(one, 1)[0]
                except DataError:
                    want = None
                if got != want:
                    self.mismatches.append((f"{tp.display}.{c.name}", one, got, want))


_REAL_BUILD = encoders.build_block_encoder


def _load_sql(fresh_db: Any, engine: str, path: Path) -> Any:
    db = fresh_db(engine)
    db.execute(path.read_text(encoding="utf-8"))
    return db


@pytest.mark.parametrize("corpus", ["kinds", "chinook"])
@pytest.mark.parametrize("source", ["postgresql", "mysql", "mariadb"])
def test_exports_through_the_importer_agree(
    cmod: Any, fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, corpus: str
) -> None:
    """tests/torture holds schemas without rows: the per-kind rows and Chinook are the data."""
    if corpus == "kinds":
        src = _load_sql(fresh_db, source, ROOT / "tests" / "export_kinds" / f"{source}.sql")
    else:
        from chinook import load_chinook

        src = fresh_db(source)
        load_chinook(src)
    out = tmp_path / "export"
    export_database(src.url, out, threads=2)
    monkeypatch.delenv("DBJSON_NO_SPEEDUPS", raising=False)
    shim = ParityShim(cmod, monkeypatch)
    # the per-kind tables one by one: a value one target refuses stops only its own table
    selections = (
        [[t["name"]] for t in orjson.loads((out / "manifest.json").read_bytes())["tables"]]
        if corpus == "kinds"
        else [[]]
    )
    for target in ("postgresql", "mysql", "mariadb"):
        dst = fresh_db(target)
        for tables in selections:
            try:
                import_database(out, dst.url, threads=2, zero_dates="null", tables=tables, verify=False)
            except Exception:  # noqa: BLE001 - a cross-engine import may refuse some value; the blocks were encoded
                pass
    print(
        f"{source}-{corpus}: lines {shim.answered}/{shim.lines} answered by C, "
        f"single-column values {shim.column_answered}/{shim.column_values}"
    )
    assert not shim.mismatches, shim.mismatches[:3]
    assert shim.lines > 0 and shim.column_answered > 0
    if corpus == "chinook":
        assert shim.answered == shim.lines  # plain data: C takes every line


# -- end to end ------------------------------------------------------------------------------

E2E_ROWS = 3000


def _bench_like_export(fresh_db: Any, tmp_path: Path, source: str) -> Path:
    src = fresh_db(source)
    if source == "postgresql":
        ddl = (
            "CREATE TABLE items (id bigint PRIMARY KEY, n integer, name varchar(100), bio text, vip boolean, "
            "price numeric(12,2), w double precision, at timestamp(0), tz timestamptz, attrs jsonb, thumb bytea)"
        )
    else:
        ddl = (
            "CREATE TABLE items (id bigint PRIMARY KEY, n integer, name varchar(100), bio text, vip boolean, "
            "price decimal(12,2), w double, at datetime, tz timestamp(6) NULL, attrs json, thumb varbinary(32))"
        )
    src.execute(ddl)
    rnd = random.Random(1)
    texts = ["plain", "tab\there", "new\nline", "back\\slash", "ünïcødé 🎉", 'quote"s', "", None]
    conn = src.connect()
    try:
        cur = conn.cursor()
        ph = "%s"
        rows = []
        for i in range(E2E_ROWS):
            rows.append(
                (
                    i,
                    rnd.randint(-(2**31), 2**31 - 1),
                    rnd.choice(texts[:-1]),
                    rnd.choice(texts),
                    rnd.random() < 0.5,
                    f"{rnd.randint(0, 10**9)}.{rnd.randint(0, 99):02d}",
                    rnd.choice([round(rnd.random() * 1000, 3), rnd.random(), None]),
                    f"2024-0{rnd.randint(1, 9)}-1{rnd.randint(0, 9)} 12:34:56",
                    f"2024-0{rnd.randint(1, 9)}-1{rnd.randint(0, 9)} 01:02:03.25",
                    rnd.choice([orjson.dumps({"k": i, "t": rnd.choice(texts[:-1]), "f": [1, 2.5]}).decode(), None]),
                    rnd.choice([bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 32))), None]),
                )
            )
        cur.executemany(f"INSERT INTO items VALUES ({', '.join([ph] * 11)})", rows)
        conn.commit()
    finally:
        conn.close()
    out = tmp_path / f"export-{source}"
    export_database(src.url, out, threads=2)
    return out


@pytest.mark.parametrize("target", ["postgresql", "mariadb", "mysql"])
def test_import_end_to_end_c_on_and_off(
    cmod: Any, fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    source = "postgresql" if target != "postgresql" else "mariadb"
    out = _bench_like_export(fresh_db, tmp_path, source)
    calls = {"answered": 0, "refused": 0}
    real = cmod.jsonl_to_bulk

    class Counting:
        count_lines = staticmethod(cmod.count_lines)  # (the module's other functions, as they are)
        has_nul_escape = staticmethod(cmod.has_nul_escape)
        has_escape = staticmethod(cmod.has_escape)

        @staticmethod
        def jsonl_to_bulk(*args: Any) -> Any:
            r = real(*args)
            calls["answered" if r is not None else "refused"] += 1
            return r

    dumps = {}
    for off in ("", "1"):
        monkeypatch.setenv("DBJSON_NO_SPEEDUPS", off)
        monkeypatch.setitem(speedups._cache, "_cimport", Counting)
        encoders._ENCODERS.clear()
        dst = fresh_db(target)
        report = import_database(out, dst.url, threads=2)
        verified = report.verify is not None and report.verify.ok
        problems = report.verify.problems if report.verify is not None else None
        del report  # nothing of the import outlives this point (a failed assert keeps the frame)
        assert verified, problems
        assert verify(out, dst.url).ok
        q = "`" if target != "postgresql" else '"'
        cols = "id, n, name, bio, vip, price, w, at, tz, thumb" + (", attrs::text" if target == "postgresql" else "")
        dumps[off] = dst.query(f"SELECT {cols} FROM {q}items{q} ORDER BY id")
        assert len(dumps[off]) == E2E_ROWS
    assert calls["answered"] > 0  # the C path loaded the blocks when on ...
    assert dumps[""] == dumps["1"]  # ... and the tables are the same either way


# -- word-at-a-time scans, the pre-flight's U+0000 scan, line counts ---------------------------


SPECIALS = ["\t", "\n", "\r", "\\", '"', "\x01", "\x0d", "\x0e", "\x1f", "é", "\u2028", "\x00", "𝄞", "/"]


@pytest.mark.parametrize("engine_name", FLAVORS)
def test_special_characters_at_every_position_of_long_strings(cmod: Any, python_path: None, engine_name: str) -> None:
    """Strings are scanned and escaped 8 bytes at a time: a character that needs a look (an
    escape in the line, a bulk-text escape in the output, a non-ASCII byte) at every offset of
    strings up to 40 bytes long, alone and in pairs, converts as the Python path does."""
    tp = plan_for(engine_name, ["i32", "txt"])
    lines = []
    for n in range(0, 41):
        for ch in SPECIALS:
            for at in range(0, n + 1):
                s = "a" * at + ch + "b" * (n - at)
                lines.append(dumps({"i32": n, "txt": s}))
            lines.append(dumps({"i32": n, "txt": ch * n}))
            lines.append(dumps({"i32": n, "txt": ("x" * 7 + ch) * (n // 8 + 1)}))
    answered = check_lines(cmod, engine_name, tp, lines)
    assert answered >= len(lines) // 2


# escapes as a line may spell them (orjson writes only some): each decodes to one character,
# which the bulk text may escape again (a backslash, TAB, LF, CR; NUL for MySQL)
RAW_ESCAPES = [
    r"\/",
    r"\u00e9",
    r"\u00E9",
    r"\u005c",
    r"\u005C",
    r"\u0009",
    r"\u000a",
    r"\u000D",
    r"\u0000",
    r"\u001f",
    r"\u0041",
    r"\ud834\udd1e",
    r"\b",
    r"\f",
    r"\\",
    r"\"",
    r"\u2028",
    "\u00e9".encode().decode(),
]


@pytest.mark.parametrize("engine_name", FLAVORS)
def test_escapes_as_written_at_every_position_of_long_strings(cmod: Any, python_path: None, engine_name: str) -> None:
    """A string is decoded and bulk-escaped in one pass, 8 bytes at a time where it can: every
    escape a line may hold (canonical or not), at every offset of strings up to 24 bytes, alone,
    doubled, and between non-ASCII characters, converts as the Python path does."""
    tp = plan_for(engine_name, ["i32", "txt"])
    lines = []
    for n in range(0, 25):
        for esc in RAW_ESCAPES:
            for at in range(0, n + 1):
                for body in ("a" * at + esc + "b" * (n - at), "é" * at + esc + esc + "ж" * (n - at)):
                    lines.append(f'{{"i32":{n},"txt":"{body}"}}'.encode())
    answered = check_lines(cmod, engine_name, tp, lines)
    assert answered >= len(lines) // 2


@pytest.mark.parametrize("engine_name", FLAVORS)
def test_blocks_without_line_sums_agree(monkeypatch: pytest.MonkeyPatch, engine_name: str) -> None:
    """``encode(block, first, None)`` (a file checked by its bytes: no line sums) hands the whole
    block to C without splitting it: the same text and row count as the Python path, and the
    blocks C refuses (blank lines, CR line ends, a bad value) still go the Python way."""
    tp = plan_for(engine_name, ["i32", "txt", "dec"])
    rows = [{"i32": i, "txt": f"t\t{i}é\\", "dec": f"{i}.50"} for i in range(50)]
    good = b"".join(dumps(r) + b"\n" for r in rows)
    blocks = [good, good.replace(b"\n", b"\r\n"), good + b"\n" + good, good + b'{"i32":"x","txt":"a","dec":"1"}\n']
    engine = get_engine(engine_name, VERSIONS[engine_name])
    for block in blocks:
        monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")
        try:
            want: Any = build_block_encoder(engine, tp, "null", "f.jsonl")(block, 1, None)
        except DataError as e:
            want = str(e)
        monkeypatch.delenv("DBJSON_NO_SPEEDUPS")
        try:
            got: Any = build_block_encoder(engine, tp, "null", "f.jsonl")(block, 1, None)
        except DataError as e:
            got = str(e)
        assert got == want


def test_nul_escape_scan_is_a_substring_test(cmod: Any) -> None:
    rnd = random.Random(7)
    needle = b"\\u0000"
    cases = [b"", b"\\", b"\\u000", needle, b"x" * 9 + needle, b"\\\\u0000", b"\\u0001\\u0000", b"\\u00\\u0000"]
    for _ in range(3000):
        cases.append(bytes(rnd.choice(b"\\u0a1") for _ in range(rnd.randrange(0, 24))))
    for data in cases:
        assert cmod.has_nul_escape(data) is (needle in data), data
        assert cmod.has_nul_escape(memoryview(data)) is (needle in data)


def test_escape_scan_is_a_substring_test(cmod: Any) -> None:
    """has_escape (8 bytes at a time): ``b"\\\\u" in data`` at every offset, across word
    boundaries, among dense backslashes (a JSON document stored as a string)."""
    rnd = random.Random(9)
    needle = b"\\u"
    cases = [b"", b"\\", b"u", needle, b"\\\\u", b'{\\"a\\": \\"b\\"}' * 9]
    for n in range(0, 20):
        for at in range(0, n + 1):
            cases.append(b"x" * at + needle + b"y" * (n - at))
            cases.append(b"\\" * at + b"u" + b"\\" * (n - at))
            cases.append(b"\\x" * at + b"u")
    for _ in range(5000):
        cases.append(bytes(rnd.choice(b"\\u\\au") for _ in range(rnd.randrange(0, 40))))
    for data in cases:
        assert cmod.has_escape(data) is (needle in data), data
        assert cmod.has_escape(memoryview(data)) is (needle in data)
        assert cmod.has_nul_escape(data + b"0000") is (b"\\u0000" in data + b"0000"), data


def test_count_lines_is_bytes_count(cmod: Any) -> None:
    rnd = random.Random(8)
    for _ in range(2000):
        data = bytes(rnd.choice(b"\nab") for _ in range(rnd.randrange(0, 40)))
        assert cmod.count_lines(data) == data.count(b"\n")
    big = b"x" * 1000 + b"\n" * 5 + b"y" * 3
    assert cmod.count_lines(big) == 5 == encoders.count_lines(big)
