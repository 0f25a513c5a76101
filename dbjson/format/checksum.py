"""Content checksums of canonical lines (see docs/data-format.md, "Checksums").

* :func:`line_hash` — the 64-bit hash of one canonical line: XXH3-64 (``xxh3-64-sum``, the
  default) or, for exports of data format 1.0–1.1, the first 8 bytes of BLAKE2b-512, little-endian
  (``blake2b64-sum``);
* :class:`Checksum` — the order-independent table checksum (sum of the line hashes modulo 2^64,
  written as 16 hex digits), of one algorithm; :func:`sum_lines` sums many lines in one call (the C
  speedup ``dbjson._cchecksum`` when it is built).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Iterable
from typing import Any

import orjson
import xxhash

from .. import speedups
from ..errors import DataError, DocumentError
from .jsontext import semantic_line_function

MASK64 = (1 << 64) - 1

# The manifest's ``checksum_algorithm`` names the line hash; a checksum is the sum of its line
# hashes modulo 2^64 either way. XXH3 is a non-cryptographic hash (as in zstd's frame checksum and
# rsync's): it detects damaged, truncated, missing or changed lines, not deliberate forgery.
XXH3_SUM = "xxh3-64-sum"  # XXH3-64, seed 0, of the line: the default since data format 1.2
BLAKE2B_SUM = "blake2b64-sum"  # first 8 bytes of BLAKE2b-512, little-endian: data format 1.0-1.1
CHECKSUM_ALGORITHMS = (XXH3_SUM, BLAKE2B_SUM)
DEFAULT_CHECKSUM = XXH3_SUM
_C_NUMBERS = speedups.constants("_cchecksum")
_C_ALGORITHM = {BLAKE2B_SUM: _C_NUMBERS["BLAKE2B64"], XXH3_SUM: _C_NUMBERS["XXH3"]}  # dbjson._cchecksum's numbers


def check_algorithm(algorithm: Any, **where: Any) -> str:
    """``algorithm`` if dbjson knows it, else a :class:`DocumentError` naming the known ones
    (``where``: the manifest's ``file`` and ``pointer``, when it comes from one; the value may be
    any JSON value there)."""
    if not isinstance(algorithm, str) or algorithm not in _C_ALGORITHM:
        raise DocumentError(
            f"unknown checksum algorithm {algorithm!r} (known: {', '.join(CHECKSUM_ALGORITHMS)}): "
            "the export was written by a newer dbjson",
            **where,
        )
    return algorithm


def _blake2b_value(line: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(line).digest()[:8], "little")


_LINE_HASH: dict[str, Callable[[bytes], int]] = {XXH3_SUM: xxhash.xxh3_64_intdigest, BLAKE2B_SUM: _blake2b_value}


def line_hash(line: bytes, algorithm: str = DEFAULT_CHECKSUM) -> int:
    """The 64-bit hash of one canonical line (without its newline) under ``algorithm``."""
    return _LINE_HASH[algorithm](line)


def format_checksum(value: int) -> str:
    """A checksum as 16 lower-case hex digits."""
    return f"{value & MASK64:016x}"


_LITTLE_ENDIAN = sys.byteorder == "little"


def sum_lines(lines: list[bytes], algorithm: str = DEFAULT_CHECKSUM) -> int:
    """The content checksum value of ``lines`` (each without its newline), modulo 2^64.

    One C call with the speedup ``dbjson._cchecksum``; else XXH3 through the ``xxhash`` package,
    or BLAKE2b with the digests joined and their first 8 bytes read as native (little-endian)
    uint64 words in C, 15-20 % less CPU than ``int.from_bytes`` per line."""
    fast = speedups.load("_cchecksum")
    if fast is not None:
        return int(fast.sum_lines(lines, _C_ALGORITHM[algorithm]))
    if algorithm == BLAKE2B_SUM and _LITTLE_ENDIAN:
        digests = memoryview(b"".join([hashlib.blake2b(ln).digest() for ln in lines])).cast("Q")
        return sum(digests[::8].tolist()) & MASK64
    return sum(map(_LINE_HASH[algorithm], lines)) & MASK64


def sum_block(block: bytes, algorithm: str = DEFAULT_CHECKSUM) -> tuple[int, int]:
    """The content checksum value and the line count of ``block`` (lines each ending in a newline):
    :meth:`Checksum.add_block`'s sums, one C call without the interpreter lock when built."""
    total = Checksum(algorithm=algorithm)
    total.add_block(block)
    return total.value, total.rows


class Checksum:
    """An order-independent content checksum: the sum of the line hashes modulo 2^64.

    Feed lines with :meth:`add` (one line) or :meth:`add_block` (newline-terminated lines);
    combine partial checksums (chunks, workers) of the same algorithm with :meth:`merge` or ``+``.
    """

    __slots__ = ("value", "rows", "algorithm")

    def __init__(self, value: int = 0, rows: int = 0, algorithm: str = DEFAULT_CHECKSUM) -> None:
        self.value = value & MASK64
        self.rows = rows
        self.algorithm = check_algorithm(algorithm)

    def add(self, line: bytes) -> None:
        """Add one canonical line (without its trailing newline)."""
        self.value = (self.value + _LINE_HASH[self.algorithm](line)) & MASK64
        self.rows += 1

    def add_block(self, block: bytes) -> None:
        """Add every line of ``block``: complete lines, each terminated by ``\\n``.

        With the C speedup ``dbjson._cchecksum`` (same sums, one call per block, without the
        interpreter lock) when it is built; this method's Python body is the reference."""
        fast = speedups.load("_cchecksum")
        if fast is not None:
            value, rows = fast.sum_block(block, _C_ALGORITHM[self.algorithm])
            self.value = (self.value + value) & MASK64
            self.rows += rows
            return
        lines = block.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        self.add_lines(lines)

    def add_lines(self, lines: list[bytes]) -> None:
        """Add a list of canonical lines (without newlines): one :func:`sum_lines` call."""
        self.value = (self.value + sum_lines(lines, self.algorithm)) & MASK64
        self.rows += len(lines)

    def merge(self, other: Checksum) -> None:
        self._same(other)
        self.value = (self.value + other.value) & MASK64
        self.rows += other.rows

    def __add__(self, other: Checksum) -> Checksum:
        self._same(other)
        return Checksum(self.value + other.value, self.rows + other.rows, self.algorithm)

    def _same(self, other: Checksum) -> None:
        if other.algorithm != self.algorithm:
            raise ValueError(f"cannot combine a {other.algorithm} checksum with a {self.algorithm} one")

    def hexdigest(self) -> str:
        return format_checksum(self.value)

    @classmethod
    def from_hex(cls, text: str, rows: int = 0, algorithm: str = DEFAULT_CHECKSUM) -> Checksum:
        return cls(int(text, 16), rows, algorithm)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Checksum) and (self.value, self.rows, self.algorithm) == (
            other.value,
            other.rows,
            other.algorithm,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Checksum({self.hexdigest()}, rows={self.rows}, {self.algorithm})"


def row_checksum(line: bytes, algorithm: str = DEFAULT_CHECKSUM) -> str:
    """The hash of one canonical line as 16 hex digits."""
    return format_checksum(line_hash(line, algorithm))


def table_checksum(lines: Iterable[bytes], algorithm: str = DEFAULT_CHECKSUM) -> str:
    """The content checksum of an iterable of canonical lines (without newlines)."""
    c = Checksum(algorithm=algorithm)
    for ln in lines:
        c.add(ln)
    return c.hexdigest()


class SemanticLines:
    """Lines in their by-meaning form (verify across engines), hashed a block or a batch at a time.

    Calling it gives one line's form (:func:`dbjson.format.jsontext.semantic_line_function`);
    :meth:`add_block` and :meth:`add_lines` add the forms' hashes to a :class:`Checksum` in one C call
    (``_cchecksum.semantic_sum_block`` / ``semantic_sum_lines``) — the same sums as hashing each
    ``self(line)``, which is what they do without the speedup or for a batch the C code refuses."""

    def __init__(
        self,
        jsons: tuple[str, ...],
        decimals: tuple[str, ...],
        json_texts: tuple[str, ...] = (),
        opaque_texts: tuple[str, ...] = (),
    ) -> None:
        """``jsons``: the json columns; ``json_texts``: those of them written as the JSON string of
        their text (data format 1.3); ``decimals``: the decimal columns compared by value;
        ``opaque_texts``: untyped columns compared by their text (a target without storage classes
        holds an untyped number or blob as text: :func:`dbjson.format.decoders.opaque_text`)."""
        self.line = semantic_line_function(jsons, decimals, json_texts) if jsons or decimals else _same_line
        self._opaque = opaque_texts
        if opaque_texts:
            self.line = _opaque_as_text(opaque_texts, self.line)
        self._jsons = tuple(n.encode() for n in jsons)
        self._decimals = tuple(n.encode() for n in decimals)
        self._texts = tuple(n.encode() for n in json_texts)

    def __call__(self, line: bytes) -> bytes:
        return self.line(line)

    def add_block(self, total: Checksum, block: bytes) -> None:
        """Add the by-meaning forms of ``block``'s lines (split as :meth:`Checksum.add_block` does)."""
        fast = speedups.load("_cchecksum") if not self._opaque else None
        if fast is not None:
            try:
                value, rows = fast.semantic_sum_block(
                    block, self._jsons, self._decimals, _C_ALGORITHM[total.algorithm], self._texts
                )
            except ValueError:
                pass  # a line the C code refuses: line by line below (the twin names the problem)
            else:
                total.merge(Checksum(value, rows, total.algorithm))
                return
        lines = block.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        total.add_lines([self.line(ln) for ln in lines])

    def add_lines(self, total: Checksum, lines: list[bytes]) -> None:
        """Add the by-meaning forms of ``lines``."""
        fast = speedups.load("_cchecksum") if not self._opaque else None
        if fast is not None:
            try:
                value = fast.semantic_sum_lines(
                    lines, self._jsons, self._decimals, _C_ALGORITHM[total.algorithm], self._texts
                )
            except ValueError:
                pass
            else:
                total.merge(Checksum(value, len(lines), total.algorithm))
                return
        total.add_lines([self.line(ln) for ln in lines])


def _same_line(line: bytes) -> bytes:
    return line


def _opaque_as_text(names: tuple[str, ...], then: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    """``then`` after the values of the untyped columns ``names`` are replaced by their text (a line
    whose values there are all strings or null is passed on as it is)."""
    from .decoders import opaque_text

    def line(raw: bytes) -> bytes:
        obj = orjson.loads(raw)
        changed = False
        for n in names:
            v = obj.get(n)
            if v is not None and type(v) is not str:
                try:
                    obj[n] = opaque_text(v)
                except DataError:  # no text (a blob that is not UTF-8): the load stops on it, naming it
                    continue
                changed = True
        return then(orjson.dumps(obj) if changed else raw)

    return line
