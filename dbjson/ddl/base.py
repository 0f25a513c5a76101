"""Model → DDL: the engine-neutral part of schema-load.

:class:`BaseDDL` is the mixin every engine's ``XDDL`` class extends. It walks the document in a
fixed order and asks the engine (``self``) for each engine-specific piece through small ``ddl_*``
hooks; the engine's ``dialects/<name>.toml`` supplies limits, capabilities and type rules.
Same engine: native spellings (``native.raw``) and the engine's own options are re-emitted.
Across engines: the standard type and the target's type rules decide; every attribute that does
not survive is recorded in the :class:`~dbjson.ddl.plan.TranslationReport` with its JSON path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import model as m
from ..errors import TranslationError, UnsupportedError
from .plan import DdlPlan, Statement, TranslationReport
from .types import TypeChoice, find_rule, result_type

_FAMILY = {"mysql": "mysql", "mariadb": "mysql", "postgresql": "postgresql", "sqlite": "sqlite"}
_NUMERIC_KINDS = {"integer", "decimal", "float", "year", "money"}


def family_of(engine_name: str) -> str:
    """The engine family of an engine name (MariaDB belongs to the mysql family)."""
    return _FAMILY.get(engine_name, engine_name)


def short_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


class Namer:
    """Deterministic, collision-free target names within namespaces, shortened to the limit."""

    def __init__(self, limit: int, unit: str, report: TranslationReport) -> None:
        self.limit = limit
        self.unit = unit
        self.report = report
        self.used: dict[tuple[Any, ...], set[str]] = {}

    def size(self, name: str) -> int:
        return len(name.encode("utf-8")) if self.unit == "bytes" else len(name)

    def shorten(self, name: str) -> str:
        """``name`` itself when it fits, else ``name[:n] + "_" + 8 hex digits of its hash``."""
        if not self.limit or self.size(name) <= self.limit:
            return name
        suffix = "_" + short_hash(name)
        head = name
        while self.size(head + suffix) > self.limit:
            head = head[:-1]
        return head + suffix

    def claim(self, scope: tuple[Any, ...], name: str, path: str, what: str, prefix: str | None = None) -> str:
        """A name for ``name`` unique in ``scope``; renames are reported at ``path``."""
        used = self.used.setdefault(scope, set())
        final = self.shorten(name)
        if final.lower() in used and prefix:
            final = self.shorten(f"{prefix}_{name}")
        n = 2
        base = final
        while final.lower() in used:
            final = self.shorten(f"{base}_{n}")
            n += 1
        used.add(final.lower())
        if final != name:
            self.report.add(
                path,
                f"{what} name {name!r} renamed to {final!r}",
                "identifier-shortened" if self.limit and self.size(name) > self.limit else "identifier-unique",
                "rename",
            )
        return final

    def reserve(self, scope: tuple[Any, ...], name: str) -> None:
        self.used.setdefault(scope, set()).add(name.lower())


@dataclass
class TableInfo:
    """What the DDL of one table needs to know while it is being rendered."""

    schema: m.Schema
    table: m.Table
    path: str
    tschema: str | None
    name: str
    qname: str
    key_columns: set[str]
    identity_like: set[str]
    columns: dict[str, str] = field(default_factory=dict)  # source → target column name
    types: dict[str, TypeChoice] = field(default_factory=dict)
    inline: list[str] = field(default_factory=list)  # constraints declared inside CREATE TABLE
    pk_inline: bool = False  # the primary key is declared on its column (SQLite AUTOINCREMENT)
    post: list[Statement] = field(default_factory=list)  # extra post-data (index comments...)
    skip: set[str] = field(default_factory=set)  # indexes/uniques already declared in CREATE TABLE
    key_bytes: dict[str, int] = field(default_factory=dict)  # column → its share of the key limit
    index_names: dict[str, str] = field(default_factory=dict)  # source → target index name

    def col(self, name: str) -> str:
        return self.columns.get(name, name)


@dataclass
class ColumnParts:
    """The pieces of one column definition; the engine orders them (``ddl_column_sql``)."""

    name: str
    type_sql: str
    not_null: bool
    default: str | None = None
    generated: str | None = None
    generated_stored: bool = True
    identity: str | None = None
    charset: str | None = None
    collation: str | None = None
    comment: str | None = None
    on_update: str | None = None
    invisible: bool = False
    checks: list[str] = field(default_factory=list)  # CHECKs from the type rules (post-data)
    checks_inline: list[str] = field(default_factory=list)  # CHECKs declared on the column
    primary_key: str | None = None
    extra: str | None = None  # engine-specific clause (MariaDB system versioning)


class Context:
    """The state of one translation: source, target, report, names, options."""

    def __init__(self, db: m.Database, engine: Any, options: dict[str, Any] | None = None) -> None:
        self.db = db
        self.engine = engine
        self.source = db.source.engine
        self.source_family = family_of(self.source)
        self.same = self.source == engine.name
        self.same_family = self.source_family == engine.family
        from ..engines import get_engine

        self.source_engine = get_engine(self.source)
        self.options = dict(options or {})
        self.report = TranslationReport(self.source, engine.name)
        limits = engine.table.get("limits", {})
        self.namer = Namer(
            int(limits.get("identifier_length", 0)), str(limits.get("identifier_unit", "characters")), self.report
        )
        self.caps: dict[str, Any] = engine.table.get("capabilities", {})
        self.schema_names: dict[str, str | None] = {}
        self.table_names: dict[tuple[str, str], tuple[str | None, str]] = {}
        self.column_names: dict[tuple[str, str, str], str] = {}
        self.identity_columns: set[tuple[str, str, str]] = set()
        self.types: list[Statement] = []  # types created on the way (PG enums)
        self.enum_types: dict[tuple[str | None, str], tuple[str, ...]] = {}
        self.post_functions: list[Statement] = []  # helper functions (PG on-update trigger)
        self.helpers_done: set[str] = set()
        self.column_types: dict[tuple[str, str, str], m.Type] = {}
        self.plain_generated: set[tuple[str, str, str]] = set()

    def functions(self) -> set[str]:
        return {f.lower() for f in self.caps.get("functions", [])}

    def expr(
        self,
        sql: str,
        dialect: str | None,
        path: str,
        what: str,
        *,
        statement: bool = False,
        constant: bool = False,
        schema: str | None = None,
    ) -> str | None:
        """``sql`` for the target: verbatim in the same dialect, else translated or reported."""
        src = dialect or self.source
        if not self.caps.get("sequences") and re.search(r"(?i)\b(nextval|lastval|setval)\s*\(", sql):
            self.report.add(
                path, f"{what} uses a sequence ({self.engine.name} has none); dropped", "sequence-expression"
            )
            return None
        if src == self.engine.name or family_of(src) == self.engine.family == "mysql":
            return self.verbatim(sql, path, what, statement=statement)
        from .expr import (
            translate,
        )  # sqlglot: imported when DDL is made (0.1-0.3 s of every export's start-up otherwise)

        out, reason = translate(
            sql,
            src,
            self.engine.name,
            self.functions(),
            statement=statement,
            schemas=self.schema_names,
            constant=constant and not self.caps.get("column_defaults_may_refer"),
            tables=self.table_names,
            default_schema=schema,
            nodes=tuple(self.caps.get("expression_nodes", ())),
        )
        if out is None:
            self.report.add(path, f"{what} not translated from {src} ({reason}); dropped", "expression-guard")
        elif family_of(src) == "mysql" and re.search(r"(?i)\bgroup_concat\s*\(", sql):
            self.report.add(
                path,
                f"GROUP_CONCAT made {'string_agg' if self.engine.name == 'postgresql' else 'group_concat'}: "
                "no group_concat_max_len truncation (MySQL cuts results at 1024 bytes by default)",
                "group-concat",
                "approximation",
            )
        elif self.engine.family == "mysql" and re.search(r"(?i)\b(group_concat|string_agg)\s*\(", sql):
            self.report.add(
                path,
                "string aggregation made GROUP_CONCAT: MySQL cuts its result at group_concat_max_len "
                "(1024 bytes by default)",
                "group-concat",
            )
        return out

    def verbatim(self, sql: str, path: str, what: str, *, statement: bool = False, lists: bool = False) -> str:
        """``sql`` copied as written into a statement for this engine, after the guard of
        :func:`~dbjson.ddl.expr.verbatim_problem`; text that could leave its slot is refused."""
        from .expr import verbatim_problem

        reason = verbatim_problem(sql, self.engine.name, statement=statement, lists=lists)
        if reason:
            raise TranslationError(
                f"{what} refused: it {reason}",
                pointer=path,
                value=sql,
                hint="the schema document may have been crafted; see 'Untrusted documents' in docs/format.md",
            )
        return sql

    def definition(self, sql: str, path: str, what: str) -> str:
        """A routine, trigger or event definition (a whole statement, used as written): it must be
        the CREATE statement of that kind, so a document cannot pass off another statement as one."""
        found = _DEFINITION.match(sql)
        allowed = {"routine": ("FUNCTION", "PROCEDURE", "AGGREGATE")}.get(what, (what.upper(),))
        if found is None or found.group(1).upper() not in allowed:
            raise TranslationError(
                f"{what} definition refused: it is not a CREATE {' or '.join(allowed)} statement",
                pointer=path,
                value=sql,
                hint="the schema document may have been crafted; see 'Untrusted documents' in docs/format.md",
            )
        return sql


_QUOTED_OR_WORD = r"(?:`(?:[^`]|``)*`|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[^\s@`'\"]+)"
_DEFINITION = re.compile(
    r"\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*" + _QUOTED_OR_WORD + r"(?:@" + _QUOTED_OR_WORD + r")?\s+)?"
    r"(?:SQL\s+SECURITY\s+\w+\s+)?(?:CONSTRAINT\s+|TEMP(?:ORARY)?\s+)?(?:AGGREGATE\s+(?=FUNCTION))?(FUNCTION|PROCEDURE|TRIGGER|EVENT|AGGREGATE)\b",
    re.IGNORECASE,
)


class BaseDDL:
    """Engine-neutral DDL generation; engines override the ``ddl_*`` hooks."""

    name: str
    family: str
    table: dict[str, Any]

    if TYPE_CHECKING:  # provided by dbjson.engines.base.Engine

        def quote(self, ident: str) -> str: ...
        def literal(self, value: str) -> str: ...
        def qualify(self, schema: str | None, name: str) -> str: ...

    # -- the plan ---------------------------------------------------------------------------------
    def ddl_plan(self, ctx: Context) -> DdlPlan:
        """Translate ``ctx.db`` into a :class:`DdlPlan` for this engine."""
        db = ctx.db
        plan = DdlPlan(target=self.name, server_version=getattr(self, "server_version", ""), report=ctx.report)
        self._assign_names(ctx)
        schemas: list[Statement] = []
        sequences: list[Statement] = []
        tables: list[Statement] = []
        post: list[Statement] = []
        restarts: list[Statement] = []
        for si, schema in enumerate(db.schemas):
            sp = f"/schemas/{si}"
            tschema = ctx.schema_names[schema.name]
            schemas += self.ddl_create_schema(ctx, schema, tschema, sp)
            ctx.types += self.ddl_schema_types(ctx, schema, tschema, sp)
            seq_pre, seq_post = self.ddl_sequences(ctx, schema, tschema, sp)
            sequences += seq_pre
            restarts += seq_post
            for ti in _table_order(schema.tables):
                table = schema.tables[ti]
                t_pre, t_post, t_restart = self.ddl_table(ctx, schema, table, f"{sp}/tables/{ti}")
                tables += t_pre
                post += t_post
                restarts += t_restart
        fks: list[Statement] = []
        for si, schema in enumerate(db.schemas):
            for ti, table in enumerate(schema.tables):
                fks += self.ddl_foreign_keys(ctx, schema, table, f"/schemas/{si}/tables/{ti}")
        objects = self.ddl_schema_objects(ctx)
        plan.pre_data = schemas + ctx.types + sequences + tables
        plan.post_data = ctx.post_functions + post + fks + objects + restarts
        plan.table_names = dict(ctx.table_names)
        plan.column_names = dict(ctx.column_names)
        plan.column_types = dict(ctx.column_types)
        plan.plain_generated = set(ctx.plain_generated)
        if db.users:
            ctx.report.add(
                "/users", "users and grants are not created by schema-load", "users-skipped", "approximation"
            )
        return plan

    def _assign_names(self, ctx: Context) -> None:
        scope = self.table.get("limits", {}).get("index_name_scope", "table")
        for si, schema in enumerate(ctx.db.schemas):
            tschema = self.ddl_target_schema(ctx, schema, si)
            ctx.schema_names[schema.name] = tschema
            for ti, table in enumerate(schema.tables):
                path = f"/schemas/{si}/tables/{ti}"
                name = self.ddl_table_name(ctx, schema, table, si, path)
                name = ctx.namer.claim(("relation", tschema), name, f"{path}/name", "table")
                ctx.table_names[(schema.name, table.name)] = (tschema, name)
                for ci, col in enumerate(table.columns):
                    cname = ctx.namer.claim(("column", tschema, name), col.name, f"{path}/columns/{ci}/name", "column")
                    ctx.column_names[(schema.name, table.name, col.name)] = cname
                    if col.identity is not None:
                        ctx.identity_columns.add((schema.name, table.name, col.name))
            for vi, view in enumerate(schema.views):
                ctx.namer.claim(("relation", tschema), view.name, f"/schemas/{si}/views/{vi}/name", "view")
            if scope == "schema":
                for seq in schema.sequences:
                    ctx.namer.reserve(("relation", tschema), seq.name)

    # -- schemas ---------------------------------------------------------------------------------
    def ddl_target_schema(self, ctx: Context, schema: m.Schema, index: int) -> str | None:
        """The target schema of a source schema (None: the connection's current one)."""
        mapping = ctx.options.get("schema_map") or {}
        if schema.name in mapping:
            return str(mapping[schema.name]) or None
        return None

    def ddl_table_name(self, ctx: Context, schema: m.Schema, table: m.Table, si: int, path: str) -> str:
        """Without schemas in the target, tables of all but the primary schema get a prefix."""
        if (
            self.table.get("capabilities", {}).get("schemas")
            or si == primary_schema(ctx.db)
            or schema.name in (ctx.options.get("schema_map") or {})
        ):
            return table.name
        name = f"{schema.name}_{table.name}"
        ctx.report.add(
            f"{path}/name",
            f"table of schema {schema.name!r} renamed to {name!r} ({self.name} gets one schema)",
            "schema-prefix",
            "rename",
        )
        return name

    def ddl_create_schema(self, ctx: Context, schema: m.Schema, tschema: str | None, path: str) -> list[Statement]:
        return []

    def ddl_schema_types(self, ctx: Context, schema: m.Schema, tschema: str | None, path: str) -> list[Statement]:
        """Enum, domain and composite types (PostgreSQL creates them; others inline or report)."""
        for i, e in enumerate(schema.enums):
            ctx.report.add(
                f"{path}/enums/{i}",
                f"named enum type {e.name!r} inlined into its columns",
                "enum-inline",
                "approximation",
            )
        for i, d in enumerate(schema.domains):
            ctx.report.add(
                f"{path}/domains/{i}",
                f"domain {d.name!r} not created: its columns get its base type, NOT NULL and checks",
                "domain-inlined",
                "approximation",
            )
        for i, c in enumerate(schema.composites):
            ctx.report.add(f"{path}/composites/{i}", f"composite type {c.name!r} not created", "composite-dropped")
        for fam, opts in sorted(schema.options.items()):
            if fam != self.family:
                for key in sorted(opts):
                    if isinstance(opts[key], list):
                        ctx.report.add(
                            f"{path}/options/{fam}/{key}",
                            f"{fam} {key.replace('_', ' ')} not created",
                            "schema-objects-dropped",
                        )
                    elif key not in ("charset", "collation"):
                        ctx.report.add(
                            f"{path}/options/{fam}/{key}",
                            f"{fam} schema option {key} dropped",
                            "schema-option-dropped",
                            "approximation",
                        )
        return []

    def ddl_sequences(
        self, ctx: Context, schema: m.Schema, tschema: str | None, path: str
    ) -> tuple[list[Statement], list[Statement]]:
        for i, s in enumerate(schema.sequences):
            ctx.report.add(
                f"{path}/sequences/{i}",
                f"sequence {s.name!r} not created ({self.name} has no sequences)",
                "sequence-dropped",
            )
        return [], []

    # -- tables ----------------------------------------------------------------------------------
    def _table_info(self, ctx: Context, schema: m.Schema, table: m.Table, path: str) -> TableInfo:
        tschema, name = ctx.table_names[(schema.name, table.name)]
        keys: set[str] = set(table.primary_key.columns if table.primary_key else ())
        for u in table.uniques:
            keys.update(u.columns)
        for ix in table.indexes:
            keys.update(
                p.column for p in ix.parts if p.column and ix.kind not in ("fulltext", "spatial", "gin", "gist")
            )
        for fk in table.foreign_keys:
            keys.update(fk.columns)
        for other_schema in ctx.db.schemas:
            for other in other_schema.tables:
                for fk in other.foreign_keys:
                    if fk.ref_table == table.name and (fk.ref_schema or other_schema.name) == schema.name:
                        keys.update(fk.ref_columns)
        identity = {c.name for c in table.columns if c.identity is not None}
        for fk in table.foreign_keys:
            rs = fk.ref_schema or schema.name
            for c, rc in zip(fk.columns, fk.ref_columns):
                if (rs, fk.ref_table, rc) in ctx.identity_columns:
                    identity.add(c)
        info = TableInfo(schema, table, path, tschema, name, self.qualify(tschema, name), keys, identity)
        info.columns = {c.name: ctx.column_names[(schema.name, table.name, c.name)] for c in table.columns}
        budget = self.table.get("limits", {}).get("key_bytes")
        if budget:
            info.key_bytes = _key_shares(table, int(budget))
        return info

    def ddl_table(
        self, ctx: Context, schema: m.Schema, table: m.Table, path: str
    ) -> tuple[list[Statement], list[Statement], list[Statement]]:
        """CREATE TABLE (pre-data), then indexes/uniques/checks/triggers (post) and restarts."""
        t = self._table_info(ctx, schema, table, path)
        post: list[Statement] = []
        restarts: list[Statement] = []
        defs: list[str] = []
        checks: list[tuple[str, str, str]] = []  # (name, expression sql, path)
        for ci, chk in enumerate(table.checks):
            sql = self.ddl_check_expression(ctx, t, chk, f"{path}/checks/{ci}")
            if sql is not None:
                checks.append((chk.name, sql, f"{path}/checks/{ci}"))
        for ci, col in enumerate(table.columns):
            cp = f"{path}/columns/{ci}"
            parts, col_post, col_restart = self.ddl_column_parts(ctx, t, col, cp)
            if self.ddl_column_declared(ctx, t, col):
                defs.append(self.ddl_column_sql(ctx, t, parts))
            post += col_post
            restarts += col_restart
            for rule_check in parts.checks:
                checks.append((f"{t.name}_{t.col(col.name)}_check", f"({rule_check})", cp))
        add_later = bool(self.table.get("capabilities", {}).get("alter_add_constraint", True))
        if table.primary_key and table.primary_key.columns and not t.pk_inline:
            pk_clause = self.ddl_primary_key(ctx, t, table.primary_key, f"{path}/primary_key")
            if add_later and self.ddl_defer_primary_key(ctx, t):
                post.insert(
                    0, Statement(self.ddl_add_constraint_sql(t.qname, pk_clause), "primary_key", t.qname, t.qname)
                )
            else:
                defs.append(pk_clause)
        for ui, u in enumerate(table.uniques):
            if u.name in t.skip:
                continue
            clause = self.ddl_unique_clause(ctx, t, u, f"{path}/uniques/{ui}")
            if clause is None:
                continue
            if add_later:
                post.append(Statement(f"ALTER TABLE {t.qname} ADD {clause}", "unique", f"{t.qname}.{u.name}", t.qname))
            else:
                defs.append(clause)
        for name, sql, cpath in checks:
            clause = self.ddl_check_clause(ctx, t, name, sql, cpath)
            if add_later:
                post.append(
                    Statement(
                        f"ALTER TABLE {t.qname} ADD {clause}",
                        "check",
                        f"{t.qname}.{name}",
                        t.qname,
                        optional=not ctx.same,
                        path=cpath,
                    )
                )
            else:
                defs.append(clause)
        if not add_later:
            defs += self.ddl_inline_foreign_keys(ctx, t)
        body = ",\n  ".join(defs + t.inline)
        sql = f"CREATE TABLE {t.qname} (\n  {body}\n){self.ddl_table_suffix(ctx, t)}"
        pre = [Statement(sql, "table", t.qname, t.qname)]
        pre += self.ddl_table_extra(ctx, t)
        for ii, ix in enumerate(table.indexes):
            if ix.constraint or ix.name in t.skip:
                continue
            stmt = self.ddl_index(ctx, t, ix, f"{path}/indexes/{ii}")
            if stmt is not None:
                post.append(stmt)
        post += t.post
        post += self.ddl_comments(ctx, t)
        self.ddl_report_table_options(ctx, t)
        return pre, post, restarts

    def ddl_defer_primary_key(self, ctx: Context, t: TableInfo) -> bool:
        """Whether the table's primary key is added after the data (``ALTER TABLE ... ADD``, the
        first post-data statement of the table) instead of inside CREATE TABLE: asked for with
        ``options={"defer_primary_keys": True}`` (the importer, on engines where loading into an
        unindexed table and adding the key afterwards is faster); never for partitions, partitioned
        or inheriting tables, whose keys are tied to their parent's or children's."""
        table = t.table
        return (
            bool(ctx.options.get("defer_primary_keys"))
            and table.partitioning is None
            and table.partition_of is None
            and not table.inherits
        )

    def ddl_table_extra(self, ctx: Context, t: TableInfo) -> list[Statement]:
        """Statements right after CREATE TABLE (partitions, comments)."""
        return []

    def ddl_report_table_options(self, ctx: Context, t: TableInfo) -> None:
        table = t.table
        for fam, opts in sorted(table.options.items()):
            if fam == self.family:
                continue
            for key in sorted(opts):
                if key in self.ddl_ignored_foreign_options():
                    continue
                ctx.report.add(
                    f"{t.path}/options/{fam}/{key}",
                    f"{fam} table option {key}={opts[key]!r} has no {self.name} counterpart",
                    "foreign-option",
                    "approximation",
                )
        if table.partitioning is not None and not ctx.same:
            ctx.report.add(
                f"{t.path}/partitioning",
                "partitioning not translated (the table is created unpartitioned)",
                "partitioning-dropped",
                "approximation",
            )
        if table.partition_of and not ctx.same:
            ctx.report.add(
                f"{t.path}/partition_of",
                f"partition of {table.partition_of!r} created as a plain table",
                "partition-plain-table",
                "approximation",
            )
        if table.inherits and not ctx.same:
            ctx.report.add(f"{t.path}/inherits", "table inheritance dropped", "inherits-dropped")

    def ddl_ignored_foreign_options(self) -> set[str]:
        """Other families' table options that carry no information across engines."""
        return {"engine", "charset", "collation", "auto_increment", "row_format", "avg_row_length"}

    # -- columns ---------------------------------------------------------------------------------
    def ddl_column_type(self, ctx: Context, t: TableInfo, col: m.Column, path: str) -> TypeChoice:
        """The target type of a column: ``native.raw`` on the same engine, else the type rules."""
        if ctx.same and col.native.engine == self.name:
            ctx.verbatim(col.native.raw, f"{path}/native/raw", "native type")
            return TypeChoice(self.ddl_native_type(ctx, t, col), col.type, rule="native")
        ref = self._referenced_column(ctx, t, col) if self.table.get("capabilities", {}).get("fk_same_types") else None
        if ref is not None:
            rt, rcol, rpath = ref
            choice = self.ddl_column_type(ctx, rt, rcol, rpath)
            if choice.type != col.type:
                ctx.report.add(
                    f"{path}/type",
                    f"type follows the referenced column {rt.table.name}.{rcol.name} ({choice.sql})",
                    "fk-same-type",
                    "approximation",
                )
            return choice
        t_type = col.type
        if t_type.kind == "opaque" and t_type.base is not None:
            ctx.report.add(
                f"{path}/type", f"type {col.native.raw!r} replaced by its base type", "base-type", "approximation"
            )
            t_type = t_type.base
        return self.map_type(
            ctx, t_type, t, col.name, f"{path}/type", col.name in t.key_columns, col.name in t.identity_like
        )

    def _referenced_column(self, ctx: Context, t: TableInfo, col: m.Column) -> tuple[TableInfo, m.Column, str] | None:
        """The column a foreign key column points at (targets that want identical FK types)."""
        for fk in t.table.foreign_keys:
            if col.name not in fk.columns:
                continue
            rs = fk.ref_schema or t.schema.name
            rc = fk.ref_columns[fk.columns.index(col.name)]
            for si, schema in enumerate(ctx.db.schemas):
                if schema.name != rs:
                    continue
                for ti, table in enumerate(schema.tables):
                    if table.name == fk.ref_table and not (table is t.table and rc == col.name):
                        for ci, c in enumerate(table.columns):
                            if c.name == rc:
                                path = f"/schemas/{si}/tables/{ti}"
                                return self._table_info(ctx, schema, table, path), c, f"{path}/columns/{ci}"
        return None

    def ddl_native_type(self, ctx: Context, t: TableInfo, col: m.Column) -> str:
        return col.native.raw

    def map_type(
        self, ctx: Context, typ: m.Type, t: TableInfo, col: str, path: str, in_key: bool, identity: bool
    ) -> TypeChoice:
        """Apply the target's ``[[types.<kind>]]`` rules to a standard type."""
        typ = _complete(typ)
        env: dict[str, Any] = {
            "in_key": in_key,
            "identity": identity,
            "source": ctx.source,
            "source_family": ctx.source_family,
            "target_version": getattr(self, "version", ()),
        }
        share = t.key_bytes.get(col) if in_key else None
        binary = typ.kind in ("binary", "varbinary", "blob")
        env["key_bytes"] = share
        env["key_length"] = share // 4 if share is not None else None
        env["too_long_for_key"] = share is not None and (
            typ.length is None or typ.length * (1 if binary else 4) > share
        )
        rule = find_rule(self.table, typ, env)
        params: dict[str, Any] = {f.name: getattr(typ, f.name) for f in dataclasses.fields(typ)}
        params["values"] = ", ".join(self.literal(v) for v in typ.values)
        params["col"] = self.quote(t.col(col))
        params["scale_30"] = min(typ.scale or 0, 30)
        params["precision_minus_scale"] = (typ.precision or 0) - (typ.scale or 0)
        params["subtype_or_geometry"] = (typ.subtype or "geometry").lower()
        params["key_length"] = env["key_length"]
        params["key_bytes"] = env["key_bytes"]
        result = result_type(
            typ,
            {
                k: (int(v.format(**params)) if isinstance(v, str) and v.startswith("{") else v)
                for k, v in rule.get("result", {}).items()
            },
        )
        if "{element}" in rule["sql"]:
            elem = typ.element or m.Type(kind="text")
            choice = self.map_type(ctx, elem, t, col, f"{path}/element", False, False)
            params["element"] = choice.sql
            result = _replace(result, element=choice.type)
        if "{enum_type}" in rule["sql"]:
            params["enum_type"] = self.ddl_enum_type(ctx, t, col, typ, path)
        sql = rule["sql"].format(**params)
        checks = tuple(rule["check"].format(**params) for _ in (0,) if "check" in rule)
        if rule.get("lost"):
            ctx.report.add(path, rule["lost"], rule.get("rule", typ.kind), rule.get("severity", "loss"))
        return TypeChoice(sql, result, checks, rule.get("rule", ""), rule.get("lost"), rule.get("severity", "loss"))

    def ddl_enum_type(self, ctx: Context, t: TableInfo, col: str, typ: m.Type, path: str) -> str:
        """Name (created once) of the enum type of a column; engines with enum types override."""
        raise NotImplementedError

    def ddl_column_parts(
        self, ctx: Context, t: TableInfo, col: m.Column, path: str
    ) -> tuple[ColumnParts, list[Statement], list[Statement]]:
        """Everything about one column: its definition parts, post-data statements, restarts."""
        choice = self.ddl_column_type(ctx, t, col, path)
        t.types[col.name] = choice
        ctx.column_types[(t.schema.name, t.table.name, col.name)] = choice.type
        parts = ColumnParts(name=self.quote(t.col(col.name)), type_sql=choice.sql, not_null=not col.nullable)
        pk = t.table.primary_key
        if col.nullable and pk and col.name in pk.columns and self.ddl_pk_not_null():
            parts.not_null = True
            ctx.report.add(f"{path}/nullable", "primary key column made NOT NULL", "pk-not-null", "approximation")
        parts.checks = list(choice.checks)
        post: list[Statement] = []
        restarts: list[Statement] = []
        if not ctx.same:
            self.ddl_domain_rules(ctx, t, col, parts, path)
        if col.generated is not None:
            self.ddl_generated(ctx, t, col, parts, path)
        if col.identity is not None:
            restarts += self.ddl_identity(ctx, t, col, parts, path)
        elif (
            col.default is not None and col.generated is None and _zero_date_dropped(ctx, col, choice.type, parts, path)
        ):
            pass
        elif col.default is not None and col.generated is None:
            parts.default = self.ddl_default(ctx, t, col, col.default, choice, f"{path}/default")
        parts.charset, parts.collation = self.ddl_collation(ctx, t, col, choice, path)
        if col.comment:
            parts.comment = self.ddl_column_comment(ctx, t, col, path)
        if col.invisible:
            if self.table.get("capabilities", {}).get("invisible_columns"):
                parts.invisible = True
            else:
                ctx.report.add(
                    f"{path}/invisible", "invisible column made visible", "invisible-dropped", "approximation"
                )
        if col.on_update is not None:
            post += self.ddl_on_update(ctx, t, col, parts, path)
        if ctx.same:
            parts.checks_inline = [
                _check_body(c)
                for c in t.table.checks
                if c.column == col.name and self.ddl_inline_check_ok(ctx, t, col, c)
            ]
        for fam in sorted(col.options):
            if fam != self.family:
                ctx.report.add(
                    f"{path}/options/{fam}", f"{fam} column options dropped", "foreign-option", "approximation"
                )
        return parts, post, restarts

    def ddl_pk_not_null(self) -> bool:
        """Whether primary key columns must be declared NOT NULL (SQLite allows NULLs there)."""
        return False

    def ddl_domain_rules(self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str) -> None:
        """A column of a PostgreSQL domain type gets the domain's NOT NULL and CHECKs (translated)."""
        domain = _domain_of(ctx.db, t.schema, col.type)
        if domain is None:
            return
        if not domain.nullable:
            parts.not_null = True
        quoted = ctx.source_engine.quote(col.name)
        for chk in domain.checks:
            body = re.sub(r"(?is)^\s*CHECK\s*", "", chk.expression).strip()
            body = re.sub(r"\bVALUE\b", lambda _: quoted, body)
            sql = ctx.expr(body, chk.dialect, f"{path}/type", f"check of domain {domain.name}")
            if sql is not None:
                parts.checks.append(sql)
        ctx.report.add(
            f"{path}/type",
            f"domain {domain.name!r} replaced by its base type with its checks",
            "domain-inlined",
            "approximation",
        )

    def ddl_column_declared(self, ctx: Context, t: TableInfo, col: m.Column) -> bool:
        """False for columns the table gets otherwise (inherited from a parent table)."""
        return True

    def ddl_column_sql(self, ctx: Context, t: TableInfo, p: ColumnParts) -> str:
        out = [p.name, p.type_sql]
        if p.collation:
            out.append(f"COLLATE {self.quote(p.collation)}")
        if p.generated:
            out.append(f"GENERATED ALWAYS AS ({p.generated}) {'STORED' if p.generated_stored else 'VIRTUAL'}")
        if p.identity:
            out.append(p.identity)
        if p.default is not None:
            out.append(f"DEFAULT {p.default}")
        if p.not_null:
            out.append("NOT NULL")
        if p.primary_key:
            out.append(p.primary_key)
        out += [f"CHECK {c}" for c in p.checks_inline]
        return " ".join(out)

    def ddl_generated(self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str) -> None:
        g = col.generated
        assert g is not None
        sql = ctx.expr(g.expression, g.dialect, f"{path}/generated", "generated column expression")
        if sql is None:
            ctx.report.add(f"{path}/generated", "generated column created as a plain column", "generated-dropped")
            ctx.plain_generated.add((t.schema.name, t.table.name, col.name))
            return
        parts.generated = sql
        parts.generated_stored = g.stored
        if not g.stored and not self.table.get("capabilities", {}).get("generated_virtual"):
            parts.generated_stored = True
            ctx.report.add(
                f"{path}/generated/stored", "VIRTUAL generated column made STORED", "virtual-stored", "approximation"
            )

    def ddl_identity(self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str) -> list[Statement]:
        """Identity/auto-increment clause on the column; returns the restart statements."""
        ctx.report.add(f"{path}/identity", "identity dropped", "identity-dropped")
        return []

    def ddl_collation(
        self, ctx: Context, t: TableInfo, col: m.Column, choice: TypeChoice, path: str
    ) -> tuple[str | None, str | None]:
        if ctx.same:
            return col.charset, col.collation
        if col.collation:
            ctx.report.add(
                f"{path}/collation",
                f"collation {col.collation!r} replaced by the target default",
                "collation-default",
                "approximation",
            )
        return None, None

    def ddl_column_comment(self, ctx: Context, t: TableInfo, col: m.Column, path: str) -> str | None:
        return col.comment

    def ddl_on_update(
        self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str
    ) -> list[Statement]:
        ctx.report.add(f"{path}/on_update", "ON UPDATE CURRENT_TIMESTAMP dropped", "on-update-dropped")
        return []

    # -- defaults --------------------------------------------------------------------------------
    def ddl_default(
        self, ctx: Context, t: TableInfo, col: m.Column, d: m.Default, choice: TypeChoice, path: str
    ) -> str | None:
        if d.kind == "literal":
            if col.type.kind == "set" and choice.type.kind != "set":
                return self.ddl_list_literal([v for v in d.value.split(",") if v], choice.type)
            if col.type.kind == "array" and choice.type.kind != "array":
                items = _pg_array_items(d.value)
                if items is None:
                    ctx.report.add(path, "array default not translated; dropped", "default-dropped")
                    return None
                elem = col.type.element.kind if col.type.element else "text"
                values: list[Any] = [_number(v) if elem in _NUMERIC_KINDS else v for v in items]
                return self.ddl_list_literal(values, choice.type)
            return self.ddl_literal_default(ctx, d.value, choice.type, path)
        if d.kind == "function":
            sql = self.ddl_function_default(ctx, d, choice.type)
            if sql is None:
                ctx.report.add(
                    path, f"default {d.value}() has no {self.name} counterpart; dropped", "default-function-dropped"
                )
            return sql
        if d.dialect and d.dialect != self.name and family_of(d.dialect) == self.family and self.family != "mysql":
            return self.ddl_expression_default(d.value, choice.type)
        sql = ctx.expr(d.value, d.dialect, path, "default expression", constant=True)
        return None if sql is None else self.ddl_expression_default(sql, choice.type)

    def ddl_literal_default(self, ctx: Context, value: str, typ: m.Type, path: str) -> str:
        """A literal default for a column of standard type ``typ`` (the target type)."""
        if typ.kind == "boolean":
            low = value.strip().lower()
            if low in ("1", "true", "t", "b'1'", "yes", "on"):
                return self.ddl_bool(True)
            if low in ("0", "false", "f", "b'0'", "no", "off"):
                return self.ddl_bool(False)
        bits = re.fullmatch(r"[bB]'([01]*)'|([01]+)", value.strip())
        if typ.kind == "bit" and bits:
            return self.ddl_bit_literal(bits.group(1) if bits.group(1) is not None else bits.group(2))
        if typ.kind in _NUMERIC_KINDS and re.fullmatch(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?", value.strip()):
            return value.strip()
        return self.literal(value)

    def ddl_bool(self, value: bool) -> str:
        return "TRUE" if value else "FALSE"

    def ddl_list_literal(self, items: list[Any], typ: m.Type) -> str:
        """A default holding a list of strings (a SET value) for the target's list type."""
        import json

        return self.literal(json.dumps(items, separators=(",", ":")))

    def ddl_bit_literal(self, bits: str) -> str:
        """A bit-string literal from a string of 0/1."""
        return self.literal(bits)

    def ddl_function_default(self, ctx: Context, d: m.Default, typ: m.Type) -> str | None:
        return {
            "current_timestamp": "CURRENT_TIMESTAMP",
            "current_date": "CURRENT_DATE",
            "current_time": "CURRENT_TIME",
        }.get(d.value)

    def ddl_expression_default(self, sql: str, typ: m.Type) -> str:
        return sql if sql.startswith("(") and sql.endswith(")") else f"({sql})"

    # -- keys and constraints --------------------------------------------------------------------
    def ddl_cols(self, t: TableInfo, cols: tuple[str, ...] | list[str]) -> str:
        return ", ".join(self.quote(t.col(c)) for c in cols)

    def ddl_primary_key(self, ctx: Context, t: TableInfo, pk: m.PrimaryKey, path: str) -> str:
        name = self.ddl_pk_name(ctx, t, pk, path)
        head = f"CONSTRAINT {self.quote(name)} " if name else ""
        return f"{head}PRIMARY KEY ({self.ddl_cols(t, pk.columns)})"

    def ddl_pk_name(self, ctx: Context, t: TableInfo, pk: m.PrimaryKey, path: str) -> str | None:
        return None

    def ddl_constraint_name(
        self, ctx: Context, t: TableInfo, name: str, path: str, what: str, index_like: bool = False
    ) -> str:
        """A constraint name unique where the target needs it (per table or per schema)."""
        limits = self.table.get("limits", {})
        scope_kind = limits.get("index_name_scope" if index_like else "constraint_name_scope", "table")
        scope: tuple[Any, ...] = (
            ("relation", t.tschema)
            if index_like and scope_kind == "schema"
            else (("constraint", t.tschema) if scope_kind == "schema" else ("constraint", t.tschema, t.name))
        )
        if index_like and scope_kind == "table":
            scope = ("index", t.tschema, t.name)
        return ctx.namer.claim(scope, name, f"{path}/name", what, prefix=t.name)

    def ddl_unique_clause(self, ctx: Context, t: TableInfo, u: m.UniqueConstraint, path: str) -> str | None:
        name = self.ddl_constraint_name(ctx, t, u.name, path, "unique constraint", index_like=True)
        extra = ""
        if u.nulls_not_distinct:
            extra = self.ddl_nulls_not_distinct(ctx, path)
        tail = self.ddl_deferrable(ctx, u.deferrable, u.initially_deferred, path, "unique")
        return f"CONSTRAINT {self.quote(name)} UNIQUE{extra} ({self.ddl_cols(t, u.columns)}){tail}"

    def ddl_nulls_not_distinct(self, ctx: Context, path: str) -> str:
        ctx.report.add(
            f"{path}/nulls_not_distinct", "NULLS NOT DISTINCT dropped (several NULLs allowed)", "nulls-distinct"
        )
        return ""

    def ddl_deferrable(self, ctx: Context, deferrable: bool, initially_deferred: bool, path: str, what: str) -> str:
        if not deferrable:
            return ""
        if what not in self.table.get("capabilities", {}).get("deferrable", []):
            ctx.report.add(
                f"{path}/deferrable", "DEFERRABLE dropped (checked immediately)", "deferrable-dropped", "approximation"
            )
            return ""
        return " DEFERRABLE INITIALLY DEFERRED" if initially_deferred else " DEFERRABLE"

    def ddl_inline_check_ok(self, ctx: Context, t: TableInfo, col: m.Column, chk: m.Check) -> bool:
        """Whether a column-level check is declared on its column (same engine)."""
        return True

    def ddl_check_expression(self, ctx: Context, t: TableInfo, chk: m.Check, path: str) -> str | None:
        if ctx.same and chk.column and any(c.name == chk.column for c in t.table.columns):
            return None  # declared on its column (ddl_column_parts)
        expr = re.sub(r"(?is)^\s*CHECK\s*", "", chk.expression).strip()
        if not ctx.same and re.fullmatch(
            r"\(?\s*json_valid\s*\(\s*[`\"]?[^`\")]+[`\"]?\s*\)\s*\)?", expr, re.IGNORECASE
        ):
            ctx.report.add(
                path, "json_valid() check implied by the JSON column type", "json-valid-check", "approximation"
            )
            return None
        if not chk.enforced and not ctx.same:
            ctx.report.add(
                f"{path}/enforced", "NOT ENFORCED check dropped", "check-not-enforced-dropped", "approximation"
            )
            return None
        sql = ctx.expr(expr, chk.dialect, path, "check constraint")
        if sql is None:
            return None
        if not (sql.startswith("(") and sql.endswith(")")):
            sql = f"({sql})"
        return sql if chk.enforced else self.ddl_not_enforced(ctx, sql, path)

    def ddl_not_enforced(self, ctx: Context, sql: str, path: str) -> str:
        return sql

    def ddl_check_clause(self, ctx: Context, t: TableInfo, name: str, sql: str, path: str) -> str:
        cname = self.ddl_constraint_name(ctx, t, name, path, "check constraint")
        return f"CONSTRAINT {self.quote(cname)} CHECK {sql}"

    def ddl_fk_clause(self, ctx: Context, t: TableInfo, fk: m.ForeignKey, path: str) -> str | None:
        rs = fk.ref_schema or t.schema.name
        target = ctx.table_names.get((rs, fk.ref_table))
        if target is None:
            ctx.report.add(
                path, f"foreign key to {rs}.{fk.ref_table}, which is not in the document, dropped", "fk-missing-table"
            )
            return None
        if not self.ddl_fk_target_ok(ctx, rs, fk):
            ctx.report.add(
                path, "foreign key to columns without a primary key or unique constraint dropped", "fk-non-unique"
            )
            return None
        ref_cols = ", ".join(self.quote(ctx.column_names.get((rs, fk.ref_table, c), c)) for c in fk.ref_columns)
        name = self.ddl_constraint_name(ctx, t, fk.name, path, "foreign key")
        sql = (
            f"CONSTRAINT {self.quote(name)} FOREIGN KEY ({self.ddl_cols(t, fk.columns)}) "
            f"REFERENCES {self.qualify(target[0], target[1])} ({ref_cols})"
        )
        if fk.match and fk.match.upper() == "FULL":
            sql += self.ddl_fk_match(ctx, path)
        for what, action in (("DELETE", fk.on_delete), ("UPDATE", fk.on_update)):
            act = self.ddl_fk_action(ctx, action, f"{path}/on_{what.lower()}")
            if act:
                sql += f" ON {what} {act}"
        sql += self.ddl_deferrable(ctx, fk.deferrable, fk.initially_deferred, path, "foreign_key")
        if not fk.enforced:
            sql += self.ddl_fk_not_valid(ctx, path)
        return sql

    def ddl_fk_target_ok(self, ctx: Context, ref_schema: str, fk: m.ForeignKey) -> bool:
        return True

    def ddl_fk_match(self, ctx: Context, path: str) -> str:
        ctx.report.add(f"{path}/match", "MATCH FULL dropped", "fk-match-dropped")
        return ""

    def ddl_fk_not_valid(self, ctx: Context, path: str) -> str:
        ctx.report.add(f"{path}/enforced", "NOT VALID foreign key created validated", "fk-not-valid", "approximation")
        return ""

    def ddl_fk_action(self, ctx: Context, action: str, path: str) -> str | None:
        act = (action or "NO ACTION").upper()
        allowed = self.table.get("capabilities", {}).get("foreign_key_actions", [])
        if act not in allowed:
            ctx.report.add(path, f"referential action {act} not supported; NO ACTION used", "fk-action")
            return "NO ACTION"
        return act

    def ddl_foreign_keys(self, ctx: Context, schema: m.Schema, table: m.Table, path: str) -> list[Statement]:
        """ALTER TABLE ... ADD FOREIGN KEY, after every table exists (cycles work)."""
        if not self.table.get("capabilities", {}).get("alter_add_constraint", True):
            return []
        t = self._table_info(ctx, schema, table, path)
        out = []
        for fi, fk in enumerate(table.foreign_keys):
            clause = self.ddl_fk_clause(ctx, t, fk, f"{path}/foreign_keys/{fi}")
            if clause:
                out.append(
                    Statement(f"ALTER TABLE {t.qname} ADD {clause}", "foreign_key", f"{t.qname}.{fk.name}", t.qname)
                )
        return out

    def ddl_inline_foreign_keys(self, ctx: Context, t: TableInfo) -> list[str]:
        out = []
        for fi, fk in enumerate(t.table.foreign_keys):
            clause = self.ddl_fk_clause(ctx, t, fk, f"{t.path}/foreign_keys/{fi}")
            if clause:
                out.append(clause)
        return out

    # -- indexes ---------------------------------------------------------------------------------
    def ddl_index_name(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str:
        name = self.ddl_constraint_name(ctx, t, ix.name, path, "index", index_like=True)
        t.index_names[ix.name] = name
        return name

    def ddl_index_part(self, ctx: Context, t: TableInfo, ix: m.Index, part: m.IndexPart, path: str) -> str | None:
        if part.expression is not None:
            sql = ctx.expr(part.expression, ix.dialect, path, "index expression")
            if sql is None:
                return None
            text = f"({sql})" if not (sql.startswith("(") and sql.endswith(")")) else sql
        else:
            assert part.column is not None
            text = self.quote(t.col(part.column))
            if part.length:
                prefix = self.ddl_prefix_part(ctx, text, part.length, path)
                if prefix is None:
                    return None
                text = prefix
        if part.collation and ctx.same:
            text += f" COLLATE {self.quote(part.collation)}"
        if part.opclass:
            if ctx.same:
                text += f" {part.opclass}"
            else:
                ctx.report.add(
                    f"{path}/opclass", f"operator class {part.opclass} dropped", "opclass-dropped", "approximation"
                )
        if part.descending:
            text += " DESC"
        if part.nulls:
            text += self.ddl_nulls_order(ctx, part.nulls, path)
        return text

    def ddl_prefix_part(self, ctx: Context, col: str, length: int, path: str) -> str | None:
        return f"substr({col}, 1, {length})"

    def ddl_nulls_order(self, ctx: Context, nulls: str, path: str) -> str:
        return f" NULLS {nulls.upper()}"

    def ddl_index(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> Statement | None:
        """CREATE INDEX (post-data); engines with special index kinds override."""
        method = self.ddl_index_method(ctx, t, ix, path)
        if method is False:
            return None
        if ix.where and not self.table.get("capabilities", {}).get("partial_indexes"):
            if ix.unique:
                ctx.report.add(
                    f"{path}/where", "partial unique index dropped (cannot be expressed)", "partial-unique-dropped"
                )
                return None
            ctx.report.add(f"{path}/where", "partial index made a full index", "partial-index-full", "approximation")
        parts = []
        for pi, part in enumerate(ix.parts):
            text = self.ddl_index_part(ctx, t, ix, part, f"{path}/parts/{pi}")
            if text is None:
                ctx.report.add(path, f"index {ix.name!r} dropped (a key part cannot be translated)", "index-dropped")
                return None
            parts.append(text)
        name = self.ddl_index_name(ctx, t, ix, path)
        head = "CREATE UNIQUE INDEX" if ix.unique else "CREATE INDEX"
        sql = f"{head} {self.quote(name)} ON {t.qname}{method or ''} ({', '.join(parts)})"
        sql += self.ddl_index_tail(ctx, t, ix, path)
        translated = (
            not ctx.same and any(p.expression is not None for p in ix.parts) or (not ctx.same and bool(ix.where))
        )
        return Statement(sql, "index", self.qualify(t.tschema, name), t.qname, optional=translated, path=path)

    def ddl_index_method(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str | bool | None:
        """`` USING x`` text, None for the default, or False to drop the index (reported)."""
        if ix.kind in ("btree", "hash"):
            return None
        ctx.report.add(
            f"{path}/kind",
            f"{ix.kind} index dropped ({self.name} has no counterpart)",
            "index-kind-dropped",
            "approximation",
        )
        return False

    def ddl_index_tail(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str:
        tail = ""
        if ix.include:
            ctx.report.add(f"{path}/include", "INCLUDE columns dropped", "include-dropped", "approximation")
        if ix.where and self.table.get("capabilities", {}).get("partial_indexes"):
            where = ctx.expr(ix.where, ix.dialect, f"{path}/where", "partial index predicate")
            if where is not None:
                tail += f" WHERE {where}"
        if not ix.visible:
            ctx.report.add(f"{path}/visible", "invisible index made visible", "invisible-index", "approximation")
        if ix.comment:
            ctx.report.add(f"{path}/comment", "index comment dropped", "comment-dropped", "approximation")
        return tail

    def ddl_comments(self, ctx: Context, t: TableInfo) -> list[Statement]:
        if t.table.comment:
            ctx.report.add(f"{t.path}/comment", "table comment dropped", "comment-dropped", "approximation")
        for ci, col in enumerate(t.table.columns):
            if col.comment:
                ctx.report.add(
                    f"{t.path}/columns/{ci}/comment", "column comment dropped", "comment-dropped", "approximation"
                )
        return []

    def ddl_table_suffix(self, ctx: Context, t: TableInfo) -> str:
        return ""

    # -- views, routines, triggers, events -------------------------------------------------------
    def ddl_constraint_comments(self, ctx: Context, t: TableInfo) -> list[Statement]:
        """COMMENT statements for named constraints (after the foreign keys exist)."""
        groups: tuple[tuple[str, tuple[m.Check | m.UniqueConstraint | m.ForeignKey, ...]], ...] = (
            ("checks", t.table.checks),
            ("uniques", t.table.uniques),
            ("foreign_keys", t.table.foreign_keys),
        )
        for kind, items in groups:
            for i, c in enumerate(items):
                if c.comment:
                    ctx.report.add(
                        f"{t.path}/{kind}/{i}/comment", "constraint comment dropped", "comment-dropped", "approximation"
                    )
        return []

    def ddl_schema_objects(self, ctx: Context) -> list[Statement]:
        """Constraint comments, then routines, views, triggers and events of every schema.

        Routines come first (views may call them, and PostgreSQL aggregates need their functions),
        views in dependency order, triggers in action order.
        """
        schemas = list(enumerate(ctx.db.schemas))
        out: list[Statement] = []
        for si, schema in schemas:
            for ti, table in enumerate(schema.tables):
                out += self.ddl_constraint_comments(
                    ctx, self._table_info(ctx, schema, table, f"/schemas/{si}/tables/{ti}")
                )
        for si, schema in schemas:
            tschema = ctx.schema_names[schema.name]
            for ri in sorted(range(len(schema.routines)), key=lambda i: schema.routines[i].kind == "aggregate"):
                r, rp = schema.routines[ri], f"/schemas/{si}/routines/{ri}"
                if ctx.same_family:
                    out += self.ddl_routine(ctx, schema, r, tschema, rp)
                else:
                    ctx.report.add(
                        rp, f"{r.kind} {r.name!r} not translated from {ctx.source}", "routine-not-translated"
                    )
        for si, schema in schemas:
            for vi in _view_order(schema.views):
                out += self.ddl_view(
                    ctx, schema, schema.views[vi], ctx.schema_names[schema.name], f"/schemas/{si}/views/{vi}"
                )
        for si, schema in schemas:
            tschema = ctx.schema_names[schema.name]
            for gi in sorted(
                range(len(schema.triggers)), key=lambda i: (schema.triggers[i].table, schema.triggers[i].order or 0)
            ):
                trg, gp = schema.triggers[gi], f"/schemas/{si}/triggers/{gi}"
                if ctx.same_family:
                    out += self.ddl_trigger(ctx, schema, trg, tschema, gp)
                else:
                    ctx.report.add(
                        gp, f"trigger {trg.name!r} not translated from {ctx.source}", "trigger-not-translated"
                    )
            for ei, ev in enumerate(schema.events):
                ep = f"/schemas/{si}/events/{ei}"
                if ctx.same_family:
                    out += self.ddl_event(ctx, schema, ev, tschema, ep)
                else:
                    ctx.report.add(
                        ep, f"event {ev.name!r} not created ({self.name} has no scheduled events)", "event-dropped"
                    )
        return out

    def ddl_event(self, ctx: Context, schema: m.Schema, ev: m.Event, tschema: str | None, path: str) -> list[Statement]:
        if not ev.definition:
            ctx.report.add(path, f"event {ev.name!r} has no definition; not created", "event-dropped")
            return []
        ctx.definition(ev.definition, f"{path}/definition", "event")
        return [
            Statement(self.ddl_strip_source_schema(ctx, schema, ev.definition), "event", self.qualify(tschema, ev.name))
        ]

    def ddl_strip_source_schema(self, ctx: Context, schema: m.Schema, sql: str) -> str:
        return sql

    def ddl_view(self, ctx: Context, schema: m.Schema, view: m.View, tschema: str | None, path: str) -> list[Statement]:
        """CREATE VIEW (verbatim on the same engine, else translated behind the guard)."""
        body = view.definition.strip().rstrip(";")
        if ctx.same:
            body = self.ddl_strip_source_schema(
                ctx, schema, ctx.verbatim(body, f"{path}/definition", "view definition", statement=True)
            )
        else:
            translated = ctx.expr(
                body, view.dialect, f"{path}/definition", "view definition", statement=True, schema=schema.name
            )
            if translated is None:
                ctx.report.add(path, f"view {view.name!r} not created", "view-dropped")
                return []
            body = self.ddl_rename_in_view(ctx, schema, translated)
        qname = self.qualify(tschema, view.name)
        cols = f" ({', '.join(self.quote(c) for c in view.columns)})" if view.columns else ""
        if view.comment and not ctx.same:
            ctx.report.add(f"{path}/comment", "view comment dropped", "comment-dropped", "approximation")
        return [
            Statement(
                self.ddl_view_sql(ctx, view, qname, cols, body, path), "view", qname, optional=not ctx.same, path=path
            )
        ]

    def ddl_rename_in_view(self, ctx: Context, schema: m.Schema, sql: str) -> str:
        return sql

    def ddl_view_sql(self, ctx: Context, view: m.View, qname: str, cols: str, body: str, path: str) -> str:
        if view.materialized:
            ctx.report.add(
                f"{path}/materialized", "materialized view created as a plain view", "matview-plain", "approximation"
            )
        tail = ""
        if view.check_option:
            tail = f" WITH {view.check_option.upper()} CHECK OPTION"
        return f"CREATE VIEW {qname}{cols} AS {body}{tail}"

    def ddl_routine(
        self, ctx: Context, schema: m.Schema, r: m.Routine, tschema: str | None, path: str
    ) -> list[Statement]:
        if not r.definition:
            ctx.report.add(path, f"{r.kind} {r.name!r} has no definition; not created", "routine-no-definition")
            return []
        ctx.definition(r.definition, f"{path}/definition", "routine")
        return [
            Statement(
                self.ddl_strip_source_schema(ctx, schema, r.definition).rstrip().rstrip(";"),
                "routine",
                self.qualify(tschema, r.name),
            )
        ]

    def ddl_trigger(
        self, ctx: Context, schema: m.Schema, trg: m.Trigger, tschema: str | None, path: str
    ) -> list[Statement]:
        if not trg.definition:
            ctx.report.add(path, f"trigger {trg.name!r} has no definition; not created", "trigger-no-definition")
            return []
        ctx.definition(trg.definition, f"{path}/definition", "trigger")
        return [
            Statement(
                self.ddl_strip_source_schema(ctx, schema, trg.definition).rstrip().rstrip(";"),
                "trigger",
                self.qualify(tschema, trg.name),
                self.qualify(tschema, trg.table),
            )
        ]

    # -- applying ----------------------------------------------------------------------------------
    def ddl_script_statement(self, stmt: Statement) -> str:
        """One statement as it appears in a script (terminated for the engine's client)."""
        return stmt.sql.rstrip() + ";"

    def ddl_drop_statements(self, plan: DdlPlan) -> list[Statement]:
        """Statements that remove the plan's tables and views (``--if-exists replace``)."""
        out = [
            Statement(f"DROP VIEW IF EXISTS {s.object}", "drop", s.object)
            for s in reversed(plan.post_data)
            if s.kind == "view"
        ]
        out += [
            Statement(f"DROP TABLE IF EXISTS {s.object}", "drop", s.object)
            for s in reversed(plan.pre_data)
            if s.kind == "table"
        ]
        return out

    def ddl_existing_objects(self, conn: Any, plan: DdlPlan) -> set[str]:
        """Quoted, qualified names (as in ``Statement.object``) of relations and types that exist."""
        raise NotImplementedError

    # -- schema diff: ALTER rendering (dbjson diff --ddl) --------------------------------------------
    def ddl_alter_add_column_sql(self, qtable: str, coldef: str) -> str:
        """ALTER TABLE ... ADD COLUMN for a definition rendered by ``ddl_column_sql``."""
        return f"ALTER TABLE {qtable} ADD COLUMN {coldef}"

    def ddl_alter_drop_column_sql(self, qtable: str, column: str) -> str:
        """ALTER TABLE ... DROP COLUMN."""
        return f"ALTER TABLE {qtable} DROP COLUMN {self.quote(column)}"

    def ddl_alter_column_sql(
        self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, coldef: str, fields: set[str]
    ) -> list[str]:
        """Statements that give an existing column the definition ``parts`` (``fields`` changed).

        Standard SQL, one ALTER COLUMN per attribute; a field that has no such clause raises
        :class:`~dbjson.errors.UnsupportedError`."""
        q, c = t.qname, parts.name
        out: list[str] = []
        if fields & {"type", "native", "collation", "charset"}:
            coll = f" COLLATE {self.quote(parts.collation)}" if parts.collation else ""
            out.append(f"ALTER TABLE {q} ALTER COLUMN {c} TYPE {parts.type_sql}{coll} USING {c}::{parts.type_sql}")
        if "default" in fields:
            out.append(
                f"ALTER TABLE {q} ALTER COLUMN {c} "
                + (f"SET DEFAULT {parts.default}" if parts.default is not None else "DROP DEFAULT")
            )
        if "nullable" in fields:
            out.append(f"ALTER TABLE {q} ALTER COLUMN {c} {'SET' if parts.not_null else 'DROP'} NOT NULL")
        if "comment" in fields:
            out.append(f"COMMENT ON COLUMN {q}.{c} IS {self.literal(col.comment) if col.comment else 'NULL'}")
        rest = fields - {"type", "native", "collation", "charset", "default", "nullable", "comment"}
        if rest:
            raise UnsupportedError(
                f"{self.name}: changing a column's {', '.join(sorted(rest))} is not rendered",
                table=t.name,
                column=col.name,
                hint="change it by hand, or drop and re-add the column",
            )
        return out

    def ddl_add_constraint_sql(self, qtable: str, clause: str) -> str:
        """ALTER TABLE ... ADD a constraint clause (primary key, unique, check, foreign key)."""
        return f"ALTER TABLE {qtable} ADD {clause}"

    def ddl_drop_constraint_sql(self, qtable: str, kind: str, name: str | None) -> str:
        """ALTER TABLE ... DROP a constraint; ``kind`` is primary_key, unique, check or foreign_key."""
        return f"ALTER TABLE {qtable} DROP CONSTRAINT {self.quote(name or '')}"

    def ddl_drop_sql(
        self, kind: str, schema: str | None, name: str, table: str | None = None, signature: str | None = None
    ) -> str:
        """DROP of a schema object: table, view, materialized_view, index, sequence, trigger, event,
        function/procedure/aggregate, enum, composite or domain (``table``: the quoted table of an
        index or trigger; ``signature``: routine argument types)."""
        word = {
            "materialized_view": "MATERIALIZED VIEW",
            "enum": "TYPE",
            "composite": "TYPE",
            "window": "FUNCTION",
        }.get(kind, kind.upper())
        return f"DROP {word} {self.qualify(schema, name)}"

    def ddl_table_comment_sql(self, qtable: str, comment: str | None) -> str:
        """Set (or, with None, remove) a table's comment."""
        return f"COMMENT ON TABLE {qtable} IS {self.literal(comment) if comment else 'NULL'}"

    def ddl_alters_in_place(self) -> bool:
        """Whether ALTER TABLE changes columns and constraints of an existing table (else the diff
        rebuilds the table: ``ddl_rebuild_table_sql``)."""
        return True

    def ddl_rebuild_table_sql(
        self, qtable: str, qtemp: str, name: str, create_sql: str, insert_columns: list[str], select_columns: list[str]
    ) -> list[str]:
        """Replace table ``qtable`` by ``create_sql`` (which creates ``qtemp``), keeping the rows of the
        columns listed, then rename it to ``name``: for engines that do not alter in place."""
        raise UnsupportedError(f"{self.name} alters tables in place; no rebuild", table=qtable)


def _zero_date_dropped(ctx: Context, col: m.Column, target: m.Type, parts: ColumnParts, path: str) -> bool:
    """A zero-date default (``'0000-00-00 00:00:00'``) on a target without zero dates: no default,
    and no NOT NULL either, so that the import's ``--zero-dates null`` rows load (the pgloader rule)."""
    d = col.default
    if d is None or d.kind != "literal" or not col.type.allows_zero or target.allows_zero:
        return False
    if not re.fullmatch(r"0000-00-00( 00:00:00(\.0+)?)?", d.value.strip()):
        return False
    ctx.report.add(
        f"{path}/default",
        f"zero-date default {d.value!r} dropped (no zero dates in {ctx.engine.name})",
        "zero-date-default",
    )
    if parts.not_null:
        parts.not_null = False
        ctx.report.add(f"{path}/nullable", "NOT NULL dropped: zero dates are imported as NULL", "zero-date-not-null")
    return True


def _demand(t: m.Type, length: int | None) -> float:
    """Bytes a key part wants (infinite for unbounded strings)."""
    t = _complete(t)
    if t.kind in ("char", "varchar", "text", "enum", "set"):
        n = length or (t.length if t.kind != "text" else None)
        return float("inf") if n is None else 4.0 * n
    if t.kind in ("binary", "varbinary", "blob"):
        n = length or (t.length if t.kind != "blob" else None)
        return float("inf") if n is None else float(n)
    return 8.0


def _key_shares(table: m.Table, budget: int) -> dict[str, int]:
    """Each key column's share of a key-size limit (water-filling over every key it is in)."""
    keys: list[list[tuple[str, int | None]]] = []
    if table.primary_key:
        keys.append([(c, None) for c in table.primary_key.columns])
    keys += [[(c, None) for c in u.columns] for u in table.uniques]
    keys += [
        [(p.column, p.length) for p in ix.parts if p.column]
        for ix in table.indexes
        if ix.kind not in ("fulltext", "spatial")
    ]
    keys += [[(c, None) for c in fk.columns] for fk in table.foreign_keys]
    types = {c.name: c.type for c in table.columns}
    shares: dict[str, int] = {}
    for key in keys:
        wants = sorted(((_demand(types[c], n), c) for c, n in key if c in types), key=lambda x: x[0])
        # in a key of several columns 64 bytes stay free, so that a key that borrows these types
        # through a foreign key (plus a few integer columns) still fits
        left, count = float(budget - (64 if len(wants) > 1 else 0)), len(wants)
        for want, col in wants:
            give = min(want, left / count)
            left -= give
            count -= 1
            shares[col] = min(shares.get(col, budget), int(give))
    return shares


def primary_schema(db: m.Database) -> int:
    """Index of the schema that maps to a single-schema target's own namespace.

    The only schema holding objects wins (an empty ``public`` beside ``bookings`` does not count)."""
    used = [i for i, s in enumerate(db.schemas) if s.tables or s.views or s.sequences or s.routines]
    if len(used) == 1:
        return used[0]
    names = [s.name for s in db.schemas]
    for preferred in ("main", "public", db.source.database):
        if preferred in names:
            return names.index(preferred)
    return 0


def _number(text: str) -> int | float | str:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _pg_array_items(text: str) -> list[str] | None:
    """The elements of a one-dimensional PostgreSQL array literal (``{a,"b c"}``), else None."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")) or "{" in body[1:-1]:
        return None
    items: list[str] = []
    for m_ in re.finditer(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^,]*))\s*(?:,|$)', body[1:-1]):
        if m_.group(0) == "" and m_.start() == len(body) - 2:
            break
        quoted, bare = m_.group(1), m_.group(2)
        items.append(re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare.strip())
    return [] if body == "{}" else items


def _domain_of(db: m.Database, schema: m.Schema, typ: m.Type) -> m.Domain | None:
    """The domain a column type names, if the document defines it."""
    if not typ.type_name or typ.kind == "enum":
        return None
    for s in db.schemas:
        if s.name == (typ.type_schema or schema.name):
            return next((d for d in s.domains if d.name == typ.type_name), None)
    return None


def _complete(t: m.Type) -> m.Type:
    """Fill parameters a source left open (SQLite): the widest safe choice."""
    if t.kind in ("time", "timestamp") and t.fsp is None:
        return m.replace(t, fsp=6)
    if t.kind == "char" and t.length is None:
        return m.replace(t, kind="varchar")
    if t.kind == "binary" and t.length is None:
        return m.replace(t, kind="varbinary")
    if t.kind == "bit" and t.length is None and not t.varying:
        return m.replace(t, length=1)
    if t.kind in ("integer", "float") and t.bits is None:
        return m.replace(t, bits=64)
    return t


def _check_body(chk: m.Check) -> str:
    expr = re.sub(r"(?is)^\s*CHECK\s*", "", chk.expression).strip()
    return expr if expr.startswith("(") and expr.endswith(")") else f"({expr})"


def _replace(t: m.Type, **changes: Any) -> m.Type:
    return m.replace(t, **changes)


def _table_order(tables: tuple[m.Table, ...]) -> list[int]:
    """Table indexes with inheritance and partition parents before their children."""
    index = {t.name: i for i, t in enumerate(tables)}
    order: list[int] = []
    seen: set[int] = set()

    def visit(i: int) -> None:
        if i in seen:
            return
        seen.add(i)
        t = tables[i]
        for parent in (*t.inherits, *((t.partition_of,) if t.partition_of else ())):
            j = index.get(parent.split(".")[-1])
            if j is not None:
                visit(j)
        order.append(i)

    for i in range(len(tables)):
        visit(i)
    return order


def _view_order(views: tuple[m.View, ...]) -> list[int]:
    """View indexes ordered so that a view comes after the views its definition names."""
    names = {v.name: i for i, v in enumerate(views)}
    order: list[int] = []
    state: dict[int, int] = {}

    def visit(i: int) -> None:
        if state.get(i) == 2:
            return
        if state.get(i) == 1:
            return  # a cycle: keep document order
        state[i] = 1
        body = views[i].definition
        for name, j in names.items():
            if j != i and re.search(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", body):
                visit(j)
        state[i] = 2
        order.append(i)

    for i in range(len(views)):
        visit(i)
    return order
