"""``dbjson verify``."""

from __future__ import annotations

import sys
from typing import Annotated

import orjson
import typer

from .common import app, choices, fail, run, stderr_console, stdout_console
from .progress import Renderer


@app.command("verify")
def verify_cmd(
    directory: Annotated[
        str, typer.Argument(help="The export directory (or an object storage URL: s3://bucket/prefix).")
    ],
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
    from ..verify import verify, verify_error  # lazy: start-up time

    with Renderer("verify", messages=False, bars=None if quiet or json_out else "load") as show:  # SIGUSR1 too
        report = run(
            lambda: verify(
                directory,
                url,
                tables=tables or (),
                exclude=exclude or (),
                threads=threads,
                renames=rename or (),
                nul=nul,
                on_event=show,
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
        rows = sum(t.rows for t in report.tables)
        stderr_console().print(
            f"verified {len(report.tables)} table(s), {rows:,} rows in {report.seconds:.1f}s", markup=False
        )
    if not report.ok:
        fail(verify_error(report))
