"""``dbjson import``: load an export directory into MySQL, MariaDB, PostgreSQL or SQLite.

Order: pre-data DDL (from :func:`dbjson.ddl.to_ddl`), pre-flight (values the target cannot hold),
rows, post-data DDL (indexes in parallel, then foreign keys, then the rest in plan order), verify.

Rows move in *units*: one data file of the export (a table, or one chunk of a big table). Each unit
loads in its own transaction through the engine's bulk path (``engine.load_unit``: PostgreSQL
COPY, MySQL/MariaDB LOAD DATA LOCAL fed from memory, SQLite executemany). A dynamic thread pool
grows up to ``threads`` while units wait, largest units first; with two or more threads and
enough data, rows are converted in forked worker processes (the interpreter lock would serialize
the threads' conversion) while the threads keep connections, transactions and the journal. The
resume journal (:mod:`dbjson.format.journal`) records every step, so ``resume=True`` loads exactly what
is missing. See docs/data-transfer.md.

The plan comes from :mod:`.plan`, the rows from :mod:`.reader` (converted by :mod:`.convert` and
:mod:`.encoders`), the connections and the pools from :mod:`.session`. Engine-specific work lives in
``dbjson/engines/<family>/load.py``; this package is engine-neutral.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

import orjson

from .. import model as m
from ..connect import Target
from ..engines import Engine
from ..engines.interface import TablePlan
from ..errors import ApplyError, Cancelled, DataError, UsageError, first_line
from ..events import (
    Event,
    EventHandler,
    Finished,
    PhaseStarted,
    PreflightFinding,
    Retry,
    RowRejected,
    Started,
    TableFinished,
    UnitLoaded,
    UnitUndone,
    Warning,
)
from ..format.datafiles import DataFile, open_data
from ..format.journal import Journal, journal_path
from ..format.layout import REJECTS_DIR, rejects_file
from ..format.manifest import ManifestTable, read_export
from ..format.storage import Location, ObjectPath, local_state_dir, location
from ..preflight import preflight
from ..verify import verify_error, verify_tables
from .encoders import INLINE
from .options import ImportOptions, default_load_threads, int_option, parse_assignments
from .plan import (
    SHARED_KINDS,
    ImportPlan,
    foreign_key_waves,
    plan_import,
    post_data_statements,
    pre_data_statements,
    qualified,
    replace_drops,
    unquote,
)
from .reader import LoadUnit, UnitReader
from .report import ImportReport, TableResult
from .session import TargetSession, backoff, connect_target, target_identity

MAX_ATTEMPTS = 6


class Importer(TargetSession):
    """One import run (see :func:`import_database`): a :class:`~.session.TargetSession` with the
    import's options, journal, report and phase; :meth:`run` does the phases.

    ``dbjson.migrate`` subclasses it: its data files are streams from the source database
    (:attr:`streams`, :meth:`open_file`, :meth:`scan_file`), and it overrides :meth:`plan` and
    :meth:`load_data` to follow its units.
    """

    operation = "import"  # the command its events announce (dbjson.events.Started)

    def __init__(
        self,
        directory: Location,
        target: Target,
        engine: Engine,
        opts: ImportOptions,
        on_event: EventHandler | None,
    ) -> None:
        super().__init__(target, engine, threads=opts.threads, data_only=opts.data_only)
        self.dir = directory
        self.opts = opts
        self.on_event = on_event
        self.report = ImportReport(target=target.display(), threads=opts.threads)
        self._lock = threading.Lock()
        self._in_doubt: set[str] = set()  # units whose COMMIT failed: committed or not, decided later
        self._exists_ok: set[Any] = set()  # DDL statements whose object may already exist (see _pre_statements)
        self._rejects: dict[str, IO[bytes]] = {}
        self._rejected_by_table: dict[str, int] = {}
        self.rejected = 0
        self.journal: Journal | None = None
        self.phase = "start"  # start | pre-data | pre-flight | data | post-data | verify | done
        self._units_left: dict[str, int] = {}  # table → its units still to load in this run

    # -- events ---------------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        """Send one of :mod:`dbjson.events` to ``on_event``."""
        if self.on_event is not None:
            self.on_event(event)

    def start_phase(self, phase: str, message: str = "", **totals: int) -> None:
        """Enter ``phase`` and announce it (:class:`~dbjson.events.PhaseStarted`)."""
        self.phase = phase
        self.emit(PhaseStarted(phase, message, **totals))

    def close_all(self) -> None:
        """Close the connections, the worker processes, the rejects files and the journal."""
        super().close_all()
        for fh in self._rejects.values():
            fh.close()
        if self.journal is not None:
            self.journal.close()

    # -- where rows come from (dbjson.migrate streams them from the source database instead) -----
    streams = False  # True: open_file streams the rows; no file on disk to check or to read by byte range

    def open_file(self, f: DataFile) -> IO[bytes]:
        """A binary reader of one data file's lines, for loading."""
        return open_data(f.path)

    def scan_file(self, f: DataFile) -> IO[bytes]:
        """A binary reader of one data file's lines, for the pre-flight and verify (no side effects)."""
        return open_data(f.path)

    # -- the phases -----------------------------------------------------------------------------
    def run(self, db: m.Database, mtables: list[ManifestTable], export_id: str) -> ImportReport:
        """Import the export (its schema document ``db``, its manifest's tables ``mtables``; the
        journal belongs to ``export_id``): every phase, then the report."""
        start = time.monotonic()
        self.journal = Journal(journal_path(local_state_dir(self.dir), target_identity(self.target)))
        state = self.journal.read() if self.opts.resume else None
        if state is not None and state.export_id not in (None, export_id):
            raise UsageError(
                "--resume: the journal belongs to a different export of this directory",
                hint="run without --resume to start over",
            )
        if state is None or state.export_id is None:
            self.journal.reset(export_id)
            state = self.journal.read()
        self._record_policies(state)
        self.start_encoders(sum(f.bytes or 0 for t in mtables for f in t.files), schema_only=self.opts.schema_only)
        planned = self.plan(db, mtables)
        plan, tables = planned.ddl, planned.tables
        loading = [tp for tp in tables if not tp.ddl_only]
        expected = None if any(tp.rows is None for tp in loading) else sum(tp.rows or 0 for tp in loading)
        self.emit(Started(self.operation, len(loading), 0 if self.opts.schema_only else expected, self.opts.threads))
        if plan is not None:
            self.report.translation = [str(i) for i in plan.report.items]
        conn = self.conn()
        existing = self.engine.load_existing_tables(conn, {t.tschema for t in tables})
        self._decide_existing(tables, existing, state.done)
        if not self.opts.data_only and plan is not None:
            self.start_phase("pre-data", "pre-data DDL")
            self._run_ddl(self._pre_statements(plan, tables, existing), state, parallel=False)
        if not self.opts.schema_only:
            self.start_phase("pre-flight")
            findings = preflight(
                self.engine,
                conn,
                tables,
                zero_dates=self.opts.zero_dates,
                nul=self.opts.nul or "error",
                open_file=self.scan_file if self.streams else None,
            )
            self.report.findings = findings
            found = {(f.table, f.column) for f in findings}
            for f in findings:
                self.emit(PreflightFinding(str(f), f.table, f.column, f.severity))
            for tp in tables:  # a rule no value triggers changes nothing: verify by the manifest's checksum
                tp.value_rules = {c: r for c, r in tp.value_rules.items() if (tp.display, c) in found}
            errors = [f for f in findings if f.severity == "error"]
            if errors:
                raise DataError(
                    f"pre-flight: {len(errors)} problem(s) the target cannot hold; first: {errors[0]}",
                    table=errors[0].table,
                    column=errors[0].column,
                    problems=[str(f) for f in errors],
                )
            self.load_data(tables, state)
        if not self.opts.data_only and plan is not None:
            self.start_phase("post-data", "post-data DDL")
            post = self._post_statements(plan, tables)
            self._run_ddl(self.engine.load_merge_indexes(post), state, parallel=True)  # MySQL: one ALTER per table
        self.report.seconds = time.monotonic() - start
        self.report.rejected = self.rejected
        if self.rejected:
            self.report.rejects_dir = str(local_state_dir(self.dir) / REJECTS_DIR)
        if self.opts.verify and not self.opts.schema_only:
            self.start_phase("verify", "verify")
            self.report.verify = verify_tables(
                self.engine,
                self.conn,
                [t for t in tables if not t.skipped and not t.ddl_only],
                lambda jobs: self.run_parallel(jobs, self.opts.threads),
                rejected=self._rejected_by_table,
                on_event=self.on_event,
                open_file=self.scan_file if self.streams else None,
                pool=self.procs,
                target=self.target,
            )
        self.phase = "done"
        return self.report

    def plan(self, db: m.Database, mtables: list[ManifestTable]) -> ImportPlan:
        """The DDL plan and the tables of this run (see :func:`.plan.plan_import`)."""
        return plan_import(
            db,
            mtables,
            self.engine,
            self.opts,
            manifest_file=str(self.dir / "manifest.json"),
            warn=lambda message: self.emit(Warning(message)),
        )

    def _record_policies(self, state: Any) -> None:
        """Journal the value policies (``dbjson verify`` reads the ``policies`` step back, see
        :func:`dbjson.verify.verify`); a resumed import must keep the ``--nul`` its finished units
        were loaded with."""
        assert self.journal is not None
        before = state.done.get("policies")
        now = {"nul": self.opts.nul, "zero_dates": self.opts.zero_dates}
        if before is not None and any(k.startswith("data:") for k in state.done) and before.get("nul") != now["nul"]:
            raise UsageError(
                f"--resume: the import began with --nul {before.get('nul')}, not --nul {now['nul']}",
                hint="resume with the same --nul, or run without --resume to start over",
            )
        if before is None or {k: before.get(k) for k in now} != now:
            self.journal.done("policies", **now)
            state.done["policies"] = now

    def _decide_existing(
        self, tables: list[TablePlan], existing: set[tuple[str | None, str]], done: Mapping[str, Any]
    ) -> None:
        """Apply --if-exists to target tables that are already there (not on a resumed run)."""
        resuming = any(k.startswith(("ddl:", "data:")) for k in done)
        for tp in tables:
            there = (tp.tschema, tp.tname) in existing
            self.report.tables[tp.display] = TableResult(tp.display, qualified(tp))
            if self.opts.data_only:
                if not there:
                    raise UsageError(f"--data-only: table {qualified(tp)} does not exist in the target")
                continue
            if not there or resuming:
                continue
            if self.opts.if_exists == "fail":
                raise UsageError(
                    f"table {qualified(tp)} already exists in the target",
                    hint="use --if-exists skip|truncate|replace, --data-only, or --resume",
                )
            if self.opts.if_exists == "skip":
                tp.skipped = True
                self.report.tables[tp.display].skipped = True
            elif self.opts.if_exists == "truncate":
                tp.kept = True
            elif self.opts.if_exists == "replace":
                self.engine.load_drop(self.conn(), tp.tschema, tp.tname)
                existing.discard((tp.tschema, tp.tname))
        kept = [(tp.tschema, tp.tname) for tp in tables if tp.kept]
        if kept:  # together: a table referenced by another one emptied here may be emptied with it
            self.engine.load_truncate_tables(self.conn(), kept)

    def _pre_statements(self, plan: Any, tables: list[TablePlan], existing: set[tuple[str | None, str]]) -> list[Any]:
        """Pre-data statements of this run (see :func:`pre_data_statements`), with ``--if-exists``'s."""
        out = pre_data_statements(plan, tables, existing)
        if self.opts.if_exists == "replace":
            return replace_drops(self.engine, plan, out, tables) + out
        if self.opts.if_exists in ("skip", "truncate"):  # the kept tables use the types already there
            self._exists_ok.update(st for st in out if st.kind in SHARED_KINDS)
        return out

    def _post_statements(self, plan: Any, tables: list[TablePlan]) -> list[Any]:
        """Post-data statements of this run (see :func:`post_data_statements`)."""
        out = post_data_statements(plan, tables)
        if self.opts.if_exists in ("skip", "truncate"):  # views over kept tables stay as they are
            self._exists_ok.update(st for st in out if st.kind == "view")
        return out

    # -- DDL ------------------------------------------------------------------------------------
    def _run_ddl(self, statements: list[Any], state: Any, *, parallel: bool) -> None:
        assert self.journal is not None
        journal = self.journal

        def job(i: int, st: Any) -> Callable[[], None]:
            step = (
                f"ddl:{'post' if parallel else 'pre'}:{i}:{hashlib.blake2b(st.sql.encode(), digest_size=6).hexdigest()}"
            )

            def go() -> None:
                if step in state.done:
                    return
                journal.begin(step)
                self._apply_statement(st, tolerate_exists=step in state.begun or st in self._exists_ok)
                journal.done(step)

            return go

        jobs = [job(i, st) for i, st in enumerate(statements)]
        if not parallel:
            for fn in jobs:
                if self.cancel.is_set():
                    raise Cancelled("import cancelled")
                fn()
            return
        # Primary keys added after the data (load_defer_primary_key) first, then indexes (and other
        # per-table statements) in parallel, foreign keys after them (they need the referenced
        # keys), the rest (views, triggers, routines, counter restarts) in plan order.
        pks = [(0, fn) for st, fn in zip(statements, jobs) if st.kind == "primary_key"]
        first = [(0, fn) for st, fn in zip(statements, jobs) if st.kind in ("index", "unique", "check")]
        fks = [(0, fn) for st, fn in zip(statements, jobs) if st.kind == "foreign_key"]
        rest = [
            fn
            for st, fn in zip(statements, jobs)
            if st.kind not in ("index", "unique", "primary_key", "check", "foreign_key")
        ]
        self.run_parallel(pks, self.opts.threads)
        self.run_parallel(first, self.opts.threads)
        self.run_parallel(fks, min(2, self.opts.threads))
        for fn in rest:
            fn()

    def _apply_statement(self, st: Any, *, tolerate_exists: bool) -> None:
        conn = self.conn()
        self.active[threading.get_ident()] = conn
        try:
            for attempt in range(MAX_ATTEMPTS):
                try:
                    self.engine.load_execute_ddl(conn, st.sql)
                    return
                except Exception as e:  # noqa: BLE001 - classified below
                    kind = self.engine.load_error_kind(e)
                    if self.cancel.is_set():
                        raise Cancelled("import cancelled") from None
                    if tolerate_exists and kind == "exists":
                        return
                    if kind in ("retry", "disconnect") and attempt + 1 < MAX_ATTEMPTS:
                        self.emit(Retry(f"{st.object}: {e}; retrying"))
                        if kind == "disconnect":
                            self.drop_conn()
                            conn = self.conn()
                            self.active[threading.get_ident()] = conn
                        backoff(attempt)
                        continue
                    if getattr(st, "optional", False) and not self.opts.strict:
                        note = f"{getattr(st, 'path', None) or st.object}: the target refused the translated {st.kind} ({first_line(e)}); skipped"
                        with self._lock:
                            self.report.translation.append(note)
                        self.emit(Warning(note))
                        return
                    if st.kind == "primary_key" and kind == "data":
                        raise self._duplicate_key_error(st, e) from None
                    raise ApplyError(
                        f"{st.kind} {st.object}: {first_line(e)}", statement=st.sql, obj=st.object
                    ) from None
        finally:
            self.active.pop(threading.get_ident(), None)

    def _duplicate_key_error(self, st: Any, e: BaseException) -> ApplyError:
        """A primary key added after the data (``load_defer_primary_key``) that the rows break:
        the table, the constraint and the duplicated key value from the server's detail."""
        constraint, detail = self.engine.load_error_detail(e)
        table = unquote(st.table or st.object)
        name = f" {constraint}" if constraint else ""
        found = f": {detail}" if detail else f": {first_line(e)}"
        return ApplyError(
            f"primary key{name} of {table} cannot be added, the imported rows have duplicate keys{found}",
            statement=st.sql,
            obj=st.object,
            table=table,
            hint="the export holds rows with the same primary key: remove the duplicates from the data "
            "files (or the source) and import again",
        )

    # -- data -----------------------------------------------------------------------------------
    def load_data(self, tables: list[TablePlan], state: Any) -> None:
        """The data phase: every unit of ``tables`` not yet done in the journal's ``state``."""
        assert self.journal is not None
        self._rejected_by_table = {}
        units: list[LoadUnit] = []
        for tp in tables:
            if tp.skipped:
                continue
            base = 0
            for f in tp.files:
                units.append(LoadUnit(tp, f, base))
                base += f.rows or 0
        for u in units:
            if not self.streams and not u.file.path.is_file():
                raise DataError(
                    "data file listed in the manifest is missing", file=str(u.file.path), table=u.table.display
                )
        self._record_bases(units, state)
        self._resolve_ambiguous(units, state)
        todo = [u for u in units if u.step not in state.done]
        for u in units:
            res = self.report.tables[u.table.display]
            if u.step in state.done:
                rec = state.done[u.step]
                res.rows += int(rec.get("rows", 0))
                res.rejected += int(rec.get("rejected", 0))
                res.units += 1
                self.report.resumed_units += 1
                self._rejected_by_table[u.table.display] = self._rejected_by_table.get(u.table.display, 0) + int(
                    rec.get("rejected", 0)
                )
        self._units_left = {}
        for u in todo:
            self._units_left[u.table.display] = self._units_left.get(u.table.display, 0) + 1
        self.start_phase(
            "data",
            f"loading {len(todo)} unit(s) with up to {self.opts.threads} thread(s)",
            units=len(todo),
            bytes=sum(u.size for u in todo),
            resumed=len(units) - len(todo),
        )
        threads = self.opts.threads if self.engine.capabilities.parallel_writers else 1
        for wave in foreign_key_waves(self.engine, todo):
            self.run_parallel([(u.size, self.unit_job(u)) for u in wave], threads)
        for _round in range(MAX_ATTEMPTS):
            if not self._in_doubt:
                break
            self.run_parallel([(u.size, self.unit_job(u)) for u in self._settle_in_doubt(units)], threads)
        if self._in_doubt:
            raise DataError(
                "the connection kept failing while units were committing", hint="run the import again with --resume"
            )

    def _settle_in_doubt(self, units: list[LoadUnit]) -> list[LoadUnit]:
        """Units whose COMMIT failed (a dropped connection: the server may have committed): decide
        from the row counts, as --resume does, once every other unit is finished; returns the units
        to load again (never one that committed, so no row is loaded twice)."""
        assert self.journal is not None
        self.drop_conn()  # this thread's connection may have been dropped too: count on a new one
        state = self.journal.read()
        before = dict(state.done)
        self._resolve_ambiguous(units, state)
        again = []
        for u in units:
            if u.step in self._in_doubt and u.step in state.done:  # it had committed
                self._unit_finished(u, int(state.done[u.step].get("rows", 0)), 0)
            elif u.step in before and u.step not in state.done:  # its table was emptied to be reloaded
                rows = int(before[u.step].get("rows", 0))
                with self._lock:
                    res = self.report.tables[u.table.display]
                    res.rows -= rows
                    res.units -= 1
                    self.report.rows -= rows
                    self._units_left[u.table.display] = self._units_left.get(u.table.display, 0) + 1
                self.emit(UnitUndone(u.table.display, u.file.rel, rows, u.size))
            if u.step not in state.done:
                again.append(u)
        self._in_doubt.clear()
        return again

    def _record_bases(self, units: list[LoadUnit], state: Any) -> None:
        """Journal each table's row count before its first unit (rows that were there already)."""
        assert self.journal is not None
        for tp in {id(u.table): u.table for u in units}.values():
            step = "base:" + tp.display
            if step not in state.done:
                rows = self.engine.load_count(self.conn(), tp.tschema, tp.tname)
                self.journal.done(step, rows=rows)
                state.done[step] = {"rows": rows}
            tp.base_rows = int(state.done[step].get("rows", 0))

    def _resolve_ambiguous(self, units: list[LoadUnit], state: Any) -> None:
        """Decide, from the target's row counts, whether begun-but-unrecorded units committed."""
        assert self.journal is not None
        amb = [u for u in units if u.step in state.ambiguous]
        by_table: dict[str, list[LoadUnit]] = {}
        for u in amb:
            by_table.setdefault(u.table.display, []).append(u)
        for _name, us in by_table.items():
            tp = us[0].table
            mine = [u for u in units if u.table is tp]
            base = int(state.done.get("base:" + tp.display, {}).get("rows", 0))
            done_rows = base + sum(int(state.done[u.step].get("rows", 0)) for u in mine if u.step in state.done)
            actual = self.engine.load_count(self.conn(), tp.tschema, tp.tname)
            if actual == done_rows:
                continue  # every ambiguous unit was rolled back
            if len(us) == 1 and us[0].file.rows is not None and actual == done_rows + us[0].file.rows:
                self.journal.done(us[0].step, rows=us[0].file.rows, rejected=0, resolved=True)
                state.done[us[0].step] = {"rows": us[0].file.rows}
                continue
            if base:
                raise DataError(
                    f"--resume cannot tell which rows of {qualified(tp)} were committed before the crash "
                    f"(it had {base} rows before the import, {actual} now)",
                    table=tp.display,
                    hint="empty the table and import it again without --resume",
                )
            # Cannot tell which units committed: empty the table and load all of it again.
            self.engine.load_truncate(self.conn(), tp.tschema, tp.tname)
            for u in mine:
                if u.step in state.done:
                    self.journal.undo(u.step)
                    del state.done[u.step]

    def unit_job(self, unit: LoadUnit) -> Callable[[], None]:
        """The job that loads ``unit`` on one of the import's threads (the unit-runner seam:
        :class:`dbjson.cluster.ClusterImporter` sends the unit to a task instead)."""
        return lambda: self._load_unit(unit)

    def _load_unit(self, unit: LoadUnit) -> None:
        tp = unit.table
        careful = False
        last = ""
        for attempt in range(MAX_ATTEMPTS):
            if self.cancel.is_set():
                raise Cancelled("import cancelled")
            try:
                conn = self.conn()
            except Exception as e:  # noqa: BLE001 - e.g. the session killed while it was being set up
                if self.engine.load_error_kind(e) not in ("retry", "disconnect") or attempt + 1 >= MAX_ATTEMPTS:
                    raise
                self.emit(Retry(f"{unit.file.rel}: {first_line(e)}; retrying", tp.display))
                backoff(attempt)
                continue
            self.active[threading.get_ident()] = conn
            reader = UnitReader(
                unit, self.engine, self.opts.zero_dates, self.open_file, self.cancel, streams=self.streams
            )
            committed = False
            try:
                pending: list[tuple[int, bytes, DataError]] = []
                if careful:
                    loaded, rejected = self._load_careful(conn, unit, reader, pending)
                else:
                    self.engine.load_begin(conn)
                    pool = self._encoder_pool(conn, tp)
                    if pool is not None:
                        loaded = self.engine.load_unit_encoded(conn, tp, reader.encoded_blocks(pool))
                    else:
                        loaded = self.engine.load_unit(conn, tp, reader.rows())
                    rejected = 0
                reader.check_complete(loaded + rejected)
                assert self.journal is not None
                self.journal.begin(unit.step)
                try:
                    self.engine.load_commit(conn)
                except Exception as e:  # noqa: BLE001 - the server may have committed: never load it twice
                    if self.cancel.is_set():
                        raise Cancelled("import cancelled") from None
                    if self.engine.load_error_kind(e) != "disconnect":
                        raise  # refused (disk full...): not committed, handled below
                    self.drop_conn()
                    with self._lock:
                        self._in_doubt.add(unit.step)
                    self.emit(
                        Retry(
                            f"{unit.file.rel}: {first_line(e)} while committing; "
                            "decided from the row counts after the other units",
                            tp.display,
                        )
                    )
                    return
                committed = True
                self.journal.done(unit.step, rows=loaded, rejected=rejected, checksum=reader.checksum.hexdigest())
                for number, raw, error in pending:
                    self._reject(tp, unit, number, raw, error)
                self._unit_finished(unit, loaded, rejected)
                return
            except Cancelled:
                self._rollback(conn)
                raise
            except DataError as e:
                if committed:
                    raise
                self._rollback(conn)
                if self.opts.max_errors > 0 and not careful and e.line is not None and not e.fatal:
                    careful = True
                    continue
                raise
            except Exception as e:  # noqa: BLE001 - classified by the engine
                if committed:  # a failure after the commit (journal, rejects file): never load it again
                    raise
                self._rollback(conn)
                if self.cancel.is_set():
                    raise Cancelled("import cancelled") from None
                kind = self.engine.load_error_kind(e)
                last = first_line(e)
                if kind in ("retry", "disconnect") and attempt + 1 < MAX_ATTEMPTS:
                    self.emit(Retry(f"{unit.file.rel}: {first_line(e)}; retrying", tp.display))
                    if kind == "disconnect":
                        self.drop_conn()
                    backoff(attempt)
                    continue
                if not careful:  # a value the server refused: find the row (and reject it if allowed)
                    self.emit(Warning(f"{unit.file.rel}: {first_line(e)}; loading row by row", tp.display))
                    careful = True
                    continue
                raise DataError(
                    f"the target refused the data: {first_line(e)}", file=unit.file.rel, table=tp.display
                ) from None
            finally:
                self.active.pop(threading.get_ident(), None)
                reader.close()
        raise DataError(
            f"giving up after {MAX_ATTEMPTS} attempts" + (f"; last error: {last}" if last else ""),
            file=unit.file.rel,
            table=tp.display,
            hint="run the import again with --resume once the cause is gone",
        )

    def _encoder_pool(self, conn: Any, tp: TablePlan) -> Any:
        """Where this unit's blocks are converted: the process pool (see :meth:`start_encoders`),
        inline in this thread, or None (row by row through ``engine.load_unit``)."""
        if tp.increments or self.engine.capabilities.bulk_text is None or not self.engine.load_can_encode(conn, tp):
            return None
        return self.procs if self.procs is not None else INLINE

    def _rollback(self, conn: Any) -> None:
        try:
            self.engine.load_rollback(conn)
        except Exception:  # noqa: BLE001 - a dead connection: the server rolled back
            self.drop_conn()

    def _load_careful(
        self, conn: Any, unit: LoadUnit, reader: UnitReader, pending: list[tuple[int, bytes, DataError]]
    ) -> tuple[int, int]:
        """Row by row (savepoint per row): rejected rows are collected in ``pending`` (written to the
        rejects file only when the unit commits, so a retried unit never rejects a row twice) or raise."""
        tp = unit.table
        self.engine.load_begin(conn)
        loaded = rejected = 0
        for number, raw, row, error in reader.rows_careful():
            if error is None:
                assert row is not None  # rows_careful gives a row whenever it gives no error
                try:
                    self.engine.load_row_safely(conn, tp, row)
                    loaded += 1
                    continue
                except (AttributeError, TypeError, NameError, AssertionError):
                    raise  # a bug, not a refused row
                except Exception as e:  # noqa: BLE001 - the server refused this row
                    kind = self.engine.load_error_kind(e)
                    if kind in ("retry", "disconnect"):
                        raise
                    col, value = self.engine.load_error_column(e, tp, row)
                    error = DataError(
                        f"the target refused the row: {first_line(e)}",
                        file=unit.file.rel,
                        line=number,
                        table=tp.display,
                        column=col,
                        value=value,
                    )
            if self.opts.max_errors <= 0:
                raise error
            with self._lock:
                over = self.rejected + len(pending) + 1 > self.opts.max_errors
            if over:
                raise DataError(
                    f"more than {self.opts.max_errors} rejected rows; last: {error}",
                    file=unit.file.rel,
                    line=number,
                    table=tp.display,
                    fatal=True,
                )
            pending.append((number, raw, error))
            rejected += 1
        return loaded, rejected

    def _reject(self, tp: TablePlan, unit: LoadUnit, number: int, raw: bytes, error: DataError) -> None:
        with self._lock:
            self.rejected += 1
            self._rejected_by_table[tp.display] = self._rejected_by_table.get(tp.display, 0) + 1
            fh = self._rejects.get(tp.display)
            if fh is None:
                path = rejects_file(local_state_dir(self.dir), tp.schema, tp.name)
                path.parent.mkdir(exist_ok=True)
                fh = self._rejects[tp.display] = open(path, "ab")  # noqa: SIM115
            try:
                row: Any = orjson.loads(raw)
            except orjson.JSONDecodeError:
                row = raw.decode("utf-8", "replace")
            fh.write(
                orjson.dumps(
                    {
                        "file": unit.file.rel,
                        "line": number,
                        "table": tp.display,
                        "column": error.column,
                        "error": error.message,
                        "row": row,
                    }
                )
                + b"\n"
            )
            fh.flush()
        self.emit(RowRejected(str(error), tp.display))

    def _unit_finished(self, unit: LoadUnit, loaded: int, rejected: int) -> None:
        with self._lock:
            res = self.report.tables[unit.table.display]
            res.rows += loaded
            res.rejected += rejected
            res.units += 1
            self.report.rows += loaded
            self.report.bytes += unit.size
            left = self._units_left.get(unit.table.display, 1) - 1
            self._units_left[unit.table.display] = left
            table_rows = res.rows
        self.emit(UnitLoaded(unit.table.display, unit.file.rel, loaded, unit.size))
        if left == 0:
            self.emit(TableFinished(unit.table.display, table_rows))


def import_database(
    directory: str | os.PathLike[str] | ObjectPath,
    url: str,
    *,
    threads: int | None = None,
    tables: Sequence[str] = (),
    exclude: Sequence[str] = (),
    schema_only: bool = False,
    data_only: bool = False,
    if_exists: str = "fail",
    resume: bool = False,
    strict: bool = False,
    zero_dates: str = "null",
    nul: str = "error",
    set_values: Mapping[str, Any] | Sequence[str] = (),
    set_sql: Mapping[str, str] | Sequence[str] = (),
    increments: Mapping[str, int] | Sequence[str] = (),
    renames: Mapping[str, str] | Sequence[str] = (),
    max_errors: int = 0,
    verify: bool = True,
    on_event: EventHandler | None = None,
    importer_hook: Callable[[Importer], None] | None = None,
    cluster: Any = None,
) -> ImportReport:
    """Load the export in ``directory`` into the database at ``url``.

    Pre-data DDL, rows (``threads`` parallel units, largest first; each unit one transaction,
    journaled), post-data DDL, then verification of counts and checksums against the manifest
    (``verify=False`` skips it). Column options take ``{"table.col": value}`` mappings or
    ``["table.col=value"]`` lists: ``set_values`` (a fixed value), ``set_sql`` (an SQL expression
    evaluated by the target), ``increments`` (a counter starting at the value), ``renames`` (the
    target column name). ``max_errors`` > 0 writes refused rows to ``DIR/rejects/<table>.jsonl``
    instead of stopping. ``on_event`` receives the progress events (:mod:`dbjson.events`);
    ``importer_hook`` the :class:`Importer` before it runs. ``cluster`` (a Dask scheduler
    address or a ``dask.distributed.Client``) loads the units as tasks on that cluster
    (:class:`dbjson.cluster.ClusterImporter`). ``zero_dates`` (``null`` | ``error``) and ``nul``
    (``error`` | ``strip`` | ``replace``) are the policies for zero dates and NUL characters (U+0000)
    on targets that cannot hold them; the pre-flight reports them and verification applies them.

    Raises DataError (bad rows, missing/truncated files, pre-flight findings), ApplyError (DDL),
    VerifyError (counts/checksums differ), Cancelled, ConnectionFailed, UsageError.
    """
    opts = ImportOptions(
        threads=threads or default_load_threads(),
        tables=tuple(tables),
        exclude=tuple(exclude),
        schema_only=schema_only,
        data_only=data_only,
        if_exists=if_exists,
        resume=resume,
        strict=strict,
        zero_dates=zero_dates,
        nul=nul,
        max_errors=max_errors,
        verify=verify,
    )
    d = location(directory)
    if cluster is not None and not isinstance(d, ObjectPath):
        d = d.absolute()  # the workers open the files: not relative to their working directory
    if not d.is_dir():
        raise UsageError(f"not an export directory: {d}")
    opts = dataclasses.replace(
        opts,
        set_values=parse_assignments(set_values, "--set"),
        set_sql=parse_assignments(set_sql, "--set-sql"),
        increments={k: int_option(v, k) for k, v in parse_assignments(increments, "--increment").items()},
        renames=parse_assignments(renames, "--rename"),
    )
    db, mtables, export_id = read_export(d)
    target, engine = connect_target(url)
    imp: Importer
    if cluster is not None:
        from ..cluster import ClusterImporter  # lazy: dask is an optional extra

        imp = ClusterImporter(cluster, d, target, engine, opts, on_event)  # d: absolute or a URL
    else:
        imp = Importer(d, target, engine, opts, on_event)
    if importer_hook is not None:
        importer_hook(imp)
    try:
        report = imp.run(db, mtables, export_id)
    except KeyboardInterrupt:
        imp.cancel.set()
        imp.interrupt_all()
        raise Cancelled("import interrupted; run again with --resume to finish") from None
    finally:
        imp.close_all()
    if report.verify is not None and not report.verify.ok:
        raise verify_error(report.verify)
    if on_event is not None:
        on_event(Finished(True, report.rows, report.seconds, report))
    return report


__all__ = ["Importer", "import_database"]
