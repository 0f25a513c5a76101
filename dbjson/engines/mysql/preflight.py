"""The pre-flight's conditions as MySQL/MariaDB SQL (``dbjson migrate`` filters the source's rows with them).

:func:`dbjson.preflight.source_filter` asks the *source* engine for a condition that every value
failing a pre-flight check satisfies; the server then returns only those rows. Each expression
wraps the column in a function so that no index can serve it: the filtered read visits the rows in
the order of the unfiltered one (the first failing row, the pre-flight's example, is the same).
"""

from __future__ import annotations

from typing import Any

from ... import model as m
from ..interface import Capabilities


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class MySQLPreflight:
    """``preflight_condition``: a pre-flight :data:`dbjson.preflight.Condition` as SQL on one column."""

    capabilities: Capabilities  # (the engine's)

    def preflight_condition(self, column: m.Column, cond: tuple[Any, ...]) -> str | None:
        """SQL true for every value of ``column`` that fails the check behind ``cond`` (more rows are
        harmless: the pre-flight checks each one in Python); None when it cannot be expressed."""
        q = _q(column.name)
        text = f"CAST({q} AS CHAR)"
        kind = cond[0]
        if kind == "int_outside" and column.type.kind == "integer":
            return f"{q} + 0 < {int(cond[1])} OR {q} + 0 > {int(cond[2])}"
        if kind == "zero_date":  # dbjson.preflight.is_zero_date: year, month or day zero
            return f"YEAR({q}) = 0 OR MONTH({q}) = 0 OR DAYOFMONTH({q}) = 0"
        if kind == "infinite_date":  # MySQL has no infinite dates
            return "FALSE"
        if kind == "elapsed_time":
            return f"LEFT({text}, 1) = '-' OR HOUR({q}) > 23"
        if kind == "nul":  # compared as bytes: MySQL's _0900_ collations ignore U+0000 (it would match anywhere)
            if column.type.kind == "json":  # the JSON text spells U+0000 as an escape (MariaDB may keep it raw)
                # MariaDB's JSON is LONGTEXT: its bytes are the text (the cast to CHAR first would
                # double the cost of the scan); MySQL's is binary, written out as text by the cast
                raw = f"CAST({q if self.capabilities.mariadb else text} AS BINARY)"
                return f"INSTR({raw}, CHAR(0)) > 0 OR INSTR({raw}, CONCAT(CHAR(92), 'u0000')) > 0"
            return f"INSTR(CAST({q} AS BINARY), CHAR(0)) > 0"
        if kind == "chars_over":
            return f"CHAR_LENGTH({q}) > {int(cond[1])}"
        if kind == "bytes_over":
            return f"LENGTH(CONVERT({q} USING utf8mb4)) > {int(cond[1])}"
        if kind == "binary_over":
            return f"LENGTH({q}) > {int(cond[1])}"
        return None
