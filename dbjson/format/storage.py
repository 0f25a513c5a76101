"""Where an export directory lives: a local directory (:class:`pathlib.Path`) or a prefix in object
storage (:class:`ObjectPath`: ``s3://``, ``gs://``, ``az://``/``abfs://`` and any other fsspec
protocol).

A local path keeps the local semantics exactly (``open``, ``.partial`` files, fsync, rename).
An :class:`ObjectPath` implements the part of the :class:`pathlib.Path` interface the export, the
import and verify use, through fsspec (s3fs, gcsfs, adlfs: the ``dbjson[s3]``, ``[gcs]``, ``[azure]``
extras), and differs where object storage does:

- a data file is written as one streamed multipart upload (:func:`open_sink`: parts of
  :data:`PART_BYTES` leave while the export goes on; nothing is staged on local disk) and becomes
  visible under its name only when the upload completes (:meth:`Sink.commit`), so there is no
  ``.partial`` name: an interrupted upload is an incomplete multipart upload, invisible to readers
  (aborted by :meth:`Sink.discard`; after a kill, a bucket lifecycle rule removes it);
- ``schema.json`` and ``manifest.json`` are single PUTs (atomic), the manifest last;
- reads are ranged GETs with read-ahead (:meth:`ObjectPath.open`), never a download of the file;
- the import's journal and rejects files, which are appended to, are kept locally
  (:func:`local_state_dir`).

Credentials come from the usual places of each library (environment, config files, instance
roles) or ``storage_options``; they are never part of the path's text (:meth:`ObjectPath.__str__`).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import UsageError
from .paths import open_for_write

PART_BYTES = 8 << 20  # a multipart upload's part (S3's minimum is 5 MiB): the memory of one open file
READ_BLOCK_BYTES = 4 << 20  # a ranged read's size (read-ahead cache)
_URL_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://(.*)$", re.S)
_EXTRAS = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "az": "azure", "abfs": "azure", "abfss": "azure"}


def _redact(text: str) -> str:
    """``proto://user:secret@host/x`` → ``proto://***@host/x`` (no credentials in messages)."""
    return re.sub(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@]*@", r"\1***@", text)


@dataclass(frozen=True)
class _Stat:
    st_size: int


class ObjectPath:
    """A key or prefix in object storage, addressed as ``protocol://bucket/key`` (picklable: the
    filesystem object is made again where it is used, e.g. in a Dask worker)."""

    def __init__(self, url: str, storage_options: Mapping[str, Any] | None = None) -> None:
        mt = _URL_RE.match(url)
        if not mt:
            raise UsageError(f"not an object storage URL: {_redact(url)}")
        self.protocol = mt.group(1).lower()
        self.key = mt.group(2).strip("/")
        self.storage_options = dict(storage_options or {})
        self._fs: Any = None

    # -- the filesystem -------------------------------------------------------------------------
    @property
    def fs(self) -> Any:
        if self._fs is None:
            try:
                import fsspec
            except ImportError:
                raise UsageError(
                    f"{self.protocol}:// needs fsspec", hint=f"pip install 'dbjson[{_EXTRAS.get(self.protocol, 's3')}]'"
                ) from None
            try:
                self._fs = fsspec.filesystem(self.protocol, **self.storage_options)
            except (ImportError, ValueError) as e:
                raise UsageError(
                    f"no filesystem for {self.protocol}://: {e}",
                    hint=f"pip install 'dbjson[{_EXTRAS.get(self.protocol, 's3')}]'",
                ) from None
        return self._fs

    def __getstate__(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "key": self.key, "storage_options": self.storage_options}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.protocol, self.key, self.storage_options = state["protocol"], state["key"], state["storage_options"]
        self._fs = None

    def _child(self, key: str) -> ObjectPath:
        p = ObjectPath.__new__(ObjectPath)
        p.protocol, p.key, p.storage_options, p._fs = self.protocol, key, self.storage_options, self._fs
        return p

    # -- pure path operations -------------------------------------------------------------------
    def __truediv__(self, other: str) -> ObjectPath:
        rel = str(other).strip("/")
        return self._child(f"{self.key}/{rel}" if self.key else rel)

    def __str__(self) -> str:
        return _redact(f"{self.protocol}://{self.key}")

    def __repr__(self) -> str:
        return f"ObjectPath({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectPath) and (other.protocol, other.key) == (self.protocol, self.key)

    def __hash__(self) -> int:
        return hash((self.protocol, self.key))

    @property
    def name(self) -> str:
        return self.key.rsplit("/", 1)[-1]

    @property
    def parent(self) -> ObjectPath:
        return self._child(self.key.rsplit("/", 1)[0] if "/" in self.key else "")

    def with_name(self, name: str) -> ObjectPath:
        return self.parent / name

    # -- the store --------------------------------------------------------------------------------
    def exists(self) -> bool:
        return bool(self.fs.exists(self.key))

    def is_file(self) -> bool:
        return bool(self.fs.isfile(self.key))

    def is_dir(self) -> bool:
        """A prefix with at least one object under it (object stores have no empty directories)."""
        return bool(self.fs.isdir(self.key))

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        """Nothing to do: a prefix exists when an object is written under it."""

    def stat(self) -> _Stat:
        return _Stat(int(self.fs.size(self.key)))

    def iterdir(self) -> Iterator[ObjectPath]:
        try:
            names = self.fs.ls(self.key, detail=False, refresh=True)
        except FileNotFoundError:
            return
        proto_prefix = f"{self.protocol}://"
        for n in names:
            key = n[len(proto_prefix) :] if n.startswith(proto_prefix) else n
            if key.strip("/") != self.key:
                yield self._child(key.strip("/"))

    def read_bytes(self) -> bytes:
        return bytes(self.fs.cat_file(self.key))

    def write_bytes(self, data: bytes) -> int:
        """One PUT: the object appears whole or not at all."""
        self.fs.pipe_file(self.key, data)
        return len(data)

    def write_text(self, text: str, encoding: str = "utf-8") -> int:
        return self.write_bytes(text.encode(encoding))

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            self.fs.rm_file(self.key)
        except FileNotFoundError:
            if not missing_ok:
                raise
        self.fs.invalidate_cache(self.key)

    def reader(self) -> IO[bytes]:
        """A buffered reader over ranged reads: line iteration on fsspec's file object reads (and
        copies) a whole block per line, a 1 MB buffer in front of it does not."""
        return io.BufferedReader(self.open("rb"), 1 << 20)  # type: ignore[type-var]

    def open(self, mode: str = "rb") -> IO[bytes]:
        """``rb``: ranged reads with read-ahead; ``wb``: a streamed multipart upload, published on
        ``close()`` (:func:`open_sink` also aborts one)."""
        if mode == "rb":
            return self.fs.open(self.key, "rb", block_size=READ_BLOCK_BYTES, cache_type="readahead")  # type: ignore[no-any-return]
        if mode == "wb":
            return self.fs.open(self.key, "wb", block_size=PART_BYTES)  # type: ignore[no-any-return]
        raise ValueError(f"unsupported mode {mode!r}")


Location = Path | ObjectPath  # an export directory, or one of its files


def is_object_url(text: str) -> bool:
    """``s3://...``, ``gs://...``: object storage (``file://`` is a local path)."""
    mt = _URL_RE.match(text)
    return bool(mt) and mt is not None and mt.group(1).lower() != "file" and len(mt.group(1)) > 1


def location(spec: str | os.PathLike[str] | ObjectPath, storage_options: Mapping[str, Any] | None = None) -> Location:
    """An export directory given as a local path, ``file://`` URL, object storage URL or
    :class:`ObjectPath`."""
    if isinstance(spec, ObjectPath):
        return spec
    text = os.fspath(spec)
    if text.startswith("file://"):
        return Path(text[len("file://") :])
    if is_object_url(text):
        return ObjectPath(text, storage_options)
    return Path(text)


def local_state_dir(directory: Location) -> Path:
    """Where the import keeps what it appends to (its journal, rejects files): the export directory
    itself when local; for object storage ``$DBJSON_STATE_DIR`` (default ``~/.cache/dbjson``)
    ``/exports/<hash of the URL>``, so ``--resume`` against the same bucket prefix finds its journal."""
    if isinstance(directory, Path):
        return directory
    base = Path(os.environ.get("DBJSON_STATE_DIR") or Path.home() / ".cache" / "dbjson")
    digest = hashlib.blake2b(f"{directory.protocol}://{directory.key}".encode(), digest_size=8).hexdigest()
    d = base / "exports" / digest
    d.mkdir(parents=True, exist_ok=True)
    return d


def write_atomic(path: Location, data: bytes) -> None:
    """Write a whole small file so that readers see the old one or the new one: locally
    ``<name>.partial`` then rename; in object storage one PUT."""
    if isinstance(path, ObjectPath):
        path.write_bytes(data)
        return
    tmp = path.with_name(path.name + ".partial")
    with open_for_write(tmp) as fh:  # never through a planted link
        fh.write(data)
    os.replace(tmp, path)


class Sink:
    """A data file being written: :attr:`raw` takes the bytes; :meth:`commit` makes the file appear
    under its name, :meth:`discard` drops it."""

    raw: IO[bytes]

    def flush(self) -> None:
        self.raw.flush()

    def commit(self) -> None:
        raise NotImplementedError

    def discard(self) -> None:
        raise NotImplementedError


class _LocalSink(Sink):
    """``<name>.partial``, fsync'd and renamed into place by :meth:`commit`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = path.with_name(path.name + ".partial")
        self.raw = open_for_write(self.partial)  # closed in commit/discard; never through a planted link

    def commit(self) -> None:
        os.fsync(self.raw.fileno())
        self.raw.close()
        os.replace(self.partial, self.path)

    def discard(self) -> None:
        try:
            self.raw.close()
        finally:
            self.partial.unlink(missing_ok=True)


class _ObjectSink(Sink):
    """A streamed multipart upload: parts go out as the buffer fills; the object exists only once
    :meth:`commit` completes the upload. :meth:`discard` aborts it (no object, no parts kept)."""

    def __init__(self, path: ObjectPath) -> None:
        self.path = path
        self.raw = path.open("wb")

    def flush(self) -> None:
        pass  # a part is uploaded when it is full; close() sends the last one

    def commit(self) -> None:
        self.raw.close()

    def discard(self) -> None:
        discard = getattr(self.raw, "discard", None)
        if discard is not None:
            try:
                discard()
            except Exception:  # noqa: BLE001 - best effort: an unfinished upload is invisible anyway
                pass
        # never closed: fsspec's close() (also run by __del__) would publish what was written so far
        self.raw.closed = True  # type: ignore[misc]


def open_sink(path: Location) -> Sink:
    """A new data file at ``path`` (see :class:`Sink`)."""
    return _ObjectSink(path) if isinstance(path, ObjectPath) else _LocalSink(path)


def open_read(path: Location) -> IO[bytes]:
    """A binary reader of ``path``: a local file, or ranged reads of an object."""
    if isinstance(path, ObjectPath):
        return path.reader()
    return open(path, "rb", buffering=1 << 20)  # noqa: SIM115 - owned by the caller


__all__ = [
    "Location",
    "ObjectPath",
    "PART_BYTES",
    "Sink",
    "is_object_url",
    "local_state_dir",
    "location",
    "open_read",
    "open_sink",
    "write_atomic",
]
