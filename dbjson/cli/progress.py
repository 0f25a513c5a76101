"""The CLI's one progress renderer: the events of export, import, verify and migrate on stderr.

A command hands a :class:`Renderer` to the library as ``on_event`` (:mod:`dbjson.events`) and runs
the call inside ``with renderer:``, which installs the signal handlers (SIGUSR1 prints the status
line of the renderer's :class:`~dbjson.events.StatusTracker`; SIGTERM stops like Ctrl-C where the
command asks for it) and, at the end, stops the bars and restores the handlers. On a terminal it
draws bars: ``tables`` (export: one bar per table and one overall, in rows) or ``load`` (import,
migrate, verify: in the data phase one bar per table and one overall, in rows; in the verify phase
one bar over the rows checked). With ``messages`` it prints what deserves a
line: phases, retries, pre-flight findings, rejected rows, warnings (with a hint for a known
cause, once), tables that verify finds different.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from ..errors import hint_for
from ..events import (
    Event,
    Finished,
    PhaseStarted,
    PreflightFinding,
    Retry,
    RowRejected,
    RowsProgress,
    Started,
    StatusTracker,
    TableFinished,
    TableStarted,
    TableVerified,
    UnitLoaded,
    UnitProgress,
    UnitUndone,
    Warning,
    install_status_signal,
)
from .common import Output, stderr_console
from .eventlog import OUTPUT, json_line, log_line, record, verbose_line

if TYPE_CHECKING:  # rich is imported when something is drawn (see common.stderr_console)
    from rich.progress import Progress, TaskID

Bars = Literal["tables", "load"]


class Step:
    """The status line of a command that sends no events (schema-load, diff): what it is doing now
    and for how long (``status`` for :class:`Renderer`)."""

    def __init__(self, operation: str, now: str) -> None:
        self.operation, self.now, self.started = operation, now, time.monotonic()

    def status(self) -> str:
        return f"dbjson {self.operation}: {self.now} ({time.monotonic() - self.started:.0f}s)"


class Renderer:
    """Renders one command's events on stderr and answers SIGUSR1 (see the module's docstring).

    ``operation`` names the command in the status line; ``messages`` turns the message lines on;
    ``bars`` chooses the progress bars drawn on a terminal (None: none); ``hints`` adds the hint
    for a retry or a warning whose cause is known; ``sigterm`` makes SIGTERM stop like Ctrl-C;
    ``status`` replaces the tracker's status line (a command that sends no events).
    """

    def __init__(
        self,
        operation: str,
        *,
        messages: bool,
        bars: Bars | None = None,
        hints: bool = True,
        sigterm: bool = True,
        status: Callable[[], str] | None = None,
    ) -> None:
        self.tracker = StatusTracker(operation)
        quiet = OUTPUT.progress != "auto"  # --progress json|none: no bars; json: the events instead of messages
        self.messages = messages and OUTPUT.progress != "json"
        self.bars = None if quiet else bars
        self.hints = hints
        self.sigterm = sigterm
        self.status = status or self.tracker.status_line
        self.hints_shown: set[str] = set()
        self.progress: Progress | None = None
        self.overall: TaskID | None = None
        self.tasks: dict[str, TaskID] = {}
        self._committed: dict[str, int] = {}  # load bars: table → rows committed
        self._inflight: dict[str, dict[str, int]] = {}  # load bars: table → unit file → rows sent
        self._verify_unit: str | None = None  # verify bar: counts "rows" or "tables"
        self._loading_since = time.monotonic()
        self._restore: Callable[[], None] = lambda: None

    @functools.cached_property
    def con(self) -> Output:
        """The stderr console (rich is imported when something needs it: see common.Output)."""
        return stderr_console()

    @functools.cached_property
    def terminal(self) -> bool:
        """Whether bars may be drawn: some were asked for and stderr is a terminal."""
        return self.bars is not None and self.con.is_terminal

    # -- the context: signals in, bars and signals out -----------------------------------------------
    def __enter__(self) -> Renderer:
        self._restore = install_status_signal(self.print_status, sigterm=self.sigterm)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._restore()

    def print_status(self) -> None:
        """The status line on stderr (SIGUSR1), as a JSON object under --progress json; and in the log."""
        line = self.status()
        log_line("status: " + line)
        if OUTPUT.progress == "json":
            json_line({"event": "Status", "operation": self.tracker.operation, "status": line})
            return
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def stop(self) -> None:
        """Stop drawing the bars."""
        if self.progress is not None:
            self.progress.stop()
            self.progress = None

    # -- events ---------------------------------------------------------------------------------
    def __call__(self, event: Event) -> None:
        self.tracker.handle(event)
        record(self.tracker.operation, event)  # --progress json, --log-file
        if self.bars == "tables" and self.terminal:
            self._table_bars(event)
        elif self.bars == "load" and self.terminal:
            self._load_bars(event)
        if self.messages:
            self._message(event)
            extra = verbose_line(event)  # -v
            if extra is not None:
                self.con.print(extra, markup=False, highlight=False)

    def _table_bars(self, event: Event) -> None:
        """Export: a bar per table (hidden when it is done) and one overall: rows, rows/s, ETA."""
        if self.progress is None:
            if not isinstance(event, Started | TableStarted):
                return
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.progress = Progress(
                TextColumn("{task.description}", markup=False),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("rows"),
                TextColumn("{task.fields[rate]}", markup=False),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.con.rich,
                transient=False,
            )
            self.progress.start()
        p = self.progress
        if isinstance(event, Started):
            self.overall = p.add_task("total", total=event.rows or None, rate="")
        elif isinstance(event, TableStarted):
            self.tasks[event.table] = p.add_task(event.table, total=event.rows or None, rate="", visible=True)
        elif isinstance(event, RowsProgress):
            task = self.tasks.get(event.table)
            if task is not None:
                p.advance(task, event.rows)
            if self.overall is not None:
                p.advance(self.overall, event.rows)
                p.update(self.overall, rate=f"{self.tracker.rate():,.0f}/s")
        elif isinstance(event, TableFinished):
            task = self.tasks.get(event.table)
            if task is not None:
                p.update(task, completed=event.rows, total=event.rows, visible=False)
        elif isinstance(event, Finished) and self.overall is not None:
            p.update(self.overall, completed=event.rows, total=event.rows)

    def _new_progress(self, *, transient: bool) -> Progress:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        return Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[unit]}", markup=False),
            TextColumn("{task.fields[rate]}", markup=False),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self.con.rich,
            transient=transient,
        )

    def _start_bars(self, *, verify: bool, rows: int | None, tables: int | None) -> None:
        self.stop()
        self.tasks, self._committed, self._inflight = {}, {}, {}
        self.progress = p = self._new_progress(transient=verify)
        total, unit = (rows, "rows") if rows is not None or not verify else (tables, "tables")
        self._verify_unit = unit if verify else None
        self._loading_since = time.monotonic()
        self.overall = p.add_task("verify" if verify else "total", total=total or None, unit=unit, rate="")
        p.start()

    def _load_bars(self, event: Event) -> None:
        """Import, migrate: in the data phase a bar per table in rows (hidden when its last unit is
        committed) and one overall; in the verify phase (and ``dbjson verify``) one bar over the
        rows (or tables) checked. Rows count as they are sent (:class:`UnitProgress`) and are
        replaced by the committed count when the unit commits."""
        if isinstance(event, Started) and event.operation == "verify":
            self._start_bars(verify=True, rows=event.rows, tables=event.tables)
            return
        if isinstance(event, PhaseStarted):
            self.stop()
            if event.phase == "verify":
                self._start_bars(verify=True, rows=event.rows, tables=event.tables)
            elif event.phase == "data" and event.units:
                self._start_bars(verify=False, rows=event.rows, tables=None)
            return
        p = self.progress
        if p is None or self.overall is None:
            return
        if isinstance(event, TableVerified) and self._verify_unit is not None:
            p.advance(self.overall, event.rows if self._verify_unit == "rows" else 1)
            return
        if isinstance(event, TableStarted):
            self.tasks[event.table] = p.add_task(event.table, total=event.rows or None, unit="rows", rate="")
            return
        if isinstance(event, UnitProgress):
            self._inflight.setdefault(event.table, {})[event.file] = event.rows
        elif isinstance(event, UnitLoaded | UnitUndone):
            self._inflight.get(event.table, {}).pop(event.file, None)
            sign = 1 if isinstance(event, UnitLoaded) else -1
            self._committed[event.table] = self._committed.get(event.table, 0) + sign * event.rows
        elif isinstance(event, TableFinished):
            task = self.tasks.get(event.table)
            if task is not None:
                p.update(task, completed=event.rows, total=event.rows, visible=False)
            return
        else:
            return
        table = event.table
        done = self._committed.get(table, 0) + sum(self._inflight.get(table, {}).values())
        task = self.tasks.get(table)
        if task is not None:
            p.update(task, completed=done)
        overall = sum(self._committed.values()) + sum(sum(f.values()) for f in self._inflight.values())
        elapsed = time.monotonic() - self._loading_since
        p.update(self.overall, completed=overall, rate=f"{overall / elapsed:,.0f}/s" if elapsed > 0 else "")

    def _message(self, event: Event) -> None:
        if isinstance(event, PhaseStarted):
            if event.message:
                self._say("", event.message)
        elif isinstance(event, Retry):
            self._say("retry: ", event.message, hint=True)
        elif isinstance(event, PreflightFinding):
            self._say("pre-flight: ", event.message)
        elif isinstance(event, RowRejected):
            self._say("rejected: ", event.message)
        elif isinstance(event, Warning):
            self._say("warning: ", event.message, hint=True, style="yellow")
        elif isinstance(event, TableVerified) and event.problem is not None:
            self._say("verify: ", event.problem)

    def _say(self, label: str, message: str, *, hint: bool = False, style: str = "") -> None:
        self.con.print_styled(label, style, message)
        known = hint_for(message) if hint and self.hints else None
        if known and known not in self.hints_shown:  # e.g. LOCAL INFILE disabled: once, not per unit
            self.hints_shown.add(known)
            self.con.print(f"hint: {known}", markup=False, highlight=False)


def phase_times(rows: int, phases: dict[str, float]) -> str:
    """`` (data 8.9s at 112,000 rows/s, verify 146.1s, ...)``: where an import's time went (its
    total includes every phase), for the summary line; empty without phases."""
    parts = []
    for phase, seconds in phases.items():
        part = f"{phase} {seconds:.1f}s"
        if phase == "data" and seconds > 0:
            part += f" at {rows / seconds:,.0f} rows/s"
        parts.append(part)
    return f" ({', '.join(parts)})" if parts else ""


__all__ = ["Renderer", "Bars", "Step", "phase_times"]
