"""``dbjson diff``: compare two schemas, optionally print the DDL that turns B into A."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from ..errors import UsageError
from .common import app, escape, run, stderr_console, stdout_console
from .progress import Renderer, Step

_MARK = {"add": ("+", "green"), "drop": ("-", "red"), "change": ("~", "yellow")}


@app.command("diff")
def diff_cmd(
    a: Annotated[
        str, typer.Argument(metavar="A", help="Schema A, the wanted state: a schema document (file) or a database URL.")
    ],
    b: Annotated[
        str,
        typer.Argument(metavar="B", help="Schema B, the current state: a schema document (file) or a database URL."),
    ],
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the differences (and the DDL with --ddl) as one JSON object.")
    ] = False,
    ddl: Annotated[
        bool, typer.Option("--ddl", help="Print the statements that turn B into A instead of the readable diff.")
    ] = False,
    dialect: Annotated[
        str | None,
        typer.Option("--dialect", help="DDL for mysql|mariadb|postgresql|sqlite (default: B's engine); needs --ddl."),
    ] = None,
    allow_drop: Annotated[
        bool,
        typer.Option(
            "--allow-drop",
            help="Emit destructive statements (drop table/column/sequence/type, narrowing type changes); needs --ddl.",
        ),
    ] = False,
    include_counters: Annotated[
        bool, typer.Option("--include-counters", help="Also compare AUTO_INCREMENT, identity and sequence next values.")
    ] = False,
) -> None:
    """Compare two schemas: tables, columns, keys, indexes, checks, views, routines, triggers, sequences, types.

    Each side is a schema document (schema-dump output) or a live database URL. Lines marked +
    are in A only, - in B only, ~ differ (B's value → A's). Exit code 0 when equal, 1 when they differ.
    With --ddl, print the ALTER/CREATE/DROP statements that turn B into A, in a safe order;
    destructive changes are listed as skipped (comments, and on stderr) unless --allow-drop.

    Examples:

      dbjson diff shop.schema.json mysql://root@127.0.0.1/shop

      dbjson diff new.schema.json postgresql://postgres@127.0.0.1/shop --ddl > migrate.sql

      dbjson diff a.schema.json b.schema.json --json
    """
    from ..schemadiff import diff, diff_ddl  # lazy: start-up time

    if (dialect is not None or allow_drop) and not ddl:
        run(lambda: (_ for _ in ()).throw(UsageError("--dialect and --allow-drop go with --ddl")))
    step = Step("diff", "reading and comparing both sides")
    with Renderer("diff", messages=False, status=step.status):  # SIGUSR1: what it is doing
        result = run(lambda: diff(_side(a), _side(b), include_counters=include_counters))
        step.now = "writing the DDL"
        script = run(lambda: diff_ddl(result, dialect, allow_drop=allow_drop)) if ddl else None
    if json_out:
        doc: dict[str, Any] = result.to_dict()
        if script is not None:
            doc["ddl"] = script.to_dict()
        sys.stdout.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode())
    elif script is not None:
        sys.stdout.write(script.script())
        err = stderr_console()
        for s in script.skipped:
            err.print(
                f"[yellow]skipped:[/] {escape(s.change.op)} {escape(s.change.kind)} {escape(s.change.object)}"
                f"{escape(' ' + s.change.field) if s.change.field else ''}: {escape(s.reason)}"
            )
    else:
        _print_human(result)
    raise typer.Exit(0 if result.empty else 1)


def _side(text: str) -> Any:
    """A URL stays a string (reflected); anything else is a document path."""
    return text if "://" in text else Path(text)


def _print_human(result: Any) -> None:
    """Changes grouped by schema and table: ``+`` added, ``-`` removed, ``~`` changed ``old → new``."""
    con = stdout_console()
    if result.empty:
        con.print("no differences", markup=False)
        return
    groups: dict[str, dict[str, list[Any]]] = {}
    for c in result.changes:
        owner = c.table if c.table is not None and not (c.kind == "table" and c.op != "change") else ""
        groups.setdefault(c.schema, {}).setdefault(owner, []).append(c)
    for schema in sorted(groups):
        con.print(f"[bold]schema {escape(schema)}[/]")
        tables = groups[schema]
        for owner in sorted(tables, key=lambda t: (t != "", t)):
            indent = "  "
            if owner:
                con.print(f"  [bold]table {escape(owner)}[/]")
                indent = "    "
            for c in tables[owner]:
                con.print(indent + _line(c))
    n = len(result.changes)
    bad = sum(1 for c in result.changes if c.destructive)
    con.print(f"{n} difference{'s' if n != 1 else ''}" + (f" ({bad} destructive)" if bad else ""), markup=False)


def _line(c: Any) -> str:
    mark, colour = _MARK[c.op]
    what = f"{c.kind.replace('_', ' ')} {c.name}" if c.kind != "table" or c.op != "change" else c.field
    text = f"[{colour}]{mark}[/] {escape(what)}"
    if c.op == "change" and c.kind != "table":
        text += f" {escape(c.field)}"
    if c.op == "change":
        text += f": {escape(_brief(c.field, c.old))} → {escape(_brief(c.field, c.new))}"
    if c.destructive:
        text += " [red](destructive)[/]"
    return text


def _brief(field: str | None, value: Any) -> str:
    """A short rendering of a field's value."""
    if value is None:
        return "none"
    if field == "native" and isinstance(value, dict):
        return str(value.get("raw"))
    if field == "type" and isinstance(value, dict):
        params = [f"{k}={v}" for k, v in value.items() if k != "kind"]
        return f"{value['kind']}({', '.join(params)})" if params else str(value["kind"])
    if field == "default" and isinstance(value, dict):
        return str(value.get("value"))
    if isinstance(value, bool):
        return "true" if value else "false"
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    text = " ".join(str(text).split())
    return text if len(text) <= 100 else text[:97] + "..."
