"""Model → DDL: the engine-neutral part of schema-load (the walker).

:class:`BaseDDL` is the mixin every engine's ``XDDL`` class extends. It walks the document in a
fixed order and asks the engine (``self``) for each engine-specific piece through small ``ddl_*``
hooks; the engine's ``dialects/<name>.toml`` supplies limits, capabilities and type rules.
Same engine: native spellings (``native.raw``) and the engine's own options are re-emitted.
Across engines: the standard type and the target's type rules decide; every attribute that does
not survive is recorded in the :class:`~dbjson.ddl.plan.TranslationReport` with its JSON path.

The walker is assembled from parts, one module each: column clauses (:mod:`~dbjson.ddl.columns`),
keys, constraints and indexes (:mod:`~dbjson.ddl.constraints`) and the ALTER statements of the
schema diff (:mod:`~dbjson.ddl.alter`); the state of one translation is a
:class:`~dbjson.ddl.context.Context`, built by the caller with the engines it needs.
"""

from __future__ import annotations

import re
from typing import Any

from .. import model as m
from ..errors import TranslationError
from .alter import AlterDDL
from .columns import ColumnDDL
from .constraints import ConstraintDDL
from .context import Context, refuse_nul
from .order import table_order, view_order
from .plan import DdlPlan, Statement, terminated
from .privileges import PrivilegeDDL
from .tableinfo import TableInfo


class BaseDDL(ColumnDDL, ConstraintDDL, AlterDDL, PrivilegeDDL):
    """Engine-neutral DDL generation; engines override the ``ddl_*`` hooks."""

    # -- the plan ---------------------------------------------------------------------------------
    def ddl_plan(self, ctx: Context) -> DdlPlan:
        """Translate ``ctx.db`` into a :class:`DdlPlan` for this engine."""
        if not ctx.same:
            ctx.db = sequence_defaults_as_identity(ctx)
        db = ctx.db
        plan = DdlPlan(
            target=self.name,
            server_version=self.server_version,
            report=ctx.report,
            script_statement=self.ddl_script_statement,
        )
        self.ddl_assign_names(ctx)
        self.ddl_check_limits(ctx)
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
            for ti in table_order(schema.tables):
                table = schema.tables[ti]
                if table.partition_of and not ctx.same:
                    self.ddl_merged_partition(ctx, table, f"{sp}/tables/{ti}")
                    continue
                t_pre, t_post, t_restart = self.ddl_table(ctx, schema, table, f"{sp}/tables/{ti}")
                tables += t_pre
                post += t_post
                restarts += t_restart
        fks: list[Statement] = []
        for si, schema in enumerate(db.schemas):
            for ti, table in enumerate(schema.tables):
                if table.partition_of and not ctx.same:
                    continue
                fks += self.ddl_foreign_keys(ctx, schema, table, f"/schemas/{si}/tables/{ti}")
        objects = self.ddl_schema_objects(ctx)
        extensions = self.ddl_extensions(ctx)
        plan.pre_data = schemas + extensions + ctx.types + sequences + tables
        # row-level security policies and rewrite rules may call routines or read views: after them
        late = [s for s in post if s.kind in ("policy", "rule")]
        post = [s for s in post if s.kind not in ("policy", "rule")]
        plan.post_data = ctx.post_functions + post + fks + objects + late + restarts
        plan.table_names = {  # the tables created (not the partitions merged into their parent)
            key: name for key, name in ctx.table_names.items() if ctx.same or not _is_partition(db, key)
        }
        plan.column_names = dict(ctx.column_names)
        plan.column_types = dict(ctx.column_types)
        plan.plain_generated = set(ctx.plain_generated)
        plan.privileges = self.ddl_privileges(ctx)
        return plan

    def ddl_assign_names(self, ctx: Context) -> None:
        scope = self.table.get("limits", {}).get("index_name_scope", "table")
        for si, schema in enumerate(ctx.db.schemas):
            refuse_nul(schema.name, f"/schemas/{si}/name", "schema")
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
                ctx.view_names[(schema.name, view.name)] = ctx.namer.claim(
                    ("relation", tschema), view.name, f"/schemas/{si}/views/{vi}/name", "view"
                )
            if scope == "schema":
                for seq in schema.sequences:
                    ctx.namer.reserve(("relation", tschema), seq.name)

    def ddl_check_limits(self, ctx: Context) -> None:
        """Refuse, before the first statement, what the target cannot create and no translation
        fits (``[limits]`` of ``dialects/<name>.toml``): a table with more columns than
        ``columns_per_table``, more keys and indexes than ``indexes_per_table``, a key of more than
        ``key_parts`` columns; the name of a sequence, routine, trigger or event (created as it is:
        code may call it by name) longer than the identifier limit or with characters the target
        refuses. Raises :class:`~dbjson.errors.TranslationError` naming the object and its JSON
        pointer (exit code 5), so that no half schema is ever started."""
        limits = self.table.get("limits", {})
        max_cols = int(limits.get("columns_per_table", 0))
        max_keys = int(limits.get("indexes_per_table", 0))
        max_parts = int(limits.get("key_parts", 0))
        caps = self.table.get("capabilities", {})
        where = f"{self.table.get('display', self.name)}"
        hint = "change the schema document (or the source) so that it fits the target, then run again"
        for si, schema in enumerate(ctx.db.schemas):
            for ti, table in enumerate(schema.tables):
                if table.partition_of and not ctx.same:
                    continue  # merged into its parent (ddl_merged_partition)
                path = f"/schemas/{si}/tables/{ti}"
                if max_cols and len(table.columns) > max_cols:
                    raise TranslationError(
                        f"table {table.name!r} has {len(table.columns)} columns; {where} allows at most {max_cols}",
                        pointer=f"{path}/columns",
                        table=table.name,
                        hint=hint,
                    )
                keys: list[tuple[str, int, str]] = []  # (what, key parts, pointer)
                if table.primary_key and table.primary_key.columns:
                    keys.append(("primary key", len(table.primary_key.columns), f"{path}/primary_key"))
                keys += [
                    (f"unique constraint {u.name!r}", len(u.columns), f"{path}/uniques/{ui}")
                    for ui, u in enumerate(table.uniques)
                ]
                keys += [
                    (f"index {ix.name!r}", len(ix.parts), f"{path}/indexes/{ii}")
                    for ii, ix in enumerate(table.indexes)
                    if not ix.constraint
                ]
                if caps.get("fk_auto_index"):  # the indexes the server adds for foreign keys count too
                    leads = [[c.lower() for c in table.primary_key.columns]] if table.primary_key else []
                    leads += [[c.lower() for c in u.columns] for u in table.uniques]
                    leads += [[(p.column or "").lower() for p in ix.parts] for ix in table.indexes]
                    for fi, fk in enumerate(table.foreign_keys):
                        cols = [c.lower() for c in fk.columns]
                        if not any(sorted(lead[: len(cols)]) == sorted(cols) for lead in leads):
                            leads.append(cols)
                            keys.append((f"foreign key {fk.name!r}", len(cols), f"{path}/foreign_keys/{fi}"))
                if max_keys and len(keys) > max_keys:
                    raise TranslationError(
                        f"table {table.name!r} has {len(keys)} keys and indexes; {where} allows at most {max_keys}",
                        pointer=f"{path}/indexes",
                        table=table.name,
                        hint=hint,
                    )
                for what, parts, pointer in keys:
                    if max_parts and parts > max_parts:
                        raise TranslationError(
                            f"{what} of table {table.name!r} has {parts} columns; {where} allows at most {max_parts}",
                            pointer=pointer,
                            table=table.name,
                            hint=hint,
                        )
            named: list[tuple[str, str, str]] = []  # (what, name, pointer) of objects created under their own name
            if caps.get("sequences"):
                named += [("sequence", q.name, f"/schemas/{si}/sequences/{i}") for i, q in enumerate(schema.sequences)]
            if ctx.same_family and not ctx.untrusted:
                named += [(r.kind, r.name, f"/schemas/{si}/routines/{i}") for i, r in enumerate(schema.routines)]
                named += [("trigger", g.name, f"/schemas/{si}/triggers/{i}") for i, g in enumerate(schema.triggers)]
                named += [("event", e.name, f"/schemas/{si}/events/{i}") for i, e in enumerate(schema.events)]
            for what, name, pointer in named:
                refuse_nul(name, f"{pointer}/name", what)
                problem = None
                if ctx.namer.limit and ctx.namer.size(name) > ctx.namer.limit:
                    problem = f"is longer than the {ctx.namer.limit} {ctx.namer.unit} {where} allows"
                elif ctx.namer.refused_characters(name):
                    problem = f"has characters {where} refuses in names (a trailing space, or one outside the BMP)"
                if problem:
                    raise TranslationError(
                        f"{what} name {name!r} {problem}; it is not renamed, since code may refer to it by name",
                        pointer=f"{pointer}/name",
                        hint=hint,
                    )

    def ddl_database_options(self, db: m.Database) -> str:
        return ""

    # -- extensions ------------------------------------------------------------------------------
    def ddl_extensions(self, ctx: Context) -> list[Statement]:
        """The source's PostgreSQL extensions: an engine that has them creates them (PostgreSQL
        overrides this); elsewhere each is reported, and what the schema uses of it (a type, a
        function in a default, an operator class) is translated or reported where it is used."""
        listed = ctx.db.options.get("postgresql", {}).get("extensions", [])
        for i, ext in enumerate(listed):
            ctx.report.add(
                f"/options/postgresql/extensions/{i}",
                f"extension {ext.get('name')!r} not created ({self.name} has no extensions): what the schema uses "
                "of it is translated or reported where it is used",
                "extension-not-created",
                "approximation",
            )
        return []

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

    def ddl_table(
        self, ctx: Context, schema: m.Schema, table: m.Table, path: str
    ) -> tuple[list[Statement], list[Statement], list[Statement]]:
        """CREATE TABLE (pre-data), then indexes/uniques/checks/triggers (post) and restarts."""
        t = self.ddl_table_info(ctx, schema, table, path)
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

    def ddl_merged_partition(self, ctx: Context, table: m.Table, path: str) -> None:
        """A PostgreSQL partition on another engine: not created. Its rows are exported with its
        partitioned table, which becomes one plain table with the parent's keys (partitioning-dropped)."""
        own = [
            f"{len(v)} {what}"
            for what, v in (
                ("foreign key(s)", table.foreign_keys),
                ("index(es)", table.indexes),
                ("check(s)", table.checks),
                ("unique constraint(s)", table.uniques),
            )
            if v
        ]
        extra = f"; its own {', '.join(own)} dropped" if own else ""
        ctx.report.add(
            path,
            f"partition {table.name!r} of {table.partition_of!r} not created: its rows are in {table.partition_of!r}, "
            f"one table with the parent's keys{extra}",
            "partition-merged",
            "loss" if own else "approximation",
        )

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

    def ddl_keeps_partitioning(self, ctx: Context, t: TableInfo) -> bool:
        """Whether this target writes the table's partitioning as it is (another engine of the family)."""
        return False

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
        if table.partitioning is not None and not ctx.same and not self.ddl_keeps_partitioning(ctx, t):
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
                    ctx, self.ddl_table_info(ctx, schema, table, f"/schemas/{si}/tables/{ti}")
                )
        for si, schema in schemas:
            tschema = ctx.schema_names[schema.name]
            for ri in sorted(range(len(schema.routines)), key=lambda i: schema.routines[i].kind == "aggregate"):
                r, rp = schema.routines[ri], f"/schemas/{si}/routines/{ri}"
                if ctx.untrusted_code(rp, f"{r.kind} {r.name!r}"):
                    continue
                if ctx.same_family:
                    out += self.ddl_routine(ctx, schema, r, tschema, rp)
                else:
                    ctx.report.add(
                        rp, f"{r.kind} {r.name!r} not translated from {ctx.source}", "routine-not-translated"
                    )
        for si, schema in schemas:
            for vi in view_order(schema.views):
                if ctx.untrusted_view(schema.views[vi], f"/schemas/{si}/views/{vi}"):
                    continue
                out += self.ddl_view(
                    ctx, schema, schema.views[vi], ctx.schema_names[schema.name], f"/schemas/{si}/views/{vi}"
                )
        for si, schema in schemas:
            tschema = ctx.schema_names[schema.name]
            for gi in sorted(
                range(len(schema.triggers)), key=lambda i: (schema.triggers[i].table, schema.triggers[i].order or 0)
            ):
                trg, gp = schema.triggers[gi], f"/schemas/{si}/triggers/{gi}"
                if ctx.untrusted_code(gp, f"trigger {trg.name!r}"):
                    continue
                if ctx.same_family:
                    out += self.ddl_trigger(ctx, schema, trg, tschema, gp)
                else:
                    ctx.report.add(
                        gp, f"trigger {trg.name!r} not translated from {ctx.source}", "trigger-not-translated"
                    )
            for ei, ev in enumerate(schema.events):
                ep = f"/schemas/{si}/events/{ei}"
                if ctx.untrusted_code(ep, f"event {ev.name!r}"):
                    continue
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
        ctx.definition(ev.definition, f"{path}/definition", "event", name=ev.name, schema=schema.name)
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
        qname = self.qualify(tschema, ctx.view_names.get((schema.name, view.name), view.name))
        cols = f" ({', '.join(self.quote(c) for c in view.columns)})" if view.columns else ""
        if view.comment and not ctx.same:
            ctx.report.add(f"{path}/comment", "view comment dropped", "comment-dropped", "approximation")
        for fam, opts in view.options.items():
            if fam != self.family and isinstance(opts, dict) and opts.get("rules"):  # ON INSERT ... DO INSTEAD
                names = ", ".join(str(r.get("name")) for r in opts["rules"] if isinstance(r, dict))
                ctx.report.add(
                    f"{path}/options/{fam}/rules", f"{fam} rules of the view not created: {names}", "view-rule-dropped"
                )
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
        ctx.definition(r.definition, f"{path}/definition", "routine", name=r.name, schema=schema.name)
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
        ctx.definition(
            trg.definition, f"{path}/definition", "trigger", name=trg.name, schema=schema.name, table=trg.table
        )
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
        return terminated(stmt)

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

    def ddl_undo_statements(self, created: list[Statement]) -> list[Statement]:
        """DROPs of the objects ``created`` made, last first. Indexes, keys, checks, triggers and
        comments go with their table; a schema (database) is never dropped (it may have been
        there before: ``IF NOT EXISTS``)."""
        out = []
        for s in reversed(created):
            word = _UNDO_WORDS.get(s.kind)
            if s.kind == "view" and re.match(r"(?is)\s*CREATE\s+MATERIALIZED\s", s.sql):
                word = "MATERIALIZED VIEW"
            elif s.kind == "routine":
                found = re.match(
                    r"(?is)\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?(FUNCTION|PROCEDURE|AGGREGATE)\s",
                    s.sql,
                )
                word = found.group(1).upper() if found else None
            if word:
                out.append(Statement(f"DROP {word} IF EXISTS {s.object}{self.ddl_undo_tail(s)}", "drop", s.object))
        return out

    def ddl_undo_tail(self, stmt: Statement) -> str:
        """What follows ``DROP kind IF EXISTS name`` (PostgreSQL: CASCADE)."""
        return ""

    def ddl_existing_objects(self, conn: Any, plan: DdlPlan) -> set[str]:
        """Quoted, qualified names (as in ``Statement.object``) of relations and types that exist."""
        raise NotImplementedError


_UNDO_WORDS = {
    "table": "TABLE",
    "view": "VIEW",
    "sequence": "SEQUENCE",
    "type": "TYPE",
    "collation": "COLLATION",
    "event": "EVENT",
}


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


def _is_partition(db: m.Database, key: tuple[str, str]) -> bool:
    for schema in db.schemas:
        if schema.name == key[0]:
            return any(t.name == key[1] and t.partition_of for t in schema.tables)
    return False


def sequence_defaults_as_identity(ctx: Context) -> m.Database:
    """Across engines, an integer column (PostgreSQL, with no identity of its own) whose default is
    ``nextval()`` of a sequence the target will not have (no sequences there, or a sequence that is
    another column's serial and so not created) becomes an identity column drawing its own values
    from where the sequence stood, so that an insert without the column still works. Reported at its default: an
    approximation, a loss when several columns shared the sequence."""
    found: dict[tuple[int, int, int], tuple[str, str]] = {}
    users: dict[tuple[str, str], list[str]] = {}
    sequences = {(s.name, q.name.lower()): q for s in ctx.db.schemas for q in s.sequences}
    keep_sequences = bool(ctx.caps.get("sequences"))
    for si, schema in enumerate(ctx.db.schemas):
        for ti, table in enumerate(schema.tables):
            if table.partition_of:  # not created: its rows go to its partitioned table (ddl_merged_partition)
                continue
            # one auto-increment column per table (MySQL): a table that has one keeps its defaults
            taken = any(c.identity is not None for c in table.columns)
            for ci, col in enumerate(table.columns):
                d = col.default
                if d is None or d.kind != "expression" or col.identity is not None or col.type.kind != "integer":
                    continue
                from .expr import nextval_sequence  # lazy, and only for such a default: sqlglot (Context.expr)

                named = nextval_sequence(d.value, d.dialect or ctx.source)
                if named is None:
                    continue
                key = (named[0] or schema.name, named[1])
                if keep_sequences and (key[0], key[1].lower()) in sequences:
                    continue  # the target creates the sequence: DEFAULT NEXTVAL(...) (Context.expr)
                if taken:
                    continue  # Context.expr reports the default as dropped
                taken = True
                found[(si, ti, ci)] = key
                users.setdefault(key, []).append(f"{schema.name}.{table.name}.{col.name}")
    if not found:
        return ctx.db
    new_schemas = []
    for si, schema in enumerate(ctx.db.schemas):
        tables = []
        for ti, table in enumerate(schema.tables):
            cols = []
            for ci, col in enumerate(table.columns):
                where = found.get((si, ti, ci))
                if where is None:
                    cols.append(col)
                    continue
                key = where
                seq = sequences.get((key[0], key[1].lower()))
                shared = users[key]
                ident = m.Identity(
                    kind="serial",
                    sequence=key[1],
                    start=seq.start if seq else None,
                    increment=seq.increment if seq else None,
                    min_value=seq.min_value if seq else None,
                    max_value=seq.max_value if seq else None,
                    next_value=seq.next_value if seq else None,
                )
                what = f"default nextval({key[0]}.{key[1]}) made the column's own auto-increment"
                if len(shared) > 1:
                    others = ", ".join(u for u in shared if u != f"{schema.name}.{table.name}.{col.name}")
                    ctx.report.add(
                        f"/schemas/{si}/tables/{ti}/columns/{ci}/default",
                        f"{what}: it no longer shares the sequence with {others}",
                        "sequence-default-identity",
                    )
                else:
                    ctx.report.add(
                        f"/schemas/{si}/tables/{ti}/columns/{ci}/default",
                        what,
                        "sequence-default-identity",
                        "approximation",
                    )
                cols.append(m.replace(col, default=None, identity=ident))
            tables.append(m.replace(table, columns=tuple(cols)))
        new_schemas.append(m.replace(schema, tables=tuple(tables)))
    return m.replace(ctx.db, schemas=tuple(new_schemas))
