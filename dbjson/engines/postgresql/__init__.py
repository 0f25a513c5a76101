"""PostgreSQL."""

from __future__ import annotations

from ..base import Engine
from .ddl import PostgreSQLDDL
from .export import PostgreSQLExport
from .load import PostgreSQLLoad
from .reflect import PostgreSQLReflector


class PostgreSQL(PostgreSQLReflector, PostgreSQLDDL, PostgreSQLExport, PostgreSQLLoad, Engine):
    name = "postgresql"
    family = "postgresql"
    default_version = "15.0"
