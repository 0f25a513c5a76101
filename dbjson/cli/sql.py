"""``dbjson sql duckdb``."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import app, run

sql_app = typer.Typer(
    help="SQL for analytics tools over an export: typed views (see docs/scale.md).\n\n"
    "Examples:\n\n"
    "  dbjson sql duckdb shop-export | duckdb shop.duckdb",
    no_args_is_help=True,
)
app.add_typer(sql_app, name="sql")


@sql_app.command("duckdb")
def duckdb_cmd(
    directory: Annotated[str, typer.Argument(help="The export directory (or an object storage URL).")],
) -> None:
    """Print DuckDB views over the export's data files, every column cast to its type.

    64-bit integers and decimals (JSON strings in the export, by design) become BIGINT/HUGEINT and
    DECIMAL(p,s), base64 becomes BLOB, timestamps TIMESTAMP or TIMESTAMPTZ, json JSON. One view per
    table, named schema.table, over read_json of the table's files.

    Examples:

      dbjson sql duckdb shop-export | duckdb shop.duckdb

      dbjson sql duckdb shop-export > views.sql
    """
    from ..analytics import duckdb_sql  # lazy: start-up time

    sys.stdout.write(run(lambda: duckdb_sql(directory)))
