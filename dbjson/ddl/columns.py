"""Column definitions: the target type of each column (type rules, native spellings), its
NOT NULL, default, generated expression, identity, collation and comment (:class:`ColumnDDL`)."""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .. import model as m
from .context import Context, engine_family
from .plan import Statement, parenthesized
from .tableinfo import DDLCore, TableInfo, key_demand
from .types import TypeChoice, complete_type, find_rule, result_type

NUMERIC_KINDS = {"integer", "decimal", "float", "year", "money"}
BINARY_KINDS = {"binary", "varbinary", "blob"}


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


class ColumnDDL(DDLCore):
    """The column clauses of CREATE TABLE (and of ALTER TABLE ... ADD COLUMN)."""

    def ddl_column_type(self, ctx: Context, t: TableInfo, col: m.Column, path: str) -> TypeChoice:
        """The target type of a column: ``native.raw`` on the same engine, else the type rules."""
        if ctx.same and col.native.engine == self.name:
            ctx.type_spelling(col.native.raw, f"{path}/native/raw", table=t.table.name, column=col.name)
            return TypeChoice(self.ddl_native_type(ctx, t, col), col.type, rule="native")
        ref = self._referenced_column(ctx, t, col) if self.table.get("capabilities", {}).get("fk_same_types") else None
        if ref is not None:
            rt, rcol, rpath = ref
            choice = self.ddl_column_type(ctx, rt, rcol, rpath)
            # A referenced type too long for a key of this table (a composite primary key over the
            # foreign key column) is not followed: the column gets its own, shortened string type
            # below (string lengths need not match across a foreign key).
            if col.name not in t.key_columns or t.key_fits(col.name, key_demand(choice.type, None)):
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
                                return self.ddl_table_info(ctx, schema, table, path), c, f"{path}/columns/{ci}"
        return None

    def ddl_native_type(self, ctx: Context, t: TableInfo, col: m.Column) -> str:
        return col.native.raw

    def map_type(
        self, ctx: Context, typ: m.Type, t: TableInfo, col: str, path: str, in_key: bool, identity: bool
    ) -> TypeChoice:
        """Apply the target's ``[[types.<kind>]]`` rules to a standard type."""
        typ = complete_type(typ)
        env: dict[str, Any] = {
            "in_key": in_key,
            "identity": identity,
            "source": ctx.source,
            "source_family": ctx.source_family,
            "target_version": self.version,
        }
        share = t.key_bytes.get(col) if in_key else None
        binary = typ.kind in ("binary", "varbinary", "blob")
        env["key_bytes"] = share
        env["row_overflow"] = col in t.row_overflow
        env["key_length"] = share // 4 if share is not None else None
        env["too_long_for_key"] = share is not None and (
            typ.length is None or typ.length * (1 if binary else 4) > share
        )
        # PostgreSQL 15 takes numeric(5,10) (values below 10^-5): MySQL wants precision >= scale
        env["scale_over_precision"] = typ.precision is not None and (typ.scale or 0) > typ.precision
        # the longest ENUM label (PostgreSQL takes 63 bytes, MySQL 255 characters)
        env["enum_label_bytes"] = max((len(v.encode("utf-8")) for v in typ.values), default=0)
        env["enum_label_chars"] = max((len(v) for v in typ.values), default=0)
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
            result = m.replace(result, element=choice.type)
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
            col.default is not None
            and col.generated is None
            and (
                _zero_date_dropped(ctx, col, choice.type, parts, path)
                or _infinite_date_dropped(ctx, col, choice.type, parts, path)
            )
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
            out.append(f"COLLATE {self.ddl_collation_sql(ctx, t.schema.name, t.tschema, p.collation)}")
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
                values: list[Any] = [_number(v) if elem in NUMERIC_KINDS else v for v in items]
                return self.ddl_list_literal(values, choice.type)
            return self.ddl_literal_default(ctx, d.value, choice.type, path)
        if d.kind == "expression" and not ctx.same_family and choice.type.kind in BINARY_KINDS:
            hexed = re.fullmatch(r"0x([0-9a-fA-F]*)|[xX]'([0-9a-fA-F]*)'", d.value.strip())
            if hexed is not None and len(hexed.group(1) or hexed.group(2) or "") % 2 == 0:
                return self.ddl_bytes_literal(bytes.fromhex(hexed.group(1) or hexed.group(2) or ""))
        if d.kind == "expression" and not ctx.same_family and d.dialect:
            from .expr import generator_default  # lazy: sqlglot (see Context.expr)

            fn = generator_default(d.value, d.dialect)
            if fn is not None:
                d = m.Default(kind="function", value=fn)
        if d.kind == "function":
            sql = self.ddl_function_default(ctx, d, choice.type)
            if sql is None:
                ctx.report.add(
                    path, f"default {d.value}() has no {self.name} counterpart; dropped", "default-function-dropped"
                )
            return sql
        if d.dialect and d.dialect != self.name and engine_family(d.dialect) == self.family and self.family != "mysql":
            return self.ddl_expression_default(d.value, choice.type)
        sql = ctx.expr(d.value, d.dialect, path, "default expression", constant=True)
        return None if sql is None else self.ddl_expression_default(sql, choice.type)

    def ddl_literal_default(self, ctx: Context, value: str, typ: m.Type, path: str) -> str:
        """A literal default for a column of standard type ``typ`` (the target type)."""
        if typ.kind in BINARY_KINDS and not ctx.same_family:
            return self.ddl_bytes_literal(_literal_bytes(ctx.source_family, value))
        if typ.kind == "boolean":
            low = value.strip().lower()
            if low in ("1", "true", "t", "b'1'", "yes", "on"):
                return self.ddl_bool(True)
            if low in ("0", "false", "f", "b'0'", "no", "off"):
                return self.ddl_bool(False)
        bits = re.fullmatch(r"[bB]'([01]*)'|([01]+)", value.strip())
        if typ.kind == "bit" and bits:
            return self.ddl_bit_literal(bits.group(1) if bits.group(1) is not None else bits.group(2))
        if typ.kind in NUMERIC_KINDS and re.fullmatch(r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?", value.strip()):
            return value.strip()
        return self.literal(value)

    def ddl_bool(self, value: bool) -> str:
        return "TRUE" if value else "FALSE"

    def ddl_list_literal(self, items: list[Any], typ: m.Type) -> str:
        """A default holding a list of strings (a SET value) for the target's list type."""
        return self.literal(json.dumps(items, separators=(",", ":")))

    def ddl_bit_literal(self, bits: str) -> str:
        """A bit-string literal from a string of 0/1."""
        return self.literal(bits)

    def ddl_bytes_literal(self, data: bytes) -> str:
        """A binary-string literal (a default of a binary column written as ``0x…`` in MySQL)."""
        return f"X'{data.hex().upper()}'"

    def ddl_function_default(self, ctx: Context, d: m.Default, typ: m.Type) -> str | None:
        return {
            "current_timestamp": "CURRENT_TIMESTAMP",
            "current_date": "CURRENT_DATE",
            "current_time": "CURRENT_TIME",
        }.get(d.value)

    def ddl_expression_default(self, sql: str, typ: m.Type) -> str:
        return parenthesized(sql)

    def ddl_inline_check_ok(self, ctx: Context, t: TableInfo, col: m.Column, chk: m.Check) -> bool:
        """Whether a column-level check is declared on its column (same engine)."""
        return True


def _literal_bytes(source_family: str, value: str) -> bytes:
    """The bytes of a binary column's literal default: PostgreSQL's documents hold bytea's text form
    (``\\x6162``), MySQL's and SQLite's the bytes as text."""
    if source_family == "postgresql" and re.fullmatch(r"\\x([0-9a-fA-F]{2})*", value):
        return bytes.fromhex(value[2:])
    return value.encode("utf-8", "surrogateescape")


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


def _infinite_date_dropped(ctx: Context, col: m.Column, target: m.Type, parts: ColumnParts, path: str) -> bool:
    """PostgreSQL's ``DEFAULT 'infinity'`` / ``'-infinity'`` (a validity period's open end) on a target
    whose dates cannot be infinite: no default (its values load as NULL under ``--zero-dates null``,
    as zero dates do, so NOT NULL goes too), reported. PostgreSQL itself turns 'epoch' into a date."""
    d = col.default
    if (
        d is None
        or d.kind != "literal"
        or ctx.engine.capabilities.holds_infinite_dates
        or target.kind not in ("date", "timestamp")
        or d.value.strip().lower() not in ("infinity", "-infinity")
    ):
        return False
    ctx.report.add(
        f"{path}/default",
        f"default {d.value!r} dropped ({ctx.engine.name} dates cannot be infinite)",
        "infinite-date-default",
    )
    if parts.not_null:
        parts.not_null = False
        ctx.report.add(
            f"{path}/nullable", "NOT NULL dropped: infinite dates are imported as NULL", "infinite-date-not-null"
        )
    return True


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


def _check_body(chk: m.Check) -> str:
    expr = re.sub(r"(?is)^\s*CHECK\s*", "", chk.expression).strip()
    return parenthesized(expr)
