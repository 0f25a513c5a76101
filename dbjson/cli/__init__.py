"""The ``dbjson`` command line: a thin layer over the library.

Each command (one module per command, named after it) parses its arguments, calls one library
function, and renders the events (:mod:`.progress`) and the report that come back. Errors from the
library are printed on stderr (never a traceback, never a password) and turned into the
documented exit codes (docs/cli.md).

The console script (:func:`main`) imports and builds only the command it runs
(:data:`.common.COMMANDS`: "lazy: start-up time"); ``app``, the whole command tree (what
``dbjson --help``, the generated docs and the tests use), is assembled on first access. Command
modules still import their library modules inside the command function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .common import main

if TYPE_CHECKING:
    from .common import app


def __getattr__(name: str) -> Any:
    if name == "app":  # every command registered on the typer app, in the order of ``dbjson --help``
        from .common import app, load_commands

        load_commands()
        globals()["app"] = app
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
