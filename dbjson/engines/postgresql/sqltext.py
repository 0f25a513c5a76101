"""PostgreSQL reflection: the SQL text the server prints (``pg_get_expr``, ``pg_get_constraintdef``)
turned into model values: column defaults, CHECK expressions, top-level lists, outer parentheses.
"""

from __future__ import annotations

import re

from ... import model as m

ENGINE = "postgresql"  # the engine's name in the model, and the dialect of the expressions parsed here

_LITERAL_RE = re.compile(r"""'((?:[^']|'')*)'(?:::[\w" .\[\]]+(?:\([\d, ]+\))?(?:\[\])*)?""")
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_NULL_RE = re.compile(r"NULL(?:::.+)?")
_NOW_RE = re.compile(r"(?:CURRENT_TIMESTAMP|LOCALTIMESTAMP)(?:\((\d)\))?")
_TIME_RE = re.compile(r"(?:CURRENT_TIME|LOCALTIME)(?:\((\d)\))?")
# 'now' (and 'today' for a date) cast from text to a date/time type: evaluated at every insert, as
# pg_dump prints DEFAULT 'now'::text::date and ('now'::text)::timestamp without time zone
_NOW_TEXT_RE = re.compile(
    r"\(?'(now|today)'::text\)?::(date|timestamp|time)(?:\(\d\))?(?: with(?:out)? time zone)?",
)
_UUID_FUNCS = re.compile(r"(?:[\w\"]+\.)?(?:gen_random_uuid|uuid_generate_v4)\(\)")


def parse_default(expr: str | None) -> m.Default | None:
    """A ``pg_get_expr`` default → :class:`~dbjson.model.Default` (None for no default / NULL).

    Quoted literals (with or without a cast) and numbers become ``literal`` (unquoted text),
    ``true``/``false`` too; ``now()``, ``CURRENT_TIMESTAMP``/``LOCALTIMESTAMP[(p)]`` become
    ``current_timestamp``, ``CURRENT_DATE`` ``current_date``, ``CURRENT_TIME``/``LOCALTIME``
    ``current_time``, ``gen_random_uuid()`` ``uuid``; anything else is a PostgreSQL expression
    (without its outer parentheses).
    """
    if expr is None:
        return None
    text = expr.strip()
    if _NULL_RE.fullmatch(text):
        return None
    lit = _LITERAL_RE.fullmatch(text)
    if lit:
        return m.Default(kind="literal", value=lit.group(1).replace("''", "'"))
    if _NUMBER_RE.fullmatch(text) or text in ("true", "false"):
        return m.Default(kind="literal", value=text)
    return _function_default(text) or m.Default(kind="expression", value=unwrap(text), dialect=ENGINE)


def _function_default(text: str) -> m.Default | None:
    if text in ("now()", "transaction_timestamp()"):
        return m.Default(kind="function", value="current_timestamp")
    now = _NOW_RE.fullmatch(text)
    if now:
        return m.Default(kind="function", value="current_timestamp", fsp=_int_or_none(now.group(1)))
    if text == "CURRENT_DATE":
        return m.Default(kind="function", value="current_date")
    now_text = _NOW_TEXT_RE.fullmatch(text)
    if now_text:
        word, kind = now_text.groups()
        if kind == "date":
            return m.Default(kind="function", value="current_date")
        if word == "now":
            return m.Default(kind="function", value="current_timestamp" if kind == "timestamp" else "current_time")
    time = _TIME_RE.fullmatch(text)
    if time:
        return m.Default(kind="function", value="current_time", fsp=_int_or_none(time.group(1)))
    if _UUID_FUNCS.fullmatch(text):
        return m.Default(kind="function", value="uuid")
    return None


def _int_or_none(text: str | None) -> int | None:
    return int(text) if text is not None else None


def split_top_level(text: str) -> list[str]:
    """Split a comma-separated SQL list at top level (outside quotes and brackets)."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                if i + 1 < len(text) and text[i + 1] == quote:
                    i += 1
                else:
                    quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


_CHECK_RE = re.compile(r"CHECK \((.*)\)((?: NO INHERIT)?)((?: NOT VALID)?)", re.DOTALL)


def check_expression(definition: str) -> str:
    """The expression inside ``CHECK (...)`` of a ``pg_get_constraintdef`` text."""
    match = _CHECK_RE.fullmatch(definition)
    return match.group(1) if match else definition


def unwrap(expr: str) -> str:
    """``(a AND b)`` → ``a AND b`` when the outer parentheses enclose the whole expression."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return expr
    inner = expr[1:-1]
    return inner if split_top_level(inner) == [inner.strip()] and _balanced(inner) else expr


def _balanced(text: str) -> bool:
    """True when the brackets outside quotes never close more than they opened."""
    depth = 0
    quote: str | None = None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0
