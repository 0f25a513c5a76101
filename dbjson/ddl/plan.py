"""The result of translating a schema document into DDL: statements, name maps and the report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import model as m

# Severity of a report item. ``loss``: data or behaviour that the source had may not survive (an
# error under --strict). ``approximation``: the target differs but holds every source value
# (a wider integer, a stricter collation). ``rename``: an identifier was shortened or prefixed.
SEVERITIES = ("loss", "approximation", "rename")


@dataclass(frozen=True, slots=True)
class Statement:
    """One DDL statement of a plan."""

    sql: str
    kind: str  # schema | type | sequence | table | index | unique | foreign_key | check | trigger | view | routine | restart | comment | ...
    object: str  # qualified target name, for error messages
    table: str | None = None
    # A translated statement that is tried and, if the target rejects it, skipped and reported
    # at ``path`` (the guard's trial execution) instead of failing the load.
    optional: bool = False
    path: str | None = None
    # Privilege statements (kind role | membership | grant): the target roles they need; the
    # command skips (and reports) one whose role does not exist (see dbjson.ddl.privileges).
    roles: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.sql


@dataclass(frozen=True, slots=True)
class ReportItem:
    """One attribute dropped or approximated: where in the document, what, and the rule applied."""

    path: str  # JSON pointer into the schema document
    lost: str  # what was lost or approximated
    rule: str  # the rule applied (an id from dialects/*.toml or a named translation rule)
    severity: str = "loss"

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "severity": self.severity, "lost": self.lost, "rule": self.rule}

    def __str__(self) -> str:
        return f"{self.path}: {self.lost} [{self.rule}]"


@dataclass
class TranslationReport:
    """Everything a translation dropped or approximated, in document order."""

    source: str
    target: str
    items: list[ReportItem] = field(default_factory=list)

    def add(self, path: str, lost: str, rule: str, severity: str = "loss") -> None:
        item = ReportItem(path, lost, rule, severity)
        if item not in self.items:
            self.items.append(item)

    @property
    def losses(self) -> list[ReportItem]:
        return [i for i in self.items if i.severity == "loss"]

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def to_dict(self) -> dict[str, Any]:
        counts = {s: sum(1 for i in self.items if i.severity == s) for s in SEVERITIES}
        return {
            "source": self.source,
            "target": self.target,
            "counts": counts,
            "items": [i.to_dict() for i in self.items],
        }


def enclosed(sql: str) -> bool:
    """Whether one pair of parentheses encloses the whole of ``sql`` (``(a) <> (b)`` is not
    enclosed: its first parenthesis closes before the end). Quotes and backticks are skipped."""
    text = sql.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"`":
            j = i + 1
            while j < n:
                if text[j] == "\\" and ch == "'":
                    j += 2
                    continue
                if text[j] == ch:
                    if j + 1 < n and text[j + 1] == ch:  # doubled quote
                        j += 2
                        continue
                    break
                j += 1
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != n - 1:
                return False
        i += 1
    return depth == 0


def parenthesized(sql: str) -> str:
    """``sql`` inside one pair of parentheses (as it is when they already enclose all of it)."""
    text = sql.strip()
    return text if enclosed(text) else f"({text})"


def terminated(stmt: Statement) -> str:
    """A statement terminated by ``;``: how most clients take it in a script."""
    return stmt.sql.rstrip() + ";"


@dataclass
class DdlPlan:
    """DDL for one target: ``pre_data`` (what rows need), then ``post_data`` (after the rows)."""

    target: str
    server_version: str
    pre_data: list[Statement] = field(default_factory=list)
    post_data: list[Statement] = field(default_factory=list)
    report: TranslationReport = field(default_factory=lambda: TranslationReport("", ""))
    table_names: dict[tuple[str, str], tuple[str | None, str]] = field(default_factory=dict)
    column_types: dict[tuple[str, str, str], m.Type] = field(default_factory=dict)
    column_names: dict[tuple[str, str, str], str] = field(default_factory=dict)
    # (source schema, table, column) of generated columns created as plain columns: their rows load them
    plain_generated: set[tuple[str, str, str]] = field(default_factory=set)
    # roles, memberships and grants, applied after post_data where their roles exist (not in ``statements``)
    privileges: list[Statement] = field(default_factory=list)

    # One statement as the target's command-line client wants it in a script (the engine's
    # ``ddl_script_statement``, given by the engine that made the plan).
    script_statement: Callable[[Statement], str] = field(default=terminated, repr=False, compare=False)

    @property
    def statements(self) -> list[Statement]:
        return self.pre_data + self.post_data

    def script(self) -> str:
        """The whole plan as a SQL script for the target's command-line client."""
        parts = ["-- pre-data"] + [self.script_statement(s) for s in self.pre_data]
        parts += ["-- post-data"] + [self.script_statement(s) for s in self.post_data]
        if self.privileges:
            parts += ["-- privileges"] + [self.script_statement(s) for s in self.privileges]
        return "\n".join(parts) + "\n"
