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

Engine-specific work lives in ``dbjson/engines/<family>/load.py``; this module is engine-neutral.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import gc
import hashlib
import operator
import os
import pickle
import random
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson
import xxhash

from . import model as m
from . import speedups
from .connect import Target, parse_url
from .engines import Engine, get_engine
from .engines.interface import TablePlan
from .errors import (
    ApplyError,
    Cancelled,
    DataError,
    DbjsonError,
    DocumentError,
    UsageError,
)
from .export import safe_names
from .format.checksum import (
    BLAKE2B_SUM,
    DEFAULT_CHECKSUM,
    Checksum,
    check_algorithm,
    format_checksum,
    line_hash,
    sum_lines,
)
from .format.datafiles import DataFile, iter_lines, open_data
from .format.journal import Journal, journal_path
from .format.jsontext import raw_values, unwrap_json, unwrap_json_text
from .preflight import NUL_REPLACEMENT, replace_nul, value_rules

IF_EXISTS = ("fail", "skip", "truncate", "replace")
ZERO_DATES = ("null", "error")
NUL_POLICIES = ("error", "strip", "replace")
CANCEL_CHECK_EVERY = 2000
MAX_ATTEMPTS = 6
PROCESS_MIN_BYTES = 4 << 20  # below this, starting worker processes costs more than it saves


# ---------------------------------------------------------------------------------------------
# Events and reports
# ---------------------------------------------------------------------------------------------


@dataclass
class ImportEvent:
    """A progress event: ``kind`` is phase | unit | table | retry | reject | warning | finding | status."""

    kind: str
    message: str = ""
    table: str | None = None
    rows: int = 0
    bytes: int = 0
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class TableResult:
    """What happened to one table."""

    name: str
    target: str
    rows: int = 0
    rejected: int = 0
    units: int = 0
    skipped: bool = False


@dataclass
class ImportReport:
    """The outcome of an import (``to_dict`` for ``--json``)."""

    target: str
    tables: dict[str, TableResult] = field(default_factory=dict)
    rows: int = 0
    bytes: int = 0
    rejected: int = 0
    seconds: float = 0.0
    threads: int = 1
    resumed_units: int = 0
    findings: list[Any] = field(default_factory=list)
    translation: list[str] = field(default_factory=list)
    verify: Any = None
    rejects_dir: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "rows": self.rows,
            "bytes": self.bytes,
            "rejected": self.rejected,
            "seconds": round(self.seconds, 3),
            "threads": self.threads,
            "resumed_units": self.resumed_units,
            "tables": {k: vars(v) for k, v in sorted(self.tables.items())},
            "findings": [f.to_dict() for f in self.findings],
            "translation": self.translation,
            "verify": self.verify.to_dict() if self.verify is not None else None,
            "rejects": self.rejects_dir,
        }


# ---------------------------------------------------------------------------------------------
# The export directory: manifest and data files
# ---------------------------------------------------------------------------------------------


@dataclass
class ManifestTable:
    schema: str
    name: str
    rows: int | None
    checksum: str | None
    files: list[DataFile]
    columns: list[str] | None = None
    algorithm: str = DEFAULT_CHECKSUM  # the manifest's checksum_algorithm of ``checksum``


def read_export(directory: Path) -> tuple[m.Database, list[ManifestTable], str]:
    """The schema document, the manifest's tables and an identity of the export (its manifest hash).

    No such directory is a UsageError (exit 2, as for ``dbjson import``); a directory without its
    schema.json or manifest.json a DataError naming the missing file.
    """
    if not Path(directory).is_dir():
        raise UsageError(f"not an export directory: {directory}")
    schema_path = directory / "schema.json"
    manifest_path = directory / "manifest.json"
    for p in (schema_path, manifest_path):
        if not p.is_file():
            raise DataError("missing from the export directory", file=str(p))
    db = m.Database.from_json(schema_path.read_bytes(), filename=str(schema_path))
    raw = manifest_path.read_bytes()
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise DocumentError(f"malformed JSON: {e}", file=str(manifest_path)) from None
    tables = _manifest_tables(doc, directory, str(manifest_path))
    return db, tables, hashlib.blake2b(raw, digest_size=8).hexdigest()


def _manifest_tables(doc: Any, directory: Path, where: str) -> list[ManifestTable]:
    """Manifest tables (tolerant of a list or a mapping keyed by ``schema.table``)."""
    if not isinstance(doc, dict) or "tables" not in doc:
        raise DocumentError("not a dbjson manifest (no 'tables')", file=where)
    items = doc["tables"]
    if isinstance(items, dict):
        items = [dict(v, key=k) for k, v in items.items()]
    if not isinstance(items, list) or not all(
        isinstance(t, dict) and isinstance(t.get("files", []), list) for t in items
    ):
        raise DocumentError("'tables' must list objects, each with a list of 'files'", file=where, pointer="/tables")
    # absent in hand-made manifests: blake2b64-sum, the only line hash before data format 1.2
    algorithm = check_algorithm(doc.get("checksum_algorithm", BLAKE2B_SUM), file=where, pointer="/checksum_algorithm")
    out: list[ManifestTable] = []
    for ti, t in enumerate(items):
        name = t.get("name") or t.get("table") or str(t.get("key", "")).split(".")[-1]
        schema = t.get("schema") or (str(t["key"]).rsplit(".", 1)[0] if "." in str(t.get("key", "")) else "")
        files = []
        for fi, f in enumerate(t.get("files", [])):
            rel = _check_data_path(f.get("path") if isinstance(f, dict) else f, where, f"/tables/{ti}/files/{fi}")
            files.append(
                DataFile(
                    path=directory / rel,
                    rel=rel,
                    rows=f.get("rows") if isinstance(f, dict) else None,
                    bytes=f.get("bytes") if isinstance(f, dict) else None,
                    checksum=f.get("checksum") if isinstance(f, dict) else None,
                    xxh128=f.get("xxh128") if isinstance(f, dict) and isinstance(f.get("xxh128"), str) else None,
                    sha256=f.get("sha256") if isinstance(f, dict) and isinstance(f.get("sha256"), str) else None,
                    algorithm=algorithm,
                )
            )
        out.append(
            ManifestTable(
                schema=schema,
                name=name,
                rows=t.get("rows"),
                checksum=t.get("checksum"),
                files=files,
                columns=t.get("columns"),
                algorithm=algorithm,
            )
        )
    return out


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


# ---------------------------------------------------------------------------------------------
# The plan: tables, columns and units
# ---------------------------------------------------------------------------------------------


@dataclass
class Unit:
    table: TablePlan
    file: DataFile
    base_row: int  # rows in the table's earlier files (counter columns stay deterministic)

    @property
    def step(self) -> str:
        return "data:" + self.file.rel

    @property
    def size(self) -> int:
        if self.file.bytes is not None:
            return self.file.bytes
        try:
            return self.file.path.stat().st_size
        except OSError:
            return 0


def _split_option(key: str, what: str) -> tuple[str, str]:
    table, dot, col = key.rpartition(".")
    if not dot or not table or not col:
        raise UsageError(f"{what} needs TABLE.COLUMN, got {key!r}")
    return table, col


def _matches(name: str, schema: str, globs: Sequence[str]) -> bool:
    names = (name, f"{schema}.{name}")
    return any(fnmatch.fnmatchcase(n, g) for g in globs for n in names)


def _per_table(options: Mapping[str, Any], what: str, schema: str, table: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in options.items():
        t, col = _split_option(key, what)
        if t in (table, f"{schema}.{table}"):
            out[col] = value
    return out


def rename_columns(db: m.Database, renames: Mapping[str, str]) -> m.Database:
    """The document with columns renamed (``{"table.old": "new"}``): columns, keys, indexes, FKs."""
    if not renames:
        return db
    per: dict[str, dict[str, str]] = {}
    for key, new in renames.items():
        tname, old = _split_option(key, "--rename")
        per.setdefault(tname, {})[old] = new
    schemas = []
    for s in db.schemas:
        tables = []
        for t in s.tables:
            mp = per.get(t.name, {}) | per.get(f"{s.name}.{t.name}", {})
            tables.append(_rename_in_table(t, mp, per, s.name))
        schemas.append(m.replace(s, tables=tuple(tables)))
    return m.replace(db, schemas=tuple(schemas))


def _rename_in_table(t: m.Table, mp: dict[str, str], per: dict[str, dict[str, str]], schema: str) -> m.Table:
    def r(names: Sequence[str]) -> tuple[str, ...]:
        return tuple(mp.get(n, n) for n in names)

    missing = [c for c in mp if not any(col.name == c for col in t.columns)]
    if missing:
        raise UsageError(f"--rename: table {t.name} has no column {missing[0]!r}")
    fks = []
    for fk in t.foreign_keys:
        ref = per.get(fk.ref_table, {}) | per.get(f"{fk.ref_schema or schema}.{fk.ref_table}", {})
        fks.append(m.replace(fk, columns=r(fk.columns), ref_columns=tuple(ref.get(c, c) for c in fk.ref_columns)))
    return m.replace(
        t,
        columns=tuple(m.replace(c, name=mp.get(c.name, c.name)) for c in t.columns),
        primary_key=m.replace(t.primary_key, columns=r(t.primary_key.columns)) if t.primary_key else None,
        uniques=tuple(m.replace(u, columns=r(u.columns)) for u in t.uniques),
        indexes=tuple(
            m.replace(
                ix,
                parts=tuple(m.replace(p, column=mp.get(p.column, p.column)) if p.column else p for p in ix.parts),
                include=r(ix.include),
            )
            for ix in t.indexes
        ),
        foreign_keys=tuple(fks),
    )


# ---------------------------------------------------------------------------------------------
# DDL (through dbjson.ddl)
# ---------------------------------------------------------------------------------------------


def _plan_ddl(db: m.Database, engine: Engine, strict: bool, target: Target, *, creating: bool = False) -> Any:
    """The DDL plan of an import. ``creating``: the plan's statements will run (not only its name
    and type maps), so on engines with ``load_defer_primary_key`` primary keys come post-data."""
    from .schemaload import to_ddl

    defer = creating and engine.capabilities.defers_primary_key
    return to_ddl(
        db,
        engine,
        server_version=engine.server_version,
        strict=strict,
        options={"defer_primary_keys": True} if defer else None,
    )


def _default_target_schema(db: m.Database, schema: str, engine: Engine) -> str | None:
    """Where a source schema goes when the DDL plan does not say (the brief's DDL contract)."""
    if engine.family == "mysql":
        return None
    if engine.family == "sqlite":
        return None
    if db.source.engine in ("mysql", "mariadb", "sqlite") and len(db.schemas) == 1:
        return "public"
    return schema


# ---------------------------------------------------------------------------------------------
# The importer
# ---------------------------------------------------------------------------------------------


@dataclass
class _Options:
    threads: int
    schema_only: bool
    data_only: bool
    if_exists: str
    resume: bool
    strict: bool
    zero_dates: str
    max_errors: int
    verify: bool
    nul: str | None = "error"  # None: not known (dbjson verify without the import's record)


class Importer:
    """One import run (see :func:`import_database`)."""

    def __init__(
        self,
        directory: Path,
        target: Target,
        engine: Engine,
        opts: _Options,
        on_event: Callable[[ImportEvent], None] | None,
    ) -> None:
        self.dir = directory
        self.target = target
        self.engine = engine
        self.opts = opts
        self.on_event = on_event
        self.cancel = threading.Event()
        self.report = ImportReport(target=target.display(), threads=opts.threads)
        self._lock = threading.Lock()
        self._local = threading.local()
        self._conns: list[Any] = []
        self._active: dict[int, Any] = {}
        self._in_doubt: set[str] = set()  # units whose COMMIT failed: committed or not, decided later
        self._exists_ok: set[Any] = set()  # DDL statements whose object may already exist (see _pre_statements)
        self._rejects: dict[str, IO[bytes]] = {}
        self.rejected = 0
        self._procs: Any = None  # ProcessPoolExecutor converting rows on other cores (see _encoder_pool)
        self.journal: Journal | None = None
        self.status: dict[str, Any] = {"phase": "start", "rows": 0, "units_done": 0, "units": 0}

    # -- events ---------------------------------------------------------------------------------
    def emit(self, kind: str, message: str = "", **kw: Any) -> None:
        if self.on_event is not None:
            self.on_event(ImportEvent(kind, message, **kw))

    def status_line(self) -> str:
        """A one-line status (for SIGUSR1)."""
        s = self.status
        return (
            f"dbjson import: phase {s['phase']}, {s['units_done']}/{s['units']} units, "
            f"{s['rows']} rows, {self.rejected} rejected"
        )

    # -- connections ----------------------------------------------------------------------------
    def conn(self) -> Any:
        c = getattr(self._local, "conn", None)
        if c is None:
            c = self.engine.load_connect(self.target, data_only=self.opts.data_only)
            self._local.conn = c
            with self._lock:
                self._conns.append(c)
        return c

    def drop_conn(self) -> None:
        c = getattr(self._local, "conn", None)
        if c is not None:
            self._local.conn = None
            with self._lock:
                if c in self._conns:
                    self._conns.remove(c)
            try:
                c.close()
            except Exception:  # noqa: BLE001 - a broken connection may fail to close
                pass

    def close_all(self) -> None:
        with self._lock:
            conns, self._conns = self._conns, []
        for c in conns:
            try:
                self.engine.load_disconnect(c)
            except Exception:  # noqa: BLE001
                pass
        for fh in self._rejects.values():
            fh.close()
        if self._procs is not None:
            # Always wait for the pool's manager thread: otherwise the interpreter's exit hook can race
            # it and print "Bad file descriptor". Queued blocks are cancelled; a block a worker is
            # converting (about 1 MB: tens of milliseconds) is let finish. Workers are never
            # terminated here: one killed while it writes its result leaves half a message in the
            # result pipe, and the pool's manager thread then waits forever for the rest (an
            # import that failed on a bad line hung in this shutdown once, in CI).
            self._procs.shutdown(wait=True, cancel_futures=True)
            self._procs = None
        if self.journal is not None:
            self.journal.close()

    def interrupt_all(self) -> None:
        """Interrupt every running statement (from the main thread, on Ctrl-C/SIGTERM)."""
        with self._lock:
            active = list(self._active.values())
        for c in active:
            try:
                self.engine.load_interrupt(c, self.target)
            except Exception:  # noqa: BLE001
                pass

    # -- where rows come from (dbjson.migrate streams them from the source database instead) -----
    streams = False  # True: open_file streams the rows; no file on disk to check or to read by byte range

    def open_file(self, f: DataFile) -> IO[bytes]:
        """A binary reader of one data file's lines, for loading."""
        return open_data(f.path)

    def scan_file(self, f: DataFile) -> IO[bytes]:
        """A binary reader of one data file's lines, for the pre-flight and verify (no side effects)."""
        return open_data(f.path)

    # -- running work in the pool ---------------------------------------------------------------
    def run_parallel(self, jobs: Sequence[tuple[int, Callable[[], None]]], threads: int) -> None:
        """Run jobs (size, fn) largest first on a pool of up to ``threads``; first error wins."""
        ordered = [fn for _size, fn in sorted(jobs, key=lambda j: -j[0])]
        if not ordered:
            return
        pool = ThreadPoolExecutor(max_workers=max(1, min(threads, len(ordered))), thread_name_prefix="dbjson-load")
        pending: set[Future[None]] = set()
        queue = list(reversed(ordered))
        error: BaseException | None = None
        try:
            while queue or pending:
                while queue and len(pending) < threads and error is None and not self.cancel.is_set():
                    pending.add(pool.submit(self._guard, queue.pop()))
                if not pending:
                    break
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for fut in done:
                    exc = fut.exception()
                    if exc is not None and (
                        error is None or isinstance(error, Cancelled) and not isinstance(exc, Cancelled)
                    ):
                        error = exc  # the first real error, not the cancellations it caused
                        self.cancel.set()
                if error is not None:
                    queue.clear()
        except BaseException:
            self.cancel.set()
            self.interrupt_all()
            _wait_quietly(pending, 10.0)
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        if error is not None:
            raise error

    def _guard(self, fn: Callable[[], None]) -> None:
        if self.cancel.is_set():
            raise Cancelled("import cancelled")
        fn()

    # -- the phases -----------------------------------------------------------------------------
    def run(
        self,
        db: m.Database,
        mtables: list[ManifestTable],
        export_id: str,
        select: tuple[Sequence[str], Sequence[str]],
        colopts: dict[str, Mapping[str, Any]],
    ) -> ImportReport:
        start = time.monotonic()
        self.journal = Journal(journal_path(self.dir, _target_identity(self.target)))
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
        self.start_encoders(sum(f.bytes or 0 for t in mtables for f in t.files))
        renamed = rename_columns(db, colopts["renames"])
        plan = (
            self._plan_for_data_only(renamed)
            if self.opts.data_only
            else _plan_ddl(renamed, self.engine, self.opts.strict, self.target, creating=self.opts.max_errors <= 0)
        )  # --max-errors: a duplicate key is a rejected row
        if plan is not None:
            self.report.translation = [str(i) for i in plan.report.items]
        tables = self._table_plans(db, renamed, mtables, plan, select, colopts)
        conn = self.conn()
        existing = self.engine.load_existing_tables(conn, {t.tschema for t in tables})
        self._decide_existing(tables, existing, state.done)
        if not self.opts.data_only and plan is not None:
            self.status["phase"] = "pre-data"
            self.emit("phase", "pre-data DDL")
            self._run_ddl(self._pre_statements(plan, tables, existing), state, parallel=False)
        if not self.opts.schema_only:
            from .preflight import preflight

            self.status["phase"] = "pre-flight"
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
                self.emit("finding", str(f), table=f.table)
            for tp in tables:  # a rule no value triggers changes nothing: verify by the manifest's checksum
                tp.value_rules = {c: r for c, r in tp.value_rules.items() if (tp.display, c) in found}
            errors = [f for f in findings if f.severity == "error"]
            if errors:
                err = DataError(
                    f"pre-flight: {len(errors)} problem(s) the target cannot hold; first: {errors[0]}",
                    table=errors[0].table,
                    column=errors[0].column,
                )
                err.problems = [str(f) for f in errors]  # type: ignore[attr-defined]
                raise err
            self._load_data(tables, state)
        if not self.opts.data_only and plan is not None:
            self.status["phase"] = "post-data"
            self.emit("phase", "post-data DDL")
            post = self._post_statements(plan, tables)
            self._run_ddl(self.engine.load_merge_indexes(post), state, parallel=True)  # MySQL: one ALTER per table
        self.report.seconds = time.monotonic() - start
        self.report.rejected = self.rejected
        if self.rejected:
            self.report.rejects_dir = str(self.dir / "rejects")
        if self.opts.verify and not self.opts.schema_only:
            from .verify import verify_tables

            self.status["phase"] = "verify"
            self.emit("phase", "verify")
            self.report.verify = verify_tables(
                self.engine,
                self.conn,
                [t for t in tables if not t.skipped and not t.ddl_only],
                lambda jobs: self.run_parallel(jobs, self.opts.threads),
                rejected=getattr(self, "_rejected_by_table", {}),
                on_event=self.on_event,
                open_file=self.scan_file if self.streams else None,
                pool=self._procs,
                target=self.target,
            )
        self.status["phase"] = "done"
        return self.report

    _rejected_by_table: dict[str, int]

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

    def _plan_for_data_only(self, db: m.Database) -> Any:
        """The DDL plan's name and type maps, or None (source names and types) when it cannot be made."""
        try:
            return _plan_ddl(db, self.engine, False, self.target)
        except Exception as e:  # noqa: BLE001 - data-only needs no DDL: fall back to the source's names
            self.emit("warning", f"no DDL plan for this target ({_first_line(e)}); using the source's names and types")
            return None

    def verify_only(
        self,
        db: m.Database,
        mtables: list[ManifestTable],
        select: tuple[Sequence[str], Sequence[str]],
        colopts: dict[str, Mapping[str, Any]],
    ) -> Any:
        """Counts and checksums of the target against the manifest (``dbjson verify``)."""
        from .verify import verify_tables

        renamed = rename_columns(db, colopts["renames"])
        plan = self._plan_for_data_only(renamed)
        tables = self._table_plans(db, renamed, mtables, plan, select, colopts)
        return verify_tables(
            self.engine,
            self.conn,
            [t for t in tables if not t.ddl_only],
            lambda jobs: self.run_parallel(jobs, self.opts.threads),
            on_event=self.on_event,
            pool=self._procs,
            target=self.target,
        )

    def _table_plans(
        self,
        db: m.Database,
        renamed: m.Database,
        mtables: list[ManifestTable],
        plan: Any,
        select: tuple[Sequence[str], Sequence[str]],
        colopts: dict[str, Mapping[str, Any]],
    ) -> list[TablePlan]:
        """Tables to load: source columns (the lines' keys) paired with target names and types.

        ``renamed`` is ``db`` after ``--rename`` (what the DDL plan was made from).
        """
        include, exclude = select
        by_name = {(t.schema, t.name): t for t in mtables}
        names_only = {t.name: t for t in mtables}
        out: list[TablePlan] = []
        for (s, t), (_rs, rt) in zip(db.tables(), renamed.tables()):
            if include and not _matches(t.name, s.name, include):
                continue
            if exclude and _matches(t.name, s.name, exclude):
                continue
            mt = by_name.get((s.name, t.name)) or names_only.get(t.name)
            if mt is None and not self.opts.schema_only and t.partition_of is None:
                raise DocumentError(
                    f"table {s.name}.{t.name} is in schema.json but not in the manifest",
                    file=str(self.dir / "manifest.json"),
                    table=t.name,
                )
            tschema, tname = (plan.table_names.get((s.name, t.name)) if plan is not None else None) or (
                _default_target_schema(db, s.name, self.engine),
                t.name,
            )
            in_data = set(mt.columns) if mt is not None and mt.columns is not None else {c.name for c in t.columns}

            def tname_of(c: m.Column, s: m.Schema = s, t: m.Table = t) -> str:
                return plan.column_names.get((s.name, t.name, c.name), c.name) if plan is not None else c.name

            def ttype_of(c: m.Column, s: m.Schema = s, t: m.Table = t) -> m.Type:
                return plan.column_types.get((s.name, t.name, c.name), c.type) if plan is not None else c.type

            pairs = [(c, rc) for c, rc in zip(t.columns, rt.columns) if c.name in in_data]
            plain = plan.plain_generated if plan is not None else set()
            loaded = [(c, rc) for c, rc in pairs if c.generated is None or (s.name, t.name, rc.name) in plain]
            tp = TablePlan(
                schema=s.name,
                name=t.name,
                table=t,
                tschema=tschema,
                tname=tname,
                columns=[c for c, _ in loaded],
                target_names=[tname_of(rc) for _, rc in loaded],
                target_types=[ttype_of(rc) for _, rc in loaded],
                files=mt.files if mt else [],
                rows=mt.rows if mt else 0,
                checksum=mt.checksum if mt else None,
                checksum_algorithm=mt.algorithm if mt else DEFAULT_CHECKSUM,
                ddl_only=mt is None and t.partition_of is not None,
                verify_columns=[(c, tname_of(rc), ttype_of(rc)) for c, rc in pairs],
            )
            tp.value_rules = value_rules(self.engine, tp.verify_columns, self.opts.nul)
            for opt, attr, conv in (
                ("set_values", "fixed", str),
                ("set_sql", "exprs", str),
                ("increments", "increments", int),
            ):
                for col, value in _per_table(colopts[opt], "--" + opt.replace("_", "-"), s.name, t.name).items():
                    self._apply_column_option(tp, attr, col, conv(value))
            out.append(tp)
        for opt in ("set_values", "set_sql", "increments"):
            for key in colopts[opt]:
                tname, _col = _split_option(key, opt)
                if not any(tname in (tp.name, f"{tp.schema}.{tp.name}") for tp in out):
                    raise UsageError(f"--{opt.replace('_', '-')}: no table {tname!r} in this import")
        return out

    @staticmethod
    def _apply_column_option(tp: TablePlan, attr: str, col: str, value: Any) -> None:
        if col in tp.target_names:  # the option replaces the data column
            i = tp.target_names.index(col)
            for lst in (tp.columns, tp.target_names, tp.target_types):
                del lst[i]
        getattr(tp, attr)[col] = value

    def _decide_existing(
        self, tables: list[TablePlan], existing: set[tuple[str | None, str]], done: Mapping[str, Any]
    ) -> None:
        """Apply --if-exists to target tables that are already there (not on a resumed run)."""
        resuming = any(k.startswith(("ddl:", "data:")) for k in done)
        for tp in tables:
            there = (tp.tschema, tp.tname) in existing
            self.report.tables[tp.display] = TableResult(tp.display, _qual(tp))
            if self.opts.data_only:
                if not there:
                    raise UsageError(f"--data-only: table {_qual(tp)} does not exist in the target")
                continue
            if not there or resuming:
                continue
            if self.opts.if_exists == "fail":
                raise UsageError(
                    f"table {_qual(tp)} already exists in the target",
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
        """Pre-data statements, without those of tables that are kept (skipped or already there)."""
        selected = _names(tables)
        keep_existing = _names([tp for tp in tables if tp.skipped or (tp.tschema, tp.tname) in existing])
        out = []
        for st in plan.pre_data:
            obj = _unquote(st.table or (st.object if st.kind == "table" else ""))
            if obj and (_named(obj, keep_existing) or not _named(obj, selected)):
                continue
            out.append(st)
        if self.opts.if_exists == "replace":
            return self._replace_drops(plan, out, tables) + out
        if self.opts.if_exists in ("skip", "truncate"):  # the kept tables use the types already there
            self._exists_ok.update(st for st in out if st.kind in _SHARED_KINDS)
        return out

    def _replace_drops(self, plan: Any, pre: list[Any], tables: list[TablePlan]) -> list[Any]:
        """``--if-exists replace``: drop (if they exist) the views, types, sequences and collations
        this import creates again (the tables went in :meth:`_decide_existing`). Only objects the
        document defines, and never with CASCADE: an object outside the document that uses one of
        them makes the drop fail (an ApplyError with a hint) instead of silently losing it."""
        from .ddl.plan import DdlPlan

        shared = DdlPlan(
            plan.target,
            plan.server_version,
            pre_data=[st for st in pre if st.kind in _SHARED_KINDS],
            post_data=[st for st in self._post_statements(plan, tables) if st.kind == "view"],
        )
        drops = self.engine.ddl_drop_statements(shared)
        return [dataclasses.replace(st, sql=st.sql.removesuffix(" CASCADE")) for st in drops if st.kind == "drop"]

    def _post_statements(self, plan: Any, tables: list[TablePlan]) -> list[Any]:
        """Post-data statements of the selected, not skipped tables (and the table-less ones)."""
        wanted = _names([tp for tp in tables if not tp.skipped and not tp.kept])
        restart = _names([tp for tp in tables if tp.kept])
        out = [
            st
            for st in plan.post_data
            if not st.table
            or _named(_unquote(st.table), wanted)
            or (st.kind == "restart" and _named(_unquote(st.table), restart))
        ]
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
        self._active[threading.get_ident()] = conn
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
                        self.emit("retry", f"{st.object}: {e}; retrying")
                        if kind == "disconnect":
                            self.drop_conn()
                            conn = self.conn()
                            self._active[threading.get_ident()] = conn
                        _backoff(attempt)
                        continue
                    if getattr(st, "optional", False) and not self.opts.strict:
                        note = f"{getattr(st, 'path', None) or st.object}: the target refused the translated {st.kind} ({_first_line(e)}); skipped"
                        with self._lock:
                            self.report.translation.append(note)
                        self.emit("warning", note)
                        return
                    if st.kind == "primary_key" and kind == "data":
                        raise self._duplicate_key_error(st, e) from None
                    raise ApplyError(
                        f"{st.kind} {st.object}: {_first_line(e)}", statement=st.sql, obj=st.object
                    ) from None
        finally:
            self._active.pop(threading.get_ident(), None)

    def _duplicate_key_error(self, st: Any, e: BaseException) -> ApplyError:
        """A primary key added after the data (``load_defer_primary_key``) that the rows break:
        the table, the constraint and the duplicated key value from the server's detail."""
        constraint, detail = self.engine.load_error_detail(e)
        table = _unquote(st.table or st.object)
        name = f" {constraint}" if constraint else ""
        found = f": {detail}" if detail else f": {_first_line(e)}"
        return ApplyError(
            f"primary key{name} of {table} cannot be added, the imported rows have duplicate keys{found}",
            statement=st.sql,
            obj=st.object,
            table=table,
            hint="the export holds rows with the same primary key: remove the duplicates from the data "
            "files (or the source) and import again",
        )

    # -- data -----------------------------------------------------------------------------------
    def _load_data(self, tables: list[TablePlan], state: Any) -> None:
        assert self.journal is not None
        self._rejected_by_table = {}
        units: list[Unit] = []
        for tp in tables:
            if tp.skipped:
                continue
            base = 0
            for f in tp.files:
                units.append(Unit(tp, f, base))
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
        self.status.update(phase="data", units=len(units), units_done=len(units) - len(todo))
        self.emit(
            "phase",
            f"loading {len(todo)} unit(s) with up to {self.opts.threads} thread(s)",
            data={"units": len(todo), "bytes": sum(u.size for u in todo)},
        )
        threads = self.opts.threads if self.engine.capabilities.parallel_writers else 1
        for wave in self._foreign_key_waves(todo):
            self.run_parallel([(u.size, self._unit_job(u)) for u in wave], threads)
        for _round in range(MAX_ATTEMPTS):
            if not self._in_doubt:
                break
            self.run_parallel([(u.size, self._unit_job(u)) for u in self._settle_in_doubt(units)], threads)
        if self._in_doubt:
            raise DataError(
                "the connection kept failing while units were committing", hint="run the import again with --resume"
            )

    def _foreign_key_waves(self, units: list[Unit]) -> list[list[Unit]]:
        """The units in the order foreign keys allow.

        Tables this import creates get their foreign keys after the data (post-data), and MySQL /
        MariaDB load with ``foreign_key_checks = 0``, SQLite without ``foreign_keys``: any order
        then. But a table kept by ``--if-exists truncate`` keeps its foreign keys, and PostgreSQL
        (``load_checks_foreign_keys``) checks them at every statement: its rows are loaded after
        those of the tables it references (waves by depth; the units of one wave in parallel).
        References of a table to itself are not ordered (its units load in parallel)."""
        if not self.engine.capabilities.checks_foreign_keys or not any(u.table.kept for u in units):
            return [units]
        tables: dict[tuple[str, str], TablePlan] = {}
        for u in units:
            tables.setdefault((u.table.schema, u.table.name), u.table)
        depth: dict[tuple[str, str], int] = {}

        def level(key: tuple[str, str], path: frozenset[tuple[str, str]]) -> int:
            if key in depth:
                return depth[key]
            if key in path:
                names = ", ".join(sorted(f"{s}.{t}" for s, t in path))
                raise UsageError(
                    f"--if-exists truncate: the foreign keys among {names} form a cycle, so no order "
                    "of loading satisfies them",
                    hint="use --if-exists replace: the tables are created "
                    "again and their foreign keys added after the data",
                )
            tp = tables[key]
            refs = {(fk.ref_schema or tp.schema, fk.ref_table) for fk in tp.table.foreign_keys} if tp.kept else set()
            refs = {r for r in refs if r in tables and r != key}
            depth[key] = 1 + max((level(r, path | {key}) for r in refs), default=-1)
            return depth[key]

        for key in tables:
            level(key, frozenset())
        waves: list[list[Unit]] = [[] for _ in range(max(depth.values()) + 1)]
        for u in units:
            waves[depth[(u.table.schema, u.table.name)]].append(u)
        return [w for w in waves if w]

    def _settle_in_doubt(self, units: list[Unit]) -> list[Unit]:
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
                    self.status["rows"] -= rows
                    self.status["units_done"] -= 1
            if u.step not in state.done:
                again.append(u)
        self._in_doubt.clear()
        return again

    def _record_bases(self, units: list[Unit], state: Any) -> None:
        """Journal each table's row count before its first unit (rows that were there already)."""
        assert self.journal is not None
        for tp in {id(u.table): u.table for u in units}.values():
            step = "base:" + tp.display
            if step not in state.done:
                rows = self.engine.load_count(self.conn(), tp.tschema, tp.tname)
                self.journal.done(step, rows=rows)
                state.done[step] = {"rows": rows}
            tp.base_rows = int(state.done[step].get("rows", 0))

    def _resolve_ambiguous(self, units: list[Unit], state: Any) -> None:
        """Decide, from the target's row counts, whether begun-but-unrecorded units committed."""
        assert self.journal is not None
        amb = [u for u in units if u.step in state.ambiguous]
        by_table: dict[str, list[Unit]] = {}
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
                    f"--resume cannot tell which rows of {_qual(tp)} were committed before the crash "
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

    def _unit_job(self, unit: Unit) -> Callable[[], None]:
        return lambda: self._load_unit(unit)

    def _load_unit(self, unit: Unit) -> None:
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
                self.emit("retry", f"{unit.file.rel}: {_first_line(e)}; retrying", table=tp.display)
                _backoff(attempt)
                continue
            self._active[threading.get_ident()] = conn
            reader = _UnitReader(self, unit)
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
                        "retry",
                        f"{unit.file.rel}: {_first_line(e)} while committing; "
                        "decided from the row counts after the other units",
                        table=tp.display,
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
                if self.opts.max_errors > 0 and not careful and e.line is not None and not getattr(e, "fatal", False):
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
                last = _first_line(e)
                if kind in ("retry", "disconnect") and attempt + 1 < MAX_ATTEMPTS:
                    self.emit("retry", f"{unit.file.rel}: {_first_line(e)}; retrying", table=tp.display)
                    if kind == "disconnect":
                        self.drop_conn()
                    _backoff(attempt)
                    continue
                if not careful:  # a value the server refused: find the row (and reject it if allowed)
                    self.emit("warning", f"{unit.file.rel}: {_first_line(e)}; loading row by row", table=tp.display)
                    careful = True
                    continue
                raise DataError(
                    f"the target refused the data: {_first_line(e)}", file=unit.file.rel, table=tp.display
                ) from None
            finally:
                self._active.pop(threading.get_ident(), None)
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
        return self._procs if self._procs is not None else _INLINE

    def start_encoders(self, todo_bytes: int) -> None:
        """Convert rows in worker processes when it pays: two or more threads, a text bulk path
        (COPY / LOAD DATA), parallel writers and at least ``PROCESS_MIN_BYTES`` to load.

        Python threads share one interpreter lock, so only processes put the per-row conversion
        on several cores; the threads keep the connections, transactions and the journal. The
        workers are forked at once, before the import opens any connection or starts any thread
        (so they inherit no socket and no lock), and ignore SIGINT (the parent cancels them). A
        caller that runs other threads gets no workers (a fork would copy their locks).
        """
        import multiprocessing

        if (
            self.opts.threads < 2
            or todo_bytes < PROCESS_MIN_BYTES
            or self.opts.schema_only
            or self.engine.capabilities.bulk_text is None
            or not self.engine.capabilities.parallel_writers
            or "fork" not in multiprocessing.get_all_start_methods()
            or threading.active_count() > 1
        ):
            return  # (other threads of the caller could hold locks a forked child would inherit)
        from concurrent.futures import ProcessPoolExecutor

        self._procs = ProcessPoolExecutor(
            max_workers=self.opts.threads, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init
        )
        self._procs.submit(_worker_init).result()  # fork every worker now (a fork pool starts them all)

    def _rollback(self, conn: Any) -> None:
        try:
            self.engine.load_rollback(conn)
        except Exception:  # noqa: BLE001 - a dead connection: the server rolled back
            self.drop_conn()

    def _load_careful(
        self, conn: Any, unit: Unit, reader: _UnitReader, pending: list[tuple[int, bytes, DataError]]
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
                        f"the target refused the row: {_first_line(e)}",
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
                err = DataError(
                    f"more than {self.opts.max_errors} rejected rows; last: {error}",
                    file=unit.file.rel,
                    line=number,
                    table=tp.display,
                )
                err.fatal = True  # type: ignore[attr-defined]
                raise err
            pending.append((number, raw, error))
            rejected += 1
        return loaded, rejected

    def _reject(self, tp: TablePlan, unit: Unit, number: int, raw: bytes, error: DataError) -> None:
        with self._lock:
            self.rejected += 1
            self._rejected_by_table[tp.display] = self._rejected_by_table.get(tp.display, 0) + 1
            fh = self._rejects.get(tp.display)
            if fh is None:
                d = self.dir / "rejects"
                d.mkdir(exist_ok=True)
                safe = safe_names([(tp.schema, tp.name)])[(tp.schema, tp.name)].lstrip(".")  # no path from a table name
                fh = self._rejects[tp.display] = open(d / f"{safe}.jsonl", "ab")  # noqa: SIM115
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
        self.emit("reject", str(error), table=tp.display)

    def _unit_finished(self, unit: Unit, loaded: int, rejected: int) -> None:
        with self._lock:
            res = self.report.tables[unit.table.display]
            res.rows += loaded
            res.rejected += rejected
            res.units += 1
            self.report.rows += loaded
            self.report.bytes += unit.size
            self.status["rows"] += loaded
            self.status["units_done"] += 1
        self.emit("unit", unit.file.rel, table=unit.table.display, rows=loaded, bytes=unit.size)


class _UnitReader:
    """Reads one unit's lines, converts them for the engine and checks them against the manifest."""

    def __init__(self, imp: Importer, unit: Unit) -> None:
        self.imp = imp
        self.unit = unit
        self.tp = unit.table
        self.checksum = Checksum(algorithm=unit.file.algorithm)
        self.count = 0
        self.line = 0
        self._fh: IO[bytes] | None = None
        self.convert = build_row_converter(imp.engine, self.tp, imp.opts.zero_dates, unit.file.rel)

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        self._fh = self.imp.open_file(self.unit.file)
        return iter_lines(self._fh, self.unit.file.rel)

    def rows(self) -> Iterator[tuple[Any, ...]]:
        """Converted rows for the bulk path (a bad line raises DataError naming file and line)."""
        cancel = self.imp.cancel
        add = self.checksum.add
        convert = self.convert
        base = self.unit.base_row
        for number, raw in self._lines():
            self.line = number
            self.count += 1
            if self.count % CANCEL_CHECK_EVERY == 0 and cancel.is_set():
                raise Cancelled("import cancelled")
            add(raw)
            yield convert(raw, number, base + self.count)

    def encoded_blocks(self, pool: Any, lookahead: int = 2) -> Iterator[bytes]:
        """The unit's rows converted and encoded by the process pool, in order, a block at a time.

        The file is read in 1 MB blocks of whole lines here; each block is converted (and its
        lines checksummed) in a worker process by :func:`_encode_block`. A worker process reads
        a block of a plain (uncompressed) file again by its byte range (:func:`_encode_file_range`,
        from the page cache) rather than receiving it through the pool's pipe.

        When the manifest gives the plain file's XXH3-128 (or SHA-256) and content checksum, the
        bytes are checked instead of the lines: the whole file's hash here (a mismatch stops the unit
        before it commits), each block's CRC-32 where a worker re-reads it (the bytes it encodes
        are the bytes checked here), and the content checksum is then the manifest's (the file is
        byte for byte the one the export summed). One hash of the bytes costs a fraction of a
        hash call per line.
        """
        from collections import deque

        f = self.unit.file
        rel = f.rel
        path = str(f.path)
        plain = not path.endswith((".gz", ".zst")) and not self.imp.streams
        by_range = pool is not _INLINE and plain
        expect_hash = f.xxh128 or f.sha256
        by_bytes = plain and expect_hash is not None and f.checksum is not None
        file_hash: Any = None
        hash_name = ""
        if by_bytes:
            file_hash, hash_name = (xxhash.xxh3_128(), "xxh128") if f.xxh128 else (hashlib.sha256(), "sha256")
        self._fh = fh = self.imp.open_file(f)
        pending: deque[Any] = deque()
        rest = b""
        first_line = 1
        offset = 0  # of the block in the (plain) file
        eng = self.imp.engine
        plan = pickle.dumps(self.tp)  # once per unit, not once per block
        while True:
            try:
                chunk = fh.read(1 << 20)
            except Exception as e:  # noqa: BLE001 - EOFError, OSError, zstandard.ZstdError
                raise _fatal(
                    DataError(f"truncated or corrupt file: {e}", file=rel, table=self.tp.display, line=first_line)
                ) from None
            if self.imp.cancel.is_set():
                raise Cancelled("import cancelled")
            if file_hash is not None:
                file_hash.update(chunk)
                if not chunk and file_hash.hexdigest() != (expect_hash or "").lower():
                    raise _fatal(
                        DataError(
                            f"content checksum: the file's {hash_name} {file_hash.hexdigest()} differs from "
                            f"the manifest's {expect_hash}",
                            file=rel,
                            table=self.tp.display,
                        )
                    )
            data = rest + chunk if rest else chunk
            cut = data.rfind(b"\n") + 1 if chunk else len(data)
            block, rest = data[:cut], data[cut:]
            if block:
                if not chunk and not block.endswith(b"\n"):
                    raise _fatal(
                        DataError(
                            "truncated file: the last line has no newline",
                            file=rel,
                            line=first_line + block.count(b"\n"),
                            table=self.tp.display,
                        )
                    )
                args = (eng.name, eng.server_version, plan, self.imp.opts.zero_dates, rel, first_line)
                if by_range:
                    expect = zlib.crc32(block) if by_bytes else None
                    pending.append(
                        pool.submit(_encode_file_range, *args, path, offset, len(block), expect, f.algorithm)
                    )
                else:
                    pending.append(pool.submit(_encode_block, *args, block, None if by_bytes else f.algorithm))
                first_line += block.count(b"\n")
                offset += len(block)
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
        return payload  # type: ignore[no-any-return]

    def rows_careful(self) -> Iterator[tuple[int, bytes, tuple[Any, ...] | None, DataError | None]]:
        """Every line with its converted row or its error."""
        base = self.unit.base_row
        for number, raw in self._lines():
            self.line = number
            self.count += 1
            if self.count % CANCEL_CHECK_EVERY == 0 and self.imp.cancel.is_set():
                raise Cancelled("import cancelled")
            self.checksum.add(raw)
            try:
                yield number, raw, self.convert(raw, number, base + self.count), None
            except DataError as e:
                yield number, raw, None, e

    def check_complete(self, handled: int) -> None:
        """The unit matches the manifest: every row was read and handled, checksum equal."""
        f = self.unit.file
        if f.rows is not None and self.count != f.rows:
            raise _fatal(
                DataError(
                    f"the manifest lists {f.rows} rows, the file has {self.count}", file=f.rel, table=self.tp.display
                )
            )
        if handled != self.count:
            raise _fatal(
                DataError(f"read {self.count} rows but the target took {handled}", file=f.rel, table=self.tp.display)
            )
        if f.checksum and self.checksum.hexdigest() != f.checksum:
            raise _fatal(
                DataError(
                    f"checksum {self.checksum.hexdigest()} differs from the manifest's {f.checksum}",
                    file=f.rel,
                    table=self.tp.display,
                )
            )

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class _InlinePool:
    """A stand-in for the process pool that converts a block at once, in the calling thread."""

    @staticmethod
    def submit(fn: Callable[..., Any], *args: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        fut.set_result(fn(*args))
        return fut


_INLINE = _InlinePool()


def _worker_init() -> None:
    """In a worker process: Ctrl-C and status requests are the parent's business."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "SIGUSR1"):
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    _die_with_parent()


def _die_with_parent() -> None:
    """Linux: this worker gets SIGTERM when the importing process dies, even by ``kill -9`` (it
    would otherwise wait forever on its pipe, an orphan holding memory)."""
    if not sys.platform.startswith("linux"):
        return
    import signal

    parent = os.getppid()
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent or parent == 1:  # it died before the call
        os._exit(1)


_ENCODERS: dict[tuple[str, str, str, bytes], Callable[..., tuple[bytes, int, int]]] = {}  # per process
_ENCODERS_MAX = 64


def _encode_block(
    engine_name: str,
    server_version: str,
    plan: bytes,
    zero_dates: str,
    rel: str,
    first_line: int,
    block: bytes,
    algorithm: str | None = DEFAULT_CHECKSUM,
) -> tuple[Any, ...]:
    """Convert and encode one block of whole lines for the engine's bulk path (in a worker process,
    or inline in the loading thread). ``plan`` is the pickled :class:`TablePlan`: it keys the
    encoder cache, so another import in the same process never reuses a stale encoder.

    Returns ``("ok", encoded bytes, rows, checksum, {})`` or ``("error", message, 0, 0, location)``;
    the checksum (of the line hash ``algorithm``) is 0 when ``algorithm`` is None (the caller checks
    the file's bytes instead).
    """
    key = (engine_name, server_version, zero_dates, plan)
    encode = _ENCODERS.get(key)
    if encode is None:
        if len(_ENCODERS) >= _ENCODERS_MAX:
            _ENCODERS.clear()
        tp = pickle.loads(plan)  # pickled by this process or its parent
        encode = _ENCODERS[key] = build_block_encoder(get_engine(engine_name, server_version), tp, zero_dates, rel)
    # A block makes tens of thousands of short-lived containers (parsed lines, row tuples) without
    # cycles: collecting during the block only re-walks them (a quarter of the block's time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        encoded, n, total = encode(block, first_line, algorithm)
    except DataError as e:
        info = {"file": rel, "line": e.line, "table": e.table, "column": e.column, "value": e.value}
        return ("error", e.message, 0, 0, info)
    finally:
        if collecting:
            gc.enable()
    return ("ok", encoded, n, total, {})


def _encode_file_range(
    engine_name: str,
    server_version: str,
    plan: bytes,
    zero_dates: str,
    rel: str,
    first_line: int,
    path: str,
    offset: int,
    length: int,
    expect: int | None = None,
    algorithm: str = DEFAULT_CHECKSUM,
) -> tuple[Any, ...]:
    """:func:`_encode_block` of the ``length`` bytes at ``offset`` of a plain file (whole lines).

    With ``expect`` (the CRC-32 of the bytes the loading thread read and checked against the
    manifest's file hash), the bytes read here must have that CRC (the file did not change between
    the two reads), and their lines are not hashed.
    """
    parts = []
    fd = os.open(path, os.O_RDONLY)
    try:
        while length > 0:
            part = os.pread(fd, length, offset)
            if not part:
                return ("error", "the file became shorter while it was loaded", 0, 0, {"file": rel, "line": first_line})
            parts.append(part)
            offset += len(part)
            length -= len(part)
    finally:
        os.close(fd)
    block = b"".join(parts)
    if expect is not None and zlib.crc32(block) != expect:
        return ("error", "the file changed while it was loaded", 0, 0, {"file": rel, "line": first_line})
    return _encode_block(
        engine_name, server_version, plan, zero_dates, rel, first_line, block, algorithm if expect is None else None
    )


class _Slow(Exception):
    """The block needs the row-by-row path (it has something the column path does not handle)."""


def build_block_encoder(
    engine: Engine, tp: TablePlan, zero_dates: str, file: str
) -> Callable[..., tuple[bytes, int, int]]:
    """``encode(block, first_line_number, algorithm=DEFAULT_CHECKSUM)`` → (bulk text, rows,
    checksum) of a block of whole lines (checksum 0 when ``algorithm`` is None).

    The common case goes a column at a time: every line parsed by ``orjson`` in one ``map``, the
    values taken with one ``itemgetter``, transposed with ``zip``, converted per column and
    joined by the engine's :meth:`load_encode_columns`. A block that does not fit that mould (a
    bad line, a missing or extra key, a value a converter refuses, blank lines or CRLF) is done
    row by row with :func:`build_row_converter`, which names the bad line, column and value.
    """
    convert = build_row_converter(engine, tp, zero_dates, file)
    names = [c.name for c in tp.columns]
    convs = load_converters(engine, tp, zero_dates)
    active = [(i, conv) for i, conv in enumerate(convs) if conv is not None]
    fixed = list(tp.fixed.values())
    raw_json = raw_json_columns(engine, tp)  # canonical lines: the engine's converter writes the same text
    columnar = (
        len(names) >= 2
        and set(names) == {c.name for c in tp.table.columns}
        and not tp.increments
        and engine.capabilities.bulk_text is not None
    )
    getter = operator.itemgetter(*names)
    width = len(names)
    loads = orjson.loads
    cplan = c_block_plan(engine, tp, zero_dates) if columnar else None

    def by_rows(lines: list[bytes], first_line: int) -> bytes:
        rows = []
        number = first_line - 1
        for raw in lines:
            number += 1
            if raw:
                rows.append(convert(raw, number, 0))
        return engine.load_encode_rows(rows) if rows else b""

    def by_columns(lines: list[bytes]) -> bytes:
        objs = list(map(loads, lines))
        if set(map(type, objs)) != {dict} or set(map(len, objs)) != {width}:
            raise _Slow
        if raw_json and any(map(operator.ne, map(orjson.dumps, objs), lines)):
            raise _Slow  # a json value orjson would respell (1.50, \u00e9, big integers): its text, row by row
        cols = [list(c) for c in zip(*map(getter, objs))]
        for i, conv in active:
            cols[i] = [None if v is None else conv(v) for v in cols[i]]
        cols.extend([v] * len(objs) for v in fixed)
        return engine.load_encode_columns(cols)

    def encode(block: bytes, first_line: int, algorithm: str | None = DEFAULT_CHECKSUM) -> tuple[bytes, int, int]:
        lines = block.split(b"\n")
        lines.pop()  # the block ends with a newline
        if b"\r" in block:
            lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
        rows = [ln for ln in lines if ln] if b"\n\n" in block or block.startswith(b"\n") or b"\r" in block else lines
        total = sum_lines(rows, algorithm) if algorithm is not None else 0
        if not rows:
            return b"", 0, total
        encoded = None
        if cplan is not None and rows is lines:
            cmod = speedups.load("_cimport")  # checked per block: DBJSON_NO_SPEEDUPS=1 turns it off
            if cmod is not None:
                encoded = cmod.jsonl_to_bulk(block, *cplan)  # None: a line or value for the Python path
        if encoded is None and columnar and rows is lines:
            try:
                encoded = by_columns(lines)
            except Exception:  # noqa: BLE001 - the row path finds and names the problem
                encoded = None
        if encoded is None:
            encoded = by_rows(lines, first_line)
        return encoded, len(rows), total

    return encode


# dbjson._cimport ops by the engines' load_bulk_op names: "pass" is the module's OP_PASS constant, ...
# (see the comment block of csrc/_cimport.c)
_C_OPS = {k[3:].lower(): v for k, v in speedups.constants("_cimport").items() if k.startswith("OP_")}


def c_block_plan(engine: Engine, tp: TablePlan, zero_dates: str) -> tuple[tuple[bytes, ...], bytes, int] | None:
    """The ``(keys, ops, flavor)`` arguments of ``dbjson._cimport.jsonl_to_bulk`` for ``tp``'s
    blocks, or None when some column has no C op that converts its values exactly as
    :func:`load_converters` does (the Python path is then used for every block of the table).

    Only plain tables qualify: no ``--set`` values, no increments and no value rules (``--nul``).
    Keys are the column names as orjson writes them in a line (ordinal order, as exported)."""
    bulk = engine.capabilities.bulk_text
    if bulk is None or tp.fixed or tp.increments or tp.value_rules or not tp.columns:
        return None
    raw = set(raw_json_columns(engine, tp))
    ops = []
    for i, (c, t) in enumerate(zip(tp.columns, tp.target_types)):
        op = "jsonraw" if i in raw else engine.load_bulk_op(c.type, t, zero_dates=zero_dates)
        if op == "jsondump" and c.type.kind != "json":
            op = "jsondump_nowrap"  # only json columns carry the {"$json": X} escape
        if op is None or (c.type.kind == "json") != (op in ("jsonraw", "jsondump")):
            return None
        ops.append(_C_OPS[op])
    keys = tuple(orjson.dumps(c.name) for c in tp.columns)
    return keys, bytes(ops), bulk.c_flavor


def _fatal(e: DataError) -> DataError:
    e.fatal = True  # type: ignore[attr-defined]
    return e


def load_converters(engine: Engine, tp: TablePlan, zero_dates: str) -> list[Callable[[Any], Any] | None]:
    """The engine's converter of each data column (None: the JSON value as is), with the NUL
    rule of the column (``tp.value_rules``: ``--nul strip|replace``) applied first, and json
    columns' ``{"$json": X}`` escape (the JSON document null, see :func:`dbjson.format.jsontext.wrap_json_text`)
    undone before that."""
    convs: list[Callable[[Any], Any] | None] = [
        engine.load_converter(c.type, t, zero_dates=zero_dates) for c, t in zip(tp.columns, tp.target_types)
    ]
    for i, c in enumerate(tp.columns):
        rule = tp.value_rules.get(c.name, "")
        if rule in ("nul-strip", "nul-replace"):
            convs[i] = _nul_converter(convs[i], NUL_REPLACEMENT[rule[4:]])
        if c.type.kind == "json":
            convs[i] = _unwrapping(convs[i])
    return convs


def _unwrapping(conv: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    if conv is None:
        return unwrap_json
    return lambda v: conv(unwrap_json(v))


def raw_json_columns(engine: Engine, tp: TablePlan) -> list[int]:
    """Indexes of the json columns that load the exact text of the line (``1.50``, ``\\u00e9``,
    integers beyond 2^64) rather than a re-serialization of the value parsed by orjson (doubles):
    targets that store JSON as text (MariaDB, SQLite, PostgreSQL ``json``) and engines whose
    binary JSON keeps numbers exactly (PostgreSQL ``jsonb``: ``load_json_numbers_exact``)."""
    exact = engine.capabilities.json_numbers_exact
    return [
        i
        for i, (c, t) in enumerate(zip(tp.columns, tp.target_types))
        if c.type.kind == "json" and t.kind == "json" and (exact or not t.binary) and c.name not in tp.value_rules
    ]


def _put_raw_json(out: list[Any], raw: bytes, idx: list[int], names: list[str]) -> None:
    """Replace the parsed values at ``idx`` (json columns, not NULL) by their text in the line."""
    if all(out[i] is None for i in idx):
        return
    try:
        spans = raw_values(raw)
        texts = [None if out[i] is None else unwrap_json_text(spans[names[i]]).decode() for i in idx]
    except (DataError, KeyError, UnicodeDecodeError, orjson.JSONDecodeError):
        texts = [
            None if out[i] is None else orjson.dumps(unwrap_json(out[i])).decode() for i in idx
        ]  # not a plain line
    for i, text in zip(idx, texts):
        out[i] = text


def _nul_converter(conv: Callable[[Any], Any] | None, by: str) -> Callable[[Any], Any]:
    if conv is None:
        return lambda v: replace_nul(v, by)
    return lambda v: conv(replace_nul(v, by))


def build_row_converter(
    engine: Engine, tp: TablePlan, zero_dates: str, file: str
) -> Callable[[bytes, int, int], tuple[Any, ...]]:
    """``convert(line, line_number, row_number)`` → the tuple of ``tp.insert_columns`` for the engine.

    Every problem (malformed JSON, missing or unexpected keys, a value that does not fit its
    column) raises :class:`DataError` naming file, line, table, column and value.
    """
    names = [c.name for c in tp.columns]
    keyset = set(names)
    convs = load_converters(engine, tp, zero_dates)
    raw_json = raw_json_columns(engine, tp)
    active = [(i, conv) for i, conv in enumerate(convs) if conv is not None and i not in raw_json]
    fixed = tuple(tp.fixed.values())
    incs = list(tp.increments.values())
    all_keys = {c.name for c in tp.table.columns}
    loads = orjson.loads

    def convert(raw: bytes, number: int, rownum: int) -> tuple[Any, ...]:
        try:
            obj = loads(raw)
        except orjson.JSONDecodeError as e:
            raise DataError(f"malformed JSON line: {e}", file=file, line=number, table=tp.display) from None
        if type(obj) is not dict:
            raise DataError("a line must be a JSON object", file=file, line=number, table=tp.display)
        try:
            out = [obj[name] for name in names]
        except KeyError as e:
            raise DataError(
                "column missing from the line", file=file, line=number, table=tp.display, column=str(e.args[0])
            ) from None
        name = ""
        try:
            for i, conv in active:
                v = out[i]
                if v is not None:
                    name = names[i]
                    out[i] = conv(v)
        except DataError as e:
            raise DataError(
                e.message, file=file, line=number, table=tp.display, column=name, value=obj.get(name)
            ) from None
        except (ValueError, TypeError, OverflowError) as e:
            raise DataError(
                f"value does not fit the column: {e}",
                file=file,
                line=number,
                table=tp.display,
                column=name,
                value=obj.get(name),
            ) from None
        if raw_json:
            _put_raw_json(out, raw, raw_json, names)
        if len(obj) > len(keyset) and not obj.keys() <= all_keys:
            extra = sorted(set(obj) - all_keys)
            raise DataError(
                f"unexpected key {extra[0]!r} (not a column of the table)", file=file, line=number, table=tp.display
            )
        if fixed:
            out.extend(fixed)
        for start in incs:
            out.append(start + rownum - 1)
        return tuple(out)

    return convert


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


# Pre-data objects that are not tables (several tables may share one): types (enums, domains,
# composites, ranges), sequences, collations.
_SHARED_KINDS = ("type", "sequence", "collation")


def _qual(tp: TablePlan) -> str:
    return f"{tp.tschema}.{tp.tname}" if tp.tschema else tp.tname


def _names(tables: Sequence[TablePlan]) -> set[str]:
    """Qualified (``schema.table``) and bare target names of ``tables``."""
    return {_qual(tp) for tp in tables} | {"." + tp.tname for tp in tables}


def _named(obj: str, names: set[str]) -> bool:
    """Whether the statement object ``obj`` (unquoted, maybe database-qualified) is one of ``names``."""
    return obj in names or "." + obj.rsplit(".", 1)[-1] in names


def _unquote(name: str) -> str:
    """``"public"."t"`` / ```t``` → ``public.t`` / ``t`` (to match statements with tables)."""
    return name.replace('"', "").replace("`", "")


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _backoff(attempt: int) -> None:
    time.sleep(min(5.0, 0.1 * (2**attempt)) * (0.5 + random.random()))


def _wait_quietly(pending: set[Future[None]], timeout: float) -> None:
    if pending:
        wait(pending, timeout=timeout)


def _has_ddl() -> bool:
    try:
        from .schemaload import to_ddl  # noqa: F401
    except ImportError:
        return False
    return True


def _target_identity(target: Target) -> str:
    u = target.url
    if target.family == "sqlite":
        return f"sqlite:{os.path.abspath(u.database or '')}"
    return f"{target.family}://{u.username or ''}@{u.host or ''}:{u.port or ''}/{u.database or ''}"


def _parse_assignments(items: Sequence[str] | Mapping[str, Any], what: str) -> dict[str, Any]:
    if isinstance(items, Mapping):
        return dict(items)
    out: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"{what} needs TABLE.COLUMN=VALUE, got {item!r}")
        _split_option(key.strip(), what)
        out[key.strip()] = value
    return out


def default_threads() -> int:
    """The default thread limit: the machine's cores, at most 8."""
    return max(1, min(8, os.cpu_count() or 1))


def connect_target(url: str) -> tuple[Target, Engine]:
    """The target and its engine (MariaDB told from MySQL by the server)."""
    from .engines import detect_engine

    target = Target(parse_url(url))
    conn = _connect_probe(target)
    try:
        engine = detect_engine(target.family, conn)
    finally:
        conn.close()
    return target, engine


def _connect_probe(target: Target) -> Any:
    return get_engine(target.family if target.family != "mysql" else "mysql").load_connect(target)


def import_database(
    directory: str | Path,
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
    on_event: Callable[[ImportEvent], None] | None = None,
    importer_hook: Callable[[Importer], None] | None = None,
) -> ImportReport:
    """Load the export in ``directory`` into the database at ``url``.

    Pre-data DDL, rows (``threads`` parallel units, largest first; each unit one transaction,
    journaled), post-data DDL, then verification of counts and checksums against the manifest
    (``verify=False`` skips it). Column options take ``{"table.col": value}`` mappings or
    ``["table.col=value"]`` lists: ``set_values`` (a fixed value), ``set_sql`` (an SQL expression
    evaluated by the target), ``increments`` (a counter starting at the value), ``renames`` (the
    target column name). ``max_errors`` > 0 writes refused rows to ``DIR/rejects/<table>.jsonl``
    instead of stopping. ``importer_hook`` receives the running :class:`Importer` (the CLI uses it
    for SIGUSR1 status lines and cancellation). ``zero_dates`` (``null`` | ``error``) and ``nul``
    (``error`` | ``strip`` | ``replace``) are the policies for zero dates and NUL characters (U+0000)
    on targets that cannot hold them; the pre-flight reports them and verification applies them.

    Raises DataError (bad rows, missing/truncated files, pre-flight findings), ApplyError (DDL),
    VerifyError (counts/checksums differ), Cancelled, ConnectionFailed, UsageError.
    """
    if if_exists not in IF_EXISTS:
        raise UsageError(f"--if-exists must be one of {', '.join(IF_EXISTS)}")
    if zero_dates not in ZERO_DATES:
        raise UsageError("--zero-dates must be null or error")
    if nul not in NUL_POLICIES:
        raise UsageError("--nul must be error, strip or replace")
    if schema_only and data_only:
        raise UsageError("--schema-only and --data-only exclude each other")
    if max_errors < 0:
        raise UsageError("--max-errors must be ≥ 0")
    d = Path(directory)
    if not d.is_dir():
        raise UsageError(f"not an export directory: {d}")
    colopts: dict[str, Mapping[str, Any]] = {
        "set_values": _parse_assignments(set_values, "--set"),
        "set_sql": _parse_assignments(set_sql, "--set-sql"),
        "increments": {k: _int_option(v, k) for k, v in _parse_assignments(increments, "--increment").items()},
        "renames": _parse_assignments(renames, "--rename"),
    }
    db, mtables, export_id = read_export(d)
    target, engine = connect_target(url)
    opts = _Options(
        threads=threads or default_threads(),
        schema_only=schema_only,
        data_only=data_only,
        if_exists=if_exists,
        resume=resume,
        strict=strict,
        zero_dates=zero_dates,
        max_errors=max_errors,
        verify=verify,
        nul=nul,
    )
    imp = Importer(d, target, engine, opts, on_event)
    if importer_hook is not None:
        importer_hook(imp)
    try:
        report = imp.run(db, mtables, export_id, (tuple(tables), tuple(exclude)), colopts)
    except KeyboardInterrupt:
        imp.cancel.set()
        imp.interrupt_all()
        raise Cancelled("import interrupted; run again with --resume to finish") from None
    finally:
        imp.close_all()
    if report.verify is not None and not report.verify.ok:
        from .verify import verify_error

        raise verify_error(report.verify)
    return report


def _int_option(value: Any, key: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UsageError(f"--increment {key}: the start must be an integer, got {value!r}") from None


# ---------------------------------------------------------------------------------------------
# One table from a stream (``dbjson import --table T - URL``)
# ---------------------------------------------------------------------------------------------


def import_table_stream(
    stream: IO[bytes],
    url: str,
    table: str,
    *,
    zero_dates: str = "null",
    nul: str = "error",
    set_values: Mapping[str, Any] | Sequence[str] = (),
    set_sql: Mapping[str, str] | Sequence[str] = (),
    increments: Mapping[str, int] | Sequence[str] = (),
    renames: Mapping[str, str] | Sequence[str] = (),
    batch_rows: int = 50_000,
) -> ImportReport:
    """Load JSON lines from ``stream`` into the existing table ``table`` (``schema.table`` or ``table``).

    Column kinds come from the target table itself (reflected); the lines are committed in batches
    of ``batch_rows`` (a stream cannot be resumed, so each batch is its own transaction). ``nul``:
    as for :func:`import_database` (there is no pre-flight: under ``error`` the target refuses the line).
    """
    from .reflect import reflect

    if nul not in NUL_POLICIES:
        raise UsageError("--nul must be error, strip or replace")

    start = time.monotonic()
    target, engine = connect_target(url)
    schema_name, _dot, tname = table.rpartition(".")
    db = reflect(url, tables=[table], schemas=[schema_name] if schema_name else ())
    found = [(s, t) for s, t in db.tables() if t.name == tname and (not schema_name or s.name == schema_name)]
    if not found:
        raise UsageError(f"table {table!r} does not exist in the target")
    s, t = found[0]
    renamed = _parse_assignments(renames, "--rename")
    cols = [c for c in t.columns if c.generated is None]
    back = {new: _split_option(k, "--rename")[1] for k, new in renamed.items()}
    src_cols = [m.replace(c, name=back.get(c.name, c.name)) for c in cols]
    tschema = s.name if engine.family == "postgresql" else None
    tp = TablePlan(
        schema=s.name,
        name=t.name,
        table=m.replace(t, columns=tuple(src_cols)),
        tschema=tschema,
        tname=t.name,
        columns=src_cols,
        target_names=[c.name for c in cols],
        target_types=[c.type for c in cols],
    )
    tp.value_rules = value_rules(engine, [(c, n, c.type) for c, n in zip(src_cols, tp.target_names)], nul)
    for opt, attr, conv in ((set_values, "fixed", str), (set_sql, "exprs", str), (increments, "increments", int)):
        for key, value in _parse_assignments(opt, "--" + attr).items():
            Importer._apply_column_option(tp, attr, _split_option(key, attr)[1], conv(value))
    convert = build_row_converter(engine, tp, zero_dates, "<stdin>")
    conn = engine.load_connect(target)
    report = ImportReport(target=target.display(), threads=1)
    res = report.tables[tp.display] = TableResult(tp.display, _qual(tp))
    try:
        lines = iter_lines(stream, "<stdin>")
        done = False
        count = 0
        while not done:
            batch: list[tuple[Any, ...]] = []
            for number, raw in lines:
                count += 1
                batch.append(convert(raw, number, count))
                if len(batch) >= batch_rows:
                    break
            else:
                done = True
            if batch:
                engine.load_begin(conn)
                try:
                    engine.load_unit(conn, tp, iter(batch))
                    engine.load_commit(conn)
                except Exception as e:  # noqa: BLE001
                    engine.load_rollback(conn)
                    if isinstance(e, DbjsonError):
                        raise
                    raise DataError(
                        f"the target refused the data: {_first_line(e)}", file="<stdin>", table=tp.display
                    ) from None
                res.rows += len(batch)
                res.units += 1
        report.rows = res.rows
    finally:
        engine.load_disconnect(conn)
    report.seconds = time.monotonic() - start
    return report


__all__ = [
    "import_database",
    "import_table_stream",
    "ImportReport",
    "ImportEvent",
    "TableResult",
    "TablePlan",
    "Importer",
    "read_export",
    "open_data",
    "iter_lines",
    "build_row_converter",
    "default_threads",
    "format_checksum",
    "line_hash",
]
