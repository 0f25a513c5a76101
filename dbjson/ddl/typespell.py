"""A type spelling from a document (``native.raw``, a domain's or a composite field's type) is a
type and nothing else: parsed against the engine's type grammar, anything else refused.

A spelling is copied into CREATE TABLE after the column's name, so text after the type would be
column clauses (``REFERENCES other(id) ON DELETE CASCADE``, ``CHECK (false)``, ``GENERATED ALWAYS
AS (...) STORED``, ``DEFAULT ...``, ``, another_column int``). :func:`type_problem` tokenizes the
spelling and accepts only:

* PostgreSQL: a type name — one identifier, possibly schema-qualified and quoted, or one of the
  SQL standard multi-word names (``double precision``, ``character varying``, ``bit varying``,
  ``time``/``timestamp`` ``with``/``without time zone``, ``interval`` with its fields) — then
  optional type modifiers ``(n, ...)`` (numbers, plain words or string literals), then array
  suffixes ``[]`` / ``[n]`` (or ``ARRAY``/``ARRAY[n]``).
* MySQL/MariaDB: a type name (one word, or ``double precision``, ``national char``/``varchar``,
  ``char varying``, ``long varchar``/``varbinary``...), optional ``(n[, m])`` or, for
  ``enum``/``set``, a list of quoted string literals, then the attributes the engine's column
  type allows: ``unsigned``, ``signed``, ``zerofill``, ``binary``, ``ascii``, ``unicode``, ``byte``,
  ``character set``/``charset`` NAME, ``collate`` NAME.
* SQLite: one or more words that are not column-constraint keywords, optionally ``(n[, m])``
  with signed numbers (SQLite's own type-name grammar).

Comments, semicolons, operators and any other token are refused.
"""

from __future__ import annotations

import re

MAX_TYPE_CHARS = 1 << 20  # an enum of many long values is still a type; a megabyte is not

_STRING = {  # MySQL's DDL session (schemaload.apply_ddl) reads backslash escapes; the others do not
    "mysql": r"(?P<string>'(?:[^'\\]|''|\\.)*')",
    "plain": r"(?P<string>'(?:[^']|'')*')",
}
_TOKEN_REST = r"""
    | (?P<dquote>"(?:[^"]|"")+")
    | (?P<bquote>`(?:[^`]|``)+`)
    | (?P<number>[+-]?\d+(?:\.\d+)?)
    | (?P<word>[A-Za-z_][A-Za-z0-9_$]*)
    | (?P<punct>[(),.\[\]])
    )"""
_TOKEN = {
    family: re.compile(r"\s*(?:" + string + _TOKEN_REST, re.VERBOSE | re.DOTALL) for family, string in _STRING.items()
}

# Words that begin a column clause: never part of a type (SQLite's type names are free words).
_CLAUSE_WORDS = frozenset(
    "constraint primary not null unique check default collate references generated as on autoincrement "
    "auto_increment comment".split()
)


class _Tokens:
    def __init__(self, text: str, engine: str) -> None:
        self.items: list[tuple[str, str]] = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN["mysql" if engine in ("mysql", "mariadb") else "plain"].match(text, pos)
            if m is None or m.end() == pos:
                bad = text[pos:].lstrip()[:12]
                raise _Refused(f"has {bad!r} where a type allows no such text")
            kind = m.lastgroup or ""
            if kind == "dquote" and engine != "postgresql" and engine != "sqlite":
                raise _Refused("quotes a name with double quotes")
            if kind == "bquote" and engine not in ("mysql", "mariadb"):
                raise _Refused("quotes a name with backticks")
            self.items.append((kind, m.group(kind)))
            pos = m.end()
        self.i = 0

    def peek(self, ahead: int = 0) -> tuple[str, str]:
        j = self.i + ahead
        return self.items[j] if j < len(self.items) else ("end", "")

    def word(self, *words: str) -> bool:
        kind, text = self.peek()
        if kind == "word" and text.lower() in words:
            self.i += 1
            return True
        return False

    def punct(self, p: str) -> bool:
        if self.peek() == ("punct", p):
            self.i += 1
            return True
        return False

    def expect(self, p: str) -> None:
        if not self.punct(p):
            raise _Refused(f"expects {p!r} where it has {self.peek()[1]!r}")

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        self.i += 1
        return tok

    def at_end(self) -> bool:
        return self.i >= len(self.items)


class _Refused(Exception):
    pass


def type_problem(spelling: str, engine: str) -> str | None:
    """Why ``spelling`` is not one type of ``engine`` (None: it is)."""
    if not isinstance(spelling, str):
        return "is not text"
    if not spelling.strip():
        return None if engine == "sqlite" else "is empty"  # SQLite: a column without a declared type
    if len(spelling) > MAX_TYPE_CHARS:
        return f"is longer than {MAX_TYPE_CHARS} characters"
    try:
        toks = _Tokens(spelling, engine)
        if engine == "postgresql":
            _postgresql(toks)
        elif engine in ("mysql", "mariadb"):
            _mysql(toks)
        else:
            _sqlite(toks)
        if not toks.at_end():
            rest = " ".join(t for _, t in toks.items[toks.i : toks.i + 4])
            return f"goes on after the type ({rest!r}...): a type spelling carries no clauses"
    except _Refused as e:
        return str(e)
    return None


def _plain_word(toks: _Tokens) -> str:
    kind, text = toks.take()
    if kind != "word" or text.lower() in _CLAUSE_WORDS:
        raise _Refused(f"has {text!r} where a type name belongs")
    return text.lower()


def _args(toks: _Tokens, *, strings: bool, words: bool) -> None:
    """``( item, ... )`` of numbers (and string literals, plain words where allowed)."""
    toks.expect("(")
    while True:
        kind, text = toks.take()
        ok = kind == "number" or (strings and kind == "string") or (words and kind == "word")
        if not ok or (kind == "word" and text.lower() in _CLAUSE_WORDS):
            raise _Refused(f"has {text!r} among its type modifiers")
        if toks.punct(")"):
            return
        toks.expect(",")


# -- PostgreSQL -------------------------------------------------------------------------------

_PG_MULTI = {
    "double": ("precision",),
    "character": ("varying",),
    "char": ("varying",),
    "bit": ("varying",),
    "national": ("character", "char"),
}
_PG_INTERVAL_FIELDS = ("year", "month", "day", "hour", "minute", "second")


def _postgresql(toks: _Tokens) -> None:
    kind, text = toks.peek()
    if kind == "dquote":
        toks.take()
        name = text
    else:
        name = _plain_word(toks)
    if toks.punct("."):  # schema.type
        kind, text = toks.take()
        if kind not in ("word", "dquote") or (kind == "word" and text.lower() in _CLAUSE_WORDS):
            raise _Refused(f"has {text!r} where a type name belongs")
        name = text.lower()
    elif name in _PG_MULTI:
        toks.word(*_PG_MULTI[name])
        if name == "national":
            toks.word("varying")
    if toks.peek() == ("punct", "("):
        _args(toks, strings=True, words=True)
    if name in ("time", "timestamp") and toks.word("with", "without"):
        if not (toks.word("time") and toks.word("zone")):
            raise _Refused("has WITH/WITHOUT not followed by TIME ZONE")
    if name == "interval" and toks.word(*_PG_INTERVAL_FIELDS):
        if toks.word("to") and not toks.word(*_PG_INTERVAL_FIELDS):
            raise _Refused("has an interval field range without its end")
        if toks.peek() == ("punct", "("):
            _args(toks, strings=False, words=False)
    while True:
        if toks.punct("["):
            if toks.peek()[0] == "number":
                toks.take()
            toks.expect("]")
        elif toks.word("array"):
            if toks.punct("["):
                if toks.peek()[0] == "number":
                    toks.take()
                toks.expect("]")
        else:
            return


# -- MySQL / MariaDB --------------------------------------------------------------------------

_MY_MULTI = {
    "double": ("precision",),
    "national": ("char", "character", "varchar"),
    "char": ("varying",),
    "character": ("varying",),
    "long": ("varchar", "varbinary", "char"),
}
_MY_FLAGS = ("unsigned", "signed", "zerofill", "binary", "ascii", "unicode", "byte")


def _mysql_name(toks: _Tokens) -> None:
    kind, text = toks.take()
    if kind not in ("word", "string", "bquote") or (kind == "word" and text.lower() in _CLAUSE_WORDS):
        raise _Refused(f"has {text!r} where a character set or collation name belongs")


def _mysql(toks: _Tokens) -> None:
    name = _plain_word(toks)
    if name in _MY_MULTI and toks.word(*_MY_MULTI[name]):
        if name == "national":
            toks.word("varying")
        elif name == "long":
            pass
    if toks.peek() == ("punct", "("):
        _args(toks, strings=name in ("enum", "set"), words=False)
    while not toks.at_end():
        if toks.word(*_MY_FLAGS):
            continue
        if toks.word("charset"):
            _mysql_name(toks)
        elif toks.word("character"):
            if not toks.word("set"):
                raise _Refused("has CHARACTER not followed by SET")
            _mysql_name(toks)
        elif toks.word("collate"):
            _mysql_name(toks)
        else:
            return


# -- SQLite -----------------------------------------------------------------------------------


def _sqlite(toks: _Tokens) -> None:
    kind, text = toks.peek()
    if kind == "dquote":
        toks.take()
    else:
        _plain_word(toks)
    while toks.peek()[0] == "word" and toks.peek()[1].lower() not in _CLAUSE_WORDS:
        toks.take()
    if toks.peek() == ("punct", "("):
        _args(toks, strings=False, words=False)
        if len([t for t in toks.items if t == ("punct", ",")]) > 1:
            raise _Refused("has more than two type modifiers")


__all__ = ["MAX_TYPE_CHARS", "type_problem"]
