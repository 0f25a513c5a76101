"""The block encoder of ``dbjson import``: the column-by-column path gives exactly the bytes of the
row-by-row path (and the same checksum), and falls back to it for blocks it cannot take."""

from __future__ import annotations

import base64
import pickle

import orjson
import pytest

from dbjson import model as m
from dbjson.engines import get_engine
from dbjson.engines.interface import TablePlan
from dbjson.errors import DataError
from dbjson.format.checksum import MASK64, line_hash
from dbjson.importer.convert import build_row_converter
from dbjson.importer.encoders import build_block_encoder, encode_block

VERSIONS = {"postgresql": "15.0", "mysql": "9.1.0", "mariadb": "10.11.9-MariaDB"}


def _col(name: str, ordinal: int, t: m.Type) -> m.Column:
    return m.Column(name=name, ordinal=ordinal, type=t, native=m.NativeType(engine="postgresql", raw=t.kind))


COLUMNS = [
    _col("id", 1, m.Type(kind="integer", bits=64)),
    _col("n", 2, m.Type(kind="integer", bits=32)),
    _col("name", 3, m.Type(kind="varchar", length=100)),
    _col("flag", 4, m.Type(kind="boolean")),
    _col("amount", 5, m.Type(kind="decimal", precision=10, scale=2)),
    _col("ratio", 6, m.Type(kind="float", bits=64)),
    _col("doc", 7, m.Type(kind="json", binary=True)),
    _col("raw", 8, m.Type(kind="blob")),
    _col("at", 9, m.Type(kind="timestamp", fsp=3, with_timezone=True)),
]
TABLE = m.Table(name="t", columns=tuple(COLUMNS))


def _plan() -> TablePlan:
    return TablePlan(
        schema="s",
        name="t",
        table=TABLE,
        tschema=None,
        tname="t",
        columns=list(COLUMNS),
        target_names=[c.name for c in COLUMNS],
        target_types=[c.type for c in COLUMNS],
    )


def _line(i: int, name: str | None, raw: bytes | None = b"\x00\xff") -> bytes:
    return orjson.dumps(
        {
            "id": str(10**15 + i),
            "n": i - 2,
            "name": name,
            "flag": i % 2 == 0,
            "amount": f"{i}.10",
            "ratio": i / 3 if i % 4 else None,
            "doc": {"k": name, "i": i} if i % 3 else None,
            "raw": base64.b64encode(raw).decode() if raw is not None else None,
            "at": "2024-02-29T12:00:00.125Z",
        }
    )


NAMES = ["plain", "tab\there", "new\nline", "back\\slash", "cr\rx", "nul\x00x", "ünïcødé 🎉", "", None, "\\N"]


def _row_path(engine_name: str, lines: list[bytes]) -> bytes:
    engine = get_engine(engine_name, VERSIONS[engine_name])
    convert = build_row_converter(engine, _plan(), "null", "f.jsonl")
    return engine.load_encode_rows([convert(ln, i, 0) for i, ln in enumerate(lines, 1) if ln])


@pytest.mark.parametrize("engine_name", ["postgresql", "mysql", "mariadb"])
@pytest.mark.parametrize(
    "names",
    [NAMES, ["a", "b", "c"], [None, None], ["x\ufdd0y", "tab\t"]],
    ids=["specials", "plain", "nulls", "separator-in-value"],
)
def test_columns_equal_rows(engine_name: str, names: list[str | None], monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [_line(i, n, raw=None if i == 2 else bytes([i, 0, 255])) for i, n in enumerate(names)]
    block = b"\n".join(lines) + b"\n"
    expected = _row_path(engine_name, lines)
    engine = get_engine(engine_name, VERSIONS[engine_name])

    def no_row_path(rows: object) -> bytes:
        raise AssertionError("the block fell back to the row path")

    monkeypatch.setattr(engine, "load_encode_rows", no_row_path)
    encode = build_block_encoder(engine, _plan(), "null", "f.jsonl")
    encoded, rows, checksum = encode(block, 1)
    assert encoded == expected
    assert rows == len(lines)
    assert checksum == sum(map(line_hash, lines)) & MASK64


@pytest.mark.parametrize("newline", [b"\r\n", b"\n"], ids=["crlf", "lf"])
@pytest.mark.parametrize("engine_name", ["postgresql", "mysql"])
def test_blank_lines_and_crlf_like_rows(engine_name: str, newline: bytes) -> None:
    """A blank line or CR (which the C encoder refuses) is not a row, and not in the checksum."""
    lines = [_line(1, "a"), b"", _line(2, "b")]
    block = newline.join(lines) + newline
    encode = build_block_encoder(get_engine(engine_name, VERSIONS[engine_name]), _plan(), "null", "f.jsonl")
    encoded, rows, checksum = encode(block, 1)
    assert encoded == _row_path(engine_name, lines)
    assert rows == 2
    assert checksum == (line_hash(lines[0]) + line_hash(lines[2])) & MASK64


@pytest.mark.parametrize(("bad", "column"), [(b'{"id": ', None), (b'{"id": "1"}', "n"), (None, "raw")])
def test_bad_line_named_by_the_row_path(bad: bytes | None, column: str | None) -> None:
    lines = [_line(1, "a"), _line(2, "b"), bad if bad is not None else _line(3, "c").replace(b'"raw":"', b'"raw":"!!')]
    encode = build_block_encoder(get_engine("postgresql", VERSIONS["postgresql"]), _plan(), "null", "f.jsonl")
    with pytest.raises(DataError) as err:
        encode(b"\n".join(lines) + b"\n", 41)
    assert err.value.line == 43
    assert err.value.column == column


def test_encoder_cache_is_keyed_by_the_plan() -> None:
    """Two imports of a table with the same name in one process (inline conversion) must not
    share an encoder when their plans differ."""
    plain, with_fixed = _plan(), _plan()
    with_fixed.fixed = {"origin": "x"}
    block = _line(1, "a") + b"\n"
    first = encode_block("postgresql", VERSIONS["postgresql"], pickle.dumps(plain), "null", "f.jsonl", 1, block)
    second = encode_block("postgresql", VERSIONS["postgresql"], pickle.dumps(with_fixed), "null", "f.jsonl", 1, block)
    assert first[0] == second[0] == "ok"
    assert second[1] == first[1][:-1] + b"\tx\n"
