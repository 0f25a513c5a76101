"""MySQL/MariaDB reflection, step 1: the ``information_schema`` queries, one per object kind per schema
(never one round trip per table), and the few ``SHOW CREATE`` reads for the facts only they have.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from ... import model as m
from .sqltext import NUMBER_RE, parse_string_literal, quote_name, unqualify
from .typemap import BINARY_TYPES, GEOMETRY_TYPES

Row = dict[str, Any]  # one catalog row, keyed by the query's (lower-case) column aliases

_FULLTEXT_PARSER = re.compile(r"^\s*FULLTEXT KEY `((?:[^`]|``)+)` .*WITH PARSER `((?:[^`]|``)+)`", re.MULTILINE)


class CatalogReader:
    """The catalog queries of one server (``name``: the engine, the dialect of the expressions read).

    ``catalog_columns`` are the ``(TABLE, COLUMN)`` pairs of this server's information_schema that
    some queries use when present (older servers lack some of them): see :meth:`for_server`.
    """

    def __init__(self, name: str, is_mariadb: bool, catalog_columns: frozenset[tuple[str, str]]) -> None:
        self.name = name
        self.is_mariadb = is_mariadb
        self._catalog_columns = catalog_columns

    @classmethod
    def for_server(cls, cur: Any, name: str, is_mariadb: bool) -> CatalogReader:
        """The reader for the server behind ``cur``."""
        catalog_columns = frozenset(
            (r["t"].upper(), r["c"].upper())
            for r in query(
                cur,
                "SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS"
                " WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME IN"
                " ('STATISTICS', 'COLUMNS', 'SCHEMATA', 'CHECK_CONSTRAINTS', 'TABLE_CONSTRAINTS', 'ROUTINES')",
            )
        )
        return cls(name, is_mariadb, catalog_columns)

    def pick(self, table: str, column: str, alias: str, fallback: str, prefix: str = "") -> str:
        """``prefix.COLUMN AS alias`` when this server's ``information_schema.TABLE`` has it, else the fallback."""
        expr = prefix + column if (table, column) in self._catalog_columns else fallback
        return f"{expr} AS {alias}"

    # -- catalog queries (one per kind per schema) ----------------------------------------------
    def schema_row(self, cur: Any, schema: str) -> Row | None:
        """The database's default charset and collation and its comment; None when it does not exist (any more)."""
        found = query(
            cur,
            "SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS coll, "
            + self.pick("SCHEMATA", "SCHEMA_COMMENT", "comment", "NULL")
            + " FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = %s",
            schema,
        )
        return found[0] if found else None

    def table_rows(self, cur: Any, schema: str) -> list[Row]:
        """The database's tables, views and sequences (``type``), with their options and statistics."""
        return query(
            cur,
            "SELECT TABLE_NAME AS name, TABLE_TYPE AS type, ENGINE AS engine, TABLE_ROWS AS nrows,"
            " AUTO_INCREMENT AS ai, TABLE_COLLATION AS coll, CREATE_OPTIONS AS opts,"
            " TABLE_COMMENT AS comment FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s",
            schema,
        )

    def columns(self, cur: Any, schema: str, tables: set[str]) -> dict[str, list[Row]]:
        """The columns of ``tables`` (and views), by table name, in ordinal order."""
        srs = self.pick("COLUMNS", "SRS_ID", "srid", "NULL")
        rows = query(
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

    def checks(self, cur: Any, schema: str, tables: dict[str, Row]) -> dict[str, list[Row]]:
        """CHECK constraints by table name (``level`` Column for MariaDB column checks)."""
        if ("CHECK_CONSTRAINTS", "CHECK_CLAUSE") not in self._catalog_columns:
            return {}  # MySQL < 8.0.16 parses CHECK and ignores it
        if ("CHECK_CONSTRAINTS", "TABLE_NAME") in self._catalog_columns:  # MariaDB
            sql = (
                "SELECT TABLE_NAME AS tname, CONSTRAINT_NAME AS name, "
                + self.pick("CHECK_CONSTRAINTS", "LEVEL", "level", "'Table'")
                + ", CHECK_CLAUSE AS clause, 'YES' AS enforced FROM information_schema.CHECK_CONSTRAINTS"
                " WHERE CONSTRAINT_SCHEMA = %s"
            )
        else:
            sql = (
                "SELECT tc.TABLE_NAME AS tname, tc.CONSTRAINT_NAME AS name, 'Table' AS level,"
                " cc.CHECK_CLAUSE AS clause, "
                + self.pick("TABLE_CONSTRAINTS", "ENFORCED", "enforced", "'YES'", "tc.")
                + " FROM information_schema.TABLE_CONSTRAINTS tc"
                " JOIN information_schema.CHECK_CONSTRAINTS cc"
                "   ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME"
                " WHERE tc.TABLE_SCHEMA = %s AND tc.CONSTRAINT_TYPE = 'CHECK'"
            )
        return _group(query(cur, sql, schema), tables)

    def statistics(self, cur: Any, schema: str, tables: dict[str, Row]) -> dict[str, dict[str, list[Row]]]:
        """The key parts of every index, by table name then index name, in key order."""
        extra = ", ".join(
            (
                self.pick("STATISTICS", "IGNORED", "ignored", "'NO'"),
                self.pick("STATISTICS", "IS_VISIBLE", "visible", "'YES'"),
                self.pick("STATISTICS", "EXPRESSION", "expr", "NULL"),
            )
        )
        rows = query(
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

    def read_fulltext_parsers(
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
                r["data_type"] in BINARY_TYPES and self._has_literal_default(r) for r in columns.get(table, [])
            )
            if not fulltext or raw_bytes:
                continue
            cur.execute(f"SHOW CREATE TABLE {quote_name(schema)}.{quote_name(table)}")
            text = decode_text(cur.fetchone()[1])
            for mo in _FULLTEXT_PARSER.finditer(text):
                name = mo.group(1).replace("``", "`")
                if name in fulltext:
                    fulltext[name][0]["parser"] = mo.group(2).replace("``", "`")

    def foreign_keys(self, cur: Any, schema: str, tables: dict[str, Row]) -> dict[str, list[m.ForeignKey]]:
        """The foreign keys of ``tables``, by table name, sorted by name."""
        rules = {
            (r["tname"], r["name"]): r
            for r in query(
                cur,
                "SELECT TABLE_NAME AS tname, CONSTRAINT_NAME AS name, UPDATE_RULE AS upd,"
                " DELETE_RULE AS del, MATCH_OPTION AS match_option"
                " FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = %s",
                schema,
            )
        }
        cols: dict[tuple[str, str], list[Row]] = defaultdict(list)
        for r in query(
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

    def partitions(self, cur: Any, schema: str, tables: list[str]) -> dict[str, m.Partitioning]:
        """The partitioning of the partitioned ``tables``, by table name."""
        if not tables:
            return {}
        rows = query(
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

    def mariadb_srids(self, cur: Any, schema: str, columns: dict[str, list[Row]]) -> dict[str, dict[str, int]]:
        """MariaDB: the SRID of geometry columns that have one, by table then column name."""
        if not any(r["data_type"] in GEOMETRY_TYPES for cols in columns.values() for r in cols):
            return {}
        out: dict[str, dict[str, int]] = defaultdict(dict)
        for r in query(
            cur,
            "SELECT F_TABLE_NAME AS tname, G_GEOMETRY_COLUMN AS col, SRID AS srid"
            " FROM information_schema.GEOMETRY_COLUMNS WHERE F_TABLE_SCHEMA = %s",
            schema,
        ):
            if r["srid"]:
                out[r["tname"]][r["col"]] = int(r["srid"])
        return out

    def read_binary_defaults(self, cur: Any, schema: str, table: str, column_rows: list[Row]) -> None:
        """Exact bytes of literal BINARY/VARBINARY/BLOB defaults, stored as ``row["binary_default"]``.

        information_schema mangles them (MySQL cuts ``0x00FF`` to ``0x``, MariaDB turns bytes that
        are not valid in the connection charset into ``?``), so ask the server for ``HEX(DEFAULT(col))``
        once per table that has such a column (rare).
        """
        wanted = [r for r in column_rows if r["data_type"] in BINARY_TYPES and self._has_literal_default(r)]
        if not wanted:
            return
        exprs = ", ".join(f"HEX(DEFAULT(t.{quote_name(r['name'])}))" for r in wanted)
        cur.execute(f"SELECT {exprs} FROM (SELECT 1) AS d LEFT JOIN {quote_name(schema)}.{quote_name(table)} AS t ON 0")
        missing = []
        for r, value in zip(wanted, cur.fetchone()):
            if value is not None:
                r["binary_default"] = bytes.fromhex(decode_text(value))
            elif r["nullable"] == "NO":
                missing.append(r)
        if missing:  # DEFAULT() of a NOT NULL column is NULL in that outer-joined row: read the DDL instead
            # as bytes: MariaDB writes a default's bytes raw there, which need not be valid UTF-8
            cur.execute("SET @dbjson_results = @@character_set_results, character_set_results = binary")
            try:
                cur.execute(f"SHOW CREATE TABLE {quote_name(schema)}.{quote_name(table)}")
                raw = cur.fetchone()[1]
            finally:
                cur.execute("SET character_set_results = @dbjson_results")
            ddl = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes | bytearray) else raw
            for r in missing:
                value = _ddl_binary_default(ddl, r["name"])
                if value is not None:
                    r["binary_default"] = value

    def _has_literal_default(self, r: Row) -> bool:
        """The column's default is a literal (not NULL, not an expression)."""
        raw = r["dflt"]
        if raw is None:
            return False
        if self.is_mariadb:
            return bool(raw.startswith("'"))
        return "default_generated" not in (r["extra"] or "").lower()

    # -- views, sequences, routines, triggers, events ---------------------------------------------
    def views(self, cur: Any, schema: str, views: dict[str, Row], columns: dict[str, list[Row]]) -> tuple[m.View, ...]:
        """The selected ``views`` of the database, sorted by name."""
        if not views:
            return ()
        algorithm = "ALGORITHM AS algorithm" if self.is_mariadb else "NULL AS algorithm"
        rows = query(
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
                    definition=unqualify(r["body"] or "", schema),
                    dialect=self.name,
                    check_option=None if r["check_option"] in (None, "NONE") else r["check_option"],
                    columns=tuple(c["name"] for c in columns.get(r["name"], [])),
                    options={"mysql": opts},
                )
            )
        return tuple(out)

    def _mysql_view_algorithm(self, cur: Any, schema: str, view: str) -> str | None:
        """MySQL's information_schema.VIEWS has no ALGORITHM column: read it from SHOW CREATE VIEW."""
        import pymysql  # lazy: only a MySQL/MariaDB command pays for importing the driver

        try:
            cur.execute(f"SHOW CREATE VIEW {quote_name(schema)}.{quote_name(view)}")
            text = decode_text(cur.fetchone()[1])
        except pymysql.MySQLError:  # an invalid view (a base table was dropped) still reflects
            return None
        mo = re.search(r"ALGORITHM=(\w+)", text)
        return mo.group(1) if mo else None

    def sequences(self, cur: Any, schema: str, seqs: dict[str, Row]) -> tuple[m.Sequence, ...]:
        """MariaDB sequences (their state is read from each sequence), sorted by name."""
        out = []
        for name in sorted(seqs):
            r = query(
                cur,
                "SELECT next_not_cached_value AS nxt, minimum_value AS minv, maximum_value AS maxv,"
                " start_value AS start, increment AS inc, cache_size AS cache, cycle_option AS cyc"
                f" FROM {quote_name(schema)}.{quote_name(name)}",
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

    def routines(self, cur: Any, schema: str, default_charset: tuple[str, str]) -> tuple[m.Routine, ...]:
        """Procedures and functions; a parameter or return type whose charset/collation is not the
        database default carries ``CHARSET … COLLATE …`` in its native spelling (as SHOW CREATE does)."""
        rows = query(
            cur,
            "SELECT ROUTINE_NAME AS name, ROUTINE_TYPE AS type,"
            " ROUTINE_DEFINITION AS body, IS_DETERMINISTIC AS det, SQL_DATA_ACCESS AS access,"
            " SECURITY_TYPE AS security, SQL_MODE AS sql_mode, ROUTINE_COMMENT AS comment,"
            " DEFINER AS definer, "
            + self.pick("ROUTINES", "EXTERNAL_LANGUAGE", "lang", "NULL")
            + " FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = %s",
            schema,
        )
        if not rows:
            return ()
        params: dict[tuple[str, str], list[Row]] = defaultdict(list)
        for p in query(
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
                        "mysql": {
                            "sql_data_access": r["access"],
                            "definer": r["definer"],
                            "sql_mode": sql_mode_text(r["sql_mode"]),
                        }
                    },
                )
            )
        return tuple(out)

    def triggers(self, cur: Any, schema: str, tables: set[str]) -> tuple[m.Trigger, ...]:
        """The triggers on ``tables``, sorted by name."""
        rows = query(
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
                options={"mysql": {"definer": r["definer"], "sql_mode": sql_mode_text(r["sql_mode"])}},
            )
            for r in sorted(rows, key=lambda r: r["name"])
            if r["tname"] in tables
        )

    def events(self, cur: Any, schema: str) -> tuple[m.Event, ...]:
        """The scheduled events of the database, sorted by name."""
        rows = query(
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


# -- helpers ---------------------------------------------------------------------------------------


def _ddl_binary_default(ddl: str, column: str) -> bytes | None:
    """The literal default of ``column`` in SHOW CREATE TABLE's text (``'\\0\\0'`` or ``0x00FF``), as bytes."""
    name = "`" + column.replace("`", "``") + "`"
    for line in ddl.splitlines():
        body = line.strip()
        if not body.startswith(name + " "):
            continue
        found = re.search(r"\sDEFAULT\s+(0x[0-9A-Fa-f]*|')", body)
        if found is None:
            return None
        if found.group(1) != "'":
            return bytes.fromhex(found.group(1)[2:])
        try:
            value, _end = parse_string_literal(body, found.start(1))
        except ValueError:
            return None
        return value.encode("utf-8", "surrogateescape")
    return None


def decode_text(value: Any) -> Any:
    """Decode bytes from the catalog (some information_schema columns are binary)."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return value


def query(cur: Any, sql: str, *args: Any) -> list[Row]:
    """Run a catalog query; rows as dicts keyed by the (lower-case) column aliases."""
    cur.execute(sql, args or None)
    names = [d[0].lower() for d in cur.description]
    return [{k: decode_text(v) for k, v in zip(names, row)} for row in cur.fetchall()]


def _group(rows: Iterable[Row], tables: dict[str, Row] | set[str]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        if r["tname"] in tables:
            out[r["tname"]].append(r)
    return out


def _when(value: Any) -> str:
    return "'" + str(value) + "'"


def _schedule(r: Row) -> str:
    """An event's schedule as the ``ON SCHEDULE`` clause text (``AT '…'`` / ``EVERY n UNIT STARTS …``)."""
    if r["type"] == "ONE TIME":
        return f"AT {_when(r['at'])}"
    value = str(r["ivalue"])
    if not NUMBER_RE.match(value) and not value.startswith("'"):
        value = "'" + value.replace("'", "''") + "'"
    text = f"EVERY {value} {r['ifield']}"
    if r["starts"] is not None:
        text += f" STARTS {_when(r['starts'])}"
    if r["ends"] is not None:
        text += f" ENDS {_when(r['ends'])}"
    return text


def sql_mode_text(mode: Any) -> Any:
    """A routine's or trigger's sql_mode as the server takes it back: MariaDB's information_schema
    spells ALLOW_INVALID_DATES as INVALID_DATES (SHOW CREATE says ALLOW_INVALID_DATES), which no
    ``SET sql_mode`` accepts."""
    if not isinstance(mode, str):
        return mode
    return ",".join("ALLOW_INVALID_DATES" if w == "INVALID_DATES" else w for w in mode.split(","))
