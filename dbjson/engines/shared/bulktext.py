"""Tab-separated bulk-load text: PostgreSQL ``COPY`` text and MySQL/MariaDB ``LOAD DATA`` text.

Both formats write NULL as ``\\N`` and backslash-escape the separators; they differ only in NUL,
which ``LOAD DATA`` escapes as ``\\0`` and ``COPY`` cannot carry (a :class:`BulkText` says which).
An engine's :attr:`~dbjson.engines.interface.Capabilities.bulk_text` names its format, and
:class:`~dbjson.engines.base.Engine` encodes with it (``load_encode_rows``, ``load_encode_columns``).

:func:`encode_rows` builds a block a row at a time, escaping only the lines that need it.
:func:`encode_columns` builds it column by column: a column whose values are all strings (or NULL)
is escaped only when the column holds a special character anywhere, numbers become their ``str()``, anything else
goes through :func:`scalar_text`. The lines are then joined in C (``"\\t".join`` over ``zip``), so
the per-value Python work is one list comprehension per column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ... import speedups


@dataclass(frozen=True, eq=False)
class BulkText:
    """One tab-separated bulk-load text format."""

    statement: str  # the statement that reads it (for messages)
    escape: dict[int, str]  # a str.translate table: each special character → its escape
    specials: str  # the characters that must be escaped (the escape table's keys)
    c_flavor: int  # the same format in dbjson._cimport (its ``flavor`` argument)

    @property
    def escapes_nul(self) -> bool:
        """Whether NUL is escaped (``LOAD DATA``); ``COPY`` text cannot hold it at all."""
        return "\0" in self.specials


_C_FLAVORS = speedups.constants("_cimport")

COPY_TEXT = BulkText(
    statement="COPY",
    escape=str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}),
    specials="\\\t\n\r",
    c_flavor=_C_FLAVORS["FLAVOR_PG"],
)
LOAD_DATA_TEXT = BulkText(
    statement="LOAD DATA",
    escape=str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\0": "\\0"}),
    specials="\\\t\n\r\0",
    c_flavor=_C_FLAVORS["FLAVOR_MY"],
)

NULL = "\\N"
_BOOL = {True: "1", False: "0"}  # a JSON boolean in an integer column
_NONE = type(None)
_STR_KINDS = frozenset({str, _NONE})
_NUMBER_KINDS = frozenset({int, float, _NONE})  # str() is the input text of both
_SEP = "\ufdd0"  # a Unicode noncharacter: joins a column's values while they are escaped


def scalar_text(v: Any) -> str:
    """The input text of a JSON scalar (booleans as 1/0, as integer columns expect)."""
    if type(v) is str:
        return v
    if v is True or v is False:
        return "1" if v else "0"
    return orjson.dumps(v).decode() if isinstance(v, (list, dict)) else str(v)


def _escaped(values: list[str], escape: dict[int, str]) -> list[str]:
    """``values`` with the special characters escaped: one ``str.replace`` per special character
    over the whole column joined by a separator that no value holds (``str.translate`` walks
    every character in Python-object steps and costs several times more on long texts)."""
    text = _SEP.join(values)
    if text.count(_SEP) != len(values) - 1:  # a value holds the separator: escape value by value
        return [v.translate(escape) for v in values]
    for code, replacement in sorted(escape.items(), key=lambda kv: kv[0] != 92):  # the backslash first
        ch = chr(code)
        if ch in text:
            text = text.replace(ch, replacement)
    return text.split(_SEP)


def text_column(col: Sequence[Any], escape: dict[int, str], specials: str) -> list[str]:
    """One column's converted values as input text: NULL as ``\\N``, escaped only where needed."""
    kinds = set(map(type, col))
    if kinds <= _STR_KINDS:
        has_null = _NONE in kinds
        values = [v for v in col if v is not None] if has_null else list(col)
        joined = "".join(values)
        if any(c in joined for c in specials):
            values = _escaped(values, escape)
        if not has_null:
            return values
        it = iter(values)
        return [NULL if v is None else next(it) for v in col]
    if kinds <= _NUMBER_KINDS:
        return [NULL if v is None else str(v) for v in col] if _NONE in kinds else list(map(str, col))
    return [NULL if v is None else scalar_text(v).translate(escape) for v in col]


def encode_columns(cols: Sequence[Sequence[Any]], fmt: BulkText) -> bytes:
    """The lines (each ending in a newline) of a block given as columns of equal length."""
    if not cols or not cols[0]:
        return b""
    texts = [text_column(c, fmt.escape, fmt.specials) for c in cols]
    return ("\n".join(map("\t".join, zip(*texts))) + "\n").encode()


def encode_rows(rows: Sequence[Sequence[Any]], fmt: BulkText) -> bytes:
    """The lines (each ending in a newline) of converted rows; a line is escaped only when it needs it."""
    esc = fmt.escape
    nul = fmt.escapes_nul
    out = []
    width = len(rows[0]) - 1 if rows else 0
    for row in rows:
        line = "\t".join(
            ["\\N" if v is None else v if type(v) is str else _BOOL[v] if type(v) is bool else str(v) for v in row]
        )
        # Each NULL marker holds exactly one backslash: any other backslash, tab or line break (or a
        # NUL, where the format escapes it) inside a value sends the row through the escaping path.
        if (
            line.count("\t") != width
            or line.count("\\") != row.count(None)
            or "\n" in line
            or "\r" in line
            or (nul and "\0" in line)
        ):
            line = "\t".join(
                ["\\N" if v is None else (v if type(v) is str else scalar_text(v)).translate(esc) for v in row]
            )
        out.append(line)
    out.append("")
    return "\n".join(out).encode()
