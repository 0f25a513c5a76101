"""The pre-flight's conditions as PostgreSQL SQL (``dbjson migrate`` filters the source's rows with them).

:func:`dbjson.preflight.source_filter` asks the *source* engine for a condition that every value
failing a pre-flight check satisfies; the server then returns only those rows. What PostgreSQL
cannot hold needs no reading at all: its text, varchar and jsonb values never contain U+0000 and it
has no zero dates, so those conditions are ``FALSE`` and a PostgreSQL → PostgreSQL migration's
pre-flight reads no row (it read and parsed every text value in Python before: a third of the
client CPU of a 200k-row migrate of JSON documents). Expressions on a column are wrapped (``+ 0``,
a function) so that no index can serve them: the filtered read visits the rows in the order of the
unfiltered one.
"""

from __future__ import annotations

from typing import Any

from ... import model as m
from .export import is_large_object, large_object_content


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class PostgreSQLPreflight:
    """``preflight_condition``: a pre-flight :data:`dbjson.preflight.Condition` as SQL on one column."""

    def preflight_condition(self, column: m.Column, cond: tuple[Any, ...]) -> str | None:
        """SQL true for every value of ``column`` that fails the check behind ``cond`` (more rows are
        harmless: the pre-flight checks each one in Python); None when it cannot be expressed."""
        q = _q(column.name)
        if is_large_object(column):  # the value is the object's content, as the export reads it
            q = large_object_content(q)
        kind = cond[0]
        t = column.type
        if kind == "int_outside" and t.kind == "integer":
            return f"{q} + 0 < {int(cond[1])} OR {q} + 0 > {int(cond[2])}"
        if kind == "zero_date":  # PostgreSQL has no zero dates
            return "FALSE"
        if kind == "digits_over" and t.kind == "decimal":  # counts every digit (leading zeros too: more rows)
            return f"length(regexp_replace({q}::text, '[^0-9]', '', 'g')) > {int(cond[1])}"
        if kind == "infinite_date" and t.kind in ("date", "timestamp"):
            return f"NOT isfinite({q})"
        if kind == "nul":
            if t.kind == "json" and not t.binary:  # json keeps its text: the escape \u0000 may be in it
                return f"strpos({q}::text, '\\u0000') > 0"
            return "FALSE"  # text, varchar, jsonb and every type's output text cannot hold U+0000
        if kind == "chars_over":
            return f"char_length({q}::text) > {int(cond[1])}"
        if kind == "bytes_over":
            return f"octet_length({q}::text) > {int(cond[1])}"
        if kind == "binary_over" and t.kind in ("binary", "varbinary", "blob"):
            return f"octet_length({q}) > {int(cond[1])}"
        return None
