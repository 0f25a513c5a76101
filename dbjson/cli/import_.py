"""``dbjson import``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from ..errors import UsageError
from .common import CastOption, GrantsOption, MaxRateOption, PrivilegesOption, app, choices, fail, run, stderr_console
from .progress import Renderer, phase_times


@app.command("import")
def import_cmd(
    directory: Annotated[
        str,
        typer.Argument(
            help="The export directory or object storage URL (s3://bucket/prefix; or '-' with --table: JSON lines on stdin)."
        ),
    ],
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
    untrusted: Annotated[
        bool,
        typer.Option(
            "--untrusted",
            help="Load a document from an untrusted source without running its code: no routines, triggers, events; views and expressions only with safe functions; materialized views without data (each reported as a loss; docs/security.md).",
        ),
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
        typer.Option(
            "--set-sql",
            help="TABLE.COL=EXPR: an SQL expression evaluated by the target; it sees the exported values, COL's own too (email=md5(email) masks in place).",
        ),
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
    retry_budget: Annotated[
        float,
        typer.Option(
            "--retry-budget",
            metavar="SECONDS",
            help="How long a unit, a statement or a reconnection keeps retrying a transient failure (a lost connection, a server restarting, a lock held by another session, a deadlock) before the run stops with exit code 6 (then --resume).",
            min=0,
        ),
    ] = 60.0,
    no_verify: Annotated[
        bool, typer.Option("--no-verify", help="Skip the count/checksum verification after loading.")
    ] = False,
    max_rate: MaxRateOption = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print what the import would do to this target (tables, DDL, units, translation losses, pre-flight findings) and change nothing.",
        ),
    ] = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            help="Load the units as tasks on this Dask scheduler (tcp://host:8786); the export must be where every worker reaches it.",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON on stdout.")] = False,
    privileges: PrivilegesOption = True,
    grants: GrantsOption = False,
    cast: CastOption = None,
) -> None:
    """Load an export directory into a database: DDL, rows in parallel, indexes and keys, verify.

    --dry-run prints the plan for this target (what happens to each table, the DDL, the units of
    rows, the losses, the pre-flight's findings) on stdout and changes nothing: no DDL, no rows, no
    journal, read-only connections; it exits as the real import would fail (2, 6...) or 0.

    What the schema translation loses on this target (routines, triggers, a default...) is printed
    as "translation:" lines, as schema-load and migrate print it. Each --tables/--exclude glob
    must name a table of the export (exit 2 otherwise).

    Examples:

      dbjson import out/ postgresql://postgres@127.0.0.1/shop --create --threads 4

      dbjson import out/ mysql://root@127.0.0.1/shop --resume

      dbjson import out/ sqlite:///shop.db --exclude 'audit_*' --max-errors 100

      zstd -dc out/data/public.users.jsonl.zst | dbjson import --table users - mysql://root@127.0.0.1/shop
    """
    from ..importer import import_database, import_table_stream  # lazy: start-up time

    if directory == "-":
        if not table:
            fail(UsageError("reading from stdin ('-') needs --table TABLE"))
        with Renderer("import", messages=False, status=lambda: "dbjson import: reading stdin"):
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
        shown = not (quiet or json_out)
        with Renderer("import", messages=shown, bars="load" if shown and not dry_run else None) as show:
            if create and not dry_run:
                from ..schemaload import create_database  # lazy: start-up time

                run(lambda: create_database(url, like=_schema_of(Path(directory))))
            report = run(
                lambda: import_database(
                    directory,
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
                    retry_budget=retry_budget,
                    untrusted=untrusted,
                    privileges=privileges,
                    grants=grants,
                    casts=cast or (),
                    cluster=cluster,
                    on_event=show,
                    dry_run=dry_run,
                    max_rate=max_rate,
                )
            )
    if json_out:
        sys.stdout.write(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
        failed = report.dry_run.error() if report.dry_run is not None else None
        if failed is not None:
            raise typer.Exit(failed.exit_code)
        return
    if report.dry_run is not None:
        from .dryrun import show_dry_run

        run(lambda: show_dry_run(report, what="import"))
        return
    if not quiet:
        con = stderr_console()
        for item in report.translation:  # what the schema translation dropped or changed, as migrate prints
            con.print(f"translation: {item}", markup=False, highlight=False)
        msg = f"imported {report.rows} rows into {len(report.tables)} table(s) in {report.seconds:.1f}s"
        msg += phase_times(report.rows, report.phases)
        if report.rejected:
            msg += f"; {report.rejected} rejected row(s) in {report.rejects_dir}"
        if report.verify is not None:
            msg += "; verified"
        con.print(msg, markup=False)


def _schema_of(directory: Path) -> Any:
    """The export's schema document (its database defaults for --create), or None when unreadable
    (the import itself then reports the problem)."""
    from ..format.manifest import SCHEMA_NAME  # lazy: start-up time
    from ..model import Database

    try:
        return Database.from_json((directory / SCHEMA_NAME).read_bytes(), validate=False)
    except Exception:  # noqa: BLE001 - the import names the file and the problem
        return None
