"""The state of one translation (:class:`Context`) and the naming rules the DDL kit shares.

The caller (``dbjson.schemaload``, ``dbjson.schemadiff``) builds a :class:`Context` with the engine
objects it needs: the target engine, whose ``ddl_*`` hooks render the statements, and the source
engine (its identifier quoting spells a domain's ``VALUE`` as the column). The kit looks no engine
up by itself.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Protocol

from .. import model as m
from ..errors import TranslationError
from .plan import Statement, TranslationReport

_FAMILY = {"mysql": "mysql", "mariadb": "mysql", "postgresql": "postgresql", "sqlite": "sqlite"}


def engine_family(engine_name: str) -> str:
    """The engine family of an engine name (MariaDB belongs to the mysql family)."""
    return _FAMILY.get(engine_name, engine_name)


def short_hash(text: str) -> str:
    """8 hex digits of ``text``'s SHA-1: the suffix of a shortened identifier."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def refuse_nul(name: str, path: str, what: str) -> None:
    """Raise :class:`~dbjson.errors.TranslationError` when ``name`` holds U+0000: no engine takes it
    in an identifier, and the drivers cut the statement at it (PostgreSQL then reports an
    unterminated quoted identifier, MySQL a syntax error, half way through a load)."""
    if "\x00" in name:
        raise TranslationError(
            f"{what} name {name[:60]!r} holds a NUL character (U+0000), which no target takes in a name",
            pointer=path,
            value=name,
            hint="the schema document may have been crafted; see docs/security.md",
        )


class Namer:
    """Deterministic, collision-free target names within namespaces, shortened to the limit."""

    def __init__(
        self,
        limit: int,
        unit: str,
        report: TranslationReport,
        *,
        trailing_space: bool = True,
        bmp_only: bool = False,
    ) -> None:
        self.limit = limit
        self.unit = unit
        self.report = report
        self.trailing_space = trailing_space  # may a name end with a space (MySQL: no)
        self.bmp_only = bmp_only  # only characters of the Basic Multilingual Plane (MySQL's utf8mb3 names)
        self.used: dict[tuple[Any, ...], set[str]] = {}

    def refused_characters(self, name: str) -> bool:
        """Whether the target refuses (or silently changes) ``name`` for its characters: a trailing
        space where names cannot end with one, a character outside the BMP where names are utf8mb3."""
        if not self.trailing_space and name.endswith(" "):
            return True
        return self.bmp_only and any(ord(ch) > 0xFFFF for ch in name)

    def fit_characters(self, name: str) -> str:
        """``name`` with the characters the target refuses replaced (each character outside the BMP
        by ``_``, trailing spaces removed) and, when it changed, the hash suffix of the original
        (two names differing only there stay apart)."""
        if not self.refused_characters(name):
            return name
        text = "".join("_" if self.bmp_only and ord(ch) > 0xFFFF else ch for ch in name)
        if not self.trailing_space:
            text = text.rstrip(" ")
        return f"{text}_{short_hash(name)}"

    def size(self, name: str) -> int:
        return len(name.encode("utf-8")) if self.unit == "bytes" else len(name)

    def shorten(self, name: str) -> str:
        """``name`` itself when it fits, else ``name[:n] + "_" + 8 hex digits of its hash``
        (characters the target refuses replaced first: :meth:`fit_characters`)."""
        name = self.fit_characters(name)
        if not self.limit or self.size(name) <= self.limit:
            return name
        suffix = "_" + short_hash(name)
        head = name
        while self.size(head + suffix) > self.limit:
            head = head[:-1]
        return head + suffix

    def claim(self, scope: tuple[Any, ...], name: str, path: str, what: str, prefix: str | None = None) -> str:
        """A name for ``name`` unique in ``scope``; renames are reported at ``path``. A name with a
        NUL character (no engine takes one: the drivers cut the statement there) is refused."""
        refuse_nul(name, path, what)
        used = self.used.setdefault(scope, set())
        final = self.shorten(name)
        if final.lower() in used and prefix:
            final = self.shorten(f"{prefix}_{name}")
        n = 2
        base = final
        while final.lower() in used:
            final = self.shorten(f"{base}_{n}")
            n += 1
        used.add(final.lower())
        if final != name:
            if self.refused_characters(name):
                rule = "identifier-characters"
            elif self.limit and self.size(name) > self.limit:
                rule = "identifier-shortened"
            else:
                rule = "identifier-unique"
            self.report.add(path, f"{what} name {name!r} renamed to {final!r}", rule, "rename")
        return final

    def reserve(self, scope: tuple[Any, ...], name: str) -> None:
        self.used.setdefault(scope, set()).add(name.lower())


class Quoting(Protocol):
    """What the translation needs of the source engine: its identifier quoting."""

    def quote(self, ident: str) -> str: ...


class Context:
    """The state of one translation: source, target, report, names, options."""

    def __init__(
        self, db: m.Database, engine: Any, options: dict[str, Any] | None = None, *, source_engine: Quoting
    ) -> None:
        self.db = db
        self.engine = engine
        self.source = db.source.engine
        self.source_family = engine_family(self.source)
        self.same = self.source == engine.name
        self.same_family = self.source_family == engine.family
        self.source_engine = source_engine
        self.options = dict(options or {})
        # --untrusted: a document from a source not trusted to run code with the importing user's
        # rights (docs/security.md): no routines, triggers, events; views and expressions only with
        # functions of SAFE_FUNCTIONS; materialized views created without data.
        self.untrusted = bool(self.options.get("untrusted"))
        self.report = TranslationReport(self.source, engine.name)
        limits = engine.table.get("limits", {})
        self.namer = Namer(
            int(limits.get("identifier_length", 0)),
            str(limits.get("identifier_unit", "characters")),
            self.report,
            trailing_space=bool(limits.get("identifier_trailing_space", True)),
            bmp_only=bool(limits.get("identifier_bmp_only", False)),
        )
        self.caps: dict[str, Any] = engine.table.get("capabilities", {})
        self.schema_names: dict[str, str | None] = {}
        self.table_names: dict[tuple[str, str], tuple[str | None, str]] = {}
        self.column_names: dict[tuple[str, str, str], str] = {}
        self.view_names: dict[tuple[str, str], str] = {}  # (source schema, view) → the target's name
        self.identity_columns: set[tuple[str, str, str]] = set()
        self.types: list[Statement] = []  # types created on the way (PG enums)
        self.enum_types: dict[tuple[str | None, str], tuple[str, ...]] = {}
        self.post_functions: list[Statement] = []  # helper functions (PG on-update trigger)
        self.helpers_done: set[str] = set()
        self.column_types: dict[tuple[str, str, str], m.Type] = {}
        self.plain_generated: set[tuple[str, str, str]] = set()

    def untrusted_code(self, path: str, what: str) -> bool:
        """With ``untrusted``: report that ``what`` (a routine, trigger, event: code) is not created."""
        if self.untrusted:
            self.report.add(path, f"{what} not created: --untrusted runs none of a document's code", "untrusted-code")
        return self.untrusted

    def untrusted_view(self, view: m.View, path: str) -> bool:
        """With ``untrusted``: whether the view is skipped (its body calls a function off the safe list,
        or modifies data), reported. (A materialized view that stays is created without data where the
        engine has them: ``ddl_view_sql``.)"""
        if not self.untrusted:
            return False
        from .expr import unsafe_calls  # lazy: sqlglot (see expr above)

        bad = unsafe_calls(view.definition, self.source if view.dialect is None else view.dialect)
        if bad:
            self.report.add(
                path,
                f"view {view.name!r} not created: --untrusted, and its body calls {', '.join(bad[:5])} "
                "(not on the safe list)",
                "untrusted-view",
            )
            return True
        return False

    def _untrusted_problem(self, sql: str, dialect: str | None) -> str | None:
        if not self.untrusted:
            return None
        from .expr import unsafe_calls  # lazy: sqlglot (see expr above)

        bad = unsafe_calls(sql, dialect or self.source)
        return f"calls {', '.join(bad[:5])} (--untrusted allows only the functions of its safe list)" if bad else None

    def functions(self) -> set[str]:
        return {f.lower() for f in self.caps.get("functions", [])}

    def missing_functions(self, sql: str) -> list[str]:
        """The functions ``sql`` calls that the target lacks (``lacks_functions`` of its dialect
        table: what the other engine of its family has and it does not), in order of appearance."""
        lacks = {f.lower() for f in self.caps.get("lacks_functions", [])}
        if not lacks:
            return []
        bare = _QUOTED.sub(" ", sql)  # no string literal or quoted identifier is a call
        out: list[str] = []
        for name in _CALL.findall(bare):
            if name.lower() in lacks and name.lower() not in out:
                out.append(name.lower())
        return out

    def expr(
        self,
        sql: str,
        dialect: str | None,
        path: str,
        what: str,
        *,
        statement: bool = False,
        constant: bool = False,
        schema: str | None = None,
    ) -> str | None:
        """``sql`` for the target: verbatim in the same dialect, else translated or reported."""
        src = dialect or self.source
        unsafe = self._untrusted_problem(sql, src)
        if unsafe:
            self.report.add(path, f"{what} {unsafe}; dropped", "untrusted-expression")
            return None
        if not self.caps.get("sequences") and re.search(r"(?i)\b(nextval|lastval|setval)\s*\(", sql):
            self.report.add(
                path, f"{what} uses a sequence ({self.engine.name} has none); dropped", "sequence-expression"
            )
            return None
        if src == self.engine.name or engine_family(src) == self.engine.family == "mysql":
            missing = [] if src == self.engine.name else self.missing_functions(sql)
            if missing:
                self.report.add(
                    path,
                    f"{what} calls {', '.join(missing)}, which {self.engine.name} does not have; dropped",
                    "function-missing",
                )
                return None
            return self.verbatim(sql, path, what, statement=statement)
        # lazy: sqlglot is imported when DDL is made (0.1-0.3 s of every export's start-up otherwise)
        from .expr import translate

        out, reason = translate(
            sql,
            src,
            self.engine.name,
            self.functions(),
            statement=statement,
            schemas=self.schema_names,
            constant=constant and not self.caps.get("column_defaults_may_refer"),
            tables=self.table_names,
            default_schema=schema,
            nodes=tuple(self.caps.get("expression_nodes", ())),
        )
        if out is None:
            self.report.add(path, f"{what} not translated from {src} ({reason}); dropped", "expression-guard")
        elif engine_family(src) == "mysql" and re.search(r"(?i)\bgroup_concat\s*\(", sql):
            self.report.add(
                path,
                f"GROUP_CONCAT made {'string_agg' if self.engine.name == 'postgresql' else 'group_concat'}: "
                "no group_concat_max_len truncation (MySQL cuts results at 1024 bytes by default)",
                "group-concat",
                "approximation",
            )
        elif self.engine.family == "mysql" and re.search(r"(?i)\b(group_concat|string_agg)\s*\(", sql):
            self.report.add(
                path,
                "string aggregation made GROUP_CONCAT: MySQL cuts its result at group_concat_max_len "
                "(1024 bytes by default)",
                "group-concat",
            )
        return out

    def verbatim(
        self, sql: str, path: str, what: str, *, statement: bool = False, lists: bool = False, actions: bool = False
    ) -> str:
        """``sql`` copied as written into a statement for this engine, after the guard of
        :func:`~dbjson.ddl.expr.verbatim_problem`; text that could leave its slot is refused."""
        if plain_text(sql):  # a type such as varchar(100): nothing to tokenize
            return sql
        from .expr import verbatim_problem  # lazy: sqlglot (see expr above)

        reason = verbatim_problem(sql, self.engine.name, statement=statement, lists=lists, actions=actions)
        reason = reason or self._untrusted_problem(sql, self.engine.name)
        if reason:
            raise TranslationError(
                f"{what} refused: it {reason}",
                pointer=path,
                value=sql,
                hint="the schema document may have been crafted; see 'Untrusted documents' in docs/format.md",
            )
        return sql

    def type_spelling(self, sql: str, path: str, *, table: str | None = None, column: str | None = None) -> str:
        """A type spelling from the document (``native.raw``...), parsed against the target engine's
        type grammar (:func:`~dbjson.ddl.typespell.type_problem`): a type and nothing else, or refused."""
        from .typespell import type_problem

        reason = type_problem(sql, self.engine.name)
        if reason:
            raise TranslationError(
                f"type {sql[:60]!r} refused: it {reason}",
                pointer=path,
                table=table,
                column=column,
                hint="the schema document may have been crafted; see docs/security.md",
            )
        return sql

    def word(self, value: Any, path: str, what: str) -> str:
        """A document value copied as a bare word into a statement (a character set, a collation, a
        table option such as ENGINE or ROW_FORMAT, a full-text parser, a view's ALGORITHM): letters,
        digits and ``_`` only, else refused."""
        text = str(value)
        if not _WORD.fullmatch(text):
            raise TranslationError(
                f"{what} refused: {text[:60]!r} is not a plain word",
                pointer=path,
                value=text,
                hint="the schema document may have been crafted; see docs/security.md",
            )
        return text

    def storage_parameters(self, value: Any, path: str) -> list[str]:
        """PostgreSQL storage parameters (``fillfactor=70``...) as a list of ``name=value`` items."""
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if not _PARAMETER.fullmatch(str(item)):
                raise TranslationError(
                    f"storage parameter refused: {str(item)[:60]!r} is not name=value",
                    pointer=f"{path}/{i}" if isinstance(value, list) else path,
                    value=str(item),
                    hint="the schema document may have been crafted; see docs/security.md",
                )
        return [str(i) for i in items]

    def definition(
        self, sql: str, path: str, what: str, *, name: str, schema: str | None, table: str | None = None
    ) -> str:
        """A routine, trigger or event definition (a whole statement, used as written): it must be
        the CREATE statement of that kind for exactly the object its entry names (in its schema, on
        its table): :func:`~dbjson.ddl.definitions.definition_problem`."""
        from .definitions import definition_problem

        reason = definition_problem(sql, what, self.engine.name, name=name, schema=schema, table=table)
        if reason:
            raise TranslationError(
                f"{what} definition refused: it {reason}",
                pointer=path,
                value=sql,
                hint="the schema document may have been crafted; see docs/security.md",
            )
        return sql


_WORD = re.compile(r"[A-Za-z0-9_]{1,128}")
_QUOTED = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"|`(?:[^`]|``)*`")
_CALL = re.compile(r"(?<![A-Za-z0-9_$.])([A-Za-z_][A-Za-z0-9_$]*)\s*\(")
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,127}(\s*=\s*(?:[A-Za-z0-9_.+-]{1,64}|'[^'\\]{0,64}'))?")

# Text that verbatim_problem passes without a look at the engine's tokenizer: words and spaces,
# at most one parenthesized list of numbers (``decimal(12,2)``, ``timestamp(6) with time zone``,
# ``bigint unsigned``). No quote, semicolon, comment or bracket can be in it, its parentheses are
# balanced and its commas inside them. A same-engine import's native types are all like this, so
# it does not import sqlglot (0.1-0.15 s of start-up) to check them. A word that opens a clause
# (``integer REFERENCES victim``, ``int GENERATED ALWAYS AS (1) STORED``, ``0 NOT NULL``) sends
# the text to the full guard (:data:`CLAUSE_WORDS`).
PLAIN_TYPE_TEXT = re.compile(r"[A-Za-z_][A-Za-z0-9_ ]*(?:\(\s*[0-9]+(?:\s*,\s*[0-9]+)*\s*\)[A-Za-z0-9_ ]*)?")
CLAUSE_WORDS = frozenset(
    "references check generated default constraint primary unique key null not as always stored virtual "
    "on collate comment auto_increment identity using foreign cascade set delete update".split()
)


def plain_text(sql: str) -> bool:
    """``sql`` is plain type text (:data:`PLAIN_TYPE_TEXT`) with no clause word in it."""
    return bool(PLAIN_TYPE_TEXT.fullmatch(sql)) and not CLAUSE_WORDS.intersection(re.findall(r"[a-z_]+", sql.lower()))
