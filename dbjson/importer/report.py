"""What an import returns: its report (the progress events it sends while it runs are :mod:`dbjson.events`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "rows": self.rows,
            "bytes": self.bytes,
            "rejected": self.rejected,
            "seconds": round(self.seconds, 3),
            "threads": self.threads,
            "resumed_units": self.resumed_units,
            "tables": {k: vars(v) for k, v in sorted(self.tables.items())},
            "findings": [f.to_dict() for f in self.findings],
            "translation": self.translation,
            "verify": self.verify.to_dict() if self.verify is not None else None,
            "rejects": self.rejects_dir,
        }
