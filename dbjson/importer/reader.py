"""The data files of an import, read unit by unit (:class:`LoadUnit`: one data file of a table):
lines converted for the engine, row by row or a block at a time through the encoders, counted and
checksummed against the manifest (:class:`UnitReader`).
"""

from __future__ import annotations

import hashlib
import pickle
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import xxhash

from ..engines import Engine
from ..engines.interface import TablePlan
from ..errors import Cancelled, DataError
from ..format.checksum import Checksum
from ..format.datafiles import DataFile, count_lines, iter_lines, line_too_long, max_line_bytes, whole_lines
from ..ratelimit import RateLimit
from .convert import build_row_converter
from .encoders import INLINE, encode_block, encode_file_range

CANCEL_CHECK_EVERY = 2000
PROGRESS_EVERY = 0.25  # seconds between a unit's UnitProgress events
LIMIT_BATCH = 500  # rows booked at once under --max-rate (row by row paths)


@dataclass
class LoadUnit:
    """One data file of a table to load (in its own transaction, journaled as :attr:`step`)."""

    table: TablePlan
    file: DataFile
    base_row: int  # rows in the table's earlier files (counter columns stay deterministic)

    @property
    def step(self) -> str:
        """The unit's journal step."""
        return "data:" + self.file.rel

    @property
    def size(self) -> int:
        """The data file's size in bytes (the manifest's, else the file's; 0 when unknown)."""
        if self.file.bytes is not None:
            return self.file.bytes
        try:
            return self.file.path.stat().st_size
        except OSError:
            return 0


class NativeReader:
    """One unit's rows in the engines' native row format (a same-engine migrate, see
    :meth:`dbjson.importer.run.Importer.native_blocks`): blocks passed on as they are, counted
    (a row per line) and summed into the unit's content checksum of that format (``kind``), with
    ``--max-rate``, progress and cancellation as :class:`UnitReader` has them."""

    def __init__(
        self,
        unit: LoadUnit,
        kind: str,
        source: Iterable[bytes],
        cancel: threading.Event,
        *,
        progress: Callable[[int], None] | None = None,
        limit: RateLimit | None = None,
    ) -> None:
        self.unit = unit
        self.kind = kind
        self.source = source
        self.cancel = cancel
        self.progress = progress
        self.limit = limit
        self.checksum = Checksum(algorithm=unit.file.algorithm)
        self._reported = time.monotonic()

    @property
    def count(self) -> int:
        """Rows read so far."""
        return self.checksum.rows

    def blocks(self) -> Iterator[bytes]:
        """The unit's blocks of whole rows, each summed before it is handed on."""
        checksum, cancel, limit = self.checksum, self.cancel, self.limit
        for block in self.source:
            if cancel.is_set():
                raise Cancelled("import cancelled")
            before = checksum.rows
            checksum.add_block(block)
            if limit is not None:  # --max-rate: this block's turn (rows, and bytes of the native text)
                limit.take(checksum.rows - before, len(block), cancel)
            if self.progress is not None:
                now = time.monotonic()
                if now - self._reported >= PROGRESS_EVERY:
                    self._reported = now
                    self.progress(checksum.rows)
            yield block

    def check_complete(self, handled: int) -> None:
        """Every row read was loaded (the server's count)."""
        if handled != self.count:
            f = self.unit.file
            raise DataError(
                f"read {self.count} rows but the target took {handled}",
                file=f.rel,
                table=self.unit.table.display,
                fatal=True,
            )

    def close(self) -> None:
        close = getattr(self.source, "close", None)
        if close is not None:
            close()


class UnitReader:
    """Reads one unit's lines, converts them for the engine and checks them against the manifest."""

    def __init__(
        self,
        unit: LoadUnit,
        engine: Engine,
        zero_dates: str,
        open_file: Callable[[DataFile], IO[bytes]],
        cancel: threading.Event,
        *,
        streams: bool = False,
        progress: Callable[[int], None] | None = None,
        limit: RateLimit | None = None,
        expected: Any = None,
    ) -> None:
        self.unit = unit
        # verify's expected-line function (``verify.expected_lines``): with it, the bulk path also
        # sums the unit's lines that way as they load (``expected_sum``; None when it could not)
        self.expected = expected
        self.expected_sum: Checksum | None = None
        self.limit = limit  # --max-rate: the run's shared schedule (None: no limit, no cost)
        self.progress = progress  # called with the rows read so far, at most every PROGRESS_EVERY seconds
        self._reported = time.monotonic()
        self.engine = engine
        self.zero_dates = zero_dates
        self.open_file = open_file  # the importer's (dbjson.migrate: the source's stream)
        self.cancel = cancel
        self.streams = streams  # no file on disk to read by byte range
        self.tp = unit.table
        self.checksum = Checksum(algorithm=unit.file.algorithm)
        self.count = 0
        self.line = 0
        self._fh: IO[bytes] | None = None
        self.convert = build_row_converter(engine, self.tp, zero_dates, unit.file.rel)

    def _report(self) -> None:
        """Tell ``progress`` how many rows were read (every CANCEL_CHECK_EVERY rows or block, when
        PROGRESS_EVERY seconds have passed: no per-row cost)."""
        if self.progress is not None:
            now = time.monotonic()
            if now - self._reported >= PROGRESS_EVERY:
                self._reported = now
                self.progress(self.count)

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        self._fh = self.open_file(self.unit.file)
        lines = iter_lines(self._fh, self.unit.file.rel)
        return lines if self.limit is None else self._limited(lines, self.limit)

    def _limited(self, lines: Iterator[tuple[int, bytes]], limit: RateLimit) -> Iterator[tuple[int, bytes]]:
        """``lines``, booked with ``limit`` every LIMIT_BATCH rows (only under --max-rate)."""
        rows = size = 0
        for item in lines:
            rows += 1
            size += len(item[1])
            if rows == LIMIT_BATCH:
                limit.take(rows, size, self.cancel)
                rows = size = 0
            yield item
        if rows:
            limit.take(rows, size, self.cancel)

    def rows(self) -> Iterator[tuple[Any, ...]]:
        """Converted rows for the bulk path (a bad line raises DataError naming file and line)."""
        cancel = self.cancel
        add = self.checksum.add
        convert = self.convert
        base = self.unit.base_row
        for number, raw in self._lines():
            self.line = number
            self.count += 1
            if self.count % CANCEL_CHECK_EVERY == 0:
                if cancel.is_set():
                    raise Cancelled("import cancelled")
                self._report()
            add(raw)
            yield convert(raw, number, base + self.count)

    def encoded_blocks(self, pool: Any, lookahead: int = 2) -> Iterator[bytes]:
        """The unit's rows converted and encoded by the process pool, in order, a block at a time.

        The file is read in 1 MB blocks of whole lines here; each block is converted (and its
        lines checksummed) in a worker process by :func:`encode_block`. A worker process reads
        a block of a plain (uncompressed) file again by its byte range (:func:`encode_file_range`,
        from the page cache) rather than receiving it through the pool's pipe.

        When the manifest gives the plain file's XXH3-128 (or SHA-256) and content checksum, the
        bytes are checked instead of the lines: the whole file's hash here (a mismatch stops the unit
        before it commits), each block's CRC-32 where a worker re-reads it (the bytes it encodes
        are the bytes checked here), and the content checksum is then the manifest's (the file is
        byte for byte the one the export summed). One hash of the bytes costs a fraction of a
        hash call per line.
        """
        f = self.unit.file
        rel = f.rel
        expected = self.expected
        if expected is not None:
            self.expected_sum = Checksum(algorithm=f.algorithm)
        path = str(f.path)
        plain = not path.endswith((".gz", ".zst")) and not self.streams and isinstance(f.path, Path)
        by_range = pool is not INLINE and plain
        expect_hash = f.xxh128 or f.sha256
        by_bytes = plain and expect_hash is not None and f.checksum is not None
        file_hash: Any = None
        hash_name = ""
        if by_bytes:
            file_hash, hash_name = (xxhash.xxh3_128(), "xxh128") if f.xxh128 else (hashlib.sha256(), "sha256")
        self._fh = fh = self.open_file(f)
        pending: deque[Any] = deque()
        rest = b""
        first_line = 1
        offset = 0  # of the block in the (plain) file
        eng = self.engine
        plan = pickle.dumps(self.tp)  # once per unit, not once per block
        limit = max_line_bytes()
        while True:
            try:
                chunk = fh.read(1 << 20)
            except Exception as e:  # noqa: BLE001 - EOFError, OSError, zstandard.ZstdError
                raise DataError(
                    f"truncated or corrupt file: {e}", file=rel, table=self.tp.display, line=first_line, fatal=True
                ) from None
            if self.cancel.is_set():
                raise Cancelled("import cancelled")
            if file_hash is not None:
                file_hash.update(chunk)
                if not chunk and file_hash.hexdigest() != (expect_hash or "").lower():
                    raise DataError(
                        f"content checksum: the file's {hash_name} {file_hash.hexdigest()} differs from "
                        f"the manifest's {expect_hash}",
                        file=rel,
                        table=self.tp.display,
                        fatal=True,
                    )
            block, rest = whole_lines(rest, chunk)
            if len(rest) > limit:  # a line longer than the limit: read no further
                raise line_too_long(rel, first_line + block.count(b"\n"), limit, table=self.tp.display)
            if block:
                if not chunk and not block.endswith(b"\n"):
                    raise DataError(
                        "truncated file: the last line has no newline",
                        file=rel,
                        line=first_line + block.count(b"\n"),
                        table=self.tp.display,
                        fatal=True,
                    )
                args = (eng.name, eng.server_version, plan, self.zero_dates, rel, first_line)
                if by_range:
                    expect = zlib.crc32(block) if by_bytes else None
                    pending.append(pool.submit(encode_file_range, *args, path, offset, len(block), expect, f.algorithm))
                else:
                    pending.append(pool.submit(encode_block, *args, block, None if by_bytes else f.algorithm))
                if expected is not None:  # (C, without the interpreter lock) while the pool encodes
                    expected.add_block(self.expected_sum, block)
                lines_in_block = count_lines(block)
                first_line += lines_in_block
                offset += len(block)
                if self.limit is not None:  # --max-rate: this block's turn
                    self.limit.take(lines_in_block, len(block), self.cancel)
            while pending and (len(pending) > lookahead or not chunk):
                yield self._take(pending.popleft().result())
            if not chunk:
                if by_bytes:  # every block was taken: the content is the file the manifest describes
                    self.checksum = Checksum.from_hex(f.checksum or "", self.checksum.rows, f.algorithm)
                return

    def _take(self, result: tuple[Any, ...]) -> bytes:
        status, payload, n, csum, info = result
        if status != "ok":
            raise DataError(payload, **info)
        self.count += n
        self.checksum.merge(Checksum(csum, n, self.checksum.algorithm))
        self._report()
        return payload  # type: ignore[no-any-return]

    def rows_careful(self) -> Iterator[tuple[int, bytes, tuple[Any, ...] | None, DataError | None]]:
        """Every line with its converted row or its error."""
        base = self.unit.base_row
        for number, raw in self._lines():
            self.line = number
            self.count += 1
            if self.count % CANCEL_CHECK_EVERY == 0:
                if self.cancel.is_set():
                    raise Cancelled("import cancelled")
                self._report()
            self.checksum.add(raw)
            try:
                yield number, raw, self.convert(raw, number, base + self.count), None
            except DataError as e:
                yield number, raw, None, e

    def check_complete(self, handled: int) -> None:
        """The unit matches the manifest: every row was read and handled, checksum equal."""
        f = self.unit.file
        if f.rows is not None and self.count != f.rows:
            raise DataError(
                f"the manifest lists {f.rows} rows, the file has {self.count}",
                file=f.rel,
                table=self.tp.display,
                fatal=True,
            )
        if handled != self.count:
            raise DataError(
                f"read {self.count} rows but the target took {handled}", file=f.rel, table=self.tp.display, fatal=True
            )
        if f.checksum and self.checksum.hexdigest() != f.checksum:
            raise DataError(
                f"checksum {self.checksum.hexdigest()} differs from the manifest's {f.checksum}",
                file=f.rel,
                table=self.tp.display,
                fatal=True,
            )

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
