"""JSON text inside a canonical line, handled as bytes: the raw span of each value of a line
(:func:`raw_values`), compaction (:func:`compact_json`) and the ``{"$json": X}`` escape of json
columns (:func:`wrap_json_text`, :func:`unwrap_json`, :func:`unwrap_json_text`).
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from ..errors import DataError

# Possessive string patterns: a plain ``(?:[^"\\]|\\.)*`` keeps a backtracking frame per character
# (a 4 MB JSON string took ~400 MB and seconds to match).
_JSON_WS = re.compile(rb'("(?:[^"\\]++|\\.)*+")|[ \t\n\r]+', re.S)


def compact_json(raw: bytes) -> bytes:
    """JSON text without insignificant whitespace (strings, numbers and key order untouched)."""
    if not any(c in raw for c in (b" ", b"\n", b"\t", b"\r")):
        return raw
    return _JSON_WS.sub(lambda mt: mt.group(1) or b"", raw)


JSON_WRAPPER = "$json"
JSON_NULL_TEXT = b'{"$json":null}'
_WRAPPER_START = b'{"$json":'


def wrap_json_text(raw: bytes) -> bytes:
    """The row encoding of a json column's (compact) JSON text: the JSON document ``null`` is
    written ``{"$json":null}`` (a bare ``null`` is SQL NULL), and an object whose only key is
    ``$json`` is wrapped once more (``{"$json":{"$json":1}}``) so that it cannot be mistaken for
    the escape; every other value is its text."""
    if raw == b"null":
        return JSON_NULL_TEXT
    if raw.startswith(_WRAPPER_START) and len(raw_values(raw)) == 1:
        return _WRAPPER_START + raw + b"}"
    return raw


def unwrap_json(v: Any) -> Any:
    """The JSON document of a parsed json column value of a line (the inverse of
    :func:`wrap_json_text`): ``{"$json": X}`` → X (``None`` is then the JSON document null)."""
    if type(v) is dict and len(v) == 1 and JSON_WRAPPER in v:
        return v[JSON_WRAPPER]
    return v


def unwrap_json_text(raw: bytes) -> bytes:
    """:func:`unwrap_json` on the text of the value (``b'{"$json":null}'`` → ``b"null"``)."""
    if raw.startswith(_WRAPPER_START) or raw[:1] == b"{" and JSON_WRAPPER.encode() in raw[:16]:
        spans = raw_values(raw)
        if len(spans) == 1 and JSON_WRAPPER in spans:
            return spans[JSON_WRAPPER]
    return raw


# -- raw spans of JSON values inside a line (for json columns) ----------------------------------

_STR_RE = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.S)  # possessive: see _JSON_WS
_TOKEN_RE = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[][{}]', re.S)  # strings (skipped whole) and brackets
_WS = b" \t\n\r"


def _value_end(line: bytes, i: int) -> int:
    """Index just past the JSON value starting at ``line[i]``."""
    c = line[i]
    if c == 0x22:  # "
        mt = _STR_RE.match(line, i)
        if not mt:
            raise DataError("unterminated string")
        return mt.end()
    if c in (0x7B, 0x5B):  # { [
        depth = 0
        for mt in _TOKEN_RE.finditer(line, i):
            tok = mt.group()
            if tok in (b"{", b"["):
                depth += 1
            elif tok in (b"}", b"]"):
                depth -= 1
                if depth == 0:
                    return mt.end()
        raise DataError("unbalanced JSON value")
    j = i
    n = len(line)
    while j < n and line[j] not in (0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D):  # , } ] whitespace
        j += 1
    return j


def _skip_ws(line: bytes, i: int) -> int:
    n = len(line)
    while i < n and line[i] in _WS:
        i += 1
    return i


def raw_values(line: bytes) -> dict[str, bytes]:
    """The raw text of every top-level value of a JSON object line, by key (whitespace between
    tokens allowed; a malformed line raises DataError or orjson.JSONDecodeError)."""
    out: dict[str, bytes] = {}
    line = line.strip(_WS)
    n = len(line)
    if not line.startswith(b"{") or not line.endswith(b"}"):
        raise DataError("a line must be a JSON object")
    i = _skip_ws(line, 1)
    while i < n and line[i] != 0x7D:
        kend = _value_end(line, i)
        key = orjson.loads(line[i:kend])
        i = _skip_ws(line, kend)
        if i >= n or line[i] != 0x3A:  # :
            raise DataError("malformed JSON object: ':' expected")
        i = _skip_ws(line, i + 1)
        vend = _value_end(line, i)
        out[key] = line[i:vend]
        i = _skip_ws(line, vend)
        if i < n and line[i] == 0x2C:
            i = _skip_ws(line, i + 1)
            if i < n and line[i] == 0x7D:
                raise DataError("malformed JSON object: ',' before '}'")
        elif i < n and line[i] != 0x7D:
            raise DataError("malformed JSON object: ',' or '}' expected")
    if i != n - 1:
        raise DataError("malformed JSON object: text after the closing '}'")
    return out


class JsonText(str):
    """The exact text of a json column's value as cut from a line (see :class:`RowDecoder`)."""


def checked_json_text(span: bytes) -> JsonText:
    """The exact text of a json column's value, after checking it is JSON (stdlib: any number size)."""
    try:
        text = span.decode()
        json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise DataError("malformed JSON value") from None
    return JsonText(text)
