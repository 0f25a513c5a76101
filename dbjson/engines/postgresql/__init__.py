"""PostgreSQL."""

from __future__ import annotations

from ..base import Engine
from ..interface import Capabilities
from ..shared.bulktext import COPY_TEXT
from .ddl import PostgreSQLDDL
from .export import PostgreSQLExport
from .load import PostgreSQLLoad
from .preflight import PostgreSQLPreflight
from .reflect import PostgreSQLReflector


class PostgreSQL(PostgreSQLReflector, PostgreSQLDDL, PostgreSQLExport, PostgreSQLLoad, PostgreSQLPreflight, Engine):
    name = "postgresql"
    family = "postgresql"
    default_version = "15.0"
    capabilities = Capabilities(
        schemas=True,
        cluster_snapshot="exported",  # pg_export_snapshot: any task joins with SET TRANSACTION SNAPSHOT
        mariadb=False,
        server_side_json=True,
        filters_preflight=True,  # PostgreSQLPreflight
        parallel_writers=True,
        unit_locks_table=False,
        checks_foreign_keys=True,  # no session switch turns a kept table's foreign keys off
        # Tables the import creates get their primary key after the data (as pg_restore does): COPY
        # into an unindexed heap, then one ALTER TABLE ... ADD PRIMARY KEY (bench/analysis.md).
        defers_primary_key=True,
        parallel_index_builds=True,
        holds_zero_dates=False,  # zero dates load as NULL (--zero-dates null) or stop the import
        native_stream="postgresql-copy-text",  # see dbjson.engines.interface.Capabilities
        elapsed_time=False,  # time: a time of day
        dates_as_text=False,
        decimals_as_float=False,
        text_holds_nul=False,  # text and jsonb cannot hold U+0000 (--nul error|strip|replace)
        json_numbers_exact=True,  # jsonb numbers are numeric: json columns load the line's text, not doubles
        integer_limit=None,
        bulk_text=COPY_TEXT,
        verify_parts=True,
    )
