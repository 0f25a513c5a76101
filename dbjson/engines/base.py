"""The engine base class.

An engine class is assembled from four mixins, one per concern, each in its own module of the
engine's package: ``reflect.py`` (catalog → model), ``ddl.py`` (model → DDL for this engine) and
``export.py`` (snapshot, row export) and ``load.py`` (bulk load). Data tables (limits, capabilities, type
mappings, reserved words) come from ``dialects/<name>.toml``, never from code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..resources import dialect_table


class Engine:
    name: str = "base"  # mysql | mariadb | postgresql | sqlite
    family: str = "base"  # mysql | postgresql | sqlite
    default_version: str = "0"

    def __init__(self, server_version: str | None = None) -> None:
        self.server_version = server_version or self.default_version

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.server_version}>"

    # -- data tables ----------------------------------------------------------------------------
    @property
    def table(self) -> dict[str, Any]:
        """This engine's data table from ``dialects/<name>.toml``."""
        return dialect_table(self.name)

    @property
    def version(self) -> tuple[int, ...]:
        m = re.match(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", self.server_version or "")
        if not m:
            return (0,)
        return tuple(int(g) for g in m.groups() if g is not None)

    @property
    def max_identifier_length(self) -> int:
        return int(self.table.get("limits", {}).get("identifier_length", 64))

    # -- identifiers ----------------------------------------------------------------------------
    quote_char = '"'

    def quote(self, ident: str) -> str:
        """Quote an identifier, always (doubling the quote character inside it)."""
        q = self.quote_char
        return q + ident.replace(q, q + q) + q

    def qualify(self, schema: str | None, name: str) -> str:
        return f"{self.quote(schema)}.{self.quote(name)}" if schema else self.quote(name)

    def literal(self, value: str) -> str:
        """A SQL string literal."""
        return "'" + value.replace("'", "''") + "'"

    def load_truncate_tables(self, conn: Any, tables: Sequence[tuple[str | None, str]]) -> None:
        """Empty the tables ``--if-exists truncate`` keeps, one ``load_truncate`` each: a load
        session that does not check foreign keys (MySQL/MariaDB, SQLite) may empty them in any
        order; PostgreSQL overrides it (one statement, never CASCADE)."""
        for schema, table in tables:
            self.load_truncate(conn, schema, table)  # type: ignore[attr-defined]
