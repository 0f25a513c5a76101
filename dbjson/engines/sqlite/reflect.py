"""SQLite reflection: ``PRAGMA`` catalogs plus the ``CREATE`` text kept in ``sqlite_master``.

The pragmas give columns, keys, indexes and foreign keys; the stored SQL gives what they do not
(constraint names, CHECK constraints, AUTOINCREMENT, generation expressions, COLLATE, index
expressions and predicates, view bodies, trigger parts; parsed by :mod:`.sqltext`, declared types
mapped by :mod:`.typemap`). Decisions (docs/format.md, "SQLite"):

* Declared type names map to standard types by name (``VARCHAR(n)`` → varchar n, ``INTEGER`` →
  integer 64, ...), else by SQLite's affinity rules; ``native.raw`` keeps the declared text.
* Temporal types get ``fsp`` only when declared (``DATETIME(3)``): SQLite stores text.
* ``INTEGER PRIMARY KEY`` (a rowid alias) → ``Identity(kind="rowid")``; with AUTOINCREMENT →
  ``Identity(kind="autoincrement", next_value=<sqlite_sequence + 1>)``.
* Unnamed constraints get PostgreSQL-style names (``t_a_key``, ``t_a_fkey``, ``t_a_check``).
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import PurePath
from typing import Any

from ... import model as m
from ...errors import ConnectionFailed
from .sqltext import (
    ENGINE,
    ParsedColumn,
    ParsedTable,
    parse_create_table,
    parse_default,
    parse_index,
    parse_trigger,
    parse_view,
)
from .typemap import standard_type

SCHEMA = "main"


class _Names:
    """Generated constraint names, PostgreSQL style, unique within a table."""

    def __init__(self, taken: Iterator[str | None]) -> None:
        self.taken = {n for n in taken if n}

    def make(self, table: str, columns: Sequence[str], suffix: str) -> str:
        stem = "_".join([table, *columns, suffix])
        name, n = stem, 0
        while name in self.taken:
            n += 1
            name = f"{stem}{n}"
        self.taken.add(name)
        return name


class SQLiteReflector:
    """Reflects an SQLite database (one schema, ``main``) from a ``sqlite3`` connection."""

    def reflect_database(self, conn: sqlite3.Connection, target: Any, options: Any) -> m.Database:
        """The whole database as a :class:`~dbjson.model.Database` (see the module docstring)."""
        try:
            schema = self._schema(conn, options)
            version = conn.execute("SELECT sqlite_version()").fetchone()[0]
        except sqlite3.DatabaseError as e:
            raise ConnectionFailed(
                f"cannot read the SQLite database: {e}", file=target.database, hint="is this an SQLite 3 database file?"
            ) from None
        path = target.database or ""
        source = m.Source(engine=ENGINE, server_version=version, database=_database_name(path), dumped_at=m.now_utc())
        return m.Database(source=source, schemas=(schema,))

    # -- schema ------------------------------------------------------------------------------
    def _schema(self, conn: sqlite3.Connection, options: Any) -> m.Schema:
        rows = conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"
        ).fetchall()
        shadow = self._shadow_tables(conn)
        tables, views, triggers = [], [], []
        for kind, name, tbl_name, sql in rows:
            if name.startswith("sqlite_") or name in shadow or not options.wants(SCHEMA, tbl_name):
                continue
            if kind == "table":
                tables.append(self._table(conn, name, sql))
            elif kind == "view":
                views.append(self._view(name, sql))
            elif kind == "trigger":
                triggers.append(self._trigger(name, tbl_name, sql))
        return m.Schema(
            name=SCHEMA,
            tables=tuple(tables),
            views=tuple(views),
            triggers=tuple(triggers),
            options=self._schema_options(conn),
        )

    @staticmethod
    def _shadow_tables(conn: sqlite3.Connection) -> set[str]:
        """Tables that belong to a virtual table (FTS/R-Tree storage), recreated with it."""
        try:
            return {r[1] for r in conn.execute("PRAGMA main.table_list") if r[2] == "shadow"}
        except sqlite3.DatabaseError:  # SQLite < 3.37
            return set()

    @staticmethod
    def _schema_options(conn: sqlite3.Connection) -> m.Options:
        opts: dict[str, Any] = {}
        for pragma in ("user_version", "application_id"):
            value = conn.execute(f"PRAGMA main.{pragma}").fetchone()[0]
            if value:
                opts[pragma] = value
        encoding = conn.execute("PRAGMA main.encoding").fetchone()[0]
        if encoding != "UTF-8":
            opts["encoding"] = encoding
        return {ENGINE: opts} if opts else {}

    # -- tables ------------------------------------------------------------------------------
    def _table(self, conn: sqlite3.Connection, name: str, sql: str) -> m.Table:
        parsed = parse_create_table(sql)
        q = _quote(name)
        info = conn.execute(f"PRAGMA main.table_xinfo({q})").fetchall()
        pk_cols = tuple(r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5]))
        rowid_alias = self._rowid_alias(info, pk_cols, parsed)
        next_value = self._sequence(conn, name) if rowid_alias and _pc(parsed, pk_cols[0]).autoincrement else None
        columns = tuple(
            self._column(r, ordinal, parsed, rowid_alias and r[1] == pk_cols[0], next_value)
            for ordinal, r in enumerate((r for r in info if r[6] != 1), start=1)
        )
        if parsed.virtual is not None:
            return m.Table(name=name, columns=columns, options={ENGINE: {"virtual": parsed.virtual}})
        if parsed.strict:  # only ANY holds values of every storage class there
            columns = tuple(
                dataclasses.replace(c, type=m.Type(kind="opaque")) if c.native.raw.upper() == "ANY" else c
                for c in columns
            )
        else:
            columns = _untyped_where_values_differ(conn, q, columns)
        names = _Names(
            iter(
                [
                    parsed.pk_name,
                    *(u[0] for u in parsed.uniques),
                    *(c[0] for c in parsed.checks),
                    *(f.name for f in parsed.fks),
                ]
            )
        )
        table_opts = {k: True for k, v in (("without_rowid", parsed.without_rowid), ("strict", parsed.strict)) if v}
        return m.Table(
            name=name,
            columns=columns,
            primary_key=m.PrimaryKey(name=parsed.pk_name, columns=pk_cols) if pk_cols else None,
            uniques=self._uniques(conn, name, parsed, names),
            foreign_keys=self._foreign_keys(conn, name, parsed, names),
            checks=self._checks(name, parsed, names),
            indexes=self._indexes(conn, name),
            options={ENGINE: table_opts} if table_opts else {},
        )

    @staticmethod
    def _rowid_alias(info: list[Any], pk_cols: tuple[str, ...], parsed: ParsedTable) -> bool:
        """``INTEGER PRIMARY KEY`` on a rowid table aliases the rowid (not with ``DESC``)."""
        if len(pk_cols) != 1 or parsed.without_rowid or parsed.virtual is not None:
            return False
        declared = next(r[2] for r in info if r[1] == pk_cols[0])
        return bool(declared.upper() == "INTEGER" and not _pc(parsed, pk_cols[0]).pk_desc)

    @staticmethod
    def _sequence(conn: sqlite3.Connection, table: str) -> int | None:
        try:
            row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).fetchone()
        except sqlite3.OperationalError:  # no AUTOINCREMENT table has been written yet
            return None
        return int(row[0]) + 1 if row else None

    @staticmethod
    def _column(row: Any, ordinal: int, parsed: ParsedTable, rowid_alias: bool, next_value: int | None) -> m.Column:
        _cid, name, declared, notnull, dflt, _pk, hidden = row
        pc = _pc(parsed, name)
        identity = None
        if rowid_alias:
            identity = (
                m.Identity(kind="autoincrement", next_value=next_value)
                if pc.autoincrement
                else m.Identity(kind="rowid")
            )
        generated = None
        if hidden in (2, 3) and pc.generated is not None:
            generated = m.Generated(expression=pc.generated, stored=hidden == 3, dialect=ENGINE)
        return m.Column(
            name=name,
            ordinal=ordinal,
            type=standard_type(declared),
            native=m.NativeType(engine=ENGINE, raw=declared),
            nullable=not notnull,
            default=parse_default(dflt),
            identity=identity,
            generated=generated,
            collation=pc.collation,
        )

    def _uniques(
        self, conn: sqlite3.Connection, table: str, parsed: ParsedTable, names: _Names
    ) -> tuple[m.UniqueConstraint, ...]:
        declared = list(parsed.uniques)
        out = []
        for _seq, index, _unique, origin, _partial in conn.execute(f"PRAGMA main.index_list({_quote(table)})"):
            if origin != "u":
                continue
            cols = tuple(r[2] for r in conn.execute(f"PRAGMA main.index_info({_quote(index)})"))
            match = next(
                (d for d in declared if tuple(c.lower() for c in d[1]) == tuple(c.lower() for c in cols)), None
            )
            if match is not None:
                declared.remove(match)
            name = match[0] if match and match[0] else names.make(table, cols, "key")
            out.append(m.UniqueConstraint(name=name, columns=cols))
        return tuple(sorted(out, key=lambda u: u.name))

    def _foreign_keys(
        self, conn: sqlite3.Connection, table: str, parsed: ParsedTable, names: _Names
    ) -> tuple[m.ForeignKey, ...]:
        groups: dict[int, list[Any]] = {}
        for row in conn.execute(f"PRAGMA main.foreign_key_list({_quote(table)})"):
            groups.setdefault(row[0], []).append(row)
        declared = list(parsed.fks)
        out = []
        for rows in (sorted(g, key=lambda r: r[1]) for _id, g in sorted(groups.items(), reverse=True)):
            cols = tuple(r[3] for r in rows)
            ref_table = self._resolve_table(conn, rows[0][2])
            ref_cols = tuple(r[4] for r in rows)
            if any(c is None for c in ref_cols):
                ref_cols = self._primary_key(conn, ref_table)
            match = next(
                (
                    d
                    for d in declared
                    if [c.lower() for c in d.columns] == [c.lower() for c in cols]
                    and d.ref_table.lower() == rows[0][2].lower()
                ),
                None,
            )
            if match is not None:
                declared.remove(match)
            out.append(
                m.ForeignKey(
                    name=match.name if match and match.name else names.make(table, cols, "fkey"),
                    columns=cols,
                    ref_table=ref_table,
                    ref_columns=ref_cols,
                    on_update=rows[0][5],
                    on_delete=rows[0][6],
                    match=None if rows[0][7] == "NONE" else rows[0][7],
                    deferrable=bool(match and match.deferrable),
                    initially_deferred=bool(match and match.initially_deferred),
                )
            )
        return tuple(sorted(out, key=lambda f: f.name))

    @staticmethod
    def _resolve_table(conn: sqlite3.Connection, name: str) -> str:
        """The table's name as created (foreign keys may spell it in another case)."""
        row = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", (name,)
        ).fetchone()
        return str(row[0]) if row else name

    @staticmethod
    def _primary_key(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
        info = conn.execute(f"PRAGMA main.table_info({_quote(table)})").fetchall()
        return tuple(r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5]))

    @staticmethod
    def _checks(table: str, parsed: ParsedTable, names: _Names) -> tuple[m.Check, ...]:
        out = [
            m.Check(
                name=name or names.make(table, [column] if column else [], "check"),
                expression=_unwrapped(expr),
                dialect=ENGINE,
                column=column,
            )
            for name, expr, column in parsed.checks
        ]
        return tuple(sorted(out, key=lambda c: c.name))

    @staticmethod
    def _indexes(conn: sqlite3.Connection, table: str) -> tuple[m.Index, ...]:
        out = []
        for _seq, name, unique, origin, _partial in conn.execute(f"PRAGMA main.index_list({_quote(table)})"):
            if origin != "c":
                continue
            sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone()[0]
            parts, where = parse_index(sql)
            has_sql = where is not None or any(p.expression for p in parts)
            out.append(
                m.Index(
                    name=name, parts=tuple(parts), unique=bool(unique), where=where, dialect=ENGINE if has_sql else None
                )
            )
        return tuple(sorted(out, key=lambda i: i.name))

    # -- views and triggers -----------------------------------------------------------------
    @staticmethod
    def _view(name: str, sql: str) -> m.View:
        body, columns = parse_view(sql)
        return m.View(name=name, definition=body, dialect=ENGINE, columns=columns)

    @staticmethod
    def _trigger(name: str, table: str, sql: str) -> m.Trigger:
        p = parse_trigger(sql)
        opts = {ENGINE: {"update_of": list(p.update_of)}} if p.update_of else {}
        return m.Trigger(
            name=name,
            table=table,
            timing=p.timing,
            events=(p.event,),
            body=p.body,
            definition=sql,
            dialect=ENGINE,
            when=p.when,
            options=opts,
        )


# The values a column of a standard kind can hold as that kind (SQLite keeps any value in any column of a
# table that is not STRICT: '' or 'n/a' in an INTEGER column, Unix times in a DATETIME column, 'yes' in a
# BOOLEAN one). ``{c}`` is the quoted column.
_FITS: dict[str, str] = {
    "integer": "typeof({c}) = 'integer' OR (typeof({c}) = 'real' AND {c} = CAST({c} AS INTEGER))",
    "float": "typeof({c}) IN ('integer', 'real') OR (typeof({c}) = 'text'"
    " AND lower(trim({c})) IN ('nan', 'inf', '+inf', '-inf', 'infinity', '+infinity', '-infinity'))",
    "decimal": "typeof({c}) IN ('integer', 'real') OR (typeof({c}) = 'text' AND trim({c}) GLOB '*[0-9]*'"
    " AND trim({c}) NOT GLOB '*[^0-9eE.+-]*')",  # digits SQLite keeps as text: too precise for a REAL
    "boolean": "(typeof({c}) = 'integer' AND {c} IN (0, 1))"
    " OR (typeof({c}) = 'text' AND lower({c}) IN ('t', 'f', 'true', 'false', '0', '1'))",
    "date": "typeof({c}) = 'text'",
    "time": "typeof({c}) = 'text'",
    "timestamp": "typeof({c}) = 'text'",
    "blob": "typeof({c}) IN ('blob', 'text')",
    "binary": "typeof({c}) IN ('blob', 'text')",
    "varbinary": "typeof({c}) IN ('blob', 'text')",
}


def _unwrapped(expr: str) -> str:
    """``((a OR b))`` → ``a OR b``: parentheses around the whole expression do not change it (Django
    writes ``CHECK ((...))``, dbjson writes ``CHECK (...)``; without this a copy differed from its source)."""
    s = expr.strip()
    while s.startswith("(") and s.endswith(")"):
        depth, quote, closes_at = 0, "", -1
        for i, ch in enumerate(s):
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "'\"`":
                quote = ch
            elif ch == "[":
                quote = "]"
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    closes_at = i
                    break
        if closes_at != len(s) - 1:
            break
        s = s[1:-1].strip()
    return s


def _fits_kind(t: m.Type) -> str:
    """The kind whose values a column must hold (a numeric-affinity name such as ``MONEY`` is an
    opaque type over decimal)."""
    return t.base.kind if t.kind == "opaque" and t.base is not None else t.kind


def _untyped_where_values_differ(
    conn: sqlite3.Connection, qtable: str, columns: tuple[m.Column, ...]
) -> tuple[m.Column, ...]:
    """Columns holding values their declared type cannot hold (a storage class of another kind) become
    untyped (``opaque``: values travel as text, the declared type is kept on SQLite, other engines get
    text and report it), instead of an export that stops at the first such value. One scan of the table."""
    checked = [c for c in columns if _fits_kind(c.type) in _FITS and c.identity is None]
    if not checked:
        return columns
    tests = [(_quote(c.name), _FITS[_fits_kind(c.type)].format(c=_quote(c.name))) for c in checked]
    exprs = ", ".join(f"COALESCE(MAX({q} IS NOT NULL AND NOT ({fits})), 0)" for q, fits in tests)
    row = conn.execute(f"SELECT {exprs} FROM main.{qtable}").fetchone()
    differ = {c.name for c, bad in zip(checked, row) if bad}
    if not differ:
        return columns
    return tuple(dataclasses.replace(c, type=m.Type(kind="opaque")) if c.name in differ else c for c in columns)


def _pc(parsed: ParsedTable, column: str) -> ParsedColumn:
    return parsed.columns.get(column.lower()) or ParsedColumn(column)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _database_name(path: str) -> str:
    """The document's database name: the file name without extension (``main`` in memory)."""
    if not path or path == ":memory:":
        return SCHEMA
    return PurePath(path).stem or SCHEMA
