"""postgresql: reflect (placeholder to be filled)."""

from __future__ import annotations


class PostgreSQLReflector:
    pass
