"""Paths stay inside the export (or state) directory, symbolic links included.

Reading: :func:`inside` resolves a path (every symbolic link on the way) and refuses one that ends
outside the directory — a symlinked data file, ``data/`` directory, manifest or schema document.
Writing: :func:`open_for_write` never follows a symbolic link at the file itself (``O_NOFOLLOW``)
and refuses a parent directory that resolves outside the directory, so a planted link cannot make
dbjson write (a journal, a rejects file, a ``.partial`` file, a state file) somewhere else.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import IO, Any, TypeVar

from ..errors import DocumentError, UsageError

_P = TypeVar("_P")


def inside(directory: Any, path: _P, *, what: str = "a file of the export") -> _P:
    """``path`` resolved; a DocumentError naming it when it resolves outside ``directory``.

    A key in object storage (not a :class:`~pathlib.Path`) has no links to follow: it is refused
    only when a component is ``..``."""
    if not isinstance(path, Path):
        if ".." in str(path).split("/"):
            raise DocumentError(f"{what} leaves the export's prefix: refused", file=str(path))
        return path
    root = Path(directory).resolve()
    real = Path(path).resolve()
    if real != root and not real.is_relative_to(root):
        shown = _shown(directory, path)
        raise DocumentError(
            f"{what} resolves outside the export directory (a symbolic link to {real}): refused",
            file=shown,
            hint="paths (symbolic links too) must stay inside the export directory",
        )
    return real  # type: ignore[return-value]


def _shown(directory: Path, path: Path) -> str:
    try:
        return str(Path(path).relative_to(directory))
    except ValueError:
        return str(path)


def open_for_write(path: Path, *, append: bool = False, directory: Path | None = None) -> IO[bytes]:
    """``path`` opened for writing (created; truncated unless ``append``) without following a
    symbolic link at ``path``; with ``directory``, its parent must resolve inside ``directory``."""
    if directory is not None:
        inside(directory, Path(path).parent, what="the directory of a file dbjson writes")
    flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    flags |= os.O_APPEND if append else os.O_TRUNC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK):
            raise UsageError(
                "refusing to write through a symbolic link", hint=f"remove the link {path} (dbjson writes that file)"
            ) from None
        raise
    return os.fdopen(fd, "ab" if append else "wb")


def refuse_link(path: Path) -> None:
    """A UsageError when ``path`` (a directory dbjson writes into) is a symbolic link."""
    if Path(path).is_symlink():
        raise UsageError(
            f"refusing to write into {path}: it is a symbolic link", hint="remove the link or give its target"
        )


__all__ = ["inside", "open_for_write", "refuse_link"]
