"""Guarded translation of SQL expressions (defaults, checks, generated columns, views) with sqlglot.

sqlglot happily emits invalid SQL for functions it does not know (types.md §4.4), so a translation
is accepted only when every node of the parsed tree is on an allow-list, every function call is
either a node sqlglot models or on the target's ``functions`` list (dialects/*.toml), and the
output parses again with the target dialect. Anything else is refused (``None``) and reported by
the caller; nothing is emitted silently wrong.
"""

from __future__ import annotations

import re
from typing import cast

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokenizer_core import TokenType

_SQLGLOT = {"mysql": "mysql", "mariadb": "mysql", "postgresql": "postgres", "sqlite": "sqlite"}

# Node types whose meaning is the same in every supported dialect (after sqlglot's rewriting).
_ALLOWED: tuple[type[exp.Expression], ...] = (
    exp.Column,
    exp.Identifier,
    exp.Literal,
    exp.Boolean,
    exp.Null,
    exp.Paren,
    exp.Tuple,
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.And,
    exp.Or,
    exp.Not,
    exp.Is,
    exp.In,
    exp.Between,
    exp.Like,
    exp.ILike,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.Mod,
    exp.Neg,
    exp.Case,
    exp.If,
    exp.Coalesce,
    exp.Nullif,
    exp.Cast,
    exp.DataType,
    exp.Lower,
    exp.Upper,
    exp.Length,
    exp.Trim,
    exp.Substring,
    exp.Abs,
    exp.Round,
    exp.Floor,
    exp.Ceil,
    exp.Greatest,
    exp.Least,
    exp.CurrentTimestamp,
    exp.CurrentDate,
    exp.Concat,
    exp.DPipe,
    exp.Anonymous,
    exp.Star,
    exp.Select,
    exp.From,
    exp.Where,
    exp.Alias,
    exp.Table,
    exp.Join,
    exp.Group,
    exp.Order,
    exp.Ordered,
    exp.Having,
    exp.Limit,
    exp.Count,
    exp.Sum,
    exp.Avg,
    exp.Max,
    exp.Min,
    exp.Distinct,
    exp.TableAlias,
    exp.Subquery,
    exp.Union,
    exp.Exists,
    exp.Sqrt,
    exp.Pow,
    exp.Var,
    exp.Sign,
    exp.Left,
    exp.Right,
    exp.Div,
    exp.IntDiv,
    exp.DataTypeParam,
)

_INTRODUCER = re.compile(r"_(?:utf8mb4|utf8mb3|utf8|latin1|binary|ascii)\s*'", re.IGNORECASE)
_CAST_TYPES = {
    getattr(exp.DataType.Type, n)
    for n in (
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "DECIMAL",
        "DOUBLE",
        "FLOAT",
        "TEXT",
        "VARCHAR",
        "CHAR",
        "DATE",
        "TIMESTAMP",
        "DATETIME",
        "BOOLEAN",
        "NCHAR",
        "NVARCHAR",
    )
}
_STRINGY = {
    exp.DataType.Type.TEXT,
    exp.DataType.Type.VARCHAR,
    exp.DataType.Type.CHAR,
    exp.DataType.Type.NVARCHAR,
    exp.DataType.Type.NCHAR,
}


def sqlglot_dialect(engine_name: str) -> str:
    return _SQLGLOT[engine_name]


def _simplify(tree: exp.Expression) -> exp.Expression:
    """Drop PostgreSQL's casts to text types and turn ``x = ANY (ARRAY[...])`` into ``x IN (...)``.

    A whole expression that is a cast string literal (``'{}'::jsonb``, a default) becomes the literal.
    """
    if isinstance(tree, exp.Cast) and isinstance(tree.this, exp.Literal) and tree.this.is_string:
        return tree.this

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Cast) and (
            node.to.this in _STRINGY
            or (node.to.this == exp.DataType.Type.DECIMAL and not node.to.expressions)  # PG ::numeric
        ):
            return _simplify(node.this)
        if isinstance(node, exp.EQ) and isinstance(node.expression, exp.Any):
            inner = node.expression.this
            while isinstance(inner, (exp.Paren, exp.Cast)):
                inner = inner.this
            if isinstance(inner, exp.Array):
                return exp.In(this=_simplify(node.this), expressions=[_simplify(e) for e in inner.expressions])
        return node

    return tree.transform(fix)


_BOOLEAN_SHAPED = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.And,
    exp.Or,
    exp.Not,
    exp.Is,
    exp.In,
    exp.Between,
    exp.Like,
    exp.ILike,
    exp.Exists,
    exp.Boolean,
    exp.Null,
)


def _truth(node: exp.Expression) -> exp.Expression:
    """``node`` as a boolean: MySQL has no boolean type and takes any number as a condition
    (``IF(active, ...)`` on a TINYINT(1)); PostgreSQL wants a boolean there. A condition that is
    not a comparison, a logical operator or a boolean literal becomes ``(node) <> 0``, MySQL's own
    reading of it (NULL stays NULL, i.e. false)."""
    inner = node
    while isinstance(inner, exp.Paren):
        inner = inner.this
    if isinstance(inner, _BOOLEAN_SHAPED):
        return node
    operand = node.copy() if isinstance(node, (exp.Column, exp.Paren)) else exp.Paren(this=node.copy())
    return exp.Paren(this=exp.NEQ(this=operand, expression=exp.Literal.number(0)))


def _mysql_truth(tree: exp.Expression) -> exp.Expression:
    """Make the conditions of a MySQL or SQLite expression boolean for PostgreSQL (:func:`_truth`): those of
    IF() and of searched CASE, WHERE, HAVING and the operands of AND, OR and NOT."""

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.If) and not (isinstance(node.parent, exp.Case) and node.parent.this is not None):
            node.set("this", _truth(node.this))
        elif isinstance(node, (exp.Where, exp.Having, exp.Not)):
            node.set("this", _truth(node.this))
        elif isinstance(node, (exp.And, exp.Or)):
            node.set("this", _truth(node.this))
            node.set("expression", _truth(node.expression))
        return node

    return tree.transform(fix)


def _group_concat_text(tree: exp.Expression) -> exp.Expression:
    """MySQL's GROUP_CONCAT takes any values; PostgreSQL's string_agg only text: the aggregated
    value is cast to text (sqlglot renders GROUP_CONCAT as string_agg, separator ',' by default)."""

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.GroupConcat):
            holder: exp.Expression = node
            key = "this"
            inner = node.this
            ordered = isinstance(inner, exp.Order)
            if ordered:
                holder, key, inner = inner, "this", inner.this
            if isinstance(inner, exp.Distinct):
                if ordered or len(inner.expressions) != 1:
                    # PostgreSQL wants DISTINCT's ORDER BY expressions in the argument: no cast then
                    # (text arguments work; others are refused by the server, and reported)
                    return node
                holder, key, inner = inner, "expressions", inner.expressions[0]
            if not (isinstance(inner, exp.Cast) and inner.to.this == exp.DataType.Type.TEXT):
                cast_ = exp.Cast(this=inner.copy(), to=exp.DataType.build("text"))
                holder.set(key, [cast_] if key == "expressions" else cast_)
        return node

    return tree.transform(fix)


def _byte_length(tree: exp.Expression, write: str) -> tuple[exp.Expression, str]:
    """MySQL's LENGTH() counts bytes (CHAR_LENGTH characters); PostgreSQL's and SQLite's LENGTH()
    count characters. PostgreSQL gets octet_length(); SQLite (before 3.43) has no byte count that
    passes the guard, so the expression is refused there: ``(tree, reason)``."""
    if not any(isinstance(n, exp.Length) and n.args.get("binary") for n in tree.walk()):
        return tree, ""
    if write != "postgres":
        return tree, "LENGTH() counts bytes in MySQL and characters here"

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Length) and node.args.get("binary"):
            return exp.Anonymous(this="octet_length", expressions=[node.this])
        return node

    return tree.transform(fix), ""


# PostgreSQL's UUID generators (uuid-ossp, pgcrypto, core) and what they make: MySQL's and MariaDB's
# UUID() is a version-1 (time-based) UUID, as uuid_generate_v1() is.
_PG_UUID_FUNCTIONS = {"uuid_generate_v1": 1, "uuid_generate_v1mc": 1, "uuid_generate_v4": 4, "gen_random_uuid": 4}


# PostgreSQL's special date/time input strings: a cast of one means something no other engine's cast does
_PG_SPECIAL_DATETIME = {"now", "today", "tomorrow", "yesterday", "infinity", "-infinity", "epoch", "allballs"}
_TEMPORAL = {
    exp.DataType.Type.DATE,
    exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPTZ,
    exp.DataType.Type.DATETIME,
    exp.DataType.Type.TIME,
    exp.DataType.Type.TIMETZ,
}


def _special_datetime(tree: exp.Expression) -> str | None:
    """The special input string a PostgreSQL expression casts to a date/time type ('now'::text::date),
    or None."""
    for node in tree.walk():
        if isinstance(node, exp.Cast) and node.to.this in _TEMPORAL:
            inner = node.this
            while isinstance(inner, (exp.Cast, exp.Paren)):
                inner = inner.this
            if (
                isinstance(inner, exp.Literal)
                and inner.is_string
                and inner.name.strip().lower() in _PG_SPECIAL_DATETIME
            ):
                return inner.name
    return None


def regclass_name(text: str) -> tuple[str | None, str]:
    """``public.seq`` / ``"Odd".seq`` / ``seq`` (a regclass literal's text) → (schema or None, name)."""
    parts: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            j = i + 1
            buf = ""
            while j < n:
                if text[j] == '"' and j + 1 < n and text[j + 1] == '"':
                    buf += '"'
                    j += 2
                elif text[j] == '"':
                    break
                else:
                    buf += text[j]
                    j += 1
            parts.append(buf)
            i = j + 1
        else:
            j = text.find(".", i)
            j = n if j < 0 else j
            parts.append(text[i:j].lower())
            i = j
        if i < n and text[i] == ".":
            i += 1
    return (parts[-2] if len(parts) > 1 else None), (parts[-1] if parts else text)


_NEXTVAL_RE = re.compile(r"\s*nextval\('((?:[^']|'')*)'(?:::regclass)?\)\s*", re.IGNORECASE)


def nextval_sequence(sql: str, source: str) -> tuple[str | None, str] | None:
    """(schema, sequence) when the whole expression is PostgreSQL's ``nextval('seq'::regclass)``."""
    if _SQLGLOT.get(source) != "postgres":
        return None
    found = _NEXTVAL_RE.fullmatch(sql)
    return regclass_name(found.group(1).replace("''", "'")) if found else None


def _pg_nextval(tree: exp.Expression, schemas: dict[str, str | None], default_schema: str | None) -> exp.Expression:
    """``nextval('s'::regclass)`` → MariaDB's ``NEXTVAL(s)`` (the sequence in its target schema)."""

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Anonymous) and str(node.name).lower() == "nextval" and len(node.expressions) == 1:
            arg = node.expressions[0]
            while isinstance(arg, exp.Cast):
                arg = arg.this
            if isinstance(arg, exp.Literal) and arg.is_string:
                schema, name = regclass_name(arg.name)
                key = schema or default_schema
                target = schemas.get(key) if key is not None and key in schemas else schema
                seq = exp.Table(this=exp.to_identifier(name), db=exp.to_identifier(target) if target else None)
                return exp.Anonymous(this="NEXTVAL", expressions=[seq])
        return node

    return tree.transform(fix)


def _mariadb_nextval(
    tree: exp.Expression, schemas: dict[str, str | None], default_schema: str | None
) -> exp.Expression:
    """MariaDB's ``NEXTVAL(s)`` / ``NEXTVAL(db.s)`` → PostgreSQL's ``nextval('schema.s')`` (the sequence
    in its target schema)."""

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Anonymous) and str(node.name).lower() == "nextval" and len(node.expressions) == 1:
            arg = node.expressions[0]
            if isinstance(arg, (exp.Column, exp.Table)) and arg.name:
                qualifier = arg.table if isinstance(arg, exp.Column) else arg.db
                key = qualifier or default_schema
                target = schemas.get(key) if key is not None and key in schemas else qualifier or None
                quoted = '"' + arg.name.replace('"', '""') + '"'
                if target:
                    quoted = '"' + target.replace('"', '""') + '".' + quoted
                return exp.Anonymous(this="nextval", expressions=[exp.Literal.string(quoted)])
        return node

    return tree.transform(fix)


def generator_default(sql: str, source: str) -> str | None:
    """``uuid`` when the whole expression is a call of a PostgreSQL UUID generator (the ``function``
    default a target without that function spells its own way), else None."""
    if _SQLGLOT.get(source) != "postgres":
        return None
    name = re.sub(r'^(?:"?\w+"?\.)?', "", sql.strip()).lower()
    return "uuid" if name.endswith("()") and name[:-2] in _PG_UUID_FUNCTIONS else None


def _uuid_generators(tree: exp.Expression, functions: set[str]) -> exp.Expression:
    """A call of a PostgreSQL UUID generator (``public.uuid_generate_v1()``: extensions' functions are
    often schema-qualified) becomes the target's ``uuid()`` when it has one."""
    if "uuid" not in functions:
        return tree

    def fix(node: exp.Expression) -> exp.Expression:
        call = node.expression if isinstance(node, exp.Dot) else node
        if isinstance(call, exp.Uuid) or (
            isinstance(call, exp.Anonymous) and not call.expressions and str(call.name).lower() in _PG_UUID_FUNCTIONS
        ):
            return exp.Uuid()
        return node

    return tree.transform(fix)


def _guard(tree: exp.Expression, functions: set[str], nodes: tuple[type[exp.Expression], ...] = ()) -> str | None:
    """The reason the tree is refused, or None when it passes the allow-list."""
    for node in tree.walk():
        if not isinstance(node, _ALLOWED + nodes):
            return f"unsupported construct {type(node).__name__}"
        if isinstance(node, exp.DataType) and node.this not in _CAST_TYPES:
            return f"cast to {node.this.value} is not portable"
        if isinstance(node, exp.Anonymous) and str(node.name).lower() not in functions:
            return f"function {node.name}() is not known to translate"
    return None


Tables = dict[tuple[str, str], tuple[str | None, str]]


def _requalify(
    tree: exp.Expression, schemas: dict[str, str | None], tables: Tables, default_schema: str | None
) -> exp.Expression:
    """Point table references (and schema-qualified columns) at the target schemas and names."""

    def fix(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table):
            db = node.args.get("db")
            key = (db.name if db is not None else default_schema, node.name)
            if key in tables:
                tschema, tname = tables[key]
                if tname != node.name and not node.alias:
                    # keep the old name as an alias: column references qualified with it still work
                    node.set("alias", exp.TableAlias(this=exp.to_identifier(node.name)))
                node.set("this", exp.to_identifier(tname))
                node.set("db", exp.to_identifier(tschema) if tschema and db is not None else None)
                return node
        if isinstance(node, (exp.Table, exp.Column)):
            db = node.args.get("db")
            if db is not None and db.name in schemas:
                if isinstance(node, exp.Column) and (db.name, node.table) in tables:
                    node.set("table", exp.to_identifier(tables[(db.name, node.table)][1]))
                target = schemas[db.name]
                node.set("db", exp.to_identifier(target) if target else None)
        return node

    return tree.transform(fix)


def translate(
    sql: str,
    source: str,
    target: str,
    functions: set[str],
    *,
    statement: bool = False,
    schemas: dict[str, str | None] | None = None,
    constant: bool = False,
    tables: Tables | None = None,
    default_schema: str | None = None,
    nodes: tuple[str, ...] = (),
) -> tuple[str | None, str]:
    """Translate ``sql`` from engine ``source`` to engine ``target``.

    Returns ``(translated, "")`` or ``(None, reason)``. ``statement`` parses a whole SELECT
    (views) instead of a scalar expression.
    """
    read, write = _SQLGLOT[source], _SQLGLOT[target]
    text = _INTRODUCER.sub("'", sql.strip())
    try:
        tree = cast(exp.Expression, sqlglot.parse_one(text, read=read))
    except SqlglotError as e:
        return None, f"cannot parse: {str(e).splitlines()[0][:120]}"
    if not statement and any(isinstance(n, (exp.Select, exp.Subquery)) for n in tree.walk()):
        return None, "a subquery cannot be translated"
    if read == "postgres" and write != "postgres":
        special = _special_datetime(tree)
        if special is not None:
            return None, f"PostgreSQL's special date/time input {special!r} has no counterpart"
    if read == "postgres" and write == "mysql" and "nextval" in functions:
        tree = _pg_nextval(tree, schemas or {}, default_schema)
    if read == "mysql" and write == "postgres" and "nextval" in functions:
        tree = _mariadb_nextval(tree, schemas or {}, default_schema)
    tree = _simplify(tree)
    if read in ("mysql", "sqlite") and write == "postgres":  # no boolean type there: numbers are conditions
        tree = _mysql_truth(tree)
    if write == "postgres":
        tree = _group_concat_text(tree)
    if read == "postgres" and write != "postgres":
        tree = _uuid_generators(tree, functions)
    if read == "postgres" and write == "mysql":
        tree = tree.transform(_null_ignoring_extremum)
    if read in ("mysql", "sqlite") and write == "postgres":
        tree = tree.transform(_null_propagating_extremum)
    if read == "mysql" and write != "mysql":
        tree, refused = _byte_length(tree, write)
        if refused:
            return None, refused
    if schemas or tables:
        tree = _requalify(tree, schemas or {}, tables or {}, default_schema)
    extra = tuple(getattr(exp, n) for n in nodes if isinstance(getattr(exp, n, None), type))
    if "uuid" in functions:
        extra += (exp.Uuid,)
    if read != write:
        extra += (exp.GroupConcat,)  # GROUP_CONCAT / string_agg / group_concat (base.expr reports the length limit)
    reason = _guard(tree, functions, extra)
    if constant and not reason and any(isinstance(n, exp.Column) for n in tree.walk()):
        reason = "a default cannot refer to columns here"
    if reason:
        return None, reason
    try:
        out = tree.sql(dialect=write, identify=True, comments=False, unsupported_level=sqlglot.ErrorLevel.RAISE)
        again = cast(exp.Expression, sqlglot.parse_one(out, read=write))
    except SqlglotError as e:
        return None, f"cannot render for {target}: {str(e).splitlines()[0][:120]}"
    if _guard(again, functions | _known_names(tree), extra) is not None:
        return None, "the translation does not parse back cleanly"
    return out, ""


def _null_ignoring_extremum(node: exp.Expression) -> exp.Expression:
    """PostgreSQL's LEAST/GREATEST ignore NULL arguments (NULL only when all are); MySQL's and
    MariaDB's return NULL when any is: ``LEAST(a, b)`` becomes ``LEAST(COALESCE(a, b), COALESCE(b, a))``
    (each argument, or another that is not NULL), as sqlglot writes SQLite's MIN/MAX. Supabase's
    ``auth.users.confirmed_at`` is ``LEAST(email_confirmed_at, phone_confirmed_at)``."""
    if isinstance(node, (exp.Least, exp.Greatest)) and node.args.get("ignore_nulls"):
        args = [node.this, *node.expressions]
        if len(args) > 1:
            rotated = [
                exp.Coalesce(this=args[i].copy(), expressions=[a.copy() for a in args[i + 1 :] + args[:i]])
                for i in range(len(args))
            ]
            return type(node)(this=rotated[0], expressions=rotated[1:])
    return node


def _null_propagating_extremum(node: exp.Expression) -> exp.Expression:
    """The other way (MySQL, MariaDB, SQLite's multi-argument MIN/MAX → PostgreSQL): NULL when any
    argument is NULL, as the source computed it: ``CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE
    LEAST(a, b) END``."""
    if isinstance(node, (exp.Least, exp.Greatest)) and not node.args.get("ignore_nulls"):
        args = [node.this, *node.expressions]
        if len(args) > 1:
            cond = exp.or_(*[exp.Is(this=a.copy(), expression=exp.Null()) for a in args])
            inner = type(node)(this=args[0].copy(), expressions=[a.copy() for a in args[1:]], ignore_nulls=True)
            return exp.Case(ifs=[exp.If(this=cond, true=exp.Null())], default=inner)
    return node


def verbatim_problem(
    sql: str, engine_name: str, *, statement: bool = False, lists: bool = False, actions: bool = False
) -> str | None:
    """Why ``sql`` (document text copied verbatim into a statement for ``engine_name``) is refused, or None.

    Expressions are SQL by design, so a same-engine document's defaults, checks, generated columns,
    index expressions, predicates, partition keys and view bodies are used as written. They must
    stay inside their slot: no ``;`` outside quotes (a second statement), no parenthesis closed
    that the text did not open (or left open), and, for scalar expressions (not ``statement``),
    no comment (which could swallow the rest of the line) and no top-level comma (which could add
    a column or a constraint) unless ``lists`` (a partition key). Quoting follows the engine's
    tokenizer (sqlglot), so ``';'`` inside a string literal or a quoted name is fine. ``actions``: a
    rule's parenthesized action list (``DO INSTEAD (INSERT ...; UPDATE ...)``) may hold ``;``.
    """
    try:
        tokens = Dialect.get_or_raise(_SQLGLOT[engine_name]).tokenize(sql)
    except SqlglotError as e:
        return f"cannot be tokenized ({str(e).splitlines()[0][:80]})"
    depth = 0
    for tok in tokens:
        if tok.token_type == TokenType.SEMICOLON and not (actions and depth > 0):
            return "contains ';' outside quotes (a second statement)"
        if tok.comments and not statement:
            return "contains a comment"
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
            if depth < 0:
                return "closes a parenthesis it did not open"
        elif tok.token_type == TokenType.COMMA and depth == 0 and not (statement or lists):
            return "is a list where one expression belongs"
    if depth:
        return "leaves a parenthesis open"
    return None


def _known_names(tree: exp.Expression) -> set[str]:
    return {str(n.name).lower() for n in tree.walk() if isinstance(n, exp.Anonymous)}


# Functions a view body or an expression may call in --untrusted mode (docs/security.md): pure
# functions of their arguments, on every engine; nothing that reads or writes files, large objects,
# other databases, settings or sessions, and no user-defined function (a document's routines are
# not created in that mode, and one already on the target is not the document's to call).
SAFE_FUNCTIONS = frozenset(
    """
    abs avg bit_length btrim cast ceil ceiling char_length character_length coalesce concat concat_ws
    count current_date current_time current_timestamp date date_part date_trunc datetime day
    dense_rank exp extract first_value floor greatest hour ifnull iif instr julianday lag last_value
    lead least left length ln localtime localtimestamp log lower lpad ltrim max min minute mod month
    now nth_value ntile nullif octet_length percent_rank position power rank repeat replace reverse
    right round row_number rpad rtrim second sign sqrt strftime string_agg group_concat substr
    substring sum time timestamp trim trunc unixepoch upper year bool_and bool_or every array_agg
    json_agg jsonb_agg to_char to_date to_timestamp to_number md5 convert date_format str_to_date
    if isnull
    """.split()
)
# Words a tokenizer sees before a parenthesis that are syntax, not calls.
_NOT_CALLS = frozenset(
    """
    in exists any all some values as and or not on using over filter within partition by select
    from where join is between like ilike then else when case interval distinct union except
    intersect with array row rows range group order having limit returning lateral
    unnest generate_series varchar char character numeric decimal varbinary binary signed unsigned
    integer int bigint smallint float double real text date time timestamp json jsonb
    gist gin btree hash spgist brin
    """.split()
)
_DML = frozenset({"insert", "update", "delete", "merge", "copy", "call", "do", "execute", "load", "into"})


def unsafe_calls(sql: str, dialect: str) -> list[str]:
    """The functions ``sql`` calls that are not in :data:`SAFE_FUNCTIONS` (qualified names count as
    calls of other functions), and any data-modifying keyword; an empty list when it is safe to run
    for --untrusted. Text that cannot be tokenized is unsafe."""
    try:
        tokens = Dialect.get_or_raise(_SQLGLOT.get(dialect, dialect)).tokenize(sql)
    except (SqlglotError, ValueError) as e:
        return [f"(untokenizable: {str(e).splitlines()[0][:40]})"]
    bad: list[str] = []
    for i, tok in enumerate(tokens):
        calls = i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.L_PAREN
        if tok.token_type == TokenType.STRING:
            continue
        if tok.token_type == TokenType.IDENTIFIER:  # a quoted name
            if calls:
                bad.append(tok.text)  # a user-defined function
            continue
        text = tok.text.lower()
        if text in _DML:
            bad.append(text.upper())
            continue
        if not calls:
            continue
        prev = tokens[i - 1] if i else None
        if prev is not None and prev.token_type in (TokenType.ALIAS, TokenType.DCOLON):
            continue  # a type's modifiers: CAST(x AS numeric(10, 2)), x::varchar(5)
        qualified = prev is not None and prev.token_type == TokenType.DOT
        if qualified or (text not in SAFE_FUNCTIONS and text not in _NOT_CALLS):
            bad.append(tok.text)
    return sorted(set(bad))
