"""mysql: reflect (placeholder to be filled)."""

from __future__ import annotations


class MySQLReflector:
    pass
