"""Chinook through ``export`` → ``import`` (DDL + rows + post-data) → ``verify``, same and cross engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chinook import chinook_row_counts, chinook_table_name, load_chinook

from dbjson.export import export_database
from dbjson.importer import import_database
from dbjson.verify import verify

PAIRS = [
    ("mysql", "mysql"), ("mariadb", "mariadb"), ("postgresql", "postgresql"), ("sqlite", "sqlite"),
    ("mysql", "postgresql"), ("postgresql", "mariadb"), ("sqlite", "postgresql"), ("mariadb", "sqlite"),
]


def _count(db: Any, engine: str, table: str) -> int:
    quote = "`" if engine in ("mysql", "mariadb") else '"'
    return int(db.query(f"SELECT COUNT(*) FROM {quote}{table}{quote}")[0][0])


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{s}-to-{t}" for s, t in PAIRS])
def test_chinook_round_trip(source: str, target: str, fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db(source)
    load_chinook(src)
    out = tmp_path / "export"
    export_database(src.url, out, threads=2)
    dst = fresh_db(target)
    report = import_database(out, dst.url, threads=2)
    assert report.verify is not None and report.verify.ok, report.verify.problems
    for table, count in chinook_row_counts().items():
        assert _count(dst, target, chinook_table_name(source, table)) == count, table
    assert verify(out, dst.url).ok
