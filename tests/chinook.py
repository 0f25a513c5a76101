"""Load the Chinook sample database (from ../shared/corpus, never committed here) into a fresh database."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import CORPUS, FreshDatabase

CHINOOK = CORPUS / "chinook"


def _script(name: str) -> str:
    path = CHINOOK / name
    if not path.exists():
        pytest.fail(f"Chinook corpus not found at {path}")
    return path.read_text(encoding="utf-8-sig")


def load_chinook(db: FreshDatabase) -> None:
    """Create and fill Chinook's 11 tables in ``db`` (any engine)."""
    if db.engine == "sqlite":
        src = CHINOOK / "Chinook_Sqlite.sqlite"
        shutil.copyfile(src, db.path)
        return
    if db.engine == "postgresql":
        text = _script("Chinook_PostgreSql.sql")
        # Drop the database management part: the fresh database is already current.
        text = re.sub(r"(?im)^(DROP DATABASE|CREATE DATABASE)[^;]*;\s*$", "", text)
        text = re.sub(r"(?im)^\\c [^\n]*$", "", text)
        db.execute(text)
        return
    text = _script("Chinook_MySql.sql")
    text = re.sub(r"(?im)^(DROP DATABASE|CREATE DATABASE|USE)\b[^;]*;\s*$", "", text)
    db.execute(text)


CHINOOK_TABLES = {
    "Album",
    "Artist",
    "Customer",
    "Employee",
    "Genre",
    "Invoice",
    "InvoiceLine",
    "MediaType",
    "Playlist",
    "PlaylistTrack",
    "Track",
}


def chinook_table_name(engine: str, table: str) -> str:
    """Chinook's PostgreSQL script uses snake_case names (``InvoiceLine`` → ``invoice_line``)."""
    if engine == "postgresql":
        return re.sub(r"(?<!^)([A-Z])", r"_\1", table).lower()
    return table


def chinook_row_counts() -> dict[str, int]:
    conn = sqlite3.connect(CHINOOK / "Chinook_Sqlite.sqlite")
    try:
        return {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in sorted(CHINOOK_TABLES)}
    finally:
        conn.close()


__all__ = ["load_chinook", "CHINOOK_TABLES", "chinook_row_counts", "chinook_table_name", "Path"]
