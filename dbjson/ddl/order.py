"""Dependency order of a schema's tables and views, shared by schema-load and the schema diff."""

from __future__ import annotations

import re

from .. import model as m


def table_order(tables: tuple[m.Table, ...]) -> list[int]:
    """Table indexes with inheritance and partition parents before their children."""
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
