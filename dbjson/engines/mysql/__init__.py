"""MySQL and MariaDB (MariaDB subclasses MySQL and overrides only what differs)."""

from __future__ import annotations

from ..base import Engine
from .ddl import MySQLDDL
from .export import MySQLExport
from .load import MySQLLoad
from .preflight import MySQLPreflight
from .reflect import MySQLReflector


class MySQL(MySQLReflector, MySQLDDL, MySQLExport, MySQLLoad, MySQLPreflight, Engine):
    name = "mysql"
    family = "mysql"
    default_version = "9.1.0"
    quote_char = "`"

    @property
    def is_mariadb(self) -> bool:
        return False

    def literal(self, value: str) -> str:
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


class MariaDB(MySQL):
    name = "mariadb"
    default_version = "10.11.0-MariaDB"

    @property
    def is_mariadb(self) -> bool:
        return True
