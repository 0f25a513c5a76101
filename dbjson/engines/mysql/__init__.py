"""MySQL and MariaDB (MariaDB subclasses MySQL and overrides only what differs)."""

from __future__ import annotations

import dataclasses

from ..base import Engine
from ..interface import Capabilities
from ..shared.bulktext import LOAD_DATA_TEXT
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
    capabilities = Capabilities(
        schemas=False,
        cluster_snapshot="held",  # sessions join while the coordinator holds the backup lock (Dask actors)
        mariadb=False,
        server_side_json=True,
        filters_preflight=True,  # MySQLPreflight
        parallel_writers=True,
        unit_locks_table=False,  # MySQL: units of one table insert side by side
        checks_foreign_keys=False,  # the load session sets foreign_key_checks = 0
        defers_primary_key=False,  # InnoDB clusters rows by the primary key: it comes with the table
        parallel_index_builds=False,  # its ALTER TABLEs wait for each other (metadata lock)
        holds_zero_dates=True,
        native_stream=None,  # see dbjson.engines.interface.Capabilities
        elapsed_time=True,  # TIME: -838:59:59..838:59:59
        dates_as_text=False,
        decimals_as_float=False,
        text_holds_nul=True,
        json_numbers_exact=False,  # binary JSON keeps numbers as doubles
        integer_limit=None,
        bulk_text=LOAD_DATA_TEXT,
        verify_parts=True,
        holds_infinite_dates=False,  # 'infinity' loads as NULL or stops the import (MySQLLoader)
    )

    @property
    def is_mariadb(self) -> bool:
        return self.capabilities.mariadb

    def literal(self, value: str) -> str:
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


class MariaDB(MySQL):
    name = "mariadb"
    default_version = "10.11.0-MariaDB"
    # a bulk insert into an empty table locks the table until it commits (MariaDB 10.6+)
    capabilities = dataclasses.replace(MySQL.capabilities, mariadb=True, unit_locks_table=True)
