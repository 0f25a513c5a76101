"""The export manifest (``manifest.json``): what was exported, from where, under which snapshot,
and the files with their sizes and checksums. Validated by ``jsonschema/manifest.json``.

Written last (after every data file is complete), so a directory with a manifest is a finished
export. See docs/data-format.md for the field reference.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..__about__ import __version__
from ..errors import DocumentError
from .checksum import DEFAULT_CHECKSUM

FORMAT = "dbjson-manifest"
MANIFEST_NAME = "manifest.json"
CHECKSUM_ALGORITHM = DEFAULT_CHECKSUM  # what exports write; readers accept codec.CHECKSUM_ALGORITHMS
# The version of the manifest and the row encoding of its data files (the schema document has its
# own, dbjson.FORMAT_VERSION). 1.1: the JSON document null of a json column is {"$json":null}.
# 1.2: line checksums are XXH3-64 ("xxh3-64-sum") and files carry "xxh128" instead of "sha256";
# the rows are written exactly as in 1.1.
DATA_FORMAT_VERSION = "1.2"


@dataclass
class KeyRange:
    """A file's slice of the table: ``lower <= key < upper`` (None = unbounded), key values encoded."""

    columns: list[str]
    lower: list[Any] | None = None
    upper: list[Any] | None = None


@dataclass
class FileEntry:
    path: str  # relative to the export directory, "/" separated
    rows: int
    bytes: int  # size of the file as written (compressed if compressed)
    checksum: str  # content checksum of the file's lines (see docs/data-format.md)
    xxh128: str | None = None  # XXH3-128 of the file bytes, 32 hex digits (format 1.2 and later)
    sha256: str | None = None  # SHA-256 of the file bytes (format 1.0-1.1 exports)
    chunk: int | None = None
    key_range: KeyRange | None = None


@dataclass
class TableEntry:
    schema: str
    name: str
    columns: list[str]
    rows: int
    checksum: str
    files: list[FileEntry] = field(default_factory=list)
    where: str | None = None  # a row filter given with --where

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.name}"


@dataclass
class SnapshotInfo:
    """How the export got one consistent view of the data.

    ``mode``: ``exported-snapshot`` (PostgreSQL pg_export_snapshot), ``global-read-lock``
    (MySQL/MariaDB FLUSH TABLES WITH READ LOCK while every worker starts its transaction),
    ``backup-stage`` (MariaDB BACKUP STAGE BLOCK_COMMIT), ``per-worker`` (no lock privilege: each
    worker has its own snapshot, not consistent across workers), ``sqlite-write-lock`` (every
    reader starts while the coordinator holds the write lock).
    """

    mode: str
    consistent: bool = True
    id: str | None = None  # PostgreSQL snapshot id
    binlog_file: str | None = None
    binlog_position: int | None = None
    gtid: str | None = None
    lsn: str | None = None  # PostgreSQL WAL position at snapshot time


@dataclass
class SourceInfo:
    engine: str
    server_version: str
    database: str | None
    host: str | None = None


@dataclass
class Manifest:
    source: SourceInfo
    snapshot: SnapshotInfo
    tables: list[TableEntry]
    created_at: str
    compression: str = "none"
    seconds: float | None = None
    schema_file: str = "schema.json"
    format: str = FORMAT
    format_version: str = DATA_FORMAT_VERSION
    dbjson_version: str = __version__
    checksum_algorithm: str = CHECKSUM_ALGORITHM

    def table(self, schema: str, name: str) -> TableEntry:
        for t in self.tables:
            if t.schema == schema and t.name == name:
                return t
        raise KeyError(f"{schema}.{name}")

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, head fields first, None values omitted."""
        d = _drop_none(asdict(self))
        head = {k: d.pop(k) for k in ("format", "format_version", "dbjson_version")}
        head.update(d)
        return head

    def to_json(self) -> bytes:
        return orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)

    @classmethod
    def from_dict(cls, doc: dict[str, Any], *, validate: bool = True, file: str | None = None) -> Manifest:
        if validate:
            from ..validate import check_document

            check_document(doc, "manifest", file=file)
        try:
            tables = [
                TableEntry(
                    **{
                        **t,
                        "files": [
                            FileEntry(**{**f, "key_range": KeyRange(**f["key_range"]) if f.get("key_range") else None})
                            for f in t.get("files", [])
                        ],
                    }
                )
                for t in doc["tables"]
            ]
            rest = {k: v for k, v in doc.items() if k not in ("source", "snapshot", "tables")}
            return cls(
                source=SourceInfo(**doc["source"]), snapshot=SnapshotInfo(**doc["snapshot"]), tables=tables, **rest
            )
        except (KeyError, TypeError) as e:
            raise DocumentError(f"invalid manifest: {e}", file=file) from None


def _drop_none(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _drop_none(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list):
        return [_drop_none(v) for v in obj]
    return obj


def write_manifest(directory: str | os.PathLike[str], manifest: Manifest, *, validate: bool = True) -> Path:
    """Validate (unless ``validate=False``) and write ``manifest.json`` atomically (``.partial`` then rename).

    ``export`` skips the validation: its manifest is built from these dataclasses only (the tests
    validate it), and importing jsonschema costs 0.07-0.15 s of every export's run time.
    """
    doc = manifest.to_dict()
    if validate:
        from ..validate import check_document

        check_document(doc, "manifest", file=MANIFEST_NAME)
    path = Path(directory) / MANIFEST_NAME
    tmp = path.with_name(MANIFEST_NAME + ".partial")
    tmp.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    os.replace(tmp, path)
    return path


def read_manifest(directory_or_file: str | os.PathLike[str], *, validate: bool = True) -> Manifest:
    """Read (and by default validate) the manifest of an export directory."""
    path = Path(directory_or_file)
    if path.is_dir():
        path = path / MANIFEST_NAME
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise DocumentError(f"cannot read manifest: {e.strerror}", file=str(path)) from None
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise DocumentError(f"malformed JSON: {e}", file=str(path)) from None
    if not isinstance(doc, dict):
        raise DocumentError("a manifest must be a JSON object", file=str(path))
    return Manifest.from_dict(doc, validate=validate, file=str(path))


__all__ = [
    "Manifest",
    "TableEntry",
    "FileEntry",
    "KeyRange",
    "SnapshotInfo",
    "SourceInfo",
    "write_manifest",
    "read_manifest",
    "FORMAT",
    "MANIFEST_NAME",
    "CHECKSUM_ALGORITHM",
    "DATA_FORMAT_VERSION",
]
