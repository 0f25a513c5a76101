"""export: stream whole databases to canonical JSON lines, in parallel, under one snapshot.

The flow (docs/data-format.md describes the output):

1. connect N workers (one connection each) and put them all in one consistent snapshot
   (``engine.export_snapshot``: pg_export_snapshot, a brief global read lock, SQLite's write lock);
2. reflect the schema and plan work units inside that snapshot: a table, or a key range of a big
   table (integer primary key: min/max ranges; other keys: boundaries in key order);
3. workers take units (largest first) and stream them (``engine.export_stream`` yields blocks of
   complete canonical lines) into ``data/<safe name>[.<chunk>].jsonl[.gz|.zst].partial``,
   hashing and checksumming on the way, then rename the file;
4. write ``schema.json`` and, last, ``manifest.json``.

The library never prints: progress goes to ``on_event`` (see :mod:`dbjson.events`).
"""

from __future__ import annotations

import dataclasses
import errno
import math
import os
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from . import events as ev
from . import model as m
from .connect import Target, close_quietly, is_connection_problem, parse_url, raise_if_connection_error
from .engines import Engine, detect_engine, get_engine
from .engines.interface import Exporter, ExportUnit, ReflectOptions
from .errors import Cancelled, DataError, DbjsonError, UsageError, first_line
from .filters import check_filters, relations, where_applies
from .format.checksum import Checksum
from .format.codec import encoder
from .format.datafiles import DataFileWriter, Syncer
from .format.layout import COMPRESSIONS, WrittenFiles, check_export_dir, data_file_rel, prepare_export_dir, safe_names
from .format.manifest import FileEntry, KeyRange, Manifest, SourceInfo, TableEntry, write_manifest, write_schema
from .format.storage import Location, ObjectPath, location
from .model import now_utc
from .ratelimit import RateLimit, parse_rate
from .url import source_host

DEFAULT_CHUNK_ROWS = 1_000_000  # a unit of work when no --chunk-size is given
SPLIT_MIN_ROWS = 100_000  # tables at least this big are split so every worker can help
SPLIT_MIN_BYTES = 16 << 20  # ... and tables this big on disk (engines that tell: ``export_stats``)
UNITS_PER_WORKER = 2  # a split table's units per worker thread
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO}
PROGRESS_EVERY = 0.25  # seconds between RowsProgress events per worker
PREFETCH_BLOCKS = 8  # blocks a worker's reader thread may run ahead of hashing and writing


# ---------------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------------


_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*$", re.I)


def parse_chunk_size(text: str) -> tuple[int | None, int | None]:
    """``"500000"`` → (500000, None) rows; ``"64MB"``, ``"64M"``, ``"1GiB"`` → (None, bytes).

    Size units are binary (K = 1024, M = 1024², G = 1024³, T = 1024⁴), as in most database tools.
    """
    mt = _SIZE_RE.match(text)
    if not mt:
        raise UsageError(f"bad chunk size {text!r}", hint="use a row count (500000) or a size (64MB, 1GB)")
    number, prefix, suffix = float(mt.group(1)), mt.group(2).lower(), mt.group(3)
    if not prefix and not suffix:
        if not number.is_integer() or number < 1:
            raise UsageError(f"bad chunk size {text!r}: a row count must be a positive integer")
        return int(number), None
    size = int(number * 1024 ** ("kmgt".index(prefix) + 1 if prefix else 0))
    if size < 1024:
        raise UsageError(f"bad chunk size {text!r}: at least 1KB")
    return None, size


def parse_where(items: Iterable[str]) -> dict[str, str]:
    """``["orders:created_at > '2024-01-01'"]`` → ``{"orders": "created_at > '2024-01-01'"}``."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, cond = item.partition(":")
        if not sep or not name.strip() or not cond.strip():
            raise UsageError(f"bad --where {item!r}", hint='use TABLE:CONDITION, e.g. orders:"id > 100"')
        out[name.strip()] = cond.strip()
    return out


def where_for(where: Mapping[str, str], schema: str, table: str) -> str | None:
    conds = [c for k, c in where.items() if where_applies(k, schema, table)]
    return " AND ".join(f"({c})" for c in conds) if conds else None


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------


@dataclass
class ExportReport:
    """What an export produced (the manifest) plus run statistics."""

    out_dir: str
    manifest: Manifest
    seconds: float
    threads: int
    warnings: list[str] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return self.manifest.rows

    @property
    def bytes(self) -> int:
        return sum(f.bytes for t in self.manifest.tables for f in t.files)

    def to_dict(self) -> dict[str, Any]:
        """A machine-readable summary (the CLI's ``--json``)."""
        return {
            "ok": True,
            "out_dir": self.out_dir,
            "source": {"engine": self.manifest.source.engine, "database": self.manifest.source.database},
            "snapshot": {"mode": self.manifest.snapshot.mode, "consistent": self.manifest.snapshot.consistent},
            "threads": self.threads,
            "seconds": round(self.seconds, 3),
            "rows": self.rows,
            "bytes": self.bytes,
            "rows_per_second": round(self.rows / self.seconds, 1) if self.seconds > 0 else None,
            "tables": [
                {"schema": t.schema, "name": t.name, "rows": t.rows, "checksum": t.checksum, "files": len(t.files)}
                for t in self.manifest.tables
            ],
            "warnings": self.warnings,
        }


# ---------------------------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------------------------


def _integer_key(table: m.Table) -> str | None:
    pk = table.primary_key
    if pk and len(pk.columns) == 1 and table.column(pk.columns[0]).type.kind == "integer":
        return pk.columns[0]
    return None


def json_text_columns(engine: Exporter, table: m.Table) -> frozenset[str]:
    """The json columns of ``table`` that the engine stores as text: an export writes them as the
    JSON string of their exact text and lists them in the manifest (data format 1.3)."""
    return frozenset(c.name for c in table.columns if c.type.kind == "json" and engine.export_json_text(c))


def plan_table(
    engine: Exporter,
    conn: Any,
    schema: str,
    table: m.Table,
    *,
    where: str | None,
    chunk_rows: int | None,
    threads: int,
) -> list[ExportUnit]:
    """Split one table into units: integer-key ranges, key-order boundaries, or one unit.

    A big table (by the catalog's estimate, no ``where``) is planned from the estimate: an exact
    COUNT(*) scans it (0.1-0.2 s for 700k InnoDB rows) only to size the units. A small one with an
    integer primary key is one unit when the key's MIN/MAX bound its rows below SPLIT_MIN_ROWS (no
    COUNT either; its ``rows_estimate`` is then the catalog's estimate or that bound). A query that fails
    is a clear error: a bad ``where`` a UsageError, a table that cannot be read a DataError (a lost
    connection is raised as is).
    """
    try:
        units = _split_table(engine, conn, schema, table, where, chunk_rows, threads)
        texts = json_text_columns(engine, table)
        return [dataclasses.replace(u, json_text=texts) for u in units] if texts else units
    except DbjsonError:
        raise
    except Exception as e:  # noqa: BLE001 - a driver error
        text = first_line(e)
        if where:
            raise UsageError(
                f"--where condition failed: {text}", table=f"{schema}.{table.name}", hint=f"the condition was: {where}"
            ) from None
        if is_connection_problem(e):
            raise
        raise DataError(f"cannot read the table: {text}", table=f"{schema}.{table.name}") from None


def _split_table(
    engine: Exporter, conn: Any, schema: str, table: m.Table, where: str | None, chunk_rows: int | None, threads: int
) -> list[ExportUnit]:
    estimate, size = engine.export_stats(conn, schema, table) if where is None else (None, None)
    # a big table is planned from the estimate: an exact COUNT(*) scans it only to size the units
    big = estimate is not None and (estimate >= SPLIT_MIN_ROWS or (estimate > 0 and (size or 0) >= SPLIT_MIN_BYTES))
    ikey = _integer_key(table)
    key_bounds: tuple[Any, Any] | None = None
    rows: int | None = estimate if big else None
    if rows is None and where is None and chunk_rows is None and ikey is not None and (size or 0) < SPLIT_MIN_BYTES:
        # A small table with an integer primary key: MIN/MAX of the key (two index lookups) bound
        # its rows. Below SPLIT_MIN_ROWS it is one unit whatever its exact count, so the COUNT(*)
        # that read all of it before the first row was streamed (18-84 ms for 50k rows) is skipped.
        key_bounds = engine.export_key_bounds(conn, schema, table, ikey, where)
        lo, hi = key_bounds
        if lo is None:
            rows = 0
        elif int(hi) - int(lo) + 1 < SPLIT_MIN_ROWS:
            span = int(hi) - int(lo) + 1
            rows = min(estimate, span) if estimate else span  # an estimate of 0 may be stale
    if rows is None:
        rows = engine.export_count(conn, schema, table, where)
    per_unit = chunk_rows or DEFAULT_CHUNK_ROWS
    n = math.ceil(rows / per_unit) if rows else 1
    if chunk_rows is None and rows >= SPLIT_MIN_ROWS:
        # two units per worker: the last units to finish are small, so the workers end together
        # (with one unit each, equal key ranges ended 0.1-0.3 s apart at 1M rows on 2 cores)
        n = max(n, min(threads * UNITS_PER_WORKER, math.ceil(rows / (SPLIT_MIN_ROWS // 2))))
    if chunk_rows is None and size is not None and size >= SPLIT_MIN_BYTES and rows > 1:
        # wide rows (JSON documents, long text): few rows, most of the bytes. Unsplit, such a table
        # was one worker's unit while the others ran out of work (66k rows of 0.4 KB documents were
        # 72 % of a 200k-row export's bytes, and its last second ran on one thread)
        n = max(n, min(threads * UNITS_PER_WORKER, math.ceil(size / (SPLIT_MIN_BYTES // 2)), rows))
    sized = size or 0
    pk = table.primary_key.columns if table.primary_key else ()
    if n <= 1 or not pk:
        return [ExportUnit(schema, table, rows_estimate=rows, where=where, key_columns=tuple(pk), bytes_estimate=sized)]
    bounds: list[tuple[Any, ...]]
    if ikey is not None:
        lo, hi = key_bounds or engine.export_key_bounds(conn, schema, table, ikey, where)
        if lo is None:
            return [
                ExportUnit(schema, table, rows_estimate=rows, where=where, key_columns=tuple(pk), bytes_estimate=sized)
            ]
        lo, hi = int(lo), int(hi)
        span = hi - lo + 1
        n = min(n, span)
        step = span / n
        bounds = sorted({(lo + int(round(i * step)),) for i in range(1, n)})
    else:
        bounds = engine.export_key_boundaries(conn, schema, table, pk, where, math.ceil(rows / n), n - 1)
    edges: list[tuple[Any, ...] | None] = [None, *bounds, None]
    units = []
    for i in range(len(edges) - 1):
        units.append(
            ExportUnit(
                schema,
                table,
                index=i,
                count=len(edges) - 1,
                key_columns=tuple(pk),
                lower=edges[i],
                upper=edges[i + 1],
                rows_estimate=max(1, rows // (len(edges) - 1)),
                where=where,
                bytes_estimate=sized // (len(edges) - 1),
            )
        )
    return units


# Tables from which plan_tables uses every connection: planning a table is two round trips (1.5-2 ms);
# starting the threads costs about as much as two tables (4 tables: +2 ms with two connections;
# 200 tables: 161 -> 108 ms on PostgreSQL; engines whose plans depend on the session do not:
# ``export_plan_concurrently``)
PLAN_TOGETHER_MIN_TABLES = 8


def plan_tables(
    engine: Exporter,
    conns: Sequence[Any],
    plan: Sequence[tuple[str, m.Table, str | None]],
    *,
    chunk_rows: int | None,
    threads: int,
) -> list[list[ExportUnit]]:
    """:func:`plan_table` for each ``(schema, table, where)`` of ``plan``, in order: the tables are
    shared out to the connections ``conns`` (all in the export's snapshot), which plan at the same
    time (each query of a plan is a round trip: two per table) when there are at least
    :data:`PLAN_TOGETHER_MIN_TABLES` and the engine's ``export_plan_concurrently`` says so. Each connection's snapshot
    transaction is refreshed every :data:`REFRESH_UNITS` tables it planned (their table locks are
    released). An error is the one planning alone would raise: that of the first failing table."""
    results: list[list[ExportUnit] | None] = [None] * len(plan)
    if len(conns) < 2 or len(plan) < PLAN_TOGETHER_MIN_TABLES or not engine.export_plan_concurrently:
        for i, (s, t, w) in enumerate(plan):
            if i and i % REFRESH_UNITS == 0:
                engine.export_refresh(conns[0])  # planning reads tables too (bounds, counts)
            results[i] = plan_table(engine, conns[0], s, t, where=w, chunk_rows=chunk_rows, threads=threads)
        return [r for r in results if r is not None]
    lock = threading.Lock()
    taken = iter(range(len(plan)))
    errors: dict[int, BaseException] = {}
    stop = threading.Event()

    def run(conn: Any) -> None:
        done = 0
        while not stop.is_set():
            with lock:
                i = next(taken, None)
            if i is None:
                return
            try:
                if done and done % REFRESH_UNITS == 0:
                    engine.export_refresh(conn)
                done += 1
                s, t, w = plan[i]
                results[i] = plan_table(engine, conn, s, t, where=w, chunk_rows=chunk_rows, threads=threads)
            except BaseException as e:  # noqa: BLE001 - raised by the caller, in plan order
                with lock:
                    errors[i] = e
                stop.set()  # the tables taken before this one are finished: the first error stays the first
                return

    used = list(conns[: len(plan)])
    finished = [threading.Event() for _ in used]

    def planner(k: int) -> None:
        try:
            run(used[k])
        finally:
            finished[k].set()

    workers = [
        threading.Thread(target=planner, args=(k,), name=f"dbjson-plan-{k}", daemon=True) for k in range(len(used))
    ]
    try:
        for th in workers:
            th.start()
        for done_ev in finished:
            while not done_ev.wait(0.2):
                pass
    except BaseException:
        stop.set()
        abort_queries(engine, used)  # a COUNT(*) under a --where may run long
        deadline = time.monotonic() + 5
        for th, done_ev in zip(workers, finished):
            if th.ident is not None:
                done_ev.wait(max(0.0, deadline - time.monotonic()))
        raise
    if errors:
        raise errors[min(errors)]
    return [r for r in results if r is not None]


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


@dataclass
class UnitFile:
    """A finished data file of an export unit: its manifest entry and the content checksum of its lines."""

    unit: ExportUnit
    part: int  # the unit's file number: 0, then 1, 2... when ``chunk_bytes`` starts new files
    entry: FileEntry
    checksum: Checksum

    @classmethod
    def written(cls, unit: ExportUnit, part: int, path: str, size: int, digest: str, checksum: Checksum) -> UnitFile:
        """The file at ``path`` (relative to the export directory): ``size`` bytes whose XXH3-128 is
        ``digest``, lines whose content checksum is ``checksum``."""
        entry = FileEntry(
            path=path,
            rows=checksum.rows,
            bytes=size,
            xxh128=digest,
            checksum=checksum.hexdigest(),
            key_range=_key_range(unit),
        )
        return cls(unit, part, entry, checksum)


def unit_file_rel(names: Mapping[tuple[str, str], str], unit: ExportUnit, part: int = 0, compress: str = "none") -> str:
    """The path of ``unit``'s file number ``part``, relative to the export directory
    (:func:`dbjson.format.layout.data_file_rel`); ``names``: the tables' :func:`safe_names`."""
    name = names[(unit.schema, unit.table.name)]
    return data_file_rel(name, unit.index if unit.count > 1 else None, part, compress)


@dataclass
class _Shared:
    """State shared by the coordinator and the workers."""

    engine: Engine
    out_dir: Location
    names: dict[tuple[str, str], str]
    compress: str
    chunk_bytes: int | None
    emit: Callable[[ev.Event], None]
    written: WrittenFiles | None = None  # the directory's list of the files this export creates
    limit: RateLimit | None = None  # --max-rate: every worker's blocks together
    stop: threading.Event = field(default_factory=threading.Event)
    results: list[UnitFile] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    remaining: dict[str, int] = field(default_factory=dict)
    syncer: Syncer = field(init=False)  # started by _run_workers: commits the workers' sealed files


def _file_path(shared: _Shared, unit: ExportUnit, part: int) -> Location:
    path = shared.out_dir / unit_file_rel(shared.names, unit, part, shared.compress)
    if shared.written is not None:
        shared.written.add(path)  # before the file exists: a later export may replace it
    return path


def _key_range(unit: ExportUnit) -> KeyRange | None:
    """The manifest's ``key_range`` of a unit's files: its key bounds, encoded (None: a whole table)."""
    if unit.count <= 1 or not unit.key_columns:
        return None
    cols = [unit.table.column(c) for c in unit.key_columns]
    encs = [encoder(c) for c in cols]

    def enc(values: tuple[Any, ...] | None) -> list[Any] | None:
        return None if values is None else [None if v is None else e(v) for e, v in zip(encs, values)]

    return KeyRange(columns=list(unit.key_columns), lower=enc(unit.lower), upper=enc(unit.upper))


def _run_unit(shared: _Shared, conn: Any, unit: ExportUnit) -> None:
    part = 0
    current: DataFileWriter | None = None
    last_emit = time.monotonic()
    pending_rows = pending_bytes = 0
    table = unit.qualified

    def close(f: DataFileWriter) -> None:
        size, digest = f.seal()
        shared.syncer.submit(f)  # fsync and rename behind this worker's back
        result = UnitFile.written(unit, part, f"data/{f.path.name}", size, digest, f.checksum)
        entry = result.entry
        with shared.lock:
            shared.results.append(result)
        shared.emit(ev.ChunkDone(table, entry.path, entry.rows, size))

    try:
        current = DataFileWriter(_file_path(shared, unit, part), shared.compress)
        for block in prefetched(shared.engine.export_stream(conn, unit, shared.stop), shared.stop):
            if shared.stop.is_set():
                raise Cancelled("export cancelled")
            if shared.limit is not None:  # --max-rate: wait for this block's turn
                shared.limit.take(block.count(b"\n"), len(block), shared.stop)
            while shared.chunk_bytes and current.plain_bytes + len(block) > shared.chunk_bytes:
                # fill this file up to the limit at a line boundary, then start the next part
                cut = block.rfind(b"\n", 0, shared.chunk_bytes - current.plain_bytes) + 1
                if cut == 0 and current.plain_bytes == 0:
                    cut = block.find(b"\n") + 1  # one line longer than a chunk: a file of its own
                if cut:
                    pending_rows += current.write_block(block[:cut])
                    pending_bytes += cut
                    block = block[cut:]
                close(current)
                part += 1
                current = DataFileWriter(_file_path(shared, unit, part), shared.compress)
            if block:
                pending_rows += current.write_block(block)
                pending_bytes += len(block)
            now = time.monotonic()
            if now - last_emit >= PROGRESS_EVERY:
                shared.emit(ev.RowsProgress(table, pending_rows, pending_bytes))
                pending_rows = pending_bytes = 0
                last_emit = now
        if shared.stop.is_set():  # the stream ended because of the stop: the file is incomplete
            raise Cancelled("export cancelled")
        if pending_rows or pending_bytes:
            shared.emit(ev.RowsProgress(table, pending_rows, pending_bytes))
        close(current)
        current = None
    finally:
        if current is not None:
            current.discard()


def run_unit(
    engine: Engine,
    conn: Any,
    unit: ExportUnit,
    out: Location,
    names: dict[tuple[str, str], str],
    compress: str = "none",
    chunk_bytes: int | None = None,
) -> list[UnitFile]:
    """Export one unit on ``conn`` (already in its snapshot) into ``out``, as a worker thread of
    :func:`export_database` does: its files complete (renamed, or uploaded) when this returns. For
    a unit that runs elsewhere (``dbjson.cluster``); progress events are not sent."""
    shared = _Shared(engine, out, names, compress, chunk_bytes, lambda _e: None)
    shared.syncer = Syncer(shared.stop.set)
    try:
        _run_unit(shared, conn, unit)
    finally:
        shared.syncer.drain()
    return shared.results


_END = object()


def prefetched(
    blocks: Iterator[bytes],
    stop: threading.Event,
    depth: int = PREFETCH_BLOCKS,
    helpers: list[threading.Thread] | None = None,
) -> Iterator[bytes]:
    """``blocks`` read by a helper thread, up to ``depth`` blocks ahead.

    ``helpers`` receives the helper thread (a caller that hands the connection on joins it first).

    The driver waits for the server (and MySQL's next batch query runs) while this thread hashes
    and writes the previous block, instead of each connection alternating between the two. The
    helper owns the stream (and the connection) until it ends; an error there is raised here.
    """
    ahead: queue.Queue[Any] = queue.Queue(depth)
    halt = threading.Event()

    def put(item: Any) -> bool:
        while not (halt.is_set() or stop.is_set()):
            try:
                ahead.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def pump() -> None:
        try:
            for block in blocks:
                if not put(block):
                    return
            put(_END)
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            put(e)
        finally:
            close = getattr(blocks, "close", None)
            if close is not None and not stop.is_set():
                close()

    helper = threading.Thread(target=pump, name=threading.current_thread().name + "-read", daemon=True)
    helper.start()
    if helpers is not None:
        helpers.append(helper)
    try:
        while True:
            try:
                item = ahead.get(timeout=0.1)
            except queue.Empty:
                if stop.is_set():
                    return  # the caller reports the cancellation; aborting the connection ends the helper
                continue
            if item is _END:
                helper.join()  # the stream is closed: the connection is free for the next unit
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        halt.set()


REFRESH_UNITS = 100  # units (or planned tables) per snapshot transaction: its table locks are then released


def _worker(shared: _Shared, conn: Any, units: queue.Queue[ExportUnit]) -> None:
    try:
        done = 0
        while not shared.stop.is_set():
            try:
                unit = units.get_nowait()
            except queue.Empty:
                return
            if done and done % REFRESH_UNITS == 0:
                shared.engine.export_refresh(conn)
            done += 1
            try:
                _run_unit(shared, conn, unit)
            except DbjsonError as e:
                e.table = e.table or unit.qualified
                raise
            _unit_done(shared, unit)
    except BaseException as e:  # noqa: BLE001 - handed to the coordinator
        with shared.lock:
            shared.errors.append(e)
        shared.stop.set()


def _unit_done(shared: _Shared, unit: ExportUnit) -> None:
    with shared.lock:
        shared.remaining[unit.qualified] -= 1
        last = shared.remaining[unit.qualified] == 0
        if last:
            files = [r for r in shared.results if r.unit.qualified == unit.qualified]
    if last:
        total = Checksum()
        for r in files:
            total.merge(r.checksum)
        shared.emit(ev.TableFinished(unit.qualified, total.rows, total.hexdigest()))


def table_entries(results: list[UnitFile], tables: list[tuple[str, m.Table, str | None]]) -> list[TableEntry]:
    """The manifest's tables: for each ``(schema, table, where)``, its finished files in unit and
    part order (numbered as chunks when there are several), its rows and content checksum."""
    by_table: dict[tuple[str, str], list[UnitFile]] = {}
    for r in results:
        by_table.setdefault((r.unit.schema, r.unit.table.name), []).append(r)
    entries = []
    for schema, table, where in tables:
        files = sorted(by_table.get((schema, table.name), []), key=lambda r: (r.unit.index, r.part))
        total = Checksum()
        for i, r in enumerate(files):
            total.merge(r.checksum)
            if len(files) > 1:
                r.entry.chunk = i
        texts = files[0].unit.json_text if files else frozenset()
        entries.append(
            TableEntry(
                schema=schema,
                name=table.name,
                columns=[c.name for c in table.columns],
                rows=total.rows,
                checksum=total.hexdigest(),
                files=[r.entry for r in files],
                where=where,
                json_text=[c.name for c in table.columns if c.name in texts] or None,
            )
        )
    return entries


def connect_source(target: Target) -> Any:
    """The first connection, made the way the engine family makes worker connections (MySQL: no
    TLS to a loopback address unless the URL asks for it) before the exact engine is known."""
    return get_engine(target.family).export_connect(target)


class PendingConnections:
    """``n`` export connections being made on threads while the caller goes on (engines whose
    ``export_connect_concurrently`` is set: PostgreSQL forks a backend per connection, 5-10 ms that
    the coordinator's own connection and engine detection no longer wait for one after another).

    :meth:`result` hands them over; :meth:`abandon` closes those made (and those still being made
    when they are): nothing is left open when the caller fails or is interrupted."""

    def __init__(self, connect: Callable[[], Any], n: int) -> None:
        self._connect = connect
        self._lock = threading.Lock()
        self._conns: list[Any] = []
        self._errors: list[BaseException] = []
        self._abandoned = False
        self._threads = [threading.Thread(target=self._run, name=f"dbjson-connect-{i}", daemon=True) for i in range(n)]
        for t in self._threads:
            t.start()

    def _run(self) -> None:
        try:
            conn = self._connect()
        except BaseException as e:  # noqa: BLE001 - raised by result()
            with self._lock:
                self._errors.append(e)
            return
        with self._lock:
            if not self._abandoned:
                self._conns.append(conn)
                return
        close_quietly([conn])

    def result(self) -> list[Any]:
        """The connections, once all are made; the first error (the others closed) if one failed."""
        try:
            for t in self._threads:
                t.join()
        except BaseException:
            self.abandon()
            raise
        if self._errors:
            self.abandon()
            raise self._errors[0]
        with self._lock:
            self._abandoned = True  # handed over: abandon() closes nothing more
            conns, self._conns = self._conns, []
        return conns

    def abandon(self) -> None:
        """Close the connections made, and any still being made when it is."""
        with self._lock:
            self._abandoned = True
            conns, self._conns = self._conns, []
        close_quietly(conns)


def open_workers(target: Target, engine: Engine, n: int, *, started: PendingConnections | None = None) -> list[Any]:
    """``n`` export connections to ``target``, each with the engine's export session settings (none
    is left open when one fails). :func:`dbjson.connect.close_quietly` closes them. ``started``:
    the ``n`` connections already being made (:func:`start_workers`); else they are made here, at
    the same time where the engine's ``export_connect_concurrently`` says so."""
    if started is None and n > 1 and engine.export_connect_concurrently:
        started = PendingConnections(lambda: engine.export_connect(target), n)
    conns: list[Any] = []
    try:
        if started is not None:
            conns = started.result()
            for c in conns:
                engine.export_session(c)
        else:
            for _ in range(n):
                c = engine.export_connect(target)
                engine.export_session(c)
                conns.append(c)
    except BaseException:
        close_quietly(conns)
        raise
    return conns


def start_workers(target: Target, n: int) -> PendingConnections | None:
    """Start making the ``n`` worker connections while the coordinator connects and the engine is
    detected, where the engine family connects concurrently (None: :func:`open_workers` makes them).
    Pass the result to :func:`open_workers`, and :meth:`PendingConnections.abandon` it on failure."""
    family = get_engine(target.family)
    if not family.export_connect_concurrently:
        return None
    return PendingConnections(lambda: family.export_connect(target), n)


def abort_queries(engine: Exporter, conns: Iterable[Any]) -> None:
    """Stop the export statement running on each connection at once (Ctrl-C, an error elsewhere);
    best effort: a connection that fails to abort is left to its reader thread."""
    for c in conns:
        try:
            engine.export_abort(c)
        except Exception:  # noqa: BLE001 - best effort
            pass


def reflect_source(
    engine: Engine,
    conn: Any,
    target: Target,
    tables: Sequence[str],
    exclude: Sequence[str],
    *,
    where: Iterable[str] = (),
    all_databases: bool = False,
    grants: bool = False,
    helpers: Sequence[Any] = (),
) -> m.Database:
    """The source's schema document, reflected on ``conn`` (inside the snapshot): the tables
    ``tables``/``exclude`` select (globs over ``table`` or ``schema.table``). A glob that matches
    no table, or a ``where`` table that names none of the selected ones, is a UsageError
    (:func:`dbjson.filters.check_filters`). The document records the tables' object privileges,
    and with ``grants`` the users and roles. ``helpers``: other connections in ``conn``'s snapshot,
    idle meanwhile, that the engine may run catalog queries on at the same time."""
    options = ReflectOptions(
        tables=tuple(tables),
        exclude=tuple(exclude),
        all_databases=all_databases,
        grants=grants,
        helpers=tuple(helpers),
    )
    db = engine.reflect_database(conn, target, options)
    check_filters(options.seen, tables=tables, exclude=exclude, where=where, source=target.display())
    return db


def select_tables(db: m.Database, tables: Sequence[str], exclude: Sequence[str]) -> list[tuple[str, m.Table]]:
    """The tables to export, as ``(schema, table)``. A partition's rows are read through its
    partitioned table, so partitions themselves are skipped (their rows would be exported twice)."""
    opts = ReflectOptions(tables=tuple(tables), exclude=tuple(exclude))
    return [(s.name, t) for s, t in db.tables() if opts.wants(s.name, t.name) and not t.partition_of]


def source_info(engine: Engine, target: Target) -> SourceInfo:
    """The manifest's ``source``: the engine and server version, the database, the host."""
    return SourceInfo(engine.name, engine.server_version, target.database, source_host(target.url))


def default_threads() -> int:
    """The export's worker count without ``--threads``: one per core, at least 2."""
    return max(2, os.cpu_count() or 2)


def export_database(
    url: str,
    out_dir: str | os.PathLike[str] | ObjectPath,
    *,
    threads: int | None = None,
    tables: Sequence[str] = (),
    exclude: Sequence[str] = (),
    where: Mapping[str, str] | None = None,
    compress: str = "none",
    chunk_rows: int | None = None,
    chunk_bytes: int | None = None,
    on_event: Callable[[ev.Event], None] | None = None,
    database: m.Database | None = None,
    all_databases: bool = False,
    overwrite: bool = False,
    max_rate: str | RateLimit | None = None,
    grants: bool = False,
    cluster: Any = None,
) -> ExportReport:
    """Export every table of the database at ``url`` into ``out_dir``.

    ``tables``/``exclude`` are globs over ``table`` or ``schema.table``; ``where`` maps a table
    (name, ``schema.table`` or glob) to an SQL condition in the source dialect; ``compress`` is
    ``none``, ``gzip`` or ``zstd``; ``chunk_rows`` splits tables into files of about that many
    rows (key ranges), ``chunk_bytes`` starts a new file when one exceeds that many bytes
    (uncompressed). ``database`` skips reflection and exports the tables of that model.
    ``all_databases``: a MySQL URL without a database exports every database of the server (else
    an error). ``out_dir`` must be new, empty or a previous export; ``overwrite`` also writes into a
    directory holding other files (they are left alone). ``max_rate`` caps the rows or bytes per
    second of all workers together (``"50000rows"``, ``"20MB"``: :func:`dbjson.ratelimit.parse_rate`). A ``tables``/``exclude`` glob or a
    ``where`` table that names no table is a UsageError.
    The schema document records the object privileges; ``grants`` adds the users and roles
    (never a password).
    ``cluster`` (a Dask scheduler address or a ``dask.distributed.Client``) runs the units as
    tasks on that cluster (:mod:`dbjson.cluster`). Returns the report; the manifest is written last.
    """
    if cluster is not None:
        from .cluster import export_on_cluster  # lazy: dask is an optional extra

        return export_on_cluster(
            cluster,
            url,
            out_dir,
            tables=tables,
            exclude=exclude,
            where=where,
            compress=compress,
            chunk_rows=chunk_rows,
            chunk_bytes=chunk_bytes,
            on_event=on_event,
            database=database,
            all_databases=all_databases,
            overwrite=overwrite,
            grants=grants,
        )
    if compress not in COMPRESSIONS:
        raise UsageError(f"unknown compression {compress!r}", hint="none, gzip or zstd")
    if threads is not None and threads < 1:
        raise UsageError("--threads must be at least 1")
    nthreads = threads or default_threads()
    limit = max_rate if isinstance(max_rate, RateLimit) else parse_rate(max_rate)
    started = time.monotonic()
    created_at = now_utc()
    emit = on_event or (lambda e: None)
    target = Target(parse_url(url))
    out = location(out_dir)
    warnings: list[str] = []

    def warn(message: str) -> None:
        warnings.append(message)
        emit(ev.Warning(message))

    check_export_dir(out, overwrite=overwrite)  # refused before any work; emptied once the plan is made
    pending = start_workers(target, nthreads)  # at the same time as the coordinator (PostgreSQL)
    try:
        coordinator = connect_source(target)
    except BaseException:
        if pending is not None:
            pending.abandon()
        raise
    workers: list[Any] = []
    written: WrittenFiles | None = None
    try:
        engine = detect_engine(target.family, coordinator)
        engine.export_session(coordinator)
        workers = open_workers(target, engine, nthreads, started=pending)
        snapshot = engine.export_snapshot(coordinator, workers, warn)
        wmap = where or {}
        if database is None:
            db = reflect_source(
                engine,
                workers[0],
                target,
                tables,
                exclude,
                where=wmap,
                all_databases=all_databases,
                grants=grants,
                helpers=workers[1:],
            )
        else:
            db = database
            check_filters(
                relations(db),
                tables=tables,
                exclude=exclude,
                where=wmap,
                source="the model",
            )
        selected = select_tables(db, tables, exclude)
        plan: list[tuple[str, m.Table, str | None]] = [(s, t, where_for(wmap, s, t.name)) for s, t in selected]
        units: list[ExportUnit] = []
        for (s, t, _w), tu in zip(plan, plan_tables(engine, workers, plan, chunk_rows=chunk_rows, threads=nthreads)):
            emit(ev.TableStarted(f"{s}.{t.name}", len(tu), sum(u.rows_estimate for u in tu)))
            units.extend(tu)
        written = prepare_export_dir(out, overwrite=overwrite)  # nothing is created before this point
        shared = _Shared(
            engine,
            out,
            safe_names((s, t.name) for s, t, _ in plan),
            compress,
            chunk_bytes,
            emit,
            written=written,
            limit=limit,
        )
        for u in units:
            shared.remaining[u.qualified] = shared.remaining.get(u.qualified, 0) + 1
        emit(ev.Started("export", len(plan), sum(u.rows_estimate for u in units), nthreads))
        _run_workers(shared, workers, units)
        entries = table_entries(shared.results, plan)
        write_schema(out, db)
        manifest = Manifest(
            source=source_info(engine, target),
            snapshot=snapshot,
            tables=entries,
            created_at=created_at,
            compression=compress,
            seconds=round(time.monotonic() - started, 3),
        )
        write_manifest(out, manifest, validate=False)  # built from typed dataclasses; tests validate it
        written.finish()
        report = ExportReport(str(out), manifest, time.monotonic() - started, nthreads, warnings)
        emit(ev.Finished(True, report.rows, report.seconds, report))
        return report
    except DbjsonError:
        raise
    except Exception as e:
        if isinstance(e, OSError) and e.errno in _OUTPUT_ERRNOS:  # the output (no manifest was written)
            full = e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
            cause = (
                f"the disk holding {out} is full ({e.strerror})" if e.errno == errno.ENOSPC else f"{out}: {e.strerror}"
            )
            raise DataError(
                f"cannot write the export: {cause}",
                file=e.filename,
                hint=(
                    "free space on the disk of the output directory (or choose another --output), then run the export again"
                    if full
                    else "check the output directory's permissions and file system, then run the export again"
                ),
            ) from None
        if isinstance(e, OSError) and isinstance(out, ObjectPath):  # the object store refused (no manifest)
            raise DataError(
                f"cannot write the export to {out}: {first_line(e)}",
                hint="check the bucket, its permissions and the credentials, then run the export again",
            ) from None
        raise_if_connection_error(e, target.url)
        raise
    finally:
        if pending is not None:
            pending.abandon()  # the workers' connections when open_workers was not reached
        close_quietly([coordinator, *workers])
        if written is not None:
            written.close()


def unit_weight(unit: ExportUnit) -> tuple[int, int]:
    """The order units are handed out in, largest first: by their share of the table's size on
    disk where the engine tells it (a unit of 0.4 KB rows outweighs one of twice as many narrow
    rows), then by rows."""
    return unit.bytes_estimate, unit.rows_estimate


def _run_workers(shared: _Shared, conns: list[Any], units: list[ExportUnit]) -> None:
    work: queue.Queue[ExportUnit] = queue.Queue()
    for u in sorted(units, key=unit_weight, reverse=True):
        work.put(u)
    chosen = conns[: max(1, min(len(conns), len(units)))]
    # Each worker sets its own event when it has finished (its files closed or removed). The
    # interrupted thread waits on those, not on Thread.join(): in CPython 3.11 a KeyboardInterrupt
    # inside join() can mark a still-running thread as stopped (bpo-45274), so a later join()
    # returned at once and the process exited before the workers removed their .partial files.
    finished = [threading.Event() for _ in chosen]

    def run(i: int, conn: Any) -> None:
        try:
            _worker(shared, conn, work)
        finally:
            finished[i].set()

    threads = [
        threading.Thread(target=run, args=(i, c), name=f"dbjson-export-{i}", daemon=True) for i, c in enumerate(chosen)
    ]
    shared.syncer = syncer = Syncer(shared.stop.set)
    try:
        for t in threads:  # inside the try: an interrupt between two starts still stops the first
            t.start()
        for ev in finished:
            while not ev.wait(0.2):
                pass
    except BaseException:
        shared.stop.set()
        abort_queries(shared.engine, conns)
        deadline = time.monotonic() + 5
        for t, ev in zip(threads, finished):
            if t.ident is not None:  # started
                ev.wait(max(0.0, deadline - time.monotonic()))
        try:
            syncer.drain()  # the files the workers completed: on disk under their names, or removed
        except Exception:  # noqa: BLE001 - the interruption (or the worker's error) is what is reported
            pass
        raise
    try:
        syncer.drain()
    except Exception:
        if all(isinstance(e, Cancelled) for e in shared.errors):  # the workers stopped because of it
            raise
    if shared.errors:
        err = shared.errors[0]
        if isinstance(err, DbjsonError):
            raise err
        if type(err).__name__ in (
            "OperationalError",
            "InterfaceError",
            "ProgrammingError",
            "DataError",
            "DatabaseError",
        ):
            raise DataError(f"export failed: {err}") from err
        raise err


# ---------------------------------------------------------------------------------------------
# One table to a stream (``export --table T -o -``)
# ---------------------------------------------------------------------------------------------


def export_table(
    url: str,
    table: str,
    out: IO[bytes],
    *,
    where: str | None = None,
    database: m.Database | None = None,
) -> tuple[int, str]:
    """Stream one table (``name`` or ``schema.name``) as canonical lines to a binary file object.

    Returns (rows, content checksum). One connection, one transaction.
    """
    target = Target(parse_url(url))
    conn = connect_source(target)
    try:
        engine = detect_engine(target.family, conn)
        engine.export_session(conn)
        engine.export_snapshot(None, [conn], lambda _m: None)
        db = database or engine.reflect_database(conn, target, ReflectOptions(tables=(table,)))
        found = [(s.name, t) for s, t in db.tables() if table in (t.name, f"{s.name}.{t.name}")]
        if not found:
            raise UsageError(f"table {table!r} not found")
        schema, tbl = found[0]
        unit = ExportUnit(schema, tbl, where=where)
        total = Checksum()
        for block in engine.export_stream(conn, unit, threading.Event()):
            total.add_block(block)
            out.write(block)
        out.flush()
        return total.rows, total.hexdigest()
    except DbjsonError:
        raise
    except Exception as e:
        raise_if_connection_error(e, target.url)
        raise
    finally:
        close_quietly([conn])


__all__ = [
    "export_database",
    "export_table",
    "ExportReport",
    "UnitFile",
    "plan_table",
    "plan_tables",
    "PLAN_TOGETHER_MIN_TABLES",
    "run_unit",
    "unit_file_rel",
    "table_entries",
    "connect_source",
    "open_workers",
    "start_workers",
    "PendingConnections",
    "abort_queries",
    "reflect_source",
    "select_tables",
    "source_info",
    "prefetched",
    "parse_chunk_size",
    "parse_where",
    "where_for",
    "default_threads",
]
