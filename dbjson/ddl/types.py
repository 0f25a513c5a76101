"""Standard type → target type, driven by the ``[[types.<kind>]]`` rule tables of ``dialects/*.toml``.

A rule is a table with ``sql`` (a template), optional ``when`` (conditions, all must hold),
``check`` (a CHECK template that keeps the source's range), ``result`` (the standard type the
target column ends up with, merged over the source type), ``rule`` (an id for the report) and
``lost`` + ``severity`` (what the report says). The first rule whose conditions hold wins.

Conditions: ``<field> = value`` (a :class:`~dbjson.model.Type` field or a context key: ``in_key``,
``identity``, ``source``, ``source_family``, ``too_long_for_key``, ``scale_over_precision``,
``enum_label_bytes``, ``enum_label_chars``), ``<field>_le``/``<field>_ge``
(numeric bounds), ``<field>_null = true|false`` and ``target_version_ge``/``target_version_lt =
"10.7"`` (the target server version, from ``--server-version`` or the live server).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .. import model as m
from ..errors import TranslationError


@dataclass(frozen=True, slots=True)
class TypeChoice:
    """The outcome of mapping one standard type: SQL text, the resulting type and extra checks."""

    sql: str
    type: m.Type
    checks: tuple[str, ...] = ()
    rule: str = ""
    lost: str | None = None
    severity: str = "loss"


def _value(t: m.Type, ctx: dict[str, Any], key: str) -> Any:
    if key in ctx:
        return ctx[key]
    return getattr(t, key, None)


def _test(suffix: str, value: Any, want: Any) -> bool:
    if suffix == "_null":
        return (value is None) == bool(want)
    if value is None:
        return False
    return bool(value <= want) if suffix == "_le" else bool(value >= want)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in str(text).split("."))


def _holds(t: m.Type, ctx: dict[str, Any], key: str, want: Any) -> bool:
    if key in ("target_version_ge", "target_version_lt"):
        have = tuple(ctx.get("target_version", ()))
        return have >= _version(want) if key.endswith("_ge") else have < _version(want)
    for suffix in ("_le", "_ge", "_null"):
        field = key[: -len(suffix)]
        if key.endswith(suffix) and (field in ctx or hasattr(t, field)):
            return _test(suffix, _value(t, ctx, field), want)
    value = _value(t, ctx, key)
    if isinstance(value, tuple):
        value = list(value)
    return bool(value == want)


def rule_matches(rule: dict[str, Any], t: m.Type, ctx: dict[str, Any]) -> bool:
    """True when every condition of ``rule['when']`` holds for type ``t`` in context ``ctx``."""
    return all(_holds(t, ctx, k, v) for k, v in rule.get("when", {}).items())


def find_rule(table: dict[str, Any], t: m.Type, ctx: dict[str, Any]) -> dict[str, Any]:
    """The first matching rule of the target's table for ``t.kind`` (TranslationError if none)."""
    for rule in table.get("types", {}).get(t.kind, []):
        if rule_matches(rule, t, ctx):
            return dict(rule)
    raise TranslationError(f"no {table.get('name')} type for standard kind {t.kind!r}")


def result_type(t: m.Type, result: dict[str, Any]) -> m.Type:
    """The source type with the rule's ``result`` fields merged over it."""
    if not result:
        return t
    changes: dict[str, Any] = {}
    for key, value in result.items():
        if value == "__none__":
            changes[key] = None
        elif key in ("element", "base"):
            changes[key] = m.Type(**value)
        elif key == "values":
            changes[key] = tuple(value)
        else:
            changes[key] = value
    if "kind" in result and result["kind"] != t.kind:
        keep = {f: getattr(t, f) for f in _CARRY.get(result["kind"], ()) if getattr(t, f) not in (None, ())}
        return m.Type(**{**keep, **changes})
    return dataclasses.replace(t, **changes)


# When a rule changes the kind, the parameters that still mean the same thing carry over.
_CARRY: dict[str, tuple[str, ...]] = {
    "char": ("length",),
    "varchar": ("length",),
    "binary": ("length",),
    "varbinary": ("length",),
    "decimal": ("precision", "scale"),
    "timestamp": ("fsp",),
    "time": ("fsp",),
    "text": ("max_bytes",),
    "blob": ("max_bytes",),
    "array": ("element",),
    "enum": ("values",),
    "set": ("values",),
}


def complete_type(t: m.Type) -> m.Type:
    """Fill parameters a source left open (SQLite): the widest safe choice."""
    if t.kind in ("time", "timestamp") and t.fsp is None:
        return m.replace(t, fsp=6)
    if t.kind == "char" and t.length is None:
        return m.replace(t, kind="varchar")
    if t.kind == "binary" and t.length is None:
        return m.replace(t, kind="varbinary")
    if t.kind == "bit" and t.length is None and not t.varying:
        return m.replace(t, length=1)
    if t.kind in ("integer", "float") and t.bits is None:
        return m.replace(t, bits=64)
    return t
