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

import contextlib
import dataclasses
import hashlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import IO, Any

import orjson

from .. import model as m
from .. import speedups
from ..casts import parse_casts
from ..connect import Target
from ..engines import Engine
from ..engines.interface import TablePlan
from ..errors import ApplyError, Cancelled, DataError, RetriesExhausted, UsageError, first_line
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
    TableStarted,
    TableVerified,
    UnitLoaded,
    UnitProgress,
    UnitUndone,
    Warning,
)
from ..filters import check_filters, relations
from ..format.datafiles import DataFile, open_data
from ..format.journal import Journal, journal_path
from ..format.layout import REJECTS_DIR, rejects_file
from ..format.manifest import ManifestTable, read_export
from ..format.paths import open_for_write, refuse_link
from ..format.storage import Location, ObjectPath, local_state_dir, location
from ..preflight import Finding, preflight
from ..ratelimit import RateLimit, parse_rate
from ..verify import (
    TableCheck,
    expected_lines,
    key_ranges,
    range_sum,
    ranged_check,
    verify_error,
    verify_tables,
)
from .encoders import INLINE, c_block_plan
from .options import DEFAULT_RETRY_BUDGET, ImportOptions, default_load_threads, int_option, parse_assignments
from .plan import (
    SHARED_KINDS,
    ImportPlan,
    _names,
    foreign_key_waves,
    plan_import,
    post_data_statements,
    pre_data_statements,
    qualified,
    replace_drops,
    unquote,
)
from .reader import LoadUnit, NativeReader, UnitReader
from .report import DryRun, ImportReport, TableResult
from .session import Job, RetryBudget, TargetSession, connect_target, target_identity

SESSION_WAIT = 120.0  # seconds a resume waits for an interrupted run's committing sessions to end
MAX_ATTEMPTS = 6  # rounds of deciding units whose COMMIT lost its connection (see load_data)
# DDL statements whose objects --resume checks for (by applying them again: "already exists" is the
# answer when they are there); the others are not idempotent or not worth it.
RECHECKED_KINDS = frozenset({"table", "primary_key", "index", "unique", "foreign_key", "check"})
# post-data statements about one table alone, made as soon as its rows are in (see _early_post_data)
EARLY_KINDS = frozenset({"primary_key", "index", "unique", "check"})

log = logging.getLogger(__name__)  # debug lines only (the library never prints)


def ddl_step(phase: str, i: int, st: Any) -> str:
    """The journal step of the ``i``-th statement of a DDL phase (``pre`` or ``post``): its place
    and a hash of its text, so that a resumed run skips exactly the statements already made."""
    return f"ddl:{phase}:{i}:{hashlib.blake2b(st.sql.encode(), digest_size=6).hexdigest()}"


class Importer(TargetSession):
    """One import run (see :func:`import_database`): a :class:`~.session.TargetSession` with the
    import's options, journal, report and phase; :meth:`run` does the phases.

    ``dbjson.migrate`` subclasses it: its data files are streams from the source database
    (:attr:`streams`, :meth:`open_file`, :meth:`scan_file`), and it overrides :meth:`plan` and
    :meth:`load_data` to follow its units.
    """

    operation = "import"  # the command its events announce (dbjson.events.Started)
    # a loading thread with no unit left to start verifies a table whose rows and keys are in
    # (:meth:`_idle_job`), instead of waiting for the others (dbjson migrate verifies its own way)
    verify_while_loading = True

    def __init__(
        self,
        directory: Location,
        target: Target,
        engine: Engine,
        opts: ImportOptions,
        on_event: EventHandler | None,
    ) -> None:
        # A lock wait takes a sixth of the retry budget (10 s with the default), so that a lock
        # held by another session is reported, with its holders, while retrying.
        lock_timeout = max(1.0, opts.retry_budget / 6)
        super().__init__(target, engine, threads=opts.threads, data_only=opts.data_only, lock_timeout=lock_timeout)
        self.dir = directory
        self.opts = opts
        self.on_event = on_event
        self.report = ImportReport(target=target.display(), threads=opts.threads)
        self._lock = threading.Lock()
        self._in_doubt: set[str] = set()  # units whose COMMIT failed: committed or not, decided later
        self._commit_lock = threading.Lock()  # held from a unit's journal 'begin' to its 'done'
        self._exists_ok: set[Any] = set()  # DDL statements whose object may already exist (see _pre_statements)
        self._rejects: dict[str, IO[bytes]] = {}
        self._rejected_by_table: dict[str, int] = {}
        self.rejected = 0
        self.journal: Journal | None = None
        self.phase = "start"  # start | pre-data | pre-flight | data | post-data | verify | done
        self._phase_started: float | None = None  # when the current phase began (report.phases)
        self._units_left: dict[str, int] = {}  # table → its units still to load in this run
        self._tables: list[TablePlan] = []  # the tables of this run (see run)
        # table → its verification, made while the other tables were loading (dbjson migrate:
        # see :meth:`dbjson.migrate._MigrateImporter._unit_finished`); verify checks the others
        self.verified: dict[str, TableCheck] = {}
        # The early post-data (see _early_post_data): a table's keys and indexes are made by its
        # loading thread as soon as its last unit commits, while other tables still load.
        self._ddl_plan: Any = None  # the import plan's DDL (None: no DDL to run)
        self._post_cache: list[Any] | None = None  # the post-data statements (computed once)
        self._state: Any = None  # the journal's state of this run (its done steps, the early post-data's included)
        self._early: dict[str, list[tuple[str, Any]]] = {}  # table → post-data statements run when it is loaded
        self._early_fks: list[tuple[str, Any, str, str]] = []  # (step, statement, table, referenced table) to run
        self._ready: set[str] = set()  # tables loaded with their early post-data made (their foreign keys may follow)
        self._gate: _PreflightGate | None = None  # the pre-flight running while units load (see run)
        self._verifiable: list[TablePlan] = []  # tables keyed and clean, to verify while others load
        self._verify_pieces: deque[Callable[[], None]] = deque()  # their key ranges still to read

    # -- events ---------------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        """Send one of :mod:`dbjson.events` to ``on_event``."""
        if self.on_event is not None:
            self.on_event(event)

    def start_phase(self, phase: str, message: str = "", **totals: int | None) -> None:
        """Enter ``phase`` and announce it (:class:`~dbjson.events.PhaseStarted`); the time spent in
        the previous one goes to ``report.phases``."""
        self.end_phase()
        self.phase = phase
        self._phase_started = time.monotonic()
        self.emit(PhaseStarted(phase, message, **totals))  # type: ignore[arg-type]

    def end_phase(self) -> None:
        """Add the time of the current phase to ``report.phases`` (seconds per phase)."""
        started = self._phase_started
        if started is not None and self.phase not in ("start", "done"):
            phases = self.report.phases
            phases[self.phase] = phases.get(self.phase, 0.0) + time.monotonic() - started
        self._phase_started = None

    # -- retrying transient failures within the budget -----------------------------------------
    def conn(self) -> Any:
        """This thread's connection; a failure to connect that may pass (a server restarting, a
        connection refused) is retried within the retry budget."""
        budget = RetryBudget(self.opts.retry_budget)
        while True:
            try:
                return super().conn()
            except Exception as e:  # noqa: BLE001 - classified by the engine
                if self.cancel.is_set() or self.engine.load_error_kind(e) not in ("retry", "disconnect"):
                    raise
                self.pause_or_give_up(budget, "connecting to the target", e)

    def pause_or_give_up(
        self,
        budget: RetryBudget,
        what: str,
        error: BaseException,
        *,
        table: TablePlan | None = None,
        file: str | None = None,
        holders: Sequence[str] = (),
    ) -> None:
        """After a transient failure: announce the retry (:class:`~dbjson.events.Retry`, with the
        sessions holding the lock waited for) and pause, or raise :class:`RetriesExhausted` once the
        budget is spent (what committed is journaled: ``--resume`` finishes the job)."""
        cause = first_line(error)
        if holders:
            cause += "; the lock is held by " + "; ".join(holders[:3]) + (" ..." if len(holders) > 3 else "")
        pause = budget.next_pause()
        name = table.display if table is not None else None
        if pause is None:
            raise RetriesExhausted(
                f"{what}: still failing after {budget.spent:.0f} s of retries (--retry-budget "
                f"{self.opts.retry_budget:g}); last error: {cause}",
                file=file,
                table=name,
            ) from None
        self.emit(
            Retry(
                f"{what}: {cause}; retry {budget.attempt} in {pause:.1f} s "
                f"({budget.spent:.0f} of {self.opts.retry_budget:g} s retry budget spent)",
                name,
            )
        )
        if self.cancel.wait(pause):
            raise Cancelled("import cancelled")

    def lock_holders(self, tp: TablePlan | None, error: BaseException) -> list[str]:
        """The sessions holding locks on ``tp`` after ``error`` (a lock timeout, a deadlock), named
        for the user; none when the engine cannot tell or the error is not about a lock."""
        if tp is None or self.engine.load_error_kind(error) != "retry":
            return []
        try:
            return self.engine.load_lock_holders(self.conn(), tp.tschema, tp.tname)
        except Exception:  # noqa: BLE001 - best effort: the message goes out without them
            self.drop_conn()
            return []

    def retrying(self, what: str, fn: Callable[[Any], Any], tp: TablePlan | None = None) -> Any:
        """``fn(connection)`` (an autocommit statement), retried within the budget on transient failures."""
        budget = RetryBudget(self.opts.retry_budget)
        while True:
            conn = self.conn()
            self.active[threading.get_ident()] = conn
            try:
                return fn(conn)
            except Exception as e:  # noqa: BLE001 - classified by the engine
                if self.cancel.is_set():
                    raise Cancelled("import cancelled") from None
                kind = self.engine.load_error_kind(e)
                if kind not in ("retry", "disconnect"):
                    raise
                self._rollback(conn)
                if kind == "disconnect":
                    self.drop_conn()
                self.pause_or_give_up(budget, what, e, table=tp, holders=self.lock_holders(tp, e))
            finally:
                self.active.pop(threading.get_ident(), None)

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

    def preflight_file(self, f: DataFile) -> IO[bytes]:
        """A binary reader of what the pre-flight reads of one data file (``dbjson.migrate``: only
        the columns and rows it checks, from the source)."""
        return self.scan_file(f)

    def concurrent_preflight(self) -> bool:
        """Whether the pre-flight may run while the units load (see :class:`_PreflightGate`): its
        reads take nothing the loads need (files on disk; ``dbjson.migrate``: its own snapshot
        connections)."""
        return not self.streams

    def table_cleared(self, tp: TablePlan) -> None:
        """``tp``'s pre-flight is done and found nothing that stops the run; its value rules are
        final (called before any unit of ``tp`` starts). ``dbjson.migrate`` chooses how its rows
        move here."""

    def preflight_finished(self) -> None:
        """The pre-flight has read everything it reads (``dbjson.migrate`` stops its read-ahead)."""

    def native_blocks(self, unit: LoadUnit) -> tuple[str, Iterable[bytes]] | None:
        """The unit's rows in the engines' native row format (``capabilities.native_stream``: its
        name, then blocks of whole rows, closable), when they come that way instead of as lines;
        None: as lines (:meth:`open_file`). ``dbjson.migrate`` streams a same-engine copy so."""
        return None

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
        planned = self.plan(db, mtables)
        plan, tables = planned.ddl, planned.tables
        self._tables = tables
        loading = [tp for tp in tables if not tp.ddl_only]
        if self._python_work(loading):  # (before any connection or thread: see start_worker_pool)
            self.start_encoders(sum(f.bytes or 0 for t in mtables for f in t.files), schema_only=self.opts.schema_only)
        expected = None if any(tp.rows is None for tp in loading) else sum(tp.rows or 0 for tp in loading)
        self.emit(Started(self.operation, len(loading), 0 if self.opts.schema_only else expected, self.opts.threads))
        if plan is not None:
            self.report.translation = [str(i) for i in plan.report.items]
        conn = self.conn()
        durability = self.engine.load_durability(conn)
        if durability and not self.opts.schema_only:
            self.emit(Warning(f"the target {durability}; --resume checks the row counts of finished units"))
        existing = self.engine.load_existing_tables(conn, {t.tschema for t in tables})
        self._decide_existing(tables, existing, state.done, state.begun)
        if not self.opts.data_only and plan is not None:
            self.start_phase("pre-data", "pre-data DDL")
            self._run_ddl(self._pre_statements(plan, tables, existing), state, parallel=False)
        if not self.opts.schema_only:
            self.start_phase("pre-flight")
            self._state = state
            gate = _PreflightGate(self, tables, concurrent=self.concurrent_preflight())
            try:
                gate.start()
                self.load_data(tables, state)
            except BaseException as e:
                if gate.wait_failed(e):  # the loads stopped because the pre-flight found problems: say those
                    raise gate.error() from None
                raise
            gate.join()
            if gate.failed:
                raise gate.error()
        if not self.opts.data_only and plan is not None:
            self.start_phase("post-data", "post-data DDL")
            post = self._post_statements(plan, tables)
            try:
                self._run_ddl(self.engine.load_merge_indexes(post), state, parallel=True)  # MySQL: one ALTER per table
            except ApplyError as e:
                loaded = sum(1 for tp in tables if not tp.skipped and not tp.ddl_only)
                raise ApplyError(
                    f"{e.message} (post-data stopped: the {loaded} table(s) and their rows stay, with the indexes, "
                    "keys and other post-data objects made before it; the journal keeps the import)",
                    statement=e.statement,
                    obj=e.obj,
                    table=e.table,
                    pointer=e.pointer,
                    hint=e.hint or "fix the cause and run the same import again with --resume to finish the post-data",
                ) from None
            if plan.privileges:
                self.apply_privileges(plan.privileges)
        self.report.rejected = self.rejected
        if self.rejected:
            self.report.rejects_dir = str(local_state_dir(self.dir) / REJECTS_DIR)
        if self.opts.verify and not self.opts.schema_only:
            checked = [t for t in tables if not t.skipped and not t.ddl_only]
            rows = [t.rows for t in checked]
            self.start_phase(
                "verify", "verify", tables=len(checked), rows=None if None in rows else sum(r or 0 for r in rows)
            )
            early = self.early_checks(checked)
            for check in early.values():
                self.emit(TableVerified(check.table, check.rows, check.problem()))
            report = verify_tables(
                self.engine,
                self.conn,
                [t for t in checked if t.display not in early],
                lambda jobs: self.run_parallel(jobs, self.opts.threads),
                rejected=self._rejected_by_table,
                on_event=self.on_event,
                open_file=self.scan_file if self.streams else None,
                pool=self.procs,
                target=self.target,
                threads=self.opts.threads,
            )
            if early:
                rest = {t.table: t for t in report.tables}
                report.tables = [early.get(t.display) or rest[t.display] for t in checked]
            self.report.verify = report
        self.end_phase()
        self.report.seconds = time.monotonic() - start  # every phase, verify included
        self.phase = "done"
        return self.report

    def _python_work(self, loading: list[TablePlan]) -> bool:
        """Whether the worker processes may have work: the verify (its parts), or a table whose
        lines the C block encoder may not convert (:meth:`_encoder_pool`: the others are encoded in
        their loading threads). The value rules are the plan's here, a superset of the final ones."""
        if self.opts.verify or speedups.load("_cimport") is None:
            return True
        return any(c_block_plan(self.engine, tp, self.opts.zero_dates) is None for tp in loading if not tp.skipped)

    def early_checks(self, checked: list[TablePlan]) -> dict[str, TableCheck]:
        """The checks made during the data phase that still hold (``self.verified``): the verify
        phase reports them and checks the other tables."""
        return {t.display: self.verified[t.display] for t in checked if t.display in self.verified}

    def rehearse(self, db: m.Database, mtables: list[ManifestTable]) -> ImportReport:
        """A dry run of :meth:`run`: the same plan, decisions, DDL, pre-flight and units, reported in
        ``report.dry_run`` (:class:`~.report.DryRun`) and ``report.findings``/``translation``, with
        nothing written anywhere (no journal, no DDL, no rows; the connections are read-only)."""
        start = time.monotonic()
        dry = self.report.dry_run = DryRun()
        planned = self.plan(db, mtables)
        plan, tables = planned.ddl, planned.tables
        if plan is not None:
            self.report.translation = [str(i) for i in plan.report.items]
        conn = self.conn()
        existing = self.engine.load_existing_tables(conn, {t.tschema for t in tables})
        rows_word = "" if self.opts.schema_only else " and loaded"
        for tp in tables:
            name = qualified(tp)
            self.report.tables[tp.display] = TableResult(tp.display, name)
            there = (tp.tschema, tp.tname) in existing
            if self.opts.data_only:
                dry.actions[tp.display] = f"rows loaded into the existing {name}"
                if not there:
                    dry.errors.append(UsageError(f"--data-only: table {name} does not exist in the target"))
            elif not there:
                dry.actions[tp.display] = f"created{rows_word}"
            elif self.opts.if_exists == "fail":
                dry.actions[tp.display] = "exists: the import stops (--if-exists fail)"
                dry.errors.append(
                    UsageError(
                        f"table {name} already exists in the target",
                        hint="use --if-exists skip|truncate|replace, --data-only, or --resume",
                    )
                )
            elif self.opts.if_exists == "skip":
                tp.skipped = True
                dry.actions[tp.display] = "exists: left as it is (--if-exists skip)"
            elif self.opts.if_exists == "truncate":
                tp.kept = True
                dry.actions[tp.display] = f"exists: emptied{rows_word} (--if-exists truncate)"
            else:
                existing.discard((tp.tschema, tp.tname))
                dry.actions[tp.display] = f"exists: dropped and created again{rows_word} (--if-exists replace)"
        script = self.engine.ddl_script_statement
        if not self.opts.data_only and plan is not None:
            dry.pre_data = [script(st) for st in self._pre_statements(plan, tables, existing)]
        if not self.opts.schema_only:
            self.start_phase("pre-flight")
            findings = preflight(
                self.engine,
                conn,
                tables,
                zero_dates=self.opts.zero_dates,
                nul=self.opts.nul or "error",
                open_file=self.preflight_file if self.streams else None,
            )
            self.report.findings = findings
            for f in findings:
                self.emit(PreflightFinding(str(f), f.table, f.column, f.severity))
            dry.errors += [
                DataError(f"pre-flight: {f}", table=f.table, column=f.column) for f in findings if f.severity == "error"
            ]
            for tp in tables:
                if tp.skipped:
                    continue
                for df in tp.files:
                    if not self.streams and not df.path.is_file():
                        dry.errors.append(
                            DataError(
                                "data file listed in the manifest is missing", file=str(df.path), table=tp.display
                            )
                        )
                    dry.units.append({"table": tp.display, "file": df.rel, "rows": df.rows, "bytes": df.bytes})
        if not self.opts.data_only and plan is not None:
            post = self.engine.load_merge_indexes(self._post_statements(plan, tables))
            dry.post_data = [script(st) for st in post]
        self.report.seconds = time.monotonic() - start
        self.phase = "done"
        return self.report

    def plan(self, db: m.Database, mtables: list[ManifestTable]) -> ImportPlan:
        """The DDL plan and the tables of this run (see :func:`.plan.plan_import`)."""
        planned = plan_import(
            db,
            mtables,
            self.engine,
            self.opts,
            manifest_file=str(self.dir / "manifest.json"),
            warn=lambda message: self.emit(Warning(message)),
        )
        self._ddl_plan = planned.ddl
        return planned

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
        self,
        tables: list[TablePlan],
        existing: set[tuple[str | None, str]],
        done: Mapping[str, Any],
        begun: Collection[str] = (),
    ) -> None:
        """Apply --if-exists to target tables that are already there (not on a resumed run: a step
        begun, even one whose end was never journaled, may have created them)."""
        resuming = any(k.startswith(("ddl:", "data:")) for k in (*done, *begun))
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
                self.retrying(f"--if-exists replace: dropping {qualified(tp)}", self._drop_job(tp), tp)
                existing.discard((tp.tschema, tp.tname))
        kept_plans = [tp for tp in tables if tp.kept]
        if kept_plans:  # together: a table referenced by another one emptied here may be emptied with it
            kept = [(tp.tschema, tp.tname) for tp in kept_plans]
            self.retrying(
                "--if-exists truncate: emptying " + ", ".join(qualified(tp) for tp in kept_plans),
                lambda c: self.engine.load_truncate_tables(c, kept),
                kept_plans[0],
            )

    def _pre_statements(self, plan: Any, tables: list[TablePlan], existing: set[tuple[str | None, str]]) -> list[Any]:
        """Pre-data statements of this run (see :func:`pre_data_statements`), with ``--if-exists``'s."""
        out = pre_data_statements(plan, tables, existing, self.engine)
        if self.opts.if_exists == "replace":
            return replace_drops(self.engine, plan, out, tables, self.opts) + out
        if self.opts.if_exists in ("skip", "truncate"):  # the kept tables use the types already there
            self._exists_ok.update(st for st in out if st.kind in SHARED_KINDS)
        return out

    def _post_statements(self, plan: Any, tables: list[TablePlan]) -> list[Any]:
        """Post-data statements of this run (see :func:`post_data_statements`), computed once: the
        early ones (:meth:`_post_data_now`) are journaled under their place in this list, which the
        post-data phase then skips."""
        if self._post_cache is None:
            out = post_data_statements(plan, tables, self.engine, self.opts)
            if self.opts.if_exists in ("skip", "truncate"):  # views over kept tables stay as they are
                self._exists_ok.update(st for st in out if st.kind == "view")
            self._post_cache = out
        return self._post_cache

    def _early_post_data(self, tables: list[TablePlan]) -> dict[str, list[tuple[str, Any]]]:
        """table → the post-data statements about it alone (its deferred primary key, indexes,
        unique and check constraints) with their journal steps: they run as soon as the table's last
        unit commits (:meth:`_post_data_now`), while other tables still load (the index builds of
        one table overlap the loads of the others, as ``pg_restore -j`` does). A foreign key runs
        once both its tables are loaded and keyed (``_early_fks``); views and the rest stay in the
        post-data phase; nothing runs early into a partitioned tree, on a target with a single
        writer, or without post-data."""
        if (
            self.opts.data_only
            or self.opts.schema_only
            or self._ddl_plan is None
            or not self.engine.capabilities.parallel_writers
            or any(tp.table.partition_of or tp.table.partitioning for tp in tables)
        ):
            return {}
        post = self.engine.load_merge_indexes(self._post_statements(self._ddl_plan, tables))
        out: dict[str, list[tuple[str, Any]]] = {}
        loading = [tp for tp in tables if not tp.skipped and not tp.ddl_only]
        for i, st in enumerate(post):
            if st.kind not in EARLY_KINDS and st.kind != "foreign_key":
                continue
            tp = self._table_of(st)
            if tp is None or tp.skipped or tp.ddl_only:
                continue
            # the step _run_ddl gives the statement in the post-data phase (same list, same place)
            step = ddl_step("post", i, st)
            if st.kind != "foreign_key":
                out.setdefault(tp.display, []).append((step, st))
                continue
            # a foreign key waits for both its tables (it locks the referenced one too, and checks
            # every row against it): the referenced table named in the statement, when only one fits
            parents = [p for p in loading if f" REFERENCES {self.engine.qualify(p.tschema, p.tname)} (" in st.sql]
            if len(parents) == 1:
                self._early_fks.append((step, st, tp.display, parents[0].display))
        return out

    def _post_data_now(self, tp: TablePlan) -> None:
        """Run ``tp``'s early post-data statements now that its rows are all committed, journaled as
        the post-data phase journals them (that phase then skips them). A statement that fails is
        left to the post-data phase, which runs it again and reports it, with those after it.

        Where the engine builds a table's indexes at once (``capabilities.parallel_index_builds``)
        the primary key comes first (it locks the table), then its index builds go to every free
        loading thread (:meth:`~.session.TargetSession.push_jobs`, ahead of the units still queued,
        as ``pg_restore -j`` spreads them), and the last build to finish makes the rest (unique and
        check constraints) and the foreign keys that were waiting; elsewhere this thread makes them
        all, one after another."""
        with self._lock:
            mine = self._early.pop(tp.display, [])
        builds = [x for x in mine if x[1].kind == "index"] if self.engine.capabilities.parallel_index_builds else []
        if len(builds) < 2:
            self._run_early_all(tp, mine)
            return
        first = [x for x in mine if x[1].kind == "primary_key"]
        rest = [x for x in mine if x not in first and x not in builds]
        if not self._run_early_all(None, first):
            return
        left = [len(builds)]
        failed = [False]

        def build(step: str, st: Any) -> Callable[[], None]:
            def go() -> None:
                ok = self._run_early(step, st)
                with self._lock:
                    failed[0] = failed[0] or not ok
                    left[0] -= 1
                    last = left[0] == 0 and not failed[0]
                if last:
                    self._run_early_all(tp, rest)

            return go

        self.push_jobs([build(step, st) for step, st in builds])

    def _run_early_all(self, tp: TablePlan | None, statements: list[tuple[str, Any]]) -> bool:
        """``statements`` run in order (:meth:`_run_early`), up to the first that fails (False);
        then, with ``tp``, the table is keyed: its foreign keys, and those that reference it, whose
        other table is keyed too, are made."""
        for step, st in statements:
            if not self._run_early(step, st):
                return False
        if tp is None:
            return True
        with self._lock:
            self._verifiable.append(tp)  # (verified while others load when load_data gives an idle job)
            self._ready.add(tp.display)
            now = [fk for fk in self._early_fks if fk[2] in self._ready and fk[3] in self._ready]
            self._early_fks = [fk for fk in self._early_fks if fk not in now]
        for step, st, _child, _parent in now:
            self._run_early(step, st)
        return True

    def _run_early(self, step: str, st: Any) -> bool:
        """One post-data statement run now, journaled as the post-data phase would; False when it
        was not run (cancelled) or failed (the post-data phase runs it again and reports it)."""
        assert self.journal is not None
        state = self._state
        if self.cancel.is_set() or state is None:
            return False
        if step in state.done:
            return True
        self.journal.begin(step)
        try:
            self._apply_statement(st, tolerate_exists=step in state.begun or st in self._exists_ok)
        except Cancelled:
            raise
        except Exception as e:  # noqa: BLE001 - reported by the post-data phase, which runs it again
            log.debug("import: %s left to the post-data phase: %s", st.object, e)
            return False
        self.journal.done(step)
        state.done[step] = {}
        return True

    # -- DDL ------------------------------------------------------------------------------------
    def apply_privileges(self, statements: list[Any]) -> None:
        """Roles, memberships and grants (see :func:`dbjson.schemaload.apply_privileges`); what was
        skipped is a warning and a line of the report's translation, never an error."""
        from ..schemaload import apply_privileges  # (start-up time, as plan_ddl)

        for note in apply_privileges(self.conn(), self.engine, statements):
            self.report.translation.append(note)
            self.emit(Warning(note))

    def _run_ddl(self, statements: list[Any], state: Any, *, parallel: bool) -> None:
        assert self.journal is not None
        journal = self.journal

        def job(i: int, st: Any) -> Callable[[], None]:
            step = ddl_step("post" if parallel else "pre", i, st)

            def go() -> None:
                if step in state.done:
                    # A resumed run checks that what the journal says was created exists: applied
                    # again, the statement fails at once with "already exists" when it does (a
                    # crash of the server may have lost a commit it had acknowledged).
                    if self.opts.resume and st.kind in RECHECKED_KINDS:
                        self._apply_statement(st, tolerate_exists=True)
                    return
                journal.begin(step)
                self._apply_statement(st, tolerate_exists=step in state.begun or st in self._exists_ok)
                journal.done(step)

            return go

        jobs = [job(i, st) for i, st in enumerate(statements)]
        if not parallel:
            ran: list[tuple[str, Any]] = []  # (journal step, statement) this run executed
            try:
                for i, (st, fn) in enumerate(zip(statements, jobs)):
                    if self.cancel.is_set():
                        raise Cancelled("import cancelled")
                    step = ddl_step("pre", i, st)
                    fresh = step not in state.done
                    fn()
                    if fresh:
                        ran.append((step, st))
            except ApplyError as e:
                raise self._undo_pre_data(e, ran) from None
            return
        # Primary keys added after the data (load_defer_primary_key) first, then indexes (and other
        # per-table statements) in parallel, foreign keys after them (they need the referenced
        # keys), the rest (views, triggers, routines, counter restarts) in plan order.
        # Statements on one partition tree (a partitioned table and its partitions) run in order, in
        # one job: PostgreSQL's CREATE INDEX on a partitioned table creates (or attaches) an index on
        # every partition, and one made beside it on a partition races it in pg_class.
        pks = self._serial_per_tree([(st, fn) for st, fn in zip(statements, jobs) if st.kind == "primary_key"])
        first = self._serial_per_tree(
            [(st, fn) for st, fn in zip(statements, jobs) if st.kind in ("index", "unique", "check")]
        )
        fks = self._serial_per_tree([(st, fn) for st, fn in zip(statements, jobs) if st.kind == "foreign_key"])
        rest = [
            fn
            for st, fn in zip(statements, jobs)
            if st.kind not in ("index", "unique", "primary_key", "check", "foreign_key")
        ]
        # one writer where the engine has one (SQLite: a second connection's CREATE INDEX makes the
        # other's statement fail with "database schema has changed")
        threads = self.opts.threads if self.engine.capabilities.parallel_writers else 1
        self.run_parallel(pks, threads)
        self.run_parallel(first, threads)
        self.run_parallel(fks, min(2, threads))
        for fn in rest:
            fn()

    def _serial_per_tree(self, pairs: list[tuple[Any, Callable[[], None]]]) -> list[tuple[int, Callable[[], None]]]:
        """Jobs for ``run_parallel``: one per statement, except that the statements on the tables of
        one partition tree become one job that runs them in plan order."""
        if not any(tp.table.partition_of or tp.table.partitioning for tp in self._tables):
            return [(0, fn) for _st, fn in pairs]
        parent = {(tp.schema, tp.name): tp.table.partition_of for tp in self._tables}
        # a statement's table by its quoted name (as ``_table_of``, the first table of a name wins),
        # looked up once per statement instead of a scan of every table
        by_name = {name: tp for tp in reversed(self._tables) for name in _names(self.engine, [tp])}

        def root(tp: TablePlan) -> tuple[str, str] | None:
            key: tuple[str, str] = (tp.schema, tp.name)
            if not tp.table.partition_of and not tp.table.partitioning:
                return None
            for _ in range(len(parent) + 1):  # partition_of is "name" or "schema.name"
                up = parent.get(key)
                if not up:
                    break
                sch, _dot, nm = up.rpartition(".")
                nxt = (sch or key[0], nm)
                if nxt not in parent:
                    return nxt
                key = nxt
            return key

        out: list[tuple[int, Callable[[], None]]] = []
        trees: dict[tuple[str, str], list[Callable[[], None]]] = {}
        for st, fn in pairs:
            tp = by_name.get(st.table) if getattr(st, "table", None) else None
            key = root(tp) if tp is not None else None
            if key is None:
                out.append((0, fn))
            else:
                trees.setdefault(key, []).append(fn)
        for fns in trees.values():
            out.append((len(fns), _in_order(fns)))
        return out

    def _apply_statement(self, st: Any, *, tolerate_exists: bool) -> None:
        budget = RetryBudget(self.opts.retry_budget)
        try:
            while True:
                conn = self.conn()
                self.active[threading.get_ident()] = conn
                try:
                    self.engine.load_execute_ddl(conn, st.sql)
                    return
                except Exception as e:  # noqa: BLE001 - classified below
                    kind = self.engine.load_error_kind(e)
                    if self.cancel.is_set():
                        raise Cancelled("import cancelled") from None
                    if tolerate_exists and kind == "exists":
                        return
                    if kind in ("retry", "disconnect"):
                        if kind == "disconnect":
                            self.drop_conn()
                        else:
                            self._rollback(conn)
                        tp = self._table_of(st)
                        self.pause_or_give_up(
                            budget, f"{st.kind} {st.object}", e, table=tp, holders=self.lock_holders(tp, e)
                        )
                        continue
                    if kind == "resource":
                        raise self._resource_error(e, self._table_of(st)) from None
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

    def _undo_pre_data(self, e: ApplyError, ran: list[tuple[str, Any]]) -> ApplyError:
        """A pre-data statement failed (no row loaded yet): drop what this run's pre-data created
        (the engine's ``ddl_undo_statements``), forget those journal steps, and say so in the
        error; what cannot be dropped is named."""
        assert self.journal is not None
        made = [st for _, st in ran if st.kind != "drop"]
        failed: list[str] = []
        conn = self.conn()
        for st in self.engine.ddl_undo_statements(made):
            try:
                self.engine.load_execute_ddl(conn, st.sql)
            except Exception as x:  # noqa: BLE001 - reported: what stays
                failed.append(f"{st.object} ({first_line(x)})")
        for step, _ in ran:
            self.journal.undo(step)
        if not made:
            done = "nothing was created"
        elif failed:
            done = f"undone as far as possible; these could not be dropped and stay: {', '.join(failed)}"
        else:
            done = f"undone: the objects the {len(made)} statement(s) before it created were dropped"
        if any(st.kind == "drop" for _, st in ran):
            done += "; the tables --if-exists replace dropped stay dropped"
        return ApplyError(
            f"{e.message} ({done})", statement=e.statement, obj=e.obj, table=e.table, hint=e.hint, pointer=e.pointer
        )

    def _drop_job(self, tp: TablePlan) -> Callable[[Any], None]:
        return lambda c: self.engine.load_drop(c, tp.tschema, tp.tname)

    def _truncate_job(self, tp: TablePlan) -> Callable[[Any], None]:
        return lambda c: self.engine.load_truncate(c, tp.tschema, tp.tname)

    def _count(self, tp: TablePlan) -> int:
        """The target table's row count (retried: a lock or a lost connection may be in the way)."""
        return int(
            self.retrying(
                f"counting the rows of {qualified(tp)}", lambda c: self.engine.load_count(c, tp.tschema, tp.tname), tp
            )
        )

    def _table_of(self, st: Any) -> TablePlan | None:
        """The table of this run a DDL statement is about (None: none of them)."""
        if not getattr(st, "table", None):
            return None
        for tp in self._tables:
            if st.table in _names(self.engine, [tp]):  # compared as quoted text (see plan._names)
                return tp
        return None

    def _resource_error(self, e: BaseException, tp: TablePlan | None) -> DataError:
        """The target server ran out of something (disk space, memory): the server's words and the
        table it was writing, not a data file's line (no row is at fault)."""
        where = f" while writing {qualified(tp)}" if tp is not None else ""
        return DataError(
            f"the target server is out of resources{where}: {first_line(e)}",
            table=tp.display if tp is not None else None,
            fatal=True,
            hint="free space (or memory) on the target server, then run the same command again with --resume",
        )

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
        if self.opts.resume:
            self._recheck_done(units, state)
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
        todo_rows = [u.file.rows for u in todo]
        self.start_phase(
            "data",
            f"loading {len(todo)} unit(s) with up to {self.opts.threads} thread(s)",
            units=len(todo),
            bytes=sum(u.size for u in todo),
            resumed=len(units) - len(todo),
            rows=None if None in todo_rows else sum(r or 0 for r in todo_rows),
        )
        for tp in tables:  # one progress bar per table with rows to load
            left = [u for u in todo if u.table is tp]
            if left:
                rows = [u.file.rows for u in left]
                self.emit(TableStarted(tp.display, len(left), None if None in rows else sum(r or 0 for r in rows)))
        self._state = state
        self._early_fks, self._ready = [], set()
        self._early = self._early_post_data(tables)
        threads, self.extra_threads = self.load_widths()
        idle = self._idle_job if self.verify_while_loading and self.opts.verify and threads > 1 else None
        self._verifiable, self._verify_pieces = [], deque()
        try:
            for wave in foreign_key_waves(self.engine, todo):
                self.run_parallel([self._unit_job(u) for u in wave], threads, idle)
        finally:
            self.extra_threads = 0
        for _round in range(MAX_ATTEMPTS):
            if not self._in_doubt:
                break
            self.run_parallel([self._unit_job(u) for u in self._settle_in_doubt(units)], threads, idle)
        self.run_parallel([], threads, idle)  # index builds handed over by a table settled above (push_jobs)
        if self._in_doubt:
            raise DataError(
                "the connection kept failing while units were committing", hint="run the import again with --resume"
            )

    def load_widths(self) -> tuple[int, int]:
        """The data phase's threads, and how many more units may load while others are parked.

        While units wait for a concurrent pre-flight to allow their commit, more may load, each on
        a connection of its own (``parked``): up to three per thread, at most 8 more connections."""
        parallel = self.engine.capabilities.parallel_writers
        threads = self.opts.threads if parallel else 1
        return threads, (min(3 * threads, 8) if self._gate is not None and parallel else 0)

    def _idle_job(self) -> Callable[[], None] | None:
        """For a loading thread that has no unit left to start: a key range of a table being
        verified, else the largest table keyed and not yet verified (its rows are final: what is
        left of the post-data adds objects, not rows), else nothing. The verify phase reports these
        checks and checks the other tables (:meth:`early_checks`)."""
        with self._lock:
            if self._verify_pieces:
                return self._verify_pieces.popleft()
            if not self._verifiable:
                return None
            tp = max(self._verifiable, key=lambda t: sum(f.bytes or 0 for f in t.files))
            self._verifiable.remove(tp)

        def plan() -> None:
            try:
                ranges = key_ranges(self.engine, self.conn(), tp, self.opts.threads)
            except Exception:  # noqa: BLE001 - the verify phase checks the table and reports
                log.debug("import: %s left to the verify phase", tp.display, exc_info=True)
                return
            if ranges is None or tp.value_rules:
                self._verify_whole(tp)
                return
            sums: list[Any] = [None] * len(ranges)
            left = [len(ranges)]

            def piece(i: int, bounds: Any) -> Callable[[], None]:
                def go() -> None:
                    sums[i] = range_sum(self.engine, self.target, tp, bounds)
                    with self._lock:
                        left[0] -= 1
                        if left[0]:
                            return
                    check = ranged_check(tp, sums, tp.checksum)
                    if check is not None:
                        with self._lock:
                            self.verified[tp.display] = check

                return go

            with self._lock:
                self._verify_pieces.extend(piece(i, b) for i, b in enumerate(ranges))

        return plan

    def _verify_whole(self, tp: TablePlan) -> None:
        """``tp`` verified as the verify phase would on one thread; kept when it holds."""
        try:
            report = verify_tables(
                self.engine,
                self.conn,
                [tp],
                _run_in_order,
                target=self.target,
                threads=1,
            )
        except Exception:  # noqa: BLE001 - the verify phase checks the table again and reports
            log.debug("import: %s left to the verify phase", tp.display, exc_info=True)
            return
        check = report.tables[0]
        if check.ok:
            with self._lock:
                self.verified[tp.display] = check

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
                rows = self._count(tp)
                self.journal.done(step, rows=rows)
                state.done[step] = {"rows": rows}
            tp.base_rows = int(state.done[step].get("rows", 0))

    def _recheck_done(self, units: list[LoadUnit], state: Any) -> None:
        """On --resume: each table's row count against what the journal says its finished units
        loaded. Fewer rows mean that the server lost commits it had acknowledged (a crash of a
        server that does not flush every commit: MySQL's innodb_flush_log_at_trx_commit = 0 or 2,
        PostgreSQL with fsync = off): the table is emptied and loaded again (it had no rows before the
        import), or the import stops with a clear error (it had)."""
        assert self.journal is not None
        by_table: dict[int, list[LoadUnit]] = {}
        for u in units:
            by_table.setdefault(id(u.table), []).append(u)
        for mine in by_table.values():
            tp = mine[0].table
            done = [u for u in mine if u.step in state.done]
            if not done:
                continue
            base = int(state.done.get("base:" + tp.display, {}).get("rows", 0))
            want = base + sum(int(state.done[u.step].get("rows", 0)) for u in done)
            actual = self._count(tp)
            if actual >= want:
                continue
            if base:
                raise DataError(
                    f"--resume: {qualified(tp)} has {actual} rows, the journal says {want} were committed: "
                    "the server lost committed rows (a crash of a server that does not flush every commit?)",
                    table=tp.display,
                    hint="empty the table and import it again without --resume",
                )
            self.emit(
                Warning(
                    f"{qualified(tp)}: {actual} rows in the target, the journal says {want} were committed "
                    "(the server lost acknowledged commits in a crash); loading the table again",
                    tp.display,
                )
            )
            self.retrying(f"emptying {qualified(tp)} to load it again", self._truncate_job(tp), tp)
            for u in done:
                self.journal.undo(u.step)
                del state.done[u.step]

    def _await_sessions(self, sessions: list[str], timeout: float = SESSION_WAIT) -> None:
        """Wait until the server sessions that were committing units in doubt are done: a COMMIT
        sent just before the import died may still be running, and counting rows before it ends
        would decide wrongly that the unit rolled back (its rows would then be loaded twice)."""
        if not sessions:
            return
        deadline = time.monotonic() + timeout
        while True:
            busy = self.retrying(
                "waiting for the interrupted run's commits", lambda c: self.engine.load_sessions_busy(c, sessions), None
            )
            if not busy:
                return
            if time.monotonic() > deadline:
                raise DataError(
                    f"--resume: the server session(s) {', '.join(busy)} of the interrupted run are still "
                    f"busy after {timeout:.0f} s; whether their units committed cannot be decided yet",
                    hint="wait until those sessions end (or end them on the server), then resume again",
                )
            if self.cancel.wait(0.05):
                raise Cancelled("import cancelled")

    def _resolve_ambiguous(self, units: list[LoadUnit], state: Any) -> None:
        """Decide, from the target's row counts, whether begun-but-unrecorded units committed."""
        assert self.journal is not None
        amb = [u for u in units if u.step in state.ambiguous]
        by_table: dict[str, list[LoadUnit]] = {}
        for u in amb:
            by_table.setdefault(u.table.display, []).append(u)
        if by_table:
            self._await_sessions([state.sessions[u.step] for u in amb if u.step in state.sessions])
        for _name, us in by_table.items():
            tp = us[0].table
            mine = [u for u in units if u.table is tp]
            base = int(state.done.get("base:" + tp.display, {}).get("rows", 0))
            done_rows = base + sum(int(state.done[u.step].get("rows", 0)) for u in mine if u.step in state.done)
            actual = self._count(tp)
            if actual == done_rows:
                continue  # every ambiguous unit was rolled back
            committed = _committed_subset(us, actual - done_rows)
            if committed is not None:
                for u in committed:
                    self.journal.done(u.step, rows=u.file.rows, rejected=0, resolved=True)
                    state.done[u.step] = {"rows": u.file.rows}
                continue
            if base:
                raise DataError(
                    f"--resume cannot tell which rows of {qualified(tp)} were committed before the crash "
                    f"(it had {base} rows before the import, {actual} now)",
                    table=tp.display,
                    hint="empty the table and import it again without --resume",
                )
            # Cannot tell which units committed: empty the table and load all of it again.
            self.retrying(f"emptying {qualified(tp)} to load it again", self._truncate_job(tp), tp)
            for u in mine:
                if u.step in state.done:
                    self.journal.undo(u.step)
                    del state.done[u.step]

    def _await_preflight(self, tp: TablePlan | None) -> None:
        """Wait until ``tp``'s pre-flight is done (None: the whole pre-flight); Cancelled when it
        found problems (the run then raises the pre-flight's error) or the run is cancelled."""
        gate = self._gate
        if gate is None:
            return
        ev = gate.done if tp is None else gate.cleared.get(tp.display, gate.done)
        # a unit loaded and waiting to commit uses no CPU: meanwhile another thread loads the next
        # unit (``parked``; its own connection), up to ``extra_threads`` more (see load_data)
        # (a unit waiting for its table's pre-flight keeps its place: waiting_for_gate)
        if ev.is_set():
            waiting: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
        else:
            waiting = self.parked() if tp is None else self.waiting_for_gate()
        with waiting:
            while not ev.wait(0.1):
                if self.cancel.is_set():
                    raise Cancelled("import cancelled")
        if gate.failed:
            raise Cancelled("import cancelled: the pre-flight found problems")

    def _starts_early(self, tp: TablePlan) -> bool:
        """Whether a unit of ``tp`` starts before its table's pre-flight is done (see
        :meth:`_load_unit`); when the table may not (:meth:`may_start_early`), wait for it."""
        gate = self._gate
        ev = gate.cleared.get(tp.display) if gate is not None else None
        if ev is None or ev.is_set():
            if gate is not None and gate.failed:
                raise Cancelled("import cancelled: the pre-flight found problems")
            return False
        if self.may_start_early(tp):
            return True
        self._await_preflight(tp)
        return False

    def _changed_rules(self, tp: TablePlan, rules: dict[str, str]) -> bool:
        """A unit begun before ``tp``'s pre-flight failed: wait for the table's final value rules;
        whether they differ from ``rules``, those it loaded on (then it loads again: the failure
        may be a value they change)."""
        self._await_preflight(tp)
        return tp.value_rules != rules

    def may_start_early(self, tp: TablePlan) -> bool:
        """Whether ``tp``'s units may start before its pre-flight is done (``dbjson.migrate``: not
        when its rows may move in the native row format, which its value rules decide)."""
        return True

    def preflight_starting(self, tables: list[TablePlan]) -> None:
        """A concurrent pre-flight of ``tables`` is about to start (``_gate`` is set; ``dbjson.migrate``
        prepares the units' streams to stand in for its reads)."""

    def preflight_late(self, tp: TablePlan) -> bool:
        """Whether a concurrent pre-flight checks ``tp`` after the tables it reads itself (``dbjson.migrate``:
        a table whose lines the loads' streams keep for it, which it can only wait for)."""
        return False

    def _unit_job(self, unit: LoadUnit) -> Job:
        """``unit``'s job for the pool. Where a unit's uncommitted rows lock its table
        (``unit_locks_table``: MariaDB's bulk insert into an empty table), the table's other units
        wait until one has committed (then the table is not empty and they load side by side): a
        second one would hold a thread and a connection waiting for the lock, and fail once the
        wait outlasted the lock timeout (a long first unit, or one waiting for the pre-flight
        before it commits). Meanwhile the thread loads another table's unit."""
        tp = unit.table
        key = tp.display if self.engine.capabilities.unit_locks_table and not tp.base_rows else None
        return Job(unit.size, self.unit_job(unit), key)

    def unit_job(self, unit: LoadUnit) -> Callable[[], None]:
        """The job that loads ``unit`` on one of the import's threads (the unit-runner seam:
        :class:`dbjson.cluster.ClusterImporter` sends the unit to a task instead)."""
        return lambda: self._load_unit(unit)

    def _load_unit(self, unit: LoadUnit) -> None:
        tp = unit.table
        careful = False
        budget = RetryBudget(self.opts.retry_budget)
        while True:
            if self.cancel.is_set():
                raise Cancelled("import cancelled")
            # Before its table's pre-flight is done, a unit loads on the value rules the pre-flight
            # leaves when it finds nothing; it commits only if they are the final ones (else it
            # loads again on those), and a failure waits for them before it counts.
            early = self._starts_early(tp)
            rules = tp.value_rules
            conn = self.conn()  # (retries a failing connection within its own budget)
            self.active[threading.get_ident()] = conn
            progress = lambda rows: self.emit(UnitProgress(tp.display, unit.file.rel, rows))  # noqa: E731
            native = None if careful else self.native_blocks(unit)
            reader: UnitReader | NativeReader
            if native is not None:
                reader = NativeReader(
                    unit, native[0], native[1], self.cancel, progress=progress, limit=self.opts.max_rate
                )
            else:
                reader = UnitReader(
                    unit,
                    self.engine,
                    self.opts.zero_dates,
                    self.open_file,
                    self.cancel,
                    streams=self.streams,
                    progress=progress,
                    limit=self.opts.max_rate,
                    expected=self._expected_lines(tp),
                )
            committed = False
            try:
                pending: list[tuple[int, bytes, DataError]] = []
                if isinstance(reader, NativeReader):
                    self.engine.load_begin(conn)
                    loaded = self.engine.load_native_unit(conn, tp, reader.blocks())
                    rejected = 0
                elif careful:
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
                self._await_preflight(None)  # no unit commits before the whole pre-flight is clean
                if early and tp.value_rules != rules:  # loaded on rules the pre-flight changed: again
                    self._rollback(conn)
                    continue
                assert self.journal is not None
                extra: dict[str, Any] = {}
                if isinstance(reader, NativeReader):
                    extra["checksum_kind"] = reader.kind
                elif reader.expected_sum is not None:  # under the value rules it was summed with
                    extra = {"expected": reader.expected_sum.hexdigest(), "expected_rules": dict(tp.value_rules)}
                # One unit at a time between 'begin' and 'done': a crash leaves at most one unit in
                # doubt, which the row counts decide (two in doubt could not be told apart).
                with self._commit_lock:
                    self.journal.begin(unit.step, self.engine.load_session(conn))
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
                    self.journal.done(
                        unit.step, rows=loaded, rejected=rejected, checksum=reader.checksum.hexdigest(), **extra
                    )
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
                if early and self._changed_rules(tp, rules):
                    continue
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
                if early and self._changed_rules(tp, rules):
                    continue
                kind = self.engine.load_error_kind(e)
                if kind in ("retry", "disconnect"):
                    if kind == "disconnect":
                        self.drop_conn()
                    holders = self.lock_holders(tp, e)
                    self.pause_or_give_up(
                        budget,
                        f"{unit.file.rel} into {qualified(tp)}",
                        e,
                        table=tp,
                        file=unit.file.rel,
                        holders=holders,
                    )
                    continue
                if kind == "resource":
                    raise self._resource_error(e, tp) from None
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

    def _expected_lines(self, tp: TablePlan) -> Any:
        """For a streamed load that verifies: verify's expected-line function of ``tp`` (the lines
        are summed as verify would sum them while they load, so verify does not read them again),
        or None (files on disk are re-read cheaply; lines compared as they are need no sum: a
        same-engine load without value rules, whose target exports the very same lines)."""
        if not self.streams or not self.opts.verify:
            return None
        if not tp.value_rules and all(c.native.engine == self.engine.name for c, _n, _t in tp.verify_columns):
            return None
        return expected_lines(tp, self.engine.capabilities.decimals_as_float)

    def _encoder_pool(self, conn: Any, tp: TablePlan) -> Any:
        """Where this unit's blocks are converted: the process pool (see :meth:`start_encoders`),
        inline in this thread, or None (row by row through ``engine.load_unit``)."""
        if tp.increments or self.engine.capabilities.bulk_text is None or not self.engine.load_can_encode(conn, tp):
            return None
        if self.procs is None:
            return INLINE
        # A table whose lines the C block encoder converts (``_cimport.jsonl_to_bulk``, which runs
        # without the interpreter lock) is encoded in its loading thread: the process pool would
        # only add a second read of every block, its CRC, and a pipe copy of the encoded text back
        # (with its pickling) to the same C work. The pool keeps the tables that need Python.
        if speedups.load("_cimport") is not None and c_block_plan(self.engine, tp, self.opts.zero_dates) is not None:
            return INLINE
        return self.procs

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
                    if kind in ("retry", "disconnect", "resource"):
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
                state = local_state_dir(self.dir)
                path = rejects_file(state, tp.schema, tp.name)
                refuse_link(path.parent)
                path.parent.mkdir(exist_ok=True)
                fh = self._rejects[tp.display] = open_for_write(path, append=True, directory=state)
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
        self.release_key(unit.table.display)  # (committed: the table's other units may load side by side)
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
            with self._lock:
                clean = not self._rejected_by_table.get(unit.table.display)
            if clean and not rejected and not self.cancel.is_set():
                self._post_data_now(unit.table)  # its keys and indexes, while other tables load


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
    retry_budget: float = DEFAULT_RETRY_BUDGET,
    untrusted: bool = False,
    privileges: bool = True,
    grants: bool = False,
    casts: Sequence[str] = (),
    on_event: EventHandler | None = None,
    importer_hook: Callable[[Importer], None] | None = None,
    dry_run: bool = False,
    max_rate: str | RateLimit | None = None,
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
    ``untrusted``: the export comes from a source not trusted to run code with the importing user's
    rights: no routines, triggers or events are created, views and expressions only with the
    functions of a safe list, materialized views without data (each reported; docs/security.md).
    ``privileges`` applies the document's object privileges whose roles exist in the target (a
    missing role is a warning, as pg_restore's); ``grants`` first creates its users and roles
    (without passwords: MySQL accounts locked); see docs/faq.md. ``casts``: type-mapping rules
    (``"type tinyint to boolean"``, ``"column orders.status to text"``: :mod:`dbjson.casts`).

    ``max_rate`` caps the rows or bytes (of JSON lines) per second of all loaders together
    (``"50000rows"``, ``"20MB"``: :func:`dbjson.ratelimit.parse_rate`). ``dry_run=True`` changes nothing anywhere: the report's ``dry_run`` (:class:`~.report.DryRun`)
    says what would happen to each table, the DDL, the units of rows and what would stop the real
    import; ``findings`` and ``translation`` are the pre-flight's and the translation's.

    ``retry_budget``: seconds a unit, a statement or a reconnection keeps retrying a transient failure
    (a lost connection, a server restarting, a lock held by another session, a deadlock), with
    :class:`~dbjson.events.Retry` events; then :class:`~dbjson.errors.RetriesExhausted`.

    Raises DataError (bad rows, missing/truncated files, pre-flight findings, a target out of disk
    space; RetriesExhausted), ApplyError (DDL), VerifyError (counts/checksums differ), Cancelled,
    ConnectionFailed (the target unreachable at the start), UsageError.
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
        retry_budget=retry_budget,
        untrusted=untrusted,
        max_rate=max_rate if isinstance(max_rate, RateLimit) else parse_rate(max_rate),
        privileges=privileges,
        grants=grants,
        casts=tuple(parse_casts(casts)),
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
    # before connecting: a typo in a filter must not even create the target (an SQLite file)
    check_filters(
        relations(db),
        tables=opts.tables,
        exclude=opts.exclude,
        source=f"the export ({d / 'manifest.json'})",
    )
    target, engine = connect_target(url, read_only=dry_run)
    imp: Importer
    if cluster is not None:
        from ..cluster import ClusterImporter  # lazy: dask is an optional extra

        imp = ClusterImporter(cluster, d, target, engine, opts, on_event)  # d: absolute or a URL
    else:
        imp = Importer(d, target, engine, opts, on_event)
    if importer_hook is not None:
        importer_hook(imp)
    try:
        report = imp.rehearse(db, mtables) if dry_run else imp.run(db, mtables, export_id)
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


class _PreflightGate:
    """The pre-flight of a run's tables (:func:`dbjson.preflight.preflight`), table by table, and
    what it decides: the findings (the report's, and their events, in table order), each table's
    value rules, the error that stops the run.

    Concurrent (:meth:`Importer.concurrent_preflight`): in a thread of its own, in the order the
    tables start loading (largest unit first), while the units load. A unit starts once its
    table's pre-flight is done (its value rules are final: ``cleared``) and commits only once the
    whole pre-flight is done and clean (``done``), so a run whose pre-flight finds a problem
    commits no row, as when the pre-flight ran first; every table is still read, so the error
    names the same problems. Otherwise all of it runs first, in the calling thread."""

    def __init__(self, imp: Importer, tables: list[TablePlan], *, concurrent: bool) -> None:
        self.imp = imp
        self.tables = [tp for tp in tables if not tp.skipped]
        self.concurrent = concurrent and bool(self.tables)
        self.cleared = {tp.display: threading.Event() for tp in self.tables}
        self.done = threading.Event()
        self.failed = False
        self._error: BaseException | None = None
        self._found: dict[str, list[Finding]] = {}
        self._planned: dict[str, dict[str, str]] = {}  # table → its value rules before the pre-flight (concurrent)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Run the pre-flight (concurrent: start it); raise its error when it ran here and failed."""
        if not self.concurrent:
            self._run()
            if self.failed:
                raise self.error()
            return
        # until its pre-flight is done, a table loads on the rules it leaves when it finds nothing
        for tp in self.tables:
            self._planned[tp.display] = tp.value_rules
            tp.value_rules = self._final(tp, [])
        self.imp._gate = self
        self.imp.preflight_starting(self.tables)
        self._thread = threading.Thread(target=self._run, name="dbjson-preflight", daemon=True)
        self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def wait_failed(self, raised: BaseException) -> bool:
        """After the loads raised ``raised``: whether the pre-flight failed (waited for, so that its
        problems are reported rather than what they caused, as when it ran first; not after an
        interrupt)."""
        if self._thread is not None and isinstance(raised, Exception):
            self._thread.join()  # (``done`` is set at the first error found; the other tables are read on)
        return self.failed

    def error(self) -> BaseException:
        """The error the run raises: the pre-flight's own failure, or its findings of severity error."""
        if self._error is not None:
            return self._error
        errors = [f for f in self.imp.report.findings if f.severity == "error"]
        return DataError(
            f"pre-flight: {len(errors)} problem(s) the target cannot hold; first: {errors[0]}",
            table=errors[0].table,
            column=errors[0].column,
            problems=[str(f) for f in errors],
        )

    def _run(self) -> None:
        imp = self.imp
        order = self.tables
        if self.concurrent:  # the order of the units' start (run_parallel: largest first)
            order = sorted(
                order,
                key=lambda tp: (imp.preflight_late(tp), -max((f.bytes or 0 for f in tp.files), default=0)),
            )
        try:
            for tp in order:
                found = preflight(
                    imp.engine,
                    imp.conn(),
                    [tp],
                    zero_dates=imp.opts.zero_dates,
                    nul=imp.opts.nul or "error",
                    open_file=imp.preflight_file if imp.streams else None,
                )
                self._found[tp.display] = found
                if any(f.severity == "error" for f in found):
                    if not self.failed:
                        self.failed = True
                        self._release()  # the loads stop; the other tables are still read (the error names them all)
                    continue
                if not self.failed:
                    self._rules(tp, found)
                    imp.table_cleared(tp)
                    self.cleared[tp.display].set()
            findings = [f for tp in self.tables for f in self._found.get(tp.display, [])]
            imp.report.findings = findings
            for f in findings:
                imp.emit(PreflightFinding(str(f), f.table, f.column, f.severity))
        except BaseException as e:  # noqa: BLE001 - raised by the run (see Importer.run)
            self._error = e
            self.failed = True
        finally:
            try:
                imp.preflight_finished()
            finally:
                self._release()

    def _rules(self, tp: TablePlan, found: list[Finding]) -> None:
        tp.value_rules = self._final(tp, found)

    def _final(self, tp: TablePlan, found: list[Finding]) -> dict[str, str]:
        """``tp``'s value rules after its findings ``found``: a rule no value triggers changes
        nothing (verify by the manifest's checksum; offset-drop changes every value: no finding
        names it); infinite dates found load as NULL (preflight.value_rules)."""
        planned = self._planned.get(tp.display, tp.value_rules)
        cols = {f.column for f in found}
        infinite = {f.column for f in found if str(f.problem).startswith("infinite date")}
        rules = {c: r for c, r in planned.items() if c in cols or r == "offset-drop"}
        for c in tp.columns:
            if c.name in infinite and c.name not in rules:
                rules[c.name] = "infinity-null"
        return rules

    def _release(self) -> None:
        for ev in self.cleared.values():
            ev.set()
        self.done.set()


__all__ = ["Importer", "import_database"]


def _in_order(fns: list[Callable[[], None]]) -> Callable[[], None]:
    def go() -> None:
        for fn in fns:
            fn()

    return go


def _run_in_order(jobs: Sequence[tuple[int, Callable[[], None]]]) -> None:
    """``run_parallel`` on this thread alone: every job, one after another."""
    for _size, fn in jobs:
        fn()


def _committed_subset(units: list[LoadUnit], rows: int) -> list[LoadUnit] | None:
    """The units in doubt whose rows add up to ``rows`` (the rows the target has beyond those of the
    finished units), when exactly one set of them does; None when none does or several do (units of
    equal size, some of which committed, cannot be told apart by counting)."""
    if len(units) > 12 or any(u.file.rows is None for u in units):
        return None
    found: list[LoadUnit] | None = None
    for mask in range(1, 1 << len(units)):
        pick = [u for i, u in enumerate(units) if mask >> i & 1]
        if sum(u.file.rows or 0 for u in pick) == rows:
            if found is not None:
                return None
            found = pick
    return found
