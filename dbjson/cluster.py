"""The unit plan on a Dask cluster: ``export --cluster tcp://scheduler:8786`` and ``import --cluster``.

The coordinator (this process) keeps what must be one: the snapshot's anchor, the plan, the
import's journal and the manifest. The units run as tasks on the cluster's workers; each task
connects to the database itself and writes to (or reads from) storage every worker reaches: a
shared file system or object storage (:mod:`dbjson.format.storage`).

One snapshot across machines (``engine.capabilities.cluster_snapshot``):

- ``exported`` (PostgreSQL): ``pg_export_snapshot()`` in the coordinator's transaction, open for
  the whole run; every task begins with ``SET TRANSACTION SNAPSHOT``. Tasks are stateless, so a
  task whose worker is lost is simply run again by Dask on another worker.
- ``held`` (MySQL, MariaDB): one Dask actor per worker process opens its connection; the
  coordinator takes the backup lock (``BACKUP STAGE BLOCK_COMMIT``, or ``FLUSH TABLES WITH READ
  LOCK``) while every actor starts ``START TRANSACTION WITH CONSISTENT SNAPSHOT``, then releases it,
  as mydumper does across threads. The units go to the actors; the units of an actor whose worker
  is lost go to the surviving actors (they hold the same snapshot).

Nothing is lost or written twice: a unit's files are complete only when its task returns them, the
manifest lists the files of the one result the coordinator kept per unit, and a file rewritten by a
re-run has the same name and the same bytes (the same snapshot, the same key range). An import
task that may have run before (its worker was lost after it began) is not loaded again blindly:
the coordinator decides from the target's row counts, as ``--resume`` does.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import events as ev
from . import model as m
from .connect import Target, close_quietly, parse_url, raise_if_connection_error
from .engines import Engine, detect_engine, get_engine
from .engines.interface import ExportUnit
from .errors import Cancelled, DataError, DbjsonError, UsageError, first_line
from .events import EventHandler
from .export import (
    REFRESH_UNITS,
    ExportReport,
    UnitFile,
    open_workers,
    plan_table,
    reflect_source,
    run_unit,
    select_tables,
    source_info,
    table_entries,
    unit_file_rel,
    where_for,
)
from .filters import check_filters, relations
from .format.checksum import Checksum
from .format.datafiles import open_data
from .format.layout import COMPRESSIONS, WrittenFiles, check_export_dir, prepare_export_dir, safe_names
from .format.manifest import Manifest, SnapshotInfo, write_manifest, write_schema
from .format.storage import Location, ObjectPath, location
from .importer.encoders import INLINE
from .importer.options import ImportOptions
from .importer.reader import LoadUnit, UnitReader
from .importer.run import Importer
from .model import now_utc

POLL_SECONDS = 0.05


def connect_cluster(cluster: Any) -> tuple[Any, bool]:
    """A ``dask.distributed.Client`` for ``cluster`` (an address such as ``tcp://host:8786``, or a
    Client, returned as is) and whether this call made it (the caller then closes it)."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--cluster needs dask.distributed", hint="pip install 'dbjson[dask]'") from None
    if isinstance(cluster, Client):
        return cluster, False
    if not isinstance(cluster, str):
        raise UsageError("cluster must be a scheduler address (tcp://host:8786) or a dask.distributed.Client")
    try:
        return Client(cluster, timeout="20s"), True  # type: ignore[no-untyped-call]
    except OSError as e:
        raise UsageError(f"cannot reach the Dask scheduler at {cluster}: {e}") from None


def _workers(client: Any) -> dict[str, int]:
    """The cluster's workers: address → threads."""
    info = client.scheduler_info()
    return {addr: int(w.get("nthreads", 1)) for addr, w in info.get("workers", {}).items()}


# ---------------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------------


@dataclass
class ExportJob:
    """What a task needs to export units (the URL carries the password: it goes to the workers, as
    a connection string must, and is never logged)."""

    url: str
    engine: str
    server_version: str
    out: Location
    names: dict[tuple[str, str], str]
    compress: str
    chunk_bytes: int | None
    snapshot: SnapshotInfo

    def connect(self) -> tuple[Engine, Any]:
        engine = get_engine(self.engine, self.server_version)
        conn = engine.export_connect(Target(parse_url(self.url)))
        try:
            engine.export_session(conn)
        except BaseException:
            close_quietly([conn])
            raise
        return engine, conn


def export_unit_task(job: ExportJob, unit: ExportUnit) -> list[UnitFile]:
    """A Dask task: one unit on a connection of its own, joined to the exported snapshot."""
    engine, conn = job.connect()
    try:
        engine.export_join_snapshot(conn, job.snapshot)
        return run_unit(engine, conn, unit, job.out, job.names, job.compress, job.chunk_bytes)
    finally:
        close_quietly([conn])


class ExportActor:
    """A Dask actor: a connection that stays open on one worker, in the snapshot the coordinator
    held the backup lock for (``capabilities.cluster_snapshot == "held"``)."""

    def __init__(self, job: ExportJob) -> None:
        self.job = job
        self.engine, self.conn = job.connect()

    def join(self, snapshot: SnapshotInfo) -> int:
        """Start this actor's transaction on ``snapshot``; returns the worker's process id."""
        self.job.snapshot = snapshot
        self.engine.export_join_snapshot(self.conn, snapshot)
        return os.getpid()

    def run(self, unit: ExportUnit, names: dict[tuple[str, str], str]) -> list[UnitFile]:
        """Export ``unit`` (``names``: the tables' file names, planned after the actor was made)."""
        return run_unit(self.engine, self.conn, unit, self.job.out, names, self.job.compress, self.job.chunk_bytes)

    def close(self) -> None:
        close_quietly([self.conn])


def export_on_cluster(
    cluster: Any,
    url: str,
    out_dir: str | os.PathLike[str] | ObjectPath,
    *,
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
    grants: bool = False,
) -> ExportReport:
    """:func:`dbjson.export.export_database` with the units run on a Dask cluster (see the module):
    the same checks (filters that name no table, the output directory, ``all_databases``), the
    same document (``grants``) and the same list of the files it writes."""
    if compress not in COMPRESSIONS:
        raise UsageError(f"unknown compression {compress!r}", hint="none, gzip or zstd")
    started = time.monotonic()
    created_at = now_utc()
    emit = on_event or (lambda e: None)
    target = Target(parse_url(url))
    out = location(out_dir)
    if not isinstance(out, ObjectPath):
        out = out.absolute()  # the workers open it: not relative to their working directory
    warnings: list[str] = []

    def warn(message: str) -> None:
        warnings.append(message)
        emit(ev.Warning(message))

    check_export_dir(out, overwrite=overwrite)  # refused before any work; emptied once the plan is made
    client, owned = connect_cluster(cluster)
    written: WrittenFiles | None = None
    coordinator: Any = None
    planner: list[Any] = []
    actors: list[Any] = []
    try:
        slots = _workers(client)
        if not slots:
            raise UsageError("the Dask cluster has no workers")
        nthreads = sum(slots.values())
        coordinator = get_engine(target.family).export_connect(target)
        engine = detect_engine(target.family, coordinator)
        kind = engine.capabilities.cluster_snapshot
        if kind is None:
            raise UsageError(f"{engine.name} cannot export on a cluster (one file on one machine)")
        engine.export_session(coordinator)
        planner = open_workers(target, engine, 1)
        job = ExportJob(
            url=target.url.render_as_string(hide_password=False),
            engine=engine.name,
            server_version=engine.server_version,
            out=out,
            names={},
            compress=compress,
            chunk_bytes=chunk_bytes,
            snapshot=SnapshotInfo(mode="pending"),
        )
        if kind == "held":
            actors = [
                client.submit(ExportActor, job, actor=True, workers=[addr], pure=False, key=f"dbjson-export-{i}")
                for i, addr in enumerate(slots)
            ]
            actors = [a.result() for a in actors]
            nthreads = len(actors)

        def join_all(snapshot: SnapshotInfo) -> None:
            job.snapshot = snapshot
            engine.export_join_snapshot(planner[0], snapshot)
            for fut in [a.join(snapshot) for a in actors]:
                fut.result()

        snapshot = engine.export_cluster_snapshot(coordinator, join_all, warn)
        wmap = where or {}
        if database is None:
            db = reflect_source(
                engine, planner[0], target, tables, exclude, where=wmap, all_databases=all_databases, grants=grants
            )
        else:
            db = database
            check_filters(relations(db), tables=tables, exclude=exclude, where=wmap, source="the model")
        selected = select_tables(db, tables, exclude)
        plan = [(s, t, where_for(wmap, s, t.name)) for s, t in selected]
        units: list[ExportUnit] = []
        for i, (s, t, w) in enumerate(plan):
            if i and i % REFRESH_UNITS == 0:
                engine.export_refresh(planner[0])  # planning reads tables too: release their locks
            tu = plan_table(engine, planner[0], s, t, where=w, chunk_rows=chunk_rows, threads=nthreads)
            emit(ev.TableStarted(f"{s}.{t.name}", len(tu), sum(u.rows_estimate for u in tu)))
            units.extend(tu)
        job.names = safe_names((s, t.name) for s, t, _ in plan)
        written = prepare_export_dir(out, overwrite=overwrite)  # nothing is created before this point
        for u in units:  # each unit's first file, before a worker creates it; the others as they come
            written.add(out / unit_file_rel(job.names, u, 0, compress))
        emit(ev.Started("export", len(plan), sum(u.rows_estimate for u in units), nthreads))
        ordered = sorted(units, key=lambda u: -u.rows_estimate)
        tracker = _TableTracker(units, emit, written)
        if kind == "exported":
            results = _run_tasks(client, job, ordered, tracker)
        else:
            # the actors were made before the plan: they get the file names with each unit's job
            results = _run_on_actors(client, actors, job, ordered, tracker)
        entries = table_entries(results, plan)
        write_schema(out, db)
        manifest = Manifest(
            source=source_info(engine, target),
            snapshot=snapshot,
            tables=entries,
            created_at=created_at,
            compression=compress,
            seconds=round(time.monotonic() - started, 3),
        )
        write_manifest(out, manifest, validate=False)
        written.finish()
        written = None
        report = ExportReport(str(out), manifest, time.monotonic() - started, nthreads, warnings)
        emit(ev.Finished(True, report.rows, report.seconds, report))
        return report
    except DbjsonError:
        raise
    except Exception as e:
        if isinstance(e, OSError) and isinstance(out, ObjectPath):  # the object store refused (no manifest)
            raise DataError(
                f"cannot write the export to {out}: {first_line(e)}",
                hint="check the bucket, its permissions and the credentials, then run the export again",
            ) from None
        raise_if_connection_error(e, target.url)
        raise
    finally:
        if written is not None:
            written.close()  # the list stays: a later export may replace what this one wrote
        for a in actors:
            try:
                a.close().result(timeout=10)
            except Exception:  # noqa: BLE001 - its worker may be gone
                pass
        close_quietly([c for c in [coordinator, *planner] if c is not None])
        if owned:
            client.close()


class _TableTracker:
    """Emits ChunkDone for every file and TableFinished when a table's last unit is in."""

    def __init__(self, units: list[ExportUnit], emit: Callable[[ev.Event], None], written: WrittenFiles) -> None:
        self.emit = emit
        self.written = written
        self.left: dict[str, int] = {}
        self.files: dict[str, list[UnitFile]] = {}
        for u in units:
            self.left[u.qualified] = self.left.get(u.qualified, 0) + 1

    def done(self, unit: ExportUnit, files: list[UnitFile]) -> None:
        table = unit.qualified
        self.files.setdefault(table, []).extend(files)
        for f in files:
            self.written.add(self.written.out / f.entry.path)
            self.emit(ev.RowsProgress(table, f.entry.rows, f.entry.bytes))
            self.emit(ev.ChunkDone(table, f.entry.path, f.entry.rows, f.entry.bytes))
        self.left[table] -= 1
        if self.left[table] == 0:
            total = Checksum()
            for f in self.files[table]:
                total.merge(f.checksum)
            self.emit(ev.TableFinished(table, total.rows, total.hexdigest()))


def _run_tasks(client: Any, job: ExportJob, units: list[ExportUnit], tracker: _TableTracker) -> list[UnitFile]:
    """Stateless tasks (an exported snapshot): Dask runs a lost worker's tasks again elsewhere."""
    from distributed import as_completed

    futures = {
        client.submit(export_unit_task, job, u, pure=False, retries=1, priority=u.rows_estimate): u for u in units
    }
    results: list[UnitFile] = []
    try:
        for fut in as_completed(list(futures)):  # type: ignore[no-untyped-call]
            unit = futures[fut]
            files = _result(fut, unit)
            results.extend(files)
            tracker.done(unit, files)
    except BaseException:
        client.cancel(list(futures))
        raise
    return results


def _result(fut: Any, unit: ExportUnit) -> list[UnitFile]:
    try:
        return fut.result()  # type: ignore[no-any-return]
    except DbjsonError as e:
        e.table = e.table or unit.qualified
        raise
    except Exception as e:
        if type(e).__name__ == "KilledWorker":
            raise DataError(
                f"the unit's task was lost with its worker too many times: {e}",
                table=unit.qualified,
                hint="check the workers' memory and logs, then run the export again",
            ) from None
        raise


def _run_on_actors(
    client: Any, actors: list[Any], job: ExportJob, units: list[ExportUnit], tracker: _TableTracker
) -> list[UnitFile]:
    """Units on the actors that hold the snapshot, one at a time each; an actor whose worker is
    lost is dropped and its unit goes to another."""
    pending: deque[ExportUnit] = deque(units)
    alive = list(range(len(actors)))
    running: dict[int, tuple[Any, ExportUnit]] = {}
    results: list[UnitFile] = []
    lost: list[str] = []
    names = job.names

    def start(i: int) -> None:
        unit = pending.popleft()
        running[i] = (actors[i].run(unit, names), unit)

    while pending or running:
        for i in alive:
            if i not in running and pending:
                start(i)
        if not running:
            raise DataError(
                f"every worker holding the snapshot was lost ({'; '.join(lost)})",
                hint="run the export again (a MySQL snapshot lives in the workers' sessions)",
            )
        time.sleep(POLL_SECONDS)
        for i, (fut, unit) in list(running.items()):
            if not fut.done():
                continue
            del running[i]
            try:
                files = fut.result()
            except DbjsonError as e:
                e.table = e.table or unit.qualified
                raise
            except Exception as e:  # noqa: BLE001 - the actor's worker is gone (a comm error)
                if not _is_lost_worker(e):
                    raise
                lost.append(f"{type(e).__name__}: {e}")
                alive.remove(i)
                pending.appendleft(unit)
                continue
            results.extend(files)
            tracker.done(unit, files)
    return results


def _is_lost_worker(e: BaseException) -> bool:
    return isinstance(e, OSError | EOFError | TimeoutError) or type(e).__name__ in (
        "CommClosedError",
        "KilledWorker",
        "FutureCancelledError",
        "CancelledError",
    )


# ---------------------------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------------------------


@dataclass
class ImportJob:
    """What a task needs to load units (the URL carries the password, as for :class:`ExportJob`)."""

    url: str
    engine: str
    server_version: str
    data_only: bool
    zero_dates: str


def import_unit_task(job: ImportJob, unit: LoadUnit, claim: str) -> tuple[str, int, str]:
    """A Dask task: load one unit in one transaction on a connection of its own; returns
    ``("ok", rows, checksum)``, or ``("claimed", 0, "")`` when a task of this unit began before (its
    worker was lost: it may have committed, so the coordinator decides from the row counts)."""
    from distributed import Variable

    mark: Any = Variable(claim)  # type: ignore[no-untyped-call]
    # set to "fresh" by the coordinator before it sent the task (a get with a short timeout as the
    # test of "never set" was wrong under load: the round trip outlasted it, and a unit loaded twice)
    if mark.get(timeout=60) != "fresh":
        return ("claimed", 0, "")
    mark.set(f"begun {os.getpid()}")  # a task runs again only after its worker was lost: no race here
    engine = get_engine(job.engine, job.server_version)
    conn = engine.load_connect(Target(parse_url(job.url)), data_only=job.data_only)
    reader = UnitReader(unit, engine, job.zero_dates, lambda f: open_data(f.path), threading.Event())
    tp = unit.table
    try:
        engine.load_begin(conn)
        if tp.increments or engine.capabilities.bulk_text is None or not engine.load_can_encode(conn, tp):
            loaded = engine.load_unit(conn, tp, reader.rows())
        else:
            loaded = engine.load_unit_encoded(conn, tp, reader.encoded_blocks(INLINE))
        reader.check_complete(loaded)
        engine.load_commit(conn)
        return ("ok", loaded, reader.checksum.hexdigest())
    except DbjsonError:
        _rollback(engine, conn)
        raise
    except Exception as e:  # a driver error: its class may not exist where the result is read
        _rollback(engine, conn)
        raise DataError(f"the target refused the data: {first_line(e)}", file=unit.file.rel, table=tp.display) from None
    finally:
        reader.close()
        try:
            engine.load_disconnect(conn)
        except Exception:  # noqa: BLE001
            pass


def _rollback(engine: Engine, conn: Any) -> None:
    try:
        engine.load_rollback(conn)
    except Exception:  # noqa: BLE001 - a dead connection: the server rolled back
        pass


class ClusterImporter(Importer):
    """An import whose data units run as tasks on a Dask cluster (:func:`import_unit_task`); the
    DDL, the pre-flight, the journal, the post-data DDL and verify stay here. A unit is journaled
    ``begin`` before its task is sent and ``done`` when it returns; a unit whose task may have run
    twice is settled from the row counts (as a unit whose COMMIT was lost is). Rejected rows
    (``max_errors``) need the row-by-row path, which runs here: not with a cluster."""

    def __init__(
        self,
        cluster: Any,
        directory: Location,
        target: Target,
        engine: Engine,
        opts: ImportOptions,
        on_event: EventHandler | None,
    ) -> None:
        if opts.max_errors > 0:
            raise UsageError("--max-errors is not available with --cluster (rejected rows are found row by row)")
        self.client, self._owned = connect_cluster(cluster)
        slots = sum(_workers(self.client).values())
        if not slots:
            raise UsageError("the Dask cluster has no workers")
        opts = dataclasses.replace(opts, threads=slots)
        super().__init__(directory, target, engine, opts, on_event)
        self.job = ImportJob(
            url=target.url.render_as_string(hide_password=False),
            engine=engine.name,
            server_version=engine.server_version,
            data_only=opts.data_only,
            zero_dates=opts.zero_dates,
        )
        self._run_id = uuid.uuid4().hex

    def start_encoders(self, todo_bytes: int, *, schema_only: bool = False) -> None:
        """No local worker processes: the tasks convert their own rows."""

    def concurrent_preflight(self) -> bool:
        """The tasks commit on their own: the whole pre-flight runs before any is sent."""
        return False

    def unit_job(self, unit: LoadUnit) -> Callable[[], None]:
        return lambda: self._load_remote(unit)

    def _load_remote(self, unit: LoadUnit) -> None:
        assert self.journal is not None
        if self.cancel.is_set():
            raise Cancelled("import cancelled")
        self.journal.begin(unit.step)  # before the task: a crash from here on leaves it ambiguous
        claim = f"dbjson-import-{self._run_id}-{uuid.uuid4().hex}"
        from distributed import Variable

        mark: Any = Variable(claim, client=self.client)  # type: ignore[no-untyped-call]
        mark.set("fresh")
        fut = self.client.submit(import_unit_task, self.job, unit, claim, pure=False, retries=0)
        try:
            while not fut.done():  # polled: Future.result(timeout) raised UnboundLocalError for a cancelled future
                if self.cancel.is_set():
                    fut.cancel()
                    raise Cancelled("import cancelled")
                time.sleep(POLL_SECONDS)
            status, loaded, checksum = "claimed", 0, ""  # cancelled or lost: decided from the row counts
            if fut.status == "finished":
                status, loaded, checksum = fut.result()
            elif fut.status == "error":
                exc = fut.exception()
                if isinstance(exc, DbjsonError):
                    exc.table = exc.table or unit.table.display
                    raise exc
                if type(exc).__name__ != "KilledWorker":
                    raise DataError(f"the unit's task failed: {exc}", file=unit.file.rel, table=unit.table.display)
        finally:
            self._forget(claim)
        if status == "claimed":  # a run of it began on a worker that was lost: committed or not?
            with self._lock:
                self._in_doubt.add(unit.step)
            self.emit(
                ev.Retry(f"{unit.file.rel}: its worker was lost; decided from the row counts", unit.table.display)
            )
            return
        self.journal.done(unit.step, rows=loaded, rejected=0, checksum=checksum)
        self._unit_finished(unit, loaded, 0)

    def _forget(self, claim: str) -> None:
        try:
            from distributed import Variable

            mark: Any = Variable(claim, client=self.client)  # type: ignore[no-untyped-call]
            mark.delete()
        except Exception:  # noqa: BLE001 - best effort
            pass

    def close_all(self) -> None:
        super().close_all()
        if self._owned:
            self.client.close()
