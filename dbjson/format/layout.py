"""The export directory's layout: what its files are called and where they go.

``DIR/schema.json`` and ``DIR/manifest.json`` (:mod:`.manifest`), the data files
``DIR/data/<safe name>[.<chunk>][.p<part>].jsonl[.gz|.zst]`` (:func:`data_file_rel`), and the
rows an import rejects, ``DIR/rejects/<safe name>.jsonl`` (:func:`rejects_file`). ``<safe name>``
is a table's file-system-safe name (:func:`safe_names`). ``DIR/.dbjson-files`` lists every file
an export creates there until its manifest is written (:class:`WrittenFiles`): a later export
replaces those and the old manifest's, and refuses a directory holding anything else (:func:`prepare_export_dir`).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from pathlib import Path

import orjson

from ..errors import UsageError
from .manifest import MANIFEST_NAME, SCHEMA_NAME
from .paths import open_for_write, refuse_link
from .storage import Location, ObjectPath, local_state_dir

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


WRITTEN_NAME = ".dbjson-files"  # the files an export created in its directory, one relative path a line


def _rel(out: Location, path: Location) -> str:
    """``path`` relative to the export directory ``out``, with ``/`` separators."""
    if isinstance(out, ObjectPath) and isinstance(path, ObjectPath):
        return path.key[len(out.key) :].lstrip("/") if out.key else path.key
    return Path(path).relative_to(Path(out)).as_posix()  # type: ignore[arg-type]


def _list_path(out: Location) -> Path:
    """Where the :class:`WrittenFiles` list of ``out`` lives: in the directory itself; for object
    storage (no appends there) in the local state directory of that prefix."""
    return (out if isinstance(out, Path) else local_state_dir(out)) / WRITTEN_NAME


class WrittenFiles:
    """``DIR/.dbjson-files``: every file an export (or ``migrate --keep``) creates in its directory,
    appended before the file is created, so a later export knows what it may replace even when
    this one was interrupted before its manifest was written (:func:`prepare_export_dir`)."""

    def __init__(self, out: Location, *, append: bool = False) -> None:
        self.out = out
        self._lock = threading.Lock()
        self._path = _list_path(out)
        self._fh = open_for_write(self._path, append=append)  # closed in close(); never through a link

    def add(self, path: Location) -> None:
        """Record ``path`` (inside the directory) before it is written."""
        rel = _rel(self.out, path)
        with self._lock:
            if not self._fh.closed:
                self._fh.write(rel.encode("utf-8") + b"\n")
                self._fh.flush()

    def close(self) -> None:
        with self._lock:
            self._fh.close()

    def finish(self) -> None:
        """The manifest is written and lists the files: the list is no longer needed."""
        self.close()
        self._path.unlink(missing_ok=True)


def _own_files(out: Location) -> set[str] | None:
    """The files (relative paths) a previous export wrote in ``out``: its manifest's and its
    :data:`WRITTEN_NAME` list's; None when ``out`` holds no sign of an export."""
    manifest, written = out / MANIFEST_NAME, _list_path(out)
    has_manifest = manifest.is_file()
    if not has_manifest and not written.is_file():
        return None
    ours = {MANIFEST_NAME, SCHEMA_NAME, WRITTEN_NAME}
    if has_manifest:
        try:
            doc = orjson.loads(manifest.read_bytes())
            for t in doc.get("tables") or ():
                for f in t.get("files") or ():
                    if isinstance(f.get("path"), str):
                        ours.add(f["path"])
        except (OSError, orjson.JSONDecodeError, AttributeError, TypeError):
            pass  # an unreadable manifest vouches for nothing but itself
    if written.is_file():
        try:
            ours.update(line for line in written.read_text(encoding="utf-8").splitlines() if line)
        except (OSError, UnicodeDecodeError):
            pass
    return ours


def _files_under(out: Location) -> list[str]:
    """Every file under ``out`` (relative paths, sorted)."""
    if isinstance(out, ObjectPath):
        base = out.key
        found = out.fs.find(base) if base else []
        proto = f"{out.protocol}://"
        keys = [k[len(proto) :] if k.startswith(proto) else k for k in found]
        return sorted(k[len(base) :].lstrip("/") for k in keys if k.startswith(base) and k != base)
    found = []
    for p in out.rglob("*"):
        if p.is_symlink():  # dbjson never writes through a link (format.paths): refused, whatever it points to
            raise UsageError(
                f"refusing to write into {out}: {p.relative_to(out).as_posix()} is a symbolic link",
                hint="remove the link (dbjson writes that path), or choose a new directory",
            )
        if not p.is_dir():
            found.append(p.relative_to(out).as_posix())
    return sorted(found)


def check_export_dir(out: Location, *, overwrite: bool = False, keep: Iterable[str] = ()) -> set[str]:
    """Can an export write into ``out``? Returns the files (relative paths) of a previous export
    there, which it will replace; raises a UsageError when ``out`` holds anything else (unless
    ``overwrite``) or is not a directory. ``keep``: more top-level names that belong to the caller
    (``dbjson migrate``'s plan). Changes nothing (:func:`prepare_export_dir` does)."""
    if isinstance(out, Path) and out.exists() and not out.is_dir():
        raise UsageError(f"the output {out} exists and is not a directory", hint="choose a directory for the export")
    present = out.is_dir()
    ours = _own_files(out) if present else None
    mine = ours or set()
    allowed = set(mine) | {p + ".partial" for p in mine} | set(keep)
    foreign: list[str] = []
    if present:
        for rel in _files_under(out):
            if rel in allowed or ("/" not in rel and rel.startswith(".dbjson-")):
                continue
            if ours is not None and rel.startswith(REJECTS_DIR + "/"):  # an import of that export wrote them
                continue
            foreign.append(rel)
    if foreign and not overwrite:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        what = "files no dbjson export wrote" if ours is not None else "files and is not a dbjson export"
        raise UsageError(
            f"the output directory {out} holds {what}: {shown}",
            hint="choose a new or empty directory, or (dbjson export) add --overwrite to write there anyway "
            "(dbjson replaces only the files of its own export; it deletes nothing else)",
        )
    return mine


def prepare_export_dir(out: Location, *, overwrite: bool = False, keep: Iterable[str] = ()) -> WrittenFiles:
    """Make ``out`` ready for an export and start its :class:`WrittenFiles` list.

    ``out`` may be missing, empty, or hold a previous export (its manifest, schema, data files,
    an import's journals and rejects): that export's files are removed. Any other file is refused
    (see :func:`check_export_dir`) unless ``overwrite``, and is never removed: only files an export
    wrote (listed in the old manifest or :data:`WRITTEN_NAME`) are. In object storage, unfinished
    uploads are invisible and left to the bucket's lifecycle rule.
    """
    mine = check_export_dir(out, overwrite=overwrite, keep=keep)
    if isinstance(out, Path):
        refuse_link(out / DATA_DIR)
        root = out.resolve()
    for rel in sorted(mine, key=lambda r: r != MANIFEST_NAME):  # the manifest first: never a manifest without its files
        if ".." in rel.split("/"):
            continue  # a path in a manifest never leaves the directory
        for p in (out / rel, out / (rel + ".partial")):
            if isinstance(p, Path) and not (p.is_file() and p.resolve().is_relative_to(root)):
                continue
            p.unlink(missing_ok=True)
    (out / DATA_DIR).mkdir(parents=True, exist_ok=True)
    return WrittenFiles(out)


__all__ = [
    "COMPRESSIONS",
    "DATA_DIR",
    "MAX_NAME_BYTES",
    "REJECTS_DIR",
    "WRITTEN_NAME",
    "WrittenFiles",
    "check_export_dir",
    "prepare_export_dir",
    "data_file_rel",
    "rejects_file",
    "safe_names",
]
