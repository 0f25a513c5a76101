"""The naive baselines: what a straightforward single-threaded Python exporter/importer does.

    python -m bench.naive export ENGINE DATABASE OUT_DIR [DATASET]
    python -m bench.naive import ENGINE DATABASE IN_DIR [DATASET]

Export: one server-side cursor per table (psycopg named cursor / PyMySQL ``SSCursor``), one
``orjson.dumps`` per row (a dict keyed by column name) with a ``default=`` for Decimal, datetime
and bytes, one ``<table>.jsonl`` per table. Import: create the schema, then read those files and
``executemany`` INSERTs in batches of 1,000 rows, then indexes/foreign keys (PostgreSQL).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pymysql.cursors

from . import dataset as ds

BATCH = 1000


def _default(v: Any) -> Any:
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(v)).decode("ascii")
    raise TypeError(type(v).__name__)


def _write(rows: Iterable[tuple[Any, ...]], names: list[str], out: Path) -> None:
    with open(out, "wb", buffering=1 << 20) as fh:
        fh.writelines(orjson.dumps(dict(zip(names, row)), default=_default) + b"\n" for row in rows)


def export(server: ds.Server, database: str, out_dir: Path, dataset: ds.Dataset = ds.NARROW) -> None:
    """Write every benchmark table of ``database`` as JSON lines into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    if server.family == "postgresql":
        with ds.pg_connect(server, database) as conn:
            conn.autocommit = False
            for t in dataset.tables:
                with conn.cursor(name=f"naive_{t.name}") as cur:
                    cur.itersize = BATCH
                    cur.execute(f'SELECT * FROM "{t.name}"')
                    _write(cur, [c.name for c in t.columns], out_dir / f"{t.name}.jsonl")
        return
    conn = ds.my_connect(server, database)
    try:
        for t in dataset.tables:
            with conn.cursor(pymysql.cursors.SSCursor) as cur:
                cur.execute(f"SELECT * FROM `{t.name}`")
                _write(cur, [c.name for c in t.columns], out_dir / f"{t.name}.jsonl")
    finally:
        conn.close()


def _converter(kind: str) -> Callable[[Any], Any]:
    if kind == "binary":
        return lambda v: None if v is None else base64.b64decode(v)
    if kind == "json":
        return lambda v: v if v is None or isinstance(v, str) else orjson.dumps(v).decode()
    return lambda v: v


def _batches(path: Path, t: ds.Table) -> Iterator[list[tuple[Any, ...]]]:
    names = [c.name for c in t.columns]
    convs = [_converter(c.kind) for c in t.columns]
    batch: list[tuple[Any, ...]] = []
    with open(path, "rb") as fh:
        for line in fh:
            obj = orjson.loads(line)
            batch.append(tuple(f(obj[n]) for f, n in zip(convs, names)))
            if len(batch) == BATCH:
                yield batch
                batch = []
    if batch:
        yield batch


def import_(server: ds.Server, database: str, in_dir: Path, dataset: ds.Dataset = ds.NARROW) -> None:
    """Create the schema in ``database`` and insert the JSON lines of ``in_dir`` in batches."""
    pre, post = ds.ddl(server.family, dataset)
    if server.family == "postgresql":
        with ds.pg_connect(server, database) as conn:
            for stmt in pre:
                conn.execute(stmt)
            for t in dataset.tables:
                sql = f'INSERT INTO "{t.name}" VALUES ({", ".join(["%s"] * len(t.columns))})'
                with conn.transaction(), conn.cursor() as cur:
                    for batch in _batches(in_dir / f"{t.name}.jsonl", t):
                        cur.executemany(sql, batch)
            for stmt in post:
                conn.execute(stmt)
        return
    conn = ds.my_connect(server, database)
    try:
        with conn.cursor() as cur:
            cur.execute("SET foreign_key_checks = 0")
            for stmt in pre:
                cur.execute(stmt)
            for t in dataset.tables:
                sql = f"INSERT INTO `{t.name}` VALUES ({', '.join(['%s'] * len(t.columns))})"
                conn.begin()
                for batch in _batches(in_dir / f"{t.name}.jsonl", t):
                    cur.executemany(sql, batch)
                conn.commit()
    finally:
        conn.close()


def main(argv: list[str]) -> int:
    """``export|import ENGINE DATABASE DIR [DATASET]``."""
    if len(argv) not in (4, 5) or argv[0] not in ("export", "import"):
        sys.stderr.write(__doc__ or "")
        return 2
    action, engine, database, path = argv[:4]
    dataset = ds.DATASETS[argv[4] if len(argv) == 5 else "narrow"]
    server = ds.servers()[engine]
    (export if action == "export" else import_)(server, database, Path(path), dataset)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
