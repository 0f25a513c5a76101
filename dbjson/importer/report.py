"""What an import returns: its report (the progress events it sends while it runs are :mod:`dbjson.events`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import DbjsonError


@dataclass
class TableResult:
    """What happened to one table."""

    name: str
    target: str
    rows: int = 0
    rejected: int = 0
    units: int = 0
    skipped: bool = False


@dataclass
class DryRun:
    """What an import (or migrate) would do to its target, found without changing it
    (``dry_run=True``): per table what happens to it, the DDL in order, the units of rows, and
    what would stop the real run (the pre-flight's findings and the translation's losses are
    the report's ``findings`` and ``translation``)."""

    actions: dict[str, str] = field(default_factory=dict)  # table → what the import does to it
    pre_data: list[str] = field(default_factory=list)  # statements before the rows
    units: list[dict[str, Any]] = field(default_factory=list)  # {"table", "file", "rows", "bytes"}
    post_data: list[str] = field(default_factory=list)  # statements after the rows
    errors: list[DbjsonError] = field(default_factory=list)  # what would make the real run fail, as it would

    @property
    def problems(self) -> list[str]:
        """What would make the real run fail, as text."""
        return [str(e) for e in self.errors]

    def error(self) -> DbjsonError | None:
        """The error the real run would stop with (the first problem, listing them all), or None."""
        if not self.errors:
            return None
        first = self.errors[0]
        return type(first)(
            f"the real run would fail: {first}",
            table=first.table,
            column=first.column,
            file=first.file,
            problems=self.problems,
            hint=first.hint or "fix what is listed, then run again without --dry-run",
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "actions": dict(sorted(self.actions.items())),
            "pre_data": self.pre_data,
            "units": self.units,
            "post_data": self.post_data,
            "problems": self.problems,
        }


@dataclass
class ImportReport:
    """The outcome of an import (``to_dict`` for ``--json``)."""

    target: str
    tables: dict[str, TableResult] = field(default_factory=dict)
    rows: int = 0
    bytes: int = 0
    rejected: int = 0
    seconds: float = 0.0
    threads: int = 1
    resumed_units: int = 0
    findings: list[Any] = field(default_factory=list)
    translation: list[str] = field(default_factory=list)
    verify: Any = None
    rejects_dir: str | None = None
    dry_run: DryRun | None = None  # set by a dry run, which loads nothing
    phases: dict[str, float] = field(default_factory=dict)  # seconds spent in each phase (``seconds``: all of them)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "rows": self.rows,
            "bytes": self.bytes,
            "rejected": self.rejected,
            "seconds": round(self.seconds, 3),
            "threads": self.threads,
            "resumed_units": self.resumed_units,
            "phases": {k: round(v, 3) for k, v in self.phases.items()},
            "tables": {k: vars(v) for k, v in sorted(self.tables.items())},
            "findings": [f.to_dict() for f in self.findings],
            "translation": self.translation,
            "verify": self.verify.to_dict() if self.verify is not None else None,
            "rejects": self.rejects_dir,
            **({"dry_run": self.dry_run.to_dict()} if self.dry_run is not None else {}),
        }
