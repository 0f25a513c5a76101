"""The vendor-neutral schema model.

Every object of a database is a frozen dataclass. Field names *are* the JSON keys of the schema
document (see ``jsonschema/schema.json`` and ``docs/format.md``), so this module is the one place
where the document's vocabulary is defined. Collections are tuples; references are by name.

Conventions:

* Standard (SQL-92/SQL:2016) attributes are plain fields.
* Engine-specific attributes live in ``options``, a mapping namespaced by engine family
  (``{"mysql": {"engine": "InnoDB"}}``, ``{"postgresql": {"unlogged": true}}``). An engine uses its
  own namespace and maps or reports the others.
* Each column has two types: ``type`` (the best standard fit) and ``native`` (the exact source
  spelling). Same-engine DDL re-emits ``native.raw``; cross-engine DDL derives from ``type``.
* Expressions (defaults, checks, generated columns, view bodies) keep their source SQL and the
  dialect it is written in.

Serialization (``to_dict``/``from_dict``) omits fields that hold their default value, so documents
stay small and diffs stay readable; output is deterministic.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar, get_type_hints

from .__about__ import FORMAT_VERSION, __version__
from .errors import DocumentError

JSONDict = dict[str, Any]
Options = dict[str, dict[str, Any]]


# Standard type kinds (see docs/format.md, "Types").
TYPE_KINDS: tuple[str, ...] = (
    "boolean",
    "integer",
    "decimal",
    "float",
    "char",
    "varchar",
    "text",
    "binary",
    "varbinary",
    "blob",
    "date",
    "time",
    "timestamp",
    "interval",
    "year",
    "bit",
    "enum",
    "set",
    "json",
    "uuid",
    "inet",
    "macaddr",
    "geometry",
    "array",
    "money",
    "range",
    "xml",
    "vector",
    "opaque",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Type:
    """The best standard fit for a column's type: a kind plus the parameters that matter for it."""

    kind: str
    bits: int | None = None  # integer: 8/16/24/32/64; float: 32/64
    unsigned: bool = False  # integer/decimal/float (MySQL)
    precision: int | None = None  # decimal; None = unconstrained
    scale: int | None = None  # decimal
    length: int | None = None  # char/varchar (characters), binary/varbinary (bytes), bit (bits)
    max_bytes: int | None = None  # text/blob tiers (bytes); None = unbounded
    varying: bool = False  # bit varying
    fsp: int | None = None  # fractional seconds precision for time/timestamp/interval
    with_timezone: bool = False  # time/timestamp: an instant (TIMESTAMP, timestamptz)
    allows_zero: bool = False  # date/timestamp: zero dates are possible (MySQL/MariaDB)
    fields: str | None = None  # interval fields, e.g. "DAY TO SECOND"
    values: tuple[str, ...] = ()  # enum/set labels in declaration order
    type_name: str | None = None  # enum/domain/user type name (PostgreSQL)
    type_schema: str | None = None
    binary: bool = False  # json: stored in binary form (jsonb, MySQL JSON)
    family: int | None = None  # inet: 4, 6 or None for any
    network: bool = False  # inet: a network (cidr)
    subtype: str | None = None  # geometry subtype, range subtype
    srid: int | None = None  # geometry spatial reference id
    element: Type | None = None  # array element type
    dims: int | None = None  # array dimensions (informational), vector dimensions
    multi: bool = False  # range: multirange
    base: Type | None = None  # opaque/domain: standard type of the base type


@dataclass(frozen=True, slots=True, kw_only=True)
class NativeType:
    """The exact type as the source engine spells it, plus engine-only attributes."""

    engine: str
    raw: str
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Default:
    """A column default.

    ``kind`` is ``literal`` (``value`` holds the value as text, unquoted), ``function`` (a well-known
    function, named neutrally in ``value``: ``current_timestamp``, ``current_date``,
    ``current_time``, ``uuid``; ``fsp`` may be set) or ``expression`` (``value`` is SQL text in
    ``dialect``).
    """

    kind: str
    value: str
    dialect: str | None = None
    fsp: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Identity:
    """Auto-increment / identity / serial with the counter's next value."""

    kind: str  # auto_increment | identity | serial | autoincrement | rowid (SQLite)
    always: bool = False  # GENERATED ALWAYS (PostgreSQL)
    start: int | None = None
    increment: int | None = None
    min_value: int | None = None
    max_value: int | None = None
    cycle: bool = False
    cache: int | None = None
    next_value: int | None = None
    sequence: str | None = None  # owned sequence name (PostgreSQL serial/identity)


@dataclass(frozen=True, slots=True, kw_only=True)
class Generated:
    expression: str
    stored: bool = True
    dialect: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Column:
    name: str
    ordinal: int
    type: Type
    native: NativeType
    nullable: bool = True
    default: Default | None = None
    identity: Identity | None = None
    generated: Generated | None = None
    charset: str | None = None
    collation: str | None = None
    comment: str | None = None
    invisible: bool = False
    on_update: Default | None = None  # MySQL ON UPDATE CURRENT_TIMESTAMP
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class PrimaryKey:
    name: str | None = None
    columns: tuple[str, ...] = ()
    comment: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class UniqueConstraint:
    name: str
    columns: tuple[str, ...]
    nulls_not_distinct: bool = False
    deferrable: bool = False
    initially_deferred: bool = False
    comment: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ForeignKey:
    name: str
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]
    ref_schema: str | None = None  # None = the same schema
    on_update: str = "NO ACTION"  # NO ACTION | RESTRICT | CASCADE | SET NULL | SET DEFAULT
    on_delete: str = "NO ACTION"
    match: str | None = None  # SIMPLE | FULL | PARTIAL
    deferrable: bool = False
    initially_deferred: bool = False
    enforced: bool = True  # False for NOT VALID (PostgreSQL)
    comment: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    name: str
    expression: str
    dialect: str | None = None
    enforced: bool = True  # MySQL NOT ENFORCED / PostgreSQL NOT VALID
    column: str | None = None  # set for a column-level check (MariaDB)
    comment: str | None = None
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexPart:
    """One key part: a column (with optional prefix length) or an expression."""

    column: str | None = None
    expression: str | None = None
    length: int | None = None  # prefix length (MySQL)
    descending: bool = False
    nulls: str | None = None  # first | last, when not the default for the order
    opclass: str | None = None  # PostgreSQL operator class (non-default)
    collation: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Index:
    name: str
    parts: tuple[IndexPart, ...]
    unique: bool = False
    kind: str = "btree"  # btree | hash | fulltext | spatial | gin | gist | spgist | brin | rtree
    where: str | None = None  # partial index predicate (source dialect)
    include: tuple[str, ...] = ()  # covering columns (PostgreSQL INCLUDE)
    nulls_not_distinct: bool = False
    visible: bool = True  # MySQL INVISIBLE / MariaDB IGNORED
    comment: str | None = None
    dialect: str | None = None  # dialect of expressions/predicate
    constraint: bool = False  # backs a UNIQUE constraint listed in ``uniques``
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Partitioning:
    """Declarative partitioning of a table (MySQL or PostgreSQL)."""

    method: str  # range | list | hash | key | range columns | list columns | linear hash | linear key
    expression: str  # the partition key as SQL (source dialect)
    partitions: tuple[Partition, ...] = ()
    subpartitioning: str | None = None
    dialect: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Partition:
    name: str
    bound: str | None = None  # MySQL: "LESS THAN (10)"/"IN (1,2)"; PostgreSQL: "FOR VALUES FROM ..."
    comment: str | None = None
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    primary_key: PrimaryKey | None = None
    uniques: tuple[UniqueConstraint, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    checks: tuple[Check, ...] = ()
    indexes: tuple[Index, ...] = ()
    comment: str | None = None
    partitioning: Partitioning | None = None
    partition_of: str | None = None  # PostgreSQL: this table is a partition of that table
    partition_bound: str | None = None
    inherits: tuple[str, ...] = ()
    options: Options = field(default_factory=dict)
    row_estimate: int | None = None  # informational; excluded from comparisons

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)


@dataclass(frozen=True, slots=True, kw_only=True)
class View:
    name: str
    definition: str  # the SELECT body in ``dialect``
    dialect: str | None = None
    materialized: bool = False
    check_option: str | None = None  # LOCAL | CASCADED
    columns: tuple[str, ...] = ()
    comment: str | None = None
    indexes: tuple[Index, ...] = ()  # materialized views (PostgreSQL)
    options: Options = field(default_factory=dict)  # mysql: algorithm, security, definer


@dataclass(frozen=True, slots=True, kw_only=True)
class Sequence:
    name: str
    data_type: str | None = None
    start: int | None = None
    increment: int = 1
    min_value: int | None = None
    max_value: int | None = None
    cycle: bool = False
    cache: int | None = None
    next_value: int | None = None
    owned_by: str | None = None  # "table.column"
    comment: str | None = None
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class EnumType:
    name: str
    values: tuple[str, ...]
    comment: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Domain:
    name: str
    type: Type
    native: NativeType
    nullable: bool = True
    default: Default | None = None
    checks: tuple[Check, ...] = ()
    collation: str | None = None
    comment: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CompositeField:
    name: str
    type: Type
    native: NativeType


@dataclass(frozen=True, slots=True, kw_only=True)
class CompositeType:
    name: str
    fields: tuple[CompositeField, ...]
    comment: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Argument:
    name: str | None
    native: str  # type as the engine spells it
    mode: str = "IN"  # IN | OUT | INOUT | VARIADIC
    default: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Routine:
    name: str
    kind: str  # function | procedure | aggregate | window
    arguments: tuple[Argument, ...] = ()
    returns: str | None = None  # native return type
    language: str = "sql"
    body: str = ""
    definition: str | None = None  # the complete CREATE statement as the engine prints it
    dialect: str | None = None
    deterministic: bool | None = None
    security: str | None = None  # DEFINER | INVOKER
    comment: str | None = None
    signature: str | None = None  # identity arguments (PostgreSQL overloads)
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Trigger:
    name: str
    table: str
    timing: str  # BEFORE | AFTER | INSTEAD OF
    events: tuple[str, ...]  # INSERT | UPDATE | DELETE | TRUNCATE
    orientation: str = "ROW"  # ROW | STATEMENT
    body: str = ""
    definition: str | None = None  # the complete CREATE TRIGGER statement
    dialect: str | None = None
    when: str | None = None
    order: int | None = None  # action order (MySQL)
    comment: str | None = None
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """A MySQL/MariaDB scheduled event."""

    name: str
    schedule: str
    body: str
    definition: str | None = None
    status: str = "ENABLED"
    on_completion: str = "NOT PRESERVE"
    comment: str | None = None
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Schema:
    """A schema (PostgreSQL) or database (MySQL/MariaDB); SQLite has one named ``main``."""

    name: str
    tables: tuple[Table, ...] = ()
    views: tuple[View, ...] = ()
    sequences: tuple[Sequence, ...] = ()
    enums: tuple[EnumType, ...] = ()
    domains: tuple[Domain, ...] = ()
    composites: tuple[CompositeType, ...] = ()
    routines: tuple[Routine, ...] = ()
    triggers: tuple[Trigger, ...] = ()
    events: tuple[Event, ...] = ()
    comment: str | None = None
    options: Options = field(default_factory=dict)  # mysql: charset, collation

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)


@dataclass(frozen=True, slots=True, kw_only=True)
class Grant:
    privileges: tuple[str, ...]
    on: str  # object: "*.*", "db.*", "db.table", "TABLE s.t", "SCHEMA s", ...
    grantee: str
    grantable: bool = False
    statement: str | None = None  # the engine's own GRANT statement
    columns: tuple[str, ...] = ()
    # The object, structured (documents from dbjson 0.x before these fields have only ``on``):
    # table | sequence | schema | function | procedure | type | domain | database | global
    object_type: str | None = None
    schema: str | None = None  # the object's schema (PostgreSQL) or database (MySQL)
    name: str | None = None  # the object's name (None for a schema, database or global grant)
    signature: str | None = None  # a routine's identity arguments (PostgreSQL)


@dataclass(frozen=True, slots=True, kw_only=True)
class User:
    """A MySQL account (``user@host``) or a PostgreSQL role. Never carries a password."""

    name: str
    host: str | None = None
    can_login: bool = True
    superuser: bool = False
    member_of: tuple[str, ...] = ()
    grants: tuple[Grant, ...] = ()
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    engine: str  # mysql | mariadb | postgresql | sqlite
    server_version: str
    database: str
    dumped_at: str  # ISO 8601 UTC
    dbjson_version: str = __version__
    host: str | None = None  # host[:port], never credentials
    options: Options = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Database:
    """The root of a schema document."""

    FORMAT: ClassVar[str] = "dbjson-schema"

    source: Source
    schemas: tuple[Schema, ...]
    format: str = "dbjson-schema"
    format_version: str = FORMAT_VERSION
    users: tuple[User, ...] = ()
    # Object privileges on the reflected objects (to roles other than the object's owner); re-applied
    # by schema-load, import and migrate when their roles exist in the target (docs/format.md).
    grants: tuple[Grant, ...] = ()
    options: Options = field(default_factory=dict)

    # -- document I/O -------------------------------------------------------------------------
    def to_dict(self) -> JSONDict:
        """The document as plain JSON data (what ``to_json`` serialises), ``format`` keys first."""
        d = to_dict(self)
        # format/format_version first, for readability of the document head.
        head = {"format": self.format, "format_version": self.format_version}
        head.update((k, v) for k, v in d.items() if k not in head)
        return head

    def to_json(self) -> str:
        """Serialize to the canonical document text (indent 2, final newline; deterministic)."""
        import orjson

        return orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE).decode()

    @classmethod
    def from_dict(cls, doc: JSONDict, *, validate: bool = True) -> Database:
        if validate:
            # lazy: jsonschema is imported only when a document is validated (start-up time)
            from .validate import check_document

            check_document(doc)
        return from_dict(cls, doc)

    @classmethod
    def from_json(cls, text: str | bytes, *, validate: bool = True, filename: str | None = None) -> Database:
        """Parse and (by default) validate a schema document."""
        import orjson

        try:
            doc = orjson.loads(text)
        except orjson.JSONDecodeError as e:
            raise DocumentError(f"malformed JSON: {e}", file=filename) from None
        if not isinstance(doc, dict):
            raise DocumentError("a schema document must be a JSON object", file=filename)
        try:
            return cls.from_dict(doc, validate=validate)
        except DocumentError as e:
            if filename and not e.file:
                e.file = filename
            raise

    # -- navigation ----------------------------------------------------------------------------
    def schema(self, name: str) -> Schema:
        """The schema called ``name`` (raises ``KeyError`` if there is none)."""
        for s in self.schemas:
            if s.name == name:
                return s
        raise KeyError(name)

    def tables(self) -> typing.Iterator[tuple[Schema, Table]]:
        """Every table with its schema, in document order."""
        for s in self.schemas:
            for t in s.tables:
                yield s, t


# --------------------------------------------------------------------------------------------
# Generic (de)serialization
# --------------------------------------------------------------------------------------------


def _is_default(f: dataclasses.Field[Any], value: Any) -> bool:
    if f.default is not dataclasses.MISSING:
        return bool(value == f.default)
    if f.default_factory is not dataclasses.MISSING:
        return bool(value == f.default_factory())
    return False


def to_dict(obj: Any) -> Any:
    """Convert a model object to JSON-ready data, omitting fields at their default."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: JSONDict = {}
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if _is_default(f, v):
                continue
            out[f.name] = to_dict(v)
        return out
    if isinstance(obj, (tuple, list)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {k: to_dict(obj[k]) for k in sorted(obj)}
    return obj


T = TypeVar("T")
_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    h = _HINTS.get(cls)
    if h is None:
        h = _HINTS[cls] = get_type_hints(cls)
    return h


def _convert(tp: Any, value: Any, path: str) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(args[0], value, path) if len(args) == 1 else value
    if origin is tuple:
        (elem, *_rest) = typing.get_args(tp)
        if not isinstance(value, list):
            raise DocumentError(f"expected an array at {path}", pointer=path)
        return tuple(_convert(elem, v, f"{path}/{i}") for i, v in enumerate(value))
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return from_dict(tp, value, path)
    if origin is dict:
        return dict(value)
    return value


def from_dict(cls: type[T], data: Any, path: str = "") -> T:
    """Build a model object from JSON data (already validated, or trusted)."""
    if not isinstance(data, dict):
        raise DocumentError(f"expected an object at {path or '/'}", pointer=path or "/")
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for key, value in data.items():
        if key not in names:
            raise DocumentError(f"unknown field {key!r} at {path or '/'}", pointer=f"{path}/{key}")
        kwargs[key] = _convert(hints[key], value, f"{path}/{key}")
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise DocumentError(f"invalid object at {path or '/'}: {e}", pointer=path or "/") from None


def replace(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` with a friendlier name for the frozen model."""
    return dataclasses.replace(obj, **changes)  # type: ignore[type-var]


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
