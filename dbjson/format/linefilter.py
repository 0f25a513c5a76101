"""Byte tests on canonical JSON lines: which lines *may* hold a value that a value check reports,
answered without parsing them.

The import's pre-flight (:mod:`dbjson.preflight`) and verify's value rules (:mod:`dbjson.verify`)
look for rare values: zero dates, ``infinity``, NUL characters, strings longer than a target
column. Parsing every line to find them costs about 10 µs per line of a wide table (a million
``orjson.loads`` and the checks on each value); a test of the bytes of a block of lines costs
nothing in comparison, and only the lines it cannot clear are parsed.

Every test here is *sound*: a line it clears holds no value the check would report, whatever
spelling a hand-written or hostile file uses (JSON can spell any character of a string as a
``\\uXXXX`` escape, so a line holding that escape is never cleared by a test on the characters
it could spell). A test may accept a line that then holds nothing (it is parsed for nothing).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import orjson

from .. import speedups

# The value of a date/timestamp that a zero-date or infinite-date check may report, as a JSON
# string right after its member's name: every text decoders.is_zero_date_text accepts (year
# 0000, or month or day 00 after ASCII digits) and (-)infinity (more matches only cost a parse).
ZERO_DATE_VALUE = rb'\s*:\s*"(?:0000-|[^"\\]{4}-00-|[^"\\]{7}-00|-?infinity")'

ESCAPE = b"\\u"  # the escape that can spell any character of a JSON string
_escape_search = re.compile(re.escape(ESCAPE)).search
NUL_ESCAPE = b"\\u0000"  # JSON's only spelling of U+0000 in a string


def zero_date_search(name: str) -> Callable[[bytes], object]:
    """A search for a value of member ``name`` that is a zero or infinite date: anchored on the
    member's name (a literal the regular expression engine finds fast, against every quote of
    a JSON document for an unanchored pattern), for a line or a block of lines. The twin of
    ``_cchecksum.date_values`` (:func:`date_values`)."""
    return re.compile(re.escape(orjson.dumps(name)) + ZERO_DATE_VALUE).search


def date_values(names: Sequence[str]) -> Callable[[bytes], bool]:
    """``text -> whether a member named in names holds a zero or infinite date`` (line or block),
    for names spelled as orjson writes them: one C call without the interpreter lock
    (``_cchecksum.date_values``), else the regular expressions of :func:`zero_date_search`.
    (A name or a value spelled with ``\\u`` escapes is not found: :class:`LineFilter` adds that.)"""
    if not names:
        return lambda _text: False
    fast = speedups.load("_cchecksum")
    if fast is not None:
        keys = tuple(orjson.dumps(n) for n in names)
        return lambda text: bool(fast.date_values(text, keys))
    searches = [zero_date_search(n) for n in names]
    return lambda text: any(search(text) for search in searches)


def has_escape(text: bytes) -> bool:
    """``b"\\\\u" in text``: in C, 8 bytes at a time without the interpreter lock when built (a
    JSON document stored as a string has a backslash every few bytes), else by a regular
    expression (1.7-3x faster than ``in``, which the frequent "u" slows down)."""
    fast = getattr(speedups.load("_cimport"), "has_escape", None)  # (None: not built, or built before it)
    return bool(fast(text)) if fast is not None else _escape_search(text) is not None


def spelled_one_way(name: str) -> bool:
    """Whether a member name has one spelling in JSON apart from ``\\u`` escapes: ``/`` may also
    be written ``\\/``, which a search for orjson's spelling would not find."""
    return "/" not in name


def has_nul_escape(text: bytes) -> bool:
    """``b"\\\\u0000" in text`` (in C without the interpreter lock when built)."""
    cmod = speedups.load("_cimport")
    return bool(cmod.has_nul_escape(text)) if cmod is not None else NUL_ESCAPE in text


class LineFilter:
    """A sound pre-test of lines (or blocks of whole lines) for the checks of one table.

    ``dates``: members checked for zero or infinite dates (names without another spelling, see
    :func:`spelled_one_way`); ``nul``: some column is checked for U+0000; ``longer_than``: the
    smallest length limit of a string or binary check (a line no longer than it holds no value
    longer than it: a JSON string takes at least a byte per character and UTF-8 byte, base64 at
    least a byte per byte)."""

    def __init__(self, dates: Sequence[str] = (), nul: bool = False, longer_than: int | None = None) -> None:
        self.dates = tuple(dates)
        self.nul = nul
        self.longer_than = longer_than
        self._date_values = date_values(self.dates)

    def may(self, text: bytes) -> bool:
        """Whether ``text`` (one line without its newline) may hold a value a check reports."""
        if self.longer_than is not None and len(text) > self.longer_than:
            return True
        return self._bytes_may(text)

    def block_may(self, block: bytes) -> bool:
        """Whether some line of ``block`` (whole lines, each ending in a newline) may."""
        limit = self.longer_than
        if limit is not None and len(block) > limit and max(map(len, block.split(b"\n"))) > limit:
            return True
        return self._bytes_may(block)

    def _bytes_may(self, text: bytes) -> bool:
        if self.dates:
            if has_escape(text):  # a name, a digit or a letter of infinity may be spelled \uXXXX
                return True
            if self._date_values(text):
                return True
        elif self.nul and has_nul_escape(text):
            return True
        return False


__all__ = [
    "ESCAPE",
    "NUL_ESCAPE",
    "ZERO_DATE_VALUE",
    "LineFilter",
    "date_values",
    "has_escape",
    "has_nul_escape",
    "spelled_one_way",
    "zero_date_search",
]
