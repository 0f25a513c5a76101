"""MySQL and MariaDB reflection: ``information_schema`` → :mod:`dbjson.model`.

Every catalog is read with one query per object kind per schema (columns, indexes, constraints,
foreign keys, partitions, views, routines, triggers, events), never one round trip per table, so a
schema with thousands of tables reflects in about a second. SQLAlchemy's Inspector is not used: it
parses ``SHOW CREATE TABLE`` and loses ON UPDATE, BIT defaults, functional and DESC key parts, NOT
ENFORCED checks, MariaDB JSON/INET/UUID, invisible columns, SRIDs and AUTO_INCREMENT counters (the
team's type reference, types.md §4.3). The few facts only ``SHOW CREATE`` has are read for the
objects that need them: FULLTEXT parsers, MySQL view algorithms, MariaDB sequence state.

Conventions of the produced model (besides the team contract):

* ``TINYINT(1)`` stays ``integer`` bits 8 with ``native.attrs["bool_hint"] = True``: the column may
  legally hold 2, so only a data check may turn it into a boolean.
* Integer display widths (``int(11)`` on MariaDB, ``ZEROFILL`` widths) are ``native.attrs
  ["display_width"]``; ``zerofill`` likewise; ``FLOAT(M,D)`` keeps ``attrs["precision"/"scale"]``.
* MariaDB ``JSON`` (``LONGTEXT`` + the automatic ``CHECK (json_valid(col))``) becomes kind ``json``
  with ``native.raw = "json"`` and no charset/collation, and that CHECK is not listed.
* A visible unique key over whole, ascending columns is a :class:`~dbjson.model.UniqueConstraint`
  (with the key's comment) plus its backing index (``constraint=True``); other unique keys (prefix,
  DESC, expression, invisible) are indexes only. The primary key is ``PrimaryKey(name=None)``.
* A BIT default is the string of exactly ``length`` binary digits (``b'101'`` on BIT(5) → ``00101``);
  a BINARY/VARBINARY/BLOB default is a literal when it is printable UTF-8, else ``0x…`` (expression).
* MySQL expression defaults that are a single string literal (``DEFAULT (_utf8mb4'x')``, required for
  TEXT/BLOB/JSON) become literals; other expressions keep their SQL without the outer parentheses.
* View bodies and default expressions lose the qualifier of their own schema (```db`.`t``` →
  ```t```; MariaDB writes ``nextval(`db`.`seq`)``), so they load into a database of another name;
  a view's column names are listed in ``View.columns``.
* MariaDB system versioning: ``options.mysql.system_versioning``, explicit period columns as
  ``period_for_system_time`` (table) and ``row_period`` start/end (column), ``WITHOUT SYSTEM
  VERSIONING`` columns as ``without_system_versioning``; ``PARTITION BY SYSTEM_TIME`` is method
  ``system_time`` with bounds ``HISTORY``/``CURRENT``.
* MariaDB sequences report ``next_not_cached_value`` as ``next_value`` (never below the true next
  value; a restarted server continues from there too).
* Grants keep only ``*.*`` and the reflected databases; ``IDENTIFIED …`` clauses are removed.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ... import model as m
from ...errors import UsageError

if TYPE_CHECKING:
    from ...connect import Target
    from ..interface import ReflectOptions

Row = dict[str, Any]

SYSTEM_SCHEMAS = ("information_schema", "mysql", "performance_schema", "sys")
SYSTEM_ACCOUNTS = ("mysql.infoschema", "mysql.session", "mysql.sys", "mariadb.sys")

_INT_BITS = {"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}
_TEXT_TIERS = {"tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": 4294967295}
_BLOB_TIERS = {"tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": 4294967295}
_BINARY_TYPES = ("binary", "varbinary", *_BLOB_TIERS)
_GEOMETRY = {
    "geometry": "geometry",
    "point": "point",
    "linestring": "linestring",
    "polygon": "polygon",
    "multipoint": "multipoint",
    "multilinestring": "multilinestring",
    "multipolygon": "multipolygon",
    "geomcollection": "geometrycollection",
    "geometrycollection": "geometrycollection",
}
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_FUNC_DEFAULTS = (
    (re.compile(r"^(current_timestamp|now|localtimestamp|localtime)(\((\d*)\))?$"), "current_timestamp"),
    (re.compile(r"^(current_date|curdate)(\(()\))?$"), "current_date"),
    (re.compile(r"^(current_time|curtime)(\((\d*)\))?$"), "current_time"),
    (re.compile(r"^(uuid)(\(()\))$"), "uuid"),
)
_ON_UPDATE = re.compile(r"on update (current_timestamp|now|localtimestamp|localtime)(?:\((\d*)\))?", re.IGNORECASE)
_STRING_LITERAL = re.compile(r"^(_[a-z0-9]+)?'", re.IGNORECASE)
_FULLTEXT_PARSER = re.compile(r"^\s*FULLTEXT KEY `((?:[^`]|``)+)` .*WITH PARSER `((?:[^`]|``)+)`", re.MULTILINE)
_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}


# ------------------------------------------------------------------------------------------------
# Small text helpers
# ------------------------------------------------------------------------------------------------


def _text(value: Any) -> Any:
    """Decode bytes from the catalog (some information_schema columns are binary)."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return value


def unescape_is(text: str) -> str:
    """Undo MySQL's extra escaping of expressions in information_schema (``\\'`` → ``'``, ``\\\\`` → ``\\``).

    MySQL stores default, generated, CHECK and functional-index expressions in
    information_schema as if they were the contents of a quoted string; SHOW CREATE TABLE prints
    them unescaped. MariaDB does not escape them.
    """
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "\\'":
            out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def parse_string_literal(text: str, start: int = 0) -> tuple[str, int]:
    """Parse the SQL string literal starting at ``text[start]`` (a quote); returns (value, end)."""
    quote = text[start]
    out: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
        elif ch == quote:
            if i + 1 < len(text) and text[i + 1] == quote:
                out.append(quote)
                i += 2
            else:
                return "".join(out), i + 1
        else:
            out.append(ch)
            i += 1
    raise ValueError(f"unterminated string literal in {text!r}")


def parse_value_list(column_type: str) -> tuple[str, ...]:
    """The labels of ``enum('a','b''c')`` / ``set(...)`` as written in ``COLUMN_TYPE``."""
    values: list[str] = []
    i = column_type.index("(") + 1
    while i < len(column_type):
        ch = column_type[i]
        if ch == "'":
            value, i = parse_string_literal(column_type, i)
            values.append(value)
        elif ch == ")":
            break
        else:
            i += 1
    return tuple(values)


def strip_outer_parens(expr: str) -> str:
    """``(a > 0)`` → ``a > 0`` when the outer parentheses enclose the whole expression."""
    s = expr.strip()
    while s.startswith("(") and s.endswith(")") and _closing_paren(s) == len(s) - 1:
        s = s[1:-1].strip()
    return s


def _closing_paren(s: str) -> int:
    depth = 0
    i = 0
    while i < len(s):
        ch = s[i]
        if ch in "'\"`":
            j = i + 1
            while j < len(s) and s[j] != ch:
                j += 2 if s[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


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


# ------------------------------------------------------------------------------------------------
# The reflector
# ------------------------------------------------------------------------------------------------


class MySQLReflector:
    """Reflection mixin of the MySQL and MariaDB engines (MariaDB differences: ``is_mariadb``)."""

    if TYPE_CHECKING:
        name: str
        server_version: str

        @property
        def is_mariadb(self) -> bool: ...

        @property
        def version(self) -> tuple[int, ...]: ...

    # information_schema columns of this server, (TABLE, COLUMN): older servers lack some of them
    _catalog_columns: frozenset[tuple[str, str]] = frozenset()

    def _pick(self, table: str, column: str, alias: str, fallback: str, prefix: str = "") -> str:
        """``prefix.COLUMN AS alias`` when this server's ``information_schema.TABLE`` has it, else the fallback."""
        expr = prefix + column if (table, column) in self._catalog_columns else fallback
        return f"{expr} AS {alias}"

    # -- entry point ------------------------------------------------------------------------------
    def reflect_database(self, conn: Any, target: Target, options: ReflectOptions) -> m.Database:
        """Reflect the selected databases (and, with ``options.grants``, accounts) into the model."""
        from ...model import now_utc
        from ...url import source_host

        cur = conn.cursor()
        try:
            if not self.is_mariadb and self.version >= (8,):
                cur.execute("SET SESSION information_schema_stats_expiry = 0")
            self._catalog_columns = frozenset(
                (r["t"].upper(), r["c"].upper())
                for r in _query(
                    cur,
                    "SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS"
                    " WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME IN"
                    " ('STATISTICS', 'COLUMNS', 'SCHEMATA', 'CHECK_CONSTRAINTS', 'TABLE_CONSTRAINTS', 'ROUTINES')",
                )
            )
            server = _query(cur, "SELECT @@GLOBAL.sql_mode AS sql_mode, @@lower_case_table_names AS lctn")[0]
            charsets = {
                r["coll"]: r["cs"]
                for r in _query(
                    cur, "SELECT COLLATION_NAME AS coll, CHARACTER_SET_NAME AS cs FROM information_schema.COLLATIONS"
                )
            }
            names = self._schema_names(cur, target, options)
            reflected = (self._reflect_schema(cur, name, options, charsets) for name in names)
            schemas = tuple(s for s in reflected if s is not None)
            users = self._reflect_users(cur, names) if options.grants else ()
        finally:
            cur.close()
        source = m.Source(
            engine=self.name,
            server_version=self.server_version,
            database=target.database or "",
            dumped_at=now_utc(),
            host=source_host(target.url),
            options={"mysql": {"sql_mode": server["sql_mode"], "lower_case_table_names": int(server["lctn"])}},
        )
        return m.Database(source=source, schemas=schemas, users=users)

    def _schema_names(self, cur: Any, target: Target, options: ReflectOptions) -> list[str]:
        existing = [r["name"] for r in _query(cur, "SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA")]
        if options.schemas:
            wanted = list(options.schemas)
        elif target.database:
            wanted = [target.database]
        else:
            return sorted(n for n in existing if n.lower() not in SYSTEM_SCHEMAS)
        missing = [n for n in wanted if n not in existing]
        if missing:
            raise UsageError(f"database {missing[0]!r} does not exist", hint="check the URL or --schema")
        return sorted(set(wanted))

    # -- one schema -----------------------------------------------------------------------------
    def _reflect_schema(
        self, cur: Any, schema: str, options: ReflectOptions, charsets: dict[str, str]
    ) -> m.Schema | None:
        """One database; None when it was dropped after the listing (a busy server)."""
        found = _query(
            cur,
            "SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS coll, "
            + self._pick("SCHEMATA", "SCHEMA_COMMENT", "comment", "NULL")
            + " FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s",
            schema,
        )
        if not found:
            return None
        sch = found[0]
        tables_rows = _query(
            cur,
            "SELECT TABLE_NAME AS name, TABLE_TYPE AS type, ENGINE AS engine, TABLE_ROWS AS nrows,"
            " AUTO_INCREMENT AS ai, TABLE_COLLATION AS coll, CREATE_OPTIONS AS opts,"
            " TABLE_COMMENT AS comment FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s",
            schema,
        )
        base = {
            r["name"]: r
            for r in tables_rows
            if r["type"] in ("BASE TABLE", "SYSTEM VERSIONED") and options.wants(schema, r["name"])
        }
        views = {r["name"]: r for r in tables_rows if r["type"] == "VIEW" and options.wants(schema, r["name"])}
        seqs = {r["name"]: r for r in tables_rows if r["type"] == "SEQUENCE" and options.wants(schema, r["name"])}

        columns = self._columns(cur, schema, set(base) | set(views))
        checks = self._checks(cur, schema, base)
        srids = self._mariadb_srids(cur, schema, columns) if self.is_mariadb else {}
        indexes = self._statistics(cur, schema, base)
        self._read_fulltext_parsers(cur, schema, indexes, columns)
        fks = self._foreign_keys(cur, schema, base)
        parts = self._partitions(cur, schema, [n for n, r in base.items() if "partitioned" in (r["opts"] or "")])

        tables = []
        for name in sorted(base):
            row = base[name]
            self._read_binary_defaults(cur, schema, name, columns.get(name, []))
            tables.append(
                self._table(
                    row,
                    columns.get(name, []),
                    checks.get(name, []),
                    indexes.get(name, {}),
                    fks.get(name, []),
                    parts.get(name),
                    srids.get(name, {}),
                    charsets,
                )
            )
        return m.Schema(
            name=schema,
            tables=tuple(tables),
            views=self._views(cur, schema, views, columns),
            sequences=self._sequences(cur, schema, seqs),
            routines=self._routines(cur, schema, (sch["cs"], sch["coll"])),
            triggers=self._triggers(cur, schema, set(base)),
            events=self._events(cur, schema),
            comment=sch.get("comment") or None,
            options={"mysql": {"charset": sch["cs"], "collation": sch["coll"]}},
        )

    # -- catalog queries (one per kind per schema) ----------------------------------------------
    def _columns(self, cur: Any, schema: str, tables: set[str]) -> dict[str, list[Row]]:
        srs = self._pick("COLUMNS", "SRS_ID", "srid", "NULL")
        rows = _query(
            cur,
            "SELECT TABLE_SCHEMA AS tschema, TABLE_NAME AS tname, COLUMN_NAME AS name, ORDINAL_POSITION AS ordinal,"
            " COLUMN_DEFAULT AS dflt, IS_NULLABLE AS nullable, DATA_TYPE AS data_type,"
            " CHARACTER_MAXIMUM_LENGTH AS char_len, NUMERIC_PRECISION AS num_prec,"
            " NUMERIC_SCALE AS num_scale, DATETIME_PRECISION AS dt_prec,"
            " CHARACTER_SET_NAME AS cs, COLLATION_NAME AS coll, COLUMN_TYPE AS column_type,"
            " EXTRA AS extra, GENERATION_EXPRESSION AS gen_expr, COLUMN_COMMENT AS comment,"
            f" {srs} FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s",
            schema,
        )
        out: dict[str, list[Row]] = defaultdict(list)
        for r in rows:
            if r["tname"] in tables:
                out[r["tname"]].append(r)
        for cols in out.values():
            cols.sort(key=lambda r: r["ordinal"])
        return out

    def _checks(self, cur: Any, schema: str, tables: dict[str, Row]) -> dict[str, list[Row]]:
        if ("CHECK_CONSTRAINTS", "CHECK_CLAUSE") not in self._catalog_columns:
            return {}  # MySQL < 8.0.16 parses CHECK and ignores it
        if ("CHECK_CONSTRAINTS", "TABLE_NAME") in self._catalog_columns:  # MariaDB
            sql = (
                "SELECT TABLE_NAME AS tname, CONSTRAINT_NAME AS name, "
                + self._pick("CHECK_CONSTRAINTS", "LEVEL", "level", "'Table'")
                + ", CHECK_CLAUSE AS clause, 'YES' AS enforced FROM information_schema.CHECK_CONSTRAINTS"
                " WHERE CONSTRAINT_SCHEMA = %s"
            )
        else:
            sql = (
                "SELECT tc.TABLE_NAME AS tname, tc.CONSTRAINT_NAME AS name, 'Table' AS level,"
                " cc.CHECK_CLAUSE AS clause, "
                + self._pick("TABLE_CONSTRAINTS", "ENFORCED", "enforced", "'YES'", "tc.")
                + " FROM information_schema.TABLE_CONSTRAINTS tc"
                " JOIN information_schema.CHECK_CONSTRAINTS cc"
                "   ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME"
                " WHERE tc.TABLE_SCHEMA = %s AND tc.CONSTRAINT_TYPE = 'CHECK'"
            )
        return _group(_query(cur, sql, schema), tables)

    def _statistics(self, cur: Any, schema: str, tables: dict[str, Row]) -> dict[str, dict[str, list[Row]]]:
        extra = ", ".join(
            (
                self._pick("STATISTICS", "IGNORED", "ignored", "'NO'"),
                self._pick("STATISTICS", "IS_VISIBLE", "visible", "'YES'"),
                self._pick("STATISTICS", "EXPRESSION", "expr", "NULL"),
            )
        )
        rows = _query(
            cur,
            "SELECT TABLE_NAME AS tname, INDEX_NAME AS name, NON_UNIQUE AS non_unique,"
            " SEQ_IN_INDEX AS seq, COLUMN_NAME AS col, COLLATION AS coll, SUB_PART AS sub_part,"
            f" INDEX_TYPE AS type, INDEX_COMMENT AS comment, {extra}"
            " FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = %s",
            schema,
        )
        out: dict[str, dict[str, list[Row]]] = defaultdict(lambda: defaultdict(list))
        for r in rows:
            if r["tname"] in tables:
                out[r["tname"]][r["name"]].append(r)
        for by_name in out.values():
            for parts in by_name.values():
                parts.sort(key=lambda r: r["seq"])
        return out

    def _read_fulltext_parsers(
        self, cur: Any, schema: str, indexes: dict[str, dict[str, list[Row]]], columns: dict[str, list[Row]]
    ) -> None:
        """``WITH PARSER`` of FULLTEXT keys (only SHOW CREATE TABLE has it), as ``row["parser"]``.

        One SHOW CREATE TABLE per table that has a FULLTEXT key (rare). MariaDB prints literal
        defaults of binary columns as raw bytes there, which the driver cannot decode (and the
        connection would be lost), so such tables are skipped on MariaDB, whose FULLTEXT keys have
        no parser plugins by default anyway.
        """
        for table, by_name in indexes.items():
            fulltext = {n: rows for n, rows in by_name.items() if rows[0]["type"] == "FULLTEXT"}
            raw_bytes = self.is_mariadb and any(
                r["data_type"] in _BINARY_TYPES and self._has_literal_default(r) for r in columns.get(table, [])
            )
            if not fulltext or raw_bytes:
                continue
            cur.execute(f"SHOW CREATE TABLE {_q(schema)}.{_q(table)}")
            text = _text(cur.fetchone()[1])
            for mo in _FULLTEXT_PARSER.finditer(text):
                name = mo.group(1).replace("``", "`")
                if name in fulltext:
                    fulltext[name][0]["parser"] = mo.group(2).replace("``", "`")

    def _foreign_keys(self, cur: Any, schema: str, tables: dict[str, Row]) -> dict[str, list[m.ForeignKey]]:
        rules = {
            (r["tname"], r["name"]): r
            for r in _query(
                cur,
                "SELECT TABLE_NAME AS tname, CONSTRAINT_NAME AS name, UPDATE_RULE AS upd,"
                " DELETE_RULE AS del, MATCH_OPTION AS match_option"
                " FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = %s",
                schema,
            )
        }
        cols: dict[tuple[str, str], list[Row]] = defaultdict(list)
        for r in _query(
            cur,
            "SELECT TABLE_NAME AS tname, CONSTRAINT_NAME AS name, COLUMN_NAME AS col,"
            " ORDINAL_POSITION AS pos, REFERENCED_TABLE_SCHEMA AS rschema,"
            " REFERENCED_TABLE_NAME AS rtable, REFERENCED_COLUMN_NAME AS rcol"
            " FROM information_schema.KEY_COLUMN_USAGE"
            " WHERE TABLE_SCHEMA = %s AND REFERENCED_TABLE_NAME IS NOT NULL",
            schema,
        ):
            cols[(r["tname"], r["name"])].append(r)
        out: dict[str, list[m.ForeignKey]] = defaultdict(list)
        for key, parts in cols.items():
            if key[0] not in tables or key not in rules:
                continue
            parts.sort(key=lambda r: r["pos"])
            rule = rules[key]
            rschema = parts[0]["rschema"]
            match = rule["match_option"]
            out[key[0]].append(
                m.ForeignKey(
                    name=key[1],
                    columns=tuple(p["col"] for p in parts),
                    ref_table=parts[0]["rtable"],
                    ref_columns=tuple(p["rcol"] for p in parts),
                    ref_schema=None if rschema == schema else rschema,
                    on_update=rule["upd"],
                    on_delete=rule["del"],
                    match=None if match in (None, "NONE") else match,
                )
            )
        for fks in out.values():
            fks.sort(key=lambda f: f.name)
        return out

    def _partitions(self, cur: Any, schema: str, tables: list[str]) -> dict[str, m.Partitioning]:
        if not tables:
            return {}
        rows = _query(
            cur,
            "SELECT TABLE_NAME AS tname, PARTITION_NAME AS name, SUBPARTITION_NAME AS sub,"
            " PARTITION_ORDINAL_POSITION AS pos, SUBPARTITION_ORDINAL_POSITION AS subpos,"
            " PARTITION_METHOD AS method, SUBPARTITION_METHOD AS submethod,"
            " PARTITION_EXPRESSION AS expr, SUBPARTITION_EXPRESSION AS subexpr,"
            " PARTITION_DESCRIPTION AS bound, PARTITION_COMMENT AS comment"
            " FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = %s AND PARTITION_NAME IS NOT NULL",
            schema,
        )
        grouped: dict[str, list[Row]] = defaultdict(list)
        for r in rows:
            if r["tname"] in tables:
                grouped[r["tname"]].append(r)
        return {t: self._partitioning(rs) for t, rs in grouped.items()}

    def _partitioning(self, rows: list[Row]) -> m.Partitioning:
        rows.sort(key=lambda r: (r["pos"], r["subpos"] or 0))
        first = rows[0]
        method = first["method"].lower()
        by_name: dict[str, list[Row]] = {}
        for r in rows:
            by_name.setdefault(r["name"], []).append(r)
        partitions = []
        for name, rs in by_name.items():
            bound = rs[0]["bound"]
            if method == "system_time":
                bound = bound or "HISTORY"
            elif bound is not None:
                bound = f"LESS THAN ({bound})" if method.startswith("range") else f"IN ({bound})"
            subs = [r["sub"] for r in rs if r["sub"]]
            partitions.append(
                m.Partition(
                    name=name,
                    bound=bound,
                    comment=rs[0]["comment"] or None,
                    options={"mysql": {"subpartitions": subs}} if subs else {},
                )
            )
        sub = f"{first['submethod']} ({first['subexpr'] or ''})" if first["submethod"] else None
        return m.Partitioning(
            method=method,
            expression="" if method == "system_time" else first["expr"] or "",
            partitions=tuple(partitions),
            subpartitioning=sub,
            dialect=self.name,
        )

    def _mariadb_srids(self, cur: Any, schema: str, columns: dict[str, list[Row]]) -> dict[str, dict[str, int]]:
        if not any(r["data_type"] in _GEOMETRY for cols in columns.values() for r in cols):
            return {}
        out: dict[str, dict[str, int]] = defaultdict(dict)
        for r in _query(
            cur,
            "SELECT F_TABLE_NAME AS tname, G_GEOMETRY_COLUMN AS col, SRID AS srid"
            " FROM information_schema.GEOMETRY_COLUMNS WHERE F_TABLE_SCHEMA = %s",
            schema,
        ):
            if r["srid"]:
                out[r["tname"]][r["col"]] = int(r["srid"])
        return out

    def _read_binary_defaults(self, cur: Any, schema: str, table: str, column_rows: list[Row]) -> None:
        """Exact bytes of literal BINARY/VARBINARY/BLOB defaults, stored as ``row["binary_default"]``.

        information_schema mangles them (MySQL cuts ``0x00FF`` to ``0x``, MariaDB turns bytes that
        are not valid in the connection charset into ``?``), so ask the server for ``HEX(DEFAULT(col))``
        once per table that has such a column (rare).
        """
        wanted = [r for r in column_rows if r["data_type"] in _BINARY_TYPES and self._has_literal_default(r)]
        if not wanted:
            return
        exprs = ", ".join(f"HEX(DEFAULT(t.{_q(r['name'])}))" for r in wanted)
        cur.execute(f"SELECT {exprs} FROM (SELECT 1) AS d LEFT JOIN {_q(schema)}.{_q(table)} AS t ON 0")
        for r, value in zip(wanted, cur.fetchone()):
            if value is not None:
                r["binary_default"] = bytes.fromhex(_text(value))

    def _has_literal_default(self, r: Row) -> bool:
        """The column's default is a literal (not NULL, not an expression)."""
        raw = r["dflt"]
        if raw is None:
            return False
        if self.is_mariadb:
            return bool(raw.startswith("'"))
        return "default_generated" not in (r["extra"] or "").lower()

    # -- tables -------------------------------------------------------------------------------
    def _table(
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
        typ, native = self._types(r, is_json, srid)
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

    def _types(self, r: Row, is_json: bool, srid: int | None) -> tuple[m.Type, m.NativeType]:
        dt = (r["data_type"] or "").lower()
        ct = r["column_type"] or dt
        ctl = ct.lower()
        attrs: dict[str, Any] = {}
        unsigned = " unsigned" in ctl
        width = re.match(r"^\w+\((\d+)(?:,(\d+))?\)", ctl)
        if "zerofill" in ctl:
            attrs["zerofill"] = True
        raw = ct
        t: m.Type
        if dt in _INT_BITS:
            if width:
                attrs["display_width"] = int(width.group(1))
            if dt == "tinyint" and width and width.group(1) == "1" and not unsigned:
                attrs["bool_hint"] = True
            t = m.Type(kind="integer", bits=_INT_BITS[dt], unsigned=unsigned)
        elif dt in ("decimal", "numeric"):
            t = m.Type(kind="decimal", precision=r["num_prec"], scale=r["num_scale"], unsigned=unsigned)
        elif dt in ("float", "double", "real"):
            if width and width.group(2) is not None:
                attrs["precision"], attrs["scale"] = int(width.group(1)), int(width.group(2))
            t = m.Type(kind="float", bits=32 if dt == "float" else 64, unsigned=unsigned)
        elif dt == "bit":
            t = m.Type(kind="bit", length=r["num_prec"])
        elif dt in ("char", "varchar"):
            t = m.Type(kind=dt, length=r["char_len"])
        elif dt in _TEXT_TIERS:
            if is_json:
                raw = "json"
                t = m.Type(kind="json")
            else:
                t = m.Type(kind="text", max_bytes=_TEXT_TIERS[dt])
        elif dt in ("binary", "varbinary"):
            t = m.Type(kind=dt, length=r["char_len"])
        elif dt in _BLOB_TIERS:
            t = m.Type(kind="blob", max_bytes=_BLOB_TIERS[dt])
        elif dt == "date":
            t = m.Type(kind="date", allows_zero=True)
        elif dt == "time":
            t = m.Type(kind="time", fsp=r["dt_prec"] or 0)
        elif dt in ("datetime", "timestamp"):
            t = m.Type(kind="timestamp", fsp=r["dt_prec"] or 0, with_timezone=dt == "timestamp", allows_zero=True)
        elif dt == "year":
            t = m.Type(kind="year")
        elif dt in ("enum", "set"):
            t = m.Type(kind=dt, values=parse_value_list(ct))
        elif dt == "json":
            t = m.Type(kind="json", binary=not self.is_mariadb)
        elif dt in _GEOMETRY:
            sr = srid if self.is_mariadb else r["srid"]
            t = m.Type(kind="geometry", subtype=_GEOMETRY[dt], srid=int(sr) if sr is not None else None)
        elif dt == "uuid":
            t = m.Type(kind="uuid")
        elif dt in ("inet4", "inet6"):
            t = m.Type(kind="inet", family=int(dt[-1]))
        elif dt == "vector":
            t = m.Type(kind="vector", dims=int(width.group(1)) if width else None)
        else:
            t = m.Type(kind="opaque")
        return t, m.NativeType(engine=self.name, raw=raw, attrs=attrs)

    def _default(self, r: Row, typ: m.Type) -> m.Default | None:
        raw = r["dflt"]
        if raw is None:
            return None
        if "binary_default" in r:
            return _bytes_default(r["binary_default"], self.name)
        if typ.kind == "bit" and raw.lower().startswith("b'"):
            return m.Default(kind="literal", value=_bits_default(raw, typ.length))
        if self.is_mariadb:  # literals are quoted, except numbers; 'NULL' is an explicit DEFAULT NULL
            return None if raw == "NULL" else self._expression_default(raw, r["tschema"])
        if "default_generated" in (r["extra"] or "").lower():
            return self._expression_default(unescape_is(raw), r["tschema"])
        if typ.kind in ("date", "time", "timestamp") and not raw[:1].isdigit():  # CURRENT_TIMESTAMP on old tables
            return self._expression_default(raw, r["tschema"])
        return m.Default(kind="literal", value=raw)

    def _expression_default(self, expr: str, schema: str) -> m.Default:
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
        if _NUMBER.match(inner):
            return m.Default(kind="literal", value=inner)
        return m.Default(kind="expression", value=_unqualify(inner, schema), dialect=self.name)

    # -- views, sequences, routines, triggers, events ---------------------------------------------
    def _views(self, cur: Any, schema: str, views: dict[str, Row], columns: dict[str, list[Row]]) -> tuple[m.View, ...]:
        if not views:
            return ()
        algorithm = "ALGORITHM AS algorithm" if self.is_mariadb else "NULL AS algorithm"
        rows = _query(
            cur,
            "SELECT TABLE_NAME AS name, VIEW_DEFINITION AS body, CHECK_OPTION AS check_option,"
            f" DEFINER AS definer, SECURITY_TYPE AS security, {algorithm}"
            " FROM information_schema.VIEWS WHERE TABLE_SCHEMA = %s",
            schema,
        )
        out = []
        for r in sorted(rows, key=lambda r: r["name"]):
            if r["name"] not in views:
                continue
            opts = {"definer": r["definer"], "security": r["security"]}
            algo = r["algorithm"] or self._mysql_view_algorithm(cur, schema, r["name"])
            if algo:
                opts["algorithm"] = algo
            out.append(
                m.View(
                    name=r["name"],
                    definition=_unqualify(r["body"] or "", schema),
                    dialect=self.name,
                    check_option=None if r["check_option"] in (None, "NONE") else r["check_option"],
                    columns=tuple(c["name"] for c in columns.get(r["name"], [])),
                    options={"mysql": opts},
                )
            )
        return tuple(out)

    def _mysql_view_algorithm(self, cur: Any, schema: str, view: str) -> str | None:
        """MySQL's information_schema.VIEWS has no ALGORITHM column: read it from SHOW CREATE VIEW."""
        import pymysql

        try:
            cur.execute(f"SHOW CREATE VIEW {_q(schema)}.{_q(view)}")
            text = _text(cur.fetchone()[1])
        except pymysql.MySQLError:  # an invalid view (a base table was dropped) still reflects
            return None
        mo = re.search(r"ALGORITHM=(\w+)", text)
        return mo.group(1) if mo else None

    def _sequences(self, cur: Any, schema: str, seqs: dict[str, Row]) -> tuple[m.Sequence, ...]:
        out = []
        for name in sorted(seqs):
            r = _query(
                cur,
                "SELECT next_not_cached_value AS nxt, minimum_value AS minv, maximum_value AS maxv,"
                " start_value AS start, increment AS inc, cache_size AS cache, cycle_option AS cyc"
                f" FROM {_q(schema)}.{_q(name)}",
            )[0]
            out.append(
                m.Sequence(
                    name=name,
                    start=int(r["start"]),
                    increment=int(r["inc"]),
                    min_value=int(r["minv"]),
                    max_value=int(r["maxv"]),
                    cycle=bool(r["cyc"]),
                    cache=int(r["cache"]),
                    next_value=int(r["nxt"]),
                    comment=seqs[name]["comment"] or None,
                )
            )
        return tuple(out)

    def _routines(self, cur: Any, schema: str, default_charset: tuple[str, str]) -> tuple[m.Routine, ...]:
        """Procedures and functions; a parameter or return type whose charset/collation is not the
        database default carries ``CHARSET … COLLATE …`` in its native spelling (as SHOW CREATE does)."""
        rows = _query(
            cur,
            "SELECT ROUTINE_NAME AS name, ROUTINE_TYPE AS type,"
            " ROUTINE_DEFINITION AS body, IS_DETERMINISTIC AS det, SQL_DATA_ACCESS AS access,"
            " SECURITY_TYPE AS security, SQL_MODE AS sql_mode, ROUTINE_COMMENT AS comment,"
            " DEFINER AS definer, "
            + self._pick("ROUTINES", "EXTERNAL_LANGUAGE", "lang", "NULL")
            + " FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = %s",
            schema,
        )
        if not rows:
            return ()
        params: dict[tuple[str, str], list[Row]] = defaultdict(list)
        for p in _query(
            cur,
            "SELECT SPECIFIC_NAME AS name, ROUTINE_TYPE AS type, ORDINAL_POSITION AS pos,"
            " PARAMETER_MODE AS mode, PARAMETER_NAME AS pname, DTD_IDENTIFIER AS native,"
            " CHARACTER_SET_NAME AS cs, COLLATION_NAME AS coll"
            " FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = %s",
            schema,
        ):
            if p["cs"] and (p["cs"], p["coll"]) != default_charset:
                p["native"] += f" CHARSET {p['cs']} COLLATE {p['coll']}"
            params[(p["type"], p["name"])].append(p)
        out = []
        for r in sorted(rows, key=lambda r: (r["name"], r["type"])):
            args = sorted(params.get((r["type"], r["name"]), []), key=lambda p: p["pos"])
            returns = next((a["native"] for a in args if a["pos"] == 0), None)
            args = [a for a in args if a["pos"] > 0]
            out.append(
                m.Routine(
                    name=r["name"],
                    kind=r["type"].lower(),
                    arguments=tuple(
                        m.Argument(name=a["pname"], native=a["native"], mode=a["mode"] or "IN") for a in args
                    ),
                    returns=returns,
                    language=(r["lang"] or "SQL").lower(),
                    body=r["body"] or "",
                    dialect=self.name,
                    deterministic=r["det"] == "YES",
                    security=r["security"],
                    comment=r["comment"] or None,
                    options={
                        "mysql": {"sql_data_access": r["access"], "definer": r["definer"], "sql_mode": r["sql_mode"]}
                    },
                )
            )
        return tuple(out)

    def _triggers(self, cur: Any, schema: str, tables: set[str]) -> tuple[m.Trigger, ...]:
        rows = _query(
            cur,
            "SELECT TRIGGER_NAME AS name, EVENT_MANIPULATION AS event, EVENT_OBJECT_TABLE AS tname,"
            " ACTION_ORDER AS ord, ACTION_STATEMENT AS body, ACTION_ORIENTATION AS orientation,"
            " ACTION_TIMING AS timing, DEFINER AS definer, SQL_MODE AS sql_mode"
            " FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = %s",
            schema,
        )
        return tuple(
            m.Trigger(
                name=r["name"],
                table=r["tname"],
                timing=r["timing"],
                events=(r["event"],),
                orientation=r["orientation"] or "ROW",
                body=r["body"] or "",
                dialect=self.name,
                order=int(r["ord"]) if r["ord"] is not None else None,
                options={"mysql": {"definer": r["definer"], "sql_mode": r["sql_mode"]}},
            )
            for r in sorted(rows, key=lambda r: r["name"])
            if r["tname"] in tables
        )

    def _events(self, cur: Any, schema: str) -> tuple[m.Event, ...]:
        rows = _query(
            cur,
            "SELECT EVENT_NAME AS name, EVENT_DEFINITION AS body, EVENT_TYPE AS type,"
            " EXECUTE_AT AS at, INTERVAL_VALUE AS ivalue, INTERVAL_FIELD AS ifield, STARTS AS starts,"
            " ENDS AS ends, STATUS AS status, ON_COMPLETION AS completion, EVENT_COMMENT AS comment,"
            " DEFINER AS definer, TIME_ZONE AS tz FROM information_schema.EVENTS WHERE EVENT_SCHEMA = %s",
            schema,
        )
        return tuple(
            m.Event(
                name=r["name"],
                schedule=_schedule(r),
                body=r["body"] or "",
                status=r["status"],
                on_completion=r["completion"],
                comment=r["comment"] or None,
                options={"mysql": {"definer": r["definer"], "time_zone": r["tz"]}},
            )
            for r in sorted(rows, key=lambda r: r["name"])
        )

    # -- accounts -----------------------------------------------------------------------------
    def _reflect_users(self, cur: Any, schemas: list[str]) -> tuple[m.User, ...]:
        """Accounts with a grant on ``*.*`` (beyond USAGE) or on a reflected database; no secrets."""
        if self.is_mariadb:  # mysql.user is a view there; the lock flag lives in global_priv's JSON
            sql = (
                "SELECT User AS user, Host AS host, Super_priv AS super, is_role AS is_role,"
                " IF(JSON_VALUE(p.Priv, '$.account_locked') = 'true', 'Y', 'N') AS locked"
                " FROM mysql.user u LEFT JOIN mysql.global_priv p USING (User, Host)"
            )
        else:
            sql = "SELECT User AS user, Host AS host, Super_priv AS super, 'N' AS is_role, account_locked AS locked FROM mysql.user"
        try:
            accounts = _query(cur, sql)
        except Exception as e:  # noqa: BLE001 - typically access denied to the mysql schema
            raise UsageError(
                f"cannot read the accounts for --grants: {_text(e.args[-1]) if e.args else e}",
                hint="--grants needs SELECT on mysql.user (and mysql.global_priv on MariaDB)",
            ) from None
        users = []
        for a in sorted(accounts, key=lambda a: (a["user"], a["host"])):
            if a["user"] in SYSTEM_ACCOUNTS or not a["user"]:
                continue
            is_role = a["is_role"] == "Y"
            account = _q(a["user"]) if is_role else f"{_q(a['user'])}@{_q(a['host'])}"
            cur.execute(f"SHOW GRANTS FOR {account}")
            statements = [_text(row[0]) for row in cur.fetchall()]
            grants, member_of = _parse_grants(statements, schemas)
            if not grants and not member_of:
                continue
            users.append(
                m.User(
                    name=a["user"],
                    host=None if is_role else a["host"],
                    can_login=not is_role and a["locked"] != "Y",
                    superuser=a["super"] == "Y",
                    member_of=tuple(sorted(member_of)),
                    grants=tuple(grants),
                )
            )
        return tuple(users)


# ------------------------------------------------------------------------------------------------
# Module helpers
# ------------------------------------------------------------------------------------------------


def _q(ident: str) -> str:
    return "`" + ident.replace("`", "``") + "`"


def _query(cur: Any, sql: str, *args: Any) -> list[Row]:
    """Run a catalog query; rows as dicts keyed by the (lower-case) column aliases."""
    cur.execute(sql, args or None)
    names = [d[0].lower() for d in cur.description]
    return [{k: _text(v) for k, v in zip(names, row)} for row in cur.fetchall()]


def _group(rows: Iterable[Row], tables: dict[str, Row] | set[str]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        if r["tname"] in tables:
            out[r["tname"]].append(r)
    return out


def _unqualify(sql: str, schema: str) -> str:
    """Drop the qualifier of the object's own database (`` `db`.`t` `` → `` `t` ``) from catalog SQL."""
    return sql.replace(_q(schema) + ".", "")


def _when(value: Any) -> str:
    return "'" + str(value) + "'"


def _schedule(r: Row) -> str:
    """An event's schedule as the ``ON SCHEDULE`` clause text (``AT '…'`` / ``EVERY n UNIT STARTS …``)."""
    if r["type"] == "ONE TIME":
        return f"AT {_when(r['at'])}"
    value = str(r["ivalue"])
    if not _NUMBER.match(value) and not value.startswith("'"):
        value = "'" + value.replace("'", "''") + "'"
    text = f"EVERY {value} {r['ifield']}"
    if r["starts"] is not None:
        text += f" STARTS {_when(r['starts'])}"
    if r["ends"] is not None:
        text += f" ENDS {_when(r['ends'])}"
    return text


_GRANT = re.compile(r"^GRANT (?P<privs>.+?) ON (?P<obj>.+?) TO (?P<grantee>\S+)(?P<rest>.*)$", re.DOTALL)
_ROLE_GRANT = re.compile(r"^GRANT (?P<roles>.+?) TO (?P<grantee>\S+)(?P<rest>.*)$", re.DOTALL)
_IDENTIFIED = re.compile(r"\s+IDENTIFIED\s+.*?(?=\s+WITH\s|\s+REQUIRE\s|$)", re.DOTALL | re.IGNORECASE)


def _unquote_name(text: str) -> str:
    """```db`.`t``` → ``db.t`` (backticks removed, doubled backticks undone)."""
    return re.sub(r"`((?:[^`]|``)*)`", lambda mo: mo.group(1).replace("``", "`"), text)


def _split_privileges(text: str) -> list[str]:
    parts: list[str] = []
    buf: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf).strip())
    return [p for p in parts if p]


def _relevant(obj: str, schemas: list[str]) -> bool:
    if obj in ("*.*", "*"):
        return True
    for kw in ("PROCEDURE ", "FUNCTION ", "TABLE "):
        if obj.upper().startswith(kw):
            obj = obj[len(kw) :]
    return obj.split(".", 1)[0] in schemas


def _parse_grants(statements: list[str], schemas: list[str]) -> tuple[list[m.Grant], list[str]]:
    """SHOW GRANTS lines → grants on ``*.*`` and the reflected databases, plus role memberships.

    ``IDENTIFIED BY PASSWORD '…'`` / ``IDENTIFIED VIA … USING '…'`` (MariaDB) is removed from the
    kept statement text: no password or authentication string ever reaches the document.
    """
    grants: list[m.Grant] = []
    roles: list[str] = []
    for stmt in statements:
        stmt = _IDENTIFIED.sub("", stmt.strip())
        mo = _GRANT.match(stmt)
        if mo is None:
            rm = _ROLE_GRANT.match(stmt)
            if rm is not None:
                roles.extend(_unquote_name(r.strip()) for r in rm.group("roles").split(","))
            continue
        obj = _unquote_name(mo.group("obj").strip())
        if mo.group("privs").upper().startswith("PROXY") or not _relevant(obj, schemas):
            continue
        grantee = _unquote_name(mo.group("grantee"))
        grantable = "WITH GRANT OPTION" in mo.group("rest").upper()
        plain: list[str] = []
        for priv in _split_privileges(mo.group("privs")):
            col = re.match(r"^(?P<p>[^(]+?)\s*\((?P<cols>.*)\)$", priv)
            if col is not None:
                cols = tuple(_unquote_name(c.strip()) for c in col.group("cols").split(","))
                grants.append(
                    m.Grant(
                        privileges=(col.group("p").upper(),),
                        on=obj,
                        grantee=grantee,
                        grantable=grantable,
                        statement=stmt,
                        columns=cols,
                    )
                )
            elif priv.upper() != "USAGE":
                plain.append(priv.upper())
        if plain:
            grants.append(
                m.Grant(privileges=tuple(plain), on=obj, grantee=grantee, grantable=grantable, statement=stmt)
            )
    grants.sort(key=lambda g: (g.on, g.columns, g.privileges))
    return grants, roles
