"""The export directory's layout: what its files are called and where they go.

``DIR/schema.json`` and ``DIR/manifest.json`` (:mod:`.manifest`), the data files
``DIR/data/<safe name>[.<chunk>][.p<part>].jsonl[.gz|.zst]`` (:func:`data_file_rel`), and the
rows an import rejects, ``DIR/rejects/<safe name>.jsonl`` (:func:`rejects_file`). ``<safe name>``
is a table's file-system-safe name (:func:`safe_names`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from .manifest import MANIFEST_NAME
from .paths import refuse_link
from .storage import Location

DATA_DIR = "data"
REJECTS_DIR = "rejects"
COMPRESSIONS = {"none": "", "gzip": ".gz", "zstd": ".zst"}  # compression → the data files' suffix
MAX_NAME_BYTES = 120

_SAFE_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _percent(name: str) -> str:
    return "".join(chr(b) if b in _SAFE_CHARS else f"%{b:02X}" for b in name.encode("utf-8"))


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def safe_names(tables: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Deterministic, unique, filesystem-safe base names for ``(schema, table)`` pairs.

    Every byte outside ``[A-Za-z0-9_-]`` is percent-encoded (so ``.``, ``/``, ``..``, spaces and
    unicode cannot escape the directory or clash with the ``.chunk`` suffix); schema and table are
    joined with ``.``. Names that differ only by case (a problem on case-insensitive file systems)
    or that are too long get ``~`` plus a short hash of the original name.
    """
    pairs = sorted(set(tables))
    base = {p: f"{_percent(p[0])}.{_percent(p[1])}" for p in pairs}
    lower: dict[str, int] = {}
    for b in base.values():
        lower[b.lower()] = lower.get(b.lower(), 0) + 1
    out: dict[tuple[str, str], str] = {}
    for p, b in base.items():
        h = _short_hash(f"{p[0]}\x00{p[1]}")
        if len(b) > MAX_NAME_BYTES:
            b = b[: MAX_NAME_BYTES - 9].rstrip("%") + "~" + h
        elif lower[b.lower()] > 1:
            b = b + "~" + h
        out[p] = b
    return out


def data_file_rel(name: str, chunk: int | None = None, part: int = 0, compress: str = "none") -> str:
    """A data file's path relative to the export directory (``/`` separated): table ``name`` (its
    :func:`safe_names` name), key-range ``chunk`` of a split table (None: the table is one unit),
    ``part`` (> 0: the unit's next file after ``--chunk-size`` bytes), ``compress`` (a key of
    :data:`COMPRESSIONS`)."""
    if chunk is not None:
        name += f".{chunk:04d}"
    if part:
        name += f".p{part:04d}"
    return f"{DATA_DIR}/{name}.jsonl{COMPRESSIONS[compress]}"


def rejects_file(directory: Path, schema: str, table: str) -> Path:
    """Where an import into ``directory`` writes the rows of ``schema.table`` the target refused."""
    safe = safe_names([(schema, table)])[(schema, table)].lstrip(".")  # no path from a table name
    return directory / REJECTS_DIR / f"{safe}.jsonl"


def clear_export_dir(out: Location) -> None:
    """Make ``out`` ready for an export: create ``data/``, remove the manifest and the data files of
    an earlier export there (the manifest first: a half-cleared directory is not a finished export).
    In object storage, unfinished uploads are invisible and left to the bucket's lifecycle rule."""
    if isinstance(out, Path):
        refuse_link(out / DATA_DIR)
    (out / DATA_DIR).mkdir(parents=True, exist_ok=True)
    (out / MANIFEST_NAME).unlink(missing_ok=True)
    for p in (out / DATA_DIR).iterdir():
        if p.is_file() and (".jsonl" in p.name or p.name.endswith(".partial")):
            p.unlink()


__all__ = [
    "COMPRESSIONS",
    "DATA_DIR",
    "MAX_NAME_BYTES",
    "REJECTS_DIR",
    "clear_export_dir",
    "data_file_rel",
    "rejects_file",
    "safe_names",
]
