"""mysql: load (placeholder to be filled)."""

from __future__ import annotations


class MySQLLoad:
    pass
