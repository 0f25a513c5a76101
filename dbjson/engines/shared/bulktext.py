"""Tab-separated bulk-load text (PostgreSQL ``COPY`` text, MySQL/MariaDB ``LOAD DATA``), a column at a time.

Both formats write NULL as ``\\N`` and backslash-escape the separators. The rows of a block are
built column by column: a column whose values are all strings (or NULL) is escaped only when the
column holds a special character anywhere, numbers become their ``str()``, anything else
goes through :func:`scalar_text`. The lines are then joined in C (``"\\t".join`` over ``zip``), so
the per-value Python work is one list comprehension per column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

NULL = "\\N"
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


def encode_columns(cols: Sequence[Sequence[Any]], escape: dict[int, str], specials: str) -> bytes:
    """The lines (each ending in a newline) of a block given as columns of equal length."""
    if not cols or not cols[0]:
        return b""
    texts = [text_column(c, escape, specials) for c in cols]
    return ("\n".join(map("\t".join, zip(*texts))) + "\n").encode()
