"""JSON text inside a canonical line, handled as bytes: the raw span of each value of a line
(:func:`raw_values`), compaction (:func:`compact_json`), the ``{"$json": X}`` escape of json
columns (:func:`wrap_json_text`, :func:`unwrap_json`, :func:`unwrap_json_text`), and a line's
by-meaning form for verify (:func:`semantic_line_function`, C speedup ``_cchecksum.semantic_line``
with its twin :func:`semantic_line_py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import orjson

from .. import speedups
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


def is_json_text(text: str) -> bool:
    """Whether ``text`` (the value of a json column written as text, data format 1.3) is one JSON
    document (any number size, whitespace around and inside allowed)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def check_json_text(v: Any) -> str:
    """The value of a json column written as text (a JSON string of the document's exact text),
    checked: DataError when it is not a string or its text is not JSON."""
    if type(v) is not str:
        raise DataError("a json column written as text must hold a JSON string (the document's text)", value=v)
    if not is_json_text(v):
        raise DataError("the text of a json value is not JSON", value=v[:200])
    return v


def parse_json_text(v: Any) -> Any:
    """The document a json-as-text value holds, parsed (orjson: doubles), for the load paths that
    change values by rule (``--nul strip|replace``): they work on the parsed document as they do
    for a value written nested. The JSON document null becomes ``{"$json": None}``, as nested."""
    doc = orjson.loads(check_json_text(v))
    if doc is None or (type(doc) is dict and len(doc) == 1 and JSON_WRAPPER in doc):
        return {JSON_WRAPPER: doc}
    return doc


def checked_json_text(span: bytes) -> JsonText:
    """The exact text of a json column's value, after checking it is JSON (stdlib: any number size)."""
    try:
        text = span.decode()
        json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise DataError("malformed JSON value") from None
    return JsonText(text)


# -- by-meaning form of a line (verify across engines) ------------------------------------------

_NUMBER = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_EXP_DIGITS = re.compile(rb"[eE][+-]?([0-9]+)$")
_FIXED_LIMIT = 1000  # |exponent| above this: digits "e" exponent (the C twin's FIXED_LIMIT)
_MAX_EXP_DIGITS = 6  # longer exponents are refused (the C twin's MAX_EXP_DIGITS)


def canonical_number(text: bytes) -> bytes:
    """A JSON number by exact value: ``0`` for every zero; else the sign and the digits without
    leading or trailing zeros around the decimal point (``1.50`` → ``1.5``, ``1E2`` → ``100``,
    ``25e-3`` → ``0.025``), or ``<digits>e<exponent>`` when the exponent of the last digit is beyond
    ±1000. ValueError when ``text`` is not a JSON number or its exponent has over 6 digits."""
    if not _NUMBER.fullmatch(text):
        raise ValueError(f"not a JSON number: {text[:40]!r}")
    ex = _EXP_DIGITS.search(text)
    if ex and len(ex.group(1)) > _MAX_EXP_DIGITS:
        raise ValueError(f"exponent too long: {text[:40]!r}")
    mantissa, _, exp_text = text.lower().partition(b"e")
    neg = mantissa.startswith(b"-")
    whole, _, frac = mantissa.lstrip(b"-").partition(b".")
    digits = (whole + frac).lstrip(b"0")
    exp = int(exp_text or b"0") - len(frac)
    stripped = digits.rstrip(b"0")
    exp += len(digits) - len(stripped)
    if not stripped:
        return b"0"
    sign = b"-" if neg else b""
    if exp > _FIXED_LIMIT or exp < -_FIXED_LIMIT:
        return sign + stripped + b"e" + str(exp).encode()
    if exp >= 0:
        return sign + stripped + b"0" * exp
    point = len(stripped) + exp
    if point > 0:
        return sign + stripped[:point] + b"." + stripped[point:]
    return sign + b"0." + b"0" * -point + stripped


def _canonical_json(v: Any) -> bytes:
    if isinstance(v, dict):
        return b"{" + b",".join(orjson.dumps(k) + b":" + _canonical_json(v[k]) for k in sorted(v)) + b"}"
    if isinstance(v, list):
        return b"[" + b",".join(_canonical_json(x) for x in v) + b"]"
    if isinstance(v, _Num):
        return canonical_number(v.text) if v.text not in (b"NaN", b"Infinity", b"-Infinity") else v.text
    return orjson.dumps(v)


class _Num:
    """A JSON number's text, as parsed (json.loads's parse_float/parse_int/parse_constant)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text.encode()


def canonical_json(raw: bytes) -> bytes:
    """A JSON document by meaning: objects with sorted keys (the last of a repeated key), no
    whitespace, strings with orjson's minimal escapes, numbers by :func:`canonical_number`."""
    return _canonical_json(json.loads(raw, parse_float=_Num, parse_int=_Num, parse_constant=_Num))


def semantic_line_py(
    line: bytes, jsons: tuple[bytes, ...], decimals: tuple[bytes, ...], json_texts: tuple[bytes, ...] = ()
) -> bytes:
    """The by-meaning form of a canonical line (the twin of ``_cchecksum.semantic_line``): members
    sorted by key, the values of the ``jsons`` keys through :func:`canonical_json`, the digits of the
    ``decimals`` keys' numbers (JSON strings) through :func:`canonical_number`, every other value as
    written. The value of a ``json_texts`` key (a json column written as the JSON string of its
    text, data format 1.3) is the text that string holds, through :func:`canonical_json` and then
    :func:`wrap_json_text`: the form of the same document written nested. Equal for two lines that
    differ only in how a target spells JSON and decimals, or in how the line carries JSON."""
    json_names = {k.decode() for k in jsons}
    decimal_names = {k.decode() for k in decimals}
    text_names = {k.decode() for k in json_texts}
    spans = raw_values(line)
    out = []
    for key in sorted(spans):
        raw = spans[key]
        if key in text_names and raw[:1] == b'"':
            raw = wrap_json_text(canonical_json(orjson.loads(raw).encode()))
        elif key in json_names:
            raw = canonical_json(raw)
        elif key in decimal_names and raw[:1] == b'"':
            text = orjson.loads(raw)
            try:
                raw = b'"' + canonical_number(text.encode()) + b'"'
            except ValueError:  # NaN, Infinity: as written
                pass
        else:
            orjson.loads(raw)  # valid JSON, as the C twin checks
        out.append(orjson.dumps(key) + b":" + raw)
    return b"{" + b",".join(out) + b"}"


def semantic_line_function(
    jsons: tuple[str, ...], decimals: tuple[str, ...], json_texts: tuple[str, ...] = ()
) -> Callable[[bytes], bytes]:
    """``line -> by-meaning line`` for these column names: the C speedup, with the Python twin for
    the lines it refuses (whose error the twin raises, naming the problem)."""
    jb = tuple(n.encode() for n in jsons)
    db = tuple(n.encode() for n in decimals)
    tb = tuple(n.encode() for n in json_texts)
    fast = speedups.load("_cchecksum")
    if fast is None:
        return lambda line: semantic_line_py(line, jb, db, tb)
    c_line = fast.semantic_line

    def normalize(line: bytes) -> bytes:
        try:
            return bytes(c_line(line, jb, db, tb))
        except ValueError:
            return semantic_line_py(line, jb, db, tb)

    return normalize
