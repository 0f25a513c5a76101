"""PostgreSQL DDL: schemas, enum/domain/composite types, identity, on-update triggers, comments."""

from __future__ import annotations

import re
from typing import Any

from ... import model as m
from ...ddl.columns import ColumnParts
from ...ddl.context import Context
from ...ddl.plan import DdlPlan, Statement, parenthesized
from ...ddl.tableinfo import TableInfo
from ...ddl.types import TypeChoice
from ...ddl.walker import BaseDDL
from ...errors import TranslationError
from .export import is_large_object
from .privileges import PostgreSQLPrivileges

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

# The extensions PostgreSQL's own contrib directory ships (Debian/Ubuntu: in postgresql-NN; RHEL and
# the PGDG yum repository: postgresqlNN-contrib).
_CONTRIB = frozenset(
    "adminpack amcheck autoinc bloom btree_gin btree_gist citext cube dblink dict_int dict_xsyn earthdistance "
    "file_fdw fuzzystrmatch hstore insert_username intagg intarray isn lo ltree moddatetime old_snapshot "
    "pageinspect pg_buffercache pg_freespacemap pg_prewarm pg_stat_statements pg_surgery pg_trgm "
    "pg_visibility pg_walinspect pgcrypto pgrowlocks pgstattuple postgres_fdw refint seg sslinfo tablefunc "
    "tcn tsm_system_rows tsm_system_time unaccent uuid-ossp xml2".split()
)
# Debian/Ubuntu package names of common third-party extensions ({v}: the server's major version).
_PACKAGES = {
    "postgis": "postgresql-{v}-postgis-3",
    "postgis_topology": "postgresql-{v}-postgis-3",
    "postgis_raster": "postgresql-{v}-postgis-3",
    "pg_partman": "postgresql-{v}-partman",
    "vector": "postgresql-{v}-pgvector",
    "timescaledb": "timescaledb-2-postgresql-{v}",
    "pg_cron": "postgresql-{v}-cron",
    "pgaudit": "postgresql-{v}-pgaudit",
    "pg_repack": "postgresql-{v}-repack",
    "hypopg": "postgresql-{v}-hypopg",
    "orafce": "postgresql-{v}-orafce",
    "pgrouting": "postgresql-{v}-pgrouting",
    "pg_hint_plan": "postgresql-{v}-pg-hint-plan",
    "rum": "postgresql-{v}-rum",
    "h3": "postgresql-{v}-h3",
}


def extension_package(name: str, server_version: str) -> str:
    """Where a server gets an extension's files: the package, as Debian/Ubuntu name it."""
    major = server_version.split(".")[0] or "NN"
    if name in _CONTRIB:
        return f"contrib modules (package postgresql-{major} on Debian/Ubuntu, postgresql{major}-contrib on RHEL)"
    package = _PACKAGES.get(name, "postgresql-{v}-" + name.replace("_", "-")).format(v=major)
    return f"package {package} on Debian/Ubuntu, or the extension's own distribution"


class PostgreSQLDDL(PostgreSQLPrivileges, BaseDDL):
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

    def ddl_column_type(self, ctx: Context, t: TableInfo, col: m.Column, path: str) -> TypeChoice:
        if ctx.same and is_large_object(col):
            ctx.report.add(
                f"{path}/type",
                "large object ids replaced by the objects' contents in a bytea column (an id that names no large "
                "object becomes NULL)",
                "large-object-bytea",
                "approximation",
            )
            return TypeChoice("bytea", m.replace(col.type, type_name=None), rule="large-object-bytea")
        return super().ddl_column_type(ctx, t, col, path)

    def ddl_database_options(self, db: m.Database) -> str:
        """The source database's encoding, LC_COLLATE and LC_CTYPE (from template0, which allows them)."""
        opts = db.options.get("postgresql", {})
        parts = [
            f"{word} {self.literal(str(opts[key]))}"
            for word, key in (("ENCODING", "encoding"), ("LC_COLLATE", "collate"), ("LC_CTYPE", "ctype"))
            if opts.get(key)
        ]
        return " TEMPLATE template0 " + " ".join(parts) if parts else ""

    # -- schema-load sessions ---------------------------------------------------------------------
    def ddl_session_begin(self, conn: Any) -> None:
        if conn.autocommit:
            conn.autocommit = False  # psycopg opens the transaction with the first statement

    def ddl_session_commit(self, conn: Any) -> None:
        conn.commit()

    def ddl_session_rollback(self, conn: Any) -> None:
        conn.rollback()

    def ddl_session_autocommit(self, conn: Any) -> None:
        if not conn.autocommit:
            conn.autocommit = True

    def ddl_create_database_sql(self, name: str, defaults: str) -> tuple[str, str, str | None] | None:
        return (
            "SELECT 1 FROM pg_database WHERE datname = %s",
            f"CREATE DATABASE {self.quote(name)}{defaults}",
            "postgres",
        )

    def ddl_extensions(self, ctx: Context) -> list[Statement]:
        """``CREATE EXTENSION IF NOT EXISTS`` for each extension the document lists, in its schema
        (created first when the document has no such schema); the server's version of it. A server
        without the extension's files fails with a message naming the package that provides them."""
        out: list[Statement] = []
        made = {s for s in ctx.schema_names.values() if s}
        for ext in ctx.db.options.get("postgresql", {}).get("extensions", []):
            name = str(ext["name"])
            schema = ext.get("schema")
            sql = f"CREATE EXTENSION IF NOT EXISTS {self.quote(name)}"
            if schema:
                tschema = str(ctx.schema_names.get(schema) or schema)
                if tschema not in made and tschema != "public":
                    q = self.quote(tschema)
                    out.append(Statement(f"CREATE SCHEMA IF NOT EXISTS {q}", "schema", q))
                    made.add(tschema)
                sql += f" WITH SCHEMA {self.quote(tschema)}"
            out.append(Statement(sql, "extension", f"{name} (from the {extension_package(name, self.server_version)})"))
        if ctx.same:  # every schema's collations before any type, domain or table uses one
            for si, schema in enumerate(ctx.db.schemas):
                for i, coll in enumerate(schema.options.get("postgresql", {}).get("collations", [])):
                    q = self.qualify(ctx.schema_names[schema.name], coll["name"])
                    cp = f"/schemas/{si}/options/postgresql/collations/{i}"
                    if ctx.untrusted_code(cp, f"collation {coll['name']!r}"):
                        continue
                    sql = ctx.definition(
                        coll["definition"], f"{cp}/definition", "collation", name=coll["name"], schema=schema.name
                    )
                    out.append(Statement(sql, "collation", q))
                    if coll.get("comment"):
                        out.append(
                            Statement(f"COMMENT ON COLLATION {q} IS {self.literal(coll['comment'])}", "comment", q)
                        )
        return out

    def ddl_create_schema(self, ctx: Context, schema: m.Schema, tschema: str | None, path: str) -> list[Statement]:
        out = []
        q = self.quote(tschema or "public")
        if tschema and tschema != "public":
            out.append(Statement(f"CREATE SCHEMA IF NOT EXISTS {q}", "schema", q))
        if schema.comment:
            out.append(Statement(f"COMMENT ON SCHEMA {q} IS {self.literal(schema.comment)}", "comment", q))
        return out

    def ddl_schema_types(self, ctx: Context, schema: m.Schema, tschema: str | None, path: str) -> list[Statement]:
        if not ctx.same:
            return super().ddl_schema_types(ctx, schema, tschema, path)
        out = []
        opts = schema.options.get("postgresql", {})
        for i, rng in enumerate(opts.get("range_types", [])):
            q = self.qualify(tschema, rng["name"])
            rp = f"{path}/options/postgresql/range_types/{i}"
            if ctx.untrusted_code(rp, f"range type {rng['name']!r}"):
                continue
            sql = ctx.definition(rng["definition"], f"{rp}/definition", "type", name=rng["name"], schema=schema.name)
            out.append(Statement(sql, "type", q))
            if rng.get("comment"):
                out.append(Statement(f"COMMENT ON TYPE {q} IS {self.literal(rng['comment'])}", "comment", q))
        for e in schema.enums:
            ctx.enum_types[(tschema, e.name)] = e.values
            ctx.namer.reserve(("type", tschema), e.name)
            q = self.qualify(tschema, e.name)
            out.append(
                Statement(f"CREATE TYPE {q} AS ENUM ({', '.join(self.literal(v) for v in e.values)})", "type", q)
            )
            if e.comment:
                out.append(Statement(f"COMMENT ON TYPE {q} IS {self.literal(e.comment)}", "comment", q))
        for di, d in enumerate(schema.domains):
            q = self.qualify(tschema, d.name)
            dp = f"{path}/domains/{di}"
            sql = f"CREATE DOMAIN {q} AS {ctx.type_spelling(d.native.raw, f'{dp}/native/raw')}"
            if d.collation:
                sql += f" COLLATE {self.ddl_collation_sql(ctx, schema.name, tschema, d.collation)}"
            if d.default is not None:
                value = d.default.value or ""
                sql += f" DEFAULT {ctx.verbatim(value, f'{dp}/default', 'domain default') if d.default.kind != 'literal' else self.literal(value)}"
            if not d.nullable:
                sql += " NOT NULL"
            for ci, chk in enumerate(d.checks):
                expr = ctx.verbatim(chk.expression.strip(), f"{dp}/checks/{ci}/expression", "domain check")
                if not expr.upper().startswith("CHECK"):
                    expr = f"CHECK {parenthesized(expr)}"
                sql += f" CONSTRAINT {self.quote(chk.name)} {expr}"
            out.append(Statement(sql, "type", q))
            if d.comment:
                out.append(Statement(f"COMMENT ON DOMAIN {q} IS {self.literal(d.comment)}", "comment", q))
        for c in schema.composites:
            q = self.qualify(tschema, c.name)
            fields = ", ".join(
                f"{self.quote(f.name)} {ctx.type_spelling(f.native.raw, f'{path}/composites/{c.name}')}"
                for f in c.fields
            )
            out.append(Statement(f"CREATE TYPE {q} AS ({fields})", "type", q))
            if c.comment:
                out.append(Statement(f"COMMENT ON TYPE {q} IS {self.literal(c.comment)}", "comment", q))
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

    def ddl_sequences(
        self, ctx: Context, schema: m.Schema, tschema: str | None, path: str
    ) -> tuple[list[Statement], list[Statement]]:
        pre: list[Statement] = []
        post: list[Statement] = []
        for s in schema.sequences:
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
                    post.append(
                        Statement(
                            f"ALTER SEQUENCE {q} OWNED BY {self.qualify(ts, tn)}.{self.quote(column)}", "sequence", q
                        )
                    )
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
            target = self.literal(f"{t.qname}")
            seq = f"pg_get_serial_sequence({target}, {self.literal(t.col(col.name))})"
            out = self._serial_sequence_type(ident, col, seq, f"{t.qname}.{qcol}", t.qname)
            if ident.next_value is not None:
                out.append(
                    Statement(
                        f"SELECT setval({seq}, {ident.next_value}, false)", "restart", f"{t.qname}.{qcol}", t.qname
                    )
                )
            return out
        always = ident.always and ctx.same
        if ident.always and not ctx.same:
            ctx.report.add(
                f"{path}/identity/always", "GENERATED ALWAYS made BY DEFAULT", "identity-by-default", "approximation"
            )
        opts = []
        if ctx.same:
            for key, word in (
                ("start", "START WITH"),
                ("increment", "INCREMENT BY"),
                ("min_value", "MINVALUE"),
                ("max_value", "MAXVALUE"),
                ("cache", "CACHE"),
            ):
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
        return [
            Statement(
                f"ALTER TABLE {t.qname} ALTER COLUMN {qcol} RESTART WITH {ident.next_value}",
                "restart",
                f"{t.qname}.{qcol}",
                t.qname,
            )
        ]

    def _serial_sequence_type(
        self, ident: m.Identity, col: m.Column, seq: str, obj: str, table: str
    ) -> list[Statement]:
        """A serial's own sequence may be wider than the column (a plain CREATE SEQUENCE is bigint):
        ``AS bigint`` moves its bounds with it, as the source had them."""
        serial_max = {16: 32767, 32: 2147483647}.get(col.type.bits or 32)
        if serial_max is None or ident.max_value is None or ident.max_value <= serial_max:
            return []
        sql = f"DO $$BEGIN EXECUTE format('ALTER SEQUENCE %s AS bigint', {seq}); END$$"
        return [Statement(sql, "restart", obj, table)]

    def ddl_collation_sql(self, ctx: Context, schema: str, tschema: str | None, name: str) -> str:
        """Reflection names a collation of the object's own schema (or pg_catalog) bare, another
        schema's ``schema.name``: a collation the document creates (CREATE COLLATION, ICU) is
        qualified with its target schema; any other name is quoted whole (``"en_US.utf8"``)."""
        made = {
            (s.name, str(c["name"]))
            for s in ctx.db.schemas
            for c in s.options.get("postgresql", {}).get("collations", [])
        }
        if (schema, name) in made:
            return self.qualify(tschema, name)
        if "." in name:
            owner, bare = name.split(".", 1)
            if (owner, bare) in made or owner in ctx.schema_names:
                return self.qualify(ctx.schema_names.get(owner, owner), bare)
        return self.quote(name)

    def ddl_collation(
        self, ctx: Context, t: TableInfo, col: m.Column, choice: Any, path: str
    ) -> tuple[str | None, str | None]:
        if ctx.same:
            return None, col.collation
        if col.collation and col.type.kind in ("char", "varchar", "text", "enum", "set"):
            ctx.report.add(
                f"{path}/collation",
                f"collation {col.collation!r} replaced by the database default "
                "(case- and accent-sensitive: stricter, no data loss)",
                "collation-default",
                "approximation",
            )
        return None, None

    def ddl_on_update(
        self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str
    ) -> list[Statement]:
        fn = self.qualify(t.tschema, _ON_UPDATE_FN)
        if fn not in ctx.helpers_done:
            ctx.helpers_done.add(fn)
            ctx.post_functions.append(Statement(_ON_UPDATE_BODY.format(fn=fn), "routine", fn))
        name = ctx.namer.shorten(f"{t.name}_{t.col(col.name)}_on_update")
        ctx.report.add(
            f"{path}/on_update",
            "ON UPDATE CURRENT_TIMESTAMP emulated by a BEFORE UPDATE trigger",
            "on-update-trigger",
            "approximation",
        )
        sql = (
            f"CREATE TRIGGER {self.quote(name)} BEFORE UPDATE ON {t.qname} FOR EACH ROW "
            f"EXECUTE FUNCTION {fn}({self.literal(t.col(col.name))})"
        )
        return [Statement(sql, "trigger", self.qualify(t.tschema, name), t.qname)]

    def ddl_function_default(self, ctx: Context, d: m.Default, typ: m.Type) -> str | None:
        if d.value == "uuid":
            return "gen_random_uuid()"
        if d.value == "current_timestamp":
            return f"CURRENT_TIMESTAMP({d.fsp})" if d.fsp is not None else "CURRENT_TIMESTAMP"
        return super().ddl_function_default(ctx, d, typ)

    def ddl_list_literal(self, items: list[Any], typ: m.Type) -> str:
        inner = ",".join('"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"' for v in items)
        return self.literal("{" + inner + "}")

    def ddl_bit_literal(self, bits: str) -> str:
        return f"B'{bits}'"

    def ddl_bytes_literal(self, data: bytes) -> str:
        return f"'\\x{data.hex()}'::bytea"

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

    def ddl_fk_clause(self, ctx: Context, t: TableInfo, fk: m.ForeignKey, path: str) -> str | None:
        """A foreign key between columns whose PostgreSQL types cannot be compared (SQLite takes an
        INTEGER column referencing a TEXT one): PostgreSQL refuses it ("cannot be implemented"),
        which rolled the whole schema back. Found before the first statement, it is dropped and
        reported (``fk-type-mismatch``)."""
        if not ctx.same:
            rs = fk.ref_schema or t.schema.name
            for col, ref in zip(fk.columns, fk.ref_columns):
                a = ctx.column_types.get((t.schema.name, t.table.name, col))
                b = ctx.column_types.get((rs, fk.ref_table, ref))
                if a is not None and b is not None and _comparable(a) != _comparable(b):
                    ctx.report.add(
                        path,
                        f"foreign key dropped: column {col} ({a.kind}) cannot be compared with "
                        f"{fk.ref_table}.{ref} ({b.kind}) in PostgreSQL",
                        "fk-type-mismatch",
                    )
                    return None
        return super().ddl_fk_clause(ctx, t, fk, path)

    def ddl_fk_target_ok(self, ctx: Context, ref_schema: str, fk: m.ForeignKey) -> bool:
        try:
            ref = ctx.db.schema(ref_schema).table(fk.ref_table)
        except KeyError:
            return False
        wanted = set(fk.ref_columns)
        keys = [set(ref.primary_key.columns)] if ref.primary_key else []
        keys += [set(u.columns) for u in ref.uniques]
        keys += [
            {p.column or "" for p in ix.parts}
            for ix in ref.indexes
            if ix.unique and not ix.where and all(p.column and not p.length for p in ix.parts)
        ]
        return wanted in keys

    def ddl_prefix_part(self, ctx: Context, col: str, length: int, path: str) -> str | None:
        return f"(substr({col}, 1, {length}))"

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
        ctx.report.add(
            f"{path}/kind",
            f"{ix.kind} index dropped (no {self.name} counterpart without extensions)",
            "index-kind-dropped",
            "approximation",
        )
        return False

    def ddl_index_tail(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str:
        tail = ""
        if ix.include:
            tail += f" INCLUDE ({self.ddl_cols(t, ix.include)})"
        if ix.nulls_not_distinct:
            tail += " NULLS NOT DISTINCT"
        storage = ix.options.get("postgresql", {}).get("with") if ctx.same else None
        if storage:
            tail += f" WITH ({', '.join(ctx.storage_parameters(storage, f'{path}/options/postgresql/with'))})"
        if ix.where:
            where = ctx.expr(ix.where, ix.dialect, f"{path}/where", "partial index predicate")
            if where is not None:
                tail += f" WHERE {where}"
        if not ix.visible:
            ctx.report.add(f"{path}/visible", "invisible index made visible", "invisible-index", "approximation")
        if ix.comment:
            name = t.index_names.get(ix.name, ix.name)
            t.post.append(
                Statement(
                    f"COMMENT ON INDEX {self.qualify(t.tschema, name)} IS {self.literal(ix.comment)}",
                    "comment",
                    name,
                    t.qname,
                )
            )
        return tail

    def ddl_comments(self, ctx: Context, t: TableInfo) -> list[Statement]:
        out = []
        if t.table.comment:
            out.append(
                Statement(f"COMMENT ON TABLE {t.qname} IS {self.literal(t.table.comment)}", "comment", t.qname, t.qname)
            )
        for col in t.table.columns:
            if col.comment:
                q = f"{t.qname}.{self.quote(t.col(col.name))}"
                out.append(Statement(f"COMMENT ON COLUMN {q} IS {self.literal(col.comment)}", "comment", q, t.qname))
        return out

    def ddl_constraint_comments(self, ctx: Context, t: TableInfo) -> list[Statement]:
        out = []
        named: list[m.Check | m.UniqueConstraint | m.ForeignKey] = [
            *t.table.checks,
            *t.table.uniques,
            *t.table.foreign_keys,
        ]
        for c in named:
            if c.comment:
                q = self.quote(c.name)
                out.append(
                    Statement(
                        f"COMMENT ON CONSTRAINT {q} ON {t.qname} IS {self.literal(c.comment)}", "comment", q, t.qname
                    )
                )
        pk = t.table.primary_key
        if pk and pk.name and pk.comment:
            out.append(
                Statement(
                    f"COMMENT ON CONSTRAINT {self.quote(pk.name)} ON {t.qname} IS {self.literal(pk.comment)}",
                    "comment",
                    pk.name,
                    t.qname,
                )
            )
        return out

    def ddl_column_comment(self, ctx: Context, t: TableInfo, col: m.Column, path: str) -> str | None:
        return None  # COMMENT ON COLUMN, see ddl_comments

    def ddl_table_suffix(self, ctx: Context, t: TableInfo) -> str:
        opts = t.table.options.get("postgresql", {}) if ctx.same else {}
        out = ""
        table = t.table
        if ctx.same and table.partitioning is not None:
            pp = f"{t.path}/partitioning"
            method = ctx.verbatim(table.partitioning.method, f"{pp}/method", "partitioning method").upper()
            key = ctx.verbatim(table.partitioning.expression or "", f"{pp}/expression", "partition key", lists=True)
            out += f" PARTITION BY {method} ({key})"
        if ctx.same and table.inherits:
            out += " INHERITS (" + ", ".join(self.qualify(t.tschema, n) for n in table.inherits) + ")"
        if opts.get("with"):
            out += (
                " WITH (" + ", ".join(ctx.storage_parameters(opts["with"], f"{t.path}/options/postgresql/with")) + ")"
            )
        return out

    def ddl_column_parts(
        self, ctx: Context, t: TableInfo, col: m.Column, path: str
    ) -> tuple[ColumnParts, list[Statement], list[Statement]]:
        parts, post, restarts = super().ddl_column_parts(ctx, t, col, path)
        if ctx.same and col.type.kind == "array" and (col.type.dims or 1) > 1 and parts.type_sql.endswith("[]"):
            parts.type_sql += "[]" * ((col.type.dims or 1) - parts.type_sql.count("[]"))
        return parts, post, restarts

    def ddl_column_declared(self, ctx: Context, t: TableInfo, col: m.Column) -> bool:
        return not (ctx.same and t.table.inherits and col.options.get("postgresql", {}).get("inherited"))

    def ddl_table(
        self, ctx: Context, schema: m.Schema, table: m.Table, path: str
    ) -> tuple[list[Statement], list[Statement], list[Statement]]:
        pre, post, restarts = super().ddl_table(ctx, schema, table, path)
        tname = self.qualify(*ctx.table_names[(schema.name, table.name)])
        opts = table.options.get("postgresql", {}) if ctx.same else {}
        for xi, ex in enumerate(opts.get("exclusions", [])):
            xp = f"{path}/options/postgresql/exclusions/{xi}/definition"
            definition = ctx.verbatim(ex["definition"], xp, "exclusion constraint", lists=True)
            if not definition.lstrip().upper().startswith("EXCLUDE"):
                raise TranslationError(
                    "exclusion constraint refused: it is not EXCLUDE ...", pointer=xp, value=definition
                )
            post.append(
                Statement(
                    f"ALTER TABLE {tname} ADD CONSTRAINT {self.quote(ex['name'])} {definition}",
                    "check",
                    ex["name"],
                    tname,
                )
            )
            if ex.get("comment"):
                post.append(
                    Statement(
                        f"COMMENT ON CONSTRAINT {self.quote(ex['name'])} ON {tname} IS {self.literal(ex['comment'])}",
                        "comment",
                        ex["name"],
                        tname,
                    )
                )
        if opts.get("row_security"):
            post.append(Statement(f"ALTER TABLE {tname} ENABLE ROW LEVEL SECURITY", "policy", tname, tname))
        if opts.get("force_row_security"):
            post.append(Statement(f"ALTER TABLE {tname} FORCE ROW LEVEL SECURITY", "policy", tname, tname))
        identity = opts.get("replica_identity")
        if identity == "index" and opts.get("replica_identity_index"):
            post.append(
                Statement(
                    f"ALTER TABLE {tname} REPLICA IDENTITY USING INDEX {self.quote(opts['replica_identity_index'])}",
                    "table",
                    tname,
                    tname,
                )
            )
        elif identity in ("full", "nothing"):
            post.append(Statement(f"ALTER TABLE {tname} REPLICA IDENTITY {identity.upper()}", "table", tname, tname))
        for pol in opts.get("policies", []):
            post.append(Statement(self._ddl_policy(tname, pol), "policy", pol["name"], tname))
        for ri, rule in enumerate(opts.get("rules", [])):
            post.extend(self._ddl_rule(ctx, tname, rule, f"{path}/options/postgresql/rules/{ri}"))
        return pre, post, restarts

    def _ddl_rule(
        self, ctx: Context, table: str, rule: dict[str, Any], path: str, *, on_table: bool = True
    ) -> list[Statement]:
        """A rewrite rule (``CREATE RULE``, as pg_get_ruledef printed it): after the data, since an
        ``ON INSERT ... DO INSTEAD`` rule would redirect the load's own rows. Its actions are code:
        not created under ``--untrusted``."""
        if ctx.untrusted_code(path, f"rule {rule.get('name')!r}"):
            return []
        definition = ctx.verbatim(
            str(rule.get("definition", "")), f"{path}/definition", "rule", statement=True, actions=True
        )
        if not re.match(r"\s*CREATE\s+RULE\s", definition, re.IGNORECASE):
            raise TranslationError(
                "rule refused: it is not CREATE RULE ...", pointer=f"{path}/definition", value=definition
            )
        owner = table if on_table else None
        out = [Statement(definition, "rule", rule["name"], owner)]
        if rule.get("comment"):
            out.append(
                Statement(
                    f"COMMENT ON RULE {self.quote(rule['name'])} ON {table} IS {self.literal(rule['comment'])}",
                    "rule",  # with its rule, after the routines (walker)
                    rule["name"],
                    owner,
                )
            )
        return out

    def _ddl_policy(self, table: str, pol: dict[str, Any]) -> str:
        sql = f"CREATE POLICY {self.quote(pol['name'])} ON {table}"
        if pol.get("restrictive"):
            sql += " AS RESTRICTIVE"
        sql += f" FOR {pol.get('command', 'ALL')}"
        roles = pol.get("roles") or ["PUBLIC"]
        sql += " TO " + ", ".join(
            r if r.upper() in ("PUBLIC", "CURRENT_USER", "SESSION_USER") else self.quote(r) for r in roles
        )
        if pol.get("using"):
            sql += f" USING ({pol['using']})"
        if pol.get("with_check"):
            sql += f" WITH CHECK ({pol['with_check']})"
        return sql

    def ddl_check_clause(self, ctx: Context, t: TableInfo, name: str, sql: str, path: str) -> str:
        clause = super().ddl_check_clause(ctx, t, name, sql, path)
        chk = next((c for c in t.table.checks if c.name == name), None)
        if ctx.same and chk is not None and chk.options.get("postgresql", {}).get("no_inherit"):
            clause += " NO INHERIT"
        return clause

    def ddl_table_extra(self, ctx: Context, t: TableInfo) -> list[Statement]:
        table = t.table
        if ctx.same and table.partition_of and table.partition_bound:
            parent = ctx.table_names.get((t.schema.name, table.partition_of))
            if parent:
                bound = ctx.verbatim(table.partition_bound, f"{t.path}/partition_bound", "partition bound", lists=True)
                sql = f"ALTER TABLE {self.qualify(*parent)} ATTACH PARTITION {t.qname} {bound}"
                return [Statement(sql, "partition", t.qname, t.qname)]
        if ctx.same and t.table.options.get("postgresql", {}).get("unlogged"):
            return [Statement(f"ALTER TABLE {t.qname} SET UNLOGGED", "table", t.qname, t.qname)]
        return []

    # -- views, routines, triggers --------------------------------------------------------------
    def ddl_view_sql(self, ctx: Context, view: m.View, qname: str, cols: str, body: str, path: str) -> str:
        opts = view.options.get("postgresql", {}) if ctx.same else {}
        params = ctx.storage_parameters(opts["with"], f"{path}/options/postgresql/with") if opts.get("with") else []
        with_ = f" WITH ({', '.join(params)})" if params else ""
        if view.materialized:  # populated when created (after the rows), unless the source's was not
            if ctx.untrusted:  # its body runs when it is filled: not while loading (docs/security.md)
                ctx.report.add(
                    f"{path}/materialized",
                    f"materialized view {view.name!r} created WITH NO DATA (--untrusted): REFRESH it to fill it",
                    "untrusted-matview",
                )
                return f"CREATE MATERIALIZED VIEW {qname}{cols}{with_} AS {body} WITH NO DATA"
            empty = " WITH NO DATA" if opts.get("with_no_data") else ""
            return f"CREATE MATERIALIZED VIEW {qname}{cols}{with_} AS {body}{empty}"
        tail = f" WITH {view.check_option.upper()} CHECK OPTION" if view.check_option else ""
        return f"CREATE VIEW {qname}{cols}{with_} AS {body}{tail}"

    def ddl_view(self, ctx: Context, schema: m.Schema, view: m.View, tschema: str | None, path: str) -> list[Statement]:
        out = super().ddl_view(ctx, schema, view, tschema, path)
        if not out or not ctx.same:
            return out
        q = out[0].object
        for ri, rule in enumerate(view.options.get("postgresql", {}).get("rules", [])):
            # no table: a view's statements are not among the tables this import loads
            out.extend(self._ddl_rule(ctx, q, rule, f"{path}/options/postgresql/rules/{ri}", on_table=False))
        kind = "MATERIALIZED VIEW" if view.materialized else "VIEW"
        if view.comment:
            out.append(Statement(f"COMMENT ON {kind} {q} IS {self.literal(view.comment)}", "comment", q))
        for ix in view.indexes:
            cols = ", ".join(self.quote(p.column) for p in ix.parts if p.column)
            iq = self.qualify(tschema, ix.name)
            # kind "view_index", no table: it runs after its view, not with the tables' indexes
            out.append(
                Statement(
                    f"CREATE {'UNIQUE ' if ix.unique else ''}INDEX {self.quote(ix.name)} ON {q} ({cols})",
                    "view_index",
                    iq,
                )
            )
        return out

    def ddl_routine(
        self, ctx: Context, schema: m.Schema, r: m.Routine, tschema: str | None, path: str
    ) -> list[Statement]:
        q = self.qualify(tschema, r.name)
        opts = r.options.get("postgresql", {})
        if r.kind == "aggregate" and not r.definition:
            args = ", ".join(a.native for a in r.arguments)
            spec = [f"SFUNC = {opts['sfunc']}", f"STYPE = {opts['stype']}"]
            if "initcond" in opts:
                spec.append(f"INITCOND = {self.literal(str(opts['initcond']))}")
            for key in ("finalfunc", "combinefunc", "sortop"):
                if opts.get(key):
                    spec.append(f"{key.upper()} = {opts[key]}")
            out = [Statement(f"CREATE AGGREGATE {q}({args}) ({', '.join(spec)})", "routine", q)]
        else:
            out = super().ddl_routine(ctx, schema, r, tschema, path)
            # bodies may name functions created later (or tables of other schemas)
            # (two statements: DDL runs through the extended protocol, one statement at a time)
            out = [x for s in out for x in (Statement("SET check_function_bodies = off", "session", "session"), s)]
        if r.comment and out:
            word = {"procedure": "PROCEDURE", "aggregate": "AGGREGATE"}.get(r.kind, "FUNCTION")
            sig = r.signature if r.signature is not None else ", ".join(a.native for a in r.arguments)
            if r.kind == "aggregate":
                sig = ", ".join(a.native for a in r.arguments)
            out.append(Statement(f"COMMENT ON {word} {q}({sig}) IS {self.literal(r.comment)}", "comment", q))
        return out

    def ddl_trigger(
        self, ctx: Context, schema: m.Schema, trg: m.Trigger, tschema: str | None, path: str
    ) -> list[Statement]:
        out = super().ddl_trigger(ctx, schema, trg, tschema, path)
        if trg.comment and out:
            table = ctx.table_names.get((schema.name, trg.table), (tschema, trg.table))
            out.append(
                Statement(
                    f"COMMENT ON TRIGGER {self.quote(trg.name)} ON {self.qualify(*table)} IS {self.literal(trg.comment)}",
                    "comment",
                    trg.name,
                    self.qualify(*table),
                )
            )
        return out

    # -- applying --------------------------------------------------------------------------------
    def ddl_drop_statements(self, plan: DdlPlan) -> list[Statement]:
        out = [
            Statement(
                f"DROP {'MATERIALIZED VIEW' if 'MATERIALIZED' in s.sql[:30] else 'VIEW'} IF EXISTS {s.object} CASCADE",
                "drop",
                s.object,
            )
            for s in reversed(plan.post_data)
            if s.kind == "view"
        ]
        out += [
            Statement(f"DROP TABLE IF EXISTS {s.object} CASCADE", "drop", s.object)
            for s in reversed(plan.pre_data)
            if s.kind == "table"
        ]
        out += [
            Statement(f"DROP SEQUENCE IF EXISTS {s.object} CASCADE", "drop", s.object)
            for s in plan.pre_data
            if s.kind == "sequence" and s.sql.startswith("CREATE")
        ]
        out += [
            Statement(
                f"DROP {'DOMAIN' if 'DOMAIN' in s.sql[:14] else 'TYPE'} IF EXISTS {s.object} CASCADE", "drop", s.object
            )
            for s in reversed(plan.pre_data)
            if s.kind == "type"
        ]
        out += [
            Statement(f"DROP COLLATION IF EXISTS {s.object} CASCADE", "drop", s.object)
            for s in plan.pre_data
            if s.kind == "collation"
        ]
        return out

    def ddl_undo_tail(self, stmt: Statement) -> str:
        return " CASCADE" if stmt.kind in ("table", "view", "type", "sequence", "routine") else ""

    def ddl_existing_objects(self, conn: Any, plan: DdlPlan) -> set[str]:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "UNION ALL SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
                "UNION ALL SELECT n.nspname, c.collname FROM pg_collation c JOIN pg_namespace n ON n.oid = c.collnamespace "
                "UNION ALL SELECT nspname, nspname FROM pg_namespace"
            )
            rows = cur.fetchall()
        present = {self.qualify(s, n) for s, n in rows}
        present |= {self.quote(s) for s, n in rows if s == n}
        return present

    # -- schema diff: ALTER rendering (dbjson diff --ddl) --------------------------------------------
    def ddl_drop_sql(
        self, kind: str, schema: str | None, name: str, table: str | None = None, signature: str | None = None
    ) -> str:
        if kind == "trigger":
            return f"DROP TRIGGER {self.quote(name)} ON {table}"
        if kind in ("function", "procedure", "aggregate", "window"):
            word = {"procedure": "PROCEDURE", "aggregate": "AGGREGATE"}.get(kind, "FUNCTION")
            return f"DROP {word} {self.qualify(schema, name)}({signature or ''})"
        return super().ddl_drop_sql(kind, schema, name, table, signature)


# Kinds whose PostgreSQL types compare with each other (implicit casts within a group): a foreign key
# between two groups "cannot be implemented".
_COMPARABLE = {
    "integer": "number",
    "decimal": "number",
    "float": "number",
    "char": "string",
    "varchar": "string",
    "text": "string",
    "binary": "bytes",
    "varbinary": "bytes",
    "blob": "bytes",
    "date": "datetime",
    "timestamp": "datetime",
}


def _comparable(t: m.Type) -> str:
    """The group of :data:`_COMPARABLE` of a target type (its own kind when it is in none)."""
    return _COMPARABLE.get(t.kind, t.kind)
