"""ALTER rendering for ``dbjson diff --ddl`` (:class:`AlterDDL`): the statements that change an
existing table, column or constraint; the engines override what they spell differently."""

from __future__ import annotations

from .. import model as m
from ..errors import UnsupportedError
from .columns import ColumnParts
from .context import Context
from .tableinfo import DDLCore, TableInfo


class AlterDDL(DDLCore):
    """The ``ddl_*_sql`` hooks of the schema diff."""

    def ddl_alter_add_column_sql(self, qtable: str, coldef: str) -> str:
        """ALTER TABLE ... ADD COLUMN for a definition rendered by ``ddl_column_sql``."""
        return f"ALTER TABLE {qtable} ADD COLUMN {coldef}"

    def ddl_alter_drop_column_sql(self, qtable: str, column: str) -> str:
        """ALTER TABLE ... DROP COLUMN."""
        return f"ALTER TABLE {qtable} DROP COLUMN {self.quote(column)}"

    def ddl_alter_column_sql(
        self, ctx: Context, t: TableInfo, col: m.Column, parts: ColumnParts, coldef: str, fields: set[str]
    ) -> list[str]:
        """Statements that give an existing column the definition ``parts`` (``fields`` changed).

        Standard SQL, one ALTER COLUMN per attribute; a field that has no such clause raises
        :class:`~dbjson.errors.UnsupportedError`."""
        q, c = t.qname, parts.name
        out: list[str] = []
        if fields & {"type", "native", "collation", "charset"}:
            coll = (
                f" COLLATE {self.ddl_collation_sql(ctx, t.schema.name, t.tschema, parts.collation)}"
                if parts.collation
                else ""
            )
            out.append(f"ALTER TABLE {q} ALTER COLUMN {c} TYPE {parts.type_sql}{coll} USING {c}::{parts.type_sql}")
        if "default" in fields:
            out.append(
                f"ALTER TABLE {q} ALTER COLUMN {c} "
                + (f"SET DEFAULT {parts.default}" if parts.default is not None else "DROP DEFAULT")
            )
        if "nullable" in fields:
            out.append(f"ALTER TABLE {q} ALTER COLUMN {c} {'SET' if parts.not_null else 'DROP'} NOT NULL")
        if "comment" in fields:
            out.append(f"COMMENT ON COLUMN {q}.{c} IS {self.literal(col.comment) if col.comment else 'NULL'}")
        rest = fields - {"type", "native", "collation", "charset", "default", "nullable", "comment"}
        if rest:
            raise UnsupportedError(
                f"{self.name}: changing a column's {', '.join(sorted(rest))} is not rendered",
                table=t.name,
                column=col.name,
                hint="change it by hand, or drop and re-add the column",
            )
        return out

    def ddl_add_constraint_sql(self, qtable: str, clause: str) -> str:
        """ALTER TABLE ... ADD a constraint clause (primary key, unique, check, foreign key)."""
        return f"ALTER TABLE {qtable} ADD {clause}"

    def ddl_drop_constraint_sql(self, qtable: str, kind: str, name: str | None) -> str:
        """ALTER TABLE ... DROP a constraint; ``kind`` is primary_key, unique, check or foreign_key."""
        return f"ALTER TABLE {qtable} DROP CONSTRAINT {self.quote(name or '')}"

    def ddl_drop_sql(
        self, kind: str, schema: str | None, name: str, table: str | None = None, signature: str | None = None
    ) -> str:
        """DROP of a schema object: table, view, materialized_view, index, sequence, trigger, event,
        function/procedure/aggregate, enum, composite or domain (``table``: the quoted table of an
        index or trigger; ``signature``: routine argument types)."""
        word = {
            "materialized_view": "MATERIALIZED VIEW",
            "enum": "TYPE",
            "composite": "TYPE",
            "window": "FUNCTION",
        }.get(kind, kind.upper())
        return f"DROP {word} {self.qualify(schema, name)}"

    def ddl_table_comment_sql(self, qtable: str, comment: str | None) -> str:
        """Set (or, with None, remove) a table's comment."""
        return f"COMMENT ON TABLE {qtable} IS {self.literal(comment) if comment else 'NULL'}"

    def ddl_alters_in_place(self) -> bool:
        """Whether ALTER TABLE changes columns and constraints of an existing table (else the diff
        rebuilds the table: ``ddl_rebuild_table_sql``)."""
        return True

    def ddl_rebuild_table_sql(
        self, qtable: str, qtemp: str, name: str, create_sql: str, insert_columns: list[str], select_columns: list[str]
    ) -> list[str]:
        """Replace table ``qtable`` by ``create_sql`` (which creates ``qtemp``), keeping the rows of the
        columns listed, then rename it to ``name``: for engines that do not alter in place."""
        raise UnsupportedError(f"{self.name} alters tables in place; no rebuild", table=qtable)
