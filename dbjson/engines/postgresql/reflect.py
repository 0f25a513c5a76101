"""PostgreSQL reflection: the system catalogs → :class:`dbjson.model.Database`.

Everything is read with plain ``pg_catalog`` SQL over the raw psycopg 3 connection, one query per
object kind for the whole database (never one per table), inside one read-only REPEATABLE READ
transaction so that every query sees the same snapshot (:mod:`.catalog`); the model objects are then
assembled from those rows (:mod:`.assemble`, with the type mapper of :mod:`.typemap` and the parsers
of server-printed SQL of :mod:`.sqltext`); roles and grants are read by :mod:`.accounts`.

Choices made here (the document format leaves them to the engine):

* ``search_path`` is empty while reflecting (as pg_dump does), so every name the server prints
  (``format_type``, view bodies, defaults, function and trigger definitions) is schema-qualified
  unless it lives in ``pg_catalog``: the document does not depend on the session's search path.
* ``bytea`` is ``blob`` with ``max_bytes`` None (unbounded), like ``text`` is ``text``.
* ``macaddr``/``macaddr8`` are ``macaddr`` with ``length`` 6/8 (bytes).
* A domain column gets the standard type of the domain's base type, with ``type_name`` and
  ``type_schema`` naming the domain; the domain itself (checks, default, not null) is listed in
  ``Schema.domains``. Composite types, ``tsvector``, geometric and other types are ``opaque``.
* Indexes backing PRIMARY KEY, UNIQUE and EXCLUDE constraints are *not* listed in
  ``Table.indexes`` (the constraints are); exclusion constraints go to
  ``options["postgresql"]["exclusions"]``.
* Partitions are tables of their own (``partition_of``, ``partition_bound``); constraints, indexes
  and triggers they inherit from the partitioned table are listed on the parent only, as are CHECK
  constraints inherited through table inheritance.
* A sequence owned by a column whose default is ``nextval()`` of it is that column's
  ``Identity(kind="serial")``; identity sequences belong to their column. Only the remaining
  (standalone) sequences are listed in ``Schema.sequences``.
* FOREIGN KEY ``match`` is set only when it is not the default ``SIMPLE``.
* A reference to an object in another schema is ``schema.name``, to one in the same schema (or in
  ``pg_catalog``) the bare name: ``partition_of``, ``inherits``, collations, operator classes, trigger functions.
* Engine-only objects the model has no class for live in ``options["postgresql"]``: a table's
  ``exclusions``, ``policies`` (row-level security), ``rules`` (``CREATE RULE`` as pg_get_ruledef
  prints it), ``unlogged``, ``with`` (storage parameters as PostgreSQL lists them), ``tablespace``, ``replica_identity``; a schema's ``collations`` and
  ``range_types`` (each with its ``definition``). Expressions are stored without outer parentheses.
* ``Database.options["postgresql"]`` holds the database's ``encoding``, ``collate`` and ``ctype``, the
  installed ``extensions`` (but ``plpgsql``; the objects that belong to an extension are left out) and
  the grants to ``PUBLIC`` (``public_grants``; PUBLIC is no role).
* Table globs (``options.wants``) select tables, partitions and views alike; the indexes, constraints,
  triggers and owned sequences of a table that is left out are left out with it.
"""

from __future__ import annotations

from typing import Any

from ... import model as m
from ...url import source_host
from .accounts import read_object_grants, read_users
from .assemble import Assembler, pg_options
from .catalog import Q_DATABASE, Q_EXTENSIONS, fetch, read_catalog, snapshot
from .sqltext import ENGINE


class PostgreSQLReflector:
    """``reflect_database`` for PostgreSQL (mixed into the engine class)."""

    def reflect_database(self, conn: Any, target: Any, options: Any) -> m.Database:
        """Reflect the URL's database (the selected or all non-system schemas) into the model."""
        with snapshot(conn):
            with conn.cursor() as cur:
                cur.execute(Q_DATABASE)
                database, version, encoding, collate, ctype = cur.fetchone()
            cat = read_catalog(conn, options)
            schemas = tuple(Assembler(cat, options).schemas())
            extensions = [dict(r) for r in fetch(conn, Q_EXTENSIONS)]
            users: tuple[m.User, ...] = ()
            public: list[m.Grant] = []
            if options.grants:
                users, public = read_users(conn, cat, options)
            grants = tuple(read_object_grants(conn, cat, options)) if options.privileges else ()
        source = m.Source(
            engine=ENGINE,
            server_version=version.split()[0],
            database=database,
            dumped_at=m.now_utc(),
            host=source_host(target.url),
        )
        db_options = pg_options(
            {
                "encoding": encoding,
                "collate": collate,
                "ctype": ctype,
                "extensions": extensions,
                "public_grants": [m.to_dict(g) for g in public],
            }
        )
        return m.Database(source=source, schemas=schemas, users=users, grants=grants, options=db_options)
