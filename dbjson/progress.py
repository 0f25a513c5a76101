"""Progress events shared by export and import, and a thread-safe status tracker.

The library never prints: long operations call an ``on_event`` callback with the events below
(from worker threads too, so callbacks must be thread-safe and quick). :class:`StatusTracker`
consumes events and answers "where are we" (the CLI's progress bars and the SIGUSR1 status line).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any


@dataclass(frozen=True)
class Started:
    """The operation starts: ``tables`` to process, ``rows`` expected in total (None if unknown)."""

    operation: str  # export | import
    tables: int
    rows: int | None
    threads: int


@dataclass(frozen=True)
class TableStarted:
    table: str  # schema.table
    units: int  # files / key-range chunks
    rows: int | None  # expected rows (None if unknown)


@dataclass(frozen=True)
class RowsProgress:
    """``rows`` more rows of ``table`` are done (sent every few thousand rows)."""

    table: str
    rows: int
    bytes: int = 0


@dataclass(frozen=True)
class ChunkDone:
    table: str
    file: str
    rows: int
    bytes: int


@dataclass(frozen=True)
class TableFinished:
    table: str
    rows: int
    checksum: str | None = None


@dataclass(frozen=True)
class Warning:  # noqa: A001 - an event name, not the builtin category
    message: str
    table: str | None = None


@dataclass(frozen=True)
class Finished:
    """The operation finished (``ok`` False after an error or a cancellation)."""

    ok: bool
    rows: int
    seconds: float
    report: Any = None


Event = Started | TableStarted | RowsProgress | ChunkDone | TableFinished | Warning | Finished
EventHandler = Callable[[Event], None]


@dataclass
class TableStatus:
    name: str
    rows_expected: int | None = None
    rows_done: int = 0
    units: int = 0
    units_done: int = 0
    finished: bool = False


@dataclass
class StatusTracker:
    """Keeps totals from events (thread-safe); ``status_line()`` summarizes them."""

    operation: str = ""
    started_at: float = field(default_factory=time.monotonic)
    rows_expected: int | None = None
    rows_done: int = 0
    bytes_done: int = 0
    tables: dict[str, TableStatus] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __call__(self, event: Event) -> None:
        self.handle(event)

    def handle(self, event: Event) -> None:
        with self._lock:
            if isinstance(event, Started):
                self.operation = event.operation
                self.rows_expected = event.rows
                self.started_at = time.monotonic()
            elif isinstance(event, TableStarted):
                self.tables[event.table] = TableStatus(event.table, event.rows, units=event.units)
            elif isinstance(event, RowsProgress):
                st = self.tables.setdefault(event.table, TableStatus(event.table))
                st.rows_done += event.rows
                self.rows_done += event.rows
                self.bytes_done += event.bytes
            elif isinstance(event, ChunkDone):
                self.tables.setdefault(event.table, TableStatus(event.table)).units_done += 1
            elif isinstance(event, TableFinished):
                self.tables.setdefault(event.table, TableStatus(event.table)).finished = True
            elif isinstance(event, Warning):
                self.warnings.append(event.message)

    def rate(self) -> float:
        """Rows per second so far."""
        elapsed = time.monotonic() - self.started_at
        return self.rows_done / elapsed if elapsed > 0 else 0.0

    def eta(self) -> float | None:
        """Seconds left (None when unknown)."""
        r = self.rate()
        if not self.rows_expected or r <= 0:
            return None
        return max(0.0, (self.rows_expected - self.rows_done) / r)

    def status_line(self) -> str:
        """One line: rows done/expected, rate, tables done, active tables, ETA."""
        with self._lock:
            done = sum(1 for t in self.tables.values() if t.finished)
            active = [t.name for t in self.tables.values() if not t.finished and (t.rows_done or t.units_done)]
            total = f"/{self.rows_expected}" if self.rows_expected is not None else ""
            rows_done = self.rows_done
            ntables = len(self.tables)
        eta = self.eta()
        parts = [
            f"{self.operation or 'progress'}: {rows_done}{total} rows",
            f"{self.rate():,.0f} rows/s",
            f"{done}/{ntables} tables done",
        ]
        if active:
            parts.append("active: " + ", ".join(active[:5]) + (" ..." if len(active) > 5 else ""))
        if eta is not None:
            parts.append(f"ETA {eta:,.0f}s")
        return "; ".join(parts)


def install_status_signal(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback`` on SIGUSR1 (main thread only; a no-op where the signal does not exist).

    Returns a function that restores the previous handler.
    """
    sig = getattr(signal, "SIGUSR1", None)
    if sig is None or threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(_signum: int, _frame: FrameType | None) -> None:
        callback()

    previous = signal.signal(sig, handler)

    def restore() -> None:
        signal.signal(sig, previous)

    return restore


__all__ = [
    "Started",
    "TableStarted",
    "RowsProgress",
    "ChunkDone",
    "TableFinished",
    "Warning",
    "Finished",
    "Event",
    "EventHandler",
    "StatusTracker",
    "TableStatus",
    "install_status_signal",
]
