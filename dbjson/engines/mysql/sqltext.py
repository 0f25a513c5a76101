"""MySQL/MariaDB reflection: the SQL text of the catalog (quoted literals, ``ENUM``/``SET`` labels,
information_schema's escaped expressions, outer parentheses, identifiers and their qualifier).
"""

from __future__ import annotations

import re

NUMBER_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}


def unescape_is(text: str) -> str:
    """Undo MySQL's extra escaping of expressions in information_schema (``\\'`` → ``'``, ``\\\\`` → ``\\``).

    MySQL stores default, generated, CHECK and functional-index expressions in
    information_schema as if they were the contents of a quoted string; SHOW CREATE TABLE prints
    them unescaped. MariaDB does not escape them.
    """
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "\\'":
            out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_string_literal(text: str, start: int = 0) -> tuple[str, int]:
    """Parse the SQL string literal starting at ``text[start]`` (a quote); returns (value, end)."""
    quote = text[start]
    out: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
        elif ch == quote:
            if i + 1 < len(text) and text[i + 1] == quote:
                out.append(quote)
                i += 2
            else:
                return "".join(out), i + 1
        else:
            out.append(ch)
            i += 1
    raise ValueError(f"unterminated string literal in {text!r}")


def parse_value_list(column_type: str) -> tuple[str, ...]:
    """The labels of ``enum('a','b''c')`` / ``set(...)`` as written in ``COLUMN_TYPE``."""
    values: list[str] = []
    i = column_type.index("(") + 1
    while i < len(column_type):
        ch = column_type[i]
        if ch == "'":
            value, i = parse_string_literal(column_type, i)
            values.append(value)
        elif ch == ")":
            break
        else:
            i += 1
    return tuple(values)


def strip_outer_parens(expr: str) -> str:
    """``(a > 0)`` → ``a > 0`` when the outer parentheses enclose the whole expression."""
    s = expr.strip()
    while s.startswith("(") and s.endswith(")") and _closing_paren(s) == len(s) - 1:
        s = s[1:-1].strip()
    return s


def _closing_paren(s: str) -> int:
    depth = 0
    i = 0
    while i < len(s):
        ch = s[i]
        if ch in "'\"`":
            j = i + 1
            while j < len(s) and s[j] != ch:
                j += 2 if s[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def quote_name(ident: str) -> str:
    return "`" + ident.replace("`", "``") + "`"


def unqualify(sql: str, schema: str) -> str:
    """Drop the qualifier of the object's own database (`` `db`.`t` `` → `` `t` ``) from catalog SQL."""
    return sql.replace(quote_name(schema) + ".", "")
