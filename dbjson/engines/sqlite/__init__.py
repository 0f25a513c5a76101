"""SQLite (the embedded default)."""

from __future__ import annotations

from ..base import Engine
from .data import SQLiteData
from .ddl import SQLiteDDL
from .reflect import SQLiteReflector


class SQLite(SQLiteReflector, SQLiteDDL, SQLiteData, Engine):
    name = "sqlite"
    family = "sqlite"
    default_version = "3.40.0"
