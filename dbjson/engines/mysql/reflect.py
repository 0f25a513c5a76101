"""MySQL and MariaDB reflection: ``information_schema`` → :mod:`dbjson.model`.

Every catalog is read with one query per object kind per schema (columns, indexes, constraints,
foreign keys, partitions, views, routines, triggers, events), never one round trip per table, so a
schema with thousands of tables reflects in about a second. SQLAlchemy's Inspector is not used: it
parses ``SHOW CREATE TABLE`` and loses ON UPDATE, BIT defaults, functional and DESC key parts, NOT
ENFORCED checks, MariaDB JSON/INET/UUID, invisible columns, SRIDs and AUTO_INCREMENT counters (the
team's type reference, types.md §4.3). The few facts only ``SHOW CREATE`` has are read for the
objects that need them: FULLTEXT parsers, MySQL view algorithms, MariaDB sequence state.

The queries are :class:`~.catalog.CatalogReader`'s; tables are assembled by
:class:`~.assemble.TableAssembler` with the type mapper of :mod:`.typemap` and the SQL-text parsers of
:mod:`.sqltext`; accounts and grants are read by :mod:`.accounts`.

Conventions of the produced model (besides the team contract):

* ``TINYINT(1)`` stays ``integer`` bits 8 with ``native.attrs["bool_hint"] = True``: the column may
  legally hold 2, so only a data check may turn it into a boolean.
* Integer display widths (``int(11)`` on MariaDB, ``ZEROFILL`` widths) are ``native.attrs
  ["display_width"]``; ``zerofill`` likewise; ``FLOAT(M,D)`` keeps ``attrs["precision"/"scale"]``.
* MariaDB ``JSON`` (``LONGTEXT`` + the automatic ``CHECK (json_valid(col))``) becomes kind ``json``
  with ``native.raw = "json"`` and no charset/collation, and that CHECK is not listed.
* A visible unique key over whole, ascending columns is a :class:`~dbjson.model.UniqueConstraint`
  (with the key's comment) plus its backing index (``constraint=True``); other unique keys (prefix,
  DESC, expression, invisible) are indexes only. The primary key is ``PrimaryKey(name=None)``.
* A BIT default is the string of exactly ``length`` binary digits (``b'101'`` on BIT(5) → ``00101``);
  a BINARY/VARBINARY/BLOB default is a literal when it is printable UTF-8, else ``0x…`` (expression).
* MySQL expression defaults that are a single string literal (``DEFAULT (_utf8mb4'x')``, required for
  TEXT/BLOB/JSON) become literals; other expressions keep their SQL without the outer parentheses.
* View bodies and default expressions lose the qualifier of their own schema (```db`.`t``` →
  ```t```; MariaDB writes ``nextval(`db`.`seq`)``), so they load into a database of another name;
  a view's column names are listed in ``View.columns``.
* MariaDB system versioning: ``options.mysql.system_versioning``, explicit period columns as
  ``period_for_system_time`` (table) and ``row_period`` start/end (column), ``WITHOUT SYSTEM
  VERSIONING`` columns as ``without_system_versioning``; ``PARTITION BY SYSTEM_TIME`` is method
  ``system_time`` with bounds ``HISTORY``/``CURRENT``.
* MariaDB sequences report ``next_not_cached_value`` as ``next_value`` (never below the true next
  value; a restarted server continues from there too).
* Grants keep only ``*.*`` and the reflected databases; ``IDENTIFIED …`` clauses are removed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import model as m
from ...errors import UsageError
from ...url import source_host
from .accounts import read_object_grants, read_users
from .assemble import TableAssembler
from .catalog import CatalogReader, query

if TYPE_CHECKING:
    from ...connect import Target
    from ..interface import ReflectOptions

SYSTEM_SCHEMAS = ("information_schema", "mysql", "performance_schema", "sys")


class MySQLReflector:
    """Reflection mixin of the MySQL and MariaDB engines (MariaDB differences: ``is_mariadb``)."""

    if TYPE_CHECKING:
        name: str
        server_version: str

        @property
        def is_mariadb(self) -> bool: ...

        @property
        def version(self) -> tuple[int, ...]: ...

    def reflect_database(self, conn: Any, target: Target, options: ReflectOptions) -> m.Database:
        """Reflect the selected databases (and, with ``options.grants``, accounts) into the model."""
        cur = conn.cursor()
        try:
            if not self.is_mariadb and self.version >= (8,):
                cur.execute("SET SESSION information_schema_stats_expiry = 0")
            reader = CatalogReader.for_server(cur, self.name, self.is_mariadb)
            assembler = TableAssembler(self.name, self.is_mariadb)
            server = query(cur, "SELECT @@GLOBAL.sql_mode AS sql_mode, @@lower_case_table_names AS lctn")[0]
            charsets = {
                r["coll"]: r["cs"]
                for r in query(
                    cur, "SELECT COLLATION_NAME AS coll, CHARACTER_SET_NAME AS cs FROM information_schema.COLLATIONS"
                )
            }
            names = _schema_names(cur, target, options)
            reflected = (_reflect_schema(cur, reader, assembler, name, options, charsets) for name in names)
            schemas = tuple(s for s in reflected if s is not None)
            users = read_users(cur, names, self.is_mariadb) if options.grants else ()
            grants = tuple(read_object_grants(cur, names, options)) if options.privileges else ()
        finally:
            cur.close()
        source = m.Source(
            engine=self.name,
            server_version=self.server_version,
            database=target.database or "",
            dumped_at=m.now_utc(),
            host=source_host(target.url),
            options={"mysql": {"sql_mode": server["sql_mode"], "lower_case_table_names": int(server["lctn"])}},
        )
        return m.Database(source=source, schemas=schemas, users=users, grants=grants)


def _schema_names(cur: Any, target: Target, options: ReflectOptions) -> list[str]:
    existing = [r["name"] for r in query(cur, "SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA")]
    if options.schemas:
        wanted = list(options.schemas)
    elif target.database:
        wanted = [target.database]
    elif not options.all_databases:
        raise UsageError(
            f"the URL {target.display()} names no database",
            hint="name one (mysql://root@127.0.0.1/shop), or pass --all-databases to read every database on the server",
        )
    else:
        return sorted(n for n in existing if n.lower() not in SYSTEM_SCHEMAS)
    missing = [n for n in wanted if n not in existing]
    if missing:
        raise UsageError(f"database {missing[0]!r} does not exist", hint="check the URL or --schema")
    return sorted(set(wanted))


def _reflect_schema(
    cur: Any,
    reader: CatalogReader,
    assembler: TableAssembler,
    schema: str,
    options: ReflectOptions,
    charsets: dict[str, str],
) -> m.Schema | None:
    """One database; None when it was dropped after the listing (a busy server)."""
    sch = reader.schema_row(cur, schema)
    if sch is None:
        return None
    tables_rows = reader.table_rows(cur, schema)
    base = {
        r["name"]: r
        for r in tables_rows
        if r["type"] in ("BASE TABLE", "SYSTEM VERSIONED") and options.wants(schema, r["name"])
    }
    views = {r["name"]: r for r in tables_rows if r["type"] == "VIEW" and options.wants(schema, r["name"])}
    seqs = {r["name"]: r for r in tables_rows if r["type"] == "SEQUENCE" and options.wants(schema, r["name"])}

    columns = reader.columns(cur, schema, set(base) | set(views))
    checks = reader.checks(cur, schema, base)
    srids = reader.mariadb_srids(cur, schema, columns) if reader.is_mariadb else {}
    indexes = reader.statistics(cur, schema, base)
    reader.read_fulltext_parsers(cur, schema, indexes, columns)
    fks = reader.foreign_keys(cur, schema, base)
    parts = reader.partitions(cur, schema, [n for n, r in base.items() if "partitioned" in (r["opts"] or "")])

    tables = []
    for name in sorted(base):
        row = base[name]
        reader.read_binary_defaults(cur, schema, name, columns.get(name, []))
        tables.append(
            assembler.table(
                row,
                columns.get(name, []),
                checks.get(name, []),
                indexes.get(name, {}),
                fks.get(name, []),
                parts.get(name),
                srids.get(name, {}),
                charsets,
            )
        )
    return m.Schema(
        name=schema,
        tables=tuple(tables),
        views=reader.views(cur, schema, views, columns),
        sequences=reader.sequences(cur, schema, seqs),
        routines=reader.routines(cur, schema, (sch["cs"], sch["coll"])),
        triggers=reader.triggers(cur, schema, set(base)),
        events=reader.events(cur, schema),
        comment=sch.get("comment") or None,
        options={"mysql": {"charset": sch["cs"], "collation": sch["coll"]}},
    )
