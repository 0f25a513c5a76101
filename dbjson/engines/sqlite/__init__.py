"""SQLite (the embedded default)."""

from __future__ import annotations

from ..base import Engine
from ..interface import Capabilities
from .ddl import SQLiteDDL
from .export import SQLiteExport
from .load import SQLiteLoad
from .reflect import SQLiteReflector


class SQLite(SQLiteReflector, SQLiteDDL, SQLiteExport, SQLiteLoad, Engine):
    name = "sqlite"
    family = "sqlite"
    default_version = "3.40.0"
    capabilities = Capabilities(
        schemas=False,
        cluster_snapshot=None,  # a file on one machine
        mariadb=False,
        server_side_json=False,  # no server-side lines: every row goes through the Python codec
        filters_preflight=False,
        parallel_writers=False,  # SQLite serializes writers
        unit_locks_table=False,  # (one writer anyway)
        checks_foreign_keys=False,  # foreign keys stay off during the load
        defers_primary_key=False,  # SQLite cannot add a primary key to an existing table
        parallel_index_builds=False,  # one writer
        holds_zero_dates=True,  # as text
        native_stream=None,  # see dbjson.engines.interface.Capabilities
        elapsed_time=False,
        dates_as_text=True,
        decimals_as_float=True,
        text_holds_nul=True,
        json_numbers_exact=False,
        integer_limit=(-(1 << 63), (1 << 63) - 1),  # every INTEGER is a signed 64-bit value
        bulk_text=None,  # executemany with Python values
        verify_parts=False,
    )
