"""The engine contract: what the commands may ask of an engine, and the values that cross.

Layer: engines. The commands (reflect, export, import, verify, migrate, schema-diff) build the
values below and call an engine's hooks; the engines read them and never import a command module.

An engine plays four roles, each a :class:`~typing.Protocol` here: :class:`Reflector` (catalog →
model), :class:`DdlDialect` (model → DDL, implemented by the ddl kit's
:class:`~dbjson.ddl.walker.BaseDDL` and the engine's ``ddl.py``), :class:`Exporter` (snapshot and
row export) and :class:`Loader` (bulk load, with :class:`VerifyReader` reading the rows back).
:class:`~dbjson.engines.base.Engine` inherits them all, so every hook is declared and mypy checks
each engine's mixins against these signatures. What an engine can do differently is one record,
:class:`Capabilities` (``engine.capabilities``): callers test a field, never ``hasattr``; an
optional hook the engine does not have keeps ``Engine``'s default (it raises
:class:`~dbjson.errors.UnsupportedError` or returns a neutral value, as its docstring says).

Not to be confused with the ``[capabilities]`` table of ``dialects/<name>.toml``: that one says
what the engine's SQL can express (read by the DDL kit), this one what the engine's code does.
"""

from __future__ import annotations

import fnmatch
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .. import model as m
from ..connect import Target
from ..ddl.columns import ColumnParts
from ..ddl.context import Context
from ..ddl.plan import DdlPlan, Statement
from ..ddl.tableinfo import TableInfo
from ..format.checksum import DEFAULT_CHECKSUM
from ..format.datafiles import DataFile
from ..format.manifest import SnapshotInfo
from .shared.bulktext import BulkText

BLOCK_BYTES = 1 << 18  # engines yield export blocks of about this size


@dataclass
class ExportUnit:
    """One slice of one table: ``lower <= key < upper`` over ``key_columns`` (None = unbounded)."""

    schema: str
    table: m.Table
    index: int = 0  # position within the table's units
    count: int = 1  # number of units of the table
    key_columns: tuple[str, ...] = ()
    lower: tuple[Any, ...] | None = None
    upper: tuple[Any, ...] | None = None
    rows_estimate: int = 0
    where: str | None = None
    bytes_estimate: int = 0  # the unit's share of the table's size on disk (0: unknown); orders the work
    # json columns written as the JSON string of their exact text (data format 1.3), the others
    # nested: the columns :meth:`Exporter.export_json_text` names, except for a stream export
    # (``--table T -o -``), which has no manifest to say so and writes every json value nested
    json_text: frozenset[str] = frozenset()

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.table.name}"


@dataclass
class TablePlan:
    """One table to load: source and target names, column mapping and the column options."""

    schema: str
    name: str
    table: m.Table
    tschema: str | None
    tname: str
    columns: list[m.Column]  # source columns present in the data, in ordinal order
    target_names: list[str]
    target_types: list[m.Type]
    fixed: dict[str, str] = field(default_factory=dict)  # target column → value (text)
    # Target column → SQL expression evaluated by the target. The expression sees the row's data
    # columns (target names) with their source values, its own column included (``email=md5(email)``);
    # a column it replaces stays in ``target_names`` (it carries the source value) and is written
    # once, from the expression (``direct_columns`` lists the others).
    exprs: dict[str, str] = field(default_factory=dict)
    increments: dict[str, int] = field(default_factory=dict)  # target column → first value
    files: list[DataFile] = field(default_factory=list)
    rows: int | None = None
    checksum: str | None = None
    checksum_algorithm: str = DEFAULT_CHECKSUM  # the manifest's, for ``checksum``
    skipped: bool = False
    base_rows: int = 0  # rows the table had before this import (--data-only into a non-empty table)
    kept: bool = False  # the table was already there (--if-exists truncate): its indexes and keys too
    # Source column → how the load changes its values on purpose (zero dates → NULL, NUL characters
    # stripped or replaced): see dbjson.preflight.value_rules; verify applies the same rules.
    value_rules: dict[str, str] = field(default_factory=dict)
    ddl_only: bool = False  # a PostgreSQL partition: created, its rows come with its partitioned table
    # Every column of the lines (manifest order) with its target name and type: what verify reads.
    verify_columns: list[tuple[m.Column, str, m.Type]] = field(default_factory=list)
    # What ``checksum`` sums: "lines" (the canonical JSON lines, as in a manifest) or the name of the
    # engine's native row format (``Capabilities.native_stream``: a migrate that moved the rows in
    # it; verify compares ``verify_native_checksum``).
    checksum_kind: str = "lines"
    # Source json columns whose values are the JSON string of their exact text (the manifest's
    # ``json_text``, data format 1.3); the others are nested
    json_text: frozenset[str] = frozenset()
    # The export's checksum through verify's expected-line function (the value rules, then the
    # by-meaning form: ``verify.expected_lines``), when the load computed it from the very lines it
    # loaded (``dbjson migrate``); verify then need not read the source again.
    expected_semantic: str | None = None

    @property
    def display(self) -> str:
        return f"{self.schema}.{self.name}" if self.schema else self.name

    @property
    def insert_columns(self) -> list[str]:
        """Target columns fed with values, in row-tuple order: data, fixed values, counters."""
        return self.target_names + list(self.fixed) + list(self.increments)

    @property
    def direct_columns(self) -> list[str]:
        """``insert_columns`` written as they are: those an expression (``exprs``) replaces left out."""
        return [c for c in self.insert_columns if c not in self.exprs]

    @property
    def altered(self) -> bool:
        """True when column options change the content (verify then compares counts only)."""
        return bool(self.fixed or self.exprs or self.increments)


@dataclass(frozen=True, kw_only=True)
class ReflectOptions:
    """What to reflect. Globs match ``table`` or ``schema.table`` (case-sensitive)."""

    tables: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    grants: bool = False  # users and roles, with all their grants
    privileges: bool = True  # object privileges on the reflected objects (``Database.grants``)
    schemas: tuple[str, ...] = ()  # PostgreSQL schemas / MySQL databases; () = the URL's default
    all_databases: bool = False  # MySQL: a URL without a database reads every database (else an error)
    # Every (schema, relation) an engine asked ``wants`` about: what the filters chose from
    # (dbjson.filters.check_filters tells a glob that matches nothing from one that was excluded).
    seen: set[tuple[str, str]] = field(default_factory=set, compare=False, repr=False)
    # Connections in the same snapshot as the reflecting one and idle meanwhile (an export's other
    # workers): an engine may run some catalog queries on them at the same time (PostgreSQL)
    helpers: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    def wants(self, schema: str, table: str) -> bool:
        self.seen.add((schema, table))
        names = (table, f"{schema}.{table}")
        if self.tables and not any(fnmatch.fnmatchcase(n, g) for g in self.tables for n in names):
            return False
        return not any(fnmatch.fnmatchcase(n, g) for g in self.exclude for n in names)


# -- capabilities --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Capabilities:
    """What one engine's hooks can do, beyond what every engine does (``engine.capabilities``).

    Every field must be given: adding one makes each engine decide its value.
    """

    # -- the server
    mariadb: bool  # the MySQL family's MariaDB variant (reflect and DDL read it as ``is_mariadb``)
    # a database holds named schemas that tables are created in (PostgreSQL); False: the tables go
    # into the URL's database (MySQL's schemas are databases; SQLite's file)
    schemas: bool
    # -- export (Exporter)
    # How sessions on other machines join one snapshot (``export_cluster_snapshot``): "exported"
    # (any session may join while the coordinator's transaction is open: stateless tasks),
    # "held" (sessions join only while the coordinator holds a lock: long-lived workers), None (no
    # cluster export).
    cluster_snapshot: Literal["exported", "held"] | None
    server_side_json: bool  # lines may be built by the server or in C; False: every row through the Python codec
    filters_preflight: bool  # ``preflight_condition`` turns pre-flight checks into SQL (migrate reads fewer rows)
    # -- load (Loader)
    parallel_writers: bool  # units load on several connections at once (SQLite: one writer)
    # a unit's uncommitted rows lock its whole table (MariaDB: a bulk insert into an empty InnoDB
    # table locks it), so another unit of the table waits for that unit's commit
    unit_locks_table: bool
    checks_foreign_keys: bool  # a kept table's foreign keys are checked during the load: order the units
    defers_primary_key: bool  # tables the import creates get their primary key after the data
    # a table's CREATE INDEX statements may run at once, on several connections (PostgreSQL: each
    # takes a SHARE lock, which does not conflict with another's); else one after another
    parallel_index_builds: bool
    holds_zero_dates: bool  # zero dates load as they are (else NULL or an error: --zero-dates)
    # The engine's own row format that it both exports (``export_native_stream``) and loads
    # (``load_native_unit``) and whose text it can read back for verify (``verify_native_checksum``),
    # named ("postgresql-copy-text"): a migrate between two servers of an engine with one moves rows
    # in it, without the JSON round trip, when ``load_native_refusal`` allows it; None: no such format.
    native_stream: str | None
    elapsed_time: bool  # ``time`` is an elapsed time (MySQL: -838:59:59..838:59:59), not a time of day
    # dates and timestamps are text in the engine (SQLite): it writes them in its canonical form
    # (YYYY-MM-DD HH:MM:SS[.fff]), and a source of this engine may hold any text in such a column
    dates_as_text: bool
    # a decimal column without a declared precision stores a binary float (SQLite's NUMERIC
    # affinity): 2.70 reads back 2.7, so verify compares such columns by value
    decimals_as_float: bool
    text_holds_nul: bool  # text and json columns can hold U+0000 (else --nul error|strip|replace)
    json_numbers_exact: bool  # binary JSON keeps numbers exactly: json columns load the line's own text
    integer_limit: tuple[int, int] | None  # what any integer column stores, whatever its declared type
    # The tab-separated text the bulk loader reads (load_encode_rows, load_encode_columns,
    # load_bulk_op, load_unit_encoded); None: the loader takes Python values (those hooks raise).
    bulk_text: BulkText | None
    # -- verify (VerifyReader)
    verify_parts: bool  # verify_select takes ``part=``: big tables are read back in parts
    # dates and timestamps can be PostgreSQL's 'infinity' / '-infinity' (as they are, or as text);
    # else such values load as NULL or stop the import (--zero-dates), and such defaults are dropped
    holds_infinite_dates: bool = True


# -- the roles -----------------------------------------------------------------------------------

# retry: transient (deadlock, lock timeout), run again; disconnect: the connection is lost, reconnect
# and run again; exists: the object is already there; data: a row or value the server refused;
# resource: the server is out of something no retry or row can fix (disk full, out of memory);
# other: anything else.
LoadErrorKind = Literal["retry", "disconnect", "exists", "data", "resource", "other"]


class Reflector(Protocol):
    """Catalog → model (``engines/<family>/reflect.py``)."""

    def reflect_database(self, conn: Any, target: Target, options: ReflectOptions) -> m.Database:
        """The database behind the raw connection ``conn`` as the schema model, what ``options`` selects."""


class DdlDialect(Protocol):
    """Model → DDL: the hooks the commands call (``to_ddl``, ``apply_ddl``, the import, schema-diff).

    Implemented by the ddl kit's :class:`~dbjson.ddl.walker.BaseDDL` (the walker, which also asks the
    engine for many smaller ``ddl_*`` pieces) and each engine's ``ddl.py``.
    """

    def ddl_plan(self, ctx: Context) -> DdlPlan:
        """Translate ``ctx.db`` into a DDL plan for this engine (pre-data, post-data, report)."""

    def ddl_script_statement(self, stmt: Statement) -> str:
        """One statement as it appears in a script (terminated for the engine's client)."""

    def ddl_database_options(self, db: m.Database) -> str:
        """The CREATE DATABASE clause that gives a new database ``db``'s defaults (character set,
        collation, encoding) when ``db`` comes from this engine; ``""`` when there is nothing to carry."""

    def ddl_session_begin(self, conn: Any) -> None:
        """Prepare a raw connection for a schema load: one open transaction where DDL is
        transactional (PostgreSQL, SQLite), the session rules the DDL is written for elsewhere
        (MySQL/MariaDB: the sql_mode a dump restores under)."""

    def ddl_session_commit(self, conn: Any) -> None:
        """Commit a schema load's transaction (``ddl_session_begin``)."""

    def ddl_session_rollback(self, conn: Any) -> None:
        """Roll a schema load's transaction back (nothing to do where DDL is not transactional)."""

    def ddl_session_autocommit(self, conn: Any) -> None:
        """From now on each statement commits on its own (privileges: one refused does not undo
        the others; CREATE DATABASE, which PostgreSQL runs outside a transaction)."""

    def ddl_create_database_sql(self, name: str, defaults: str) -> tuple[str, str, str | None] | None:
        """Creating database ``name`` with the ``ddl_database_options`` clause ``defaults``: (a query
        with one parameter, the name, that returns a row when it exists; the CREATE DATABASE
        statement; the database an administrative connection opens, None: none). None where a
        database is a file its first connection creates (SQLite)."""

    def ddl_drop_statements(self, plan: DdlPlan) -> list[Statement]:
        """Statements that remove the plan's tables and views (``--if-exists replace``)."""

    def ddl_existing_objects(self, conn: Any, plan: DdlPlan) -> set[str]:
        """Quoted, qualified names (as in ``Statement.object``) of the plan's relations and types that exist."""

    def ddl_undo_statements(self, created: list[Statement]) -> list[Statement]:
        """Statements that remove what ``created`` (statements this run ran, in order) made, last
        first: how a failed load on a target without transactional DDL leaves no half schema."""

    def ddl_column_parts(
        self, ctx: Context, t: TableInfo, col: m.Column, path: str
    ) -> tuple[ColumnParts, list[Statement], list[Statement]]:
        """One column's definition parts, its post-data statements and its restarts."""

    def ddl_column_sql(self, ctx: Context, t: TableInfo, p: ColumnParts) -> str:
        """A column definition rendered from its parts."""

    def ddl_primary_key(self, ctx: Context, t: TableInfo, pk: m.PrimaryKey, path: str) -> str:
        """The PRIMARY KEY clause of a table."""

    def ddl_unique_clause(self, ctx: Context, t: TableInfo, u: m.UniqueConstraint, path: str) -> str | None:
        """A UNIQUE constraint clause, or None when it is dropped (reported)."""

    def ddl_check_expression(self, ctx: Context, t: TableInfo, chk: m.Check, path: str) -> str | None:
        """A CHECK's condition for this engine, or None when it is dropped or declared on its column."""

    def ddl_check_clause(self, ctx: Context, t: TableInfo, name: str, sql: str, path: str) -> str:
        """A named CHECK constraint clause around a condition from ``ddl_check_expression``."""

    def ddl_fk_clause(self, ctx: Context, t: TableInfo, fk: m.ForeignKey, path: str) -> str | None:
        """A FOREIGN KEY constraint clause, or None when it is dropped (reported)."""

    def ddl_index(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> Statement | None:
        """The CREATE INDEX statement of an index, or None when it is dropped (reported)."""

    def ddl_view(self, ctx: Context, schema: m.Schema, view: m.View, tschema: str | None, path: str) -> list[Statement]:
        """The statements that create a view."""

    def ddl_routine(
        self, ctx: Context, schema: m.Schema, r: m.Routine, tschema: str | None, path: str
    ) -> list[Statement]:
        """The statements that create a function or procedure."""

    def ddl_trigger(
        self, ctx: Context, schema: m.Schema, trg: m.Trigger, tschema: str | None, path: str
    ) -> list[Statement]:
        """The statements that create a trigger."""

    def ddl_event(self, ctx: Context, schema: m.Schema, ev: m.Event, tschema: str | None, path: str) -> list[Statement]:
        """The statements that create a scheduled event."""

    def ddl_alter_add_column_sql(self, qtable: str, coldef: str) -> str:
        """ALTER TABLE ... ADD COLUMN for a definition rendered by ``ddl_column_sql``."""

    def ddl_alter_drop_column_sql(self, qtable: str, column: str) -> str:
        """ALTER TABLE ... DROP COLUMN."""

    def ddl_alter_column_sql(
        self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, coldef: str, fields: set[str]
    ) -> list[str]:
        """Statements that give an existing column the definition ``parts`` (``fields`` changed)."""

    def ddl_add_constraint_sql(self, qtable: str, clause: str) -> str:
        """ALTER TABLE ... ADD a constraint clause (primary key, unique, check, foreign key)."""

    def ddl_drop_constraint_sql(self, qtable: str, kind: str, name: str | None) -> str:
        """ALTER TABLE ... DROP a constraint (``kind``: primary_key, unique, check or foreign_key)."""

    def ddl_drop_sql(
        self, kind: str, schema: str | None, name: str, table: str | None = None, signature: str | None = None
    ) -> str:
        """DROP of a schema object (table, view, index, sequence, trigger, routine, event, type...)."""

    def ddl_table_comment_sql(self, qtable: str, comment: str | None) -> str:
        """Set (or, with None, remove) a table's comment."""

    def ddl_alters_in_place(self) -> bool:
        """Whether ALTER TABLE changes columns and constraints in place (else tables are rebuilt)."""

    def ddl_rebuild_table_sql(
        self, qtable: str, qtemp: str, name: str, create_sql: str, insert_columns: list[str], select_columns: list[str]
    ) -> list[str]:
        """Replace table ``qtable`` by ``create_sql`` (which creates ``qtemp``), keeping its rows."""


class Exporter(Protocol):
    """Snapshot and row export, the source side of export and migrate (``engines/<family>/export.py``)."""

    export_connect_concurrently: bool  # open the export connections on threads, at the same time
    export_plan_concurrently: bool  # plan the tables on every worker at the same time (export.plan_tables)

    def export_connect(self, target: Target) -> Any:
        """A new raw connection for one worker."""

    def export_session(self, conn: Any) -> None:
        """Set a connection up for export (time zone, text forms, timeouts)."""

    def export_snapshot(self, coordinator: Any, workers: Sequence[Any], warn: Callable[[str], None]) -> SnapshotInfo:
        """Put every worker on one snapshot (``coordinator`` None: the one worker's own transaction)."""

    def export_cluster_snapshot(
        self, coordinator: Any, join_all: Callable[[SnapshotInfo], None], warn: Callable[[str], None]
    ) -> SnapshotInfo:
        """One snapshot for sessions in other processes: take what makes it consistent on
        ``coordinator``, call ``join_all(snapshot)`` (each session runs :meth:`export_join_snapshot`), release
        what must not stay held (``capabilities.cluster_snapshot`` says which kind)."""

    def export_join_snapshot(self, conn: Any, snapshot: SnapshotInfo) -> None:
        """Start ``conn``'s transaction on the snapshot of :meth:`export_cluster_snapshot`."""

    def export_current_schema(self, conn: Any) -> str | None:
        """The schema an unqualified table name means on ``conn``."""

    def export_estimate(self, conn: Any, schema: str, table: m.Table) -> int | None:
        """The catalog's row estimate of a table, or None when there is none."""

    def export_stats(self, conn: Any, schema: str, table: m.Table) -> tuple[int | None, int | None]:
        """(the catalog's row estimate, the table's size on disk in bytes), each None when unknown:
        one round trip where the engine can (the size is current even when the statistics are not)."""

    def export_refresh(self, conn: Any) -> None:
        """Release the locks a worker's snapshot transaction took so far, keeping its snapshot."""

    def export_count(self, conn: Any, schema: str, table: m.Table, where: str | None) -> int:
        """The exact row count of a table (under a ``--where`` condition)."""

    def export_key_bounds(
        self, conn: Any, schema: str, table: m.Table, column: str, where: str | None
    ) -> tuple[Any, Any]:
        """The smallest and largest value of an integer key column."""

    def export_key_boundaries(
        self, conn: Any, schema: str, table: m.Table, columns: Sequence[str], where: str | None, every: int, limit: int
    ) -> list[tuple[Any, ...]]:
        """Up to ``limit`` keys, every ``every`` rows in key order (the lower bounds of units 2..n)."""

    def export_stream(self, conn: Any, unit: ExportUnit, stop: threading.Event) -> Iterator[bytes]:
        """Blocks of complete canonical lines (about :data:`BLOCK_BYTES`) of one unit, until ``stop``
        (the json columns of ``unit.json_text`` as the JSON string of their text)."""

    def export_json_text(self, column: m.Column) -> bool:
        """Whether the engine stores the values of ``column`` (a json column) as text, which an
        export then writes as the JSON string of that exact text (MariaDB JSON, PostgreSQL
        ``json``, SQLite) rather than nested (MySQL JSON and ``jsonb``: binary, already normalised)."""

    def export_abort(self, conn: Any) -> None:
        """Stop the statement streaming on ``conn`` at once (called from another thread)."""

    def export_native_stream(
        self, conn: Any, unit: ExportUnit, columns: Sequence[str], stop: threading.Event
    ) -> Iterator[bytes]:
        """Blocks of complete rows of one unit in the engine's native row format
        (``capabilities.native_stream``; one row per ``\\n``-terminated line), the values of
        ``columns`` in that order, until ``stop``. Optional: by default UnsupportedError."""

    def preflight_condition(self, column: m.Column, cond: tuple[Any, ...]) -> str | None:
        """SQL true for every value of ``column`` failing a pre-flight check, or None.

        Optional (``capabilities.filters_preflight``): by default None (every row is read)."""


class Loader(Protocol):
    """Bulk load, the target side of import and migrate (``engines/<family>/load.py``)."""

    def load_connect(self, target: Target, *, data_only: bool = False, lock_timeout: float = 10.0) -> Any:
        """A connection set up for bulk loading (its session settings saved to be restored)."""

    def load_disconnect(self, conn: Any) -> None:
        """Restore the session settings and close."""

    def load_interrupt(self, conn: Any, target: Target) -> None:
        """Cancel the statement running on ``conn`` (called from another thread)."""

    def load_begin(self, conn: Any) -> None:
        """Begin a unit's transaction."""

    def load_commit(self, conn: Any) -> None:
        """Commit a unit's transaction."""

    def load_rollback(self, conn: Any) -> None:
        """Roll a unit's transaction back (nothing when the connection is gone)."""

    def load_execute_ddl(self, conn: Any, sql: str) -> None:
        """Run one DDL statement."""

    def load_existing_tables(self, conn: Any, schemas: set[str | None]) -> set[tuple[str | None, str]]:
        """The (schema, table) pairs that exist in ``schemas`` (None: the connection's default)."""

    def load_existing_roles(self, conn: Any) -> set[str] | None:
        """The roles (PostgreSQL, with ``PUBLIC``) or accounts (MySQL ``user@host``) of the target,
        in the spelling of ``ddl_role_key``; None when they cannot be read (privileges are then tried)."""

    def load_truncate(self, conn: Any, schema: str | None, table: str) -> None:
        """Empty one table."""

    def load_truncate_tables(self, conn: Any, tables: Sequence[tuple[str | None, str]]) -> None:
        """Empty the tables ``--if-exists truncate`` keeps (by default one ``load_truncate`` each)."""

    def load_drop(self, conn: Any, schema: str | None, table: str) -> None:
        """Drop one table if it exists."""

    def load_count(self, conn: Any, schema: str | None, table: str) -> int:
        """The table's row count."""

    def load_collations(self, conn: Any, schema: str | None, table: str) -> dict[str, str]:
        """Column → collation for the table's columns that compare case- or accent-insensitively."""

    def load_not_null_columns(self, conn: Any, schema: str | None, table: str) -> set[str]:
        """The table's NOT NULL columns as created (optional: by default UnsupportedError)."""

    def load_merge_indexes(self, statements: Sequence[Statement]) -> list[Statement]:
        """Post-data statements with each table's indexes merged into one (by default unchanged)."""

    def load_converter(self, src: m.Type, tgt: m.Type, *, zero_dates: str = "null") -> Callable[[Any], Any] | None:
        """JSON value (non-null) of a ``src`` column → the loader's input for ``tgt`` (None: as is)."""

    def load_bulk_op(self, src: m.Type, tgt: m.Type, *, zero_dates: str = "null") -> str | None:
        """``load_converter`` as a ``dbjson._cimport`` operation name, or None (``capabilities.bulk_text``)."""

    def load_encode_rows(self, rows: Sequence[Sequence[Any]]) -> bytes:
        """Bulk text of converted rows (``capabilities.bulk_text``; otherwise UnsupportedError)."""

    def load_encode_columns(self, cols: Sequence[Sequence[Any]]) -> bytes:
        """Bulk text of converted rows given as columns (``capabilities.bulk_text``)."""

    def load_can_encode(self, conn: Any, tp: TablePlan) -> bool:
        """Whether blocks encoded elsewhere can be streamed for ``tp`` now (by default False)."""

    def load_unit_encoded(self, conn: Any, tp: TablePlan, blocks: Iterator[bytes]) -> int:
        """Load blocks of encoded bulk text into ``tp`` (in the caller's transaction); the row count."""

    def load_unit(self, conn: Any, tp: TablePlan, rows: Iterator[tuple[Any, ...]]) -> int:
        """Load converted rows into ``tp`` (in the caller's transaction); the row count."""

    def load_native_refusal(self, tp: TablePlan, source: Any) -> str | None:
        """Why rows of ``tp`` exported by ``source`` (an engine) in the native row format cannot be
        loaded as they are (column options, changed types, values whose text depends on settings
        the two sides may not share...), or None when they can. By default: no native format."""

    def load_native_unit(self, conn: Any, tp: TablePlan, blocks: Iterator[bytes]) -> int:
        """Load blocks of ``export_native_stream`` rows into ``tp`` (in the caller's transaction);
        the server's row count. Optional (``capabilities.native_stream``)."""

    def load_row_safely(self, conn: Any, tp: TablePlan, row: tuple[Any, ...]) -> None:
        """Load one row under a savepoint (rolled back to on failure, then re-raised)."""

    def load_error_kind(self, exc: BaseException) -> LoadErrorKind:
        """How the import handles an error: retry, disconnect, exists, data or other."""

    def load_error_column(self, exc: BaseException, tp: TablePlan, row: tuple[Any, ...]) -> tuple[str | None, Any]:
        """The column (and its value in ``row``) a server error names, when it names one."""

    def load_error_detail(self, exc: BaseException) -> tuple[str | None, str | None]:
        """The constraint a server error names and the server's detail line (by default none)."""

    def load_durability(self, conn: Any) -> str | None:
        """Why the server may lose a commit it acknowledged if it crashes (a server-wide setting
        the loader cannot change), or None (by default none)."""

    def load_lock_holders(self, conn: Any, schema: str | None, table: str) -> list[str]:
        """Who holds or waits for locks on the table (other sessions: id, user, state, statement),
        to name them when a lock wait timed out (by default none known)."""

    def load_session(self, conn: Any) -> str | None:
        """The server's id of ``conn``'s session, journalled with a unit about to commit (read from
        the connection, no round trip), or None (by default: none known)."""

    def load_sessions_busy(self, conn: Any, sessions: Sequence[str]) -> list[str]:
        """Those of ``sessions`` (``load_session`` ids read back from a journal: hostile text) that
        still run a statement (a COMMIT sent by an import that died: the server may still be
        committing it). By default none."""


class VerifyReader(Protocol):
    """Reading a loaded table back for ``verify`` (``engines/<family>/load.py``)."""

    def verify_select(
        self, conn: Any, tp: TablePlan, part: tuple[str, int, int] | None = None
    ) -> Iterator[tuple[Any, ...]]:
        """The target rows of ``tp.verify_columns``, streamed; ``part`` = (integer key column, k, n):
        only the rows whose key is k modulo n (``capabilities.verify_parts``)."""

    def verify_adapters(self, tp: TablePlan) -> dict[str, Callable[[Any], Any]]:
        """Per source column: the target driver's value → a value the source kind's encoder takes."""

    def verify_native_checksum(
        self,
        target: Target,
        tp: TablePlan,
        part: tuple[str, int, int] | None = None,
        seal: dict[str, int] | None = None,
    ) -> Any:
        """The :class:`~dbjson.format.checksum.Checksum` (``tp.checksum_algorithm``) of the target
        table's rows of ``tp.target_names`` in the native row format, one line per row, as
        ``export_native_stream`` writes them under the same session settings; None when it cannot
        be read. ``part`` = (integer key column, k, n): only the rows whose key is k modulo n.
        ``seal`` (a dict, filled): in the same snapshot as the rows, what
        :meth:`verify_native_unchanged` compares later to prove that no row changed since.
        Optional (``capabilities.native_stream``)."""

    def verify_native_unchanged(self, target: Target, tp: TablePlan, seal: dict[str, int]) -> bool:
        """True when the target table's rows are provably the ones read when ``seal`` was filled
        by :meth:`verify_native_checksum` (no row inserted, updated or deleted since); False
        when they changed or it cannot tell. Optional (``capabilities.native_stream``)."""

    def verify_export_column(self, source: m.Column, target: m.Type) -> m.Column:
        """The column under which this engine's own export (``export_stream``) of a loaded column
        of type ``target`` spells the values of the ``source`` column exactly as the source's
        export did, where the two types spell equal values differently (a ``timestamptz`` kept in
        a MySQL DATETIME: the same UTC instant without the ``Z``). ``verify.exact_check`` exports
        the target under these columns, so that only a real difference reaches the per-row check.
        By default the source column under the target type (the target's own spelling)."""
