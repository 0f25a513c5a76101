"""dbjson import on real servers: bulk paths, options, bad input, rejects, pre-flight, stdin.

The export directories here are written by :func:`make_export` (the codec's canonical lines and a
manifest with row counts and checksums) so that each test controls its data exactly; the Chinook
round trips through ``dbjson export`` live in ``test_import_roundtrip.py``.
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest

from dbjson import model as m
from dbjson.codec import Checksum, RowEncoder
from dbjson.errors import DataError, UsageError, VerifyError
from dbjson.importer import import_database
from dbjson.verify import verify

NAT = m.NativeType(engine="mysql", raw="x")


def col(name: str, ordinal: int, kind: str, **kw: Any) -> m.Column:
    nullable = kw.pop("nullable", True)
    return m.Column(name=name, ordinal=ordinal, type=m.Type(kind=kind, **kw), native=NAT, nullable=nullable)


ITEMS = m.Table(
    name="items",
    columns=(
        col("id", 1, "integer", bits=32, nullable=False),
        col("name", 2, "varchar", length=20),
        col("price", 3, "decimal", precision=10, scale=2),
        col("data", 4, "blob", max_bytes=65535),
        col("flag", 5, "boolean"),
        col("created", 6, "timestamp", fsp=0),
        col("big", 7, "integer", bits=64),
        col("ratio", 8, "float", bits=64),
        col("day", 9, "date"),
    ),
    primary_key=m.PrimaryKey(columns=("id",)),
)

ITEMS_DDL = {
    "postgresql": """CREATE TABLE items (id integer PRIMARY KEY, name varchar(20), price numeric(10,2), data bytea,
        flag boolean, created timestamp(0), big bigint, ratio double precision, day date)""",
    "mysql": """CREATE TABLE items (id int PRIMARY KEY, name varchar(20), price decimal(10,2), data blob,
        flag tinyint(1), created datetime, big bigint, ratio double, day date)""",
    "sqlite": """CREATE TABLE items (id integer PRIMARY KEY, name varchar(20), price numeric(10,2), data blob,
        flag boolean, created datetime, big bigint, ratio double, day date)""",
}
ITEMS_DDL["mariadb"] = ITEMS_DDL["mysql"]


def item_rows(n: int, start: int = 1) -> list[tuple[Any, ...]]:
    out = []
    for i in range(start, start + n):
        out.append((
            i, f"name {i}\t\\x\n'q'" if i % 7 == 0 else f"name {i}", Decimal(i) / 4, bytes([i % 256, 0, 10, 9, 92]),
            i % 2 == 0, dt.datetime(2024, 1, 1) + dt.timedelta(minutes=i), 2**62 + i, i / 3, dt.date(2020, 2, 29),
        ))
    out.append((start + n, None, None, None, None, None, None, None, None))
    return out


def database(*tables: m.Table, engine: str = "mysql", schema: str = "shop") -> m.Database:
    src = m.Source(engine=engine, server_version="9.1.0", database=schema, dumped_at="2026-01-01T00:00:00Z")
    return m.Database(source=src, schemas=(m.Schema(name=schema, tables=tables),))


def write_lines(path: Path, lines: list[bytes]) -> None:
    data = b"".join(line + b"\n" for line in lines)
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    elif path.name.endswith(".zst"):
        import zstandard

        data = zstandard.ZstdCompressor().compress(data)
    path.write_bytes(data)


def make_export(directory: Path, db: m.Database, rows: dict[str, list[tuple[Any, ...]]], *,
                chunks: int = 1, suffix: str = ".jsonl", raw_lines: dict[str, list[bytes]] | None = None) -> Path:
    """An export directory: schema.json, data/<schema>.<table>[.<n>].jsonl, manifest.json."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "data").mkdir(exist_ok=True)
    (directory / "schema.json").write_text(db.to_json())
    tables = []
    for s, t in db.tables():
        lines = (raw_lines or {}).get(t.name) or [RowEncoder(t.columns).line(r) for r in rows.get(t.name, [])]
        per = max(1, -(-len(lines) // chunks))
        files = []
        total = Checksum()
        parts = [lines[i:i + per] for i in range(0, len(lines), per)] or [[]]
        for k, part in enumerate(parts):
            rel = f"data/{s.name}.{t.name}" + (f".{k:04d}" if len(parts) > 1 else "") + suffix
            write_lines(directory / rel, part)
            c = Checksum()
            for line in part:
                c.add(line)
                total.add(line)
            files.append({"path": rel, "rows": len(part), "bytes": (directory / rel).stat().st_size,
                          "checksum": c.hexdigest()})
        tables.append({"schema": s.name, "name": t.name, "columns": [c.name for c in t.columns],
                       "rows": sum(f["rows"] for f in files), "checksum": total.hexdigest(), "files": files})
    manifest = {"format": "dbjson-manifest", "format_version": "1.0", "dbjson_version": "0", "created_at": "2026-01-01T00:00:00Z",
                "compression": "none", "checksum_algorithm": "blake2b64-sum",
                "source": {"engine": db.source.engine, "server_version": db.source.server_version, "database": "shop"},
                "snapshot": {"mode": "single-connection", "consistent": True}, "tables": tables}
    (directory / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    return directory


def target_with(fresh_db: Any, engine: str, ddl: dict[str, str]) -> Any:
    db = fresh_db(engine)
    db.execute(ddl[engine])
    return db


def q(engine: str, name: str) -> str:
    return f"`{name}`" if engine in ("mysql", "mariadb") else f'"{name}"'


# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".jsonl.zst"])
def test_data_only_load_and_verify(engine: str, fresh_db: Any, tmp_path: Path, suffix: str) -> None:
    if suffix != ".jsonl" and engine != "sqlite":
        pytest.skip("compression is engine-independent: checked on SQLite")
    rows = item_rows(300)
    export = make_export(tmp_path / "out", database(ITEMS), {"items": rows}, chunks=3, suffix=suffix)
    target = target_with(fresh_db, engine, ITEMS_DDL)
    report = import_database(export, target.url, data_only=True, threads=2)
    assert report.rows == len(rows)
    assert report.verify is not None and report.verify.ok, report.verify.problems
    got = target.query(f"SELECT name, data FROM items WHERE id = 7")
    assert got[0][0] == "name 7\t\\x\n'q'"
    assert bytes(got[0][1]) == bytes([7, 0, 10, 9, 92])
    assert verify(export, target.url).ok
