"""Server-side cost of dbjson's PostgreSQL export line expressions, per table and per column.

    python -m bench.pg_line_cost dbjson_bench

Times ``COPY (SELECT <dbjson's line expression>) TO STDOUT`` against ``COPY (SELECT *)`` for each
table of the database, and each column's JSON expression against the bare column (best of 2),
so one can see which column kinds make the export's server side expensive.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import psycopg

from dbjson.engines import get_engine
from dbjson.reflect import reflect

from . import dataset as ds


def copy_seconds(conn: psycopg.Connection[Any], sql: str, tries: int = 2) -> float:
    """Best wall time of ``COPY (sql) TO STDOUT``, the output read and dropped."""
    best = float("inf")
    for _ in range(tries):
        t0 = time.perf_counter()
        with conn.cursor() as cur, cur.copy(f"COPY ({sql}) TO STDOUT") as cp:
            for _ in cp:
                pass
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str]) -> int:
    """``DATABASE``: print per-table and per-column costs."""
    if len(argv) != 1:
        sys.stderr.write(__doc__ or "")
        return 2
    server = ds.servers()["postgresql"]
    doc = reflect(server.db_url(argv[0]))
    eng: Any = get_engine("postgresql", "15")
    plain_total = line_total = 0.0
    with ds.pg_connect(server, argv[0]) as conn:
        for schema in doc.schemas:
            for tab in schema.tables:
                src = f'"{schema.name}"."{tab.name}"'
                expression = eng.line_expression(tab.columns)
                if expression is None:
                    print(f"{tab.name:14} exported through the Python encoder (no SQL line expression)")
                    continue
                plain = copy_seconds(conn, f"SELECT * FROM {src}")
                line = copy_seconds(conn, f"SELECT {expression} FROM {src}")
                plain_total, line_total = plain_total + plain, line_total + line
                print(f"{tab.name:14} COPY * {plain:6.2f} s   dbjson lines {line:6.2f} s")
                for c in tab.columns:
                    raw = copy_seconds(conn, f'SELECT "{c.name}" FROM {src}', 1)
                    expr = copy_seconds(conn, f"SELECT {eng.json_expression(c)} FROM {src}", 1)  # not None here
                    print(f"    {c.name:14} {c.type.kind:10} bare {raw:5.2f} s   JSON expression {expr:5.2f} s")
    print(f"total: COPY * {plain_total:.2f} s, dbjson lines {line_total:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
