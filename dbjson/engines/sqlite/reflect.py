"""SQLite reflection: ``PRAGMA`` catalogs plus the ``CREATE`` text kept in ``sqlite_master``.

The pragmas give columns, keys, indexes and foreign keys; the stored SQL gives what they do not
(constraint names, CHECK constraints, AUTOINCREMENT, generation expressions, COLLATE, index
expressions and predicates, view bodies, trigger parts). Decisions (docs/format.md, "SQLite"):

* Declared type names map to standard types by name (``VARCHAR(n)`` → varchar n, ``INTEGER`` →
  integer 64, ...), else by SQLite's affinity rules; ``native.raw`` keeps the declared text.
* Temporal types get ``fsp`` only when declared (``DATETIME(3)``): SQLite stores text.
* ``INTEGER PRIMARY KEY`` (a rowid alias) → ``Identity(kind="rowid")``; with AUTOINCREMENT →
  ``Identity(kind="autoincrement", next_value=<sqlite_sequence + 1>)``.
* Unnamed constraints get PostgreSQL-style names (``t_a_key``, ``t_a_fkey``, ``t_a_check``).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from ... import model as m
from ...errors import ConnectionFailed

ENGINE = "sqlite"
SCHEMA = "main"

# ---------------------------------------------------------------------------------------------
# A small SQL tokenizer (enough for SQLite's CREATE statements)
# ---------------------------------------------------------------------------------------------

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+|--[^\n]*(?:\n|\Z)|/\*.*?(?:\*/|\Z))
  | (?P<blob>[xX]'[0-9a-fA-F]*')
  | (?P<str>'(?:[^']|'')*')
  | (?P<qid>"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\])
  | (?P<num>0[xX][0-9a-fA-F]+|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<word>[A-Za-z_\x80-\U0010ffff][\w$\x80-\U0010ffff]*)
  | (?P<op>\|\||<<|>>|<=|>=|==|!=|<>|->>|->|\S)
    """,
    re.S | re.X,
)


@dataclass(frozen=True)
class Token:
    kind: str  # blob | str | qid | num | word | op
    text: str
    start: int
    end: int

    @property
    def ident(self) -> str:
        """The identifier this token names (quotes removed)."""
        if self.kind == "qid":
            inner = self.text[1:-1]
            q = self.text[0]
            return inner if q == "[" else inner.replace(q + q, q)
        if self.kind == "str":  # SQLite accepts 'name' where an identifier is expected
            return self.text[1:-1].replace("''", "'")
        return self.text

    def kw(self, *words: str) -> bool:
        """Is this an (unquoted) keyword among ``words``?"""
        return self.kind == "word" and self.text.upper() in words


def tokenize(sql: str) -> list[Token]:
    """Tokens of ``sql`` without whitespace and comments, with their offsets."""
    out = []
    for mt in _TOKEN_RE.finditer(sql):
        kind = mt.lastgroup or "op"
        if kind != "ws":
            out.append(Token(kind, mt.group(), mt.start(), mt.end()))
    return out


def _close(tokens: Sequence[Token], i: int) -> int:
    """Index of the ``)`` matching the ``(`` at ``tokens[i]``."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].text == "(":
            depth += 1
        elif tokens[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced parentheses")


def _split(tokens: Sequence[Token], sep: str = ",") -> list[list[Token]]:
    """Split at top-level ``sep`` tokens."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for t in tokens:
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
        if depth == 0 and t.text == sep:
            parts.append([])
        else:
            parts[-1].append(t)
    return [p for p in parts if p]


def _text(sql: str, tokens: Sequence[Token]) -> str:
    """The source text spanned by ``tokens``."""
    return sql[tokens[0].start : tokens[-1].end] if tokens else ""


def _group(sql: str, tokens: Sequence[Token], i: int) -> tuple[str, int]:
    """The text inside the parenthesized group starting at ``tokens[i]`` and the index after it."""
    j = _close(tokens, i)
    return _text(sql, tokens[i + 1 : j]), j + 1


def _names(tokens: Sequence[Token]) -> tuple[str, ...]:
    """Identifiers of a parenthesized name list's inside (``a, "b" COLLATE x DESC``)."""
    return tuple(part[0].ident for part in _split(tokens))


def strip_parens(text: str) -> str:
    """``(expr)`` → ``expr`` (one or more balanced outer pairs)."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        toks = tokenize(text)
        if not toks or _close(toks, 0) != len(toks) - 1:
            break
        text = text[1:-1].strip()
    return text


# ---------------------------------------------------------------------------------------------
# CREATE TABLE parsing
# ---------------------------------------------------------------------------------------------

_COLUMN_CONSTRAINT_START = (
    "CONSTRAINT",
    "PRIMARY",
    "NOT",
    "NULL",
    "UNIQUE",
    "CHECK",
    "DEFAULT",
    "COLLATE",
    "REFERENCES",
    "GENERATED",
    "AS",
)


@dataclass
class ParsedFK:
    name: str | None
    columns: tuple[str, ...]
    ref_table: str
    deferrable: bool = False
    initially_deferred: bool = False


@dataclass
class ParsedColumn:
    name: str
    collation: str | None = None
    autoincrement: bool = False
    pk_desc: bool = False
    generated: str | None = None


@dataclass
class ParsedTable:
    columns: dict[str, ParsedColumn] = field(default_factory=dict)
    pk_name: str | None = None
    uniques: list[tuple[str | None, tuple[str, ...]]] = field(default_factory=list)
    checks: list[tuple[str | None, str, str | None]] = field(default_factory=list)  # name, expr, column
    fks: list[ParsedFK] = field(default_factory=list)
    without_rowid: bool = False
    strict: bool = False
    virtual: str | None = None  # "module(args)" of a virtual table


def parse_create_table(sql: str) -> ParsedTable:
    """What the pragmas do not tell about a table, from its CREATE TABLE text."""
    toks = tokenize(sql)
    out = ParsedTable()
    using = next((i for i, t in enumerate(toks) if t.kw("USING")), None)
    if toks and len(toks) > 1 and toks[1].kw("VIRTUAL") and using is not None:
        out.virtual = sql[toks[using + 1].start :].strip()
        return out
    start = next(i for i, t in enumerate(toks) if t.text == "(")
    end = _close(toks, start)
    for item in _split(toks[start + 1 : end]):
        if item[0].kw("CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"):
            _table_constraint(sql, item, out)
        else:
            _column_def(sql, item, out)
    tail = " ".join(t.text.upper() for t in toks[end + 1 :])
    out.without_rowid = "WITHOUT ROWID" in tail
    out.strict = "STRICT" in tail.replace(",", " ").split()
    return out


def _table_constraint(sql: str, item: list[Token], out: ParsedTable) -> None:
    name = None
    i = 0
    if item[0].kw("CONSTRAINT"):
        name, i = item[1].ident, 2
    head = item[i]
    paren = next((j for j in range(i, len(item)) if item[j].text == "("), None)
    if paren is None:
        return
    inner = item[paren + 1 : _close(item, paren)]
    if head.kw("PRIMARY"):
        out.pk_name = name
    elif head.kw("UNIQUE"):
        out.uniques.append((name, _names(inner)))
    elif head.kw("CHECK"):
        out.checks.append((name, _group(sql, item, paren)[0].strip(), None))
    elif head.kw("FOREIGN"):
        ref = next(j for j in range(paren, len(item)) if item[j].kw("REFERENCES"))
        out.fks.append(_fk_clause(name, _names(inner), item[ref + 1 :]))


def _fk_clause(name: str | None, columns: tuple[str, ...], rest: list[Token]) -> ParsedFK:
    """``REFERENCES`` clause (tokens after the keyword)."""
    words = [t.text.upper() for t in rest if t.kind == "word"]
    deferrable = any(w == "DEFERRABLE" and (k == 0 or words[k - 1] != "NOT") for k, w in enumerate(words))
    deferred = deferrable and any(
        w == "INITIALLY" and k + 1 < len(words) and words[k + 1] == "DEFERRED" for k, w in enumerate(words)
    )
    return ParsedFK(name, columns, rest[0].ident, deferrable, deferred)


def _column_def(sql: str, item: list[Token], out: ParsedTable) -> None:
    col = ParsedColumn(item[0].ident)
    out.columns[col.name.lower()] = col
    i = 1
    while i < len(item) and not item[i].kw(*_COLUMN_CONSTRAINT_START):  # the type name
        i = _close(item, i) + 1 if item[i].text == "(" else i + 1
    name: str | None = None
    while i < len(item):
        t = item[i]
        if t.kw("CONSTRAINT"):
            name, i = item[i + 1].ident, i + 2
            continue
        if t.kw("PRIMARY"):
            j = i + 2
            col.pk_desc = j < len(item) and item[j].kw("DESC")
            while j < len(item) and not item[j].kw(*_COLUMN_CONSTRAINT_START):
                col.autoincrement = col.autoincrement or item[j].kw("AUTOINCREMENT")
                j += 1
            out.pk_name, i = name, j
        elif t.kw("UNIQUE"):
            out.uniques.append((name, (col.name,)))
            i += 1
        elif t.kw("CHECK") and i + 1 < len(item) and item[i + 1].text == "(":
            expr, i = _group(sql, item, i + 1)
            out.checks.append((name, expr.strip(), col.name))
        elif t.kw("COLLATE") and i + 1 < len(item):
            col.collation, i = item[i + 1].ident, i + 2
        elif t.kw("REFERENCES"):
            j = i + 1
            while j < len(item) and not (item[j].kw(*_COLUMN_CONSTRAINT_START) and not item[j].kw("NOT", "NULL")):
                j = _close(item, j) + 1 if item[j].text == "(" else j + 1
            out.fks.append(_fk_clause(name, (col.name,), item[i + 1 : j]))
            i = j
        elif t.kw("AS") and i + 1 < len(item) and item[i + 1].text == "(":
            expr, i = _group(sql, item, i + 1)
            col.generated = expr.strip()
        elif t.text == "(":
            i = _close(item, i) + 1
            continue
        else:  # NOT NULL, NULL, DEFAULT ... (read from the pragmas) or their arguments
            i += 1
            if not t.kw(*_COLUMN_CONSTRAINT_START):
                continue
        name = None


# ---------------------------------------------------------------------------------------------
# Types and defaults
# ---------------------------------------------------------------------------------------------

_TYPE_RE = re.compile(r"^\s*([A-Za-z_][\w ]*?)\s*(?:\(\s*([+-]?\d+)\s*(?:,\s*([+-]?\d+)\s*)?\))?\s*$")
_INT_BITS = {"TINYINT": 8, "INT1": 8, "SMALLINT": 16, "INT2": 16, "MEDIUMINT": 24, "INT3": 24}
_VARCHAR = {
    "VARCHAR",
    "CHARACTER VARYING",
    "CHAR VARYING",
    "NVARCHAR",
    "VARYING CHARACTER",
    "NATIONAL VARYING CHARACTER",
    "NATIONAL CHARACTER VARYING",
    "NCHAR VARYING",
    "VARCHAR2",
    "NVARCHAR2",
}
_CHAR = {"CHAR", "CHARACTER", "NCHAR", "NATIVE CHARACTER", "NATIONAL CHARACTER", "NATIONAL CHAR"}
_FLOAT = {"REAL", "DOUBLE", "DOUBLE PRECISION", "FLOAT", "FLOAT8"}
_SIMPLE = {
    "BOOLEAN": m.Type(kind="boolean"),
    "BOOL": m.Type(kind="boolean"),
    "TEXT": m.Type(kind="text"),
    "CLOB": m.Type(kind="text"),
    "NTEXT": m.Type(kind="text"),
    "BLOB": m.Type(kind="blob"),
    "DATE": m.Type(kind="date"),
    "JSON": m.Type(kind="json"),
    "UUID": m.Type(kind="uuid"),
    "XML": m.Type(kind="xml"),
    "FLOAT4": m.Type(kind="float", bits=32),
    # other engines' spellings met in real SQLite files (the jOOQ Sakila port: picture bytea)
    "BYTEA": m.Type(kind="blob"),
    "BINARY": m.Type(kind="blob"),
    "VARBINARY": m.Type(kind="blob"),
    "YEAR": m.Type(kind="year"),
}


def standard_type(declared: str) -> m.Type:
    """The standard type for an SQLite declared type name."""
    mt = _TYPE_RE.match(declared)
    if not declared.strip():
        return m.Type(kind="opaque")
    if mt is None:
        return _by_affinity(declared)
    words = mt.group(1).upper().split()
    unsigned = "UNSIGNED" in words
    name = " ".join(w for w in words if w != "UNSIGNED")
    p1 = int(mt.group(2)) if mt.group(2) is not None else None
    p2 = int(mt.group(3)) if mt.group(3) is not None else None
    if name in _INT_BITS:
        return m.Type(kind="integer", bits=_INT_BITS[name], unsigned=unsigned)
    if name in ("INTEGER", "INT", "BIGINT", "INT8", "BIG INT", "INT4"):
        return m.Type(kind="integer", bits=32 if name == "INT4" else 64, unsigned=unsigned)
    if name in _VARCHAR:
        return m.Type(kind="varchar", length=p1)
    if name in _CHAR:
        return m.Type(kind="char", length=p1) if p1 is not None else m.Type(kind="text")
    if name in ("BINARY", "VARBINARY") and p1 is not None:
        return m.Type(kind=name.lower(), length=p1)
    if name in _FLOAT:
        return m.Type(kind="float", bits=32 if name == "FLOAT" and p1 is not None and p1 <= 24 else 64)
    if name in ("NUMERIC", "DECIMAL"):
        return m.Type(kind="decimal", precision=p1, scale=(p2 or 0) if p1 is not None else None)
    if name in ("DATETIME", "TIMESTAMP"):
        return m.Type(kind="timestamp", fsp=p1)
    if name == "TIME":
        return m.Type(kind="time", fsp=p1)
    if name in _SIMPLE and p1 is None:
        return _SIMPLE[name]
    return _by_affinity(declared)


def _by_affinity(declared: str) -> m.Type:
    """SQLite's affinity rules (https://www.sqlite.org/datatype3.html §3.1) for unknown names."""
    up = declared.upper()
    if "INT" in up:
        return m.Type(kind="integer", bits=64)
    if any(w in up for w in ("CHAR", "CLOB", "TEXT")):
        return m.Type(kind="text")
    if "BLOB" in up:
        return m.Type(kind="blob")
    if any(w in up for w in ("REAL", "FLOA", "DOUB")):
        return m.Type(kind="float", bits=64)
    return m.Type(kind="opaque", base=m.Type(kind="decimal"))


_NUMBER_RE = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_FUNCTIONS = {"CURRENT_TIMESTAMP": "current_timestamp", "CURRENT_DATE": "current_date", "CURRENT_TIME": "current_time"}


def parse_default(text: str | None) -> m.Default | None:
    """A column default from ``PRAGMA table_xinfo``'s ``dflt_value`` (the source text)."""
    if text is None:
        return None
    bare = strip_parens(text)
    up = bare.upper()
    if up == "NULL":
        return None
    if up in _FUNCTIONS:
        return m.Default(kind="function", value=_FUNCTIONS[up])
    if up in ("TRUE", "FALSE"):
        return m.Default(kind="literal", value="1" if up == "TRUE" else "0")
    if _NUMBER_RE.match(bare) and bare == text.strip():
        return m.Default(kind="literal", value=bare.lstrip("+"))
    toks = tokenize(bare)
    if len(toks) == 1 and toks[0].kind == "str" and bare == text.strip():
        return m.Default(kind="literal", value=toks[0].text[1:-1].replace("''", "'"))
    return m.Default(kind="expression", value=bare, dialect=ENGINE)


# ---------------------------------------------------------------------------------------------
# Index, view and trigger SQL
# ---------------------------------------------------------------------------------------------


def parse_index(sql: str) -> tuple[list[m.IndexPart], str | None]:
    """Key parts and partial-index predicate of a CREATE INDEX statement."""
    toks = tokenize(sql)
    on = next(i for i, t in enumerate(toks) if t.kw("ON"))
    start = next(i for i in range(on, len(toks)) if toks[i].text == "(")
    end = _close(toks, start)
    parts = [_index_part(sql, item) for item in _split(toks[start + 1 : end])]
    where = None
    if end + 1 < len(toks) and toks[end + 1].kw("WHERE"):
        where = sql[toks[end + 2].start :].strip()
    return parts, where


def _index_part(sql: str, item: list[Token]) -> m.IndexPart:
    descending = False
    collation = None
    if item[-1].kw("ASC", "DESC"):
        descending = item[-1].kw("DESC")
        item = item[:-1]
    if len(item) >= 3 and item[-2].kw("COLLATE"):
        collation = item[-1].ident
        item = item[:-2]
    expression = strip_parens(_text(sql, item))
    inner = tokenize(expression)
    if len(inner) == 1 and inner[0].kind in ("word", "qid"):  # "(c)" is column c, as SQLite sees it
        return m.IndexPart(column=inner[0].ident, descending=descending, collation=collation)
    return m.IndexPart(expression=expression, descending=descending, collation=collation)


def parse_view(sql: str) -> tuple[str, tuple[str, ...]]:
    """The SELECT body and the declared column names of a CREATE VIEW statement."""
    toks = tokenize(sql)
    i = next(i for i, t in enumerate(toks) if t.kw("VIEW")) + 1
    if toks[i].kw("IF"):
        i += 3
    i += 3 if i + 1 < len(toks) and toks[i + 1].text == "." else 1
    columns: tuple[str, ...] = ()
    if toks[i].text == "(":
        end = _close(toks, i)
        columns = _names(toks[i + 1 : end])
        i = end + 1
    return sql[toks[i + 1].start :].strip(), columns


@dataclass
class ParsedTrigger:
    timing: str
    event: str
    update_of: tuple[str, ...]
    when: str | None
    body: str


def parse_trigger(sql: str) -> ParsedTrigger:
    """Timing, event, WHEN and body of a CREATE TRIGGER statement."""
    toks = tokenize(sql)
    i = next(i for i, t in enumerate(toks) if t.kw("TRIGGER")) + 1
    if toks[i].kw("IF"):
        i += 3
    i += 3 if i + 1 < len(toks) and toks[i + 1].text == "." else 1
    timing = "BEFORE"
    if toks[i].kw("BEFORE", "AFTER"):
        timing, i = toks[i].text.upper(), i + 1
    elif toks[i].kw("INSTEAD"):
        timing, i = "INSTEAD OF", i + 2
    event = toks[i].text.upper()
    on = next(j for j in range(i, len(toks)) if toks[j].kw("ON"))
    update_of = tuple(t.ident for t in toks[i + 2 : on] if t.text != ",") if event == "UPDATE" else ()
    begin = next(j for j in range(on, len(toks)) if toks[j].kw("BEGIN"))
    when_at = next((j for j in range(on, begin) if toks[j].kw("WHEN")), None)
    when = _text(sql, toks[when_at + 1 : begin]) if when_at is not None else None
    end = max(j for j, t in enumerate(toks) if t.kw("END"))
    return ParsedTrigger(timing, event, update_of, when, _text(sql, toks[begin + 1 : end]))


# ---------------------------------------------------------------------------------------------
# The reflector
# ---------------------------------------------------------------------------------------------


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
        from ...model import now_utc

        try:
            schema = self._schema(conn, options)
            version = conn.execute("SELECT sqlite_version()").fetchone()[0]
        except sqlite3.DatabaseError as e:
            raise ConnectionFailed(
                f"cannot read the SQLite database: {e}", file=target.database, hint="is this an SQLite 3 database file?"
            ) from None
        path = target.database or ""
        source = m.Source(engine=ENGINE, server_version=version, database=_database_name(path), dumped_at=now_utc())
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
                expression=expr,
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


def _pc(parsed: ParsedTable, column: str) -> ParsedColumn:
    return parsed.columns.get(column.lower()) or ParsedColumn(column)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _database_name(path: str) -> str:
    """The document's database name: the file name without extension (``main`` in memory)."""
    if not path or path == ":memory:":
        return SCHEMA
    return PurePath(path).stem or SCHEMA
