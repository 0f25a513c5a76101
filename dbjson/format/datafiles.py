"""Data files: written by export (:class:`DataFileWriter`), listed in the manifest
(:class:`DataFile`), read back by import and verify (:func:`open_data`, :func:`iter_lines`)."""

from __future__ import annotations

import gzip
import io
import os
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import xxhash

from .. import speedups
from ..errors import DataError, DbjsonError
from .checksum import DEFAULT_CHECKSUM, Checksum
from .storage import Location, ObjectPath, open_sink

# The longest line (one row) dbjson reads from a data file. No engine loads a bigger row: MySQL's
# max_allowed_packet is at most 1 GiB, PostgreSQL holds at most 1 GB in one field and in one COPY
# line. Reading stops at the limit (a decompression bomb or a file without newlines never takes
# more): DBJSON_MAX_LINE_BYTES raises or lowers it (docs/security.md).
DEFAULT_MAX_LINE_BYTES = 1 << 30
MAX_LINE_ENV = "DBJSON_MAX_LINE_BYTES"
ZSTD_FEED = 1024  # compressed bytes per decompress call: at most ~32 MiB out (zstd's 128 KB RLE blocks)


def max_line_bytes() -> int:
    """The line limit: ``$DBJSON_MAX_LINE_BYTES`` or :data:`DEFAULT_MAX_LINE_BYTES`."""
    raw = os.environ.get(MAX_LINE_ENV, "")
    try:
        return max(1024, int(raw)) if raw else DEFAULT_MAX_LINE_BYTES
    except ValueError:
        return DEFAULT_MAX_LINE_BYTES


def line_too_long(file: str, line: int, limit: int, **where: Any) -> DataError:
    """The error for a line longer than ``limit`` bytes (only its first bytes were read)."""
    return DataError(
        f"line longer than {limit} bytes (the limit of one row; {MAX_LINE_ENV} changes it): "
        "not read further (a decompression bomb or a file without line ends?)",
        file=file,
        line=line,
        fatal=True,
        **where,
    )


class _HashingFile:
    """A binary file wrapper that counts and XXH3-128-hashes the bytes written (the manifest's
    ``xxh128``: about 15 GB/s, where SHA-256 took 0.11 s of CPU per 1M-row export)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.digest = xxhash.xxh3_128()
        self.size = 0

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self.digest.update(data)
        self.size += len(data)
        return self.raw.write(data)

    def flush(self) -> None:
        self.raw.flush()

    def writable(self) -> bool:
        return True

    def close(self) -> None:  # the owner closes the raw file
        self.raw.flush()


class DataFileWriter:
    """One data file being written: locally ``<path>.partial`` until :meth:`finish` renames it; in
    object storage a multipart upload that :meth:`finish` completes (:mod:`.storage`)."""

    def __init__(self, path: Location, compress: str) -> None:
        self.path = path
        self._sink = open_sink(path)
        self._raw = self._sink.raw
        self._hash = _HashingFile(self._raw)
        self._out: Any
        if compress == "gzip":
            self._out = gzip.GzipFile(filename="", mode="wb", fileobj=self._hash, compresslevel=6, mtime=0)
        elif compress == "zstd":
            import zstandard

            self._out = zstandard.ZstdCompressor(level=3).stream_writer(self._hash, closefd=False)  # type: ignore[arg-type]
        else:
            self._out = self._hash
        self.checksum = Checksum()
        self.plain_bytes = 0

    def write_block(self, block: bytes) -> int:
        """Write complete lines (each ending in ``\\n``); returns the number of rows."""
        before = self.checksum.rows
        self.checksum.add_block(block)
        self._out.write(block)
        self.plain_bytes += len(block)
        return self.checksum.rows - before

    def seal(self) -> tuple[int, str]:
        """End the (compressed) stream and hand the bytes to the OS; returns (size in bytes,
        XXH3-128 hex of the bytes). The file is still ``.partial``: :meth:`commit` follows."""
        if self._out is not self._hash:
            self._out.close()
        self._sink.flush()
        return self._hash.size, self._hash.digest.hexdigest()

    def commit(self) -> None:
        """On disk (fsync), then renamed into place: a data file never has its final name before
        its bytes are durable (object storage: the upload completes, and the object appears)."""
        self._sink.commit()

    def finish(self) -> tuple[int, str]:
        """:meth:`seal` and :meth:`commit`; returns (size in bytes, XXH3-128 hex of the bytes)."""
        sealed = self.seal()
        self.commit()
        return sealed

    def discard(self) -> None:
        self._sink.discard()


class Syncer:
    """Makes sealed data files durable (:meth:`DataFileWriter.commit`: fsync, rename) on a thread of its
    own, so that a worker goes on with its next unit while the disk catches up (the fsyncs of a
    1M-row export took 0.09-0.11 s, on the workers' path before). :meth:`drain` waits for every
    file; the manifest is written only after it. After an error (``on_error`` is called: the
    export stops), later files are discarded."""

    def __init__(self, on_error: Callable[[], None]) -> None:
        self._on_error = on_error
        self._queue: queue.Queue[DataFileWriter | None] = queue.Queue()
        self._done = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="dbjson-export-sync", daemon=True)
        self._thread.start()

    def submit(self, f: DataFileWriter) -> None:
        """Commit the sealed file ``f`` (:meth:`DataFileWriter.seal`) on this syncer's thread."""
        self._queue.put(f)

    def _run(self) -> None:
        try:
            while (f := self._queue.get()) is not None:
                if self.error is not None:
                    f.discard()
                    continue
                try:
                    f.commit()
                except BaseException as e:  # noqa: BLE001 - reported by drain()
                    self.error = e
                    f.discard()
                    self._on_error()
        finally:
            self._done.set()

    def drain(self) -> None:
        """Wait until every submitted file is committed (or discarded after an error); raises the
        first error. Waits on an event, not join() (see _run_workers)."""
        self._queue.put(None)
        while not self._done.wait(0.2):
            pass
        if self.error is not None:
            raise self.error


@dataclass
class DataFile:
    """One data file listed in the manifest."""

    path: Location  # a local file or an object (:mod:`.storage`)
    rel: str
    rows: int | None
    bytes: int | None = None
    checksum: str | None = None
    xxh128: str | None = None  # XXH3-128 of the file's bytes (exports since format 1.2 write it)
    sha256: str | None = (
        None  # SHA-256 of the file's bytes (format 1.0-1.1 exports; hand-made manifests may have neither)
    )
    algorithm: str = DEFAULT_CHECKSUM  # the manifest's checksum_algorithm of ``checksum``


def open_data(path: Location | str) -> IO[bytes]:
    """A binary reader over a plain, gzip (``.gz``) or zstd (``.zst``) data file (an object in
    object storage is read by ranged reads, :meth:`.storage.ObjectPath.open`)."""
    if isinstance(path, ObjectPath):
        raw = path.reader()
        if path.name.endswith(".gz"):
            return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
        if path.name.endswith(".zst"):
            import zstandard

            return io.BufferedReader(_ZstdFrames(raw, zstandard), 1 << 20)
        return raw
    p = str(path)
    if p.endswith(".gz"):
        return gzip.open(p, "rb")  # type: ignore[return-value]
    if p.endswith(".zst"):
        import zstandard

        fh = open(p, "rb")  # noqa: SIM115 - owned by the returned reader
        return io.BufferedReader(_ZstdFrames(fh, zstandard), 1 << 20)
    return open(p, "rb", buffering=1 << 20)  # noqa: SIM115


class BlockReader(io.RawIOBase):
    """A readable raw stream over blocks of bytes that :meth:`next_block` gives one at a time (wrap
    it in an ``io.BufferedReader``)."""

    def __init__(self) -> None:
        super().__init__()
        self._buf = memoryview(b"")

    def readable(self) -> bool:
        return True

    def next_block(self) -> bytes | None:
        """The next block (possibly empty), or None at the end of the stream."""
        raise NotImplementedError

    def readinto(self, b: Any) -> int:
        while not self._buf:
            block = self.next_block()
            if block is None:
                return 0
            self._buf = memoryview(block)
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n


class _ZstdFrames(BlockReader):
    """Decompressed bytes of a zstd file (one or more frames); the end of the file inside a frame
    raises EOFError (zstandard's stream reader ends quietly there, so a cut file read short)."""

    def __init__(self, fh: IO[bytes], zstandard: Any) -> None:
        super().__init__()
        self._fh = fh
        self._zstd = zstandard
        self._dec = zstandard.ZstdDecompressor().decompressobj()
        self._started = False  # bytes of the current frame were fed
        self._input = memoryview(b"")  # compressed bytes read and not fed yet

    def next_block(self) -> bytes | None:
        """About 1 MB of decompressed bytes. The compressed input goes in ZSTD_FEED bytes at a time,
        so one call never expands more than a bounded amount (a 64 KB bomb of a 2 GiB line is read
        piece by piece, and the line limit stops it)."""
        out = bytearray()
        while len(out) < (1 << 20):
            if not self._input:
                self._input = memoryview(self._fh.read(1 << 16))
                if not self._input:
                    if self._started:
                        raise EOFError("the zstd stream ends inside a frame")
                    return bytes(out) if out else None
            piece, self._input = self._input[:ZSTD_FEED], self._input[ZSTD_FEED:]
            self._started = True
            out += self._dec.decompress(piece)
            if self._dec.eof:  # a frame ended: the rest (if any) starts the next one
                rest = self._dec.unused_data
                self._dec = self._zstd.ZstdDecompressor().decompressobj()
                self._started = False
                self._input = memoryview(bytes(rest) + bytes(self._input))
        return bytes(out)

    def close(self) -> None:
        self._fh.close()
        super().close()


BLOCK_READ_BYTES = 1 << 20  # what file_blocks reads at a time


def count_lines(block: bytes) -> int:
    """``block.count(b"\\n")``; by ``_cimport.count_lines`` when built (memchr, without the
    interpreter lock, which ``bytes.count`` holds: about 8x faster)."""
    cmod = speedups.load("_cimport")
    return int(cmod.count_lines(block)) if cmod is not None else block.count(b"\n")


def _read_error(e: Exception, file: str, line: int) -> DataError | None:
    """The DataError (naming the file and the line) for ``e`` raised while reading a data file
    that is truncated or corrupt (EOFError, OSError, zstandard.ZstdError); None for others."""
    if isinstance(e, (EOFError, OSError)) or type(e).__name__ == "ZstdError":
        return DataError(f"truncated or corrupt file: {e}", file=file, line=line)
    return None


def whole_lines(rest: bytes, chunk: bytes) -> tuple[bytes, bytes]:
    """``(block, rest)``: the whole lines of ``rest + chunk`` (``rest`` holds no newline: what
    followed the last one) and what follows their last newline; ``chunk`` empty (the end of the
    file): all of ``rest``. Joined with one copy at most (a chunk of whole lines after no rest,
    none): the readers' blocks are about 1 MB each."""
    if not chunk:
        return rest, b""
    cut = chunk.rfind(b"\n") + 1
    if not cut:
        return b"", rest + chunk
    if not rest:
        return (chunk if cut == len(chunk) else chunk[:cut]), chunk[cut:]
    return b"".join((rest, memoryview(chunk)[:cut])), chunk[cut:]


def file_blocks(fh: IO[bytes], file: str) -> Iterator[tuple[int, bytes]]:
    """``(lines before the block, block)``: a data file's content in blocks of whole lines (each
    ending in a newline; about :data:`BLOCK_READ_BYTES`), with the errors :func:`iter_lines`
    gives for a truncated file and a line over :func:`max_line_bytes` (the limit is checked on
    the bytes not yet split, so a line is never held whole past it). :func:`block_lines` gives
    the lines of a block as :func:`iter_lines` would."""
    limit = max_line_bytes()
    before = 0
    rest = b""
    try:
        while chunk := fh.read(BLOCK_READ_BYTES):
            block, rest = whole_lines(rest, chunk)
            if block:
                if len(block) > limit + 1:
                    for i, line in enumerate(block.split(b"\n")):
                        if len(line) > limit:
                            raise line_too_long(file, before + i + 1, limit)
                lines = count_lines(block)
                yield before, block
                before += lines
            if len(rest) > limit:
                raise line_too_long(file, before + 1, limit)
    except DbjsonError:
        raise
    except Exception as e:
        if (error := _read_error(e, file, before + 1)) is None:
            raise
        raise error from None
    if rest:
        raise DataError("truncated file: the last line has no newline", file=file, line=before + 1)


def block_lines(before: int, block: bytes) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of a block of :func:`file_blocks` (``before`` lines precede it), as
    :func:`iter_lines` gives them: without newline and carriage return, blank lines skipped."""
    number = before
    for line in block.split(b"\n")[:-1]:
        number += 1
        if line.endswith(b"\r"):
            line = line[:-1]
        if line:
            yield number, line


def iter_lines(fh: IO[bytes], file: str) -> Iterator[tuple[int, bytes]]:
    """``(line number, line without newline)``; a last line without newline means a truncated file;
    a line longer than :func:`max_line_bytes` is an error (read no further than the limit)."""
    number = 0
    limit = max_line_bytes()
    readline = fh.readline
    try:
        while True:
            line = readline(limit + 1)
            if not line:
                return
            number += 1
            if len(line) > limit and not line.endswith(b"\n"):
                raise line_too_long(file, number, limit)
            if line.endswith(b"\n"):
                line = line[:-1]
                if line.endswith(b"\r"):
                    line = line[:-1]
            elif line:
                raise DataError("truncated file: the last line has no newline", file=file, line=number)
            if line:
                yield number, line
    except DbjsonError:
        raise
    except Exception as e:
        if (error := _read_error(e, file, number + 1)) is None:
            raise
        raise error from None
