"""``--max-rate``: a ceiling on the rows or bytes per second a whole command moves (all its
threads together), for exports and imports on a shared production server, as MySQL Shell's
``maxRate`` (which is per thread; this one is the total).

:class:`RateLimit` is a virtual schedule (GCRA): each batch of rows (or bytes) books the time it
costs at the limit after the batches before it, and the caller sleeps until its booking starts.
Callers book whole blocks (export: each block of lines; import: each block or every few hundred
rows), so an unlimited run pays one ``is None`` test per block and nothing per row.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field

from .errors import Cancelled, UsageError

_RATE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(rows?|[kmgt]?i?b?)\s*(?:/\s*s(?:ec)?)?\s*$", re.I)
BURST = 0.05  # seconds of credit a batch may use after a pause (keeps the measured rate at the limit)


@dataclass
class RateLimit:
    """At most ``per_second`` rows (``unit == "rows"``) or bytes (``unit == "bytes"``) per second."""

    per_second: float
    unit: str  # rows | bytes
    _next: float = field(default=0.0, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.per_second <= 0 or self.unit not in ("rows", "bytes"):
            raise UsageError(f"bad --max-rate {self.per_second} {self.unit}/s", hint="e.g. 50000rows or 20MB")

    def take(self, rows: int, nbytes: int, stop: threading.Event | None = None) -> None:
        """Account ``rows`` rows of ``nbytes`` bytes just moved; sleep while the run is ahead of the
        limit. ``stop`` (set: cancelled) ends the sleep with :class:`~dbjson.errors.Cancelled`."""
        cost = (rows if self.unit == "rows" else nbytes) / self.per_second
        with self._lock:
            now = time.monotonic()
            start = max(self._next, now - BURST)
            self._next = start + cost
            wait = self._next - now
        if wait > 0:
            if stop is None:
                time.sleep(wait)
            elif stop.wait(wait):
                raise Cancelled("cancelled")

    def describe(self) -> str:
        """``50,000 rows/s`` or ``20.0 MB/s``."""
        if self.unit == "rows":
            return f"{self.per_second:,.0f} rows/s"
        return f"{self.per_second / (1 << 20):,.1f} MB/s"


def parse_rate(text: str | None) -> RateLimit | None:
    """``--max-rate``: ``"50000rows"`` (or ``50000 rows/s``) → rows per second; ``"20MB"``
    (``20MB/s``, ``512K``, ``1.5GiB``; binary units as ``--chunk-size``) → bytes per second of
    JSON lines (uncompressed); None or empty → no limit. A bare number is refused (rows or bytes?)."""
    if text is None or not text.strip():
        return None
    mt = _RATE_RE.match(text)
    unit = mt.group(2).lower() if mt else ""
    if not mt or not unit:
        raise UsageError(
            f"bad --max-rate {text!r}", hint="give rows per second (50000rows) or bytes per second (20MB, 512KB)"
        )
    number = float(mt.group(1))
    if unit.startswith("row"):
        return RateLimit(number, "rows")
    prefix = unit[0] if unit[0] in "kmgt" else ""
    return RateLimit(number * 1024 ** ("kmgt".index(prefix) + 1 if prefix else 0), "bytes")


__all__ = ["RateLimit", "parse_rate", "BURST"]
