"""The ``dbjson`` command line: a thin layer over the library.

Each command (one module per command, named after it) parses its arguments, calls one library
function, and renders the events (:mod:`.progress`) and the report that come back. Errors from the
library are printed on stderr (never a traceback, never a password) and turned into the
documented exit codes (docs/cli.md). Every command module is imported when ``dbjson`` starts, so
each imports its library modules inside the command function ("lazy: start-up time").
"""

from __future__ import annotations

from .common import app, main

# Command modules register themselves on ``app``, in this order: the order of ``dbjson --help``.
# isort: off
from . import schema_dump as _schema_dump  # noqa: F401
from . import validate as _validate  # noqa: F401
from . import schema_load as _schema_load  # noqa: F401
from . import export as _export  # noqa: F401
from . import import_ as _import  # noqa: F401
from . import verify as _verify  # noqa: F401
from . import diff as _diff  # noqa: F401
from . import migrate as _migrate  # noqa: F401
from . import sql as _sql  # noqa: F401

# isort: on

__all__ = ["app", "main"]
