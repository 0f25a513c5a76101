"""The progress vocabulary of every long command (export, import, verify, migrate), and a status tracker.

The library never prints: long operations call an ``on_event`` callback with the frozen events
below (from worker threads too, so callbacks must be thread-safe and quick). Which command sends
which (docs/library.md):

* every one: :class:`Started` first (after :class:`TableStarted` for export), :class:`Warning` when
  something deserves attention, :class:`Finished` when it succeeded;
* export: :class:`TableStarted`, :class:`RowsProgress`, :class:`ChunkDone`, :class:`TableFinished`;
* import and migrate: :class:`PhaseStarted` per phase, :class:`PreflightFinding`,
  :class:`TableStarted` per table at the data phase, :class:`UnitProgress` while a unit loads,
  :class:`UnitLoaded` per data file committed (:class:`UnitUndone` in the rare case one must be
  loaded again), :class:`TableFinished`, :class:`Retry`, :class:`RowRejected`, and the verify's;
* verify (also the last phase of import and migrate): :class:`TableVerified` per table.

:class:`StatusTracker` consumes events and answers "where are we" (the CLI's progress bars and
its SIGUSR1 status line); :func:`install_status_signal` is the one place that installs the signal
handlers.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from types import FrameType
from typing import Any


@dataclass(frozen=True)
class Started:
    """The operation starts: ``tables`` to process, ``rows`` expected in total (None if unknown)."""

    operation: str  # export | import | migrate | verify
    tables: int
    rows: int | None
    threads: int


@dataclass(frozen=True)
class TableStarted:
    """Export: a table is planned into ``units`` files (key-range chunks), ``rows`` expected; import,
    migrate: at the start of the data phase, a table with ``units`` units still to load holding
    ``rows`` rows (None: unknown)."""

    table: str  # schema.table
    units: int
    rows: int | None  # None if unknown


@dataclass(frozen=True)
class RowsProgress:
    """Export: ``rows`` more rows of ``table`` are done (sent every few thousand rows)."""

    table: str
    rows: int
    bytes: int = 0


@dataclass(frozen=True)
class ChunkDone:
    """Export: one data file of ``table`` is written."""

    table: str
    file: str
    rows: int
    bytes: int


@dataclass(frozen=True)
class TableFinished:
    """Every row of ``table`` is exported (with its content ``checksum``) or loaded (import: no checksum)."""

    table: str
    rows: int
    checksum: str | None = None


@dataclass(frozen=True)
class Warning:  # noqa: A001 - an event name, not the builtin category
    """Something deserves attention (a snapshot that is not consistent, a statement skipped...)."""

    message: str
    table: str | None = None


@dataclass(frozen=True)
class Finished:
    """The operation finished: ``ok`` (verify: whether everything matched), the ``rows`` it moved or
    checked, and ``report``, what the call returns."""

    ok: bool
    rows: int
    seconds: float
    report: Any = None


@dataclass(frozen=True)
class PhaseStarted:
    """Import, migrate: a phase starts. ``message`` says it to a person (empty: a phase the CLI does
    not announce). The data phase carries its totals: ``units`` data files to load, ``bytes`` their
    size, ``resumed`` units an interrupted run already loaded."""

    phase: str  # snapshot (migrate) | pre-data | pre-flight | data | post-data | verify
    message: str = ""
    units: int | None = None
    bytes: int | None = None
    resumed: int = 0
    tables: int | None = None  # verify: the tables it checks
    rows: int | None = None  # data: the rows of the units to load; verify: the rows it reads (None: unknown)


@dataclass(frozen=True)
class UnitLoaded:
    """Import, migrate: one unit (a data file, or a streamed key range) is committed into the target."""

    table: str
    file: str
    rows: int
    bytes: int


@dataclass(frozen=True)
class UnitProgress:
    """Import, migrate: ``rows`` of the unit ``file`` of ``table`` read and sent to the target so far
    (a running total, sent a few times a second; it starts again from 0 when the unit is retried;
    its :class:`UnitLoaded` replaces it with the committed count)."""

    table: str
    file: str
    rows: int


@dataclass(frozen=True)
class UnitUndone:
    """Import, migrate: a unit counted as loaded will be loaded again (its table was emptied to settle
    a commit whose outcome the connection lost): its rows no longer count."""

    table: str
    file: str
    rows: int
    bytes: int


@dataclass(frozen=True)
class Retry:
    """Import, migrate: a transient failure (a lost connection, a lock timeout) is being retried."""

    message: str
    table: str | None = None


@dataclass(frozen=True)
class RowRejected:
    """Import: a row the target refused went to the rejects file (``max_errors``)."""

    message: str
    table: str


@dataclass(frozen=True)
class PreflightFinding:
    """Import, migrate: the pre-flight found values the target cannot hold as they are."""

    message: str
    table: str
    column: str
    severity: str  # error | warning


@dataclass(frozen=True)
class TableVerified:
    """Verify: one table checked; ``problem`` is None when its count and checksum match."""

    table: str
    rows: int
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


Event = (
    Started
    | TableStarted
    | RowsProgress
    | ChunkDone
    | TableFinished
    | Warning
    | Finished
    | PhaseStarted
    | UnitLoaded
    | UnitProgress
    | UnitUndone
    | Retry
    | RowRejected
    | PreflightFinding
    | TableVerified
)
EventHandler = Callable[[Event], None]


@dataclass
class TableStatus:
    """What the tracker knows of one table."""

    name: str
    rows_expected: int | None = None
    rows_done: int = 0
    units: int = 0
    units_done: int = 0
    finished: bool = False


@dataclass
class StatusTracker:
    """Keeps totals from any command's events (thread-safe); ``status_line()`` summarizes them."""

    operation: str = ""
    started_at: float = field(default_factory=time.monotonic)
    phase: str | None = None  # import, migrate: the current phase (None: not started yet)
    tables_expected: int = 0
    rows_expected: int | None = None
    rows_done: int = 0
    bytes_done: int = 0
    units: int = 0  # import, migrate: data files to load, those of an interrupted run included
    units_done: int = 0
    rejected: int = 0
    inflight: dict[str, int] = field(default_factory=dict)  # import, migrate: unit file → rows sent, not committed
    verified: int = 0  # tables checked
    mismatched: int = 0
    tables: dict[str, TableStatus] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # Reentrant: the SIGUSR1 handler asks for the status line in the main thread, maybe while that
    # thread is in the middle of handle().
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def __call__(self, event: Event) -> None:
        self.handle(event)

    def handle(self, event: Event) -> None:
        """Count one event in."""
        with self._lock:
            if isinstance(event, Started):
                self.operation = event.operation
                self.phase = "start"
                self.tables_expected = event.tables
                self.rows_expected = event.rows
                self.started_at = time.monotonic()
            elif isinstance(event, TableStarted):
                self.tables[event.table] = TableStatus(event.table, event.rows, units=event.units)
            elif isinstance(event, RowsProgress):
                self._table(event.table).rows_done += event.rows
                self.rows_done += event.rows
                self.bytes_done += event.bytes
            elif isinstance(event, ChunkDone):
                self._table(event.table).units_done += 1
            elif isinstance(event, UnitProgress):
                self.inflight[event.file] = event.rows
            elif isinstance(event, UnitLoaded | UnitUndone):
                self.inflight.pop(event.file, None)
                sign = 1 if isinstance(event, UnitLoaded) else -1
                st = self._table(event.table)
                st.rows_done += sign * event.rows
                st.units_done += sign
                self.rows_done += sign * event.rows
                self.bytes_done += sign * event.bytes
                self.units_done += sign
            elif isinstance(event, TableFinished):
                self._table(event.table).finished = True
            elif isinstance(event, PhaseStarted):
                self.phase = event.phase
                if event.units is not None:
                    self.units = event.units + event.resumed
                    self.units_done = event.resumed
            elif isinstance(event, RowRejected):
                self.rejected += 1
            elif isinstance(event, TableVerified):
                self.verified += 1
                self.mismatched += not event.ok
            elif isinstance(event, Warning):
                self.warnings.append(event.message)
            elif isinstance(event, Finished):
                self.phase = "done"

    def _table(self, name: str) -> TableStatus:
        return self.tables.setdefault(name, TableStatus(name))

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
        """One line. Export: rows done/expected, rate, tables done, active tables, ETA; import and
        migrate: phase, units, rows, rejected rows; verify: tables checked."""
        if self.operation in ("import", "migrate", "verify"):
            return self._load_line()
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

    def _load_line(self) -> str:
        with self._lock:
            head = f"dbjson {self.operation}: "
            if self.phase is None:
                return head + "starting"
            if self.operation == "verify":
                return head + f"{self.verified}/{self.tables_expected} tables checked, {self.mismatched} mismatched"
            loading = sum(self.inflight.values()) if self.phase == "data" else 0
            return head + (
                f"phase {self.phase}, {self.units_done}/{self.units} units, "
                f"{self.rows_done + loading} rows, {self.rejected} rejected"
            )


def event_dict(event: Event) -> dict[str, Any]:
    """An event as JSON data: ``{"event": "TableStarted", "table": ..., ...}`` (its fields; a report
    attached to :class:`Finished` as its ``to_dict()``). What ``dbjson --progress json`` writes."""
    out: dict[str, Any] = {"event": type(event).__name__}
    for f in fields(event):
        value = getattr(event, f.name)
        if hasattr(value, "to_dict"):
            value = value.to_dict()
        elif value is not None and not isinstance(value, str | int | float | bool | list | tuple | dict):
            continue
        out[f.name] = value
    if isinstance(event, TableVerified):
        out["ok"] = event.ok
    return out


def _interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def install_status_signal(callback: Callable[[], None], *, sigterm: bool = False) -> Callable[[], None]:
    """Call ``callback`` on SIGUSR1; with ``sigterm``, SIGTERM also stops the program like Ctrl-C
    (``KeyboardInterrupt`` in the main thread). Main thread only (elsewhere a no-op); a signal the
    platform lacks is left out.

    Returns a function that restores the previous handlers.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def status(_signum: int, _frame: FrameType | None) -> None:
        callback()

    wanted: list[tuple[int, Callable[[int, FrameType | None], None]]] = []
    usr1 = getattr(signal, "SIGUSR1", None)
    if usr1 is not None:
        wanted.append((usr1, status))
    if sigterm:
        wanted.append((signal.SIGTERM, _interrupt))
    previous = [(sig, signal.signal(sig, handler)) for sig, handler in wanted]

    def restore() -> None:
        for sig, handler in reversed(previous):
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)

    return restore


__all__ = [
    "Started",
    "TableStarted",
    "RowsProgress",
    "ChunkDone",
    "TableFinished",
    "Warning",
    "Finished",
    "PhaseStarted",
    "UnitLoaded",
    "UnitProgress",
    "UnitUndone",
    "Retry",
    "RowRejected",
    "PreflightFinding",
    "TableVerified",
    "Event",
    "EventHandler",
    "StatusTracker",
    "TableStatus",
    "install_status_signal",
    "event_dict",
]
