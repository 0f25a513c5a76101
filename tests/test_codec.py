"""The row codec: canonical encoding per kind, decode → encode identity, the table of kinds, checksums."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbjson import model as m
from dbjson.errors import DataError
from dbjson.format import checksum, codec


def col(name: str, kind: str, **kw: Any) -> m.Column:
    return m.Column(name=name, ordinal=1, type=m.Type(kind=kind, **kw), native=m.NativeType(engine="x", raw="x"))


def roundtrip(column: m.Column, value: Any) -> tuple[bytes, Any]:
    """Encode one value in a one-column line, decode it back."""
    line = codec.RowEncoder([column]).line([value])
    (back,) = codec.RowDecoder([column]).decode(line)
    # canonical: re-encoding the decoded value gives the same bytes
    assert codec.RowEncoder([column]).line([back]) == line
    return line, back


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return bool(a == b) and type(a) is type(b)


# -- property tests: decode(encode(v)) == v and encode(decode(line)) == line ------------------


@given(st.integers(min_value=-(2**31), max_value=2**32 - 1))
def test_int32(v: int) -> None:
    line, back = roundtrip(col("c", "integer", bits=32), v)
    assert line == b'{"c":%d}' % v and back == v


@given(st.integers(min_value=-(2**63), max_value=2**64 - 1))
def test_int64_as_string(v: int) -> None:
    line, back = roundtrip(col("c", "integer", bits=64), v)
    assert line == b'{"c":"%d"}' % v and back == v


@given(st.decimals(allow_nan=True, allow_infinity=True, places=4, min_value=None, max_value=None))
def test_decimal_scale4(v: Decimal) -> None:
    if v.is_finite() and abs(v) >= Decimal("1e30"):
        return
    line, back = roundtrip(col("c", "decimal", precision=40, scale=4), v)
    text = orjson.loads(line)["c"]
    assert "E" not in text and "e" not in text
    if v.is_finite():
        assert back == v and text.split(".")[1].__len__() == 4
    else:
        assert str(back) == str(v) or (v.is_nan() and back.is_nan())


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_decimal_unconstrained_plain_notation(v: Decimal) -> None:
    if abs(v.adjusted()) > 200:
        return
    line, back = roundtrip(col("c", "decimal"), v)
    assert back == v and b"E" not in line


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_float(v: float) -> None:
    line, back = roundtrip(col("c", "float", bits=64), v)
    assert same(back, v)
    if math.isnan(v):
        assert line == b'{"c":"NaN"}'


@given(st.floats(width=32))
def test_float32_shortest(v: float) -> None:
    import struct

    line, back = roundtrip(col("c", "float", bits=32), v)
    as32 = struct.unpack("<f", struct.pack("<f", back))[0]
    assert same(as32, v)  # the decoded value stores as the same float32
    widened = codec.RowEncoder([col("c", "float", bits=32)]).line([float(v)])
    assert widened == line  # the widened double of a float32 encodes like its short form


def test_float32_examples() -> None:
    enc = codec.RowEncoder([col("c", "float", bits=32)])
    assert enc.line([0.10000000149011612]) == b'{"c":0.1}'
    assert enc.line([16777216.0]) == b'{"c":16777216.0}'
    assert enc.line([3.4028234663852886e38]) == b'{"c":3.4028235e+38}'


@given(st.booleans())
def test_boolean(v: bool) -> None:
    line, back = roundtrip(col("c", "boolean"), v)
    assert back is v and line == (b'{"c":true}' if v else b'{"c":false}')


@given(st.text())
def test_text(v: str) -> None:
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in v):
        return
    _, back = roundtrip(col("c", "text"), v)
    assert back == v


@given(st.binary())
def test_binary(v: bytes) -> None:
    _, back = roundtrip(col("c", "blob"), v)
    assert back == v


@given(st.integers(min_value=1, max_value=64), st.data())
def test_bit(n: int, data: st.DataObject) -> None:
    v = data.draw(st.integers(min_value=0, max_value=2**n - 1))
    raw = v.to_bytes((n + 7) // 8, "big")  # PyMySQL hands BIT as big-endian bytes
    line, back = roundtrip(col("c", "bit", length=n), raw)
    assert back == format(v, f"0{n}b") and len(back) == n


@given(st.dates())
def test_date(v: dt.date) -> None:
    _, back = roundtrip(col("c", "date"), v)
    assert back == v


@given(st.datetimes(), st.integers(min_value=0, max_value=6))
def test_datetime_fsp(v: dt.datetime, fsp: int) -> None:
    v = v.replace(microsecond=v.microsecond // 10 ** (6 - fsp) * 10 ** (6 - fsp))
    line, back = roundtrip(col("c", "timestamp", fsp=fsp), v)
    text = orjson.loads(line)["c"]
    assert back == v and len(text) == 19 + (fsp + 1 if fsp else 0)


fixed_offsets = st.integers(min_value=-14 * 60, max_value=14 * 60).map(lambda mi: dt.timezone(dt.timedelta(minutes=mi)))


@given(st.datetimes(timezones=fixed_offsets, min_value=dt.datetime(1900, 1, 2), max_value=dt.datetime(9998, 1, 1)))
def test_timestamptz_utc_z(v: dt.datetime) -> None:
    line, back = roundtrip(col("c", "timestamp", fsp=6, with_timezone=True), v)
    assert orjson.loads(line)["c"].endswith("Z") and back == v


@given(
    st.timedeltas(
        min_value=-dt.timedelta(hours=838, minutes=59, seconds=59),
        max_value=dt.timedelta(hours=838, minutes=59, seconds=59),
    )
)
def test_mysql_elapsed_time(v: dt.timedelta) -> None:
    line, back = roundtrip(col("c", "time", fsp=6), v)
    if isinstance(back, dt.time):
        back = dt.timedelta(hours=back.hour, minutes=back.minute, seconds=back.second, microseconds=back.microsecond)
    assert back == v


@given(st.times(), st.integers(min_value=0, max_value=6))
def test_time(v: dt.time, fsp: int) -> None:
    v = v.replace(microsecond=v.microsecond // 10 ** (6 - fsp) * 10 ** (6 - fsp))
    _, back = roundtrip(col("c", "time", fsp=fsp), v)
    assert back == v


@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), unique=True))
def test_set(items: list[str]) -> None:
    values = ("a", "b", "c", "d")
    line, back = roundtrip(col("c", "set", values=values), ",".join(items))
    assert back == sorted(items, key=values.index)


@given(st.uuids())
def test_uuid(v: uuid.UUID) -> None:
    _, back = roundtrip(col("c", "uuid"), v)
    assert back == str(v)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(exclude_categories=("Cs",))),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=5, alphabet=st.characters(exclude_categories=("Cs",))), children, max_size=4)
    ),
    max_leaves=10,
)


@settings(max_examples=200)
@given(json_values)
def test_json_nested_and_exact(v: Any) -> None:
    from dbjson.format.jsontext import unwrap_json

    try:
        pretty = orjson.dumps(v, option=orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:
        return
    line, back = roundtrip(col("c", "json"), pretty.decode())
    assert unwrap_json(orjson.loads(line)["c"]) == v  # the JSON document null is {"$json":null}
    assert back == orjson.dumps(v).decode()  # compact text


@given(st.lists(st.one_of(st.none(), st.integers(min_value=-(2**63), max_value=2**63 - 1)), max_size=5))
def test_array_of_bigint(v: list[int | None]) -> None:
    _, back = roundtrip(col("c", "array", element=m.Type(kind="integer", bits=64)), v)
    assert back == v


# -- fixed examples -------------------------------------------------------------------------


def test_json_keeps_number_text_and_key_order() -> None:
    line, back = roundtrip(col("c", "json"), '{"b": 1.50, "a": [1e400, 18446744073709551616], "s": "x  y"}')
    assert line == b'{"c":{"b":1.50,"a":[1e400,18446744073709551616],"s":"x  y"}}'
    assert back == '{"b":1.50,"a":[1e400,18446744073709551616],"s":"x  y"}'


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        (col("c", "timestamp", fsp=0, allows_zero=True), "0000-00-00 00:00:00", '"0000-00-00T00:00:00"'),
        (col("c", "timestamp", fsp=3), "2024-01-02 03:04:05.5", '"2024-01-02T03:04:05.500"'),
        (
            col("c", "timestamp", fsp=6, with_timezone=True),
            "2024-01-02 03:04:05.25+02",
            '"2024-01-02T01:04:05.250000Z"',
        ),
        (col("c", "timestamp", fsp=6, with_timezone=True), "infinity", '"infinity"'),
        (col("c", "date", allows_zero=True), "0000-00-00", '"0000-00-00"'),
        (col("c", "date"), "-infinity", '"-infinity"'),
        (col("c", "time", fsp=2), dt.timedelta(hours=-838, minutes=-59, seconds=-59), '"-838:59:59.00"'),
        (col("c", "time", fsp=0), "24:00:00", '"24:00:00"'),
        (col("c", "time", fsp=6, with_timezone=True), "12:34:56.5+05:30", '"12:34:56.500000+05:30"'),
        (
            col("c", "time", fsp=0, with_timezone=True),
            dt.time(1, 2, 3, tzinfo=dt.timezone(dt.timedelta(hours=-3))),
            '"01:02:03-03:00"',
        ),
        (col("c", "decimal", precision=10, scale=2), Decimal("1.1"), '"1.10"'),
        (col("c", "decimal", precision=40, scale=30), Decimal("1E-30"), '"0.000000000000000000000000000001"'),
        (col("c", "money"), Decimal("-12.34"), '"-12.34"'),
        (col("c", "float", bits=64), float("-inf"), '"-Infinity"'),
        (col("c", "integer", bits=64, unsigned=True), 18446744073709551615, '"18446744073709551615"'),
        (col("c", "year"), 2155, "2155"),
        (col("c", "bit", length=3), "101", '"101"'),
        (col("c", "set", values=("x", "y")), "", "[]"),
        (col("c", "interval"), "P1Y2M3DT4H5M6.5S", '"P1Y2M3DT4H5M6.5S"'),
        (col("c", "interval"), dt.timedelta(days=1, seconds=3661, microseconds=500000), '"P1DT1H1M1.5S"'),
        (col("c", "uuid"), "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", '"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"'),
        (
            col("c", "geometry", srid=4326),
            "0101000020e6100000000000000000f03f0000000000000040",
            '"0101000020E6100000000000000000F03F0000000000000040"',
        ),
        (col("c", "array", element=m.Type(kind="text")), [["a", None], ["b", "c"]], '[["a",null],["b","c"]]'),
        (col("c", "vector", dims=3), "[1,2.5,3]", "[1.0,2.5,3.0]"),
        (col("c", "text"), 'a\x00b\n"', '"a\\u0000b\\n\\""'),
    ],
)
def test_canonical_examples(column: m.Column, value: Any, expected: str) -> None:
    assert codec.RowEncoder([column]).line([value]) == b'{"c":' + expected.encode() + b"}"


def test_null_and_key_order() -> None:
    cols = [col("z", "text"), col("a", "integer", bits=32), col("m", "json")]
    assert codec.RowEncoder(cols).line([None, 1, None]) == b'{"z":null,"a":1,"m":null}'


def test_encode_rejects_lossy_values() -> None:
    with pytest.raises(DataError) as e:
        codec.RowEncoder([col("flag", "boolean")]).line([2])
    assert e.value.column == "flag"
    with pytest.raises(DataError):
        codec.RowEncoder([col("n", "integer", bits=32)]).line(["abc"])
    with pytest.raises(DataError):
        codec.RowEncoder([col("b", "bit", length=3)]).line([b"\xff"])


def test_decoder_checks_keys_and_values() -> None:
    dec = codec.RowDecoder([col("a", "integer", bits=64), col("b", "blob")])
    assert dec.decode(b'{"a":"5","b":"AAE="}') == [5, b"\x00\x01"]
    with pytest.raises(DataError, match="missing"):
        dec.decode(b'{"a":"5"}')
    with pytest.raises(DataError):
        dec.decode(b'{"a":5.5,"b":null}')
    with pytest.raises(DataError):
        dec.decode(b'{"a":"1","b":"not base64!"}')


def test_the_table_has_one_codec_per_model_kind() -> None:
    """Adding a kind to ``model.TYPE_KINDS`` without its encoder and decoder fails here."""
    assert list(codec.KIND_CODECS) == list(m.TYPE_KINDS)
    for kind in m.TYPE_KINDS:
        t = m.Type(kind=kind)
        assert callable(codec.encoder_for_type(t)) and callable(codec.decoder_for_type(t))


def test_unknown_kind_is_a_data_error() -> None:
    for build in (codec.encoder_for_type, codec.decoder_for_type):
        with pytest.raises(DataError, match="unknown type kind 'nope'"):
            build(m.Type(kind="nope"))
    with pytest.raises(DataError, match="unknown type kind"):
        codec.RowEncoder([col("c", "nope")])
    with pytest.raises(DataError, match="unknown type kind"):
        codec.RowEncoder([col("c", "nope")], adapters={"c": str})


def test_row_checks_only_where_orjson_writes_the_driver_value() -> None:
    """Text-like kinds and short integers are only type-checked per row; the rest are encoded, and an
    adapter always goes through the full encoder."""
    checked = {
        kind
        for kind in m.TYPE_KINDS
        if codec.KIND_CODECS[kind].row_check(m.Type(kind=kind, bits=32 if kind == "integer" else None)) is not None
    }
    assert checked == {"char", "varchar", "text", "enum", "xml", "opaque", "integer", "year"}
    assert codec.KIND_CODECS["integer"].row_check(m.Type(kind="integer", bits=64)) is None
    enc = codec.RowEncoder([col("t", "text"), col("i", "integer", bits=16)], adapters={"t": lambda v: v.upper()})
    assert enc.line([b"abc", 7]) == b'{"t":"ABC","i":7}'
    with pytest.raises(DataError) as e:
        enc.line([b"\xff", 1])
    assert e.value.column == "t"  # the full encoder names the column


def test_checksum_is_order_independent_and_mergeable() -> None:
    lines = [b'{"a":1}', b'{"a":2}', b'{"a":3}']
    c1 = checksum.table_checksum(lines)
    assert c1 == checksum.table_checksum(reversed(lines))
    part1, part2 = checksum.Checksum(), checksum.Checksum()
    part1.add_block(b'{"a":1}\n{"a":2}\n')
    part2.add(b'{"a":3}')
    assert (part1 + part2).hexdigest() == c1 and (part1 + part2).rows == 3
    assert len(c1) == 16 and c1 != checksum.table_checksum(lines[:2])
    import hashlib

    import xxhash

    expected = sum(xxhash.xxh3_64_intdigest(x) for x in lines) % 2**64  # xxh3-64-sum, the default
    assert c1 == f"{expected:016x}"
    legacy = sum(int.from_bytes(hashlib.blake2b(x).digest()[:8], "little") for x in lines) % 2**64
    assert checksum.table_checksum(lines, checksum.BLAKE2B_SUM) == f"{legacy:016x}"  # format 1.0-1.1 exports
    assert checksum.table_checksum([]) == "0000000000000000"
