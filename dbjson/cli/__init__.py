"""The ``dbjson`` command line: a thin layer over the library.

Each command parses its arguments, calls one library function, and renders the events and the
report that come back. Errors from the library are printed on stderr (never a traceback, never a
password) and turned into the documented exit codes (docs/cli.md).
"""

from __future__ import annotations

from . import data as _data  # noqa: E402,F401
from . import diff as _diff  # noqa: E402,F401
from . import load as _load  # noqa: E402,F401
from . import migrate as _migrate  # noqa: E402,F401

# Command modules register themselves on ``app``.
from . import schema as _schema  # noqa: E402,F401
from .common import app, main

__all__ = ["app", "main"]
