"""The export command (import and verify live in ``load.py``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer

from .. import progress as ev
from ..errors import UsageError
from .common import app, choices, run, stderr_console

if TYPE_CHECKING:
    from rich.progress import TaskID


class ProgressView:
    """Rich progress bars on stderr: one per table and one overall (rows, rows/s, ETA)."""

    def __init__(self) -> None:
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
            console=stderr_console(),
            transient=False,
        )
        self.overall: TaskID | None = None
        self.tasks: dict[str, TaskID] = {}
        self.tracker = ev.StatusTracker()

    def __enter__(self) -> ProgressView:
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def handle(self, event: ev.Event) -> None:
        self.tracker.handle(event)
        p = self.progress
        if isinstance(event, ev.Started):
            self.overall = p.add_task("total", total=event.rows or None, rate="")
        elif isinstance(event, ev.TableStarted):
            self.tasks[event.table] = p.add_task(event.table, total=event.rows or None, rate="", visible=True)
        elif isinstance(event, ev.RowsProgress):
            task = self.tasks.get(event.table)
            if task is not None:
                p.advance(task, event.rows)
            if self.overall is not None:
                p.advance(self.overall, event.rows)
                p.update(self.overall, rate=f"{self.tracker.rate():,.0f}/s")
        elif isinstance(event, ev.TableFinished):
            task = self.tasks.get(event.table)
            if task is not None:
                p.update(task, completed=event.rows, total=event.rows, visible=False)
        elif isinstance(event, ev.Finished) and self.overall is not None:
            p.update(self.overall, completed=event.rows, total=event.rows)
        elif isinstance(event, ev.Warning):
            p.console.print(f"[yellow]warning:[/] {event.message}", markup=True, highlight=False)


@app.command("export")
def export_cmd(
    url: Annotated[str, typer.Argument(help="Source database URL (or DBJSON_URL).", envvar="DBJSON_URL")],
    output: Annotated[
        str, typer.Option("-o", "--output", help="Output directory; '-' with --table streams that table to stdout.")
    ],
    threads: Annotated[
        int | None,
        typer.Option("--threads", "-j", help="Worker threads, one connection each (default: CPU count, at least 2)."),
    ] = None,
    tables: Annotated[
        list[str] | None,
        typer.Option("--tables", "-t", help="Only tables matching GLOB (repeatable); matches table or schema.table."),
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", "-x", help="Skip tables matching GLOB (repeatable).")
    ] = None,
    where: Annotated[
        list[str] | None,
        typer.Option("--where", "-w", help="TABLE:CONDITION, an SQL filter in the source dialect (repeatable)."),
    ] = None,
    compress: Annotated[
        str,
        typer.Option("--compress", "-z", autocompletion=choices("zstd", "gzip", "none"), help="zstd, gzip or none."),
    ] = "none",
    chunk_size: Annotated[
        str | None,
        typer.Option("--chunk-size", help="Split tables into files of ROWS (500000) or BYTES (64MB, uncompressed)."),
    ] = None,
    table: Annotated[
        str | None, typer.Option("--table", help="Export only this table (with -o - : to stdout as JSON lines).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print a machine-readable report on stdout.")] = False,
) -> None:
    """Export rows to canonical JSON lines: parallel, one consistent snapshot, with a manifest.

    Writes DIR/schema.json, DIR/data/<schema>.<table>[.<chunk>].jsonl[.zst|.gz] and, last,
    DIR/manifest.json (row counts, sizes, file hashes and content checksums). SIGUSR1 prints a status
    line; Ctrl-C stops every worker and leaves no complete-looking partial file.

    Examples:

      dbjson export postgresql://postgres@127.0.0.1/shop -o shop-export --compress zstd

      dbjson export mysql://root@127.0.0.1/shop -o out --threads 8 --chunk-size 64MB --exclude 'tmp_*'

      dbjson export sqlite:///shop.db --table orders -o - | head
    """
    from ..export import export_database, export_table, parse_chunk_size, parse_where

    if output == "-":

        def stream() -> None:
            if not table:
                raise UsageError("-o - needs --table T (a whole database is written to a directory)")
            conds = [c for name, c in parse_where(where or []).items() if name in (table, table.split(".")[-1])]
            try:
                export_table(url, table, sys.stdout.buffer, where=" AND ".join(f"({c})" for c in conds) or None)
            except BrokenPipeError:  # the reader went away (| head): stop quietly, like other tools
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())

        run(stream)
        return

    def go() -> Any:
        chunk_rows, chunk_bytes = parse_chunk_size(chunk_size) if chunk_size else (None, None)
        conds = parse_where(where or [])
        selected = [table] if table else (tables or [])
        kwargs: dict[str, Any] = dict(
            threads=threads,
            tables=selected,
            exclude=exclude or (),
            where=conds,
            compress=compress,
            chunk_rows=chunk_rows,
            chunk_bytes=chunk_bytes,
        )
        show_bars = not quiet and not json_out and sys.stderr.isatty()
        view = ProgressView() if show_bars else None
        tracker = view.tracker if view else ev.StatusTracker()
        restore = ev.install_status_signal(lambda: stderr_console().print(tracker.status_line(), markup=False))
        try:
            if view is not None:
                with view:
                    return export_database(url, Path(output), on_event=view.handle, **kwargs)

            def plain(event: ev.Event) -> None:
                tracker.handle(event)
                if isinstance(event, ev.Warning) and not json_out:  # a console (rich) only when needed
                    stderr_console().print(f"warning: {event.message}", markup=False)

            return export_database(url, Path(output), on_event=plain, **kwargs)
        finally:
            restore()

    report = run(go)
    if json_out:
        sys.stdout.write(
            orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode()
        )
    elif not quiet:
        rate = f", {report.rows / report.seconds:,.0f} rows/s" if report.seconds > 0 else ""
        snap = report.manifest.snapshot
        stderr_console().print(
            f"exported {report.rows:,} rows of {len(report.manifest.tables)} tables to {output} "
            f"in {report.seconds:.1f}s{rate} (snapshot: {snap.mode}{'' if snap.consistent else ', NOT consistent across workers'})",
            markup=False,
        )
