"""Render the changes of a :class:`~dbjson.schemadiff.compare.SchemaDiff` as the ALTER/CREATE/DROP
statements of one dialect (``dbjson diff --ddl``, the rendering half), through the engine's own
schema-load DDL (``dbjson/ddl``, ``engines/*/ddl.py``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from .. import model as m
from ..ddl.context import Context
from ..ddl.order import table_order, view_order
from ..ddl.plan import Statement
from ..engines import get_engine
from .compare import MATCH_KEYS, Change, SchemaDiff, schema_pairs

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Skipped:
    """A change for which no statement was emitted, and why."""

    change: Change
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"change": self.change.to_dict(), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class DiffDdl:
    """The statements that turn B into A for one dialect, in a safe order, plus what was skipped."""

    dialect: str
    server_version: str
    statements: tuple[Statement, ...]
    skipped: tuple[Skipped, ...] = ()

    def script(self) -> str:
        """A SQL script for the dialect's client; skipped changes are listed as comments first."""
        engine = get_engine(self.dialect, self.server_version)
        lines = [
            f"-- skipped: {s.change.op} {s.change.kind} {s.change.object}"
            f"{' ' + s.change.field if s.change.field else ''}: {s.reason}"
            for s in self.skipped
        ]
        lines += [engine.ddl_script_statement(s) for s in self.statements]
        return "\n".join(lines) + ("\n" if lines else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "dialect": self.dialect,
            "statements": [{"sql": s.sql, "kind": s.kind, "object": s.object} for s in self.statements],
            "skipped": [s.to_dict() for s in self.skipped],
        }


# Phases, in execution order: what others depend on is dropped first and created first.
_PHASES = (
    "drop_fk",
    "drop_triggers",
    "drop_views",
    "drop_objects",
    "drop_keys",
    "types",
    "tables",
    "columns",
    "drop_columns",
    "keys",
    "foreign_keys",
    "routines",
    "views",
    "triggers",
    "events",
    "comments",
    "drop_tables",
    "drop_types",
)


def diff_ddl(d: SchemaDiff, dialect: str | None = None, *, allow_drop: bool = False) -> DiffDdl:
    """The ALTER/CREATE/DROP statements that turn B into A, for ``dialect`` (default: B's engine).

    Order: foreign keys, views, triggers, routines and keys that go away are dropped first; then
    types and sequences, tables, column changes, keys and indexes, foreign keys, routines, views,
    triggers; tables and types are dropped last. Destructive changes (a dropped table, column,
    sequence or type, a narrowing type change) are emitted only with ``allow_drop``, else listed
    in :attr:`DiffDdl.skipped`, like changes the dialect cannot express from the document. A change
    the dialect cannot make at all (SQLite altering a column) raises
    :class:`~dbjson.errors.UnsupportedError`.
    """
    name = get_engine(dialect or d.b.source.engine).name
    version = d.b.source.server_version if name == d.b.source.engine else None
    engine = get_engine(name, version)
    return _DdlBuilder(d, engine, allow_drop).build()


def _name(obj: Any) -> str:
    return str(obj.name)


# Kinds of change that belong to a table (a rebuilt table takes them all), and its constraints.
_IN_TABLE = {"column", "primary_key", "unique", "foreign_key", "check", "index"}
_CONSTRAINTS = {"primary_key", "unique", "foreign_key", "check"}


def _at(db: m.Database, path: str, attr: str) -> tuple[m.Schema, Any, str] | None:
    """The schema object at a JSON pointer ``/schemas/<i>/<attr>/<j>[/...]`` of ``db``."""
    parts = path.split("/")
    if len(parts) < 5 or parts[1] != "schemas" or parts[3] != attr:
        return None
    schema = db.schemas[int(parts[2])]
    return schema, getattr(schema, attr)[int(parts[4])], "/".join(parts[:5])


def _find(
    items: Sequence[_T],
    name: str,
    key: Callable[[_T], str] = lambda x: str(x.name),  # type: ignore[attr-defined]
) -> tuple[int, _T] | None:
    """An object by name: exact, else the only case-insensitive match."""
    for i, x in enumerate(items):
        if key(x) == name:
            return i, x
    folded = [(i, x) for i, x in enumerate(items) if key(x).lower() == name.lower()]
    return folded[0] if len(folded) == 1 else None


class _DdlBuilder:
    """Collects statements per phase while walking the changes."""

    def __init__(self, d: SchemaDiff, engine: Any, allow_drop: bool) -> None:
        self.d, self.engine, self.allow_drop = d, engine, allow_drop
        source_a, source_b = get_engine(d.a.source.engine), get_engine(d.b.source.engine)
        self.ctx_a = Context(d.a, engine, source_engine=source_a)  # renders A's objects one at a time
        engine.ddl_assign_names(self.ctx_a)
        self.ctx_b = Context(d.b, engine, source_engine=source_b)  # B's names on the target
        engine.ddl_assign_names(self.ctx_b)
        self.plan_ctx = Context(d.a, engine, source_engine=source_a)  # whole new tables come from the schema-load plan
        self.plan = engine.ddl_plan(self.plan_ctx)
        self.phases: dict[str, list[tuple[int, Statement]]] = {p: [] for p in _PHASES}
        self.skipped: list[Skipped] = []
        self.done: set[tuple[str, ...]] = set()
        self.rebuilt: set[tuple[str, str]] = set()  # (schema, table) of rebuilt tables
        self.pairs: dict[str, tuple[m.Schema | None, m.Schema | None]] = {}
        for sa, sb in schema_pairs(d.a, d.b):
            named = sa or sb
            assert named is not None
            self.pairs[named.name] = (sa, sb)

    # -- helpers ------------------------------------------------------------------------------------
    def emit(
        self,
        phase: str,
        sql: str | Statement,
        kind: str = "alter",
        obj: str = "",
        table: str | None = None,
        rank: int = 0,
    ) -> None:
        """Add a statement to a phase; within a phase, statements run by ``rank``, then in order."""
        stmt = sql if isinstance(sql, Statement) else Statement(sql, kind, obj, table)
        self.phases[phase].append((rank, stmt))

    @staticmethod
    def view_rank(schema: m.Schema, view: m.View) -> int:
        """Position of a view in dependency order (a view after the views it selects from)."""
        return view_order(schema.views).index(schema.views.index(view))

    def skip(self, c: Change, reason: str) -> None:
        self.skipped.append(Skipped(c, reason))

    def schema_a(self, c: Change) -> m.Schema | None:
        return self.pairs.get(c.schema, (None, None))[0]

    def schema_b(self, c: Change) -> m.Schema | None:
        return self.pairs.get(c.schema, (None, None))[1]

    def tschema(self, ctx: Context, schema: m.Schema) -> str | None:
        return ctx.schema_names.get(schema.name)

    def table_a(self, c: Change, name: str | None = None) -> tuple[m.Schema, m.Table, Any] | None:
        """A's table of a change with its TableInfo (rendering context)."""
        s = self.schema_a(c)
        found = _find(s.tables, name or c.table or c.name) if s else None
        if s is None or found is None:
            return None
        ti, table = found
        si = self.d.a.schemas.index(s)
        return s, table, self.engine.ddl_table_info(self.ctx_a, s, table, f"/schemas/{si}/tables/{ti}")

    def qtable_b(self, c: Change, name: str | None = None) -> tuple[m.Table, str] | None:
        """B's table of a change and its quoted name on the target."""
        s = self.schema_b(c)
        found = _find(s.tables, name or c.table or c.name) if s else None
        if s is None or found is None:
            return None
        table = found[1]
        return table, self.engine.qualify(*self.ctx_b.table_names[(s.name, table.name)])

    def destructive(self, c: Change) -> bool:
        if c.destructive and not self.allow_drop:
            self.skip(c, "destructive: emitted only with --allow-drop (allow_drop=True)")
            return True
        return False

    # -- the walk -----------------------------------------------------------------------------------
    def build(self) -> DiffDdl:
        columns: dict[tuple[str, str, str], list[Change]] = {}
        rebuilt = self.rebuilt_tables()
        for c in self.d.changes:
            if c.kind in _IN_TABLE and (c.schema, c.table) in rebuilt:
                rebuilt[(c.schema, c.table or "")].append(c)
        self.rebuilt = {k for k, group in rebuilt.items() if self.allow_drop or not any(c.destructive for c in group)}
        for c in self.d.changes:
            if c.kind in _IN_TABLE and (c.schema, c.table) in rebuilt:
                continue
            if c.kind == "column" and c.op == "change":
                columns.setdefault((c.schema, c.table or "", c.name), []).append(c)
                continue
            handler = getattr(self, f"on_{c.kind}", None)
            if handler is None:
                self.skip(c, f"{c.kind} changes are not rendered as DDL")
            else:
                handler(c)
        for group in columns.values():
            self.alter_column(group)
        for group in rebuilt.values():
            self.rebuild(group)
        statements: list[Statement] = []
        seen: set[int] = set()
        for p in _PHASES:
            for _rank, s in sorted(self.phases[p], key=lambda x: x[0]):
                if id(s) not in seen:
                    seen.add(id(s))
                    statements.append(s)
        return DiffDdl(self.engine.name, self.engine.server_version, tuple(statements), tuple(self.skipped))

    def rebuilt_tables(self) -> dict[tuple[str, str], list[Change]]:
        """Tables whose changes the engine cannot make with ALTER TABLE: rebuilt instead."""
        if self.engine.ddl_alters_in_place():
            return {}
        return {
            (c.schema, c.table): []
            for c in self.d.changes
            if c.table is not None and (c.kind in _CONSTRAINTS or (c.kind == "column" and c.op == "change"))
        }

    def rebuild(self, group: list[Change]) -> None:
        """The table-rebuild recipe: A's table created under a temporary name, the rows of the columns
        both sides have copied, B's table dropped, the new one renamed; then A's indexes and triggers."""
        if any(c.destructive for c in group) and not self.allow_drop:
            for c in group:
                self.skip(
                    c,
                    "the table is rebuilt and the rebuild includes a destructive change: emitted only with "
                    "--allow-drop (allow_drop=True)",
                )
            return
        found, tb = self.table_a(group[0]), self.qtable_b(group[0])
        if found is None or tb is None:
            return
        schema, table, t = found
        table_b, q_b = tb
        head = f"CREATE TABLE {t.qname}"
        creates = [x for x in self.plan.pre_data if x.table == t.qname and x.kind == "table" and x.sql.startswith(head)]
        if len(creates) != 1:
            for c in group:
                self.skip(c, f"the table cannot be rebuilt in {self.engine.name} (see schema-load --report)")
            return
        temp = f"{t.name}__dbjson_new"
        q_temp = self.engine.qualify(t.tschema, temp)
        into: list[str] = []
        select: list[str] = []
        for col in table.columns:
            hit = _find(table_b.columns, col.name)
            if hit is not None:
                into.append(t.col(col.name))
                select.append(hit[1].name)
        for sql in self.engine.ddl_rebuild_table_sql(
            q_b, q_temp, t.name, f"CREATE TABLE {q_temp}" + creates[0].sql[len(head) :], into, select
        ):
            self.emit("columns", sql, "table", t.qname, t.qname)
        for rank, x in enumerate(self.plan.statements):
            if x.table == t.qname and x.kind not in ("table", "trigger", "restart", "session", "foreign_key"):
                self.emit("comments" if x.kind == "comment" else "keys", x, rank=rank)
        si = self.d.a.schemas.index(schema)
        for gi, trg in enumerate(schema.triggers):
            if trg.table == table.name and self.ctx_a.same_family:
                path = f"/schemas/{si}/triggers/{gi}"
                for x in self.engine.ddl_trigger(self.ctx_a, schema, trg, self.tschema(self.ctx_a, schema), path):
                    self.emit("triggers", x)

    def once(self, c: Change) -> bool:
        """True the first time an object is seen (several field changes make one re-creation)."""
        key = (c.kind, c.schema, c.table or "", c.name)
        if key in self.done:
            return False
        self.done.add(key)
        return True

    # -- schemas ------------------------------------------------------------------------------------
    def on_schema(self, c: Change) -> None:
        if c.op == "add":
            sa = self.schema_a(c)
            q = (
                self.engine.quote(self.tschema(self.ctx_a, sa))
                if sa is not None and self.tschema(self.ctx_a, sa)
                else None
            )
            for s in self.plan.pre_data:
                if s.kind in ("schema", "comment") and s.object == q:
                    self.emit("types", s)
            return
        if c.op == "change" and c.field == "options" and self.schema_options(c):
            return
        self.skip(
            c,
            "schemas are not dropped or altered by diff --ddl; do it by hand"
            if c.op == "drop"
            else f"schema {c.field} changes are not rendered as DDL",
        )

    def schema_options(self, c: Change) -> bool:
        """New named schema-level objects kept in options (PostgreSQL collations, range types...):
        created from the plan. True when that covers the whole change."""
        sa = self.schema_a(c)
        new: dict[str, Any] = c.new or {}
        old: dict[str, Any] = c.old or {}
        if sa is None:
            return False
        tschema = self.tschema(self.ctx_a, sa)
        for fam in sorted(set(new) | set(old)):
            opts = new.get(fam, {})
            for key in sorted(set(opts) | set(old.get(fam, {}))):
                items, before = opts.get(key), old.get(fam, {}).get(key)
                if not isinstance(items, list) or not isinstance(before, (list, type(None))):
                    if items != before and not self.plan_option(key, items):
                        return False
                    continue
                known = [x for x in (before or []) if x in items]
                if len(known) != len(before or []):
                    return False  # something to drop or alter
                for item in items:
                    if item in known or not isinstance(item, dict) or "name" not in item:
                        continue
                    q = self.engine.qualify(tschema, str(item["name"]))
                    stmts = [s for s in self.plan.pre_data if s.object == q and s.kind != "table"]
                    if not stmts:
                        return False
                    for s in stmts:
                        self.emit("types", s)
        return True

    def plan_option(self, key: str, value: Any) -> bool:
        """A schema option the plan sets with a statement of its own (SQLite's ``PRAGMA user_version``)."""
        stmts = [x for x in self.plan.statements if x.object == key and x.kind not in ("table", "session")]
        for x in stmts:
            self.emit("comments", x)
        return value is not None and bool(stmts)

    # -- tables -------------------------------------------------------------------------------------
    def on_table(self, c: Change) -> None:
        if c.op == "add":
            found = self.table_a(c)
            if found is None:
                return
            q = found[2].qname
            for rank, s in enumerate(self.plan.statements):  # the plan's order: parent tables first
                if s.table != q or s.kind in ("trigger", "restart", "session"):
                    continue
                phase = (
                    "tables"
                    if rank < len(self.plan.pre_data)
                    else "foreign_keys"
                    if s.kind == "foreign_key"
                    else "comments"
                    if s.kind == "comment"
                    else "keys"
                )
                self.emit(phase, s, rank=rank)
            return
        if c.op == "drop":
            if self.destructive(c):
                return
            tb = self.qtable_b(c)
            if tb is None:
                return
            table, q = tb
            if self.engine.table.get("capabilities", {}).get("alter_add_constraint", True):
                for fk in table.foreign_keys:
                    self.emit("drop_fk", self.engine.ddl_drop_constraint_sql(q, "foreign_key", fk.name), "drop", q, q)
            sb = self.schema_b(c)
            assert sb is not None
            tschema, tname = self.ctx_b.table_names[(sb.name, table.name)]
            rank = -table_order(sb.tables).index(sb.tables.index(table))  # partitions and children first
            self.emit("drop_tables", self.engine.ddl_drop_sql("table", tschema, tname), "drop", q, q, rank=rank)
            return
        if c.field == "comment":
            tb = self.qtable_b(c)
            if tb is not None:
                self.emit("columns", self.engine.ddl_table_comment_sql(tb[1], c.new), "comment", tb[1], tb[1])
            return
        self.skip(c, f"changing a table's {c.field} is not rendered as DDL")

    # -- columns ------------------------------------------------------------------------------------
    def _column_def(self, c: Change) -> tuple[Any, m.Column, Any, str] | None:
        found = self.table_a(c)
        if found is None:
            return None
        schema, table, t = found
        hit = _find(table.columns, c.name)
        if hit is None:
            return None
        ci, col = hit
        parts, _post, _restarts = self.engine.ddl_column_parts(self.ctx_a, t, col, f"{t.path}/columns/{ci}")
        return t, col, parts, self.engine.ddl_column_sql(self.ctx_a, t, parts)

    def on_column(self, c: Change) -> None:
        if c.op == "add":
            rendered = self._column_def(c)
            if rendered is not None:
                t, _col, _parts, coldef = rendered
                self.emit("columns", self.engine.ddl_alter_add_column_sql(t.qname, coldef), "column", t.qname, t.qname)
            return
        if self.destructive(c):
            return
        tb = self.qtable_b(c)
        if tb is not None:
            self.emit("drop_columns", self.engine.ddl_alter_drop_column_sql(tb[1], c.name), "drop", tb[1], tb[1])

    def alter_column(self, group: list[Change]) -> None:
        if any(c.destructive for c in group) and not self.allow_drop:
            for c in group:
                self.skip(c, "narrowing type change: emitted only with --allow-drop (allow_drop=True)")
            return
        rendered = self._column_def(group[0])
        if rendered is None:
            return
        t, col, parts, coldef = rendered
        fields = {c.field for c in group if c.field}
        for sql in self.engine.ddl_alter_column_sql(self.ctx_a, t, col, parts, coldef, fields):
            self.emit("columns", sql, "column", t.qname, t.qname)

    # -- keys, constraints, indexes -------------------------------------------------------------------
    def on_primary_key(self, c: Change) -> None:
        tb = self.qtable_b(c)
        if tb is not None and c.old:
            table_b, q = tb
            self.emit(
                "drop_keys",
                self.engine.ddl_drop_constraint_sql(
                    q, "primary_key", table_b.primary_key.name if table_b.primary_key else None
                ),
                "drop",
                q,
                q,
            )
        found = self.table_a(c)
        if found is not None and c.new and found[1].primary_key is not None:
            t = found[2]
            clause = self.engine.ddl_primary_key(self.ctx_a, t, found[1].primary_key, f"{t.path}/primary_key")
            self.emit("keys", self.engine.ddl_add_constraint_sql(t.qname, clause), "primary_key", t.qname, t.qname)

    def _drop_named(self, c: Change, kind: str) -> None:
        tb = self.qtable_b(c)
        sb = self.schema_b(c)
        if tb is None or sb is None:
            return
        table_b, q = tb
        if kind == "index":
            hit = _find(table_b.indexes, c.name)
            if hit is not None and hit[1].constraint:
                return  # goes with its unique constraint
            sql = self.engine.ddl_drop_sql("index", self.tschema(self.ctx_b, sb), c.name, q)
        else:
            sql = self.engine.ddl_drop_constraint_sql(q, kind, c.name)
        self.emit("drop_fk" if kind == "foreign_key" else "drop_keys", sql, "drop", q, q)

    def _add_named(self, c: Change, kind: str) -> None:
        found = self.table_a(c)
        if found is None:
            return
        _schema, table, t = found
        attr = {"index": "indexes", "unique": "uniques", "check": "checks", "foreign_key": "foreign_keys"}[kind]
        hit = _find(getattr(table, attr), c.name)
        if hit is None:
            return
        i, obj = hit
        path = f"{t.path}/{attr}/{i}"
        before = len(self.ctx_a.report.items)
        if kind == "index":
            if obj.constraint:
                return
            stmt = self.engine.ddl_index(self.ctx_a, t, obj, path)
            if stmt is not None:
                self.emit("keys", stmt)
                return
        else:
            clause = None
            if kind == "unique":
                clause = self.engine.ddl_unique_clause(self.ctx_a, t, obj, path)
            elif kind == "foreign_key":
                clause = self.engine.ddl_fk_clause(self.ctx_a, t, obj, path)
            else:
                sql = self.engine.ddl_check_expression(self.ctx_a, t, obj, path)
                clause = None if sql is None else self.engine.ddl_check_clause(self.ctx_a, t, obj.name, sql, path)
            if clause is not None:
                self.emit(
                    "foreign_keys" if kind == "foreign_key" else "keys",
                    self.engine.ddl_add_constraint_sql(t.qname, clause),
                    kind,
                    f"{t.qname}.{obj.name}",
                    t.qname,
                )
                return
        lost = "; ".join(str(x) for x in self.ctx_a.report.items[before:]) or "no rendering"
        self.skip(c, f"not expressible in {self.engine.name}: {lost}")

    def _named(self, c: Change, kind: str) -> None:
        if c.op == "drop":
            self._drop_named(c, kind)
        elif c.op == "add":
            self._add_named(c, kind)
        elif self.once(c):
            self._drop_named(c, kind)
            self._add_named(c, kind)

    def on_index(self, c: Change) -> None:
        self._named(c, "index")

    def on_unique(self, c: Change) -> None:
        self._named(c, "unique")

    def on_check(self, c: Change) -> None:
        self._named(c, "check")

    def on_foreign_key(self, c: Change) -> None:
        self._named(c, "foreign_key")

    # -- schema objects -----------------------------------------------------------------------------
    def _object_a(self, c: Change, attr: str) -> tuple[m.Schema, Any, str] | None:
        """A's object of an ``add``/``change`` (by the change's path), with its document path."""
        return _at(self.d.a, c.path, attr) if c.op != "drop" else None

    def _object_b(self, c: Change, attr: str) -> tuple[m.Schema, Any] | None:
        """B's object: by path for a ``drop``, else the counterpart of A's object (same matching key)."""
        if c.op == "drop":
            hit = _at(self.d.b, c.path, attr)
            return (hit[0], hit[1]) if hit is not None else None
        found, s = self._object_a(c, attr), self.schema_b(c)
        if found is None or s is None:
            return None
        key = MATCH_KEYS.get(attr, _name)
        other = _find(getattr(s, attr), key(found[1]), key)
        return (s, other[1]) if other is not None else None

    def _recreate(self, c: Change, drop: Callable[[Change], None], create: Callable[[Change], None]) -> None:
        if c.op == "drop":
            drop(c)
        elif c.op == "add":
            create(c)
        elif self.once(c):
            drop(c)
            create(c)

    def _create(self, c: Change, phase: str, stmts: list[Statement], rank: int = 0) -> None:
        if not stmts:
            self.skip(c, f"not expressible in {self.engine.name} (see schema-load --report)")
        for s in stmts:
            self.emit(phase, s, rank=rank)

    def _same_family(self, c: Change) -> bool:
        if self.ctx_a.same_family:
            return True
        self.skip(c, f"{c.kind} bodies are not translated from {self.ctx_a.source} to {self.engine.name}")
        return False

    def on_view(self, c: Change) -> None:
        def drop(c: Change) -> None:
            found = self._object_b(c, "views")
            if found is not None:
                s, v = found
                kind = "materialized_view" if v.materialized else "view"
                self.emit(
                    "drop_views",
                    self.engine.ddl_drop_sql(kind, self.tschema(self.ctx_b, s), v.name),
                    "drop",
                    v.name,
                    rank=-self.view_rank(s, v),
                )

        def create(c: Change) -> None:
            found = self._object_a(c, "views")
            if found is not None:
                s, v, path = found
                self._create(
                    c,
                    "views",
                    self.engine.ddl_view(self.ctx_a, s, v, self.tschema(self.ctx_a, s), path),
                    rank=self.view_rank(s, v),
                )

        self._recreate(c, drop, create)

    def on_routine(self, c: Change) -> None:
        def drop(c: Change) -> None:
            found = self._object_b(c, "routines")
            if found is not None:
                s, r = found
                self.emit(
                    "drop_objects",
                    self.engine.ddl_drop_sql(r.kind, self.tschema(self.ctx_b, s), r.name, signature=r.signature),
                    "drop",
                    r.name,
                )

        def create(c: Change) -> None:
            found = self._object_a(c, "routines")
            if found is not None and self._same_family(c):
                s, r, path = found
                self._create(
                    c, "routines", self.engine.ddl_routine(self.ctx_a, s, r, self.tschema(self.ctx_a, s), path)
                )

        self._recreate(c, drop, create)

    def on_trigger(self, c: Change) -> None:
        def drop(c: Change) -> None:
            found = self._object_b(c, "triggers")
            if found is not None:
                s, trg = found
                tb = self.qtable_b(c, trg.table)
                self.emit(
                    "drop_triggers",
                    self.engine.ddl_drop_sql("trigger", self.tschema(self.ctx_b, s), trg.name, tb[1] if tb else None),
                    "drop",
                    trg.name,
                )

        def create(c: Change) -> None:
            found = self._object_a(c, "triggers")
            if found is not None and (c.schema, found[1].table) in self.rebuilt:
                return  # the table's rebuild creates its triggers
            if found is not None and self._same_family(c):
                s, trg, path = found
                self._create(
                    c, "triggers", self.engine.ddl_trigger(self.ctx_a, s, trg, self.tschema(self.ctx_a, s), path)
                )

        self._recreate(c, drop, create)

    def on_event(self, c: Change) -> None:
        def drop(c: Change) -> None:
            found = self._object_b(c, "events")
            if found is not None:
                s, ev = found
                self.emit(
                    "drop_objects",
                    self.engine.ddl_drop_sql("event", self.tschema(self.ctx_b, s), ev.name),
                    "drop",
                    ev.name,
                )

        def create(c: Change) -> None:
            found = self._object_a(c, "events")
            if found is not None and self._same_family(c):
                s, ev, path = found
                self._create(c, "events", self.engine.ddl_event(self.ctx_a, s, ev, self.tschema(self.ctx_a, s), path))

        self._recreate(c, drop, create)

    def _typed(self, c: Change, attr: str, kind: str, plan_kind: str) -> None:
        """Sequences, enums, domains, composites: created from the plan, dropped last, never altered."""
        if c.op == "change":
            self.skip(c, f"altering a {kind} is not rendered as DDL; drop and re-create it by hand")
            return
        if c.op == "drop":
            if self.destructive(c):
                return
            found = self._object_b(c, attr)
            if found is not None and not self._goes_with_its_owner(c, found[1]):
                s, obj = found
                # composites may use domains, domains may use enums
                rank = {"composite": -2, "domain": -1}.get(kind, 0)
                self.emit(
                    "drop_types",
                    self.engine.ddl_drop_sql(kind, self.tschema(self.ctx_b, s), obj.name),
                    "drop",
                    obj.name,
                    rank=rank,
                )
            return
        sa = self.schema_a(c)
        if sa is None:
            return
        q = self.engine.qualify(self.tschema(self.ctx_a, sa), c.name)
        self._create(c, "types", [s for s in self.plan.pre_data if s.kind in (plan_kind, "comment") and s.object == q])
        for s in self.plan.post_data:  # ALTER SEQUENCE ... OWNED BY, once the table exists
            if s.kind == plan_kind and s.object == q:
                self.emit("comments", s)

    def _goes_with_its_owner(self, c: Change, obj: Any) -> bool:
        """A sequence owned by a column that this diff drops (or whose table it drops) goes with it."""
        owner = getattr(obj, "owned_by", None)
        if not owner or "." not in owner:
            return False
        table, column = owner.rsplit(".", 1)
        table = table.rsplit(".", 1)[-1]
        return any(
            x.op == "drop"
            and x.schema == c.schema
            and (
                (x.kind == "table" and x.name == table) or (x.kind == "column" and (x.table, x.name) == (table, column))
            )
            for x in self.d.changes
        )

    def on_sequence(self, c: Change) -> None:
        self._typed(c, "sequences", "sequence", "sequence")

    def on_enum(self, c: Change) -> None:
        self._typed(c, "enums", "enum", "type")

    def on_domain(self, c: Change) -> None:
        self._typed(c, "domains", "domain", "type")

    def on_composite(self, c: Change) -> None:
        self._typed(c, "composites", "composite", "type")
