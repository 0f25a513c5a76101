"""``dbjson import``: load an export directory (or a stream of lines) into a database.

:func:`import_database` and :func:`import_table_stream` are the library's entry points; the
modules, in the order an import uses them:

* :mod:`.options`: :class:`ImportOptions` and the ``--if-exists`` vocabulary;
* :mod:`.plan`: which tables load where (the DDL plan, renames, column options), also used by
  ``dbjson verify``;
* :mod:`.session`: the connections to the target, the thread pool, the worker processes;
* :mod:`.run`: :class:`Importer`, the phases (DDL, pre-flight, rows, verify) and the load loop;
* :mod:`.reader`, :mod:`.convert`, :mod:`.encoders`: a data file's lines read, converted and
  encoded for the engine's bulk path (in worker processes when it pays);
* :mod:`.report`: :class:`ImportReport` (the progress events are :mod:`dbjson.events`);
* :mod:`.stream`: one table from a stream (``dbjson import --table T -``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .options import IMPORT_IF_EXISTS, ImportOptions, default_load_threads
from .report import ImportReport, TableResult
from .stream import import_table_stream

if TYPE_CHECKING:
    from .run import Importer, import_database

# The names of .run are loaded on first use, not here: .run imports dbjson.verify, which imports
# this package's .plan, .session and .report, so importing one of those must not import .run.
_FROM_RUN = frozenset({"Importer", "import_database"})


def __getattr__(name: str) -> Any:
    if name in _FROM_RUN:
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _FROM_RUN)


__all__ = [
    "import_database",
    "import_table_stream",
    "Importer",
    "ImportOptions",
    "ImportReport",
    "TableResult",
    "IMPORT_IF_EXISTS",
    "default_load_threads",
]
