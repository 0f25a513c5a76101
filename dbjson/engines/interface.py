"""The engine contract: the values that cross between the commands and the engine packages.

Layer: engines. The commands (export, import, verify, migrate, reflect) build these values and hand
them to an engine's hooks; the engines read them and never import a command module.
"""

from __future__ import annotations

import fnmatch
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .. import model as m
from ..format.checksum import DEFAULT_CHECKSUM
from ..format.datafiles import DataFile
from ..format.manifest import SnapshotInfo

BLOCK_BYTES = 1 << 18  # engines yield export blocks of about this size


@dataclass
class ExportUnit:
    """One slice of one table: ``lower <= key < upper`` over ``key_columns`` (None = unbounded)."""

    schema: str
    table: m.Table
    index: int = 0  # position within the table's units
    count: int = 1  # number of units of the table
    key_columns: tuple[str, ...] = ()
    lower: tuple[Any, ...] | None = None
    upper: tuple[Any, ...] | None = None
    rows_estimate: int = 0
    where: str | None = None

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.table.name}"


class ExportEngine(Protocol):
    """What an engine's export mixin provides (``engines/<family>/export.py``)."""

    def export_session(self, conn: Any) -> None: ...

    def export_snapshot(
        self, coordinator: Any, workers: Sequence[Any], warn: Callable[[str], None]
    ) -> SnapshotInfo: ...

    def export_estimate(self, conn: Any, schema: str, table: m.Table) -> int | None: ...

    def export_refresh(self, conn: Any) -> None: ...

    def export_count(self, conn: Any, schema: str, table: m.Table, where: str | None) -> int: ...

    def export_key_bounds(
        self, conn: Any, schema: str, table: m.Table, column: str, where: str | None
    ) -> tuple[Any, Any]: ...

    def export_key_boundaries(
        self, conn: Any, schema: str, table: m.Table, columns: Sequence[str], where: str | None, every: int, limit: int
    ) -> list[tuple[Any, ...]]: ...

    def export_stream(self, conn: Any, unit: ExportUnit, stop: threading.Event) -> Iterator[bytes]: ...

    def export_abort(self, conn: Any) -> None: ...


@dataclass
class TablePlan:
    """One table to load: source and target names, column mapping and the column options."""

    schema: str
    name: str
    table: m.Table
    tschema: str | None
    tname: str
    columns: list[m.Column]  # source columns present in the data, in ordinal order
    target_names: list[str]
    target_types: list[m.Type]
    fixed: dict[str, str] = field(default_factory=dict)  # target column → value (text)
    exprs: dict[str, str] = field(default_factory=dict)  # target column → SQL expression
    increments: dict[str, int] = field(default_factory=dict)  # target column → first value
    files: list[DataFile] = field(default_factory=list)
    rows: int | None = None
    checksum: str | None = None
    checksum_algorithm: str = DEFAULT_CHECKSUM  # the manifest's, for ``checksum``
    skipped: bool = False
    base_rows: int = 0  # rows the table had before this import (--data-only into a non-empty table)
    kept: bool = False  # the table was already there (--if-exists truncate): its indexes and keys too
    # Source column → how the load changes its values on purpose (zero dates → NULL, NUL characters
    # stripped or replaced): see dbjson.preflight.value_rules; verify applies the same rules.
    value_rules: dict[str, str] = field(default_factory=dict)
    ddl_only: bool = False  # a PostgreSQL partition: created, its rows come with its partitioned table
    # Every column of the lines (manifest order) with its target name and type: what verify reads.
    verify_columns: list[tuple[m.Column, str, m.Type]] = field(default_factory=list)

    @property
    def display(self) -> str:
        return f"{self.schema}.{self.name}" if self.schema else self.name

    @property
    def insert_columns(self) -> list[str]:
        """Target columns fed with values, in row-tuple order: data, fixed values, counters."""
        return self.target_names + list(self.fixed) + list(self.increments)

    @property
    def altered(self) -> bool:
        """True when column options change the content (verify then compares counts only)."""
        return bool(self.fixed or self.exprs or self.increments)


@dataclass(frozen=True, kw_only=True)
class ReflectOptions:
    """What to reflect. Globs match ``table`` or ``schema.table`` (case-sensitive)."""

    tables: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    grants: bool = False
    schemas: tuple[str, ...] = ()  # PostgreSQL schemas / MySQL databases; () = the URL's default

    def wants(self, schema: str, table: str) -> bool:
        names = (table, f"{schema}.{table}")
        if self.tables and not any(fnmatch.fnmatchcase(n, g) for g in self.tables for n in names):
            return False
        return not any(fnmatch.fnmatchcase(n, g) for g in self.exclude for n in names)
