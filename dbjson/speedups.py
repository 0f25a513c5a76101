"""The optional C speedups (``dbjson/_c*.c``, compiled at install by ``hatch_build.py``).

Each C module has a pure-Python path beside it that produces the same bytes; :func:`load` returns
the module, or None when it was not built (no C compiler at install) or when ``DBJSON_NO_SPEEDUPS``
is set to a non-empty value other than ``0`` (for comparing the two paths, or to rule the C code out
when chasing a problem). Checked at every call, so a test can switch between them.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

_cache: dict[str, ModuleType | None] = {}


def disabled() -> bool:
    return os.environ.get("DBJSON_NO_SPEEDUPS", "") not in ("", "0")


def load(name: str) -> ModuleType | None:
    """``dbjson.<name>`` (e.g. ``_cpgexport``) if built and not disabled, else None."""
    return None if disabled() else _module(name)


def available() -> dict[str, bool]:
    """Which C modules this installation has built (whether or not ``DBJSON_NO_SPEEDUPS`` is set)."""
    from pathlib import Path

    names = sorted(
        {p.name.split(".")[0] for p in Path(__file__).parent.glob("_c*.c")}
        | {p.name.split(".")[0] for p in Path(__file__).parent.glob("_c*.so")}
    )
    return {n: _module(n) is not None for n in names}


def _module(name: str) -> ModuleType | None:
    if name not in _cache:
        try:
            _cache[name] = importlib.import_module(f"dbjson.{name}")
        except ImportError:
            _cache[name] = None
    return _cache[name]
