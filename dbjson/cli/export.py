"""``dbjson export``."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import orjson
import typer

from ..errors import UsageError
from .common import AllDatabasesOption, GrantsOption, MaxRateOption, app, choices, run, stderr_console
from .progress import Renderer


@app.command("export")
def export_cmd(
    url: Annotated[str, typer.Argument(help="Source database URL (or DBJSON_URL).", envvar="DBJSON_URL")],
    output: Annotated[
        str,
        typer.Option(
            "-o",
            "--output",
            help="Output directory or object storage URL (s3://bucket/prefix, gs://, az://; see docs/scale.md); '-' with --table streams that table to stdout.",
        ),
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
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Export into a directory that holds other files too (they are left alone; only a previous export's files are replaced).",
        ),
    ] = False,
    all_databases: AllDatabasesOption = False,
    max_rate: MaxRateOption = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            help="Run the units as tasks on this Dask scheduler (tcp://host:8786); -o must be storage every worker reaches.",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print a machine-readable report on stdout.")] = False,
    grants: GrantsOption = False,
) -> None:
    """Export rows to canonical JSON lines: parallel, one consistent snapshot, with a manifest.

    Writes DIR/schema.json, DIR/data/<schema>.<table>[.<chunk>].jsonl[.zst|.gz] and, last,
    DIR/manifest.json (row counts, sizes, file hashes and content checksums). SIGUSR1 prints a status
    line; Ctrl-C stops every worker and leaves no complete-looking partial file.

    Nothing passes silently: each --tables, --exclude and --where must name a table of the source
    (exit 2 otherwise); a SQLite source is opened read-only and must exist; DIR must be new, empty
    or an earlier export (whose files are replaced; --overwrite writes into a directory holding
    other files, which are left alone); a MySQL URL without a database needs --all-databases.

    Examples:

      dbjson export postgresql://postgres@127.0.0.1/shop -o shop-export --compress zstd

      dbjson export mysql://root@127.0.0.1/shop -o out --threads 8 --chunk-size 64MB --exclude 'tmp_*'

      dbjson export sqlite:///shop.db --table orders -o - | head

      dbjson export postgresql://db.internal/shop -o s3://bucket/shop --cluster tcp://scheduler:8786
    """
    from ..export import export_database, export_table, parse_chunk_size, parse_where  # lazy: start-up time

    if output == "-":

        def stream() -> None:
            if not table:
                raise UsageError("-o - needs --table T (a whole database is written to a directory)")
            conds = []
            for name, cond in parse_where(where or []).items():
                if name not in (table, table.split(".")[-1]):
                    raise UsageError(f"--where names table {name!r}, not the exported --table {table!r}")
                conds.append(cond)
            try:
                export_table(url, table, sys.stdout.buffer, where=" AND ".join(f"({c})" for c in conds) or None)
            except BrokenPipeError:  # the reader went away (| head): stop quietly, like other tools
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())

        run(stream)
        return

    # Warnings are printed under --quiet too (not with --json); the bars only without either.
    show = Renderer(
        "export", messages=not json_out, bars=None if quiet or json_out else "tables", hints=False, sigterm=False
    )

    def go() -> Any:
        chunk_rows, chunk_bytes = parse_chunk_size(chunk_size) if chunk_size else (None, None)
        return export_database(
            url,
            output,
            threads=threads,
            tables=[table] if table else (tables or []),
            exclude=exclude or (),
            where=parse_where(where or []),
            compress=compress,
            chunk_rows=chunk_rows,
            chunk_bytes=chunk_bytes,
            on_event=show,
            all_databases=all_databases,
            overwrite=overwrite,
            max_rate=max_rate,
            grants=grants,
            cluster=cluster,
        )

    with show:
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
