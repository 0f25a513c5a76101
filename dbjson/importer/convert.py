"""Rows of a data file converted for the target engine: one converter per column (the engine's,
with the ``--nul`` rule and the json escape applied), and :func:`build_row_converter` for whole lines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ..engines import Engine
from ..engines.interface import TablePlan
from ..errors import DataError
from ..format.decoders import is_date_text
from ..format.jsontext import check_json_text, parse_json_text, raw_values, unwrap_json, unwrap_json_text
from ..preflight import NUL_REPLACEMENT, replace_nul


def load_converters(engine: Engine, tp: TablePlan, zero_dates: str) -> list[Callable[[Any], Any] | None]:
    """The engine's converter of each data column (None: the JSON value as is), with the NUL
    rule of the column (``tp.value_rules``: ``--nul strip|replace``) applied first, and json
    columns' ``{"$json": X}`` escape (the JSON document null, see :func:`dbjson.format.codec.wrap_json_text`)
    undone before that. A json column written as text (``tp.json_text``, format 1.3) loads the
    text its JSON string holds, checked to be JSON, into whatever the target column is (every
    engine takes JSON text for its JSON type: text-stored JSON keeps it byte for byte)."""
    convs: list[Callable[[Any], Any] | None] = [
        engine.load_converter(c.type, t, zero_dates=zero_dates) for c, t in zip(tp.columns, tp.target_types)
    ]
    for i, c in enumerate(tp.columns):
        if (
            c.type.kind in ("date", "timestamp")
            and engine.capabilities.dates_as_text
            and c.native.engine == engine.name
        ):
            convs[i] = _same_engine_date_text(convs[i])
        rule = tp.value_rules.get(c.name, "")
        if rule in ("nul-strip", "nul-replace"):
            convs[i] = _nul_converter(convs[i], NUL_REPLACEMENT[rule[4:]])
        if c.type.kind == "json":
            if c.name in tp.json_text:  # the JSON string of the document's text: that text is loaded
                convs[i] = check_json_text if not rule else _parsing(_unwrapping(convs[i]))
            else:
                convs[i] = _unwrapping(convs[i])
    return convs


def _parsing(conv: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A json-as-text column under a rule that changes values (``--nul``): the document parsed,
    then converted as a nested value is (the rule, the json escape, the engine's converter)."""
    return lambda v: conv(parse_json_text(v))


def _same_engine_date_text(conv: Callable[[Any], Any] | None) -> Callable[[Any], Any] | None:
    """A date column of an engine that keeps dates as text (SQLite), into the same engine: text
    that is not a date (what the source held: ``'2007-08-04- 00:00:00.000'``) loads as it is."""
    if conv is None:
        return None
    return lambda v: conv(v) if type(v) is not str or is_date_text(v) else v


def _unwrapping(conv: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    if conv is None:
        return unwrap_json
    return lambda v: conv(unwrap_json(v))


def raw_json_columns(engine: Engine, tp: TablePlan) -> list[int]:
    """Indexes of the json columns that load the exact text of the line (``1.50``, ``\\u00e9``,
    integers beyond 2^64) rather than a re-serialization of the value parsed by orjson (doubles):
    targets that store JSON as text (MariaDB, SQLite, PostgreSQL ``json``) and engines whose
    binary JSON keeps numbers exactly (PostgreSQL ``jsonb``: ``load_json_numbers_exact``)."""
    exact = engine.capabilities.json_numbers_exact
    return [
        i
        for i, (c, t) in enumerate(zip(tp.columns, tp.target_types))
        if c.type.kind == "json"
        and t.kind == "json"
        and (exact or not t.binary)
        and c.name not in tp.value_rules
        and c.name not in tp.json_text  # their text is the value of their JSON string
    ]


def _put_raw_json(out: list[Any], raw: bytes, idx: list[int], names: list[str]) -> None:
    """Replace the parsed values at ``idx`` (json columns, not NULL) by their text in the line."""
    if all(out[i] is None for i in idx):
        return
    try:
        spans = raw_values(raw)
        texts = [None if out[i] is None else unwrap_json_text(spans[names[i]]).decode() for i in idx]
    except (DataError, KeyError, UnicodeDecodeError, orjson.JSONDecodeError):
        texts = [
            None if out[i] is None else orjson.dumps(unwrap_json(out[i])).decode() for i in idx
        ]  # not a plain line
    for i, text in zip(idx, texts):
        out[i] = text


def _nul_converter(conv: Callable[[Any], Any] | None, by: str) -> Callable[[Any], Any]:
    if conv is None:
        return lambda v: replace_nul(v, by)
    return lambda v: conv(replace_nul(v, by))


def build_row_converter(
    engine: Engine, tp: TablePlan, zero_dates: str, file: str
) -> Callable[[bytes, int, int], tuple[Any, ...]]:
    """``convert(line, line_number, row_number)`` → the tuple of ``tp.insert_columns`` for the engine.

    Every problem (malformed JSON, missing or unexpected keys, a value that does not fit its
    column) raises :class:`DataError` naming file, line, table, column and value.
    """
    names = [c.name for c in tp.columns]
    keyset = set(names)
    convs = load_converters(engine, tp, zero_dates)
    raw_json = raw_json_columns(engine, tp)
    active = [(i, conv) for i, conv in enumerate(convs) if conv is not None and i not in raw_json]
    fixed = tuple(tp.fixed.values())
    incs = list(tp.increments.values())
    all_keys = {c.name for c in tp.table.columns}
    loads = orjson.loads

    def convert(raw: bytes, number: int, rownum: int) -> tuple[Any, ...]:
        try:
            obj = loads(raw)
        except orjson.JSONDecodeError as e:
            raise DataError(f"malformed JSON line: {e}", file=file, line=number, table=tp.display) from None
        if type(obj) is not dict:
            raise DataError("a line must be a JSON object", file=file, line=number, table=tp.display)
        try:
            out = [obj[name] for name in names]
        except KeyError as e:
            raise DataError(
                "column missing from the line", file=file, line=number, table=tp.display, column=str(e.args[0])
            ) from None
        name = ""
        try:
            for i, conv in active:
                v = out[i]
                if v is not None:
                    name = names[i]
                    out[i] = conv(v)
        except DataError as e:
            raise DataError(
                e.message, file=file, line=number, table=tp.display, column=name, value=obj.get(name)
            ) from None
        except (ValueError, TypeError, OverflowError) as e:
            raise DataError(
                f"value does not fit the column: {e}",
                file=file,
                line=number,
                table=tp.display,
                column=name,
                value=obj.get(name),
            ) from None
        if raw_json:
            _put_raw_json(out, raw, raw_json, names)
        if len(obj) > len(keyset) and not obj.keys() <= all_keys:
            extra = sorted(set(obj) - all_keys)
            raise DataError(
                f"unexpected key {extra[0]!r} (not a column of the table)", file=file, line=number, table=tp.display
            )
        if fixed:
            out.extend(fixed)
        for start in incs:
            out.append(start + rownum - 1)
        return tuple(out)

    return convert
