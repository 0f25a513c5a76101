"""postgresql: data (placeholder to be filled)."""

from __future__ import annotations


class PostgreSQLData:
    pass
