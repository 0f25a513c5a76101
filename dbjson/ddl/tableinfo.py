"""What every part of the DDL generator shares: :class:`TableInfo` (one table while it is being
rendered) and :class:`DDLCore`, the base of the :class:`~dbjson.ddl.walker.BaseDDL` parts, which
declares what they take from the engine and builds a table's :class:`TableInfo`."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import model as m
from ..errors import TranslationError
from .context import Context
from .plan import Statement
from .types import TypeChoice, complete_type, find_rule, result_type


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
    # Unique constraints and indexes too long for the target's key limit (``limits.key_bytes``)
    # with their columns kept whole: name → {column: its byte share in that key} for each column
    # that must be cut (a prefix part) or hashed (a unique key); the engine decides how.
    long_keys: dict[str, dict[str, int]] = field(default_factory=dict)
    key_budget: int | None = None  # the target's key limit in bytes
    key_costs: list[list[tuple[str, float]]] = field(default_factory=list)  # each key: (column, bytes)

    def col(self, name: str) -> str:
        return self.columns.get(name, name)

    def key_fits(self, column: str, cost: float) -> bool:
        """Whether every key of the table over ``column`` fits the key limit when the column
        costs ``cost`` bytes (the others their share)."""
        if self.key_budget is None:
            return True
        return all(
            sum(cost if c == column else b for c, b in key) <= self.key_budget
            for key in self.key_costs
            if any(c == column for c, _ in key)
        )


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

    def ddl_table_info(self, ctx: Context, schema: m.Schema, table: m.Table, path: str) -> TableInfo:
        """The names, key columns and key-size shares of one table of ``ctx.db`` at ``path``."""
        tschema, name = ctx.table_names[(schema.name, table.name)]
        referenced: set[str] = set()  # columns other tables' foreign keys point at
        for other_schema in ctx.db.schemas:
            for other in other_schema.tables:
                for fk in other.foreign_keys:
                    if fk.ref_table == table.name and (fk.ref_schema or other_schema.name) == schema.name:
                        referenced.update(fk.ref_columns)
        budget = self.table.get("limits", {}).get("key_bytes")
        # what each column costs in a key here: its target type (its own type on the same family)
        types = {c.name: c.type if ctx.same_family else self.ddl_target_type(ctx, c.type) for c in table.columns}
        long_keys = self.ddl_long_keys(table, int(budget), types, referenced) if budget and not ctx.same_family else {}
        keys: set[str] = set(table.primary_key.columns if table.primary_key else ()) | referenced
        for u in table.uniques:
            if u.name not in long_keys:
                keys.update(u.columns)
        for ix in table.indexes:
            if ix.name not in long_keys:
                keys.update(
                    p.column for p in ix.parts if p.column and ix.kind not in ("fulltext", "spatial", "gin", "gist")
                )
        for fk in table.foreign_keys:
            keys.update(fk.columns)
        identity = {c.name for c in table.columns if c.identity is not None}
        for fk in table.foreign_keys:
            rs = fk.ref_schema or schema.name
            for c, rc in zip(fk.columns, fk.ref_columns):
                if (rs, fk.ref_table, rc) in ctx.identity_columns:
                    identity.add(c)
        info = TableInfo(schema, table, path, tschema, name, self.qualify(tschema, name), keys, identity)
        info.columns = {c.name: ctx.column_names[(schema.name, table.name, c.name)] for c in table.columns}
        info.long_keys = long_keys
        if budget:
            info.key_bytes = shares = _key_shares(table, int(budget), set(long_keys), types)
            info.key_budget = int(budget)
            info.key_costs = [
                [(c, min(key_demand(types[c], n), float(shares.get(c, budget)))) for c, n in key if c in types]
                for key in _table_keys(table, set(long_keys))
            ]
        return info

    def ddl_target_type(self, ctx: Context, typ: m.Type) -> m.Type:
        """The standard type a column of ``typ`` gets on this target outside any key (no report):
        what its key parts cost here (a uuid that becomes CHAR(36) costs 144 bytes, not 16)."""
        if typ.kind == "opaque" and typ.base is not None:
            typ = typ.base
        typ = complete_type(typ)
        env: dict[str, Any] = {
            "in_key": False,
            "identity": False,
            "source": ctx.source,
            "source_family": ctx.source_family,
            "target_version": self.version,
            "key_bytes": None,
            "key_length": None,
            "too_long_for_key": False,
        }
        try:
            rule = find_rule(self.table, typ, env)
        except TranslationError:
            return typ
        result = {k: v for k, v in rule.get("result", {}).items() if not (isinstance(v, str) and v.startswith("{"))}
        return result_type(typ, result)

    def ddl_long_keys(
        self, table: m.Table, budget: int, types: dict[str, m.Type], referenced: set[str]
    ) -> dict[str, dict[str, int]]:
        """The unique constraints and indexes of ``table`` that do not fit ``budget`` bytes with
        their columns' target types: name → {column: its byte share} for the parts over their
        share. Primary keys, foreign keys and keys over a column a foreign key points at are not
        among them (their columns are shortened instead: none of them can be a prefix or a hash)."""
        hard = _key_shares(table, budget, {u.name for u in table.uniques} | {ix.name for ix in table.indexes}, types)
        candidates: list[tuple[str, list[tuple[str, int | None]]]] = [
            (u.name, [(c, None) for c in u.columns]) for u in table.uniques
        ]
        candidates += [
            (ix.name, [(p.column, p.length) for p in ix.parts if p.column])
            for ix in table.indexes
            if ix.kind not in ("fulltext", "spatial", "gin", "gist") and all(p.column for p in ix.parts)
        ]
        out: dict[str, dict[str, int]] = {}
        for name, parts in candidates:
            if any(c in referenced for c, _ in parts):
                continue
            wants = [
                (min(key_demand(types[c], n), float(hard.get(c, float("inf")))), c) for c, n in parts if c in types
            ]
            reserve = 64 if len(wants) > 1 else 0
            if sum(w for w, _ in wants) <= budget - reserve:
                continue
            left, count, cut = float(budget - reserve), len(wants), {}
            for want, col in sorted(wants, key=lambda x: x[0]):
                give = min(want, left / count)
                left -= give
                count -= 1
                if give < want:
                    cut[col] = int(give)
            if cut:
                out[name] = cut
        return out


def key_demand(t: m.Type, length: int | None) -> float:
    """Bytes a key part wants (infinite for unbounded strings)."""
    t = complete_type(t)
    if t.kind == "enum":
        return 2.0  # stored as its ordinal
    if t.kind == "set":
        return 8.0  # stored as a bit mask
    if t.kind in ("char", "varchar", "text"):
        n = length or (t.length if t.kind != "text" else None)
        return float("inf") if n is None else 4.0 * n
    if t.kind in ("binary", "varbinary", "blob"):
        n = length or (t.length if t.kind != "blob" else None)
        return float("inf") if n is None else float(n)
    return 8.0


def _table_keys(table: m.Table, skip: AbstractSet[str] = frozenset()) -> list[list[tuple[str, int | None]]]:
    """The keys of ``table`` (primary, unique, index, foreign) as (column, prefix length) parts,
    but the unique constraints and indexes named in ``skip``."""
    keys: list[list[tuple[str, int | None]]] = []
    if table.primary_key:
        keys.append([(c, None) for c in table.primary_key.columns])
    keys += [[(c, None) for c in u.columns] for u in table.uniques if u.name not in skip]
    keys += [
        [(p.column, p.length) for p in ix.parts if p.column]
        for ix in table.indexes
        if ix.kind not in ("fulltext", "spatial") and ix.name not in skip
    ]
    keys += [[(c, None) for c in fk.columns] for fk in table.foreign_keys]
    return keys


def _key_shares(
    table: m.Table, budget: int, skip: AbstractSet[str] = frozenset(), types: dict[str, m.Type] | None = None
) -> dict[str, int]:
    """Each key column's share of a key-size limit (water-filling over every key it is in but the
    unique constraints and indexes named in ``skip``)."""
    types = types or {c.name: c.type for c in table.columns}
    shares: dict[str, int] = {}
    for key in _table_keys(table, skip):
        wants = sorted(((key_demand(types[c], n), c) for c, n in key if c in types), key=lambda x: x[0])
        # in a key of several columns 64 bytes stay free, so that a key that borrows these types
        # through a foreign key (plus a few integer columns) still fits
        left, count = float(budget - (64 if len(wants) > 1 else 0)), len(wants)
        for want, col in wants:
            give = min(want, left / count)
            left -= give
            count -= 1
            shares[col] = min(shares.get(col, budget), int(give))
    return shares
