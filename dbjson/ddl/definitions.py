"""A routine, trigger or event definition creates exactly the object its entry names.

A document's routine, trigger and event entries carry their complete CREATE statement
(``definition``), run as written on the same engine. :func:`definition_problem` reads the
statement's head with a tokenizer that knows the engine's quoting and comments (``"x"``, `` `x` ``,
``'...'``, ``--``, ``/* */``, ``#`` on MySQL) and checks that it is the CREATE statement of that kind
for the entry's name — in the entry's schema when qualified — and, for a trigger, on the entry's
table. ``CREATE OR REPLACE FUNCTION public.victim_fn()`` under an entry ``f``, or a trigger entry on
``items`` whose definition says ``ON public.victim``, is refused. That the definition is one
statement is the server's own parser's call: PostgreSQL runs it through the extended query
protocol (one statement only), MySQL/MariaDB connections do not allow several statements, and
SQLite executes one statement.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"""\s+|--[^\n]*|/\*.*?\*/|\#[^\n]*
    |(?P<dquote>"(?:[^"]|"")*")
    |(?P<bquote>`(?:[^`]|``)*`)
    |(?P<string>'(?:[^'\\]|''|\\.)*')
    |(?P<word>[^\W\d][\w$]*)
    |(?P<punct>[().,=@;])
    |(?P<other>\S)""",
    re.VERBOSE | re.DOTALL,
)
_HEAD_TOKENS = 400  # the head of a CREATE statement is short; bodies are not read


def _tokens(sql: str, engine: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    mysql = engine in ("mysql", "mariadb")
    while pos < len(sql) and len(out) < _HEAD_TOKENS:
        if not mysql and sql.startswith("#", pos):  # only MySQL reads # as a comment
            out.append(("other", "#"))
            pos += 1
            continue
        m = _TOKEN.match(sql, pos)
        if m is None:
            break
        pos = m.end()
        if m.lastgroup is not None:
            out.append((m.lastgroup, m.group(m.lastgroup)))
    return out


def _ident(tok: tuple[str, str], engine: str) -> str | None:
    """An identifier's name as the engine resolves it (None: not an identifier)."""
    kind, text = tok
    if kind == "dquote" and engine in ("postgresql", "sqlite"):
        return text[1:-1].replace('""', '"')
    if kind == "bquote" and engine in ("mysql", "mariadb", "sqlite"):
        return text[1:-1].replace("``", "`")
    if kind == "word":
        return text.lower() if engine == "postgresql" else text
    return None


class _Head:
    def __init__(self, sql: str, engine: str) -> None:
        self.toks = _tokens(sql, engine)
        self.engine = engine
        self.i = 0

    def word(self, *words: str) -> bool:
        if self.i < len(self.toks) and self.toks[self.i][0] == "word" and self.toks[self.i][1].upper() in words:
            self.i += 1
            return True
        return False

    def punct(self, p: str) -> bool:
        if self.i < len(self.toks) and self.toks[self.i] == ("punct", p):
            self.i += 1
            return True
        return False

    def qualified(self) -> tuple[str | None, str] | None:
        """``[schema.]name`` at the cursor."""
        if self.i >= len(self.toks):
            return None
        first = _ident(self.toks[self.i], self.engine)
        if first is None:
            return None
        self.i += 1
        if self.punct("."):
            second = _ident(self.toks[self.i], self.engine) if self.i < len(self.toks) else None
            if second is None:
                return None
            self.i += 1
            return first, second
        return None, first

    def user(self) -> None:
        """A MySQL account (``DEFINER = user@host``, quoted or not, or CURRENT_USER[()])."""
        if self.word("CURRENT_USER"):
            if self.punct("("):
                self.punct(")")
            return
        self.i += 1
        if self.punct("@"):
            self.i += 1
        elif self.i < len(self.toks) and self.toks[self.i][1].startswith("@"):
            self.i += 1


_KINDS = {
    "routine": ("FUNCTION", "PROCEDURE", "AGGREGATE"),
    "trigger": ("TRIGGER",),
    "event": ("EVENT",),
    "collation": ("COLLATION",),  # PostgreSQL schema options: collations and range types
    "type": ("TYPE",),
}


def _same(a: str, b: str, engine: str) -> bool:
    return a == b if engine == "postgresql" else a.lower() == b.lower()


def definition_problem(
    sql: str, what: str, engine: str, *, name: str, schema: str | None, table: str | None = None
) -> str | None:
    """Why ``sql`` is not the CREATE statement of the ``what`` (routine, trigger, event) named
    ``name`` in ``schema`` (on ``table``, for a trigger), or None."""
    h = _Head(sql, engine)
    allowed = _KINDS[what]
    if not h.word("CREATE"):
        return f"is not a CREATE {' or '.join(allowed)} statement"
    if h.word("OR") and not h.word("REPLACE"):
        return "has OR without REPLACE"
    if h.word("DEFINER"):
        if not h.punct("="):
            return "has DEFINER without '='"
        h.user()
    if h.word("SQL"):
        if not h.word("SECURITY"):
            return "has SQL without SECURITY"
        h.i += 1
    h.word("CONSTRAINT", "TEMP", "TEMPORARY")
    if what == "routine" and h.word("AGGREGATE"):
        h.word("FUNCTION")
    elif not h.word(*allowed):
        return f"is not a CREATE {' or '.join(allowed)} statement"
    if h.word("IF"):
        if not (h.word("NOT") and h.word("EXISTS")):
            return "has IF without NOT EXISTS"
    created = h.qualified()
    if created is None:
        return "names no object after its kind"
    qual, obj = created
    if not _same(obj, name, engine):
        return f"creates {obj!r}, not {name!r} (the object its entry names)"
    if qual is not None and schema is not None and not _same(qual, schema, engine):
        return f"creates its object in schema {qual!r}, not {schema!r}"
    if what == "trigger":
        depth = 0
        while h.i < len(h.toks):  # events (INSERT OR UPDATE OF a, b ...) up to ON, then the table
            tok = h.toks[h.i]
            if tok == ("punct", "("):
                depth += 1
            elif tok == ("punct", ")"):
                depth -= 1
            elif depth == 0 and tok[0] == "word" and tok[1].upper() == "ON":
                break
            elif depth == 0 and tok[0] == "word" and tok[1].upper() in ("FOR", "EXECUTE", "BEGIN", "WHEN"):
                return "names no table (no ON before its body)"
            h.i += 1
        if not h.word("ON"):
            return "names no table"
        on = h.qualified()
        if on is None:
            return "names no table after ON"
        tqual, tname = on
        if table is not None and not _same(tname, table, engine):
            return f"is on table {tname!r}, not {table!r} (the table its entry names)"
        if tqual is not None and schema is not None and not _same(tqual, schema, engine):
            return f"is on a table of schema {tqual!r}, not {schema!r}"
    return None


__all__ = ["definition_problem"]
