"""The engine base class: every hook of the contract declared, the optional ones with a default.

An engine class is assembled from one mixin per concern, each in its own module of the engine's
package: ``reflect.py`` (catalog → model), ``ddl.py`` (model → DDL for this engine), ``export.py``
(snapshot, row export) and ``load.py`` (bulk load, verify's read-back), plus :class:`Engine`
last. :class:`Engine` inherits the roles of :mod:`dbjson.engines.interface`, so mypy checks each
mixin's hooks against the contract, and a call on an ``Engine`` needs no ``hasattr``: what differs
between engines is ``capabilities``. Data tables (limits, DDL capabilities, type mappings,
reserved words) come from ``dialects/<name>.toml``, never from code.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .. import model as m
from ..connect import Target
from ..ddl.plan import Statement
from ..errors import UnsupportedError
from ..format.manifest import SnapshotInfo
from ..resources import dialect_table
from .interface import (
    Capabilities,
    DdlDialect,
    Exporter,
    ExportUnit,
    Loader,
    Reflector,
    TablePlan,
    VerifyReader,
)
from .shared.bulktext import BulkText, encode_columns, encode_rows


class Engine(Reflector, DdlDialect, Exporter, Loader, VerifyReader):
    """One engine at one server version: the hooks of every role, and what it can do."""

    name: str = "base"  # mysql | mariadb | postgresql | sqlite
    family: str = "base"  # mysql | postgresql | sqlite
    default_version: str = "0"
    capabilities: Capabilities  # set by each engine class
    # export connections are opened at the same time on threads (the driver waits for the server
    # without the GIL); False where a connection is mostly Python work (PyMySQL's handshake)
    export_connect_concurrently: bool = False
    # export.plan_tables shares the tables out to every worker: a table's plan is the same on any
    # connection of the snapshot. False for MySQL: TABLE_ROWS depends on the session's statistics
    # cache (reflection sets information_schema_stats_expiry = 0 on its connection only), and with
    # fresh statistics two connections were no faster (200 tables: 406 vs 412 ms)
    export_plan_concurrently: bool = False

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

    # -- defaults of the optional hooks (see the roles in dbjson.engines.interface) -------------
    def preflight_condition(self, column: m.Column, cond: tuple[Any, ...]) -> str | None:
        """None: no pre-flight condition can be expressed (``capabilities.filters_preflight`` is False)."""
        return None

    def export_cluster_snapshot(
        self, coordinator: Any, join_all: Callable[[SnapshotInfo], None], warn: Callable[[str], None]
    ) -> SnapshotInfo:
        raise UnsupportedError(f"{self.name}: no snapshot shared across machines (export without --cluster)")

    def export_join_snapshot(self, conn: Any, snapshot: SnapshotInfo) -> None:
        raise UnsupportedError(f"{self.name}: no snapshot shared across machines (export without --cluster)")

    def load_truncate_tables(self, conn: Any, tables: Sequence[tuple[str | None, str]]) -> None:
        """Empty the tables ``--if-exists truncate`` keeps, one ``load_truncate`` each: a load
        session that does not check foreign keys (MySQL/MariaDB, SQLite) may empty them in any
        order; PostgreSQL overrides it (one statement, never CASCADE)."""
        for schema, table in tables:
            self.load_truncate(conn, schema, table)

    def load_not_null_columns(self, conn: Any, schema: str | None, table: str) -> set[str]:
        """Unsupported unless the engine reads them (PostgreSQL, where zero dates load as NULL)."""
        raise UnsupportedError(f"{self.name}: reading a table's NOT NULL columns is not supported")

    def load_existing_roles(self, conn: Any) -> set[str] | None:
        """None: the engine has no roles to read (SQLite)."""
        return None

    def load_merge_indexes(self, statements: Sequence[Statement]) -> list[Statement]:
        """The statements unchanged: one statement per index."""
        return list(statements)

    def _bulk_text(self) -> BulkText:
        fmt = self.capabilities.bulk_text
        if fmt is None:
            raise UnsupportedError(f"{self.name} loads no bulk text")
        return fmt

    def load_bulk_op(self, src: m.Type, tgt: m.Type, *, zero_dates: str = "null") -> str | None:
        """Unsupported without ``capabilities.bulk_text``."""
        raise UnsupportedError(f"{self.name} loads no bulk text")

    def load_encode_rows(self, rows: Sequence[Sequence[Any]]) -> bytes:
        """The engine's bulk text (``capabilities.bulk_text``) of converted rows."""
        return encode_rows(rows, self._bulk_text())

    def load_encode_columns(self, cols: Sequence[Sequence[Any]]) -> bytes:
        """The engine's bulk text (``capabilities.bulk_text``) of converted rows given as columns."""
        return encode_columns(cols, self._bulk_text())

    def load_can_encode(self, conn: Any, tp: TablePlan) -> bool:
        """False: the engine takes no encoded blocks (it has no ``capabilities.bulk_text``)."""
        return False

    def load_unit_encoded(self, conn: Any, tp: TablePlan, blocks: Iterator[bytes]) -> int:
        """Unsupported without ``capabilities.bulk_text``."""
        raise UnsupportedError(f"{self.name} loads no bulk text")

    def export_native_stream(
        self, conn: Any, unit: ExportUnit, columns: Sequence[str], stop: threading.Event
    ) -> Iterator[bytes]:
        """Unsupported without ``capabilities.native_stream``."""
        raise UnsupportedError(f"{self.name} has no native row stream")

    def load_native_refusal(self, tp: TablePlan, source: Any) -> str | None:
        """Always refused without ``capabilities.native_stream``."""
        return f"{self.name} loads no native row stream"

    def load_native_unit(self, conn: Any, tp: TablePlan, blocks: Iterator[bytes]) -> int:
        """Unsupported without ``capabilities.native_stream``."""
        raise UnsupportedError(f"{self.name} loads no native row stream")

    def verify_native_checksum(
        self,
        target: Target,
        tp: TablePlan,
        part: tuple[str, int, int] | None = None,
        seal: dict[str, int] | None = None,
    ) -> Any:
        """None: no native row format to read back."""
        return None

    def verify_native_unchanged(self, target: Target, tp: TablePlan, seal: dict[str, int]) -> bool:
        """False: nothing to prove it with."""
        return False

    def load_error_detail(self, exc: BaseException) -> tuple[str | None, str | None]:
        """Neither a constraint nor a detail line (the server's message says it all)."""
        return None, None

    def verify_export_column(self, source: m.Column, target: m.Type) -> m.Column:
        st = source.type
        if st.kind == "integer" and target.kind == "integer" and (st.bits or 64) <= 32 < (target.bits or 64):
            # a 32-bit unsigned integer widened to a bigint: a JSON number in the source's lines,
            # where a 64-bit integer is a string
            return m.replace(source, type=m.replace(target, bits=st.bits))
        return m.replace(source, type=target)

    def load_durability(self, conn: Any) -> str | None:
        """Nothing known to lose acknowledged commits."""
        return None

    def load_lock_holders(self, conn: Any, schema: str | None, table: str) -> list[str]:
        """No lock information."""
        return []

    def load_session(self, conn: Any) -> str | None:
        """No session ids (an embedded engine: a killed import's transaction dies with it)."""
        return None

    def load_sessions_busy(self, conn: Any, sessions: Sequence[str]) -> list[str]:
        """No session ids: none busy."""
        return []
