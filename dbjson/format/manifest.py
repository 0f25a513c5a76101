"""The export manifest (``manifest.json``): what was exported, from where, under which snapshot,
and the files with their sizes and checksums. Validated by ``jsonschema/manifest.json``.

Written last (after every data file is complete), so a directory with a manifest is a finished
export. See docs/data-format.md for the field reference.

Two ways to read it: :func:`read_manifest` gives the whole document as written by ``dbjson export``
(validated); :func:`read_export` gives what loading an export needs (the schema document and each
table's data files) and tolerates hand-made manifests (a mapping of tables, missing counts or
checksums), as ``dbjson import`` and ``dbjson verify`` do.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

from .. import model as m
from ..__about__ import __version__
from ..errors import DataError, DocumentError, UsageError
from ..validate import check_document
from .checksum import BLAKE2B_SUM, DEFAULT_CHECKSUM, check_algorithm
from .datafiles import DataFile
from .paths import inside
from .storage import Location, ObjectPath, location, write_atomic

FORMAT = "dbjson-manifest"
MANIFEST_NAME = "manifest.json"
SCHEMA_NAME = "schema.json"  # the schema document of an export directory
CHECKSUM_ALGORITHM = DEFAULT_CHECKSUM  # what exports write; readers accept codec.CHECKSUM_ALGORITHMS
# The version of the manifest and the row encoding of its data files (the schema document has its
# own, dbjson.FORMAT_VERSION). 1.1: the JSON document null of a json column is {"$json":null}.
# 1.2: line checksums are XXH3-64 ("xxh3-64-sum") and files carry "xxh128" instead of "sha256";
# the rows are written exactly as in 1.1.
# 1.3: a json column the source engine stores as text (MariaDB JSON, PostgreSQL json, SQLite) is
# written as the JSON string of its exact text, and its table lists it in "json_text"; every other
# value is written as in 1.2, so a 1.2 export (no "json_text": every json value nested) still loads.
# 1.4: an untyped (opaque) value keeps its storage class: a number for an integer or a real, {"$blob":
# base64} for a blob, {"$real": "Infinity"} for an infinite real; text is a string as before, so a
# 1.3 export still loads (every untyped value as text).
DATA_FORMAT_VERSION = "1.4"


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
    # json columns written as the JSON string of their exact text (format 1.3; None: none)
    json_text: list[str] | None = None

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
    schema_file: str = SCHEMA_NAME
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


def _json(raw: bytes, file: str) -> Any:
    """The manifest's JSON value (malformed JSON is a DocumentError naming the file)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise DocumentError(f"malformed JSON: {e}", file=file) from None


def _drop_none(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _drop_none(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list):
        return [_drop_none(v) for v in obj]
    return obj


def write_manifest(
    directory: str | os.PathLike[str] | ObjectPath, manifest: Manifest, *, validate: bool = True
) -> Location:
    """Validate (unless ``validate=False``) and write ``manifest.json`` atomically (``.partial`` then rename).

    ``export`` skips the validation: its manifest is built from these dataclasses only (the tests
    validate it), and importing jsonschema costs 0.07-0.15 s of every export's run time.
    """
    doc = manifest.to_dict()
    if validate:
        check_document(doc, "manifest", file=MANIFEST_NAME)
    path = location(directory) / MANIFEST_NAME
    write_atomic(path, orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    return path


def write_schema(directory: str | os.PathLike[str] | ObjectPath, db: m.Database) -> Location:
    """Write the schema document ``schema.json`` of an export directory atomically (``.partial``
    then rename; object storage: one PUT)."""
    path = location(directory) / SCHEMA_NAME
    write_atomic(path, db.to_json().encode("utf-8"))
    return path


def read_manifest(directory_or_file: str | os.PathLike[str] | ObjectPath, *, validate: bool = True) -> Manifest:
    """Read (and by default validate) the manifest of an export directory."""
    path = location(directory_or_file)
    if path.is_dir():
        path = path / MANIFEST_NAME
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise DocumentError(f"cannot read manifest: {e.strerror or e}", file=str(path)) from None
    doc = _json(raw, str(path))
    if not isinstance(doc, dict):
        raise DocumentError("a manifest must be a JSON object", file=str(path))
    return Manifest.from_dict(doc, validate=validate, file=str(path))


# ---------------------------------------------------------------------------------------------
# Reading an export to load it
# ---------------------------------------------------------------------------------------------


@dataclass
class ManifestTable:
    """One table of the manifest as loading sees it: its data files, and its row count and content
    checksum when the manifest gives them (None in a hand-made manifest, or before ``dbjson migrate``
    has read the rows)."""

    schema: str
    name: str
    rows: int | None
    checksum: str | None
    files: list[DataFile]
    columns: list[str] | None = None
    algorithm: str = DEFAULT_CHECKSUM  # the manifest's checksum_algorithm of ``checksum``
    # json columns whose values are the JSON string of the document's exact text (format 1.3)
    json_text: tuple[str, ...] = ()


def read_export(directory: Location) -> tuple[m.Database, list[ManifestTable], str]:
    """The schema document, the manifest's tables and an identity of the export (its manifest hash).

    No such directory is a UsageError (exit 2, as for ``dbjson import``); a directory without its
    schema.json or manifest.json a DataError naming the missing file.
    """
    if not directory.is_dir():
        raise UsageError(f"not an export directory: {directory}")
    schema_path = directory / SCHEMA_NAME
    manifest_path = directory / MANIFEST_NAME
    for p in (schema_path, manifest_path):
        inside(directory, p, what=f"the export's {p.name}")
        if not p.is_file():
            raise DataError("missing from the export directory", file=str(p))
    db = m.Database.from_json(schema_path.read_bytes(), filename=str(schema_path))
    raw = manifest_path.read_bytes()
    tables = manifest_tables(_json(raw, str(manifest_path)), directory, str(manifest_path))
    return db, tables, hashlib.blake2b(raw, digest_size=8).hexdigest()


def manifest_tables(doc: Any, directory: Location, where: str) -> list[ManifestTable]:
    """The tables of the manifest document ``doc`` (a list, or a mapping keyed by ``schema.table``),
    their data files under ``directory``; anything malformed is a DocumentError naming ``where``
    and the field (a JSON pointer).

    Every field is checked before anything loads: paths first (inside the export directory), then
    the types of every field present against ``jsonschema/manifest.json`` (a hand-made manifest
    may leave fields out: counts, checksums, sizes), then what the fields say together
    (:func:`_check_consistent`).
    """
    if not isinstance(doc, dict) or "tables" not in doc:
        raise DocumentError("not a dbjson manifest (no 'tables')", file=where)
    items = doc["tables"]
    if isinstance(items, dict):
        items = [_keyed_table(k, v) for k, v in items.items()]
    if not isinstance(items, list) or not all(
        isinstance(t, dict) and isinstance(t.get("files", []), list) for t in items
    ):
        raise DocumentError("'tables' must list objects, each with a list of 'files'", file=where, pointer="/tables")
    items = [_named_table(t) for t in items]
    rels = [
        [
            _check_data_path(f.get("path") if isinstance(f, dict) else f, where, f"/tables/{ti}/files/{fi}")
            for fi, f in enumerate(t.get("files", []))
        ]
        for ti, t in enumerate(items)
    ]
    normalized = {
        **doc,
        "tables": [
            {**t, "files": [f if isinstance(f, dict) else {"path": f} for f in t.get("files", [])]} for t in items
        ],
    }
    # absent in hand-made manifests: blake2b64-sum, the only line hash before data format 1.2
    algorithm = check_algorithm(doc.get("checksum_algorithm", BLAKE2B_SUM), file=where, pointer="/checksum_algorithm")
    check_document(normalized, "manifest", file=where, partial=True)
    _check_consistent(normalized["tables"], where)
    out: list[ManifestTable] = []
    for t, trels in zip(normalized["tables"], rels, strict=True):
        files = [
            DataFile(
                path=_inside_data(directory, rel, where),
                rel=rel,
                rows=f.get("rows"),
                bytes=f.get("bytes"),
                checksum=f.get("checksum"),
                xxh128=f.get("xxh128"),
                sha256=f.get("sha256"),
                algorithm=algorithm,
            )
            for f, rel in zip(t["files"], trels, strict=True)
        ]
        out.append(
            ManifestTable(
                schema=t.get("schema", ""),
                name=t.get("name", ""),
                rows=t.get("rows"),
                checksum=t.get("checksum"),
                files=files,
                columns=t.get("columns"),
                algorithm=algorithm,
                json_text=tuple(t.get("json_text") or ()),
            )
        )
    return out


def _inside_data(directory: Location, rel: str, where: str) -> Location:
    """A data file's path, refused (naming the manifest and the path) when it resolves outside
    ``directory``: a symbolic link (the file's or its ``data/`` directory's) that leaves it."""
    path = directory / rel
    try:
        inside(directory, path, what="a data file")
    except DocumentError as e:
        raise DocumentError(e.message, file=where, value=rel, hint=e.hint) from None
    return path


def _keyed_table(key: Any, value: Any) -> Any:
    """A table of a manifest whose ``tables`` is a mapping: ``"schema.table": {...}``."""
    if not isinstance(value, dict):
        return value
    key = str(key)
    out = dict(value)
    out.setdefault("name", key.split(".")[-1])
    if "." in key:
        out.setdefault("schema", key.rsplit(".", 1)[0])
    return out


def _named_table(t: dict[str, Any]) -> dict[str, Any]:
    """``table`` is accepted for ``name`` in a hand-made manifest."""
    if "table" in t and "name" not in t:
        t = {("name" if k == "table" else k): v for k, v in t.items()}
    return t


def _check_consistent(tables: list[dict[str, Any]], where: str) -> None:
    """What the manifest's fields say together: no table or data file listed twice (it would load
    twice), a table's row count is its files' sum, its columns are distinct."""
    seen_tables: set[tuple[str, str]] = set()
    seen_files: dict[str, str] = {}
    for ti, t in enumerate(tables):
        key = (t.get("schema", ""), t.get("name", ""))
        if not key[1]:
            raise DocumentError("a table without a 'name'", file=where, pointer=f"/tables/{ti}")
        if key in seen_tables:
            raise DocumentError(
                f"table {key[0]}.{key[1]} is listed twice", file=where, pointer=f"/tables/{ti}/name", value=key[1]
            )
        seen_tables.add(key)
        cols = t.get("columns")
        if cols is not None and len(set(cols)) != len(cols):
            raise DocumentError("a column is listed twice", file=where, pointer=f"/tables/{ti}/columns")
        texts = t.get("json_text") or []
        if len(set(texts)) != len(texts) or (cols is not None and not set(texts) <= set(cols)):
            raise DocumentError(
                "json_text must name distinct columns of the table", file=where, pointer=f"/tables/{ti}/json_text"
            )
        for fi, f in enumerate(t["files"]):
            rel = os.path.normpath(f["path"].replace("\\", "/"))
            if rel in seen_files:
                raise DocumentError(
                    f"a data file is listed twice (also at {seen_files[rel]})",
                    file=where,
                    pointer=f"/tables/{ti}/files/{fi}/path",
                    value=f["path"],
                )
            seen_files[rel] = f"/tables/{ti}/files/{fi}"
        counts = [f.get("rows") for f in t["files"]]
        if t.get("rows") is not None and None not in counts and sum(counts) != t["rows"]:
            raise DocumentError(
                f"the table's row count is not the sum of its files' ({sum(counts)})",
                file=where,
                pointer=f"/tables/{ti}/rows",
                value=t["rows"],
            )


def _check_data_path(rel: Any, where: str, pointer: str) -> str:
    """A manifest's data file path: relative, and inside the export directory."""
    if not isinstance(rel, str) or not rel:
        raise DocumentError("a data file entry has no 'path'", file=where, pointer=pointer, value=rel)
    parts = rel.replace("\\", "/").split("/")
    if rel.startswith(("/", "\\")) or ":" in parts[0] or ".." in parts or "\x00" in rel:
        raise DocumentError(
            "a data file path must stay inside the export directory", file=where, pointer=pointer, value=rel
        )
    return rel


__all__ = [
    "Manifest",
    "TableEntry",
    "FileEntry",
    "KeyRange",
    "SnapshotInfo",
    "SourceInfo",
    "write_manifest",
    "write_schema",
    "read_manifest",
    "read_export",
    "manifest_tables",
    "ManifestTable",
    "FORMAT",
    "MANIFEST_NAME",
    "SCHEMA_NAME",
    "CHECKSUM_ALGORITHM",
    "DATA_FORMAT_VERSION",
]
