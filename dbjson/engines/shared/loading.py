"""What the engines' loaders (``engines/<family>/load.py``) share: row batches, the value of a
column a server error names, and the savepoint around a row loaded on its own."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..interface import TablePlan

BATCH_ROWS = 5000  # rows per encoded block or executemany call


def row_batches(rows: Iterable[tuple[Any, ...]], size: int = BATCH_ROWS) -> Iterator[list[tuple[Any, ...]]]:
    """``rows`` as lists of ``size`` rows (the last one shorter, none empty)."""
    it = iter(rows)
    while batch := list(itertools.islice(it, size)):
        yield batch


def error_column_value(tp: TablePlan, row: tuple[Any, ...], column: str | None) -> tuple[str | None, Any]:
    """``column`` (a name a server error gave, or None) and its value in ``row`` when it is one of
    the loaded columns (else None)."""
    if column in tp.insert_columns:
        return column, row[tp.insert_columns.index(column)]
    return column, None


def in_savepoint(execute: Callable[[str], Any], load: Callable[[], Any]) -> None:
    """``load()`` under the savepoint ``dbjson_row``: released after it, rolled back to when it
    fails (the error is re-raised)."""
    execute("SAVEPOINT dbjson_row")
    try:
        load()
    except BaseException:
        execute("ROLLBACK TO SAVEPOINT dbjson_row")
        raise
    execute("RELEASE SAVEPOINT dbjson_row")
