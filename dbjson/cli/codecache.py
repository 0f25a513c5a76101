"""The code ``dataclasses`` generates, compiled once per Python version and kept (start-up time).

Creating a dataclass compiles the source of its ``__init__``, ``__repr__``, ``__eq__``,
``__hash__`` and (frozen) ``__setattr__``/``__delattr__``: one ``exec`` of generated text per
method on Python 3.11, one per class from 3.13. For the ~80 classes a command imports
(:mod:`dbjson.model`, :mod:`dbjson.events`, the manifest...) that was about 0.2 G instructions,
0.06-0.1 s of every command, nearly all of it parsing. The console script (:func:`install`, from
``dbjson.cli.common.main``) gives the ``dataclasses`` module an ``exec`` that looks the text up in
a cache file first and compiles it only when missing; the file is rewritten at exit when something
was added. The key is the whole source text and the file is per interpreter version (its cache
tag and bytecode magic), so a hit is the code that ``exec`` would have compiled from that text: a
changed class is a miss, never a stale method. The text is compiled as ``exec`` compiles it there
(no ``__future__`` flags of this module: ``dont_inherit``).

Only the ``dbjson`` process does this, never the library (an application's dataclasses are its
own business). The file lives under ``$XDG_CACHE_HOME/dbjson`` (default ``~/.cache/dbjson``), is
read only when it belongs to the user, and any problem with it (missing, unreadable, corrupt, a
read-only home) just means compiling as before.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
from importlib._bootstrap_external import MAGIC_NUMBER  # (frozen: no import cost)
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

MAX_ENTRIES = 4096  # beyond this the file starts again from what this process compiled


def default_path() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    tag = sys.implementation.cache_tag or "python"
    return base / "dbjson" / f"dataclasses.{tag}.{MAGIC_NUMBER.hex()}.marshal"


class CodeCache:
    """Source text → code object for the generated methods; :meth:`exec` stands in for ``exec``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stored: dict[str, bytes] = {}
        self.new: dict[str, CodeType] = {}
        self._module: ModuleType | None = None

    def load(self) -> None:
        """Read the file: source text → the marshalled code, unmarshalled on first use (a command
        uses a few hundred of the entries; ``marshal.load`` on the file object itself reads it in
        small pieces: 10x slower than ``loads`` of its bytes)."""
        try:
            with open(self.path, "rb") as f:
                if os.fstat(f.fileno()).st_uid != os.getuid():
                    return
                data = marshal.loads(f.read())
        except Exception:  # noqa: BLE001 - missing, unreadable or corrupt: compile as before
            return
        if isinstance(data, dict):
            self.stored = {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, bytes)}

    def _cached(self, source: str) -> CodeType | None:
        blob = self.stored.get(source)
        if blob is None:
            return None
        try:
            code = marshal.loads(blob)
        except Exception:  # noqa: BLE001 - a corrupt entry: compiled again (and rewritten)
            return None
        return code if isinstance(code, CodeType) else None

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /, **kw: Any) -> None:  # noqa: A002
        if isinstance(source, str) and not kw:
            code = self._cached(source)
            if code is None:
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self.new[source] = code
            source = code
        builtins.exec(source, globals, locals, **kw)

    def install(self, module: ModuleType) -> None:
        """``module.exec`` (a global of that module, over the builtin) becomes :meth:`exec`."""
        if "exec" not in vars(module):
            module.exec = self.exec  # type: ignore[attr-defined]
            self._module = module

    def uninstall(self) -> None:
        if self._module is not None and vars(self._module).get("exec") == self.exec:
            del self._module.exec
        self._module = None

    def save(self) -> None:
        """Write the file when this process compiled something (atomically; errors ignored)."""
        if not self.new:
            return
        fresh = {k: marshal.dumps(v) for k, v in self.new.items()}
        entries = {**self.stored, **fresh} if len(self.stored) + len(fresh) <= MAX_ENTRIES else fresh
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.partial")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(marshal.dumps(entries))
            tmp.replace(self.path)
        except (OSError, ValueError):
            try:
                tmp.unlink()
            except OSError:
                pass
            return
        self.stored = entries
        self.new = {}


def install() -> CodeCache:
    """The cache, loaded and standing in for ``exec`` in :mod:`dataclasses`."""
    import dataclasses

    cache = CodeCache(default_path())
    cache.load()
    cache.install(dataclasses)
    return cache
