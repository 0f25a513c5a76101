"""``dbjson import --table T - URL``: JSON lines from a stream into one existing table."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

from .. import model as m
from ..engines.interface import TablePlan
from ..errors import DataError, DbjsonError, UsageError, first_line
from ..format.datafiles import iter_lines
from ..preflight import NUL_POLICIES, value_rules
from ..reflect import reflect
from .convert import build_row_converter
from .options import parse_assignments, split_option
from .plan import apply_column_option, qualified
from .report import ImportReport, TableResult
from .session import connect_target


def import_table_stream(
    stream: IO[bytes],
    url: str,
    table: str,
    *,
    zero_dates: str = "null",
    nul: str = "error",
    set_values: Mapping[str, Any] | Sequence[str] = (),
    set_sql: Mapping[str, str] | Sequence[str] = (),
    increments: Mapping[str, int] | Sequence[str] = (),
    renames: Mapping[str, str] | Sequence[str] = (),
    batch_rows: int = 50_000,
) -> ImportReport:
    """Load JSON lines from ``stream`` into the existing table ``table`` (``schema.table`` or ``table``).

    Column kinds come from the target table itself (reflected); the lines are committed in batches
    of ``batch_rows`` (a stream cannot be resumed, so each batch is its own transaction). ``nul``:
    as for :func:`import_database` (there is no pre-flight: under ``error`` the target refuses the line).
    """
    if nul not in NUL_POLICIES:
        raise UsageError("--nul must be error, strip or replace")

    start = time.monotonic()
    target, engine = connect_target(url)
    schema_name, _dot, tname = table.rpartition(".")
    db = reflect(url, tables=[table], schemas=[schema_name] if schema_name else ())
    found = [(s, t) for s, t in db.tables() if t.name == tname and (not schema_name or s.name == schema_name)]
    if not found:
        raise UsageError(f"table {table!r} does not exist in the target")
    s, t = found[0]
    renamed = parse_assignments(renames, "--rename")
    cols = [c for c in t.columns if c.generated is None]
    back = {new: split_option(k, "--rename")[1] for k, new in renamed.items()}
    src_cols = [m.replace(c, name=back.get(c.name, c.name)) for c in cols]
    tschema = s.name if engine.capabilities.schemas else None
    tp = TablePlan(
        schema=s.name,
        name=t.name,
        table=m.replace(t, columns=tuple(src_cols)),
        tschema=tschema,
        tname=t.name,
        columns=src_cols,
        target_names=[c.name for c in cols],
        target_types=[c.type for c in cols],
    )
    tp.value_rules = value_rules(engine, [(c, n, c.type) for c, n in zip(src_cols, tp.target_names)], nul)
    for opt, attr, conv in ((set_values, "fixed", str), (set_sql, "exprs", str), (increments, "increments", int)):
        for key, value in parse_assignments(opt, "--" + attr).items():
            apply_column_option(tp, attr, split_option(key, attr)[1], conv(value))
    convert = build_row_converter(engine, tp, zero_dates, "<stdin>")
    conn = engine.load_connect(target)
    report = ImportReport(target=target.display(), threads=1)
    res = report.tables[tp.display] = TableResult(tp.display, qualified(tp))
    try:
        lines = iter_lines(stream, "<stdin>")
        done = False
        count = 0
        while not done:
            batch: list[tuple[Any, ...]] = []
            for number, raw in lines:
                count += 1
                batch.append(convert(raw, number, count))
                if len(batch) >= batch_rows:
                    break
            else:
                done = True
            if batch:
                engine.load_begin(conn)
                try:
                    engine.load_unit(conn, tp, iter(batch))
                    engine.load_commit(conn)
                except Exception as e:  # noqa: BLE001
                    engine.load_rollback(conn)
                    if isinstance(e, DbjsonError):
                        raise
                    raise DataError(
                        f"the target refused the data: {first_line(e)}", file="<stdin>", table=tp.display
                    ) from None
                res.rows += len(batch)
                res.units += 1
        report.rows = res.rows
    finally:
        engine.load_disconnect(conn)
    report.seconds = time.monotonic() - start
    return report


__all__ = ["import_table_stream"]
