"""schema-dump, schema-load and validate commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import orjson
import typer

from ..errors import DocumentError, UsageError
from .common import app, run, stdout_console


@app.command("schema-dump")
def schema_dump(
    url: Annotated[str, typer.Argument(help="Database URL, e.g. mysql://root@127.0.0.1/shop, postgresql://u@h/db, sqlite:///file.db", envvar="DBJSON_URL")],
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Write the document to FILE (default: stdout).")] = None,
    tables: Annotated[Optional[list[str]], typer.Option("--tables", "-t", help="Only tables matching GLOB (repeatable); matches table or schema.table.")] = None,
    exclude: Annotated[Optional[list[str]], typer.Option("--exclude", "-x", help="Skip tables matching GLOB (repeatable).")] = None,
    schema: Annotated[Optional[list[str]], typer.Option("--schema", "-s", help="PostgreSQL schema / MySQL database to dump (repeatable; default: all user schemas / the URL's database).")] = None,
    grants: Annotated[bool, typer.Option("--grants", help="Include users/roles and their grants.")] = False,
) -> None:
    """Reflect a live database into a JSON schema document.

    Examples:

      dbjson schema-dump sqlite:///examples/shop.db -o shop.schema.json

      dbjson schema-dump mysql://root@127.0.0.1:3306/shop --exclude 'tmp_*'

      dbjson schema-dump postgresql://postgres@127.0.0.1/shop --schema public --grants
    """
    from ..reflect import reflect

    db = run(lambda: reflect(url, tables=tables or (), exclude=exclude or (), grants=grants, schemas=schema or ()))
    text = db.to_json()
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        run(lambda: _write_atomically(output, text))


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file (a failed dump never leaves half a file)."""
    tmp = path.with_name(path.name + ".partial")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        raise UsageError(f"cannot write the document: {e.strerror}", file=str(path)) from None


@app.command("validate")
def validate_cmd(
    file: Annotated[Path, typer.Argument(help="A schema document (schema.json) or an export manifest (manifest.json).")],
    kind: Annotated[str, typer.Option("--kind", help="schema or manifest (default: from the document's 'format').")] = "auto",
) -> None:
    """Check a schema document or manifest against dbjson's JSON Schemas.

    Prints each problem with its JSON pointer; exit code 0 when valid, 4 when not.

    Example:

      dbjson validate shop.schema.json
    """
    from ..validate import check_document

    def go() -> None:
        try:
            raw = file.read_bytes()
        except OSError as e:
            raise DocumentError(f"cannot read: {e.strerror}", file=str(file)) from None
        try:
            doc = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            raise DocumentError(f"malformed JSON: {e}", file=str(file)) from None
        k = kind
        if k == "auto":
            k = "manifest" if isinstance(doc, dict) and doc.get("format") == "dbjson-manifest" else "schema"
        check_document(doc, k, file=str(file))

    run(go)
    stdout_console().print(f"{file}: valid", markup=False)
