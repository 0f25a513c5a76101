"""SQLite DDL: constraints inside CREATE TABLE, AUTOINCREMENT, one schema (``main``)."""

from __future__ import annotations

from typing import Any

from ... import model as m
from ...ddl.columns import ColumnParts
from ...ddl.context import Context
from ...ddl.plan import DdlPlan, Statement
from ...ddl.tableinfo import TableInfo
from ...ddl.walker import BaseDDL
from ...errors import UnsupportedError
from .sqltext import UUID_V4_SQL


class SQLiteDDL(BaseDDL):
    """SQLite rendering of the DDL plan."""

    # -- schema-load sessions ---------------------------------------------------------------------
    def ddl_session_begin(self, conn: Any) -> None:
        conn.isolation_level = None  # explicit transactions: DDL inside them too
        conn.execute("BEGIN")

    def ddl_session_commit(self, conn: Any) -> None:
        conn.execute("COMMIT")

    def ddl_session_rollback(self, conn: Any) -> None:
        if conn.in_transaction:
            conn.execute("ROLLBACK")

    def ddl_session_autocommit(self, conn: Any) -> None:
        if conn.in_transaction:
            conn.execute("COMMIT")
        conn.isolation_level = None

    def ddl_create_database_sql(self, name: str, defaults: str) -> tuple[str, str, str | None] | None:
        return None  # the file: its first connection creates it

    def ddl_nulls_order(self, ctx: Context, nulls: str, path: str) -> str:
        ctx.report.add(
            f"{path}/nulls",
            f"NULLS {nulls.upper()} dropped (not allowed in SQLite indexes)",
            "nulls-order",
            "approximation",
        )
        return ""

    def ddl_view_sql(self, ctx: Context, view: m.View, qname: str, cols: str, body: str, path: str) -> str:
        if view.check_option:
            ctx.report.add(
                f"{path}/check_option", "WITH CHECK OPTION dropped (SQLite views are read-only)", "check-option-dropped"
            )
        if view.materialized:
            ctx.report.add(
                f"{path}/materialized", "materialized view created as a plain view", "matview-plain", "approximation"
            )
        return f"CREATE VIEW {qname}{cols} AS {body}"

    def ddl_identity(self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str) -> list[Statement]:
        ident = col.identity
        assert ident is not None
        pk = t.table.primary_key
        sole = pk is not None and tuple(pk.columns) == (col.name,)
        if not sole or col.type.kind not in ("integer", "decimal"):
            ctx.report.add(
                f"{path}/identity",
                "identity dropped (SQLite auto-increments only an INTEGER PRIMARY KEY)",
                "identity-dropped",
            )
            return []
        if ctx.same and ident.kind != "autoincrement":
            return []  # an INTEGER PRIMARY KEY (rowid alias): the table's PRIMARY KEY clause keeps it
        parts.type_sql = "INTEGER"
        t.pk_inline = True
        parts.primary_key = "PRIMARY KEY AUTOINCREMENT"
        if ident.next_value is None:
            return []
        name = self.literal(t.name)
        seq = ident.next_value - 1
        return [
            Statement(f"DELETE FROM sqlite_sequence WHERE name = {name} AND seq < {seq}", "restart", t.qname, t.qname),
            Statement(
                f"INSERT INTO sqlite_sequence (name, seq) SELECT {name}, {seq} WHERE NOT EXISTS "
                f"(SELECT 1 FROM sqlite_sequence WHERE name = {name})",
                "restart",
                t.qname,
                t.qname,
            ),
        ]

    def ddl_column_parts(
        self, ctx: Context, t: TableInfo, col: m.Column, path: str
    ) -> tuple[ColumnParts, list[Statement], list[Statement]]:
        parts, post, restarts = super().ddl_column_parts(ctx, t, col, path)
        pk = t.table.primary_key
        if (
            ctx.same
            and col.identity is None
            and pk is not None
            and tuple(pk.columns) == (col.name,)
            and col.native.raw.upper() == "INTEGER"
        ):
            # an INTEGER PRIMARY KEY that is not a rowid alias: only "PRIMARY KEY DESC" on the column does that
            head = f"CONSTRAINT {self.quote(pk.name)} " if pk.name else ""
            parts.primary_key = f"{head}PRIMARY KEY DESC"
            t.pk_inline = True
        return parts, post, restarts

    def ddl_table_suffix(self, ctx: Context, t: TableInfo) -> str:
        opts = t.table.options.get("sqlite", {}) if ctx.same else {}
        if opts.get("virtual"):  # other engines report the option they lack (foreign-option)
            ctx.report.add(
                f"{t.path}/options/sqlite/virtual",
                f"virtual table USING {opts['virtual']} created as a plain table holding its rows "
                "(its full-text or R-Tree index is not rebuilt)",
                "virtual-table-plain",
            )
        words = [w for key, w in (("without_rowid", "WITHOUT ROWID"), ("strict", "STRICT")) if opts.get(key)]
        return " " + ", ".join(words) if words else ""

    def ddl_schema_objects(self, ctx: Context) -> list[Statement]:
        out = super().ddl_schema_objects(ctx)
        for schema in ctx.db.schemas[:1] if ctx.same else ():
            version = schema.options.get("sqlite", {}).get("user_version")
            if version:
                out.append(Statement(f"PRAGMA user_version = {int(version)}", "pragma", "user_version"))
        return out

    def ddl_on_update(
        self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str
    ) -> list[Statement]:
        """MySQL ON UPDATE CURRENT_TIMESTAMP as an AFTER UPDATE trigger (same rule: only when
        another column changed and this one was not set)."""
        me = self.quote(t.col(col.name))
        others = [self.quote(t.col(c.name)) for c in t.table.columns if c.name != col.name and c.generated is None]
        if not others:
            return super().ddl_on_update(ctx, t, col, parts, path)
        fsp = col.on_update.fsp if col.on_update else None
        now = "strftime('%Y-%m-%d %H:%M:%f', 'now')" if fsp else "CURRENT_TIMESTAMP"
        changed = " OR ".join(f"NEW.{c} IS NOT OLD.{c}" for c in others)
        name = f"{t.name}_{t.col(col.name)}_on_update"
        sql = (
            f"CREATE TRIGGER {self.quote(name)} AFTER UPDATE ON {t.qname} FOR EACH ROW\n"
            f"WHEN NEW.{me} IS OLD.{me} AND ({changed})\n"
            f"BEGIN UPDATE {t.qname} SET {me} = {now} WHERE rowid = NEW.rowid; END"
        )
        ctx.report.add(
            f"{path}/on_update",
            "ON UPDATE CURRENT_TIMESTAMP emulated by an AFTER UPDATE trigger (UTC)",
            "on-update-trigger",
            "approximation",
        )
        return [Statement(sql, "trigger", self.quote(name), t.qname)]

    def ddl_pk_name(self, ctx: Context, t: TableInfo, pk: m.PrimaryKey, path: str) -> str | None:
        return pk.name if ctx.same and pk.name else None

    def ddl_bool(self, value: bool) -> str:
        return "1" if value else "0"

    def ddl_function_default(self, ctx: Context, d: m.Default, typ: m.Type) -> str | None:
        if d.value == "uuid":  # no UUID function: a random (version 4) UUID made of randomblob()
            return f"({UUID_V4_SQL})"
        return super().ddl_function_default(ctx, d, typ)

    def ddl_collation(
        self, ctx: Context, t: TableInfo, col: m.Column, choice: Any, path: str
    ) -> tuple[str | None, str | None]:
        if ctx.same:
            return None, col.collation
        return super().ddl_collation(ctx, t, col, choice, path)

    def ddl_column_sql(self, ctx: Context, t: TableInfo, p: ColumnParts) -> str:
        sql = super().ddl_column_sql(ctx, t, p)
        if p.collation:
            sql = sql.replace(f"COLLATE {self.quote(p.collation)}", f"COLLATE {p.collation}", 1)
        return sql

    def ddl_index_method(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str | bool | None:
        if ix.kind == "btree":
            return None
        if ix.kind == "hash":
            ctx.report.add(f"{path}/kind", "hash index made a btree index", "index-kind-btree", "approximation")
            return None
        return super().ddl_index_method(ctx, t, ix, path)

    def ddl_existing_objects(self, conn: Any, plan: DdlPlan) -> set[str]:
        rows = conn.execute("SELECT name FROM sqlite_master").fetchall()
        return {self.quote(r[0]) for r in rows}

    # -- schema diff: ALTER rendering (dbjson diff --ddl) --------------------------------------------
    def ddl_alter_column_sql(
        self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, coldef: str, fields: set[str]
    ) -> list[str]:
        """SQLite's ALTER TABLE cannot change a column: unsupported (the table would need a rebuild)."""
        raise UnsupportedError(
            f"SQLite cannot alter a column ({', '.join(sorted(fields))})",
            table=t.name,
            column=col.name,
            hint="SQLite changes a column only by rebuilding the table: create the new table, "
            "copy the rows, drop the old one, rename",
        )

    def ddl_add_constraint_sql(self, qtable: str, clause: str) -> str:
        raise UnsupportedError(
            f"SQLite cannot add a constraint to an existing table ({clause})",
            table=qtable,
            hint="SQLite declares constraints in CREATE TABLE only: rebuild the table",
        )

    def ddl_drop_constraint_sql(self, qtable: str, kind: str, name: str | None) -> str:
        raise UnsupportedError(
            f"SQLite cannot drop a {kind.replace('_', ' ')} ({name}) from an existing table",
            table=qtable,
            hint="SQLite declares constraints in CREATE TABLE only: rebuild the table",
        )

    def ddl_alters_in_place(self) -> bool:
        return False

    def ddl_rebuild_table_sql(
        self, qtable: str, qtemp: str, name: str, create_sql: str, insert_columns: list[str], select_columns: list[str]
    ) -> list[str]:
        """SQLite's table-rebuild recipe: create the new table, copy the rows, drop the old one, rename.
        ``legacy_alter_table`` keeps the rename from checking views that name the table meanwhile gone."""
        into = ", ".join(self.quote(c) for c in insert_columns)
        cols = ", ".join(self.quote(c) for c in select_columns)
        return [
            "PRAGMA legacy_alter_table = ON",
            create_sql,
            f"INSERT INTO {qtemp} ({into}) SELECT {cols} FROM {qtable}",
            f"DROP TABLE {qtable}",
            f"ALTER TABLE {qtemp} RENAME TO {self.quote(name)}",
            "PRAGMA legacy_alter_table = OFF",
        ]
