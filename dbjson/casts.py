"""Type-mapping rules (``--cast``), as pgloader's CAST clause: a column's target type chosen by the
user instead of the translation's rules.

Two forms (docs/cli.md, "Cast rules")::

    type tinyint(1) to boolean        every column whose source type is spelled tinyint(1)
    type int to bigint                every column whose source type is int, whatever its parameters
    column orders.status to text      one column: [schema.]table.column

The source type is matched against the column's native spelling (case and spaces ignored): with
parentheses the whole spelling must match, without them its name (``int`` matches ``int(11)`` and
``int unsigned``). A column rule wins over a type rule; among rules of one form the first wins.
The target is a standard dbjson type (:data:`TARGET_TYPES`, with its parameters). A cast changes
the column's ``type`` and its ``native`` (which then names no engine: every target spells the
standard type by its own rules); the rows follow: each value is converted from the source's type
to the new one on load, and verification compares what the source held. A column rule that names
no column is an error (a typo must not look like success); a type rule that matches nothing is not.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import model as m
from .errors import UsageError

CAST_ENGINE = "cast"  # NativeType.engine of a cast column: no engine re-emits its spelling verbatim

# The target types a rule may name: spelling → (kind, fixed parameters, parameter names in order).
TARGET_TYPES: dict[str, tuple[str, dict[str, object], tuple[str, ...]]] = {
    "boolean": ("boolean", {}, ()),
    "bool": ("boolean", {}, ()),
    "tinyint": ("integer", {"bits": 8}, ()),
    "smallint": ("integer", {"bits": 16}, ()),
    "int": ("integer", {"bits": 32}, ()),
    "integer": ("integer", {"bits": 32}, ()),
    "bigint": ("integer", {"bits": 64}, ()),
    "decimal": ("decimal", {}, ("precision", "scale")),
    "numeric": ("decimal", {}, ("precision", "scale")),
    "real": ("float", {"bits": 32}, ()),
    "float": ("float", {"bits": 32}, ()),
    "double": ("float", {"bits": 64}, ()),
    "char": ("char", {}, ("length",)),
    "varchar": ("varchar", {}, ("length",)),
    "text": ("text", {}, ()),
    "binary": ("binary", {}, ("length",)),
    "varbinary": ("varbinary", {}, ("length",)),
    "blob": ("blob", {}, ()),
    "date": ("date", {}, ()),
    "time": ("time", {}, ("fsp",)),
    "timestamp": ("timestamp", {}, ("fsp",)),
    "timestamptz": ("timestamp", {"with_timezone": True}, ("fsp",)),
    "json": ("json", {}, ()),
    "jsonb": ("json", {"binary": True}, ()),
    "uuid": ("uuid", {}, ()),
    "xml": ("xml", {}, ()),
}

_RULE = re.compile(r"^\s*(type|column)\s+(.+?)\s+to\s+(.+?)\s*$", re.IGNORECASE | re.DOTALL)
_TARGET = re.compile(r"^([a-z]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$")


@dataclass(frozen=True)
class CastRule:
    """One parsed rule: ``kind`` ``type`` or ``column``, what it matches, the new type."""

    text: str  # the rule as written
    kind: str  # type | column
    match: str  # normalised source type, or [schema.]table.column
    target: m.Type
    target_text: str

    def matches_type(self, native: str) -> bool:
        raw = _norm(native)
        if "(" in self.match:
            return raw == self.match
        return re.split(r"[\s(]", raw, maxsplit=1)[0] == self.match


def _norm(text: str) -> str:
    return re.sub(r"\s*([(),])\s*", r"\1", " ".join(text.lower().split()))


def parse_target(text: str, rule: str = "") -> m.Type:
    """A standard type spelled as in :data:`TARGET_TYPES` (``varchar(64)``, ``decimal(12,2)``)."""
    mo = _TARGET.match(_norm(text))
    where = f" in cast rule {rule!r}" if rule else ""
    if mo is None or mo.group(1) not in TARGET_TYPES:
        raise UsageError(
            f"unknown target type {text!r}{where}",
            hint="a standard type: " + ", ".join(sorted(TARGET_TYPES)) + " (with (N) or (P,S) where they take them)",
        )
    kind, fixed, names = TARGET_TYPES[mo.group(1)]
    args = [int(a) for a in mo.groups()[1:] if a is not None]
    if len(args) > len(names):
        raise UsageError(f"{mo.group(1)} takes {len(names) or 'no'} parameter(s), not {len(args)}{where}")
    if kind in ("char", "varchar", "binary", "varbinary") and not args:
        raise UsageError(f"{mo.group(1)} needs a length, e.g. {mo.group(1)}(255){where}")
    return m.Type(kind=kind, **fixed, **dict(zip(names, args)))  # type: ignore[arg-type]


def parse_cast(text: str) -> CastRule:
    """``type SOURCE to TARGET`` or ``column [SCHEMA.]TABLE.COLUMN to TARGET`` → a :class:`CastRule`."""
    mo = _RULE.match(text)
    if mo is None:
        raise UsageError(
            f"cannot read cast rule {text!r}",
            hint="write 'type SOURCE-TYPE to TYPE' (type tinyint(1) to boolean) or "
            "'column [SCHEMA.]TABLE.COLUMN to TYPE' (column orders.status to text)",
        )
    kind, what, target = mo.group(1).lower(), mo.group(2).strip(), mo.group(3).strip()
    if kind == "column" and len(what.split(".")) not in (2, 3):
        raise UsageError(f"cast rule {text!r}: the column must be TABLE.COLUMN or SCHEMA.TABLE.COLUMN, not {what!r}")
    if kind == "type" and not re.match(r"^[A-Za-z][\w ]*(\([\d, ]*\))?[\w ]*$", what):
        raise UsageError(f"cast rule {text!r}: {what!r} is not a type spelling (e.g. tinyint(1), int, varchar)")
    return CastRule(text.strip(), kind, _norm(what) if kind == "type" else what, parse_target(target, text), target)


def parse_casts(rules: Iterable[str | CastRule]) -> list[CastRule]:
    """Rules as strings (the CLI's, the config file's) or already parsed."""
    return [r if isinstance(r, CastRule) else parse_cast(r) for r in rules]


@dataclass(frozen=True)
class CastApplied:
    """One column a rule changed: where in the document, from what, by which rule."""

    path: str
    column: str  # schema.table.column
    was: str  # the native spelling before
    rule: CastRule


def apply_casts(db: m.Database, rules: Sequence[str | CastRule]) -> tuple[m.Database, list[CastApplied]]:
    """``db`` with the rules applied to its columns (a new model; ``db`` is unchanged), and what changed.

    Raises UsageError for a column rule that names no column of ``db``."""
    parsed = parse_casts(rules)
    if not parsed:
        return db, []
    column_rules = [r for r in parsed if r.kind == "column"]
    type_rules = [r for r in parsed if r.kind == "type"]
    used: set[CastRule] = set()
    applied: list[CastApplied] = []
    schemas = []
    for si, s in enumerate(db.schemas):
        tables = []
        for ti, t in enumerate(s.tables):
            cols = []
            for ci, c in enumerate(t.columns):
                rule = next((r for r in column_rules if _names_column(r.match, s.name, t.name, c.name)), None)
                if rule is None:
                    rule = next((r for r in type_rules if r.matches_type(c.native.raw)), None)
                if rule is not None:
                    used.add(rule)
                    applied.append(
                        CastApplied(
                            f"/schemas/{si}/tables/{ti}/columns/{ci}/type",
                            f"{s.name}.{t.name}.{c.name}",
                            c.native.raw,
                            rule,
                        )
                    )
                    c = dataclasses.replace(
                        c, type=rule.target, native=m.NativeType(engine=CAST_ENGINE, raw=rule.target_text)
                    )
                cols.append(c)
            tables.append(dataclasses.replace(t, columns=tuple(cols)))
        schemas.append(dataclasses.replace(s, tables=tuple(tables)))
    unused = [r.text for r in column_rules if r not in used]
    if unused:
        raise UsageError(
            f"cast rule {unused[0]!r} names no column of the document",
            hint="the column is [SCHEMA.]TABLE.COLUMN as in the source (schema-dump shows the names)",
        )
    return dataclasses.replace(db, schemas=tuple(schemas)), applied


def _names_column(match: str, schema: str, table: str, column: str) -> bool:
    parts = match.split(".")
    return parts == [table, column] or parts == [schema, table, column]


__all__ = ["CastRule", "CastApplied", "TARGET_TYPES", "parse_cast", "parse_casts", "apply_casts", "parse_target"]
