"""mysql: export (placeholder to be filled)."""

from __future__ import annotations


class MySQLExport:
    pass
