"""Keys, constraints and indexes: primary keys, unique, check and foreign key clauses, constraint
names, CREATE INDEX and constraint comments (:class:`ConstraintDDL`)."""

from __future__ import annotations

import re
from typing import Any

from .. import model as m
from .context import Context
from .plan import Statement, parenthesized
from .tableinfo import DDLCore, TableInfo


class ConstraintDDL(DDLCore):
    """The key, constraint and index clauses of a table."""

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
        return f"CONSTRAINT {self.quote(name)} UNIQUE{extra} ({self.ddl_unique_parts(ctx, t, u, path)}){tail}"

    def ddl_unique_parts(self, ctx: Context, t: TableInfo, u: m.UniqueConstraint, path: str) -> str:
        """The key parts of a unique constraint (engines with a key-size limit override for
        ``t.long_keys``)."""
        return self.ddl_cols(t, u.columns)

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
        sql = parenthesized(sql)
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
        t = self.ddl_table_info(ctx, schema, table, path)
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
            text = parenthesized(sql)
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
