"""The CLI's one progress renderer: the events of export, import, verify and migrate on stderr.

A command hands a :class:`Renderer` to the library as ``on_event`` (:mod:`dbjson.events`) and runs
the call inside ``with renderer:``, which installs the signal handlers (SIGUSR1 prints the status
line of the renderer's :class:`~dbjson.events.StatusTracker`; SIGTERM stops like Ctrl-C where the
command asks for it) and, at the end, stops the bars and restores the handlers. On a terminal it
draws bars: ``tables`` (export: one bar per table and one overall, in rows) or ``bytes`` (import,
migrate: one bar over the bytes of the data phase). With ``messages`` it prints what deserves a
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
    Warning,
    install_status_signal,
)
from .common import stderr_console
from .eventlog import OUTPUT, json_line, log_line, record, verbose_line

if TYPE_CHECKING:  # rich is imported when something is drawn (see common.stderr_console)
    from rich.console import Console
    from rich.progress import Progress, TaskID

Bars = Literal["tables", "bytes"]


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
        self._restore: Callable[[], None] = lambda: None

    @functools.cached_property
    def con(self) -> Console:
        """The stderr console, made (and rich imported) on first use."""
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
        elif self.bars == "bytes" and self.terminal:
            self._bytes_bar(event)
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
                console=self.con,
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

    def _bytes_bar(self, event: Event) -> None:
        """Import, migrate: one bar over the data phase's bytes, gone when the next phase starts."""
        if isinstance(event, PhaseStarted) and event.units is not None:
            from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

            self.stop()
            self.progress = Progress(
                "rows", BarColumn(), DownloadColumn(), TimeRemainingColumn(), console=self.con, transient=True
            )
            self.overall = self.progress.add_task("load", total=event.bytes or None)
            self.progress.start()
        elif isinstance(event, PhaseStarted):
            self.stop()
        elif isinstance(event, UnitLoaded) and self.progress is not None and self.overall is not None:
            self.progress.advance(self.overall, event.bytes)

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
        from rich.text import Text

        self.con.print(Text.assemble((label, style), message))
        known = hint_for(message) if hint and self.hints else None
        if known and known not in self.hints_shown:  # e.g. LOCAL INFILE disabled: once, not per unit
            self.hints_shown.add(known)
            self.con.print(f"hint: {known}", markup=False, highlight=False)


__all__ = ["Renderer", "Bars", "Step"]
