"""``dbjson schema-dump``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import AllDatabasesOption, app, run, write_atomically


@app.command("schema-dump")
def schema_dump(
    url: Annotated[
        str,
        typer.Argument(
            help="Database URL, e.g. mysql://root@127.0.0.1/shop, postgresql://u@h/db, sqlite:///file.db",
            envvar="DBJSON_URL",
        ),
    ],
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the document to FILE (default: stdout).")
    ] = None,
    tables: Annotated[
        list[str] | None,
        typer.Option("--tables", "-t", help="Only tables matching GLOB (repeatable); matches table or schema.table."),
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", "-x", help="Skip tables matching GLOB (repeatable).")
    ] = None,
    schema: Annotated[
        list[str] | None,
        typer.Option(
            "--schema",
            "-s",
            help="PostgreSQL schema / MySQL database to dump (repeatable; default: all user schemas / the URL's database).",
        ),
    ] = None,
    grants: Annotated[bool, typer.Option("--grants", help="Include users/roles and their grants.")] = False,
    all_databases: AllDatabasesOption = False,
    privileges: Annotated[
        bool,
        typer.Option(
            "--privileges/--no-privileges", help="Record the object privileges (GRANTs) on the dumped objects."
        ),
    ] = True,
) -> None:
    """Reflect a live database into a JSON schema document.

    Examples:

      dbjson schema-dump sqlite:///examples/shop.db -o shop.schema.json

      dbjson schema-dump mysql://root@127.0.0.1:3306/shop --exclude 'tmp_*'

      dbjson schema-dump postgresql://postgres@127.0.0.1/shop --schema public --grants
    """
    from ..reflect import reflect  # lazy: start-up time

    db = run(
        lambda: reflect(
            url,
            tables=tables or (),
            exclude=exclude or (),
            grants=grants,
            schemas=schema or (),
            all_databases=all_databases,
            privileges=privileges,
        )
    )
    text = db.to_json()
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        run(lambda: write_atomically(output, text))
