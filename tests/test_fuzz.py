"""Fuzzing with hypothesis (issue 6, item 3).

(a) Every standard kind of the row codec: encode → JSON → decode → encode gives the same bytes (the
    encoding is canonical and decoding loses nothing), decoded values equal the originals where the
    kind decodes to a Python value, and equal values given in different forms encode to the same
    bytes. (b) The JSON-lines reader (``iter_lines`` over plain, gzip and zstd files, then
    ``RowDecoder``) on arbitrary bytes raises nothing but ``DataError``. (c) The document loader
    (``Database.from_json`` / ``validate``) and the manifest reader on arbitrary JSON raise nothing
    but ``DocumentError``.

Derandomized with no example database, so CI runs are reproducible; the module runs in well under
a minute.
"""

from __future__ import annotations

import datetime as dt
import gzip
import io
import math
import struct
import tempfile
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import zstandard
from hostile.documents import base_document
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbjson import model as m
from dbjson.errors import DataError, DocumentError
from dbjson.format.codec import RowDecoder, RowEncoder, decode_value, encode_value
from dbjson.format.datafiles import iter_lines, open_data
from dbjson.format.manifest import Manifest
from dbjson.validate import validate

FUZZ = settings(
    max_examples=120,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
UTC = dt.UTC


# ---------------------------------------------------------------------------------------------
# (a) the codec, kind by kind
# ---------------------------------------------------------------------------------------------


def _int_range(bits: int, unsigned: bool) -> st.SearchStrategy[int]:
    return st.integers(0, 2**bits - 1) if unsigned else st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def _micro(fsp: int) -> st.SearchStrategy[int]:
    step = 10 ** (6 - fsp)
    return st.integers(0, 999999 // step).map(lambda n: n * step)


def _decimals(precision: int, scale: int) -> st.SearchStrategy[Decimal]:
    limit = Decimal(10) ** (precision - scale) - Decimal(1).scaleb(-scale)
    return st.decimals(min_value=-limit, max_value=limit, places=scale, allow_nan=False, allow_infinity=False)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def kind_and_value(draw: st.DrawFn) -> tuple[m.Type, Any]:
    """A standard type (every kind of model.TYPE_KINDS but opaque's base) and a value of it."""
    kind = draw(st.sampled_from(m.TYPE_KINDS))
    if kind == "boolean":
        return m.Type(kind=kind), draw(st.booleans())
    if kind == "integer":
        bits, unsigned = draw(st.sampled_from((8, 16, 24, 32, 64))), draw(st.booleans())
        return m.Type(kind=kind, bits=bits, unsigned=unsigned), draw(_int_range(bits, unsigned))
    if kind == "year":
        return m.Type(kind=kind), draw(st.integers(1901, 2155))
    if kind in ("decimal", "money"):
        if draw(st.booleans()) and kind == "decimal":
            special = draw(st.sampled_from(("NaN", "Infinity", "-Infinity", None)))
            if special:
                return m.Type(kind=kind), Decimal(special)
        precision = draw(st.integers(1, 38))
        scale = draw(st.integers(0, min(precision, 12)))
        return m.Type(kind=kind, precision=precision, scale=scale), draw(_decimals(precision, scale))
    if kind == "float":
        bits = draw(st.sampled_from((32, 64)))
        return m.Type(kind=kind, bits=bits), draw(st.floats(width=bits))
    if kind in ("char", "varchar", "text", "enum", "xml", "opaque", "inet", "macaddr", "range"):
        return m.Type(kind=kind), draw(st.text())
    if kind == "interval":
        return m.Type(kind=kind), draw(
            st.timedeltas(min_value=dt.timedelta(days=-(10**6)), max_value=dt.timedelta(days=10**6))
        )
    if kind == "uuid":
        return m.Type(kind=kind), draw(st.uuids())
    if kind in ("binary", "varbinary", "blob"):
        return m.Type(kind=kind), draw(st.binary(max_size=64))
    if kind == "bit":
        n = draw(st.integers(1, 64))
        return m.Type(kind=kind, length=n), draw(st.text(alphabet="01", min_size=n, max_size=n))
    if kind == "date":
        return m.Type(kind=kind), draw(st.dates())
    if kind == "time":
        fsp = draw(st.integers(0, 6))
        if draw(st.booleans()):  # MySQL elapsed time
            secs = draw(st.integers(-838 * 3600 - 3599, 838 * 3600 + 3599))
            return m.Type(kind=kind, fsp=0), dt.timedelta(seconds=secs)
        t = draw(st.times()).replace(microsecond=draw(_micro(fsp)))
        return m.Type(kind=kind, fsp=fsp), t
    if kind == "timestamp":
        fsp, tz = draw(st.integers(0, 6)), draw(st.booleans())
        v = draw(st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30))).replace(
            microsecond=draw(_micro(fsp))
        )
        return m.Type(kind=kind, fsp=fsp, with_timezone=tz), (v.replace(tzinfo=UTC) if tz else v)
    if kind == "set":
        values = tuple(
            draw(st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=4), min_size=1, max_size=6, unique=True))
        )
        return m.Type(kind=kind, values=values), draw(st.lists(st.sampled_from(values), unique=True))
    if kind == "json":
        return m.Type(kind=kind), draw(_json.filter(lambda v: v is not None))  # top-level null is SQL NULL
    if kind == "geometry":
        return m.Type(kind=kind), draw(st.binary(min_size=1, max_size=64))
    if kind == "vector":
        return m.Type(kind=kind), draw(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), max_size=8))
    assert kind == "array", kind
    return m.Type(kind=kind, element=m.Type(kind="integer", bits=32)), draw(
        st.lists(st.none() | _int_range(32, False), max_size=8)
    )


def _same(t: m.Type, original: Any, decoded: Any) -> bool:
    """Whether the decoded value is the original (for kinds that decode to a Python value)."""
    kind = t.kind
    if kind == "float" and t.bits == 32 and not math.isnan(original):  # the same float32
        return struct.pack("<f", original) == struct.pack("<f", decoded)
    if kind == "float":
        return (math.isnan(original) and math.isnan(decoded)) or (
            original == decoded and math.copysign(1, original) == math.copysign(1, decoded)
        )
    if kind in ("decimal", "money"):
        return (original.is_nan() and decoded.is_nan()) or original == decoded
    if kind == "uuid":
        return str(original) == decoded
    if kind == "set":
        return set(original) == set(decoded)
    if kind == "json":
        return orjson.loads(decoded) == original
    if kind == "time":  # an elapsed value under 24h decodes as a time of day

        def micros(v: Any) -> int:
            if isinstance(v, dt.timedelta):
                return v // dt.timedelta(microseconds=1)
            return ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond

        return micros(original) == micros(decoded)
    if kind in ("interval", "opaque"):
        return True  # decoded as the canonical text; the byte check covers it
    return bool(original == decoded)


@FUZZ
@given(kind_and_value())
def test_codec_round_trip_is_identity_and_canonical(tv: tuple[m.Type, Any]) -> None:
    t, value = tv
    first = orjson.dumps(encode_value(t, value))
    decoded = decode_value(t, orjson.loads(first))
    assert orjson.dumps(encode_value(t, decoded)) == first, (t.kind, value, decoded)
    assert _same(t, value, decoded), (t.kind, value, decoded)
    assert orjson.dumps(encode_value(t, value)) == first  # same value → same bytes


@FUZZ
@given(st.data())
def test_equal_values_in_other_forms_encode_to_the_same_bytes(data: st.DataObject) -> None:
    """Canonical: a value given as another Python type or spelling encodes to the same bytes."""
    scale = data.draw(st.integers(0, 6))
    d = data.draw(_decimals(18, scale))
    t = m.Type(kind="decimal", precision=18, scale=scale)
    assert encode_value(t, d) == encode_value(
        t, d.normalize() if d == d.to_integral() or scale == 0 else d.quantize(Decimal(1).scaleb(-scale))
    )
    u = data.draw(st.uuids())
    assert encode_value(m.Type(kind="uuid"), u) == encode_value(m.Type(kind="uuid"), str(u).upper())
    instant = data.draw(st.datetimes(min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(9999, 12, 30))).replace(
        tzinfo=UTC
    )
    offset = dt.timezone(dt.timedelta(minutes=data.draw(st.integers(-14 * 60, 14 * 60))))
    ts = m.Type(kind="timestamp", fsp=6, with_timezone=True)
    assert encode_value(ts, instant) == encode_value(ts, instant.astimezone(offset))
    values = tuple("abcdef")
    chosen = data.draw(st.lists(st.sampled_from(values), unique=True))
    st_type = m.Type(kind="set", values=values)
    assert encode_value(st_type, chosen) == encode_value(st_type, list(reversed(chosen)))
    blob = data.draw(st.binary(max_size=32))
    assert encode_value(m.Type(kind="blob"), blob) == encode_value(m.Type(kind="blob"), bytearray(blob))


# ---------------------------------------------------------------------------------------------
# (b) the JSON-lines reader
# ---------------------------------------------------------------------------------------------

NAT = m.NativeType(engine="mysql", raw="x")
COLUMNS = tuple(
    m.Column(name=n, ordinal=i, type=t, native=NAT)
    for i, (n, t) in enumerate(
        [
            ("id", m.Type(kind="integer", bits=64)),
            ("name", m.Type(kind="varchar", length=20)),
            ("price", m.Type(kind="decimal", precision=10, scale=2)),
            ("data", m.Type(kind="blob")),
            ("day", m.Type(kind="date")),
            ("at", m.Type(kind="timestamp", fsp=3, with_timezone=True)),
            ("doc", m.Type(kind="json")),
            ("tags", m.Type(kind="set", values=("a", "b"))),
            ("t", m.Type(kind="time", fsp=0)),
            ("f", m.Type(kind="float", bits=64)),
            ("u", m.Type(kind="uuid")),
            ("bits", m.Type(kind="bit", length=3)),
            ("arr", m.Type(kind="array", element=m.Type(kind="integer", bits=32))),
        ],
        1,
    )
)
GOOD = RowEncoder(COLUMNS).line(
    [
        7,
        "n",
        Decimal("1.50"),
        b"\x00\xff",
        dt.date(2024, 2, 29),
        dt.datetime(2024, 1, 1, 12, 0, 0, 123000, tzinfo=UTC),
        {"k": [1, 2.5]},
        ["a"],
        dt.time(1, 2, 3),
        0.25,
        uuid.UUID(int=5),
        "101",
        [1, None],
    ]
)


def _read_all(raw: bytes, suffix: str) -> int:
    """Read and decode every line of ``raw`` stored with ``suffix``; the number of rows."""
    decoder = RowDecoder(COLUMNS)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"t.jsonl{suffix}"
        path.write_bytes(raw)
        with open_data(path) as fh:
            rows = 0
            for _, line in iter_lines(fh, path.name):
                decoder.decode(line)
                rows += 1
    return rows


@st.composite
def damaged_lines(draw: st.DrawFn) -> bytes:
    """Good lines with bytes flipped, cut, inserted or replaced by arbitrary bytes."""
    lines = [GOOD] * draw(st.integers(0, 3))
    raw = bytearray(b"".join(x + b"\n" for x in lines))
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(("flip", "cut", "insert", "junk")))
        pos = draw(st.integers(0, len(raw)))
        if op == "flip" and raw:
            raw[min(pos, len(raw) - 1)] = draw(st.integers(0, 255))
        elif op == "cut":
            del raw[pos:]
        elif op == "insert":
            raw[pos:pos] = draw(st.binary(max_size=8))
        else:
            raw[pos:pos] = draw(
                st.sampled_from((b'"', b"{", b"}", b"\n", b"[", b"\\", b'"x":1,', b"null", b"1e999", b"\xff"))
            )
    return bytes(raw)


@FUZZ
@given(
    st.one_of(st.binary(max_size=256), damaged_lines()),
    st.sampled_from(("", ".gz", ".zst")),
    st.integers(0, 40),
    st.booleans(),
)
def test_reader_raises_only_data_errors(raw: bytes, suffix: str, cut: int, compress: bool) -> None:
    if suffix and compress:  # a real compressed stream, cut short or damaged in its last bytes
        packed = gzip.compress(raw) if suffix == ".gz" else zstandard.ZstdCompressor().compress(raw)
        raw = packed[: max(0, len(packed) - cut)] if cut % 2 else packed[: -cut or None] + bytes([cut]) * (cut % 5)
    try:
        _read_all(raw, suffix)
    except DataError as e:
        assert e.message  # (the reader names the file; the importer adds file and line to decoder errors)
    # anything else (zlib.error, UnicodeDecodeError, KeyError, ...) fails the test


def test_reader_reads_good_lines() -> None:
    """The reader fuzz starts from lines that do decode (else it would test only the error path)."""
    assert _read_all(GOOD + b"\n" + GOOD + b"\n", "") == 2
    assert _read_all(gzip.compress(GOOD + b"\n"), ".gz") == 1
    assert _read_all(zstandard.ZstdCompressor().compress(GOOD + b"\n"), ".zst") == 1


# ---------------------------------------------------------------------------------------------
# (c) the document loader and validator, and the manifest reader
# ---------------------------------------------------------------------------------------------

_any_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(("mysql", "integer", "varchar", "", "public", "t", "id")),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=10,
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, (*prefix, i))
    return out


def _mutated(data: st.DataObject, doc: Any) -> Any:
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(doc)))
        value = data.draw(_any_json)
        if not path:
            doc = value
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = value
    return doc


def _rich_document() -> dict[str, Any]:
    doc = base_document("postgresql")
    t = doc["schemas"][0]["tables"][0]
    t["indexes"] = [{"name": "ix", "parts": [{"column": "name"}, {"expression": "lower(name)"}]}]
    t["checks"] = [{"name": "ck", "expression": "id > 0"}]
    t["columns"][1]["default"] = {"kind": "literal", "value": "x"}
    doc["schemas"][0]["views"] = [{"name": "v", "definition": "SELECT 1"}]
    return doc


@FUZZ
@given(st.data())
def test_document_loader_raises_only_document_errors(data: st.DataObject) -> None:
    doc = data.draw(_any_json) if data.draw(st.integers(0, 4)) == 0 else _mutated(data, _rich_document())
    raw = orjson.dumps(doc)
    try:
        db = m.Database.from_json(raw)
    except DocumentError as e:
        assert e.message
        return
    assert isinstance(db, m.Database)
    assert not validate(orjson.loads(db.to_json()), "schema")  # what loads, dumps back valid


def test_document_loader_accepts_the_unmutated_document() -> None:
    assert m.Database.from_json(orjson.dumps(_rich_document())).schemas[0].tables[0].name == "t"


MANIFEST = {
    "format": "dbjson-manifest",
    "format_version": "1.0",
    "dbjson_version": "0",
    "created_at": "2026-01-01T00:00:00Z",
    "compression": "none",
    "checksum_algorithm": "xxh3-64-sum",
    "source": {"engine": "mysql", "server_version": "9.1.0", "database": "shop"},
    "snapshot": {"mode": "single-connection", "consistent": True},
    "tables": [
        {
            "schema": "shop",
            "name": "items",
            "columns": ["id"],
            "rows": 1,
            "checksum": "0" * 16,
            "files": [
                {"path": "data/shop.items.jsonl", "rows": 1, "bytes": 9, "checksum": "0" * 16, "sha256": "0" * 64}
            ],
        }
    ],
}


@FUZZ
@given(st.data())
def test_manifest_reader_raises_only_document_errors(data: st.DataObject) -> None:
    from dbjson.format.manifest import manifest_tables

    doc = _mutated(data, orjson.loads(orjson.dumps(MANIFEST)))
    try:
        Manifest.from_dict(doc, validate=True, file="manifest.json") if isinstance(doc, dict) else None
    except DocumentError:
        pass
    try:
        manifest_tables(doc, Path("/nonexistent/export"), "manifest.json")
    except DocumentError:
        pass


def test_manifest_fixture_is_valid() -> None:
    assert Manifest.from_dict(MANIFEST, validate=True, file="manifest.json").tables
    assert not io.BytesIO().read()
