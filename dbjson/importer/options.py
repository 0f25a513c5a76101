"""The options of an import (:class:`ImportOptions`) and their vocabulary.

The value policies (``--zero-dates``, ``--nul``) are the pre-flight's vocabulary
(:data:`dbjson.preflight.ZERO_DATES`, :data:`dbjson.preflight.NUL_POLICIES`): the pre-flight
reports them, the load and the verification apply them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..preflight import NUL_POLICIES, ZERO_DATES
from ..ratelimit import RateLimit

# Seconds a unit, a statement or a reconnection keeps retrying a transient failure (a lost
# connection, a lock timeout, a deadlock) from its first failure: long enough for a server restart.
DEFAULT_RETRY_BUDGET = 60.0

# ``--if-exists`` of ``dbjson import`` and ``dbjson migrate`` (``dbjson schema-load`` has no truncate).
IMPORT_IF_EXISTS = ("fail", "skip", "truncate", "replace")


def default_load_threads() -> int:
    """The default thread limit of import, verify and migrate: the machine's cores, at most 8."""
    return max(1, min(8, os.cpu_count() or 1))


@dataclass(frozen=True)
class ImportOptions:
    """How an import runs (the options of :func:`dbjson.import_database`, checked when made).

    ``tables``/``exclude`` are globs over ``table`` or ``schema.table``. The column options map
    ``"table.column"`` (or ``"schema.table.column"``) to a fixed value (``set_values``), an SQL
    expression (``set_sql``), a counter's first value (``increments``) or the target column's
    name (``renames``); :func:`parse_assignments` reads them from ``TABLE.COLUMN=VALUE`` strings.
    ``nul`` None: the policy is not known (``dbjson verify`` without the import's record).
    """

    threads: int = field(default_factory=default_load_threads)
    tables: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    schema_only: bool = False
    data_only: bool = False
    if_exists: str = "fail"
    resume: bool = False
    strict: bool = False
    zero_dates: str = "null"
    nul: str | None = "error"
    max_errors: int = 0
    verify: bool = True
    retry_budget: float = DEFAULT_RETRY_BUDGET
    privileges: bool = True  # apply the document's object privileges (where their roles exist)
    grants: bool = False  # create the document's users and roles, with their grants
    casts: tuple[Any, ...] = ()  # type-mapping rules (dbjson.casts: strings or CastRule)
    set_values: Mapping[str, Any] = field(default_factory=dict)
    set_sql: Mapping[str, str] = field(default_factory=dict)
    increments: Mapping[str, int] = field(default_factory=dict)
    renames: Mapping[str, str] = field(default_factory=dict)
    untrusted: bool = False  # the schema document's code does not run (docs/security.md)
    max_rate: RateLimit | None = None  # --max-rate: rows or bytes per second of all loaders together

    def __post_init__(self) -> None:
        if self.if_exists not in IMPORT_IF_EXISTS:
            raise UsageError(f"--if-exists must be one of {', '.join(IMPORT_IF_EXISTS)}")
        if self.zero_dates not in ZERO_DATES:
            raise UsageError("--zero-dates must be null or error")
        if self.nul is not None and self.nul not in NUL_POLICIES:
            raise UsageError("--nul must be error, strip or replace")
        if self.schema_only and self.data_only:
            raise UsageError("--schema-only and --data-only exclude each other")
        if self.max_errors < 0:
            raise UsageError("--max-errors must be ≥ 0")
        if not self.retry_budget >= 0:
            raise UsageError("--retry-budget must be ≥ 0 seconds")


def split_option(key: str, what: str) -> tuple[str, str]:
    """``"table.column"`` (or ``"schema.table.column"``) → ``(table, column)``; ``what`` names the option."""
    table, dot, col = key.rpartition(".")
    if not dot or not table or not col:
        raise UsageError(f"{what} needs TABLE.COLUMN, got {key!r}")
    return table, col


def parse_assignments(items: Sequence[str] | Mapping[str, Any], what: str) -> dict[str, Any]:
    """A column option as a mapping: ``["table.col=value"]`` strings parsed (a mapping is taken as it is)."""
    if isinstance(items, Mapping):
        return dict(items)
    out: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"{what} needs TABLE.COLUMN=VALUE, got {item!r}")
        split_option(key.strip(), what)
        out[key.strip()] = value
    return out


def int_option(value: Any, key: str) -> int:
    """The first value of ``--increment key``: an integer."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UsageError(f"--increment {key}: the start must be an integer, got {value!r}") from None
