"""The row codec: lossless, canonical JSON lines (see docs/data-format.md).

Encoding turns the values a driver hands back (PyMySQL, psycopg 3, sqlite3) into JSON-ready values,
one compiled converter per column kind; a row becomes one compact JSON object keyed by column name
in ordinal order. Decoding turns the parsed JSON values back into plain Python values that the
loaders pass to the drivers (``Decimal``, ``int``, ``bytes``, ``datetime``...). The encoding is
canonical, so the checksums of :mod:`dbjson.format.checksum` computed over the lines can be compared
across engines.

:data:`KIND_CODECS` is the one table of standard type kinds: for each kind, the factories of its
encoder (:mod:`dbjson.format.encoders`) and decoder (:mod:`dbjson.format.decoders`), and the per-row
check of the kinds whose driver values are already canonical. The public entry points are
:class:`RowEncoder` (export), :class:`RowDecoder` (import) and :func:`encoder` / :func:`decoder` for
single values.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from .. import model as m
from ..errors import DataError
from .decoders import (
    Decoder,
    dec_binary,
    dec_boolean,
    dec_date,
    dec_decimal,
    dec_float,
    dec_geometry,
    dec_int,
    dec_json,
    dec_opaque,
    dec_text,
    dec_uuid,
    dec_vector,
    make_dec_array,
    make_dec_bit,
    make_dec_set,
    make_dec_time,
    make_dec_timestamp,
)
from .encoders import (
    Encoder,
    checked_int,
    checked_opaque,
    checked_text,
    enc_binary,
    enc_boolean,
    enc_date,
    enc_float,
    enc_float32,
    enc_geometry,
    enc_int_number,
    enc_int_string,
    enc_interval,
    enc_json,
    enc_json_text,
    enc_opaque,
    enc_text,
    enc_uuid,
    enc_vector,
    make_enc_array,
    make_enc_bit,
    make_enc_decimal,
    make_enc_set,
    make_enc_time,
    make_enc_timestamp,
)
from .jsontext import check_json_text, checked_json_text, raw_values

# ---------------------------------------------------------------------------------------------
# The type kinds
# ---------------------------------------------------------------------------------------------


def _no_row_check(t: m.Type) -> Encoder | None:
    return None


@dataclass(frozen=True, slots=True)
class KindCodec:
    """How the row encoding writes and reads the values of one standard type kind.

    Each field builds, for one :class:`~dbjson.model.Type` of the kind, a converter of non-null
    values (built once per column, then called per value):

    * ``encoder`` — a driver value → its JSON-ready value;
    * ``decoder`` — a JSON value of a line → the Python value a loader passes to its driver;
    * ``row_check`` — for a type whose driver values orjson already writes canonically, the cheap
      check of the value's Python type that :class:`RowEncoder` applies per row instead of the
      encoder; None for the others.
    """

    encoder: Callable[[m.Type], Encoder]
    decoder: Callable[[m.Type], Decoder]
    row_check: Callable[[m.Type], Encoder | None] = _no_row_check


def _same(convert: Callable[[Any], Any]) -> Callable[[m.Type], Callable[[Any], Any]]:
    """The factory of a kind with one converter whatever the type's parameters."""
    return lambda t: convert


def _short_int(t: m.Type) -> bool:
    """An integer of 32 bits or fewer: a JSON number (wider ones are strings)."""
    return (t.bits or 64) <= 32


def _array_encoder(t: m.Type) -> Encoder:
    return make_enc_array(encoder_for_type(t.element) if t.element is not None else enc_text)


def _array_decoder(t: m.Type) -> Decoder:
    return make_dec_array(decoder_for_type(t.element) if t.element is not None else dec_text)


# Kinds whose JSON form is the engine's text (checked to be a str per row), and kinds written as text.
_VERBATIM_TEXT = KindCodec(_same(enc_text), _same(dec_text), _same(checked_text))
_TEXT = KindCodec(_same(enc_text), _same(dec_text))
_BYTES = KindCodec(_same(enc_binary), _same(dec_binary))
_DECIMAL = KindCodec(lambda t: make_enc_decimal(t.scale), _same(dec_decimal))

# Every kind of :data:`dbjson.model.TYPE_KINDS`, in its order (tests/test_codec.py checks both lists agree).
KIND_CODECS: dict[str, KindCodec] = {
    "boolean": KindCodec(_same(enc_boolean), _same(dec_boolean)),
    "integer": KindCodec(
        lambda t: enc_int_number if _short_int(t) else enc_int_string,
        _same(dec_int),
        lambda t: checked_int if _short_int(t) else None,
    ),
    "decimal": _DECIMAL,
    "float": KindCodec(lambda t: enc_float32 if t.bits == 32 else enc_float, _same(dec_float)),
    "char": _VERBATIM_TEXT,
    "varchar": _VERBATIM_TEXT,
    "text": _VERBATIM_TEXT,
    "binary": _BYTES,
    "varbinary": _BYTES,
    "blob": _BYTES,
    "date": KindCodec(_same(enc_date), _same(dec_date)),
    "time": KindCodec(lambda t: make_enc_time(t.fsp or 0, t.with_timezone), lambda t: make_dec_time(t.with_timezone)),
    "timestamp": KindCodec(
        lambda t: make_enc_timestamp(t.fsp or 0, t.with_timezone), lambda t: make_dec_timestamp(t.with_timezone)
    ),
    "interval": KindCodec(_same(enc_interval), _same(dec_text)),
    "year": KindCodec(_same(enc_int_number), _same(dec_int), _same(checked_int)),
    "bit": KindCodec(lambda t: make_enc_bit(t.length, t.varying), lambda t: make_dec_bit(t.length, t.varying)),
    "enum": _VERBATIM_TEXT,
    "set": KindCodec(lambda t: make_enc_set(t.values), lambda t: make_dec_set(t.values)),
    "json": KindCodec(_same(enc_json), _same(dec_json)),
    "uuid": KindCodec(_same(enc_uuid), _same(dec_uuid)),
    "inet": _TEXT,
    "macaddr": _TEXT,
    "geometry": KindCodec(_same(enc_geometry), _same(dec_geometry)),
    "array": KindCodec(_array_encoder, _array_decoder),
    "money": _DECIMAL,
    "range": _TEXT,
    "xml": _VERBATIM_TEXT,
    "vector": KindCodec(_same(enc_vector), _same(dec_vector)),
    # an untyped value keeps its storage class (SQLite): string, number, {"$blob": ...} (format 1.4)
    "opaque": KindCodec(_same(enc_opaque), _same(dec_opaque), _same(checked_opaque)),
}


def _kind_codec(t: m.Type) -> KindCodec:
    codec = KIND_CODECS.get(t.kind)
    if codec is None:
        raise DataError(f"unknown type kind {t.kind!r}")
    return codec


# ---------------------------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------------------------


def encoder_for_type(t: m.Type) -> Encoder:
    """The encoder for non-NULL values of one standard type."""
    return _kind_codec(t).encoder(t)


def encoder(column: m.Column) -> Encoder:
    """The encoder for non-NULL values of ``column`` (errors name the column)."""
    return _naming_column(encoder_for_type(column.type), column)


def _naming_column(convert: Callable[[Any], Any], column: m.Column) -> Callable[[Any], Any]:
    """``convert``, its DataErrors naming ``column`` (unless they name a column already)."""

    def named(v: Any) -> Any:
        try:
            return convert(v)
        except DataError as e:
            e.column = e.column or column.name
            raise

    return named


def encode_value(t: m.Type, value: Any) -> Any:
    """Encode one value of type ``t`` (None → None)."""
    return None if value is None else encoder_for_type(t)(value)


def _row_check(t: m.Type) -> Encoder | None:
    """The per-row check that replaces the encoder of ``t``, if orjson writes its driver values as they are."""
    codec = KIND_CODECS.get(t.kind)
    return codec.row_check(t) if codec is not None else None


class RowEncoder:
    """Builds canonical lines from driver rows of one table (columns in ordinal order).

    ``adapters`` maps a column name to a function applied to its non-NULL driver value first
    (engine-specific raw forms, e.g. MySQL's internal geometry bytes → EWKB). ``json_text`` names
    the json columns written as the JSON string of their exact text (data format 1.3: the
    engine stores them as text; the manifest lists them) instead of nested.
    """

    def __init__(
        self,
        columns: Sequence[m.Column],
        adapters: dict[str, Callable[[Any], Any]] | None = None,
        json_text: Collection[str] = (),
    ) -> None:
        self.columns = tuple(columns)
        self.names = tuple(c.name for c in self.columns)
        adapters = adapters or {}
        self._plan: list[tuple[int, str, Encoder | None]] = []
        for i, c in enumerate(self.columns):
            ad = adapters.get(c.name)
            if c.type.kind == "json" and c.name in json_text:
                enc: Encoder | None = _naming_column(enc_json_text, c)
                self._plan.append((i, c.name, enc if ad is None else _compose(ad, enc)))  # type: ignore[arg-type]
                continue
            enc = None if ad is not None else _row_check(c.type)
            if enc is None:
                enc = encoder(c) if ad is None else _compose(ad, encoder(c))
            self._plan.append((i, c.name, enc))

    def values(self, row: Sequence[Any]) -> dict[str, Any]:
        """The JSON-ready object of one row."""
        out: dict[str, Any] = {}
        name = ""
        try:
            for i, name, enc in self._plan:
                v = row[i]
                out[name] = None if v is None else enc(v) if enc is not None else v
        except DataError as e:  # a per-row check (not wrapped, for speed) does not name its column
            e.column = e.column or name
            raise
        return out

    def line(self, row: Sequence[Any]) -> bytes:
        """The canonical line of one row (no newline)."""
        try:
            return orjson.dumps(self.values(row))
        except orjson.JSONEncodeError as e:
            raise DataError(f"cannot encode row: {e}") from None

    def lines(self, rows: Iterable[Sequence[Any]]) -> bytes:
        """Newline-terminated canonical lines of many rows, as one block."""
        dumps = orjson.dumps
        vals = self.values
        try:
            return b"".join([dumps(vals(r)) + b"\n" for r in rows])
        except orjson.JSONEncodeError as e:
            raise DataError(f"cannot encode row: {e}") from None


def _compose(first: Callable[[Any], Any], then: Encoder) -> Encoder:
    return lambda v: then(first(v))


def encode_row(columns: Sequence[m.Column], row: Sequence[Any]) -> bytes:
    """One canonical line (convenience; build a :class:`RowEncoder` for many rows)."""
    return RowEncoder(columns).line(row)


# ---------------------------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------------------------


def decoder_for_type(t: m.Type) -> Decoder:
    """The decoder for non-null JSON values of one standard type.

    Results: boolean → bool; integer/year → int; decimal/money → Decimal; float → float (NaN/inf);
    text kinds, interval, range, inet, macaddr, uuid → str; binary kinds → bytes; bit → str of 0/1;
    date → date (zero/infinity dates: the text); time → time, aware time (timetz) or timedelta
    (MySQL elapsed values); timestamp → naive or UTC-aware datetime (zero/infinity: the text);
    set → list[str]; json → the JSON text; geometry → EWKB bytes; vector → list[float]; array →
    list of decoded elements.
    """
    return _kind_codec(t).decoder(t)


def decoder(column: m.Column) -> Decoder:
    """The decoder for non-null JSON values of ``column`` (errors name the column)."""
    return _naming_column(decoder_for_type(column.type), column)


def decode_value(t: m.Type, value: Any) -> Any:
    """Decode one JSON value of type ``t`` (None → None)."""
    return None if value is None else decoder_for_type(t)(value)


class RowDecoder:
    """Parses canonical lines of one table into Python values in column order.

    ``decode(line)`` checks that every column is present and no other key is; json columns come
    back as their exact JSON text (numbers and key order untouched). ``json_text`` names the json
    columns written as the JSON string of their text (the manifest's ``json_text``, format 1.3):
    their text is that string's content, checked to be JSON.
    """

    def __init__(self, columns: Sequence[m.Column], json_text: Collection[str] = ()) -> None:
        self.columns = tuple(columns)
        self.names = tuple(c.name for c in self.columns)
        self._decoders = [
            _naming_column(check_json_text, c) if c.type.kind == "json" and c.name in json_text else decoder(c)
            for c in self.columns
        ]
        self._json = [i for i, c in enumerate(self.columns) if c.type.kind == "json" and c.name not in json_text]
        self._json_names = frozenset(self.names[i] for i in self._json)
        self._names = frozenset(self.names)

    def decode(self, line: bytes | str) -> list[Any]:
        """Python values of one line, in column order."""
        raw = line.encode() if isinstance(line, str) else line
        obj = self._parse(raw)
        if len(obj) != len(self.names) or obj.keys() != self._names:
            missing = [n for n in self.names if n not in obj]
            extra = [k for k in obj if k not in self._names]
            raise DataError(f"line keys do not match the columns (missing {missing}, unexpected {extra})")
        out: list[Any] = []
        for name, dec in zip(self.names, self._decoders):
            v = obj[name]
            out.append(None if v is None else dec(v))
        return out

    def _parse(self, raw: bytes) -> dict[str, Any]:
        try:
            if not self._json:
                obj = orjson.loads(raw)
                if not isinstance(obj, dict):
                    raise DataError("a line must be a JSON object")
                return obj
            # json columns keep their exact text (numbers beyond double range, key order)
            spans = raw_values(raw.strip())
            return {
                k: (checked_json_text(v) if k in self._json_names and v != b"null" else orjson.loads(v))
                for k, v in spans.items()
            }
        except orjson.JSONDecodeError as e:
            raise DataError(f"malformed JSON line: {e}") from None


__all__ = [
    "KindCodec",
    "KIND_CODECS",
    "RowEncoder",
    "RowDecoder",
    "encoder",
    "decoder",
    "encoder_for_type",
    "decoder_for_type",
    "encode_value",
    "decode_value",
    "encode_row",
]
