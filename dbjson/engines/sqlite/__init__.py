"""SQLite (the embedded default)."""

from __future__ import annotations

from ..base import Engine
from .export import SQLiteExport
from .load import SQLiteLoad
from .ddl import SQLiteDDL
from .reflect import SQLiteReflector


class SQLite(SQLiteReflector, SQLiteDDL, SQLiteExport, SQLiteLoad, Engine):
    name = "sqlite"
    family = "sqlite"
    default_version = "3.40.0"
