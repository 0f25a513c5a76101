"""Dependency order of a schema's tables and views, shared by schema-load and the schema diff."""

from __future__ import annotations

import re

from .. import model as m


def _row_type_tables(t: m.Table) -> list[str]:
    """Names a column of ``t`` uses as its type (PostgreSQL: every table is also a composite type,
    ``st public.todos`` or ``items todos[]``): the bare names of opaque column types."""
    out = []
    for c in t.columns:
        if c.type.kind == "opaque" and c.native is not None:
            raw = c.native.raw.strip()
            while raw.endswith("[]"):
                raw = raw[:-2].rstrip()
            out.append(raw.rsplit(".", 1)[-1].strip('"'))
    return out


def table_order(tables: tuple[m.Table, ...]) -> list[int]:
    """Table indexes with inheritance and partition parents before their children, and a table
    whose row type a column uses before that column's table."""
    index = {t.name: i for i, t in enumerate(tables)}
    order: list[int] = []
    seen: set[int] = set()

    def visit(i: int) -> None:
        if i in seen:
            return
        seen.add(i)
        t = tables[i]
        for parent in (*t.inherits, *((t.partition_of,) if t.partition_of else ())):
            # "parent" or "schema.parent"; a name may itself hold a dot ("d.o.t")
            j = index.get(parent, index.get(parent.split(".", 1)[-1], index.get(parent.split(".")[-1])))
            if j is not None:
                visit(j)
        for name in _row_type_tables(t):
            j = index.get(name)
            if j is not None and j != i:
                visit(j)
        order.append(i)

    for i in range(len(tables)):
        visit(i)
    return order


def view_order(views: tuple[m.View, ...]) -> list[int]:
    """View indexes ordered so that a view comes after the views its definition names."""
    names = {v.name: i for i, v in enumerate(views)}
    order: list[int] = []
    state: dict[int, int] = {}

    def visit(i: int) -> None:
        if state.get(i) == 2:
            return
        if state.get(i) == 1:
            return  # a cycle: keep document order
        state[i] = 1
        body = views[i].definition
        for name, j in names.items():
            if j != i and re.search(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", body):
                visit(j)
        state[i] = 2
        order.append(i)

    for i in range(len(views)):
        visit(i)
    return order
