"""SQLite reflection: the ``CREATE`` statements ``sqlite_master`` keeps, parsed for what the pragmas do
not give (constraint names, CHECK constraints, AUTOINCREMENT, generation expressions, COLLATE, index
expressions and predicates, view bodies, trigger parts), and column defaults.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ... import model as m

ENGINE = "sqlite"  # the engine's name in the model, and the dialect of the expressions parsed here

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
# Defaults
# ---------------------------------------------------------------------------------------------

_NUMBER_RE = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_FUNCTIONS = {"CURRENT_TIMESTAMP": "current_timestamp", "CURRENT_DATE": "current_date", "CURRENT_TIME": "current_time"}
# SQLite has no UUID function: the default of a column whose source generated UUIDs (PostgreSQL's
# gen_random_uuid(), MySQL's UUID()) is this expression, a random (version 4) UUID in canonical text;
# reflection reads it back as the ``uuid`` function default.
UUID_V4_SQL = (
    "lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2)"
    " || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || "
    "lower(hex(randomblob(6)))"
)


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
    if " ".join(bare.split()) == UUID_V4_SQL:
        return m.Default(kind="function", value="uuid")
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
