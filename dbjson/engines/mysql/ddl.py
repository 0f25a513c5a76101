"""MySQL and MariaDB DDL (MariaDB differences behind ``self.is_mariadb``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ... import model as m
from ...ddl.columns import ColumnParts
from ...ddl.context import Context, engine_family
from ...ddl.plan import DdlPlan, Statement, parenthesized
from ...ddl.tableinfo import TableInfo
from ...ddl.types import TypeChoice
from ...ddl.walker import BaseDDL, primary_schema
from ...errors import TranslationError
from .privileges import MySQLPrivileges

_TEXTY = {"text", "blob", "json", "geometry"}
_TABLE_OPTIONS = {
    "engine": "ENGINE",
    "row_format": "ROW_FORMAT",
    "key_block_size": "KEY_BLOCK_SIZE",
    "stats_persistent": "STATS_PERSISTENT",
    "pack_keys": "PACK_KEYS",
    "checksum": "CHECKSUM",
}
_RENAMED = {("mysql", "mariadb"): {"geomcollection": "geometrycollection"}}  # native spellings the other lacks
_NOT_NATIVE = {"uuid", "inet4", "inet6", "vector", "json"}  # go through the type rules instead
_SEQ_MAX, _SEQ_MIN = 9223372036854775806, -9223372036854775807  # MariaDB sequence bounds
_DEFINER = re.compile(r"\s+DEFINER\s*=\s*(`[^`]*`|'[^']*'|\S+)@(`[^`]*`|'[^']*'|\S+)", re.IGNORECASE)


class MySQLDDL(MySQLPrivileges, BaseDDL):
    """MySQL rendering of the DDL plan (MariaDB: ``is_mariadb``)."""

    if TYPE_CHECKING:

        @property
        def is_mariadb(self) -> bool: ...

    # -- schemas ---------------------------------------------------------------------------------
    def ddl_target_schema(self, ctx: Context, schema: m.Schema, index: int) -> str | None:
        mapping = ctx.options.get("schema_map") or {}
        if schema.name in mapping:
            return str(mapping[schema.name]) or None
        return None  # the URL's database (other schemas' tables get a prefix: ddl_table_name)

    def ddl_create_schema(self, ctx: Context, schema: m.Schema, tschema: str | None, path: str) -> list[Statement]:
        if not tschema:
            return []
        q = self.quote(tschema)
        return [Statement(f"CREATE DATABASE IF NOT EXISTS {q} CHARACTER SET utf8mb4", "schema", q)]

    def ddl_database_options(self, db: m.Database) -> str:
        """The source database's default character set and collation (its schema's options)."""
        if not db.schemas:
            return ""
        opts = db.schemas[primary_schema(db)].options.get("mysql", {})
        out = ""
        for word, key in (("CHARACTER SET", "charset"), ("COLLATE", "collation")):
            value = str(opts.get(key) or "")
            if re.fullmatch(r"\w+", value):
                out += f" {word} {value}"
        return out

    # -- schema-load sessions ---------------------------------------------------------------------
    def ddl_session_begin(self, conn: Any) -> None:
        with conn.cursor() as cur:
            # As mysqldump restores: zero-date defaults (WordPress, legacy schemas) are valid DDL there.
            cur.execute("SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION'")
            try:  # MySQL 8.4+: a foreign key to a non-unique key prefix, as the source had (reported)
                cur.execute("SET SESSION restrict_fk_on_non_standard_key = OFF")
            except Exception:  # noqa: BLE001 - MariaDB, MySQL before 8.4: no such check
                pass

    def ddl_session_commit(self, conn: Any) -> None:
        conn.commit()

    def ddl_session_rollback(self, conn: Any) -> None:
        conn.rollback()

    def ddl_session_autocommit(self, conn: Any) -> None:
        conn.autocommit(True)

    def ddl_create_database_sql(self, name: str, defaults: str) -> tuple[str, str, str | None] | None:
        return (
            "SELECT 1 FROM information_schema.schemata WHERE schema_name = %s",
            f"CREATE DATABASE IF NOT EXISTS {self.quote(name)}{defaults or ' CHARACTER SET utf8mb4'}",
            None,
        )

    def ddl_sequences(
        self, ctx: Context, schema: m.Schema, tschema: str | None, path: str
    ) -> tuple[list[Statement], list[Statement]]:
        if not self.is_mariadb:
            return super().ddl_sequences(ctx, schema, tschema, path)
        pre: list[Statement] = []
        post: list[Statement] = []
        for s in schema.sequences:
            q = self.qualify(tschema, s.name)
            sql = f"CREATE SEQUENCE {q} INCREMENT BY {s.increment}"
            if s.min_value is not None:
                sql += f" MINVALUE {max(s.min_value, _SEQ_MIN)}"
            if s.max_value is not None:
                sql += f" MAXVALUE {min(s.max_value, _SEQ_MAX)}"
            if s.start is not None:
                sql += f" START WITH {s.start}"
            sql += f" CACHE {s.cache}" if s.cache is not None else ""
            sql += " CYCLE" if s.cycle else ""
            sql += f" COMMENT={self.literal(s.comment)}" if s.comment else ""
            pre.append(Statement(sql, "sequence", q))
            if s.next_value is not None:
                post.append(Statement(f"SELECT SETVAL({q}, {s.next_value}, 0)", "restart", q))
        return pre, post

    # -- columns ---------------------------------------------------------------------------------
    def ddl_native_type(self, ctx: Context, t: TableInfo, col: m.Column) -> str:
        raw = col.native.raw
        if self.is_mariadb and col.type.kind == "json" and raw.lower() == "longtext":
            return "json"  # MariaDB's JSON alias (re-adds its json_valid check)
        return raw

    def ddl_column_type(self, ctx: Context, t: TableInfo, col: m.Column, path: str) -> TypeChoice:
        if not ctx.same and ctx.same_family and col.native.engine in ("mysql", "mariadb"):
            # MySQL ↔ MariaDB: the native spelling works unless it names a type the other lacks.
            raw = ctx.type_spelling(col.native.raw, f"{path}/native/raw", table=t.table.name, column=col.name)
            base = raw.lower().split("(")[0].split(" ")[0]
            renamed = _RENAMED.get((ctx.source, self.name), {}).get(base)
            if renamed:
                raw = renamed + raw[len(base) :]
            if base not in _NOT_NATIVE:
                return TypeChoice(raw, col.type, rule="native-family")
        return super().ddl_column_type(ctx, t, col, path)

    def ddl_column_sql(self, ctx: Context, t: TableInfo, p: ColumnParts) -> str:
        out = [p.name, p.type_sql]
        if p.charset:
            out.append(f"CHARACTER SET {p.charset}")
        if p.collation:
            out.append(f"COLLATE {p.collation}")
        if p.generated:
            out.append(f"GENERATED ALWAYS AS ({p.generated}) {'STORED' if p.generated_stored else 'VIRTUAL'}")
        if p.extra:
            out.append(p.extra)
        if p.not_null:
            out.append("NOT NULL")
        elif not p.generated and not p.extra:
            out.append("NULL")
        if p.default is not None:
            out.append(f"DEFAULT {p.default}")
        if p.on_update:
            out.append(p.on_update)
        if p.identity:
            out.append(p.identity)
        if p.invisible:
            out.append("INVISIBLE")
        if p.comment:
            out.append(f"COMMENT {self.literal(p.comment)}")
        for chk in p.checks_inline:
            out.append(f"CHECK {chk}")
        return " ".join(out)

    def ddl_column_parts(
        self, ctx: Context, t: TableInfo, col: m.Column, path: str
    ) -> tuple[ColumnParts, list[Statement], list[Statement]]:
        parts, post, restarts = super().ddl_column_parts(ctx, t, col, path)
        opts = col.options.get("mysql", {}) if ctx.same else {}
        period = t.table.options.get("mysql", {}).get("period_for_system_time") if ctx.same else None
        if opts.get("row_period"):
            parts.extra = f"GENERATED ALWAYS AS ROW {opts['row_period'].upper()}"
            parts.not_null = False
            if period and col.name == period[-1] and not any(x.startswith("PERIOD FOR") for x in t.inline):
                t.inline.append(f"PERIOD FOR SYSTEM_TIME ({self.ddl_cols(t, period)})")
        if opts.get("without_system_versioning"):
            parts.extra = "WITHOUT SYSTEM VERSIONING"
        if ctx.same and col.type.kind == "geometry" and col.type.srid is not None:
            parts.type_sql += (
                f" REF_SYSTEM_ID={col.type.srid}" if self.is_mariadb else f" /*!80003 SRID {col.type.srid} */"
            )
        if self.is_mariadb and parts.generated:
            self._mariadb_generated(ctx, t, col, parts, path)
        return parts, post, restarts

    def _mariadb_generated(self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str) -> None:
        """MariaDB refuses a PRIMARY KEY on a generated column (ERROR 1903): the column becomes a plain
        one loaded from the rows; and it takes no NULL/NOT NULL on generated columns."""
        pk = t.table.primary_key
        if pk is not None and col.name in pk.columns:
            parts.generated = None
            ctx.plain_generated.add((t.schema.name, t.table.name, col.name))
            ctx.report.add(
                f"{path}/generated",
                "generated primary key column created as a plain column (MariaDB has "
                "no primary key on generated columns)",
                "generated-pk-plain",
            )
        elif parts.not_null:
            parts.not_null = False
            ctx.report.add(
                f"{path}/nullable",
                "NOT NULL dropped (MariaDB takes none on generated columns)",
                "generated-not-null",
                "approximation",
            )

    def ddl_pk_not_null(self) -> bool:
        return True

    def ddl_inline_check_ok(self, ctx: Context, t: TableInfo, col: m.Column, chk: m.Check) -> bool:
        # MariaDB's JSON alias brings its own json_valid() check
        return not (col.type.kind == "json" and col.native.raw.lower() == "longtext")

    def ddl_check_expression(self, ctx: Context, t: TableInfo, chk: m.Check, path: str) -> str | None:
        """MySQL and MariaDB refuse a CHECK on an AUTO_INCREMENT column, and a CHECK on a column that
        a foreign key's referential action changes (ON UPDATE CASCADE / SET NULL / SET DEFAULT,
        ON DELETE SET NULL / SET DEFAULT): MySQL errors 3818 and 3823, MariaDB 1901 — the latter
        when the foreign key is added, which failed the whole load. A PostgreSQL ``CHECK (id >= 0)``
        (how dbjson keeps MySQL's unsigned integers there) on a serial key hits both. Such a check
        is dropped and reported."""
        sql = super().ddl_check_expression(ctx, t, chk, path)
        if sql is None or ctx.same_family:
            return sql
        used = _check_columns(chk, t.table)
        auto = sorted(c.name for c in t.table.columns if c.identity is not None and c.name.lower() in used)
        if auto:
            ctx.report.add(
                path,
                f"check on AUTO_INCREMENT column {', '.join(auto)} dropped ({'MariaDB' if self.is_mariadb else 'MySQL'} refuses it)",
                "check-auto-increment",
            )
            return None
        allowed = {a.upper() for a in self.table.get("capabilities", {}).get("foreign_key_actions", [])}

        def changes(action: str | None, acts: tuple[str, ...]) -> bool:
            act = (action or "NO ACTION").upper()
            return act in acts and act in allowed

        fk_cols = sorted(
            {
                c
                for fk in t.table.foreign_keys
                if changes(fk.on_update, ("CASCADE", "SET NULL", "SET DEFAULT"))
                or changes(fk.on_delete, ("SET NULL", "SET DEFAULT"))
                for c in fk.columns
                if c.lower() in used
            }
        )
        if fk_cols:
            ctx.report.add(
                path,
                f"check on column {', '.join(fk_cols)}, which a foreign key's referential action changes, "
                f"dropped ({'MariaDB' if self.is_mariadb else 'MySQL'} refuses it)",
                "check-fk-action",
            )
            return None
        return sql

    def ddl_fk_clause(self, ctx: Context, t: TableInfo, fk: m.ForeignKey, path: str) -> str | None:
        fixed = self._fk_fit(ctx, t, fk, path)
        if fixed is None:
            return None
        fk = fixed
        clause = super().ddl_fk_clause(ctx, t, fk, path)
        if clause is not None and not self.is_mariadb and self.version >= (8, 4) and not _fk_standard(ctx, t, fk):
            # MySQL 8.4+ refuses a foreign key to columns that are not exactly a primary or unique
            # key (restrict_fk_on_non_standard_key, ON by default; MariaDB and older MySQL accept a
            # key prefix): dbjson's load sessions turn that check off, so the key keeps its meaning.
            ctx.report.add(
                path,
                "foreign key to columns that are not a primary or unique key (a non-unique key prefix) created "
                "with restrict_fk_on_non_standard_key = OFF (deprecated in MySQL 8.4+)",
                "fk-non-standard-key",
                "approximation",
            )
        return clause

    def _fk_fit(self, ctx: Context, t: TableInfo, fk: m.ForeignKey, path: str) -> m.ForeignKey | None:
        """A foreign key as InnoDB takes it, checked before the first statement (InnoDB refuses the
        others when the key is added, half way through a load):

        * the referenced columns must be the first columns of a key or index of the referenced table
          (whole columns, not prefixes), in the key's order: the column pairs are put in that order
          (the same constraint); with no such key (SQLite and hostile documents allow it) the
          foreign key is dropped and reported (``fk-no-key``);
        * both tables must use a storage engine that keeps foreign keys (InnoDB; MyISAM discards the
          clause without a warning): else dropped and reported (``fk-engine``);
        * ``SET NULL`` on a column that is NOT NULL (PostgreSQL accepts the declaration; the delete or
          update then fails there): made ``NO ACTION``, which fails the same statements (``fk-set-null-not-null``).
        """
        rs = fk.ref_schema or t.schema.name
        try:
            ref = ctx.db.schema(rs).table(fk.ref_table)
        except KeyError:
            return fk  # not in the document: the walker drops and reports it
        keeps = {e.lower() for e in self.table.get("capabilities", {}).get("fk_engines", [])}
        for side, tbl in (("table", t.table), ("referenced table", ref)):
            engine = self._table_engine(ctx, tbl)
            if keeps and engine is not None and engine.lower() not in keeps:
                ctx.report.add(
                    path,
                    f"foreign key dropped: its {side} {tbl.name} uses the {engine} storage engine, which "
                    f"keeps no foreign keys ({'MariaDB' if self.is_mariadb else 'MySQL'} would discard it "
                    "silently or refuse it)",
                    "fk-engine",
                )
                return None
        wanted = {c.lower() for c in fk.ref_columns}
        n = len(fk.ref_columns)
        orders: list[list[str]] = [list(ref.primary_key.columns)] if ref.primary_key else []
        orders += [list(u.columns) for u in ref.uniques]
        orders += [
            [p.column or "" for p in ix.parts]
            for ix in ref.indexes
            if not ix.where
            and ix.kind not in ("fulltext", "spatial")
            and all(p.column and not p.length for p in ix.parts)
        ]
        lead = next((o[:n] for o in orders if {c.lower() for c in o[:n]} == wanted and len(o) >= n), None)
        if lead is None:
            ctx.report.add(
                path,
                f"foreign key to {fk.ref_table}({', '.join(fk.ref_columns)}) dropped: no key or index of that table "
                f"begins with those columns ({'MariaDB' if self.is_mariadb else 'MySQL'} requires one)",
                "fk-no-key",
            )
            return None
        if [c.lower() for c in lead] != [c.lower() for c in fk.ref_columns]:
            pairs = dict(zip((c.lower() for c in fk.ref_columns), fk.columns))
            fk = m.replace(fk, columns=tuple(pairs[c.lower()] for c in lead), ref_columns=tuple(lead))
        not_null = {c.name for c in t.table.columns if not c.nullable}
        not_null |= set(t.table.primary_key.columns) if t.table.primary_key else set()
        for field in ("on_delete", "on_update"):
            act = (getattr(fk, field) or "").upper()
            stuck = [c for c in fk.columns if c in not_null]
            if act == "SET NULL" and stuck:
                ctx.report.add(
                    f"{path}/{field}",
                    f"ON {field[3:].upper()} SET NULL made NO ACTION: column {', '.join(stuck)} is NOT NULL "
                    f"({'MariaDB' if self.is_mariadb else 'MySQL'} refuses the pair; in the source such a "
                    f"{field[3:]} failed too)",
                    "fk-set-null-not-null",
                    "approximation",
                )
                fk = m.replace(fk, **{field: "NO ACTION"})
        return fk

    def ddl_fk_action(self, ctx: Context, action: str, path: str) -> str | None:
        act = super().ddl_fk_action(ctx, action, path)
        if self.is_mariadb and act == "RESTRICT":
            # MariaDB's default when the clause is left out. Written out, an in-place ALTER TABLE
            # under foreign_key_checks = 0 (how the import adds foreign keys) stores it as NO ACTION
            # (MariaDB 10.11; Sakila's ON DELETE RESTRICT keys came out NO ACTION).
            return ""
        return act

    def ddl_not_enforced(self, ctx: Context, sql: str, path: str) -> str:
        if self.is_mariadb:
            ctx.report.add(
                f"{path}/enforced",
                "NOT ENFORCED check dropped (MariaDB has no NOT ENFORCED)",
                "check-not-enforced-dropped",
                "approximation",
            )
            return sql
        return f"{sql} NOT ENFORCED"

    def ddl_check_clause(self, ctx: Context, t: TableInfo, name: str, sql: str, path: str) -> str:
        if self.is_mariadb and sql.endswith(" NOT ENFORCED"):
            sql = sql[: -len(" NOT ENFORCED")]
        return super().ddl_check_clause(ctx, t, name, sql, path)

    def ddl_identity(self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str) -> list[Statement]:
        ident = col.identity
        assert ident is not None
        table = t.table
        if _auto_increment_column(table) != col.name:
            # PostgreSQL allows any number of identity/serial columns; MySQL one AUTO_INCREMENT per table
            ctx.report.add(
                f"{path}/identity",
                "a second identity column of the table: MySQL allows one AUTO_INCREMENT per table; kept as a"
                " plain column (an insert must give its value)",
                "identity-second-dropped",
            )
            return []
        parts.identity = "AUTO_INCREMENT"
        if not (table.primary_key and table.primary_key.columns[:1] == (col.name,)):
            self._ddl_auto_increment_key(ctx, t, col, path)
        if not ctx.same_family:
            if ident.always:
                ctx.report.add(
                    f"{path}/identity/always",
                    "GENERATED ALWAYS made AUTO_INCREMENT (explicit values allowed)",
                    "identity-auto-increment",
                    "approximation",
                )
            if ident.increment not in (None, 1):
                ctx.report.add(
                    f"{path}/identity/increment",
                    f"identity increment {ident.increment} dropped (server-wide in MySQL)",
                    "identity-increment",
                )
        if ident.next_value is None:
            return []
        return [Statement(f"ALTER TABLE {t.qname} AUTO_INCREMENT = {ident.next_value}", "restart", t.qname, t.qname)]

    def _ddl_auto_increment_key(self, ctx: Context, t: TableInfo, col: m.Column, path: str) -> None:
        """MySQL wants the AUTO_INCREMENT column to lead a key at CREATE TABLE time."""
        for u in t.table.uniques:
            if u.columns[:1] == (col.name,):
                t.skip.add(u.name)
                t.inline.append(f"CONSTRAINT {self.quote(u.name)} UNIQUE KEY ({self.ddl_cols(t, u.columns)})")
                return
        for ix in t.table.indexes:
            if ix.parts and ix.parts[0].column == col.name and ix.kind in ("btree", "hash") and not ix.where:
                parts = [self.ddl_index_part(ctx, t, ix, p, path) for p in ix.parts]
                if all(parts):
                    t.skip.add(ix.name)
                    word = "UNIQUE KEY" if ix.unique else "KEY"
                    t.inline.append(f"{word} {self.quote(ix.name)} ({', '.join(p for p in parts if p)})")
                    return
        t.inline.append(f"KEY ({self.quote(t.col(col.name))})")
        ctx.report.add(
            f"{path}/identity",
            "an index was added on the AUTO_INCREMENT column (MySQL requires one)",
            "auto-increment-key",
            "approximation",
        )

    def ddl_collation(
        self, ctx: Context, t: TableInfo, col: m.Column, choice: Any, path: str
    ) -> tuple[str | None, str | None]:
        if ctx.same:
            charset = ctx.word(col.charset, f"{path}/charset", "character set") if col.charset else None
            coll = ctx.word(col.collation, f"{path}/collation", "collation") if col.collation else None
            return charset, coll
        if ctx.same_family:
            coll = self._ddl_map_collation(ctx, col.collation, f"{path}/collation")
            charset = col.charset if coll or not col.collation else None
            return charset, coll
        if col.collation and col.type.kind in ("char", "varchar", "text", "enum", "set"):
            ctx.report.add(
                f"{path}/collation",
                f"collation {col.collation!r} replaced by {self._ddl_default_collation()} "
                "(binary, NO PAD: unique keys that held still hold)",
                "collation-binary",
                "approximation",
            )
        return None, None

    def _ddl_default_collation(self) -> str:
        return str(self.table.get("collations", {}).get("default", "utf8mb4_bin"))

    def _ddl_map_collation(self, ctx: Context, coll: str | None, path: str) -> str | None:
        if not coll:
            return None
        table = self.table.get("collations", {})
        mapped = table.get("map", {}).get(coll)
        if mapped:
            ctx.report.add(path, f"collation {coll!r} replaced by {mapped!r}", "collation-map", "approximation")
            return str(mapped)
        if any(coll.startswith(p) for p in table.get("known_prefixes", [])):
            return coll
        default = self._ddl_default_collation()
        ctx.report.add(
            path, f"collation {coll!r} unknown to {self.name}; {default!r} used", "collation-binary", "approximation"
        )
        return default

    def ddl_column_comment(self, ctx: Context, t: TableInfo, col: m.Column, path: str) -> str | None:
        limit = int(self.table["limits"]["comment_length"])
        text = col.comment or ""
        if len(text) > limit:
            ctx.report.add(f"{path}/comment", f"comment cut to {limit} characters", "comment-cut")
            text = text[:limit]
        return text

    def ddl_on_update(
        self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, path: str
    ) -> list[Statement]:
        fsp = col.on_update.fsp if col.on_update else None
        parts.on_update = f"ON UPDATE CURRENT_TIMESTAMP{f'({fsp})' if fsp else ''}"
        return []

    # -- defaults ----------------------------------------------------------------------------------
    def ddl_default(
        self, ctx: Context, t: TableInfo, col: m.Column, d: m.Default, choice: TypeChoice, path: str
    ) -> str | None:
        """A literal default the target column cannot hold (PostgreSQL checks a default only when an
        insert uses it, so ``varchar(3) DEFAULT 'abcdef'`` or ``smallint DEFAULT 70000`` exist there):
        MySQL and MariaDB refuse the CREATE TABLE (error 1067). Found before the first statement,
        such a default is dropped and reported (``default-unfit``): in the source every insert that
        relied on it failed."""
        if d.kind == "literal" and not ctx.same and col.type.kind not in ("set", "array"):
            problem = literal_default_problem(d.value, choice.type)
            if problem:
                ctx.report.add(
                    path,
                    f"default {d.value[:60]!r} dropped: {problem} ({'MariaDB' if self.is_mariadb else 'MySQL'} "
                    "refuses it; in the source every insert that used it failed)",
                    "default-unfit",
                )
                return None
        return super().ddl_default(ctx, t, col, d, choice, path)

    def ddl_bit_literal(self, bits: str) -> str:
        return f"b'{bits}'"

    def ddl_list_literal(self, items: list[Any], typ: m.Type) -> str:
        sql = super().ddl_list_literal(items, typ)
        return sql if self.is_mariadb else f"({sql})"  # MySQL: JSON defaults must be expressions

    def ddl_literal_default(self, ctx: Context, value: str, typ: m.Type, path: str) -> str:
        if typ.kind in ("binary", "varbinary", "blob") and re.fullmatch(r"0x[0-9a-fA-F]*", value.strip()):
            return value.strip()
        sql = super().ddl_literal_default(ctx, value, typ, path)
        if typ.kind in _TEXTY and not self.is_mariadb and not sql.startswith("("):
            return f"({sql})"  # MySQL: TEXT/BLOB/JSON defaults must be expressions
        return sql

    def ddl_bool(self, value: bool) -> str:
        return "1" if value else "0"

    def ddl_function_default(self, ctx: Context, d: m.Default, typ: m.Type) -> str | None:
        fsp = typ.fsp or 0
        if d.value == "current_timestamp":
            if typ.kind == "timestamp":
                return f"CURRENT_TIMESTAMP({fsp})" if fsp else "CURRENT_TIMESTAMP"
            return "(now())"
        if d.value == "current_date":
            return "(curdate())"
        if d.value == "current_time":
            return "(curtime())"
        if d.value == "uuid":
            return "uuid()" if self.is_mariadb else "(uuid())"
        return None

    def ddl_expression_default(self, sql: str, typ: m.Type) -> str:
        if re.fullmatch(r"0x[0-9a-fA-F]*|[bB]'[01]*'", sql.strip()):
            return sql.strip()  # a hex/bit literal, not an expression
        return parenthesized(sql)

    # -- keys and indexes ------------------------------------------------------------------------
    def ddl_unique_clause(self, ctx: Context, t: TableInfo, u: m.UniqueConstraint, path: str) -> str | None:
        clause = super().ddl_unique_clause(ctx, t, u, path)
        if clause is None:
            return None
        clause = clause.replace(" UNIQUE (", " UNIQUE KEY (", 1)
        if u.name in t.long_keys and self.is_mariadb:
            clause += " USING HASH"
        return clause + f" COMMENT {self.literal(u.comment[:1024])}" if u.comment else clause

    def ddl_unique_parts(self, ctx: Context, t: TableInfo, u: m.UniqueConstraint, path: str) -> str:
        cut = t.long_keys.get(u.name)
        if not cut:
            return super().ddl_unique_parts(ctx, t, u, path)
        self._report_long_unique(ctx, t, u.name, cut, path)
        return ", ".join(
            self._hashed_part(t, c) if c in cut and not self.is_mariadb else self.quote(t.col(c)) for c in u.columns
        )

    def _hashed_part(self, t: TableInfo, column: str) -> str:
        """A functional key part for a column too long for InnoDB's key limit: the SHA-256 of its
        collation weights (``weight_string``), so values equal under its collation (a case-insensitive
        one included) collide as in a plain unique key; NULL stays NULL (several NULLs allowed)."""
        return f"(unhex(sha2(weight_string({self.quote(t.col(column))}), 256)))"

    def _report_long_unique(self, ctx: Context, t: TableInfo, name: str, cut: dict[str, int], path: str) -> None:
        cols = ", ".join(sorted(cut))
        if self.is_mariadb:
            how = "a MariaDB long unique key (USING HASH: a hidden hash column, checked on every write)"
        else:
            how = "SHA-256 functional key parts (unhex(sha2(weight_string(col), 256)): equal under the column's collation) for those columns"
        ctx.report.add(
            path,
            f"unique key over {cols}, too long for the 3072-byte InnoDB key limit, enforced through {how}; "
            "the columns keep their full length (not usable for range scans or foreign keys)",
            "long-unique-hash",
            "approximation",
        )

    def _long_index_part(self, ctx: Context, t: TableInfo, ix: m.Index, part: m.IndexPart, path: str) -> str | None:
        """A key part of an index too long for the key limit: a prefix for a plain index, a hash
        (MySQL) or the column under USING HASH (MariaDB) for a unique one."""
        cut = t.long_keys.get(ix.name, {})
        if part.column is None or part.column not in cut:
            return None
        if ix.unique:
            self._report_long_unique(ctx, t, ix.name, cut, path.rsplit("/parts/", 1)[0])
            if self.is_mariadb:
                return self.quote(t.col(part.column))
            return self._hashed_part(t, part.column) + (" DESC" if part.descending else "")
        choice = t.types.get(part.column)
        kind = choice.type.kind if choice else "text"
        share = cut[part.column]
        length = max(1, share if kind in ("binary", "varbinary", "blob") else share // 4)
        unit = "bytes" if kind in ("binary", "varbinary", "blob") else "characters"
        ctx.report.add(
            path,
            f"index part {part.column} made a prefix of its first {length} {unit} (the whole column is too long "
            "for the 3072-byte InnoDB key limit; lookups still work, longer values share index entries)",
            "long-key-prefix",
            "approximation",
        )
        return f"{self.quote(t.col(part.column))}({length})" + (" DESC" if part.descending else "")

    def ddl_constraint_comments(self, ctx: Context, t: TableInfo) -> list[Statement]:
        # unique keys carry their comment (ddl_unique_clause); checks and foreign keys cannot
        return super().ddl_constraint_comments(ctx, m.replace(t, table=m.replace(t.table, uniques=())))

    def ddl_prefix_part(self, ctx: Context, col: str, length: int, path: str) -> str | None:
        return f"{col}({length})"

    def ddl_nulls_order(self, ctx: Context, nulls: str, path: str) -> str:
        ctx.report.add(f"{path}/nulls", f"NULLS {nulls.upper()} ordering dropped", "nulls-order", "approximation")
        return ""

    def ddl_index_part(self, ctx: Context, t: TableInfo, ix: m.Index, part: m.IndexPart, path: str) -> str | None:
        long = self._long_index_part(ctx, t, ix, part, path)
        if long is not None:
            return long
        if part.expression is not None and self.is_mariadb and not ctx.same:
            ctx.report.add(f"{path}/expression", "MariaDB has no functional key parts", "expression-index-dropped")
            return None
        if part.expression is not None and not ctx.same_family:
            text = super().ddl_index_part(ctx, t, ix, m.IndexPart(expression=part.expression), path)
            if text is None:
                return None
            ctx.report.add(
                f"{path}/expression",
                "expression key part cast to CHAR(512) (MySQL cannot index TEXT results)",
                "expression-index-char",
                "approximation",
            )
            tail = " DESC" if part.descending else ""
            return f"(CAST({text} AS CHAR(512))){tail}"
        if part.column and not ctx.same:
            typ = t.types.get(part.column)
            if (
                typ is not None
                and typ.type.kind in ("json", "text", "blob")
                and ix.kind not in ("fulltext",)
                and not part.length
            ):
                ctx.report.add(
                    path, f"column of kind {typ.type.kind} cannot be indexed by {self.name}", "unindexable-column"
                )
                return None
        return super().ddl_index_part(ctx, t, ix, part, path)

    def ddl_index_method(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str | bool | None:
        if ix.kind in ("btree", "fulltext", "spatial"):
            return None
        if ix.kind == "hash":
            return None  # USING HASH goes after the key parts (ddl_index_tail)
        if ix.kind in ("gin", "gist", "spgist", "brin", "rtree"):
            ctx.report.add(f"{path}/kind", f"{ix.kind} index made a btree index", "index-kind-btree", "approximation")
            return None
        return super().ddl_index_method(ctx, t, ix, path)

    def ddl_index(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> Statement | None:
        stmt = super().ddl_index(ctx, t, ix, path)
        if stmt is None or ix.kind not in ("fulltext", "spatial"):
            return stmt
        head = "CREATE UNIQUE INDEX" if ix.unique else "CREATE INDEX"
        sql = stmt.sql.replace(head, f"CREATE {ix.kind.upper()} INDEX", 1)
        return Statement(sql, stmt.kind, stmt.object, stmt.table)

    def ddl_index_tail(self, ctx: Context, t: TableInfo, ix: m.Index, path: str) -> str:
        tail = ""
        if ix.include:
            ctx.report.add(f"{path}/include", "INCLUDE columns dropped", "include-dropped", "approximation")
        if ix.nulls_not_distinct:
            ctx.report.add(
                f"{path}/nulls_not_distinct", "NULLS NOT DISTINCT dropped (several NULLs allowed)", "nulls-distinct"
            )
        if (ix.kind == "hash" and ctx.same_family) or (self.is_mariadb and ix.unique and ix.name in t.long_keys):
            tail += " USING HASH"
        parser = ix.options.get("mysql", {}).get("parser")
        if parser and ctx.same:
            tail += f" WITH PARSER {ctx.word(parser, f'{path}/options/mysql/parser', 'full-text parser')}"
        elif parser:
            ctx.report.add(
                f"{path}/options/mysql/parser", f"full-text parser {parser} dropped", "fulltext-parser", "approximation"
            )
        if ix.comment:
            tail += f" COMMENT {self.literal(ix.comment[:1024])}"
        if not ix.visible:
            tail += " IGNORED" if self.is_mariadb else " INVISIBLE"
        return tail

    # -- tables ----------------------------------------------------------------------------------
    def ddl_table_suffix(self, ctx: Context, t: TableInfo) -> str:
        table = t.table
        opts: dict[str, Any] = dict(table.options.get("mysql", {})) if ctx.same_family else {}
        out = []
        op = f"{t.path}/options/mysql"
        for key, word in _TABLE_OPTIONS.items():
            if key == "engine" and self._table_engine(ctx, table, f"{op}/engine") is None:
                continue  # the server's default (InnoDB)
            if key in opts and opts[key] not in (None, ""):
                out.append(f"{word}={ctx.word(opts[key], f'{op}/{key}', f'table option {word}')}")
        if ctx.same_family:
            charset = opts.get("charset") or opts.get("character_set")
            coll = opts.get("collation")
            if coll and not ctx.same:
                coll = self._ddl_map_collation(ctx, coll, f"{t.path}/options/mysql/collation")
            if charset:
                out.append(f"DEFAULT CHARSET={ctx.word(charset, f'{op}/charset', 'character set')}")
            if coll:
                out.append(f"COLLATE={ctx.word(coll, f'{op}/collation', 'collation')}")
        else:
            out.append(f"DEFAULT CHARSET={self.table['collations'].get('charset', 'utf8mb4')}")
            out.append(f"COLLATE={self._ddl_default_collation()}")
        if ctx.same and opts.get("system_versioning"):
            out.append("WITH SYSTEM VERSIONING")
        if table.comment:
            limit = int(self.table["limits"]["table_comment_length"])
            if len(table.comment) > limit:
                ctx.report.add(f"{t.path}/comment", f"comment cut to {limit} characters", "comment-cut")
            out.append(f"COMMENT={self.literal(table.comment[:limit])}")
        if ctx.same_family:
            for key in sorted(opts):
                if key not in _TABLE_OPTIONS and key not in (
                    "charset",
                    "character_set",
                    "collation",
                    "auto_increment",
                    "comment",
                    "system_versioning",
                    "period_for_system_time",
                ):
                    ctx.report.add(
                        f"{t.path}/options/mysql/{key}",
                        f"table option {key} not re-emitted",
                        "table-option-dropped",
                        "approximation",
                    )
        part = self._ddl_partitioning(ctx, t)
        return (" " + " ".join(out) if out else "") + part

    def _table_engine(self, ctx: Context, table: m.Table, path: str | None = None) -> str | None:
        """The storage engine ``table`` is created with (None: the server's default, InnoDB). An engine
        the target does not have (MariaDB's Aria on MySQL: "Unknown storage engine") is left out,
        reported at ``path`` when given."""
        if not ctx.same_family:
            return None
        engine = table.options.get("mysql", {}).get("engine")
        if not engine:
            return None
        engine = ctx.word(engine, path or "/", "table option ENGINE")  # a crafted value is refused, not left out
        known = {e.lower(): e for e in self.table.get("capabilities", {}).get("storage_engines", [])}
        if known and str(engine).lower() not in known:
            if path:
                ctx.report.add(
                    path,
                    f"storage engine {engine} not in {'MariaDB' if self.is_mariadb else 'MySQL'}; "
                    "the server's default (InnoDB) used",
                    "storage-engine-default",
                    "approximation",
                )
            return None
        return str(engine)

    def ddl_keeps_partitioning(self, ctx: Context, t: TableInfo) -> bool:
        p = t.table.partitioning
        return p is not None and ctx.same_family and (self.is_mariadb or p.method.upper() != "SYSTEM_TIME")

    def _ddl_partitioning(self, ctx: Context, t: TableInfo) -> str:
        p = t.table.partitioning
        if p is None or not ctx.same_family:
            return ""
        pp = f"{t.path}/partitioning"
        method = ctx.verbatim(p.method, f"{pp}/method", "partitioning method").upper()
        if method == "SYSTEM_TIME" and not self.is_mariadb:
            ctx.report.add(
                f"{t.path}/partitioning",
                "SYSTEM_TIME partitioning dropped (MariaDB only)",
                "partitioning-dropped",
                "approximation",
            )
            return ""
        expression = ctx.verbatim(p.expression, f"{pp}/expression", "partition key", lists=True) if p.expression else ""
        sql = f"\nPARTITION BY {method}" + (f" ({expression})" if expression else "")
        if p.subpartitioning:
            sql += f" SUBPARTITION BY {ctx.verbatim(p.subpartitioning, f'{pp}/subpartitioning', 'subpartitioning', lists=True)}"
        if p.partitions:
            sql += (
                " ("
                + ", ".join(
                    self._ddl_partition(ctx, method, x, f"{pp}/partitions/{i}") for i, x in enumerate(p.partitions)
                )
                + ")"
            )
        return sql

    def _ddl_partition(self, ctx: Context, method: str, part: m.Partition, path: str) -> str:
        sql = f"PARTITION {self.quote(part.name)}"
        if part.bound:
            bound = ctx.verbatim(part.bound, f"{path}/bound", "partition bound", lists=True)
            sql += f" {bound}" if method == "SYSTEM_TIME" else f" VALUES {bound}"
        if part.comment:
            sql += f" COMMENT = {self.literal(part.comment)}"
        subs = part.options.get("mysql", {}).get("subpartitions") or []
        if subs:
            sql += " (" + ", ".join(f"SUBPARTITION {self.quote(x)}" for x in subs) + ")"
        return sql

    def ddl_comments(self, ctx: Context, t: TableInfo) -> list[Statement]:
        return []  # inline COMMENT clauses

    # -- views and routines ----------------------------------------------------------------------
    def ddl_strip_source_schema(self, ctx: Context, schema: m.Schema, sql: str) -> str:
        sql = _DEFINER.sub("", sql, count=1)
        target = ctx.schema_names.get(schema.name)
        if target != schema.name:
            sql = sql.replace(f"{self.quote(schema.name)}.", f"{self.quote(target)}." if target else "")
        return sql

    def ddl_routine(
        self, ctx: Context, schema: m.Schema, r: m.Routine, tschema: str | None, path: str
    ) -> list[Statement]:
        return self._with_sql_mode(ctx, r.options, self._routine_statements(ctx, schema, r, tschema, path), path)

    def ddl_trigger(
        self, ctx: Context, schema: m.Schema, trg: m.Trigger, tschema: str | None, path: str
    ) -> list[Statement]:
        return self._with_sql_mode(ctx, trg.options, self._trigger_statements(ctx, schema, trg, tschema, path), path)

    def ddl_event(self, ctx: Context, schema: m.Schema, ev: m.Event, tschema: str | None, path: str) -> list[Statement]:
        return self._with_sql_mode(ctx, ev.options, self._event_statements(ctx, schema, ev, tschema, path), path)

    def _with_sql_mode(self, ctx: Context, options: dict[str, Any], out: list[Statement], path: str) -> list[Statement]:
        """On MySQL or MariaDB, create the object under its own recorded ``sql_mode`` (part of its
        meaning: zero dates, strictness, ``||``, division by zero...), then restore the session's.
        Words of the mode the target does not know are left out and reported."""
        mode = options.get("mysql", {}).get("sql_mode")
        if not (ctx.same_family and out and isinstance(mode, str)):
            return out
        known = {w.upper() for w in self.table.get("capabilities", {}).get("sql_modes", [])}
        words = [w.strip() for w in mode.split(",") if w.strip()]
        kept = [w for w in words if not known or w.upper() in known]
        for w in words:
            if w not in kept:
                ctx.report.add(
                    f"{path}/options/mysql/sql_mode",
                    f"sql_mode {w} left out ({'MariaDB' if self.is_mariadb else 'MySQL'} {self.server_version} "
                    f"does not know it); created under {','.join(kept) or 'an empty sql_mode'}",
                    "sql-mode-word",
                    "approximation" if w.upper() == "NO_AUTO_CREATE_USER" else "loss",
                )
        return [
            Statement("SET @dbjson_sql_mode = @@SESSION.sql_mode", "session", "session"),
            Statement(f"SET SESSION sql_mode = {self.literal(','.join(kept))}", "session", "session"),
            *out,
            Statement("SET SESSION sql_mode = @dbjson_sql_mode", "session", "session"),
        ]

    def _routine_statements(
        self, ctx: Context, schema: m.Schema, r: m.Routine, tschema: str | None, path: str
    ) -> list[Statement]:
        if r.definition:
            return super().ddl_routine(ctx, schema, r, tschema, path)
        q = self.qualify(tschema, r.name)
        if r.kind == "procedure":
            args = ", ".join(f"{a.mode} {self.quote(a.name or '')} {a.native}" for a in r.arguments)
        else:
            args = ", ".join(f"{self.quote(a.name or '')} {a.native}" for a in r.arguments)
        sql = f"CREATE {r.kind.upper()} {q}({args})"
        if r.kind == "function" and r.returns:
            sql += f" RETURNS {r.returns}"
        opts = r.options.get("mysql", {})
        sql += "\n  DETERMINISTIC" if r.deterministic else "\n  NOT DETERMINISTIC"
        if opts.get("sql_data_access"):
            sql += f" {opts['sql_data_access']}"
        if r.security:
            sql += f" SQL SECURITY {r.security}"
        if r.comment:
            sql += f" COMMENT {self.literal(r.comment)}"
        return [Statement(f"{sql}\n{r.body}", "routine", q)]

    def _trigger_statements(
        self, ctx: Context, schema: m.Schema, trg: m.Trigger, tschema: str | None, path: str
    ) -> list[Statement]:
        if trg.definition:
            return super().ddl_trigger(ctx, schema, trg, tschema, path)
        table = self.qualify(*ctx.table_names.get((schema.name, trg.table), (tschema, trg.table)))
        q = self.qualify(tschema, trg.name)
        previous = [
            x
            for x in schema.triggers
            if x.table == trg.table
            and x.timing == trg.timing
            and x.events == trg.events
            and (x.order or 0) < (trg.order or 0)
        ]
        follows = f" FOLLOWS {self.quote(max(previous, key=lambda x: x.order or 0).name)}" if previous else ""
        sql = f"CREATE TRIGGER {q} {trg.timing} {' OR '.join(trg.events)} ON {table} FOR EACH ROW{follows}\n{trg.body}"
        return [Statement(sql, "trigger", q, table)]

    def _event_statements(
        self, ctx: Context, schema: m.Schema, ev: m.Event, tschema: str | None, path: str
    ) -> list[Statement]:
        if ev.definition:
            return super().ddl_event(ctx, schema, ev, tschema, path)
        q = self.qualify(tschema, ev.name)
        status = {"ENABLED": "ENABLE", "DISABLED": "DISABLE"}.get(ev.status.upper(), "DISABLE ON SLAVE")
        schedule = ctx.verbatim(ev.schedule, f"{path}/schedule", "event schedule")
        completion = {"PRESERVE": "PRESERVE", "NOT PRESERVE": "NOT PRESERVE"}.get(ev.on_completion.upper())
        if completion is None:
            raise TranslationError(
                "event on_completion refused", pointer=f"{path}/on_completion", value=ev.on_completion
            )
        sql = f"CREATE EVENT {q} ON SCHEDULE {schedule} ON COMPLETION {completion} {status}"
        if ev.comment:
            sql += f" COMMENT {self.literal(ev.comment)}"
        return [Statement(f"{sql}\nDO {ev.body}", "event", q)]

    def ddl_view_sql(self, ctx: Context, view: m.View, qname: str, cols: str, body: str, path: str) -> str:
        opts = view.options.get("mysql", {}) if ctx.same_family else {}
        head = "CREATE"
        if opts.get("algorithm"):
            head += f" ALGORITHM={ctx.word(opts['algorithm'], f'{path}/options/mysql/algorithm', 'view algorithm')}"
        if opts.get("security"):
            head += f" SQL SECURITY {ctx.word(opts['security'], f'{path}/options/mysql/security', 'view security')}"
        if view.materialized:
            ctx.report.add(
                f"{path}/materialized", "materialized view created as a plain view", "matview-plain", "approximation"
            )
        tail = f" WITH {view.check_option.upper()} CHECK OPTION" if view.check_option else ""
        return f"{head} VIEW {qname}{cols} AS {body}{tail}"

    def ddl_view(self, ctx: Context, schema: m.Schema, view: m.View, tschema: str | None, path: str) -> list[Statement]:
        if engine_family(view.dialect or ctx.source) == "mysql" and not ctx.same:
            body = ctx.verbatim(
                view.definition.strip().rstrip(";"), f"{path}/definition", "view definition", statement=True
            )
            body = self.ddl_strip_source_schema(ctx, schema, body)
            qname = self.qualify(tschema, ctx.view_names.get((schema.name, view.name), view.name))
            cols = f" ({', '.join(self.quote(c) for c in view.columns)})" if view.columns else ""
            return [
                Statement(
                    self.ddl_view_sql(ctx, view, qname, cols, body, path), "view", qname, optional=True, path=path
                )
            ]
        return super().ddl_view(ctx, schema, view, tschema, path)

    # -- applying --------------------------------------------------------------------------------
    def ddl_script_statement(self, stmt: Statement) -> str:
        if stmt.kind in ("routine", "trigger", "event") and ";" in stmt.sql:
            return f"DELIMITER $$\n{stmt.sql.rstrip()}$$\nDELIMITER ;"
        return stmt.sql.rstrip() + ";"

    def ddl_drop_statements(self, plan: DdlPlan) -> list[Statement]:
        out = [Statement("SET FOREIGN_KEY_CHECKS = 0", "session", "session")]
        out += super().ddl_drop_statements(plan)
        out += [
            Statement(f"DROP SEQUENCE IF EXISTS {s.object}", "drop", s.object)
            for s in plan.pre_data
            if s.kind == "sequence"
        ]
        out.append(Statement("SET FOREIGN_KEY_CHECKS = 1", "session", "session"))
        return out

    def ddl_undo_statements(self, created: list[Statement]) -> list[Statement]:
        drops = super().ddl_undo_statements(created)
        if not drops:
            return []
        return [
            Statement("SET FOREIGN_KEY_CHECKS = 0", "session", "session"),
            *drops,
            Statement("SET FOREIGN_KEY_CHECKS = 1", "session", "session"),
        ]

    def ddl_existing_objects(self, conn: Any, plan: DdlPlan) -> set[str]:
        with conn.cursor() as cur:
            cur.execute("SELECT DATABASE()")
            current = cur.fetchone()[0]
            cur.execute("SELECT table_schema, table_name FROM information_schema.tables")
            rows = cur.fetchall()
        present = set()
        for s, n in rows:
            present.add(self.qualify(s, n))
            if s == current:
                present.add(self.quote(n))
        return present

    # -- schema diff: ALTER rendering (dbjson diff --ddl) --------------------------------------------
    def ddl_alter_column_sql(
        self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, coldef: str, fields: set[str]
    ) -> list[str]:
        """MODIFY COLUMN with the whole new definition (MySQL has no per-attribute ALTER for most)."""
        return [f"ALTER TABLE {t.qname} MODIFY COLUMN {coldef}"]

    def ddl_drop_constraint_sql(self, qtable: str, kind: str, name: str | None) -> str:
        if kind == "primary_key":
            return f"ALTER TABLE {qtable} DROP PRIMARY KEY"
        if kind == "foreign_key":
            return f"ALTER TABLE {qtable} DROP FOREIGN KEY {self.quote(name or '')}"
        if kind == "unique":
            return f"ALTER TABLE {qtable} DROP INDEX {self.quote(name or '')}"
        return super().ddl_drop_constraint_sql(qtable, kind, name)

    def ddl_drop_sql(
        self, kind: str, schema: str | None, name: str, table: str | None = None, signature: str | None = None
    ) -> str:
        if kind == "index":
            return f"DROP INDEX {self.quote(name)} ON {table}"
        return super().ddl_drop_sql(kind, schema, name, table, signature)

    def ddl_table_comment_sql(self, qtable: str, comment: str | None) -> str:
        return f"ALTER TABLE {qtable} COMMENT = {self.literal(comment or '')}"


_NUMBER = re.compile(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*")
_DATE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.\d*)?)?)?\s*")


def literal_default_problem(value: str, typ: m.Type) -> str | None:
    """Why a MySQL/MariaDB column of standard type ``typ`` (the target's) refuses the literal default
    ``value`` (error 1067, "Invalid default value"), or None when it takes it. Only what the server
    refuses under dbjson's DDL session (zero dates and zero date parts are allowed there)."""
    from decimal import Decimal, InvalidOperation

    kind = typ.kind
    if kind in ("integer", "decimal", "float", "year"):
        if re.fullmatch(r"0x[0-9a-fA-F]+|[bB]'[01]*'", value.strip()):
            return None
        if not _NUMBER.fullmatch(value):
            return f"{value[:40]!r} is not a number"
        try:
            num = Decimal(value.strip())
        except InvalidOperation:
            return f"{value[:40]!r} is not a number"
        if kind == "integer" and typ.bits:
            lo, hi = (0, (1 << typ.bits) - 1) if typ.unsigned else (-(1 << (typ.bits - 1)), (1 << (typ.bits - 1)) - 1)
            rounded = num.to_integral_value()
            if not lo <= rounded <= hi:
                return f"{value.strip()} is outside the column's range {lo}..{hi}"
        if kind == "decimal" and typ.precision is not None:
            whole = typ.precision - (typ.scale or 0)
            if abs(num) >= Decimal(10) ** whole:
                return f"{value.strip()} has more than {whole} integer digit(s) (decimal({typ.precision},{typ.scale or 0}))"
            if typ.unsigned and num < 0:
                return f"{value.strip()} is negative (unsigned)"
        if kind == "float" and typ.bits == 32 and abs(num) > Decimal("3.402823466E+38"):
            return f"{value.strip()} is outside the range of a FLOAT"
        if kind == "year" and not (num == 0 or 1901 <= num <= 2155):
            return f"{value.strip()} is outside YEAR's range 1901..2155"
        return None
    if kind in ("char", "varchar") and typ.length is not None and len(value) > typ.length:
        return f"it has {len(value)} characters; the column holds {typ.length}"
    if kind in ("binary", "varbinary") and typ.length is not None:
        if not re.fullmatch(r"0x[0-9a-fA-F]*", value.strip()) and len(value.encode("utf-8")) > typ.length:
            return f"it has {len(value.encode('utf-8'))} bytes; the column holds {typ.length}"
    if kind == "enum" and typ.values and value.rstrip(" ").lower() not in {v.rstrip(" ").lower() for v in typ.values}:
        return "it is not one of the column's ENUM values"
    if kind in ("date", "timestamp"):
        if value.strip().lower().startswith("0000-00-00"):
            return None
        mt = _DATE.fullmatch(value)
        if not mt:
            return f"{value[:40]!r} is not a date" + (" and time" if kind == "timestamp" else "")
        y, mo, d = int(mt.group(1)), int(mt.group(2)), int(mt.group(3))
        hh, mi, ss = (int(mt.group(i) or 0) for i in (4, 5, 6))
        if mo > 12 or hh > 23 or mi > 59 or ss > 59:
            return f"{value.strip()!r} is not a valid date" + (" and time" if kind == "timestamp" else "")
        if mo and d:
            import calendar

            if d > calendar.monthrange(y or 2000, mo)[1]:
                return f"{value.strip()!r} is not a valid date"
    return None


def _fk_standard(ctx: Context, t: TableInfo, fk: m.ForeignKey) -> bool:
    """Whether a foreign key's referenced columns are exactly the primary key or a unique key of the
    referenced table (what MySQL 8.4+ requires by default)."""
    try:
        ref = ctx.db.schema(fk.ref_schema or t.schema.name).table(fk.ref_table)
    except KeyError:
        return True
    wanted = set(fk.ref_columns)
    keys = [set(ref.primary_key.columns)] if ref.primary_key else []
    keys += [set(u.columns) for u in ref.uniques]
    keys += [{p.column or "" for p in ix.parts} for ix in ref.indexes if ix.unique and not ix.where]
    return wanted in keys


_CHECK_TOKEN = re.compile(r"('(?:[^']|'')*')|`((?:[^`]|``)+)`|\"((?:[^\"]|\"\")+)\"|([A-Za-z_][A-Za-z0-9_$]*)")


def _check_columns(chk: m.Check, table: m.Table) -> set[str]:
    """The (lower-cased) names of ``table``'s columns that a check mentions (string literals skipped)."""
    names = {c.name.lower() for c in table.columns}
    used = {chk.column.lower()} if chk.column else set()
    for lit_, bq, dq, bare in _CHECK_TOKEN.findall(chk.expression):
        del lit_
        word = (bq.replace("``", "`") if bq else dq.replace('""', '"') if dq else bare).lower()
        if word in names:
            used.add(word)
    return used & names


def _auto_increment_column(table: m.Table) -> str | None:
    """The one column of ``table`` that gets AUTO_INCREMENT: its primary key's identity column, else
    its first identity column (in column order)."""
    idents = [c.name for c in table.columns if c.identity is not None and c.generated is None]
    if table.primary_key:
        for name in table.primary_key.columns:
            if name in idents:
                return name
    return idents[0] if idents else None
