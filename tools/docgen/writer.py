"""Shared entry point of the doc generators (``python -m tools.docgen.clidoc``, ``python -m tools.docgen.typesdoc``)."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(path: Path, text: str, module: str, argv: list[str] | None = None) -> int:
    """Write ``text`` to ``path``, or with ``--check`` return 1 when the file differs from it."""
    args = sys.argv[1:] if argv is None else argv
    if "--check" in args:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            sys.stderr.write(f"{path} is out of date: run python -m {module}\n")
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    return 0
