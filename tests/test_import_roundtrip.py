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
    ("mysql", "mysql"),
    ("mariadb", "mariadb"),
    ("postgresql", "postgresql"),
    ("sqlite", "sqlite"),
    ("mysql", "postgresql"),
    ("postgresql", "mariadb"),
    ("sqlite", "postgresql"),
    ("mariadb", "sqlite"),
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


@pytest.fixture
def chinook_export(fresh_db: Any, tmp_path: Path) -> Path:
    src = fresh_db("mariadb")
    load_chinook(src)
    out = tmp_path / "export"
    export_database(src.url, out, threads=2)
    return out


def test_if_exists_and_table_selection(chinook_export: Path, fresh_db: Any) -> None:
    from dbjson.errors import UsageError

    dst = fresh_db("mariadb")
    report = import_database(chinook_export, dst.url, tables=["Artist", "Album"], threads=2)
    assert {t.rsplit(".", 1)[1] for t in report.tables} == {"Artist", "Album"}
    with pytest.raises(UsageError, match="already exists"):
        import_database(chinook_export, dst.url, tables=["Artist"])
    dst.execute("DELETE FROM `Album` WHERE `AlbumId` > 10")
    report = import_database(chinook_export, dst.url, tables=["Album"], if_exists="truncate")
    assert report.verify.ok and _count(dst, "mariadb", "Album") == 347
    report = import_database(
        chinook_export, dst.url, if_exists="skip", exclude=["Track", "InvoiceLine", "PlaylistTrack"]
    )
    by_name = {t.rsplit(".", 1)[1]: r for t, r in report.tables.items()}
    assert by_name["Artist"].skipped and by_name["Genre"].rows == 25
    report = import_database(chinook_export, dst.url, tables=["Genre"], if_exists="replace")
    assert report.verify.ok and _count(dst, "mariadb", "Genre") == 25


def test_schema_only_then_data_only(chinook_export: Path, fresh_db: Any) -> None:
    dst = fresh_db("postgresql")
    import_database(chinook_export, dst.url, schema_only=True)
    assert _count(dst, "postgresql", "Track") == 0
    report = import_database(chinook_export, dst.url, data_only=True, threads=2)
    assert report.verify.ok and _count(dst, "postgresql", "Track") == 3503


@pytest.mark.parametrize("target", ["postgresql", "mysql", "sqlite"])
def test_counters_continue_after_the_load(target: str, fresh_db: Any, tmp_path: Path) -> None:
    """Post-data restarts identity / AUTO_INCREMENT counters past the loaded keys."""
    src = fresh_db("mariadb")
    src.execute("CREATE TABLE genre (id int AUTO_INCREMENT PRIMARY KEY, name varchar(20))")
    src.execute("INSERT INTO genre (name) VALUES ('a'), ('b'), ('c')")
    src.execute("DELETE FROM genre WHERE id = 3")
    out = tmp_path / "export"
    export_database(src.url, out)
    dst = fresh_db(target)
    import_database(out, dst.url)
    dst.execute("INSERT INTO genre (name) VALUES ('new')")
    assert dst.query("SELECT id FROM genre WHERE name = 'new'")[0][0] == 4
