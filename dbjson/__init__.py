"""dbjson: move whole relational databases between MySQL, MariaDB, PostgreSQL and SQLite through
an open JSON format.

The library API mirrors the CLI:

* :func:`reflect` (``schema-dump``) → :class:`Database`
* :func:`to_ddl` (``schema-load``) → :class:`DdlPlan`
* :func:`export_database` (``export``), :func:`import_database` (``import``), :func:`verify`
* :func:`diff` (``diff``) → :class:`SchemaDiff`, :func:`diff_ddl` (``diff --ddl``)
* :func:`migrate` (``migrate``): export + import in one streamed pipeline
* :func:`validate` checks a document against the JSON Schemas.
* :func:`read_table`: an exported table's rows as typed Python values (``dbjson sql duckdb``: typed views).

The library never prints and never exits; every error is a :class:`DbjsonError`.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from .__about__ import FORMAT_VERSION, __version__
from .errors import (
    ApplyError,
    Cancelled,
    ConnectionFailed,
    DataError,
    DbjsonError,
    DocumentError,
    RetriesExhausted,
    TranslationError,
    UnsupportedError,
    UsageError,
    VerifyError,
)

if TYPE_CHECKING:
    from .analytics import read_table
    from .ddl import DdlPlan
    from .export import export_database
    from .importer import import_database
    from .migrate import migrate
    from .model import Database
    from .reflect import reflect
    from .schemadiff import SchemaDiff, diff, diff_ddl
    from .schemaload import apply_ddl, to_ddl
    from .validate import Problem, validate
    from .verify import verify

# The API is imported on first use, so that ``import dbjson`` (and every CLI command) does not pay
# for the whole library: name -> (module, attribute).
_LAZY = {
    "Database": ("dbjson.model", "Database"),
    "reflect": ("dbjson.reflect", "reflect"),
    "validate": ("dbjson.validate", "validate"),
    "Problem": ("dbjson.validate", "Problem"),
    "verify": ("dbjson.verify", "verify"),
    "migrate": ("dbjson.migrate", "migrate"),
    "to_ddl": ("dbjson.schemaload", "to_ddl"),
    "apply_ddl": ("dbjson.schemaload", "apply_ddl"),
    "DdlPlan": ("dbjson.ddl", "DdlPlan"),
    "export_database": ("dbjson.export", "export_database"),
    "import_database": ("dbjson.importer", "import_database"),
    "diff": ("dbjson.schemadiff", "diff"),
    "diff_ddl": ("dbjson.schemadiff", "diff_ddl"),
    "SchemaDiff": ("dbjson.schemadiff", "SchemaDiff"),
    "read_table": ("dbjson.analytics", "read_table"),
}

# ``reflect``, ``validate``, ``verify`` and ``migrate`` are both submodules and the functions they
# define. Importing a submodule sets it as an attribute of its package, which would turn
# ``dbjson.verify(...)`` into a call of a module once anything imported ``dbjson.verify``. The
# package's class therefore refuses to let a submodule replace one of these names: the attribute
# stays unset until first use, when ``__getattr__`` resolves it to the function (and caches it).
# ``from dbjson.verify import ...`` and ``import dbjson.verify`` still work (through sys.modules).
_ENTRY_POINTS = frozenset({"reflect", "validate", "verify", "migrate"})


class _Package(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        if name in _ENTRY_POINTS and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        mod, attr = _LAZY[name]
        value = getattr(importlib.import_module(mod), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "__version__",
    "FORMAT_VERSION",
    "Database",
    "reflect",
    "validate",
    "Problem",
    "to_ddl",
    "apply_ddl",
    "DdlPlan",
    "export_database",
    "import_database",
    "verify",
    "diff",
    "diff_ddl",
    "SchemaDiff",
    "migrate",
    "read_table",
    "DbjsonError",
    "UsageError",
    "ConnectionFailed",
    "DocumentError",
    "TranslationError",
    "DataError",
    "RetriesExhausted",
    "VerifyError",
    "ApplyError",
    "Cancelled",
    "UnsupportedError",
]
