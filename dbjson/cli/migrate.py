"""``dbjson migrate``: one database into another, rows streamed (export + import in one pipeline)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import orjson
import typer

from .common import (
    AllDatabasesOption,
    CastOption,
    GrantsOption,
    MaxRateOption,
    PrivilegesOption,
    app,
    run,
    stderr_console,
)
from .progress import Renderer, phase_times


@app.command("migrate")
def migrate_cmd(
    source: Annotated[
        str, typer.Argument(help="Source database URL (mysql://, mariadb://, postgresql://, sqlite:///).")
    ],
    target: Annotated[
        str, typer.Argument(help="Target database URL (or DBJSON_URL, as for import).", envvar="DBJSON_URL")
    ],
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads", "-j", help="Source connections and parallel loaders (default: cores, at most 8).", min=1
        ),
    ] = None,
    keep: Annotated[
        str | None,
        typer.Option("--keep", help="Also write a normal export (schema.json, manifest.json, data/) into DIR."),
    ] = None,
    tables: Annotated[
        list[str] | None, typer.Option("--tables", "-t", help="Only tables matching GLOB (repeatable).")
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", "-x", help="Skip tables matching GLOB (repeatable).")
    ] = None,
    if_exists: Annotated[
        str, typer.Option("--if-exists", help="When a target table exists: fail, skip, truncate or replace.")
    ] = "fail",
    create: Annotated[
        bool,
        typer.Option(
            "--create",
            help="Create the target database first if it does not exist (same engine: with the source's defaults).",
        ),
    ] = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue an interrupted migrate: load only the units the journal lacks.")
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail when the schema translation would lose anything.")
    ] = False,
    zero_dates: Annotated[
        str, typer.Option("--zero-dates", help="Zero dates for targets that cannot hold them: null or error.")
    ] = "null",
    state_dir: Annotated[
        str | None,
        typer.Option(
            "--state-dir",
            help="Where the resume journal lives without --keep (default ~/.local/state/dbjson/migrate/<id>).",
        ),
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
        bool, typer.Option("--no-verify", help="Skip the count/checksum comparison with the source after loading.")
    ] = False,
    all_databases: AllDatabasesOption = False,
    max_rate: MaxRateOption = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print what the migrate would do to the target (tables, DDL, units, translation losses, pre-flight findings read from the source) and change nothing.",
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON on stdout.")] = False,
    privileges: PrivilegesOption = True,
    grants: GrantsOption = False,
    cast: CastOption = None,
) -> None:
    """Copy a live database into another engine in one command: schema, rows, indexes and keys, verified.

    Rows stream from one consistent snapshot of the source into the target's bulk path, unit by
    unit (a table or a key range, one transaction each, journaled for --resume), without staging
    tables on disk. The translation report and the pre-flight's findings are printed; at the end
    the target's row counts and content checksums are compared with what was read from the source.
    --dry-run prints what would happen to the target (as import --dry-run) and changes nothing.

    Examples:

      dbjson migrate mysql://root@127.0.0.1/shop postgresql://postgres@127.0.0.1/shop --threads 2

      dbjson migrate postgresql://postgres@127.0.0.1/shop mariadb://root@127.0.0.1/shop --keep shop-export/

      dbjson migrate mysql://root@127.0.0.1/shop sqlite:///shop.db --resume

      DBJSON_URL=postgresql://postgres@127.0.0.1/shop dbjson migrate mysql://root@127.0.0.1/shop --create
    """
    from ..migrate import migrate  # lazy: start-up time

    shown = not (quiet or json_out)
    with Renderer("migrate", messages=shown, bars="load" if shown and not dry_run else None) as show:
        report: Any = run(
            lambda: migrate(
                source,
                target,
                threads=threads,
                tables=tables or (),
                exclude=exclude or (),
                if_exists=if_exists,
                keep=keep,
                verify=not no_verify,
                retry_budget=retry_budget,
                resume=resume,
                strict=strict,
                zero_dates=zero_dates,
                state_dir=state_dir,
                privileges=privileges,
                grants=grants,
                casts=cast or (),
                on_event=show,
                all_databases=all_databases,
                dry_run=dry_run,
                max_rate=max_rate,
                create=create,
            )
        )
    if json_out:
        sys.stdout.write(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
        failed = report.load.dry_run.error() if report.load.dry_run is not None else None
        if failed is not None:
            raise typer.Exit(failed.exit_code)
        return
    if report.load.dry_run is not None:
        from .dryrun import show_dry_run

        run(lambda: show_dry_run(report.load, what="migrate"))
        return
    if quiet:
        return
    con = stderr_console()
    for item in report.translation:
        con.print(f"translation: {item}", markup=False, highlight=False)
    msg = (
        f"migrated {report.rows} rows of {len(report.load.tables)} table(s) in {report.seconds:.1f}s"
        f"{phase_times(report.rows, report.load.phases)} (snapshot: {report.snapshot.mode})"
    )
    if report.load.resumed_units:
        msg += f"; {report.load.resumed_units} unit(s) from the interrupted run"
    if report.load.verify is not None:
        msg += "; verified"
    if report.keep_dir:
        msg += f"; export kept in {report.keep_dir}"
    con.print(msg, markup=False, highlight=False)
