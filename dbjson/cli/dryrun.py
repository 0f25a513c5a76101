"""``import --dry-run`` and ``migrate --dry-run``: print what the run would do to its target."""

from __future__ import annotations

from typing import Any

from .common import stdout_console


def show_dry_run(load: Any, *, what: str) -> None:
    """Print the dry run of ``load`` (an ImportReport with ``dry_run``) on stdout: per table what
    happens, the DDL, the units of rows, the translation's losses, the pre-flight's findings;
    raise the error the real ``what`` would stop with (rendered by ``run``: its exit code)."""
    dry = load.dry_run
    con = stdout_console()

    def out(text: str) -> None:
        con.print(text, markup=False, highlight=False)

    out(f"-- dry run of {what} into {load.target}: nothing was changed")
    out(f"-- tables ({len(dry.actions)}):")
    for table, action in sorted(dry.actions.items()):
        out(f"--   {table}: {action}")
    if dry.pre_data:
        out(f"-- pre-data DDL ({len(dry.pre_data)} statements):")
        for sql in dry.pre_data:
            out(sql.rstrip())
    if dry.units:
        rows = sum(u["rows"] or 0 for u in dry.units)
        size = sum(u["bytes"] or 0 for u in dry.units)
        out(f"-- rows: {len(dry.units)} unit(s), {rows:,} rows" + (f", {size / 1e6:,.1f} MB" if size else ""))
        for u in dry.units:
            extra = f", {u['bytes']:,} bytes" if u["bytes"] else ""
            count = "?" if u["rows"] is None else f"{u['rows']:,}"
            out(f"--   {u['table']}: {u['file']} ({count} rows{extra})")
    if dry.post_data:
        out(f"-- post-data DDL ({len(dry.post_data)} statements):")
        for sql in dry.post_data:
            out(sql.rstrip())
    for item in load.translation:
        out(f"-- translation: {item}")
    for f in load.findings:
        out(f"-- pre-flight: {f}")
    error = dry.error()
    if error is not None:
        raise error
    out(f"-- the {what} would run ({len(dry.actions)} table(s))")
