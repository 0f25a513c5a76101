"""SQLite (the embedded default)."""

from __future__ import annotations

from ..base import Engine
from .ddl import SQLiteDDL
from .export import SQLiteExport
from .load import SQLiteLoad
from .reflect import SQLiteReflector


class SQLite(SQLiteReflector, SQLiteDDL, SQLiteExport, SQLiteLoad, Engine):
    name = "sqlite"
    family = "sqlite"
    default_version = "3.40.0"
