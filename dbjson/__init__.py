"""dbjson: move whole relational databases between MySQL, MariaDB, PostgreSQL and SQLite through
an open JSON format.

The library API mirrors the CLI:

* :func:`reflect` (``schema-dump``) → :class:`Database`
* :func:`to_ddl` (``schema-load``) → :class:`DdlPlan`
* :func:`export_database` (``export``), :func:`import_database` (``import``), :func:`verify`
* :func:`diff` (``diff``) → :class:`SchemaDiff`, :func:`diff_ddl` (``diff --ddl``)
* :func:`migrate` (``migrate``): export + import in one streamed pipeline
* :func:`validate` checks a document against the JSON Schemas.

The library never prints and never exits; every error is a :class:`DbjsonError`.
"""

from __future__ import annotations

from typing import Any

from .__about__ import FORMAT_VERSION, __version__
from .errors import (
    ApplyError,
    Cancelled,
    ConnectionFailed,
    DataError,
    DbjsonError,
    DocumentError,
    TranslationError,
    UnsupportedError,
    UsageError,
    VerifyError,
)
from .model import Database
from .reflect import reflect
from .validate import Problem, validate

# Eager, not lazy: the submodule ``dbjson.verify`` would otherwise replace the lazy attribute as soon
# as anything imports it, and ``dbjson.verify(...)`` would call a module.
from .verify import verify

# Eager for the same reason (``dbjson.migrate`` is both a module and its entry point).
from .migrate import migrate  # noqa: E402

_LAZY = {
    "to_ddl": ("dbjson.ddl", "to_ddl"),
    "apply_ddl": ("dbjson.ddl", "apply_ddl"),
    "DdlPlan": ("dbjson.ddl", "DdlPlan"),
    "export_database": ("dbjson.export", "export_database"),
    "import_database": ("dbjson.importer", "import_database"),
    "diff": ("dbjson.schemadiff", "diff"),
    "diff_ddl": ("dbjson.schemadiff", "diff_ddl"),
    "SchemaDiff": ("dbjson.schemadiff", "SchemaDiff"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        mod, attr = _LAZY[name]
        return getattr(importlib.import_module(mod), attr)
    raise AttributeError(name)


__all__ = [
    "__version__", "FORMAT_VERSION", "Database", "reflect", "validate", "Problem",
    "to_ddl", "apply_ddl", "DdlPlan", "export_database", "import_database", "verify", "diff", "diff_ddl", "SchemaDiff", "migrate",
    "DbjsonError", "UsageError", "ConnectionFailed", "DocumentError", "TranslationError", "DataError",
    "VerifyError", "ApplyError", "Cancelled", "UnsupportedError",
]
