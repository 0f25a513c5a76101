"""MySQL/MariaDB reflection, step 2: the tables (columns, defaults, keys, indexes, checks, table
options) assembled from the catalog rows of :class:`~.catalog.CatalogReader`.
"""

from __future__ import annotations

import re
from typing import Any

from ... import model as m
from .catalog import Row
from .sqltext import NUMBER_RE, parse_string_literal, strip_outer_parens, unescape_is, unqualify
from .typemap import column_type

_FUNC_DEFAULTS = (
    (re.compile(r"^(current_timestamp|now|localtimestamp|localtime)(\((\d*)\))?$"), "current_timestamp"),
    (re.compile(r"^(current_date|curdate)(\(()\))?$"), "current_date"),
    (re.compile(r"^(current_time|curtime)(\((\d*)\))?$"), "current_time"),
    (re.compile(r"^(uuid)(\(()\))$"), "uuid"),
)
_ON_UPDATE = re.compile(r"on update (current_timestamp|now|localtimestamp|localtime)(?:\((\d*)\))?", re.IGNORECASE)
_STRING_LITERAL = re.compile(r"^(_[a-z0-9]+)?'", re.IGNORECASE)


class TableAssembler:
    """Builds the model's tables of one server (``name``: the engine, the dialect of expressions)."""

    def __init__(self, name: str, is_mariadb: bool) -> None:
        self.name = name
        self.is_mariadb = is_mariadb

    # -- tables -------------------------------------------------------------------------------
    def table(
        self,
        row: Row,
        column_rows: list[Row],
        check_rows: list[Row],
        index_rows: dict[str, list[Row]],
        fks: list[m.ForeignKey],
        partitioning: m.Partitioning | None,
        srids: dict[str, int],
        charsets: dict[str, str],
    ) -> m.Table:
        """One table from its catalog rows (those of :class:`~.catalog.CatalogReader`, by table)."""
        json_columns = self._mariadb_json_columns(column_rows, check_rows) if self.is_mariadb else set()
        columns = tuple(self._column(r, row, r["name"] in json_columns, srids.get(r["name"])) for r in column_rows)
        checks = tuple(
            sorted(
                (self._check(r) for r in check_rows if not (r["level"] == "Column" and r["name"] in json_columns)),
                key=lambda c: c.name,
            )
        )
        primary_key: m.PrimaryKey | None = None
        indexes: list[m.Index] = []
        uniques: list[m.UniqueConstraint] = []
        for name in sorted(index_rows):
            parts = index_rows[name]
            if name == "PRIMARY":
                primary_key = m.PrimaryKey(columns=tuple(p["col"] for p in parts))
                continue
            index = self._index(name, parts)
            if index.constraint:
                uniques.append(
                    m.UniqueConstraint(
                        name=name, columns=tuple(p.column or "" for p in index.parts), comment=index.comment
                    )
                )
            indexes.append(index)
        return m.Table(
            name=row["name"],
            columns=columns,
            primary_key=primary_key,
            uniques=tuple(uniques),
            foreign_keys=tuple(fks),
            checks=checks,
            indexes=tuple(indexes),
            comment=row["comment"] or None,
            partitioning=partitioning,
            options={"mysql": self._table_options(row, columns, charsets)},
            row_estimate=row["nrows"],
        )

    def _table_options(self, row: Row, columns: tuple[m.Column, ...], charsets: dict[str, str]) -> dict[str, Any]:
        opts: dict[str, Any] = {"engine": row["engine"]}
        if row["coll"]:
            opts["collation"] = row["coll"]
            if row["coll"] in charsets:
                opts["charset"] = charsets[row["coll"]]
        rest = []
        for token in (row["opts"] or "").split():
            key, _, value = token.partition("=")
            if key.lower() == "partitioned":
                continue
            if key.lower() == "row_format":
                opts["row_format"] = value.upper()
            else:
                rest.append(token)
        if rest:
            opts["create_options"] = " ".join(rest)
        if row["type"] == "SYSTEM VERSIONED":
            opts["system_versioning"] = True
            period = {
                c.options["mysql"]["row_period"]: c.name for c in columns if "row_period" in c.options.get("mysql", {})
            }
            if period:
                opts["period_for_system_time"] = [period["start"], period["end"]]
        return opts

    @staticmethod
    def _mariadb_json_columns(column_rows: list[Row], check_rows: list[Row]) -> set[str]:
        """MariaDB JSON = LONGTEXT with the automatic column CHECK ``json_valid(`col`)``."""
        longtext = {r["name"] for r in column_rows if r["data_type"] == "longtext"}
        return {
            r["name"]
            for r in check_rows
            if r["level"] == "Column"
            and r["name"] in longtext
            and r["clause"].strip() == "json_valid(`" + r["name"].replace("`", "``") + "`)"
        }

    def _check(self, r: Row) -> m.Check:
        clause = r["clause"] if self.is_mariadb else unescape_is(r["clause"])
        return m.Check(
            name=r["name"],
            expression=strip_outer_parens(clause),
            dialect=self.name,
            enforced=r["enforced"] == "YES",
            column=r["name"] if r["level"] == "Column" else None,
        )

    def _index(self, name: str, rows: list[Row]) -> m.Index:
        first = rows[0]
        kind = (first["type"] or "BTREE").lower()
        parts = []
        for r in rows:
            expr = unescape_is(r["expr"]) if r["expr"] else None
            parts.append(
                m.IndexPart(
                    column=r["col"] if not expr else None,
                    expression=expr,
                    length=r["sub_part"] if kind not in ("spatial", "fulltext") else None,
                    descending=r["coll"] == "D",
                )
            )
        unique = not first["non_unique"]
        plain = all(p.column and p.length is None and not p.descending for p in parts)
        visible = first["visible"] == "YES" and first["ignored"] != "YES"
        return m.Index(
            name=name,
            parts=tuple(parts),
            unique=unique,
            kind=kind,
            visible=visible,
            comment=first["comment"] or None,
            dialect=self.name if any(p.expression for p in parts) else None,
            constraint=unique and plain and kind == "btree" and visible,
            options={"mysql": {"parser": first["parser"]}} if "parser" in first else {},
        )

    # -- columns ------------------------------------------------------------------------------
    def _column(self, r: Row, table: Row, is_json: bool, srid: int | None) -> m.Column:
        extra = (r["extra"] or "").lower()
        typ, native = column_type(r, is_json, srid, engine=self.name, mariadb=self.is_mariadb)
        generated = None
        options: dict[str, Any] = {}
        if r["gen_expr"] in ("ROW START", "ROW END") and self.is_mariadb:  # system-versioning period columns
            options["row_period"] = "start" if r["gen_expr"] == "ROW START" else "end"
        elif "generated" in extra and r["gen_expr"]:
            expr = r["gen_expr"] if self.is_mariadb else unescape_is(r["gen_expr"])
            generated = m.Generated(expression=strip_outer_parens(expr), stored="stored" in extra, dialect=self.name)
        identity = None
        if "auto_increment" in extra:
            identity = m.Identity(kind="auto_increment", next_value=int(table["ai"]) if table["ai"] else None)
        on_update = None
        if (mo := _ON_UPDATE.search(r["extra"] or "")) is not None:
            on_update = m.Default(kind="function", value="current_timestamp", fsp=_fsp(mo.group(2)))
        if "without system versioning" in extra:
            options["without_system_versioning"] = True
        string_like = typ.kind in ("char", "varchar", "text", "enum", "set")
        return m.Column(
            name=r["name"],
            ordinal=int(r["ordinal"]),
            type=typ,
            native=native,
            nullable=r["nullable"] == "YES",
            default=None if generated else self._default(r, typ),
            identity=identity,
            generated=generated,
            charset=r["cs"] if string_like else None,
            collation=r["coll"] if string_like else None,
            comment=r["comment"] or None,
            invisible="invisible" in extra,
            on_update=on_update,
            options={"mysql": options} if options else {},
        )

    def _default(self, r: Row, typ: m.Type) -> m.Default | None:
        raw = r["dflt"]
        if raw is None:
            return None
        if "binary_default" in r:
            return _bytes_default(r["binary_default"], self.name)
        if typ.kind == "bit" and raw.lower().startswith("b'"):
            return m.Default(kind="literal", value=_bits_default(raw, typ.length))
        if self.is_mariadb:  # literals are quoted, except numbers; 'NULL' is an explicit DEFAULT NULL
            return None if raw == "NULL" else self.expression_default(raw, r["tschema"])
        if "default_generated" in (r["extra"] or "").lower():
            return self.expression_default(unescape_is(raw), r["tschema"])
        if typ.kind in ("enum", "set") and re.fullmatch(r"0x([0-9A-Fa-f]{2})*", raw) and raw not in typ.values:
            # an ENUM/SET of a binary-charset table (MediaWiki's): MySQL shows its default's bytes in hex
            return m.Default(kind="literal", value=bytes.fromhex(raw[2:]).decode("utf-8", "surrogateescape"))
        if typ.kind in ("date", "time", "timestamp") and not raw[:1].isdigit():  # CURRENT_TIMESTAMP on old tables
            return self.expression_default(raw, r["tschema"])
        return m.Default(kind="literal", value=raw)

    def expression_default(self, expr: str, schema: str) -> m.Default:
        """A well-known function, a literal written as an expression, or SQL without the qualifier
        of its own database (MariaDB prints ``nextval(`db`.`seq`)``)."""
        inner = strip_outer_parens(expr)
        low = inner.lower()
        for pattern, func in _FUNC_DEFAULTS:
            if (mo := pattern.match(low)) is not None:
                return m.Default(kind="function", value=func, fsp=_fsp(mo.group(3)))
        lit = _STRING_LITERAL.match(inner)
        if lit is not None:
            start = lit.end() - 1
            try:
                value, end = parse_string_literal(inner, start)
            except ValueError:
                end = -1
            if end == len(inner):
                return m.Default(kind="literal", value=value)
        if NUMBER_RE.match(inner):
            return m.Default(kind="literal", value=inner)
        return m.Default(kind="expression", value=unqualify(inner, schema), dialect=self.name)


def _fsp(digits: str | None) -> int | None:
    return int(digits) if digits else None


def _bytes_default(value: bytes, dialect: str) -> m.Default:
    """A binary default: a literal when it is printable UTF-8 text, else the hex literal ``0x…``."""
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and text.isprintable():
        return m.Default(kind="literal", value=text)
    return m.Default(kind="expression", value="0x" + value.hex().upper(), dialect=dialect)


def _bits_default(value: str, length: int | None) -> str:
    """``b'101'`` → the binary digits padded to the column's length."""
    digits = value[2:-1] if value.lower().startswith("b'") else format(int(value), "b")
    return digits.zfill(length or len(digits))
