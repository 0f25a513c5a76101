"""Locate the data shipped beside the code: ``jsonschema/`` and ``dialects/``.

In a wheel they live in ``dbjson/_data/``; in a checkout (editable install) at the repository root.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

_PKG = Path(__file__).resolve().parent


@functools.cache
def data_dir(name: str) -> Path:
    for candidate in (_PKG / "_data" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"dbjson data directory {name!r} not found (broken installation?)")


@functools.cache
def json_schema(name: str) -> dict[str, Any]:
    """A JSON Schema document from ``jsonschema/`` by file name (``schema.json``...)."""
    with open(data_dir("jsonschema") / name, encoding="utf-8") as f:
        result: dict[str, Any] = json.load(f)
        return result


@functools.cache
def dialect_table(engine: str) -> dict[str, Any]:
    """The data table of one engine from ``dialects/<engine>.toml``."""
    import tomllib  # lazy: an export never reads a dialect table (start-up time)

    with open(data_dir("dialects") / f"{engine}.toml", "rb") as f:
        return tomllib.load(f)
