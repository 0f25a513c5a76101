"""``dbjson import`` and ``dbjson verify``."""

from __future__ import annotations

import functools
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Annotated, Any

import orjson
import typer

from ..errors import UsageError, hint_for
from .common import app, choices, fail, run, stderr_console, stdout_console


def _on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _install_signals(status: Any) -> None:
    """SIGTERM stops like Ctrl-C; SIGUSR1 prints a status line on stderr."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    if hasattr(signal, "SIGUSR1"):

        def usr1(_signum: int, _frame: FrameType | None) -> None:
            sys.stderr.write(status() + "\n")
            sys.stderr.flush()

        signal.signal(signal.SIGUSR1, usr1)


class _Printer:
    """Renders import events on stderr: messages, and a progress bar over the data bytes on a TTY."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.progress: Any = None
        self.task: Any = None
        self.hints_shown: set[str] = set()

    @functools.cached_property
    def con(self) -> Any:
        """The stderr console, made (and rich imported) on first use: never under --quiet."""
        return stderr_console()

    def __call__(self, ev: Any) -> None:
        if self.quiet:
            return
        if ev.kind == "phase" and "units" in ev.data and self.con.is_terminal:
            from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

            self.progress = Progress(
                "rows", BarColumn(), DownloadColumn(), TimeRemainingColumn(), console=self.con, transient=True
            )
            self.task = self.progress.add_task("load", total=ev.data.get("bytes") or None)
            self.progress.start()
        if ev.kind == "unit" and self.progress is not None:
            self.progress.advance(self.task, ev.bytes)
            return
        if ev.kind == "phase" and self.progress is not None and "units" not in ev.data:
            self.stop()
        if ev.kind in ("phase", "retry", "finding", "reject", "warning"):
            label = {
                "phase": "",
                "retry": "retry: ",
                "finding": "pre-flight: ",
                "reject": "rejected: ",
                "warning": "warning: ",
            }[ev.kind]
            self.con.print(f"{label}{ev.message}", markup=False, highlight=False)
            hint = hint_for(ev.message) if ev.kind in ("retry", "warning") else None
            if hint and hint not in self.hints_shown:  # e.g. LOCAL INFILE disabled: once, not per unit
                self.hints_shown.add(hint)
                self.con.print(f"hint: {hint}", markup=False, highlight=False)
        elif ev.kind == "verify" and ev.message != "ok":
            self.con.print(f"verify: {ev.message}", markup=False)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


@app.command("import")
def import_cmd(
    directory: Annotated[str, typer.Argument(help="The export directory (or '-' with --table: JSON lines on stdin).")],
    url: Annotated[
        str,
        typer.Argument(
            help="Target database URL (mysql://, mariadb://, postgresql://, sqlite:///).", envvar="DBJSON_URL"
        ),
    ],
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads", "-j", help="Parallel loaders, one connection each (default: cores, at most 8).", min=1
        ),
    ] = None,
    tables: Annotated[
        list[str] | None, typer.Option("--tables", "-t", help="Only tables matching GLOB (repeatable).")
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", "-x", help="Skip tables matching GLOB (repeatable).")
    ] = None,
    schema_only: Annotated[bool, typer.Option("--schema-only", help="Create the schema, load no rows.")] = False,
    data_only: Annotated[bool, typer.Option("--data-only", help="Load rows into existing tables; no DDL.")] = False,
    if_exists: Annotated[
        str,
        typer.Option(
            "--if-exists",
            autocompletion=choices("fail", "skip", "truncate", "replace"),
            help="When a target table exists: fail, skip, truncate or replace (drops and recreates the tables and the views, types and sequences the document defines; never with CASCADE).",
        ),
    ] = "fail",
    create: Annotated[
        bool,
        typer.Option(
            "--create", help="Create the target database first if it does not exist (as schema-load --create)."
        ),
    ] = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue an interrupted import: load only what the journal lacks.")
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail when the schema translation would lose anything.")
    ] = False,
    zero_dates: Annotated[
        str,
        typer.Option(
            "--zero-dates",
            autocompletion=choices("null", "error"),
            help="Zero dates for targets that cannot hold them: null or error.",
        ),
    ] = "null",
    nul: Annotated[
        str,
        typer.Option(
            "--nul",
            autocompletion=choices("error", "strip", "replace"),
            help="NUL characters (U+0000) for targets that cannot hold them (PostgreSQL): error, strip or replace (U+FFFD).",
        ),
    ] = "error",
    set_values: Annotated[
        list[str] | None, typer.Option("--set", help="TABLE.COL=VALUE: a fixed value for a column.")
    ] = None,
    set_sql: Annotated[
        list[str] | None,
        typer.Option("--set-sql", help="TABLE.COL=EXPR: an SQL expression evaluated by the target."),
    ] = None,
    increment: Annotated[
        list[str] | None, typer.Option("--increment", help="TABLE.COL=START: a counter (START, START+1, ...).")
    ] = None,
    rename: Annotated[
        list[str] | None, typer.Option("--rename", help="TABLE.OLD=NEW: load column OLD into NEW.")
    ] = None,
    max_errors: Annotated[
        int,
        typer.Option(
            "--max-errors", help="Reject up to N bad rows to DIR/rejects/<table>.jsonl instead of stopping.", min=0
        ),
    ] = 0,
    table: Annotated[
        str | None, typer.Option("--table", help="With DIR '-': the existing target table the stdin lines go to.")
    ] = None,
    no_verify: Annotated[
        bool, typer.Option("--no-verify", help="Skip the count/checksum verification after loading.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON on stdout.")] = False,
) -> None:
    """Load an export directory into a database: DDL, rows in parallel, indexes and keys, verify.

    Examples:

      dbjson import out/ postgresql://postgres@127.0.0.1/shop --create --threads 4

      dbjson import out/ mysql://root@127.0.0.1/shop --resume

      dbjson import out/ sqlite:///shop.db --exclude 'audit_*' --max-errors 100

      zstd -dc out/data/public.users.jsonl.zst | dbjson import --table users - mysql://root@127.0.0.1/shop
    """
    from ..importer import Importer, import_database, import_table_stream

    printer = _Printer(quiet or json_out)
    if directory == "-":
        if not table:
            fail(UsageError("reading from stdin ('-') needs --table TABLE"))
        _install_signals(lambda: "dbjson import: reading stdin")
        report = run(
            lambda: import_table_stream(
                sys.stdin.buffer,
                url,
                table or "",
                zero_dates=zero_dates,
                nul=nul,
                set_values=set_values or (),
                set_sql=set_sql or (),
                increments=increment or (),
                renames=rename or (),
            )
        )
    else:
        if table:
            fail(UsageError("--table goes with '-' (stdin) as the directory"))
        holder: dict[str, Importer] = {}

        def hook(imp: Importer) -> None:
            holder["imp"] = imp

        _install_signals(lambda: holder["imp"].status_line() if "imp" in holder else "dbjson import: starting")
        if create:
            from ..schemaload import create_database

            run(lambda: create_database(url))
        try:
            report = run(
                lambda: import_database(
                    Path(directory),
                    url,
                    threads=threads,
                    tables=tables or (),
                    exclude=exclude or (),
                    schema_only=schema_only,
                    data_only=data_only,
                    if_exists=if_exists,
                    resume=resume,
                    strict=strict,
                    zero_dates=zero_dates,
                    nul=nul,
                    set_values=set_values or (),
                    set_sql=set_sql or (),
                    increments=increment or (),
                    renames=rename or (),
                    max_errors=max_errors,
                    verify=not no_verify,
                    on_event=printer,
                    importer_hook=hook,
                )
            )
        finally:
            printer.stop()
    if json_out:
        sys.stdout.write(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
        return
    if not quiet:
        rate = report.rows / report.seconds if report.seconds > 0 else 0.0
        msg = f"imported {report.rows} rows into {len(report.tables)} table(s) in {report.seconds:.1f}s ({rate:,.0f} rows/s)"
        if report.rejected:
            msg += f"; {report.rejected} rejected row(s) in {report.rejects_dir}"
        if report.verify is not None:
            msg += "; verified"
        stderr_console().print(msg, markup=False)


@app.command("verify")
def verify_cmd(
    directory: Annotated[Path, typer.Argument(help="The export directory.")],
    url: Annotated[str, typer.Argument(help="The database that was loaded from it.", envvar="DBJSON_URL")],
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            "-j",
            help="Tables checked in parallel, one connection each (default: cores, at most 8).",
            min=1,
        ),
    ] = None,
    tables: Annotated[
        list[str] | None, typer.Option("--tables", "-t", help="Only tables matching GLOB (repeatable).")
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", "-x", help="Skip tables matching GLOB (repeatable).")
    ] = None,
    rename: Annotated[
        list[str] | None, typer.Option("--rename", help="The --rename options used by the import.")
    ] = None,
    nul: Annotated[
        str | None,
        typer.Option(
            "--nul",
            autocompletion=choices("error", "strip", "replace"),
            help="The --nul policy of the import (default: read from the import journal; unknown: NUL and U+FFFD ignored in those columns).",
        ),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON on stdout.")] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="No per-table lines: the exit code (and the error on stderr) tells whether everything matches.",
        ),
    ] = False,
) -> None:
    """Compare a database with an export: row counts and content checksums per table.

    Exit code 0 when everything matches, 7 when a table differs.

    Example:

      dbjson verify out/ postgresql://postgres@127.0.0.1/shop
    """
    from ..verify import verify, verify_error

    signal.signal(signal.SIGTERM, _on_sigterm)
    report = run(
        lambda: verify(
            directory, url, tables=tables or (), exclude=exclude or (), threads=threads, renames=rename or (), nul=nul
        )
    )
    if json_out:
        sys.stdout.write(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
    elif not quiet:
        out = stdout_console()
        for t in report.tables:
            mark = "ok" if t.ok else "MISMATCH"
            out.print(
                f"{mark:8} {t.table}: {t.rows} rows" + (f", checksum {t.checksum}" if t.checksum else ""), markup=False
            )
    if not report.ok:
        fail(verify_error(report))
