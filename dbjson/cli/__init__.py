"""The ``dbjson`` command line: a thin layer over the library.

Each command parses its arguments, calls one library function, and renders the events and the
report that come back. Errors from the library are printed on stderr (never a traceback, never a
password) and turned into the documented exit codes (docs/cli.md).
"""

from __future__ import annotations

from .common import app, main

# Command modules register themselves on ``app``, in this order: the order of ``dbjson --help``.
# isort: off
from . import schema as _schema  # noqa: F401
from . import data as _data  # noqa: F401
from . import load as _load  # noqa: F401
from . import diff as _diff  # noqa: F401
from . import migrate as _migrate  # noqa: F401

# isort: on

__all__ = ["app", "main"]
