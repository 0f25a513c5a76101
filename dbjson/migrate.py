"""``dbjson migrate``: a live database → database migration in one pipeline (export + import, no staging).

How it works (docs/migrate.md):

1. the source side is the export's: ``threads`` connections in one consistent snapshot
   (``engine.export_snapshot``), the schema reflected inside it, every table planned into units
   (:func:`dbjson.export.plan_table`: key ranges of big tables);
2. the target side is the import's (:class:`dbjson.importer.run.Importer`): DDL plan and translation
   report, pre-data DDL, pre-flight, rows unit by unit (each in one transaction, journaled), post-data
   DDL, verify. Each export unit is one import unit whose "data file" is a stream: the import thread
   that loads it checks out a snapshot connection and reads the unit's canonical JSON lines from
   ``engine.export_stream`` (read ahead by a helper thread, at most ``PREFETCH_BLOCKS`` blocks:
   bounded memory), exactly the bytes ``dbjson export`` would write to the unit's file;
3. the checksums of those lines (computed as they are loaded, recorded in the journal) are the
   expected content that verify compares the target's re-encoded rows against; the pre-flight and
   verify re-read a table from the snapshot when they need its lines;
4. ``keep``: every unit's lines are also written to a normal export directory (``schema.json``,
   ``manifest.json``, ``data/``) that ``dbjson import`` loads later;
5. ``resume``: the journal (in ``keep`` or ``state_dir``) and the saved unit plan let a second run
   load exactly the units that are missing.

The library never prints: progress goes to ``on_event`` as the events of :mod:`dbjson.events`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import logging
import os
import queue
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson
import xxhash

from . import model as m
from . import speedups
from .casts import parse_casts
from .connect import Target, close_quietly, connection_error, parse_url
from .engines import detect_engine
from .engines.interface import ExportUnit, TablePlan
from .errors import Cancelled, DbjsonError, DocumentError, UsageError
from .events import Event, EventHandler, Finished, PhaseStarted, Warning
from .export import (
    UnitFile,
    abort_queries,
    connect_source,
    json_text_columns,
    open_workers,
    plan_table,
    prefetched,
    reflect_source,
    select_tables,
    source_info,
    table_entries,
    unit_file_rel,
)
from .format.checksum import Checksum
from .format.datafiles import BlockReader, DataFile, DataFileWriter, block_lines, line_too_long, max_line_bytes
from .format.journal import Journal, journal_path
from .format.layout import DATA_DIR, WrittenFiles, prepare_export_dir, safe_names
from .format.linefilter import LineFilter
from .format.manifest import Manifest, ManifestTable, SnapshotInfo, write_manifest, write_schema
from .format.paths import inside
from .format.savedstate import Unencodable, decode_values, encode_values, read_state, write_state
from .importer.encoders import INLINE, c_block_plan
from .importer.options import DEFAULT_RETRY_BUDGET, ImportOptions, default_load_threads
from .importer.plan import ImportPlan, foreign_key_waves
from .importer.reader import LoadUnit
from .importer.report import ImportReport
from .importer.run import Importer
from .importer.session import connect_target, target_identity
from .model import now_utc
from .preflight import preflight_columns, source_filter, stream_sieve
from .ratelimit import parse_rate
from .verify import TableCheck, exact_check, expected_lines, native_check, verify_error

log = logging.getLogger(__name__)  # debug lines only (the library never prints): which tables move natively

PLAN_FILE = "migrate-plan.json"  # a JSON state file (jsonschema/migrate-plan.json)
FINISHED = "migrate:finished"  # the journal step written when a migration completed (verified)
BYTES_PER_ROW_GUESS = 120  # orders units (largest first) and sizes the progress bar before the bytes are known


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------


@dataclass
class MigrateReport:
    """The outcome of a migration: the source's snapshot, the import's report, the kept export."""

    source: str
    target: str
    snapshot: SnapshotInfo
    load: ImportReport
    seconds: float
    threads: int
    keep_dir: str | None = None
    state_dir: str | None = None
    warnings: list[str] = field(default_factory=list)
    # table → how its rows moved: the engines' native row format ("postgresql-copy-text") or
    # "lines (why not natively)"
    row_streams: dict[str, str] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        """Rows migrated (with those an interrupted run loaded before ``resume``)."""
        return sum(t.rows for t in self.load.tables.values())

    @property
    def translation(self) -> list[str]:
        """What the schema translation lost or approximated (schema-load's report)."""
        return self.load.translation

    def to_dict(self) -> dict[str, Any]:
        """A machine-readable summary (the CLI's ``--json``)."""
        load = self.load.to_dict()
        return {
            "ok": self.load.verify is None or bool(self.load.verify.ok),
            "source": self.source,
            "target": self.target,
            "snapshot": {"mode": self.snapshot.mode, "consistent": self.snapshot.consistent},
            "threads": self.threads,
            "seconds": round(self.seconds, 3),
            "rows": self.rows,
            "rows_per_second": round(self.rows / self.seconds, 1) if self.seconds > 0 else None,
            "resumed_units": load["resumed_units"],
            "tables": load["tables"],
            "findings": load["findings"],
            "translation": load["translation"],
            "verify": load["verify"],
            "keep": self.keep_dir,
            "warnings": self.warnings,
            "row_streams": self.row_streams,
            **({"dry_run": load["dry_run"]} if "dry_run" in load else {}),
        }


# ---------------------------------------------------------------------------------------------
# The source side: snapshot connections lent to the loading threads, one unit at a time
# ---------------------------------------------------------------------------------------------


class _Source:
    """The source's snapshot connections and what each virtual data file streams."""

    def __init__(self, engine: Any, conns: list[Any], stop: threading.Event) -> None:
        self.engine = engine
        self.conns = conns
        self.stop = stop
        self.idle: queue.Queue[Any] = queue.Queue()
        for c in conns:
            self.idle.put(c)
        self.units: dict[str, ExportUnit] = {}  # data file rel → the export unit it streams
        self.keep: Path | None = None  # the export directory kept files go to (--keep)
        self.kept: dict[str, UnitFile] = {}  # rel → the finished kept file
        self.written: WrittenFiles | None = None  # the kept directory's list of the files written there
        self.lock = threading.Lock()
        # the pre-flight's own snapshot connections (same units, same snapshot), so that it reads
        # while the loads hold these (see _MigrateImporter.concurrent_preflight); None: it shares them
        self.checker: _Source | None = None

    def checkout(self) -> Any:
        while True:
            if self.stop.is_set():
                raise Cancelled("migrate cancelled")
            try:
                return self.idle.get(timeout=0.2)
            except queue.Empty:
                continue

    def open(
        self,
        f: DataFile,
        keep: bool,
        columns: set[str] | None = None,
        where: str | None = None,
        capture: _Capture | None = None,
    ) -> IO[bytes]:
        """The canonical lines of the unit behind ``f`` (and, with ``keep``, its kept file); with
        ``columns``, lines of only those columns (what the pre-flight reads); with ``where`` (SQL on
        the source table), only the rows it selects, in the order of the full read; with
        ``capture``, the lines its byte test keeps are also captured for the pre-flight."""
        unit = self.units[f.rel]
        if columns is not None and len(columns) < len(unit.table.columns):
            unit = dataclasses.replace(
                unit, table=m.replace(unit.table, columns=tuple(c for c in unit.table.columns if c.name in columns))
            )
        if where is not None:
            unit = dataclasses.replace(unit, where=f"({unit.where}) AND ({where})" if unit.where else where)
            return _Filtered(_UnitStream(self, unit, f.rel, None), 1 << 20)
        kept = None
        if keep and self.keep is not None:
            if self.written is not None:
                self.written.add(self.keep / f.rel)  # before the file exists: a later export may replace it
            kept = DataFileWriter(self.keep / f.rel, "none")
        return io.BufferedReader(_UnitStream(self, unit, f.rel, kept, capture), 1 << 20)

    def native(self, f: DataFile, columns: Sequence[str]) -> _NativeStream:
        """The rows of the unit behind ``f`` (its ``columns``) in the engine's native row format."""
        return _NativeStream(self, self.units[f.rel], columns)

    def abort(self) -> None:
        """Stop every running source query (Ctrl-C, an error elsewhere)."""
        self.stop.set()
        abort_queries(self.engine, self.conns)
        if self.checker is not None:
            abort_queries(self.engine, self.checker.conns)

    def kept_file(self, rel: str, unit: ExportUnit, f: DataFileWriter) -> None:
        size, digest = f.finish()
        with self.lock:
            self.kept[rel] = UnitFile.written(unit, 0, f"data/{f.path.name}", size, digest, f.checksum)


class _NativeStream(Iterable[bytes]):
    """One unit's rows in the native row format (``engine.export_native_stream``), read ahead by a
    helper thread on a snapshot connection (at most ``PREFETCH_BLOCKS`` blocks: bounded memory)."""

    def __init__(self, source: _Source, unit: ExportUnit, columns: Sequence[str]) -> None:
        self.source = source
        self.helpers: list[threading.Thread] = []
        self.conn = source.checkout()
        self.closed = False
        self.blocks: Iterator[bytes] = prefetched(
            source.engine.export_native_stream(self.conn, unit, columns, source.stop), source.stop, helpers=self.helpers
        )

    def __iter__(self) -> Iterator[bytes]:
        yield from self.blocks
        if self.source.stop.is_set():
            raise Cancelled("migrate cancelled")

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            close = getattr(self.blocks, "close", None)
            if close is not None:
                close()  # stops the reader thread (it ends the unit's query)...
            for t in self.helpers:
                t.join(5 if self.source.stop.is_set() else None)  # ...before the connection is lent again
        finally:
            self.source.idle.put(self.conn)


class _Filtered(io.BufferedReader):
    """A unit's lines filtered on the source: only some of its rows (line numbers are not the file's)."""

    filtered = True


class _FilteredRead(io.BytesIO):
    """A unit's filtered lines read ahead into memory (see :meth:`_MigrateImporter.scan_file`)."""

    filtered = True


PREFLIGHT_AHEAD_BYTES = 64 << 20  # filtered pre-flight lines held in memory at once, read ahead


class _Budget:
    """Bytes held in memory at once, in all, by the pre-flight's reads ahead or the units' captures."""

    def __init__(self, total: int) -> None:
        self.left = total
        self.lock = threading.Lock()

    def take(self, n: int) -> bool:
        with self.lock:
            if n > self.left:
                return False
            self.left -= n
            return True

    def give(self, n: int) -> None:
        with self.lock:
            self.left += n


class _PreflightAhead:
    """The pre-flight's reads of a table's other units, on the source's other snapshot connections,
    while the pre-flight reads its first: the source server evaluates the filter over each unit's
    key range (a scan), and the pre-flight itself goes one unit after the other. What a read-ahead
    keeps is bounded (``PREFLIGHT_AHEAD_BYTES`` in all): a unit whose filtered lines do not fit is
    read again, as it would have been, when the pre-flight comes to it."""

    def __init__(self, source: _Source) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.source = source
        self.pool = ThreadPoolExecutor(max_workers=max(1, len(source.conns)), thread_name_prefix="dbjson-preflight")
        self.futures: dict[str, Any] = {}  # data file rel → Future of its lines (None: read it again)
        self.tables: set[str] = set()
        self.budget = _Budget(PREFLIGHT_AHEAD_BYTES)

    def start(self, table: str, files: Sequence[DataFile], columns: set[str], where: str | None) -> None:
        """Read ``files`` (a table's units after the one being read) ahead, once per table."""
        if table in self.tables:
            return
        self.tables.add(table)
        for f in files:
            self.futures[f.rel] = self.pool.submit(self._read, f, columns, where)

    def _read(self, f: DataFile, columns: set[str], where: str | None) -> bytes | None:
        parts: list[bytes] = []
        taken = 0
        try:
            with self.source.open(f, keep=False, columns=columns, where=where) as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    if not self.budget.take(len(chunk)):
                        return None
                    taken += len(chunk)
                    parts.append(chunk)
            data = b"".join(parts)
            taken = 0  # kept until taken by the pre-flight
            return data
        finally:
            if taken:
                self.budget.give(taken)

    def take(self, f: DataFile) -> IO[bytes] | None:
        """The unit's filtered lines if they were read ahead (None: read them now)."""
        fut = self.futures.pop(f.rel, None)
        if fut is None:
            return None
        data = fut.result()  # (its error, as the read would have raised it)
        if data is None:
            return None
        self.budget.give(len(data))
        return _FilteredRead(data)

    def close(self) -> None:
        for fut in self.futures.values():
            fut.cancel()
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.futures.clear()


CAPTURE_BYTES = 64 << 20  # the units' lines held for the pre-flight at once (see _Capture)
CAPTURE_MIN_BYTES = 8 << 20  # a smaller table's pre-flight reads it again (its catalog queries cost more than its read)
# a stream that reads no block for this long (a lock wait?): the pre-flight stops waiting for it
CAPTURE_STALL_SECONDS = 2.0
CAPTURE_IDLE_SECONDS = 0.5  # every load waiting this long for the pre-flight: it stops waiting for a unit not begun


class _Capture:
    """The lines of one unit that the pre-flight would parse, taken from the load's own stream of
    the unit, so that the source is not read a second time for the pre-flight.

    A concurrent pre-flight lets units load but not commit until it is done (see
    ``dbjson.importer.run._PreflightGate``). When a table's checks all have a byte test
    (:func:`dbjson.preflight.stream_sieve`), the lines of a unit the test cannot clear are all the
    pre-flight parses; the load's stream keeps those (:meth:`feed`) as it reads the unit, and
    the pre-flight takes them (:meth:`take`) once the stream has read every row. The lines are
    those a read of the source would give (the same snapshot, the unit's rows in the same order).

    The pre-flight reads the unit from the source as before when the capture cannot stand in: the
    stream failed or stopped before its end, the kept lines outgrew the run's budget, every load in
    flight waits for the pre-flight (the unit may never begin or go on before it is done), or the
    stream read nothing for :data:`CAPTURE_STALL_SECONDS` (its load may wait for a lock that a unit
    waiting for the pre-flight holds)."""

    def __init__(self, sieve: LineFilter, budget: _Budget) -> None:
        self.sieve = sieve
        self.budget = budget
        self.cond = threading.Condition()
        self.state = "new"  # new → streaming → done | lost; taken once the pre-flight decided
        self.parts: list[bytes] = []
        self.held = 0
        self.read_at = 0.0  # when the stream last read a block

    def begin(self) -> None:
        """The unit's stream begins (again, after a failed attempt: what it kept is dropped)."""
        with self.cond:
            if self.state in ("done", "taken"):
                return  # a later read of the same rows (a retry): the pre-flight has (or will take) them
            self._drop()
            self.state = "streaming"
            self.read_at = time.monotonic()
            self.cond.notify_all()

    def feed(self, block: bytes) -> None:
        """A block of the unit's lines (whole lines, in order), as the stream reads it."""
        self.read_at = time.monotonic()
        if self.state != "streaming" or not self.sieve.block_may(block):
            return
        kept = [line for _number, line in block_lines(0, block) if self.sieve.may(line)]
        if not kept:
            return
        data = b"\n".join(kept) + b"\n"
        with self.cond:
            if self.state != "streaming":
                return
            if not self.budget.take(len(data)):
                self._drop()
                self.state = "lost"  # the pre-flight reads the unit from the source
                self.cond.notify_all()
                return
            self.parts.append(data)
            self.held += len(data)

    def end(self, complete: bool) -> None:
        """The stream ended: after its last row (``complete``), or not (an error, a stop)."""
        with self.cond:
            if self.state != "streaming":
                return
            if complete:
                self.state = "done"
            else:
                self._drop()
                self.state = "lost"
            self.cond.notify_all()

    def take(self, parked_for: Callable[[], float], stop: Callable[[], bool]) -> bytes | None:
        """The unit's kept lines once its stream has read them all; None when the pre-flight must
        read the unit itself (see the class). ``parked_for``: for how long every load in flight
        has waited for the pre-flight (a unit not begun then may not begin before it is done);
        ``stop``: the run is stopping."""
        with self.cond:
            while True:
                if self.state == "done":
                    data = b"".join(self.parts)
                    self._drop()
                    self.state = "taken"
                    return data
                if self.state in ("lost", "taken") or stop():
                    break
                if parked_for() >= CAPTURE_IDLE_SECONDS:
                    break  # (not begun, or stopped by its load waiting for the pre-flight: no progress)
                if self.state == "streaming" and time.monotonic() - self.read_at >= CAPTURE_STALL_SECONDS:
                    break  # its load waits for something, maybe for a unit that waits for the pre-flight
                self.cond.wait(0.05)
            self._drop()
            self.state = "taken"
            return None

    def _drop(self) -> None:
        if self.held:
            self.budget.give(self.held)
        self.parts, self.held = [], 0


class _UnitStream(BlockReader):
    """A readable stream of one unit's lines, straight from a snapshot connection (and, with a
    :class:`_Capture`, the lines its pre-flight byte test keeps, kept for the pre-flight)."""

    def __init__(
        self,
        source: _Source,
        unit: ExportUnit,
        rel: str,
        kept: DataFileWriter | None,
        capture: _Capture | None = None,
    ) -> None:
        super().__init__()
        self.source = source
        self.unit = unit
        self.rel = rel
        self.kept = kept
        self.helpers: list[threading.Thread] = []
        self.conn = source.checkout()
        self.blocks: Iterator[bytes] = prefetched(
            source.engine.export_stream(self.conn, unit, source.stop), source.stop, helpers=self.helpers
        )
        self.ended = False
        self.capture = capture
        if capture is not None:
            capture.begin()

    def next_block(self) -> bytes | None:
        """The unit's next block of lines (also written to the kept file, with ``keep``)."""
        if self.ended:
            return None
        try:
            block = next(self.blocks)
        except DbjsonError as e:  # a value the source cannot export: name its table, as export does
            e.table = e.table or self.unit.qualified
            raise
        except StopIteration:
            self.ended = True
            if self.source.stop.is_set():
                raise Cancelled("migrate cancelled") from None
            if self.kept is not None:
                self.source.kept_file(self.rel, self.unit, self.kept)
                self.kept = None
            if self.capture is not None:
                self.capture.end(complete=True)
            self._give_back()  # every row read: another unit may use the connection while this one commits
            return None
        if self.kept is not None:
            self.kept.write_block(block)
        if self.capture is not None:
            self.capture.feed(block)
        return block

    def _give_back(self) -> None:
        """The connection back to the source's idle ones, once: the reader thread stopped first (it
        ends the unit's query) so that the connection is lent again with no query running."""
        if self.conn is None:
            return
        try:
            close = getattr(self.blocks, "close", None)
            if close is not None:
                close()
            for t in self.helpers:
                t.join(5 if self.source.stop.is_set() else None)
        finally:
            conn, self.conn = self.conn, None
            self.source.idle.put(conn)

    def close(self) -> None:
        if self.closed:
            return
        try:
            if self.kept is not None:
                self.kept.discard()
            if self.capture is not None:
                self.capture.end(complete=False)  # (after its last row: already done)
        finally:
            try:
                self._give_back()
            finally:
                super().close()


# ---------------------------------------------------------------------------------------------
# The target side: the importer, reading its units from the source
# ---------------------------------------------------------------------------------------------


class _MigrateImporter(Importer):
    """An :class:`Importer` whose data files are the source's units, streamed."""

    verify_while_loading = False  # each table is verified by the thread that loads its last unit (_unit_finished)

    streams = True
    operation = "migrate"
    source: _Source
    native: dict[str, str]  # table → the native row format its units move in (see choose_streams)
    row_streams: dict[str, str]  # table → how its rows move: a native format's name, or "lines (why)"
    plans: dict[str, TablePlan]  # data file rel → its table
    filters: dict[str, str | None]  # table → the pre-flight's filter on the source (None: every row)
    _ahead: _PreflightAhead | None  # the pre-flight's reads ahead (see scan_file)
    _seals: dict[str, dict[str, int]]  # table → its rows per xmin at its early read-back (early_checks)

    _captures: dict[str, _Capture]  # data file rel → its lines kept for the pre-flight (see _Capture)
    _captured: set[str]  # the tables whose every unit has one
    _loads_over: threading.Event  # the data phase ended (its units will not stream any more)

    def open_file(self, f: DataFile) -> IO[bytes]:
        """The unit's lines from the source (and its kept file, with ``keep``; and for a concurrent
        pre-flight, the lines it would parse: :class:`_Capture`)."""
        return self.source.open(f, keep=True, capture=self._captures.get(f.rel))

    def scan_file(self, f: DataFile) -> IO[bytes]:
        """The unit's lines from the source, for verify."""
        return self.source.open(f, keep=False)

    def preflight_file(self, f: DataFile) -> IO[bytes]:
        """The unit's lines from the source for the pre-flight: only the columns it checks and,
        when the source server can evaluate the checks' conditions, only the rows that may fail
        them (:func:`dbjson.preflight.source_filter`); on the pre-flight's own snapshot connections
        when it has them."""
        capture = self._preflight_capture(f)
        if capture is not None:
            return capture
        tp = self.plans[f.rel]
        if tp.display not in self.filters:
            self.filters[tp.display] = source_filter(
                self.engine,
                self.conn(),
                self.source.engine,
                tp,
                zero_dates=self.opts.zero_dates,
                nul=self.opts.nul or "error",
            )
        columns = preflight_columns(self.engine, tp, self.opts.zero_dates)
        where = self.filters[tp.display]
        source = self.source.checker or self.source
        if len(source.conns) > 1 and len(tp.files) > 1:
            if self._ahead is None:
                self._ahead = _PreflightAhead(source)
            ahead = self._ahead.take(f)
            if ahead is not None:
                return ahead
            # the table's later units (read ahead once per table, from its first unit the pre-flight
            # reads here), not those whose loads keep their lines for it
            at = next((i for i, o in enumerate(tp.files) if o.rel == f.rel), len(tp.files))
            later = [o for o in tp.files[at + 1 :] if o.rel not in self._captures]
            self._ahead.start(tp.display, later, columns, where)
        return source.open(f, keep=False, columns=columns, where=where)

    def _preflight_capture(self, f: DataFile) -> IO[bytes] | None:
        """The unit's lines the pre-flight would parse, as its load streamed them (:class:`_Capture`),
        or None: the pre-flight reads them from the source."""
        capture = self._captures.get(f.rel) if self._gate is not None else None
        if capture is None:
            return None
        stop = self.source.stop.is_set
        over = self._loads_over.is_set
        data = capture.take(self.all_parked_for, lambda: stop() or over() or self.cancel.is_set())
        return None if data is None else _FilteredRead(data)

    def preflight_starting(self, tables: list[TablePlan]) -> None:
        """A :class:`_Capture` for each unit of each table whose pre-flight the loads' streams can
        answer (:func:`dbjson.preflight.stream_sieve`) and will: every unit of the table is among
        the first to load (no unit commits before the pre-flight is done, so the units after the
        first ``threads`` + parked ones do not begin before it; and the units of a later wave of
        foreign keys wait for the earlier waves). The pre-flight checks these tables last, after
        reading the others from the source while the units load."""
        self._captures, self._captured = {}, set()
        state = self._state
        done = state.done if state is not None else {}
        todo = [LoadUnit(tp, f, 0) for tp in tables if not tp.skipped for f in tp.files]
        todo = [u for u in todo if u.step not in done]
        if not todo or len(foreign_key_waves(self.engine, todo)) > 1:
            return
        threads, extra = self.load_widths()
        first = {u.file.rel for u in sorted(todo, key=lambda u: -u.size)[: threads + extra]}  # run_parallel's order
        budget = _Budget(CAPTURE_BYTES)
        serial = self.engine.capabilities.unit_locks_table
        for tp in tables:
            mine = [u.file for u in todo if u.table is tp]
            if not mine or any(f.rel not in first for f in mine) or not self.may_start_early(tp):
                continue  # (a unit not among the first, or waiting for its table's pre-flight, cannot stream for it)
            if serial and len(mine) > 1:
                continue  # (its second unit waits for the first one's commit, after the pre-flight)
            if sum(f.bytes or 0 for f in mine) < CAPTURE_MIN_BYTES:
                continue
            sieve = stream_sieve(
                self.engine, self.conn(), tp, zero_dates=self.opts.zero_dates, nul=self.opts.nul or "error"
            )
            if sieve is None:
                continue
            self._captured.add(tp.display)
            for f in mine:
                self._captures[f.rel] = _Capture(sieve, budget)

    def preflight_late(self, tp: TablePlan) -> bool:
        """The tables whose lines the loads keep for the pre-flight come last (it waits for them)."""
        return tp.display in self._captured

    def concurrent_preflight(self) -> bool:
        """With its own snapshot connections (``source.checker``), the pre-flight reads the source
        while the tables it has cleared load (see :class:`dbjson.importer.run._PreflightGate`)."""
        return self.source.checker is not None

    def may_start_early(self, tp: TablePlan) -> bool:
        """Not when the two engines share a native row format: the table's value rules decide
        whether its rows move in it (:meth:`choose_streams`), and its units must agree."""
        kind = self.engine.capabilities.native_stream
        return kind is None or self.source.engine.capabilities.native_stream != kind

    def table_cleared(self, tp: TablePlan) -> None:
        """How ``tp``'s rows move (its value rules are final now: see :meth:`choose_streams`)."""
        state = self._state
        self._choose_stream(tp, state.done if state is not None else None)

    def preflight_finished(self) -> None:
        """The pre-flight read every unit it reads ahead: the read-ahead stops."""
        self._end_read_ahead()

    def _end_read_ahead(self) -> None:
        if self._ahead is not None:
            self._ahead.close()
            self._ahead = None

    def close_all(self) -> None:
        """The pre-flight's read-ahead stopped, then what the importer closes."""
        try:
            self._end_read_ahead()
        finally:
            super().close_all()

    def plan(self, db: m.Database, mtables: list[ManifestTable]) -> ImportPlan:
        """The import's plan; each unit's data file mapped to its table (for :meth:`scan_file`)."""
        planned = super().plan(db, mtables)
        self.plans = {f.rel: tp for tp in planned.tables for f in tp.files}
        return planned

    def native_blocks(self, unit: LoadUnit) -> tuple[str, Iterable[bytes]] | None:
        """A unit of a table copied in the native row format: its rows straight from the source."""
        kind = self.native.get(unit.table.display)
        if kind is None:
            return None
        return kind, self.source.native(unit.file, [c.name for c in unit.table.columns])

    def choose_streams(self, tables: list[TablePlan], done: dict[str, dict[str, Any]] | None = None) -> None:
        """Which tables move in the engines' native row format (``capabilities.native_stream``,
        the same on both sides, and ``load_native_refusal`` has no objection) rather than as
        canonical lines; each choice and the reason for the lines is in ``row_streams`` and the debug log.
        A table an earlier run began as lines (``done``: the journal's finished steps) stays on them,
        so that its units add up to one checksum."""
        self.native, self.row_streams = {}, {}
        for tp in tables:
            self._choose_stream(tp, done)

    def _choose_stream(self, tp: TablePlan, done: dict[str, dict[str, Any]] | None) -> None:
        """:meth:`choose_streams` for one table (once its pre-flight has cleared it)."""
        if tp.skipped or tp.ddl_only:
            return
        kind = self.engine.capabilities.native_stream
        if kind is None or self.source.engine.capabilities.native_stream != kind:
            reason: str | None = "no native row format shared by the two engines"
        elif self.source.keep is not None:
            reason = "--keep writes the canonical lines"
        elif done is not None and any(
            rec.get("checksum_kind", "lines") != kind
            for f in tp.files
            if (rec := done.get("data:" + f.rel)) is not None and rec.get("checksum") is not None
        ):
            reason = "an earlier run loaded some of its units as lines"
        else:
            reason = self.engine.load_native_refusal(tp, self.source.engine)
        with self._lock:
            if reason is None and kind is not None:
                self.native[tp.display] = kind
                self.row_streams[tp.display] = kind
                log.debug("migrate: %s moves as %s", tp.display, kind)
            else:
                self.row_streams[tp.display] = f"lines ({reason})"
                log.debug("migrate: %s moves as canonical lines: %s", tp.display, reason)

    def _encoder_pool(self, conn: Any, tp: TablePlan) -> Any:
        """A table whose lines the C block encoder converts (``_cimport.jsonl_to_bulk``, which runs
        without the interpreter lock) is encoded inline in its loading thread: the lines come from a
        socket, not a file a worker process could re-read by its byte range, so the process pool
        would only add two pipe copies of every block (and their pickling) to the same C work."""
        pool = super()._encoder_pool(conn, tp)
        if pool is None or pool is INLINE or speedups.load("_cimport") is None:
            return pool
        return INLINE if c_block_plan(self.engine, tp, self.opts.zero_dates) is not None else pool

    def _unit_finished(self, unit: Any, loaded: int, rejected: int) -> None:
        """A unit committed; when it was its table's last, verify the table now, in this loading
        thread, while other tables still load (the rows are final: post-data DDL adds keys and
        indexes, not content). Only a proof counts here (:func:`dbjson.verify.exact_check`); a table
        it cannot prove is checked in the verify phase, which also reports any difference."""
        super()._unit_finished(unit, loaded, rejected)  # (its early post-data made when it was the last)
        tp = unit.table
        with self._lock:
            last = self._units_left.get(tp.display) == 0 and not self._rejected_by_table.get(tp.display)
            alone = not any(self._units_left.values())  # no other table still loading
        if not last or rejected or self.cancel.is_set():
            return
        if not self.opts.verify:
            return
        assert self.journal is not None
        expected_totals([tp], self.journal.read().done)
        if tp.checksum_kind != "lines":
            # a native row stream: read the target's rows back now, with a seal of the snapshot,
            # so that the verify phase need only prove that no row changed since (early_checks)
            seal: dict[str, int] = {}
            # in parts when no other table loads any more (the threads would be idle otherwise)
            parts = self.opts.threads if alone else 1
            native = native_check(self.engine, self.target, tp, 0, parts=parts, seal=seal)
            if native is not None and native.ok and seal:
                with self._lock:
                    self.verified[tp.display] = native
                    self._seals[tp.display] = seal
            return
        if expected_lines(tp, self.engine.capabilities.decimals_as_float) is not None and tp.expected_semantic is None:
            return  # the proof would read the source again (this thread still holds a source connection)
        check = exact_check(self.engine, self.target, tp, 0, _no_source)
        if check is not None and check.ok:
            with self._lock:
                self.verified[tp.display] = check

    def early_checks(self, checked: list[TablePlan]) -> dict[str, TableCheck]:
        """The tables verified during the data phase; a natively copied one only when its rows
        are provably the ones read back then (``engine.verify_native_unchanged``, a scan without
        the values' output): otherwise the verify phase reads it back again and reports."""
        early = super().early_checks(checked)
        changed: list[str] = []

        def prove(tp: TablePlan, seal: dict[str, int]) -> Callable[[], None]:
            def go() -> None:
                if not self.engine.verify_native_unchanged(self.target, tp, seal):
                    with self._lock:
                        changed.append(tp.display)

            return go

        jobs = [
            (tp.rows or 0, prove(tp, self._seals[tp.display]))
            for tp in checked
            if tp.display in self._seals and tp.display in early
        ]
        self.run_parallel(jobs, self.opts.threads)  # one scan per table, without output functions
        for display in changed:
            del early[display]
            log.debug("migrate: %s changed after its read-back: read again", display)
        return early

    def load_data(self, tables: list[TablePlan], state: Any) -> None:
        """The import's data phase (each table's row stream was chosen when the pre-flight cleared it:
        :meth:`table_cleared`), then each table's expected rows and checksum (:func:`expected_totals`)."""
        try:
            super().load_data(tables, state)
        finally:
            self._loads_over.set()
        assert self.journal is not None
        expected_totals(tables, self.journal.read().done)


def _no_source(f: DataFile) -> IO[bytes]:
    raise DocumentError(f"{f.rel}: not read again during the load")


def expected_totals(tables: Sequence[TablePlan], done: dict[str, dict[str, Any]]) -> None:
    """Each table's expected rows and content checksum: the sums over its units' lines as they were
    loaded (the journal records each unit's count and checksum, this run's and an earlier one's)."""
    for tp in tables:
        total = Checksum(algorithm=tp.checksum_algorithm)
        expected = Checksum(algorithm=tp.checksum_algorithm)
        known = sums = True
        kinds = set()
        for f in tp.files:
            rec = done.get("data:" + f.rel)
            if rec is None or rec.get("checksum") is None:
                known = False
                continue
            kinds.add(str(rec.get("checksum_kind", "lines")))
            rows, checksum = int(rec.get("rows", 0)), str(rec["checksum"])
            if kinds == {"lines"}:  # a data file's checksum is of its lines (verify may re-read them)
                f.rows, f.checksum = rows, checksum
            total.merge(Checksum.from_hex(checksum, rows, total.algorithm))
            if rec.get("expected") is None or rec.get("rejected") or rec.get("expected_rules") != tp.value_rules:
                sums = False
            else:
                expected.merge(Checksum.from_hex(str(rec["expected"]), rows, total.algorithm))
        tp.rows = total.rows if known else None
        # units summed in different forms (a run resumed by another version) have no total: counts only
        tp.checksum = total.hexdigest() if known and len(kinds) <= 1 else None
        tp.checksum_kind = kinds.pop() if len(kinds) == 1 else "lines"
        # verify's expected side, summed as the lines loaded (``verify.expected_lines``)
        tp.expected_semantic = (
            expected.hexdigest() if known and sums and tp.files and tp.checksum_kind == "lines" else None
        )


# ---------------------------------------------------------------------------------------------
# Planning (saved for --resume)
# ---------------------------------------------------------------------------------------------


def _fingerprint(db: m.Database) -> str:
    """The schema's identity without the moment it was read."""
    stable = m.replace(db, source=m.replace(db.source, dumped_at=""))
    return hashlib.blake2b(stable.to_json().encode(), digest_size=12).hexdigest()


def _plan_units(
    engine: Any,
    conn: Any,
    db: m.Database,
    selected: list[tuple[str, m.Table]],
    threads: int,
    state: Path,
    resume: bool,
    *,
    save: bool = True,
) -> tuple[list[ExportUnit], str]:
    """The units (the saved plan on --resume) and the migration's identity for the journal.

    The plan is a JSON state file (``migrate-plan.json``, validated on read by
    :func:`dbjson.format.savedstate.read_state`): nothing read back is unpickled or executed.
    """
    fp = _fingerprint(db)
    path = state / PLAN_FILE
    tables = {(s, t.name): t for s, t in selected}
    if resume and path.is_file():
        saved = read_state(path, "migrate-plan")
        units = [
            dataclasses.replace(u, json_text=json_text_columns(engine, u.table))
            for u in _saved_units(saved, tables, fp, str(path))
        ]
    else:
        units = []
        for s, t in selected:
            planned = plan_table(engine, conn, s, t, where=None, chunk_rows=None, threads=threads)
            if not _savable(planned):  # a key type the plan file does not write: the table is one unit
                planned = [
                    ExportUnit(
                        s,
                        t,
                        rows_estimate=sum(u.rows_estimate for u in planned),
                        json_text=json_text_columns(engine, t),
                    )
                ]
            units.extend(planned)
        saved = {
            "format": "dbjson-migrate-plan",
            "version": 1,
            "schema": fp,
            "tables": [list(k) for k in sorted(tables)],
            "units": [
                {
                    "schema": u.schema,
                    "table": u.table.name,
                    "index": u.index,
                    "count": u.count,
                    "key_columns": list(u.key_columns),
                    "lower": encode_values(u.lower),
                    "upper": encode_values(u.upper),
                    "rows_estimate": u.rows_estimate,
                }
                for u in units
            ],
        }
        if save:
            write_state(path, saved, "migrate-plan")
    identity = hashlib.blake2b(orjson.dumps(saved, option=orjson.OPT_SORT_KEYS), digest_size=8).hexdigest()
    return units, identity


def _savable(units: list[ExportUnit]) -> bool:
    try:
        for u in units:
            encode_values(u.lower)
            encode_values(u.upper)
    except Unencodable:
        return False
    return True


def _saved_units(saved: dict[str, Any], tables: dict[tuple[str, str], m.Table], fp: str, file: str) -> list[ExportUnit]:
    """The units of a validated plan file, checked against this run's schema and tables."""
    if saved["schema"] != fp or {tuple(k) for k in saved["tables"]} != set(tables):
        raise UsageError(
            "--resume: the source's schema (or the tables selected) changed since the interrupted run",
            hint="run without --resume to start over",
        )
    units = []
    seen: set[tuple[str, str, int]] = set()
    for i, u in enumerate(saved["units"]):
        pointer = f"/units/{i}"
        t = tables.get((u["schema"], u["table"]))
        key = (u["schema"], u["table"], u["index"])
        if t is None or u["index"] >= u["count"] or key in seen:
            raise DocumentError("a unit the plan cannot have (tampered with?)", file=file, pointer=pointer)
        seen.add(key)
        names = {c.name for c in t.columns}
        if any(k not in names for k in u["key_columns"]):
            raise DocumentError("a key column the table does not have", file=file, pointer=pointer + "/key_columns")
        lower = decode_values(u["lower"], file=file, pointer=pointer + "/lower")
        upper = decode_values(u["upper"], file=file, pointer=pointer + "/upper")
        for bound in (lower, upper):
            if bound is not None and len(bound) != len(u["key_columns"]):
                raise DocumentError("a key bound of the wrong length", file=file, pointer=pointer)
        units.append(
            ExportUnit(
                u["schema"],
                t,
                index=u["index"],
                count=u["count"],
                key_columns=tuple(u["key_columns"]),
                lower=lower,
                upper=upper,
                rows_estimate=u["rows_estimate"],
            )
        )
    # Every table's units cover its whole key space once: indexes 0..count-1, contiguous bounds.
    for schema_table in tables:
        mine = sorted((u for u in units if (u.schema, u.table.name) == schema_table), key=lambda u: u.index)
        edges = [u.lower for u in mine] + [mine[-1].upper] if mine else []
        whole = (
            mine
            and [u.index for u in mine] == list(range(mine[0].count))
            and all(u.count == mine[0].count for u in mine)
            and edges[0] is None
            and edges[-1] is None
            and all(a.upper == b.lower for a, b in zip(mine, mine[1:], strict=False))
        )
        if not whole:
            raise DocumentError(
                f"the units of {schema_table[0]}.{schema_table[1]} do not cover the table exactly once (tampered with?)",
                file=file,
            )
    return units


def _manifest_tables(db: m.Database, units: list[ExportUnit], names: dict[tuple[str, str], str]) -> list[ManifestTable]:
    by_table: dict[tuple[str, str], list[ExportUnit]] = {}
    for u in units:
        by_table.setdefault((u.schema, u.table.name), []).append(u)
    out = []
    for s, t in db.tables():
        us = by_table.get((s.name, t.name))
        if us is None:
            continue
        files = [
            DataFile(
                path=Path(unit_file_rel(names, u)),
                rel=unit_file_rel(names, u),
                rows=None,
                bytes=max(1, u.rows_estimate) * BYTES_PER_ROW_GUESS,
            )
            for u in us
        ]
        out.append(
            ManifestTable(
                schema=s.name,
                name=t.name,
                rows=None,
                checksum=None,
                files=files,
                columns=[c.name for c in t.columns],
                json_text=tuple(c.name for c in t.columns if c.name in us[0].json_text),
            )
        )
    return out


def _interrupted(state: Path, target: Target) -> bool:
    """Whether the journal in ``state`` holds units of a run that did not finish."""
    done = Journal(journal_path(state, target_identity(target))).read().done
    return FINISHED not in done and any(k.startswith("data:") for k in done)


def default_state_dir(source: Target, target: Target) -> Path:
    """Where a migration without ``keep`` keeps its journal and plan: ``$XDG_STATE_HOME/dbjson/migrate/<id>``
    (``~/.local/state/...``), one directory per source and target pair."""
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    pair = f"{target_identity(source)}\n{target_identity(target)}"
    return base / "dbjson" / "migrate" / hashlib.blake2b(pair.encode(), digest_size=8).hexdigest()


# ---------------------------------------------------------------------------------------------
# --keep: the export directory
# ---------------------------------------------------------------------------------------------


def _kept_from_disk(source: _Source, done: dict[str, dict[str, Any]]) -> None:
    """On --resume with keep: the files of units an earlier run finished (read back for the manifest)."""
    assert source.keep is not None
    for rel, unit in source.units.items():
        path = source.keep / rel
        if "data:" + rel not in done or rel in source.kept or not path.is_file():
            continue
        inside(source.keep, path, what="a kept data file")
        total = Checksum()
        digest = xxhash.xxh3_128()
        rest = b""
        limit = max_line_bytes()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
                data = rest + block
                cut = data.rfind(b"\n") + 1
                total.add_block(data[:cut])
                rest = data[cut:]
                if len(rest) > limit:
                    raise line_too_long(str(path), total.rows + 1, limit)
        source.kept[rel] = UnitFile.written(unit, 0, rel, path.stat().st_size, digest.hexdigest(), total)


def _write_export(
    source: _Source,
    db: m.Database,
    selected: list[tuple[str, m.Table]],
    engine: Any,
    target: Target,
    snapshot: SnapshotInfo,
    created_at: str,
    seconds: float,
) -> None:
    assert source.keep is not None
    out = source.keep
    write_schema(out, db)
    entries = table_entries(list(source.kept.values()), [(s, t, None) for s, t in selected])
    manifest = Manifest(
        source=source_info(engine, target),
        snapshot=snapshot,
        tables=entries,
        created_at=created_at,
        compression="none",
        seconds=round(seconds, 3),
    )
    write_manifest(out, manifest)


# ---------------------------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------------------------


def migrate(
    source_url: str,
    target_url: str,
    *,
    threads: int | None = None,
    tables: Sequence[str] = (),
    exclude: Sequence[str] = (),
    if_exists: str = "fail",
    keep: str | os.PathLike[str] | None = None,
    verify: bool = True,
    resume: bool = False,
    strict: bool = False,
    zero_dates: str = "null",
    state_dir: str | os.PathLike[str] | None = None,
    retry_budget: float = DEFAULT_RETRY_BUDGET,
    privileges: bool = True,
    grants: bool = False,
    casts: Sequence[str] = (),
    on_event: EventHandler | None = None,
    importer_hook: Callable[[Importer], None] | None = None,
    all_databases: bool = False,
    dry_run: bool = False,
    max_rate: str | None = None,
    create: bool = False,
) -> MigrateReport:
    """Copy the database at ``source_url`` into ``target_url``: schema, rows, indexes and keys, verified.

    Rows stream from ``threads`` snapshot connections of the source into the target's bulk path
    (one unit — a table or a key range — per transaction) without staging tables on disk.
    ``tables``/``exclude`` are globs over ``table`` or ``schema.table``; ``if_exists``, ``strict``,
    ``zero_dates`` mean what they mean for :func:`dbjson.import_database`. ``keep`` also writes a
    normal export directory there (``dbjson import`` loads it later). ``verify`` compares the
    target's row counts and content checksums with the lines read from the source. ``resume``
    continues an interrupted run of the same migration: the journal and unit plan live in ``keep``
    or ``state_dir`` (default :func:`default_state_dir`). ``retry_budget``: seconds the load keeps
    retrying a transient failure (see :func:`dbjson.import_database`). ``on_event`` receives the progress
    events (:mod:`dbjson.events`); ``importer_hook`` the importer before it runs. ``all_databases``:
    a MySQL source URL without a database copies every database of the server (else an error).
    ``max_rate`` caps the rows or bytes per second read from the source and loaded (as for
    :func:`dbjson.import_database`). ``dry_run=True`` changes nothing (no state directory, no kept files, read-only connections):
    ``report.load.dry_run`` says what would happen to the target (see :func:`dbjson.import_database`),
    with the pre-flight's findings read from the source. ``privileges``
    and ``grants``: as for :func:`dbjson.import_database` (``grants`` also reads the source's users);
    ``casts``: type-mapping rules (:mod:`dbjson.casts`).
    ``create`` creates the target database first when it does not exist, with the source database's
    defaults on the same engine (:func:`dbjson.schemaload.create_database`).

    Raises the errors of export and import (ConnectionFailed, UsageError, DataError with the
    pre-flight's findings, ApplyError, VerifyError, Cancelled).
    """
    opts = ImportOptions(  # checks --if-exists and --zero-dates; the tables are chosen by the source's reflection
        threads=threads or default_load_threads(),
        if_exists=if_exists,
        resume=resume,
        strict=strict,
        zero_dates=zero_dates,
        verify=verify,
        retry_budget=retry_budget,
        max_rate=parse_rate(max_rate),
        privileges=privileges,
        grants=grants,
        casts=tuple(parse_casts(casts)),
    )
    if threads is not None and threads < 1:
        raise UsageError("--threads must be at least 1")
    nthreads = opts.threads
    started = time.monotonic()
    created_at = now_utc()
    src = Target(parse_url(source_url))
    if create and not dry_run:
        from .reflect import reflect  # lazy: start-up time (as the CLI's commands)
        from .schemaload import create_database

        create_database(target_url, like=reflect(source_url, tables=tables, exclude=exclude))
    target, tengine = connect_target(target_url, read_only=dry_run)
    if target_identity(src) == target_identity(target):
        raise UsageError("the source and the target are the same database")
    state = (
        Path(keep) if keep is not None else Path(state_dir) if state_dir is not None else default_state_dir(src, target)
    )
    if not dry_run:
        state.mkdir(parents=True, exist_ok=True)
    if not resume and if_exists == "fail" and state.is_dir() and _interrupted(state, target):
        raise UsageError(
            f"an interrupted migrate of this source into this target left its journal in {state}",
            hint="add --resume to finish it, or --if-exists replace to start over",
        )
    warnings: list[str] = []

    def emit(e: Event) -> None:
        if on_event is not None:
            on_event(e)

    coordinator = connect_source(src)  # read-only for SQLite: a missing source file is an error, never created
    workers: list[Any] = []
    source_written: WrittenFiles | None = None
    stop = threading.Event()
    try:
        sengine: Any = detect_engine(src.family, coordinator)
        sengine.export_session(coordinator)
        # a cross-engine pre-flight reads the source (the rows that may not fit the target): it
        # gets snapshot connections of its own, to read while the units it has cleared load
        checkers = nthreads if src.family != target.family or opts.casts else 0
        workers = open_workers(src, sengine, nthreads + checkers)

        def warn(message: str) -> None:
            warnings.append(message)
            emit(Warning(message))

        snapshot = sengine.export_snapshot(coordinator, workers, warn)
        emit(
            PhaseStarted(
                "snapshot", f"source snapshot: {snapshot.mode}" + ("" if snapshot.consistent else " (not consistent)")
            )
        )
        db = reflect_source(
            sengine, workers[0], src, tables, exclude, all_databases=all_databases, grants=grants, helpers=workers[1:]
        )
        selected = select_tables(db, tables, exclude)
        units, identity = _plan_units(sengine, workers[0], db, selected, nthreads, state, resume, save=not dry_run)
        names = safe_names((s, t.name) for s, t in selected)
        source = _Source(sengine, workers[:nthreads], stop)
        for u in units:
            source.units[unit_file_rel(names, u)] = u
        if checkers and snapshot.consistent and len(workers) > nthreads:
            source.checker = _Source(sengine, workers[nthreads:], stop)
            source.checker.units = source.units
        if keep is not None and not dry_run:
            if resume:
                (state / DATA_DIR).mkdir(parents=True, exist_ok=True)
                source.written = source_written = WrittenFiles(state, append=True)
            else:
                source.written = source_written = prepare_export_dir(state, keep=(PLAN_FILE, PLAN_FILE + ".partial"))
            source.keep = state
        report = _load(
            source,
            db,
            units,
            names,
            identity,
            target,
            tengine,
            state,
            opts,
            on_event,
            importer_hook,
            dry_run=dry_run,
        )
        if source.keep is not None:
            assert report.journal is not None
            _kept_from_disk(source, report.journal.read().done)
            _write_export(source, db, selected, sengine, src, snapshot, created_at, time.monotonic() - started)
            if source.written is not None:
                source.written.finish()
    except DbjsonError:
        raise
    except Exception as e:
        if type(e).__name__ in ("OperationalError", "InterfaceError"):
            raise connection_error(e, src.url) from None
        raise
    finally:
        close_quietly([coordinator, *workers])
        if source_written is not None:
            source_written.close()
    load = report.report
    if load.verify is not None and not load.verify.ok:
        raise verify_error(load.verify)
    if dry_run:
        pass  # nothing was written: no state to remove or mark
    elif keep is None and state_dir is None:
        shutil.rmtree(state, ignore_errors=True)  # finished: nothing to resume
    else:
        journal = Journal(journal_path(state, target_identity(target)))
        journal.done(FINISHED)
        journal.close()
    result = MigrateReport(
        source=src.display(),
        target=target.display(),
        snapshot=snapshot,
        load=load,
        seconds=time.monotonic() - started,
        threads=nthreads,
        keep_dir=str(keep) if keep is not None and not dry_run else None,
        state_dir=str(state) if keep is None and state_dir is not None else None,
        warnings=warnings,
        row_streams=dict(getattr(report, "row_streams", {})),
    )
    emit(Finished(True, result.rows, result.seconds, result))
    return result


def _load(
    source: _Source,
    db: m.Database,
    units: list[ExportUnit],
    names: dict[tuple[str, str], str],
    identity: str,
    target: Target,
    tengine: Any,
    state: Path,
    opts: ImportOptions,
    on_event: EventHandler | None,
    importer_hook: Callable[[Importer], None] | None,
    *,
    dry_run: bool = False,
) -> _MigrateImporter:
    """Run the importer over the streamed units (``dry_run``: its rehearsal); returns it (its report, its journal)."""
    imp = _MigrateImporter(state, target, tengine, opts, on_event)
    imp.source = source
    imp.filters = {}
    imp.native, imp.row_streams, imp._seals = {}, {}, {}
    imp._ahead = None
    imp._captures, imp._captured, imp._loads_over = {}, set(), threading.Event()
    if importer_hook is not None:
        importer_hook(imp)
    try:
        if dry_run:
            imp.rehearse(db, _manifest_tables(db, units, names))
        else:
            imp.run(db, _manifest_tables(db, units, names), identity)
    except KeyboardInterrupt:
        imp.cancel.set()
        source.abort()
        imp.interrupt_all()
        raise Cancelled("migrate interrupted; run again with --resume to finish") from None
    except BaseException:
        source.abort()
        raise
    finally:
        imp.close_all()
    return imp


__all__ = ["migrate", "MigrateReport", "default_state_dir", "expected_totals"]
