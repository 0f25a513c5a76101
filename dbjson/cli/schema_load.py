"""``dbjson schema-load``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer

from ..errors import DbjsonError, DocumentError, UsageError
from .common import (
    CastOption,
    GrantsOption,
    PrivilegesOption,
    app,
    choices,
    fail,
    run,
    stderr_console,
    write_atomically,
)
from .progress import Renderer, Step

if TYPE_CHECKING:
    from ..ddl.plan import TranslationReport


@app.command("schema-load")
def schema_load(
    file: Annotated[Path, typer.Argument(help="The schema document to load ('-' reads stdin).")],
    to: Annotated[str | None, typer.Option("--to", help="Target database URL: create the schema there.")] = None,
    dialect: Annotated[
        str | None,
        typer.Option(
            "--dialect",
            autocompletion=choices("mysql", "mariadb", "postgresql", "sqlite"),
            help="Print DDL for mysql|mariadb|postgresql|sqlite without connecting.",
        ),
    ] = None,
    server_version: Annotated[
        str | None, typer.Option("--server-version", help="Target server version for --dialect (e.g. 8.0.36).")
    ] = None,
    create: Annotated[
        bool, typer.Option("--create", help="Create the target database first if it does not exist.")
    ] = False,
    if_exists: Annotated[
        str,
        typer.Option(
            "--if-exists",
            autocompletion=choices("fail", "skip", "replace"),
            help="When an object exists: fail, skip (leave it alone) or replace (drop it first).",
        ),
    ] = "fail",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print exactly the statements that would run; change nothing.")
    ] = False,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write the translation report (every loss, as JSON) to FILE.")
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail (exit 5) if anything would be lost in translation.")
    ] = False,
    schema_map: Annotated[
        list[str] | None, typer.Option("--schema-map", help="SOURCE=TARGET schema renaming (repeatable).")
    ] = None,
    untrusted: Annotated[
        bool,
        typer.Option(
            "--untrusted",
            help="Load a document from an untrusted source without running its code: no routines, triggers, events; views and expressions only with safe functions; materialized views without data (each reported as a loss; docs/security.md).",
        ),
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Write the DDL script (--dialect, --dry-run) to FILE instead of stdout."),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="No translation summary on stderr (--report FILE is still written, --strict still fails).",
        ),
    ] = False,
    privileges: PrivilegesOption = True,
    grants: GrantsOption = False,
    cast: CastOption = None,
) -> None:
    """Create a schema document's tables, indexes, constraints and views in a target database.

    With --dialect, print the DDL instead (no connection). Everything that cannot be expressed in
    the target is listed on stderr (and in --report FILE as JSON); --strict makes any loss an error.

    Examples:

      dbjson schema-load shop.schema.json --to postgresql://postgres@127.0.0.1/shop --create

      dbjson schema-load shop.schema.json --dialect mysql -o shop.sql

      dbjson schema-load shop.schema.json --to mysql://root@127.0.0.1/shop --if-exists replace --report loss.json
    """
    # lazy: start-up time (every command module is imported when dbjson starts)
    from ..ddl.plan import DdlPlan, TranslationReport
    from ..model import Database
    from ..schemaload import load_schema, to_ddl

    if (to is None) == (dialect is None):
        run(lambda: (_ for _ in ()).throw(UsageError("give exactly one of --to URL or --dialect NAME")))
    options: dict[str, Any] = {"privileges": privileges, "grants": grants, "casts": tuple(cast or ())}
    if schema_map:
        options["schema_map"] = _schema_map(schema_map)
    if untrusted:
        options["untrusted"] = True

    def read() -> Database:
        try:
            raw = sys.stdin.buffer.read() if str(file) == "-" else file.read_bytes()
        except OSError as e:
            raise DocumentError(f"cannot read: {e.strerror}", file=str(file)) from None
        return Database.from_json(raw, filename=str(file))

    step = Step("schema-load", "reading the document")
    db = run(read)
    plan_holder: list[DdlPlan] = []
    step.now = f"translating {sum(len(s.tables) for s in db.schemas)} table(s) and applying the DDL"

    def go() -> str:
        try:
            return translate()
        except DbjsonError as e:
            if e.pointer and not e.file:  # a JSON pointer into the document: name the document
                e.file = str(file)
            raise

    def translate() -> str:
        if dialect is not None:
            plan = to_ddl(db, dialect, server_version=server_version, options=options)
            plan_holder.append(plan)
            return plan.script()
        assert to is not None
        try:
            result = load_schema(
                db, to, create=create, if_exists=if_exists, dry_run=dry_run, strict=strict, options=options
            )
        except Exception as e:
            rep = getattr(e, "report", None)
            if isinstance(rep, TranslationReport):
                _report_out(rep, report, quiet)
            raise
        plan_holder.append(result.plan)
        if dry_run:
            from ..engines import get_engine  # lazy: start-up time

            engine = get_engine(result.plan.target, result.plan.server_version)
            shown = result.statements + result.plan.privileges
            return "\n".join(engine.ddl_script_statement(s) for s in shown) + "\n"
        return ""

    with Renderer("schema-load", messages=False, status=step.status):  # SIGUSR1: what it is doing
        text = run(go)
    if plan_holder:
        _report_out(plan_holder[0].report, report, quiet)
        if strict and dialect is not None and plan_holder[0].report.losses:
            run(lambda: to_ddl(db, str(dialect), server_version=server_version, strict=True, options=options))
    if text and output is not None and str(output) != "-":
        run(lambda: write_atomically(output, text))
    elif text:
        sys.stdout.write(text)


def _schema_map(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        if "=" not in pair:
            fail(UsageError(f"--schema-map wants SOURCE=TARGET, not {pair!r}"))
        src, dst = pair.split("=", 1)
        out[src] = dst
    return out


def _report_out(rep: TranslationReport, path: Path | None, quiet: bool = False) -> None:
    """The readable summary on stderr (not when ``quiet``); the JSON report in ``path`` when asked."""
    con = stderr_console()
    if rep.items and not quiet:
        counts = rep.to_dict()["counts"]
        con.print(
            f"translation {rep.source} → {rep.target}: {counts['loss']} loss(es), "
            f"{counts['approximation']} approximation(s), {counts['rename']} rename(s)",
            markup=False,
        )
        for severity, limit in (("loss", None), ("approximation", 20), ("rename", 20)):
            items = [i for i in rep.items if i.severity == severity]
            for item in items[:limit]:
                con.print(f"  {item.severity:<13} {item.path}: {item.lost} [{item.rule}]", markup=False)
            if limit is not None and len(items) > limit:
                con.print(
                    f"  ... {len(items) - limit} more {severity} item(s)"
                    + ("" if path else " (--report FILE lists them all)"),
                    markup=False,
                )
    if path is not None:
        run(
            lambda: write_atomically(
                path, orjson.dumps(rep.to_dict(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode()
            )
        )
