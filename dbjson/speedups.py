"""The optional C speedups (``csrc/_c*.c``, compiled into ``dbjson/`` at install by ``hatch_build.py``).

Each C module has a pure-Python path beside it that produces the same bytes; :func:`load` returns
the module, or None when it was not built (no C compiler at install) or when ``DBJSON_NO_SPEEDUPS``
is set to a non-empty value other than ``0`` (for comparing the two paths, or to rule the C code out
when chasing a problem). Checked at every call, so a test can switch between them.

The numbers Python passes to a module or gets back (column kinds, ops...) come from
:func:`constants`, never written again by hand.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from ._speedups_table import CONSTANTS

_cache: dict[str, ModuleType | None] = {}


def disabled() -> bool:
    return os.environ.get("DBJSON_NO_SPEEDUPS", "") not in ("", "0")


def load(name: str) -> ModuleType | None:
    """``dbjson.<name>`` (e.g. ``_cpgexport``) if built and not disabled, else None."""
    return None if disabled() else _module(name)


def available() -> dict[str, bool]:
    """Which C modules this installation has built (whether or not ``DBJSON_NO_SPEEDUPS`` is set)."""
    return {name: _module(name) is not None for name in sorted(CONSTANTS)}


def constants(name: str) -> dict[str, int]:
    """The integer constants of C module ``name`` (e.g. ``constants("_cmyexport")["K_JSON"]``).

    The built module's own (``PyModule_AddIntConstant``, whether or not ``DBJSON_NO_SPEEDUPS`` is
    set), else the generated table :mod:`dbjson._speedups_table`: the same numbers, which
    tests/test_speedups_table.py checks (a module built from older sources may lack a constant: the
    table's value is used for it)."""
    module = _module(name)
    return {key: int(getattr(module, key, value)) for key, value in CONSTANTS[name].items()}


def _module(name: str) -> ModuleType | None:
    if name not in _cache:
        try:
            _cache[name] = importlib.import_module(f"dbjson.{name}")
        except ImportError:
            _cache[name] = None
    return _cache[name]
