"""Fetching a server-side cursor in batches sized by bytes (verify, and loads that read back)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

FETCH_BYTES = 16 << 20  # about this many bytes of rows per verify round trip and per hash batch


_FETCH_MAX_ROWS = 5000


def _row_bytes(row: Sequence[Any]) -> int:
    """About the bytes one fetched row holds (its strings and byte strings; 16 per other value)."""
    return sum(len(v) if isinstance(v, (str, bytes, bytearray, memoryview)) else 16 for v in row)


_Row = TypeVar("_Row", bound=Sequence[Any])


def byte_batches(fetch: Callable[[int], Sequence[_Row]], first: int = 8) -> Iterator[_Row]:
    """The rows of a server-side cursor, fetched ``fetch(n)`` rows at a time with ``n`` sized so a
    round trip holds about :data:`FETCH_BYTES` (measured on each batch: the largest of up to 64
    sampled rows), between 1 and 5,000 rows. The first round trip asks for ``first`` rows (a
    manifest's file sizes may be compressed, so they do not tell the row size). Peak memory is
    then about FETCH_BYTES plus a few of the largest rows, whatever the row size."""
    n = max(1, min(first, _FETCH_MAX_ROWS))
    while True:
        rows = fetch(n)
        if not rows:
            return
        step = max(1, len(rows) // 64)
        widest = max(_row_bytes(rows[i]) for i in range(0, len(rows), step))
        n = max(1, min(_FETCH_MAX_ROWS, FETCH_BYTES // max(1, widest)))
        yield from rows
        del rows
