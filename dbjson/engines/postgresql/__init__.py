"""PostgreSQL."""

from __future__ import annotations

from ..base import Engine
from .data import PostgreSQLData
from .ddl import PostgreSQLDDL
from .reflect import PostgreSQLReflector


class PostgreSQL(PostgreSQLReflector, PostgreSQLDDL, PostgreSQLData, Engine):
    name = "postgresql"
    family = "postgresql"
    default_version = "15.0"
