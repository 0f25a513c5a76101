"""postgresql: ddl (placeholder to be filled)."""

from __future__ import annotations


class PostgreSQLDDL:
    pass
