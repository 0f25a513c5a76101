"""PostgreSQL DDL: schemas, enum/domain/composite types, identity, on-update triggers, comments."""

from __future__ import annotations

from typing import Any

from ... import model as m
from ...ddl.base import BaseDDL, ColumnParts, Context, TableInfo
from ...ddl.plan import DdlPlan, Statement

_ON_UPDATE_FN = "dbjson_on_update_ts"
_ON_UPDATE_BODY = """CREATE OR REPLACE FUNCTION {fn}() RETURNS trigger LANGUAGE plpgsql AS $dbjson$
BEGIN
  -- MySQL ON UPDATE CURRENT_TIMESTAMP: TG_ARGV[0] is the column; set it when another column
  -- changed and the statement did not set it explicitly.
  IF (to_jsonb(NEW) - TG_ARGV[0]) IS DISTINCT FROM (to_jsonb(OLD) - TG_ARGV[0])
     AND (to_jsonb(NEW) -> TG_ARGV[0]) IS NOT DISTINCT FROM (to_jsonb(OLD) -> TG_ARGV[0]) THEN
    NEW := jsonb_populate_record(NEW, jsonb_build_object(TG_ARGV[0], current_timestamp));
  END IF;
  RETURN NEW;
END
$dbjson$"""
_SERIAL = {16: "smallserial", 32: "serial", 64: "bigserial"}


class PostgreSQLDDL(BaseDDL):
    """PostgreSQL rendering of the DDL plan."""

    # -- schemas and types ---------------------------------------------------------------------
    def ddl_target_schema(self, ctx: Context, schema: m.Schema, index: int) -> str | None:
        mapping = ctx.options.get("schema_map") or {}
        if schema.name in mapping:
            return str(mapping[schema.name])
        if ctx.source_family == "postgresql":
            return schema.name
        if len(ctx.db.schemas) == 1 or schema.name == "main":
            return "public"
        return schema.name

    def ddl_create_schema(self, ctx: Context, schema: m.Schema, tschema: str | None, path: str) -> list[Statement]:
        if not tschema or tschema == "public":
            return []
        return [Statement(f"CREATE SCHEMA IF NOT EXISTS {self.quote(tschema)}", "schema", self.quote(tschema))]

    def ddl_schema_types(self, ctx: Context, schema: m.Schema, tschema: str | None, path: str) -> list[Statement]:
        if not ctx.same:
            return super().ddl_schema_types(ctx, schema, tschema, path)
        out = []
        for e in schema.enums:
            ctx.enum_types[(tschema, e.name)] = e.values
            ctx.namer.reserve(("type", tschema), e.name)
            q = self.qualify(tschema, e.name)
            out.append(Statement(f"CREATE TYPE {q} AS ENUM ({', '.join(self.literal(v) for v in e.values)})", "type", q))
            if e.comment:
                out.append(Statement(f"COMMENT ON TYPE {q} IS {self.literal(e.comment)}", "comment", q))
        for c in schema.composites:
            q = self.qualify(tschema, c.name)
            fields = ", ".join(f"{self.quote(f.name)} {f.native.raw}" for f in c.fields)
            out.append(Statement(f"CREATE TYPE {q} AS ({fields})", "type", q))
        for di, d in enumerate(schema.domains):
            q = self.qualify(tschema, d.name)
            sql = f"CREATE DOMAIN {q} AS {d.native.raw}"
            if d.collation:
                sql += f" COLLATE {self.quote(d.collation)}"
            if d.default is not None:
                sql += f" DEFAULT {d.default.value if d.default.kind != 'literal' else self.literal(d.default.value)}"
            if not d.nullable:
                sql += " NOT NULL"
            for chk in d.checks:
                expr = chk.expression.strip()
                if not expr.upper().startswith("CHECK"):
                    expr = f"CHECK ({expr})" if not expr.startswith("(") else f"CHECK {expr}"
                sql += f" CONSTRAINT {self.quote(chk.name)} {expr}"
            out.append(Statement(sql, "type", q))
        return out

    def ddl_enum_type(self, ctx: Context, t: TableInfo, col: str, typ: m.Type, path: str) -> str:
        name = typ.type_name or f"{t.table.name}_{col}_enum"
        tschema = t.tschema
        key = (tschema, name)
        if ctx.enum_types.get(key) == typ.values:
            return self.qualify(tschema, name)
        final = ctx.namer.claim(("type", tschema), name, path, "enum type")
        ctx.enum_types[(tschema, final)] = typ.values
        q = self.qualify(tschema, final)
        values = ", ".join(self.literal(v) for v in typ.values)
        ctx.types.append(Statement(f"CREATE TYPE {q} AS ENUM ({values})", "type", q))
        return q

    def ddl_sequences(self, ctx: Context, schema: m.Schema, tschema: str | None, path: str) -> tuple[list[Statement], list[Statement]]:
        pre: list[Statement] = []
        post: list[Statement] = []
        for si, s in enumerate(schema.sequences):
            q = self.qualify(tschema, s.name)
            sql = f"CREATE SEQUENCE {q}"
            if s.data_type and ctx.same:
                sql += f" AS {s.data_type}"
            sql += f" INCREMENT BY {s.increment}"
            if s.min_value is not None:
                sql += f" MINVALUE {s.min_value}"
            if s.max_value is not None:
                sql += f" MAXVALUE {s.max_value}"
            if s.start is not None:
                sql += f" START WITH {s.start}"
            if s.cache is not None:
                sql += f" CACHE {s.cache}"
            if s.cycle:
                sql += " CYCLE"
            pre.append(Statement(sql, "sequence", q))
            if s.comment:
                pre.append(Statement(f"COMMENT ON SEQUENCE {q} IS {self.literal(s.comment)}", "comment", q))
            if s.owned_by and "." in s.owned_by:
                table, column = s.owned_by.rsplit(".", 1)
                if (schema.name, table) in ctx.table_names:
                    ts, tn = ctx.table_names[(schema.name, table)]
                    post.append(Statement(f"ALTER SEQUENCE {q} OWNED BY {self.qualify(ts, tn)}.{self.quote(column)}", "sequence", q))
            if s.next_value is not None:
                post.append(Statement(f"SELECT setval({self.literal(q)}, {s.next_value}, false)", "restart", q))
        return pre, post

    # -- columns -------------------------------------------------------------------------------
    def ddl_identity(self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str) -> list[Statement]:
        ident = col.identity
        assert ident is not None
        qcol = self.quote(t.col(col.name))
        if ctx.same and ident.kind == "serial":
            parts.type_sql = _SERIAL.get(col.type.bits or 32, "serial")
            if ident.next_value is None:
                return []
            target = self.literal(f"{t.qname}")
            sql = f"SELECT setval(pg_get_serial_sequence({target}, {self.literal(t.col(col.name))}), {ident.next_value}, false)"
            return [Statement(sql, "restart", f"{t.qname}.{qcol}", t.qname)]
        always = ident.always and ctx.same
        if ident.always and not ctx.same:
            ctx.report.add(f"{path}/identity/always", "GENERATED ALWAYS made BY DEFAULT", "identity-by-default", "approximation")
        opts = []
        if ctx.same:
            for key, word in (("start", "START WITH"), ("increment", "INCREMENT BY"), ("min_value", "MINVALUE"),
                              ("max_value", "MAXVALUE"), ("cache", "CACHE")):
                value = getattr(ident, key)
                if value is not None:
                    opts.append(f"{word} {value}")
            if ident.cycle:
                opts.append("CYCLE")
        elif ident.start is not None:
            opts.append(f"START WITH {ident.start}")
        clause = f"GENERATED {'ALWAYS' if always else 'BY DEFAULT'} AS IDENTITY"
        if opts:
            clause += f" ({' '.join(opts)})"
        parts.identity = clause
        if ident.next_value is None:
            return []
        return [Statement(f"ALTER TABLE {t.qname} ALTER COLUMN {qcol} RESTART WITH {ident.next_value}", "restart", f"{t.qname}.{qcol}", t.qname)]

    def ddl_collation(self, ctx: Context, t: TableInfo, col: m.Column, choice: Any, path: str) -> tuple[str | None, str | None]:
        if ctx.same:
            return None, col.collation
        if col.collation and col.type.kind in ("char", "varchar", "text", "enum", "set"):
            ctx.report.add(f"{path}/collation", f"collation {col.collation!r} replaced by the database default "
                           "(case- and accent-sensitive: stricter, no data loss)", "collation-default", "approximation")
        return None, None

    def ddl_on_update(self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str) -> list[Statement]:
        fn = self.qualify(t.tschema, _ON_UPDATE_FN)
        if fn not in ctx.helpers_done:
            ctx.helpers_done.add(fn)
            ctx.post_functions.append(Statement(_ON_UPDATE_BODY.format(fn=fn), "routine", fn))
        name = ctx.namer.shorten(f"{t.name}_{t.col(col.name)}_on_update")
        ctx.report.add(f"{path}/on_update", "ON UPDATE CURRENT_TIMESTAMP emulated by a BEFORE UPDATE trigger", "on-update-trigger", "approximation")
        sql = (f"CREATE TRIGGER {self.quote(name)} BEFORE UPDATE ON {t.qname} FOR EACH ROW "
               f"EXECUTE FUNCTION {fn}({self.literal(t.col(col.name))})")
        return [Statement(sql, "trigger", self.qualify(t.tschema, name), t.qname)]

    def ddl_function_default(self, ctx: Context, d: m.Default, typ: m.Type) -> str | None:
        if d.value == "uuid":
            return "gen_random_uuid()"
        if d.value == "current_timestamp":
            return "CURRENT_TIMESTAMP"
        return super().ddl_function_default(ctx, d, typ)

    def ddl_literal_default(self, ctx: Context, value: str, typ: m.Type, path: str) -> str:
        if typ.kind == "bit" and value.lower().startswith("b'"):
            return "B" + value[1:]
        return super().ddl_literal_default(ctx, value, typ, path)

    def ddl_expression_default(self, sql: str, typ: m.Type) -> str:
        return sql

    # -- keys, indexes, comments ------------------------------------------------------------------
    def ddl_pk_name(self, ctx: Context, t: TableInfo, pk: m.PrimaryKey, path: str) -> str | None:
        if ctx.same and pk.name:
            ctx.namer.reserve(("relation", t.tschema), pk.name)
            return pk.name
        ctx.namer.reserve(("relation", t.tschema), f"{t.name}_pkey")
        return None

    def ddl_nulls_not_distinct(self, ctx: Context, path: str) -> str:
        return " NULLS NOT DISTINCT"

    def ddl_not_enforced(self, ctx: Context, sql: str, path: str) -> str:
        return f"{sql} NOT VALID"

    def ddl_fk_match(self, ctx: Context, path: str) -> str:
        return " MATCH FULL"

    def ddl_fk_not_valid(self, ctx: Context, path: str) -> str:
        return " NOT VALID"

    def ddl_fk_target_ok(self, ctx: Context, ref_schema: str, fk: m.ForeignKey) -> bool:
        try:
            ref = ctx.db.schema(ref_schema).table(fk.ref_table)
        except KeyError:
            return False
        wanted = set(fk.ref_columns)
        keys = [set(ref.primary_key.columns)] if ref.primary_key else []
        keys += [set(u.columns) for u in ref.uniques]
        keys += [{p.column for p in ix.parts} for ix in ref.indexes if ix.unique and not ix.where and all(p.column and not p.length for p in ix.parts)]
        return wanted in keys

    def ddl_prefix_part(self, ctx: Context, col: str, length: int, path: str) -> str | None:
        return f"(left({col}, {length}))"

    def ddl_index_method(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str | bool | None:
        kinds = self.table["capabilities"]["index_kinds"]
        if ix.kind == "btree":
            return None
        if ix.kind == "hash" and len(ix.parts) > 1:
            ctx.report.add(f"{path}/kind", "multi-column hash index made btree", "hash-btree", "approximation")
            return None
        if ix.kind == "hash" and not ctx.same:
            return None  # InnoDB turns HASH into BTREE; keep the behaviour the source had
        if ix.kind in kinds and (ctx.same or ix.kind == "btree"):
            return f" USING {ix.kind}"
        ctx.report.add(f"{path}/kind", f"{ix.kind} index dropped (no {self.name} counterpart without extensions)", "index-kind-dropped", "approximation")
        return False

    def ddl_index_tail(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str:
        tail = ""
        if ix.include:
            tail += f" INCLUDE ({self.ddl_cols(t, ix.include)})"
        if ix.nulls_not_distinct:
            tail += " NULLS NOT DISTINCT"
        if ix.where:
            where = ctx.expr(ix.where, ix.dialect, f"{path}/where", "partial index predicate")
            if where is not None:
                tail += f" WHERE {where}"
        if not ix.visible:
            ctx.report.add(f"{path}/visible", "invisible index made visible", "invisible-index", "approximation")
        if ix.comment:
            name = self.ddl_index_name_for_comment(ctx, t, ix)
            t.post.append(Statement(f"COMMENT ON INDEX {self.qualify(t.tschema, name)} IS {self.literal(ix.comment)}", "comment", name, t.qname))
        return tail

    def ddl_index_name(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str:
        name = super().ddl_index_name(ctx, t, ix, path)
        t.__dict__.setdefault("_index_names", {})[ix.name] = name
        return name

    def ddl_index_name_for_comment(self, ctx: Context, t: TableInfo, ix: m.Index) -> str:
        names: dict[str, str] = t.__dict__.get("_index_names", {})
        return names.get(ix.name, ix.name)

    def ddl_comments(self, ctx: Context, t: TableInfo) -> list[Statement]:
        out = []
        if t.table.comment:
            out.append(Statement(f"COMMENT ON TABLE {t.qname} IS {self.literal(t.table.comment)}", "comment", t.qname, t.qname))
        for col in t.table.columns:
            if col.comment:
                q = f"{t.qname}.{self.quote(t.col(col.name))}"
                out.append(Statement(f"COMMENT ON COLUMN {q} IS {self.literal(col.comment)}", "comment", q, t.qname))
        return out

    def ddl_column_comment(self, ctx: Context, t: TableInfo, col: m.Column, path: str) -> str | None:
        return None  # COMMENT ON COLUMN, see ddl_comments

    def ddl_table_suffix(self, ctx: Context, t: TableInfo) -> str:
        opts = t.table.options.get("postgresql", {}) if ctx.same else {}
        out = ""
        table = t.table
        if ctx.same and table.partitioning is not None:
            out += f" PARTITION BY {table.partitioning.method.upper()} ({table.partitioning.expression})"
        if ctx.same and table.inherits:
            out += " INHERITS (" + ", ".join(self.qualify(t.tschema, n) for n in table.inherits) + ")"
        if opts.get("with"):
            w = opts["with"]
            out += " WITH (" + (", ".join(w) if isinstance(w, list) else str(w)) + ")"
        return out

    def ddl_table_extra(self, ctx: Context, t: TableInfo) -> list[Statement]:
        table = t.table
        if ctx.same and table.partition_of and table.partition_bound:
            parent = ctx.table_names.get((t.schema.name, table.partition_of))
            if parent:
                sql = f"ALTER TABLE {self.qualify(*parent)} ATTACH PARTITION {t.qname} {table.partition_bound}"
                return [Statement(sql, "partition", t.qname, t.qname)]
        if ctx.same and t.table.options.get("postgresql", {}).get("unlogged"):
            return [Statement(f"ALTER TABLE {t.qname} SET UNLOGGED", "table", t.qname, t.qname)]
        return []

    # -- views -----------------------------------------------------------------------------------
    def ddl_view_sql(self, ctx: Context, view: m.View, qname: str, cols: str, body: str, path: str) -> str:
        if view.materialized:
            return f"CREATE MATERIALIZED VIEW {qname}{cols} AS {body}"
        tail = f" WITH {view.check_option.upper()} CHECK OPTION" if view.check_option else ""
        return f"CREATE VIEW {qname}{cols} AS {body}{tail}"

    # -- applying --------------------------------------------------------------------------------
    def ddl_drop_statements(self, plan: DdlPlan) -> list[Statement]:
        out = [Statement(f"DROP {'MATERIALIZED VIEW' if 'MATERIALIZED' in s.sql[:30] else 'VIEW'} IF EXISTS {s.object} CASCADE", "drop", s.object)
               for s in reversed(plan.post_data) if s.kind == "view"]
        out += [Statement(f"DROP TABLE IF EXISTS {s.object} CASCADE", "drop", s.object) for s in reversed(plan.pre_data) if s.kind == "table"]
        out += [Statement(f"DROP SEQUENCE IF EXISTS {s.object} CASCADE", "drop", s.object) for s in plan.pre_data if s.kind == "sequence" and s.sql.startswith("CREATE")]
        out += [Statement(f"DROP {'DOMAIN' if 'DOMAIN' in s.sql[:14] else 'TYPE'} IF EXISTS {s.object} CASCADE", "drop", s.object) for s in reversed(plan.pre_data) if s.kind == "type"]
        return out

    def ddl_existing_objects(self, conn: Any, plan: DdlPlan) -> set[str]:
        with conn.cursor() as cur:
            cur.execute("SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                        "UNION ALL SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
                        "UNION ALL SELECT nspname, nspname FROM pg_namespace")
            rows = cur.fetchall()
        present = {self.qualify(s, n) for s, n in rows}
        present |= {self.quote(s) for s, n in rows if s == n}
        return present
