"""The SQL an export shares across engines: row counts, key bounds and range predicates."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ... import model as m
from ...connect import Target
from ...format.codec import RowEncoder
from ..interface import Capabilities, ExportUnit


class SQLExportBase:
    """Shared SQL for the export mixins: row counts, key bounds and range predicates.

    Engines set ``mark`` (the driver's placeholder) and implement ``_fetch`` (run a query, return
    all rows); ``quote``, ``literal`` and ``capabilities`` come from :class:`~dbjson.engines.Engine`.
    """

    mark = "%s"
    capabilities: Capabilities

    if TYPE_CHECKING:  # provided by dbjson.engines.base.Engine

        def quote(self, ident: str) -> str: ...
        def literal(self, value: str) -> str: ...

    def export_connect(self, target: Target) -> Any:
        """A new raw connection for a worker."""
        return target.connect_raw()

    def export_json_text(self, column: m.Column) -> bool:
        """JSON kept as text (``Type.binary`` false): PostgreSQL ``json``; MySQL and SQLite override."""
        return column.type.kind == "json" and not column.type.binary

    def export_qualify(self, schema: str, table: m.Table) -> str:
        return f"{self.quote(schema)}.{self.quote(table.name)}"

    def export_current_schema(self, conn: Any) -> str | None:
        """The schema an unqualified table name means on ``conn`` (MySQL/MariaDB: the connection's
        database; SQLite overrides it)."""
        rows = self._fetch(conn, "SELECT DATABASE()")
        return str(rows[0][0]) if rows and rows[0][0] is not None else None

    def _fetch(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _tuple(self, columns: Sequence[str]) -> str:
        cols = ", ".join(self.quote(c) for c in columns)
        return f"({cols})" if len(columns) > 1 else cols

    def export_conditions(self, unit: ExportUnit, inline: Callable[[Any], str] | None = None) -> tuple[str, list[Any]]:
        """The WHERE clause (with a leading `` WHERE``, or empty) and parameters of a unit.

        With ``inline`` (value → SQL literal) the key bounds are written into the SQL instead.
        """
        conds: list[str] = []
        params: list[Any] = []
        for bound, op in ((unit.lower, ">="), (unit.upper, "<")):
            if bound is None:
                continue
            if inline is not None:
                values = [inline(v) for v in bound]
            else:
                values = [self.mark] * len(bound)
                params.extend(bound)
            rhs = f"({', '.join(values)})" if len(values) > 1 else values[0]
            conds.append(f"{self._tuple(unit.key_columns)} {op} {rhs}")
        if unit.where:
            conds.append(f"({unit.where})")
        return (" WHERE " + " AND ".join(conds) if conds else ""), params

    def export_estimate(self, conn: Any, schema: str, table: m.Table) -> int | None:
        """The catalog's row estimate (statistics), or None when the engine has none."""
        return None

    def export_stats(self, conn: Any, schema: str, table: m.Table) -> tuple[int | None, int | None]:
        """(row estimate, size on disk in bytes); here without a size."""
        return self.export_estimate(conn, schema, table), None

    def export_refresh(self, conn: Any) -> None:
        """Release the locks a worker's snapshot transaction took so far, keeping its snapshot
        (PostgreSQL: a new transaction on the exported snapshot); nothing on other engines."""

    def export_count(self, conn: Any, schema: str, table: m.Table, where: str | None) -> int:
        cond = f" WHERE ({where})" if where else ""
        return int(self._fetch(conn, f"SELECT COUNT(*) FROM {self.export_qualify(schema, table)}{cond}")[0][0])

    def export_key_bounds(
        self, conn: Any, schema: str, table: m.Table, column: str, where: str | None
    ) -> tuple[Any, Any]:
        cond = f" WHERE ({where})" if where else ""
        q = self.quote(column)
        row = self._fetch(conn, f"SELECT MIN({q}), MAX({q}) FROM {self.export_qualify(schema, table)}{cond}")[0]
        return row[0], row[1]

    def export_key_boundaries(
        self, conn: Any, schema: str, table: m.Table, columns: Sequence[str], where: str | None, every: int, limit: int
    ) -> list[tuple[Any, ...]]:
        """Up to ``limit`` keys, every ``every`` rows in key order (the lower bounds of units 2..n)."""
        cond = f" WHERE ({where})" if where else ""
        cols = ", ".join(self.quote(c) for c in columns)
        src = self.export_qualify(schema, table)
        out: list[tuple[Any, ...]] = []
        for i in range(1, limit + 1):
            rows = self._fetch(conn, f"SELECT {cols} FROM {src}{cond} ORDER BY {cols} LIMIT 1 OFFSET {i * every}")
            if not rows:
                break
            out.append(tuple(rows[0]))
        return sorted(set(out))


def encoded_blocks(
    fetch: Callable[[int], Sequence[Sequence[Any]]], encoder: RowEncoder, stop: threading.Event, rows: int
) -> Iterator[bytes]:
    """Blocks of canonical lines encoded in Python (the export's path without server-side lines):
    ``fetch(rows)`` rows at a time until the cursor is exhausted or ``stop`` is set."""
    while not stop.is_set():
        batch = fetch(rows)
        if not batch:
            return
        yield encoder.lines(batch)
