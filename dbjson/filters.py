"""Table filters (``--tables``/``-t``, ``--exclude``/``-x``, ``--where``/``-w``) must name something.

A glob that matches no table is a typo, not a wish: ``export -t nosuchtable`` once exported
nothing and exited 0. Every command that takes these filters checks them against the tables it
could have chosen from (:func:`check_filters`) and fails with a :class:`~dbjson.errors.UsageError`
naming the option, the pattern and the closest names, as ``pg_dump`` does ("no matching tables
were found").
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable, Sequence

from . import model as m
from .errors import UsageError


def matches(glob: str, schema: str, table: str) -> bool:
    """Does ``glob`` match ``table`` or ``schema.table`` (case-sensitive)?"""
    return fnmatch.fnmatchcase(table, glob) or fnmatch.fnmatchcase(f"{schema}.{table}", glob)


def where_applies(key: str, schema: str, table: str) -> bool:
    """Does the table part of a ``--where TABLE:CONDITION`` name ``schema.table``?"""
    return key in (table, f"{schema}.{table}") or fnmatch.fnmatchcase(table, key)


def selected(
    candidates: Iterable[tuple[str, str]], tables: Sequence[str], exclude: Sequence[str]
) -> list[tuple[str, str]]:
    """The ``(schema, table)`` pairs of ``candidates`` the filters keep."""
    return [
        (s, t)
        for s, t in candidates
        if (not tables or any(matches(g, s, t) for g in tables)) and not any(matches(g, s, t) for g in exclude)
    ]


def _hint(glob: str, candidates: list[tuple[str, str]], where: str) -> str:
    names = sorted({t for _s, t in candidates} | {f"{s}.{t}" for s, t in candidates if s})
    close = difflib.get_close_matches(glob, names, n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "? (globs are case-sensitive)"
    if not candidates:
        return f"there are no tables in {where}"
    shown = ", ".join(sorted({t for _s, t in candidates})[:8])
    more = f", ... ({len(candidates)} in all)" if len(candidates) > 8 else ""
    return f"the tables in {where}: {shown}{more} (globs are case-sensitive)"


def relations(db: m.Database) -> list[tuple[str, str]]:
    """The ``(schema, name)`` of every table and view of a schema document: what filters choose
    from (a glob naming a view is not a typo: an import creates the views the filters name)."""
    return [(s.name, t.name) for s in db.schemas for t in s.tables] + [
        (s.name, v.name) for s in db.schemas for v in s.views
    ]


def check_filters(
    candidates: Iterable[tuple[str, str]],
    *,
    tables: Sequence[str] = (),
    exclude: Sequence[str] = (),
    where: Iterable[str] = (),
    where_label: str = "--where",
    source: str = "the source database",
) -> None:
    """Raise :class:`UsageError` when a filter names nothing.

    ``candidates``: every ``(schema, table)`` the command could choose from (before filtering);
    ``tables``/``exclude``: the globs of ``--tables``/``--exclude``, each of which must match one of
    them; ``where``: the table parts of ``--where`` (or of column options such as ``--set``, named
    by ``where_label``), each of which must name a table the filters keep. Filters that leave no
    table at all are an error too. ``source`` names where the tables were looked for.
    """
    cands = sorted(set(candidates))
    for option, globs in (("--tables", tables), ("--exclude", exclude)):
        for g in globs:
            if not any(matches(g, s, t) for s, t in cands):
                raise UsageError(f"no table matches {option} {g!r} in {source}", hint=_hint(g, cands, source))
    kept = selected(cands, tables, exclude)
    if (tables or exclude) and cands and not kept:
        raise UsageError(
            f"--tables/--exclude leave no table of {source} to work on",
            hint="check the --exclude globs: they remove tables --tables selects",
        )
    for key in where:
        if not any(where_applies(key, s, t) for s, t in kept):
            raise UsageError(
                f"{where_label} names table {key!r}, which is not among the tables selected from {source}",
                hint=_hint(key, kept, "the selection"),
            )


__all__ = ["check_filters", "matches", "relations", "selected", "where_applies"]
