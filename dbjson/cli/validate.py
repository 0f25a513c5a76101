"""``dbjson validate``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer

from ..errors import DocumentError
from .common import app, choices, run, stdout_console


@app.command("validate")
def validate_cmd(
    file: Annotated[
        Path, typer.Argument(help="A schema document (schema.json) or an export manifest (manifest.json).")
    ],
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            autocompletion=choices("schema", "manifest", "auto"),
            help="schema or manifest (default: from the document's 'format').",
        ),
    ] = "auto",
) -> None:
    """Check a schema document or manifest against dbjson's JSON Schemas.

    Prints each problem with its JSON pointer; exit code 0 when valid, 4 when not.

    Example:

      dbjson validate shop.schema.json
    """
    from ..validate import check_document  # lazy: start-up time

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
