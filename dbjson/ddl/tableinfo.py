"""What every part of the DDL generator shares: :class:`TableInfo` (one table while it is being
rendered) and :class:`DDLCore`, the base of the :class:`~dbjson.ddl.walker.BaseDDL` parts, which
declares what they take from the engine and builds a table's :class:`TableInfo`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import model as m
from .context import Context
from .plan import Statement
from .types import TypeChoice, complete_type


@dataclass
class TableInfo:
    """What the DDL of one table needs to know while it is being rendered."""

    schema: m.Schema
    table: m.Table
    path: str
    tschema: str | None
    name: str
    qname: str
    key_columns: set[str]
    identity_like: set[str]
    columns: dict[str, str] = field(default_factory=dict)  # source → target column name
    types: dict[str, TypeChoice] = field(default_factory=dict)
    inline: list[str] = field(default_factory=list)  # constraints declared inside CREATE TABLE
    pk_inline: bool = False  # the primary key is declared on its column (SQLite AUTOINCREMENT)
    post: list[Statement] = field(default_factory=list)  # extra post-data (index comments...)
    skip: set[str] = field(default_factory=set)  # indexes/uniques already declared in CREATE TABLE
    key_bytes: dict[str, int] = field(default_factory=dict)  # column → its share of the key limit
    index_names: dict[str, str] = field(default_factory=dict)  # source → target index name

    def col(self, name: str) -> str:
        return self.columns.get(name, name)


class DDLCore:
    """The engine surface the DDL parts rely on, and the :class:`TableInfo` of a table."""

    name: str
    family: str
    table: dict[str, Any]

    if TYPE_CHECKING:  # provided by dbjson.engines.base.Engine
        server_version: str

        @property
        def version(self) -> tuple[int, ...]: ...
        def quote(self, ident: str) -> str: ...
        def literal(self, value: str) -> str: ...
        def qualify(self, schema: str | None, name: str) -> str: ...

    def ddl_collation_sql(self, ctx: Context, schema: str, tschema: str | None, name: str) -> str:
        """A collation named in the document (``schema``: of the object naming it) as the target spells it."""
        return self.quote(name)

    def ddl_table_info(self, ctx: Context, schema: m.Schema, table: m.Table, path: str) -> TableInfo:
        """The names, key columns and key-size shares of one table of ``ctx.db`` at ``path``."""
        tschema, name = ctx.table_names[(schema.name, table.name)]
        keys: set[str] = set(table.primary_key.columns if table.primary_key else ())
        for u in table.uniques:
            keys.update(u.columns)
        for ix in table.indexes:
            keys.update(
                p.column for p in ix.parts if p.column and ix.kind not in ("fulltext", "spatial", "gin", "gist")
            )
        for fk in table.foreign_keys:
            keys.update(fk.columns)
        for other_schema in ctx.db.schemas:
            for other in other_schema.tables:
                for fk in other.foreign_keys:
                    if fk.ref_table == table.name and (fk.ref_schema or other_schema.name) == schema.name:
                        keys.update(fk.ref_columns)
        identity = {c.name for c in table.columns if c.identity is not None}
        for fk in table.foreign_keys:
            rs = fk.ref_schema or schema.name
            for c, rc in zip(fk.columns, fk.ref_columns):
                if (rs, fk.ref_table, rc) in ctx.identity_columns:
                    identity.add(c)
        info = TableInfo(schema, table, path, tschema, name, self.qualify(tschema, name), keys, identity)
        info.columns = {c.name: ctx.column_names[(schema.name, table.name, c.name)] for c in table.columns}
        budget = self.table.get("limits", {}).get("key_bytes")
        if budget:
            info.key_bytes = _key_shares(table, int(budget))
        return info


def _demand(t: m.Type, length: int | None) -> float:
    """Bytes a key part wants (infinite for unbounded strings)."""
    t = complete_type(t)
    if t.kind in ("char", "varchar", "text", "enum", "set"):
        n = length or (t.length if t.kind != "text" else None)
        return float("inf") if n is None else 4.0 * n
    if t.kind in ("binary", "varbinary", "blob"):
        n = length or (t.length if t.kind != "blob" else None)
        return float("inf") if n is None else float(n)
    return 8.0


def _key_shares(table: m.Table, budget: int) -> dict[str, int]:
    """Each key column's share of a key-size limit (water-filling over every key it is in)."""
    keys: list[list[tuple[str, int | None]]] = []
    if table.primary_key:
        keys.append([(c, None) for c in table.primary_key.columns])
    keys += [[(c, None) for c in u.columns] for u in table.uniques]
    keys += [
        [(p.column, p.length) for p in ix.parts if p.column]
        for ix in table.indexes
        if ix.kind not in ("fulltext", "spatial")
    ]
    keys += [[(c, None) for c in fk.columns] for fk in table.foreign_keys]
    types = {c.name: c.type for c in table.columns}
    shares: dict[str, int] = {}
    for key in keys:
        wants = sorted(((_demand(types[c], n), c) for c, n in key if c in types), key=lambda x: x[0])
        # in a key of several columns 64 bytes stay free, so that a key that borrows these types
        # through a foreign key (plus a few integer columns) still fits
        left, count = float(budget - (64 if len(wants) > 1 else 0)), len(wants)
        for want, col in wants:
            give = min(want, left / count)
            left -= give
            count -= 1
            shares[col] = min(shares.get(col, budget), int(give))
    return shares
