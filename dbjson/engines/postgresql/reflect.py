"""PostgreSQL reflection: the system catalogs → :class:`dbjson.model.Database`.

Everything is read with plain ``pg_catalog`` SQL over the raw psycopg 3 connection, one query per
object kind for the whole database (never one per table), inside one read-only REPEATABLE READ
transaction so that every query sees the same snapshot.

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
  ``exclusions``, ``policies`` (row-level security), ``unlogged``, ``with`` (storage parameters as
  PostgreSQL lists them), ``tablespace``, ``replica_identity``; a schema's ``collations`` and
  ``range_types`` (each with its ``definition``). Expressions are stored without outer parentheses.
* ``Database.options["postgresql"]`` holds the database's ``encoding``, ``collate`` and ``ctype``, the
  installed ``extensions`` (but ``plpgsql``; the objects that belong to an extension are left out) and
  the grants to ``PUBLIC`` (``public_grants``; PUBLIC is no role).
* Table globs (``options.wants``) select tables, partitions and views alike; the indexes, constraints,
  triggers and owned sequences of a table that is left out are left out with it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ... import model as m
from ...errors import UsageError

ENGINE = "postgresql"
Row = dict[str, Any]

# -- catalog queries (one per object kind; ``%(nsp)s`` is the array of reflected schema oids) ------

_NOT_EXTENSION = """NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend e
    WHERE e.classid = '{catalog}'::regclass AND e.objid = {oid} AND e.deptype = 'e')"""

Q_DATABASE = """
SELECT d.datname, current_setting('server_version'), pg_encoding_to_char(d.encoding), d.datcollate, d.datctype
FROM pg_database d WHERE d.datname = current_database()
"""

Q_SCHEMAS = f"""
SELECT n.oid, n.nspname AS name, obj_description(n.oid, 'pg_namespace') AS comment
FROM pg_namespace n
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname !~ '^pg_toast' AND n.nspname !~ '^pg_temp'
  AND {_NOT_EXTENSION.format(catalog="pg_namespace", oid="n.oid")}
ORDER BY n.nspname
"""

Q_RELATIONS = f"""
SELECT c.oid, c.relnamespace AS nsp, c.relname AS name, c.relkind::text AS kind,
       c.relpersistence::text AS persistence, c.reloptions, ts.spcname AS tablespace,
       am.amname AS access_method, c.relispartition AS is_partition, c.relispopulated AS populated,
       c.relrowsecurity AS row_security, c.relforcerowsecurity AS force_row_security,
       c.relreplident::text AS replica_identity,
       (SELECT ri.relname FROM pg_index x JOIN pg_class ri ON ri.oid = x.indexrelid
         WHERE x.indrelid = c.oid AND x.indisreplident) AS replica_identity_index,
       CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END AS bound,
       CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS partkey,
       CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid, true) END AS viewdef,
       obj_description(c.oid, 'pg_class') AS comment, c.reltuples::float8 AS reltuples,
       ARRAY(SELECT pn.nspname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
             JOIN pg_namespace pn ON pn.oid = p.relnamespace
             WHERE i.inhrelid = c.oid ORDER BY i.inhseqno) AS parent_schemas,
       ARRAY(SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
             WHERE i.inhrelid = c.oid ORDER BY i.inhseqno) AS parent_names
FROM pg_class c
LEFT JOIN pg_tablespace ts ON ts.oid = c.reltablespace
LEFT JOIN pg_am am ON am.oid = c.relam
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND c.relkind IN ('r', 'p', 'v', 'm')
  AND {_NOT_EXTENSION.format(catalog="pg_class", oid="c.oid")}
"""

Q_COLUMNS = """
SELECT a.attrelid AS rel, a.attnum, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS raw,
       a.atttypid AS typid, a.atttypmod AS typmod, a.attndims AS ndims, a.attnotnull AS notnull,
       a.attidentity::text AS identity, a.attgenerated::text AS generated,
       a.attislocal AS islocal, a.attinhcount AS inhcount,
       pg_get_expr(ad.adbin, ad.adrelid) AS default_expr,
       CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation THEN
            CASE WHEN co.collnamespace IN ('pg_catalog'::regnamespace, c.relnamespace) THEN co.collname
                 ELSE cn.nspname || '.' || co.collname END
       END AS collation,
       col_description(a.attrelid, a.attnum) AS comment,
       (SELECT d.objid FROM pg_depend d
         WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
           AND d.refobjid = a.attrelid AND d.refobjsubid = a.attnum AND d.deptype IN ('a', 'i')
         ORDER BY d.objid LIMIT 1) AS owned_seq
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
LEFT JOIN pg_collation co ON co.oid = a.attcollation
LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'c')
  AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attrelid, a.attnum
"""

# Every type except the row types of tables/views (and arrays of them): a few hundred rows.
Q_TYPES = f"""
SELECT t.oid, t.typnamespace AS nsp, n.nspname AS schema, t.typname AS name, t.typtype::text AS typtype,
       t.typcategory::text AS category, t.typelem AS elem, t.typbasetype AS basetype,
       t.typtypmod AS basetypmod, t.typnotnull AS notnull, t.typrelid AS relid,
       format_type(t.oid, NULL) AS display,
       CASE WHEN t.typbasetype <> 0 THEN format_type(t.typbasetype, t.typtypmod) END AS base_raw,
       CASE WHEN t.typcollation <> 0 AND t.typcollation <> bt.typcollation THEN
            CASE WHEN co.collnamespace IN ('pg_catalog'::regnamespace, t.typnamespace) THEN co.collname
                 ELSE cn.nspname || '.' || co.collname END
       END AS collation,
       pg_get_expr(t.typdefaultbin, 0) AS default_expr,
       COALESCE(r.rngsubtype, mr.rngsubtype) AS range_subtype, mr.rngtypid IS NOT NULL AS multi,
       obj_description(t.oid, 'pg_type') AS comment,
       {_NOT_EXTENSION.format(catalog="pg_type", oid="t.oid")} AS not_extension
FROM pg_type t
JOIN pg_namespace n ON n.oid = t.typnamespace
LEFT JOIN pg_type bt ON bt.oid = t.typbasetype
LEFT JOIN pg_collation co ON co.oid = t.typcollation
LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
LEFT JOIN pg_range r ON r.rngtypid = t.oid
LEFT JOIN pg_range mr ON mr.rngmultitypid = t.oid
WHERE NOT EXISTS (
    SELECT 1 FROM pg_class x
    WHERE x.relkind <> 'c'
      AND x.oid IN (t.typrelid, (SELECT e.typrelid FROM pg_type e WHERE e.oid = t.typelem)))
"""

Q_ENUM_LABELS = """
SELECT enumtypid AS typ, enumlabel AS label FROM pg_enum ORDER BY enumtypid, enumsortorder
"""

Q_CONSTRAINTS = """
SELECT con.oid, con.conname AS name, con.contype::text AS type, con.conrelid AS rel, con.contypid AS typ,
       con.condeferrable AS deferrable, con.condeferred AS deferred, con.convalidated AS validated,
       con.conislocal AS islocal, con.connoinherit AS noinherit, con.conparentid AS parent,
       ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(n, o)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.o) AS columns,
       fn.nspname AS ref_schema, fc.relname AS ref_table,
       ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(n, o)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.o) AS ref_columns,
       con.confupdtype::text AS on_update, con.confdeltype::text AS on_delete,
       con.confmatchtype::text AS match,
       pg_get_constraintdef(con.oid, true) AS definition,
       obj_description(con.oid, 'pg_constraint') AS comment,
       COALESCE(i.indnullsnotdistinct, false) AS nulls_not_distinct
FROM pg_constraint con
LEFT JOIN pg_class fc ON fc.oid = con.confrelid
LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
LEFT JOIN pg_index i ON i.indexrelid = con.conindid AND con.contype IN ('p', 'u')
WHERE con.connamespace = ANY(%(nsp)s::int8[]::oid[]) AND con.contype IN ('p', 'u', 'f', 'c', 'x')
ORDER BY con.conname
"""

Q_INDEXES = """
SELECT i.indexrelid AS oid, i.indrelid AS rel, ic.relname AS name, am.amname AS method,
       i.indisunique AS unique, i.indnullsnotdistinct AS nulls_not_distinct, i.indisvalid AS valid,
       i.indnkeyatts AS nkey, i.indoption::int2[] AS flags,
       ARRAY(SELECT a.attname FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o)
             LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n AND k.n > 0
             ORDER BY k.o) AS columns,
       ARRAY(SELECT CASE WHEN k.n = 0 THEN pg_get_indexdef(i.indexrelid, k.o::int, true) END
             FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o) ORDER BY k.o) AS expressions,
       ARRAY(SELECT CASE WHEN oc.opcdefault THEN NULL
                         WHEN oc.opcnamespace IN ('pg_catalog'::regnamespace, tc.relnamespace) THEN oc.opcname
                         ELSE ocn.nspname || '.' || oc.opcname END
             FROM unnest(i.indclass::oid[]) WITH ORDINALITY k(c, o)
             JOIN pg_opclass oc ON oc.oid = k.c JOIN pg_namespace ocn ON ocn.oid = oc.opcnamespace
             ORDER BY k.o) AS opclasses,
       ARRAY(SELECT CASE WHEN k.c = 0 OR k.c = COALESCE(a.attcollation, 100) THEN NULL
                         WHEN co.collnamespace IN ('pg_catalog'::regnamespace, tc.relnamespace) THEN co.collname
                         ELSE cn.nspname || '.' || co.collname END
             FROM unnest(i.indcollation::oid[], i.indkey::int2[]) WITH ORDINALITY k(c, n, o)
             LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n AND k.n > 0
             LEFT JOIN pg_collation co ON co.oid = k.c LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
             WHERE k.c IS NOT NULL ORDER BY k.o) AS collations,
       pg_get_expr(i.indpred, i.indrelid, true) AS predicate,
       ic.reloptions, ts.spcname AS tablespace, obj_description(ic.oid, 'pg_class') AS comment
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_class tc ON tc.oid = i.indrelid
JOIN pg_am am ON am.oid = ic.relam
LEFT JOIN pg_tablespace ts ON ts.oid = ic.reltablespace
WHERE tc.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND tc.relkind IN ('r', 'p', 'm') AND NOT ic.relispartition
  AND NOT EXISTS (SELECT 1 FROM pg_constraint x
                  WHERE x.conindid = i.indexrelid AND x.conrelid = i.indrelid AND x.contype IN ('p', 'u', 'x'))
ORDER BY ic.relname
"""

Q_SEQUENCES = f"""
SELECT c.oid, c.relnamespace AS nsp, c.relname AS name, c.oid::regclass::text AS regclass,
       format_type(s.seqtypid, NULL) AS data_type, s.seqstart AS start, s.seqincrement AS increment,
       s.seqmin AS min_value, s.seqmax AS max_value, s.seqcache AS cache, s.seqcycle AS cycle,
       d.deptype::text AS deptype, d.refobjid AS owner_rel, oc.relname AS owner_table, oa.attname AS owner_column,
       obj_description(c.oid, 'pg_class') AS comment,
       has_sequence_privilege(c.oid, 'SELECT') AS readable,
       quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS qualified
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_sequence s ON s.seqrelid = c.oid
LEFT JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
     AND d.refclassid = 'pg_class'::regclass AND d.refobjsubid > 0 AND d.deptype IN ('a', 'i')
LEFT JOIN pg_class oc ON oc.oid = d.refobjid
LEFT JOIN pg_attribute oa ON oa.attrelid = d.refobjid AND oa.attnum = d.refobjsubid
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND c.relkind = 'S'
  AND {_NOT_EXTENSION.format(catalog="pg_class", oid="c.oid")}
"""

Q_ROUTINES = f"""
SELECT p.oid, p.pronamespace AS nsp, p.proname AS name, p.prokind::text AS kind, l.lanname AS language,
       CASE WHEN p.prosqlbody IS NOT NULL THEN pg_get_function_sqlbody(p.oid) ELSE p.prosrc END AS source,
       CASE WHEN p.prokind <> 'a' THEN pg_get_functiondef(p.oid) END AS definition,
       pg_get_function_identity_arguments(p.oid) AS signature,
       pg_get_function_result(p.oid) AS result,
       p.proargnames AS argnames, p.proargmodes::text[] AS argmodes,
       ARRAY(SELECT format_type(k.t, NULL)
             FROM unnest(COALESCE(p.proallargtypes, p.proargtypes::oid[])) WITH ORDINALITY k(t, o)
             ORDER BY k.o) AS argtypes,
       p.pronargdefaults AS ndefaults, pg_get_expr(p.proargdefaults, 0) AS argdefaults,
       p.provolatile::text AS volatility, p.prosecdef AS security_definer, p.proisstrict AS strict,
       p.proleakproof AS leakproof, p.proparallel::text AS parallel, p.procost::float8 AS cost,
       p.prorows::float8 AS rows, p.proconfig AS config,
       obj_description(p.oid, 'pg_proc') AS comment,
       ag.aggtransfn::regproc::text AS agg_sfunc, format_type(ag.aggtranstype, NULL) AS agg_stype,
       NULLIF(ag.aggfinalfn, 0)::regproc::text AS agg_finalfunc,
       NULLIF(ag.aggcombinefn, 0)::regproc::text AS agg_combinefunc, ag.agginitval AS agg_initcond,
       ag.aggkind::text AS agg_kind, NULLIF(ag.aggsortop, 0)::regoperator::text AS agg_sortop,
       quote_ident(n.nspname) || '.' || quote_ident(p.proname) AS qualified
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang
LEFT JOIN pg_aggregate ag ON ag.aggfnoid = p.oid
WHERE p.pronamespace = ANY(%(nsp)s::int8[]::oid[]) AND {_NOT_EXTENSION.format(catalog="pg_proc", oid="p.oid")}
  AND NOT EXISTS (SELECT 1 FROM pg_depend i  -- constructors the server made for a range type
                  WHERE i.classid = 'pg_proc'::regclass AND i.objid = p.oid AND i.deptype = 'i')
"""

Q_POLICIES = """
SELECT pol.polrelid AS rel, pol.polname AS name, pol.polcmd::text AS command, pol.polpermissive AS permissive,
       ARRAY(SELECT CASE WHEN r.oid = 0 THEN 'PUBLIC' ELSE pg_get_userbyid(r.oid) END
             FROM unnest(pol.polroles) r(oid) ORDER BY 1) AS roles,
       pg_get_expr(pol.polqual, pol.polrelid) AS using, pg_get_expr(pol.polwithcheck, pol.polrelid) AS with_check
FROM pg_policy pol
JOIN pg_class c ON c.oid = pol.polrelid
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[])
ORDER BY pol.polname
"""

# Per-schema objects the model has no class for: collations and range types (kept in Schema.options).
Q_COLLATIONS = f"""
SELECT c.collnamespace AS nsp, c.collname AS name, c.collprovider::text AS provider,
       c.collisdeterministic AS deterministic, c.collcollate AS lc_collate, c.collctype AS lc_ctype,
       COALESCE(to_jsonb(c) ->> 'colliculocale', to_jsonb(c) ->> 'colllocale') AS locale,
       quote_ident(n.nspname) || '.' || quote_ident(c.collname) AS qualified,
       obj_description(c.oid, 'pg_collation') AS comment
FROM pg_collation c JOIN pg_namespace n ON n.oid = c.collnamespace
WHERE c.collnamespace = ANY(%(nsp)s::int8[]::oid[]) AND {_NOT_EXTENSION.format(catalog="pg_collation", oid="c.oid")}
ORDER BY c.collname
"""

Q_RANGE_TYPES = f"""
SELECT t.typnamespace AS nsp, t.typname AS name, format_type(r.rngsubtype, NULL) AS subtype,
       CASE WHEN NOT oc.opcdefault THEN quote_ident(ocn.nspname) || '.' || quote_ident(oc.opcname) END AS opclass,
       CASE WHEN r.rngcollation <> 0 AND r.rngcollation <> st.typcollation THEN
            quote_ident(cn.nspname) || '.' || quote_ident(co.collname) END AS collation,
       NULLIF(r.rngcanonical, 0)::regproc::text AS canonical, NULLIF(r.rngsubdiff, 0)::regproc::text AS subtype_diff,
       format_type(r.rngmultitypid, NULL) AS multirange,
       quote_ident(n.nspname) || '.' || quote_ident(t.typname) AS qualified,
       obj_description(t.oid, 'pg_type') AS comment
FROM pg_range r
JOIN pg_type t ON t.oid = r.rngtypid
JOIN pg_namespace n ON n.oid = t.typnamespace
JOIN pg_type st ON st.oid = r.rngsubtype
JOIN pg_opclass oc ON oc.oid = r.rngsubopc JOIN pg_namespace ocn ON ocn.oid = oc.opcnamespace
LEFT JOIN pg_collation co ON co.oid = r.rngcollation LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
WHERE t.typnamespace = ANY(%(nsp)s::int8[]::oid[]) AND {_NOT_EXTENSION.format(catalog="pg_type", oid="t.oid")}
ORDER BY t.typname
"""

Q_TRIGGERS = """
SELECT t.oid, t.tgrelid AS rel, t.tgname AS name, t.tgtype AS type, t.tgenabled::text AS enabled,
       pg_get_triggerdef(t.oid) AS definition, pn.nspname AS fn_schema, p.proname AS fn_name,
       ARRAY(SELECT a.attname FROM unnest(t.tgattr::int2[]) WITH ORDINALITY k(n, o)
             JOIN pg_attribute a ON a.attrelid = t.tgrelid AND a.attnum = k.n ORDER BY k.o) AS columns,
       t.tgconstraint <> 0 AS is_constraint, t.tgdeferrable AS deferrable, t.tginitdeferred AS deferred,
       t.tgoldtable AS old_table, t.tgnewtable AS new_table,
       obj_description(t.oid, 'pg_trigger') AS comment
FROM pg_trigger t
JOIN pg_class c ON c.oid = t.tgrelid
JOIN pg_proc p ON p.oid = t.tgfoid
JOIN pg_namespace pn ON pn.oid = p.pronamespace
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND NOT t.tgisinternal AND t.tgparentid = 0
"""

Q_EXTENSIONS = """
SELECT e.extname AS name, n.nspname AS schema, e.extversion AS version
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname <> 'plpgsql'
ORDER BY e.extname
"""

Q_ROLES = """
SELECT r.rolname AS name, r.rolsuper AS superuser, r.rolinherit AS inherit, r.rolcreaterole AS createrole,
       r.rolcreatedb AS createdb, r.rolcanlogin AS login, r.rolreplication AS replication,
       r.rolbypassrls AS bypassrls, r.rolconnlimit AS connlimit, r.rolvaliduntil::text AS valid_until,
       r.rolconfig AS config, shobj_description(r.oid, 'pg_authid') AS comment,
       ARRAY(SELECT g.rolname FROM pg_auth_members am JOIN pg_roles g ON g.oid = am.roleid
             WHERE am.member = r.oid ORDER BY g.rolname) AS member_of
FROM pg_roles r
WHERE r.rolname !~ '^pg_'
ORDER BY r.rolname
"""

_ACL_GRANTEE = """CASE WHEN x.grantee = 0 THEN NULL ELSE pg_get_userbyid(x.grantee) END AS grantee,
       x.privilege_type AS privilege, x.is_grantable AS grantable"""

Q_ACLS = f"""
SELECT CASE WHEN c.relkind = 'S' THEN 'SEQUENCE' ELSE 'TABLE' END AS objtype, c.relnamespace AS nsp,
       c.relname AS name, NULL::text AS signature, NULL::name AS column_name, {_ACL_GRANTEE}
FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) x
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
UNION ALL
SELECT 'TABLE', c.relnamespace, c.relname, NULL, a.attname, {_ACL_GRANTEE}
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid CROSS JOIN LATERAL aclexplode(a.attacl) x
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0
  AND NOT a.attisdropped
UNION ALL
SELECT 'SCHEMA', n.oid, n.nspname, NULL, NULL, {_ACL_GRANTEE}
FROM pg_namespace n CROSS JOIN LATERAL aclexplode(n.nspacl) x
WHERE n.oid = ANY(%(nsp)s::int8[]::oid[])
UNION ALL
SELECT CASE WHEN p.prokind = 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END, p.pronamespace, p.proname,
       pg_get_function_identity_arguments(p.oid), NULL, {_ACL_GRANTEE}
FROM pg_proc p CROSS JOIN LATERAL aclexplode(p.proacl) x
WHERE p.pronamespace = ANY(%(nsp)s::int8[]::oid[])
UNION ALL
SELECT CASE WHEN t.typtype = 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.typnamespace, t.typname, NULL, NULL,
       {_ACL_GRANTEE}
FROM pg_type t CROSS JOIN LATERAL aclexplode(t.typacl) x
WHERE t.typnamespace = ANY(%(nsp)s::int8[]::oid[]) AND t.typtype IN ('e', 'd', 'c', 'r', 'm')
UNION ALL
SELECT 'DATABASE', NULL, d.datname, NULL, NULL, {_ACL_GRANTEE}
FROM pg_database d CROSS JOIN LATERAL aclexplode(d.datacl) x
WHERE d.datname = current_database()
"""

# -- type mapping ---------------------------------------------------------------------------------

# pg_catalog types whose standard type does not depend on the typmod.
_FIXED_TYPES: dict[str, m.Type] = {
    "bool": m.Type(kind="boolean"),
    "int2": m.Type(kind="integer", bits=16),
    "int4": m.Type(kind="integer", bits=32),
    "int8": m.Type(kind="integer", bits=64),
    "float4": m.Type(kind="float", bits=32),
    "float8": m.Type(kind="float", bits=64),
    "text": m.Type(kind="text"),
    "bytea": m.Type(kind="blob"),
    "date": m.Type(kind="date"),
    "json": m.Type(kind="json"),
    "jsonb": m.Type(kind="json", binary=True),
    "uuid": m.Type(kind="uuid"),
    "inet": m.Type(kind="inet"),
    "cidr": m.Type(kind="inet", network=True),
    "macaddr": m.Type(kind="macaddr", length=6),
    "macaddr8": m.Type(kind="macaddr", length=8),
    "money": m.Type(kind="money"),
    "xml": m.Type(kind="xml"),
}

_VARHDRSZ = 4
_DEFAULT_FSP = 6
_INTERVAL_FULL_RANGE = 0x7FFF
_INTERVAL_FULL_PRECISION = 0xFFFF
# Interval typmod range masks (bits of datetime.h: MONTH=1, YEAR=2, DAY=3, HOUR=10, MINUTE=11, SECOND=12).
_Y, _MO, _D, _H, _MI, _S = 1 << 2, 1 << 1, 1 << 3, 1 << 10, 1 << 11, 1 << 12
_INTERVAL_FIELDS = {
    _Y: "YEAR",
    _MO: "MONTH",
    _D: "DAY",
    _H: "HOUR",
    _MI: "MINUTE",
    _S: "SECOND",
    _Y | _MO: "YEAR TO MONTH",
    _D | _H: "DAY TO HOUR",
    _D | _H | _MI: "DAY TO MINUTE",
    _D | _H | _MI | _S: "DAY TO SECOND",
    _H | _MI: "HOUR TO MINUTE",
    _H | _MI | _S: "HOUR TO SECOND",
    _MI | _S: "MINUTE TO SECOND",
}


@dataclass(frozen=True, slots=True)
class _TypeInfo:
    """One ``pg_type`` row, as much as the mapping needs."""

    oid: int
    schema: str
    name: str
    typtype: str
    category: str
    elem: int
    basetype: int
    basetypmod: int
    display: str
    range_subtype: int | None
    multi: bool


class _TypeMapper:
    """Maps ``(type oid, typmod)`` to the standard :class:`~dbjson.model.Type`."""

    def __init__(self, types: dict[int, _TypeInfo], enum_labels: dict[int, tuple[str, ...]]) -> None:
        self.types = types
        self.enum_labels = enum_labels

    def standard(self, oid: int, typmod: int, ndims: int = 0) -> m.Type:
        """The standard type of a column/field/argument of type ``oid`` with ``typmod``."""
        info = self.types.get(oid)
        if info is None:  # e.g. the row type of a table used as a column type
            return m.Type(kind="opaque")
        if info.category == "A" and info.elem:
            return m.Type(kind="array", element=self.standard(info.elem, typmod), dims=ndims or None)
        if info.typtype == "d":
            base = self.standard(info.basetype, info.basetypmod)
            return m.replace(base, type_name=info.name, type_schema=info.schema)
        if info.typtype == "e":
            return m.Type(
                kind="enum", values=self.enum_labels.get(oid, ()), type_name=info.name, type_schema=info.schema
            )
        if info.typtype in ("r", "m"):
            return self._range(info)
        if info.schema != "pg_catalog":  # composite types, extension base types
            return m.Type(kind="opaque", type_name=info.name, type_schema=info.schema)
        return self._builtin(info.name, typmod)

    def _range(self, info: _TypeInfo) -> m.Type:
        sub = self.types.get(info.range_subtype or 0)
        user = info.schema != "pg_catalog"
        return m.Type(
            kind="range",
            subtype=sub.display if sub else None,
            multi=info.multi,
            type_name=info.name if user else None,
            type_schema=info.schema if user else None,
        )

    @staticmethod
    def _builtin(name: str, typmod: int) -> m.Type:
        fixed = _FIXED_TYPES.get(name)
        if fixed is not None:
            return fixed
        if name == "numeric":
            return _numeric(typmod)
        if name in ("bpchar", "varchar"):
            length = typmod - _VARHDRSZ if typmod >= 0 else None
            return m.Type(kind="char" if name == "bpchar" else "varchar", length=length)
        if name in ("bit", "varbit"):
            return m.Type(kind="bit", length=typmod if typmod >= 0 else None, varying=name == "varbit")
        if name in ("time", "timetz", "timestamp", "timestamptz"):
            fsp = typmod if typmod >= 0 else _DEFAULT_FSP
            kind = "time" if name in ("time", "timetz") else "timestamp"
            return m.Type(kind=kind, fsp=fsp, with_timezone=name.endswith("tz"))
        if name == "interval":
            return _interval(typmod)
        return m.Type(kind="opaque")


def _numeric(typmod: int) -> m.Type:
    if typmod < 0:
        return m.Type(kind="decimal")
    tm = typmod - _VARHDRSZ
    scale = ((tm & 0x7FF) ^ 0x400) - 0x400  # 11-bit signed (PostgreSQL 15 allows negative scales)
    return m.Type(kind="decimal", precision=(tm >> 16) & 0xFFFF, scale=scale)


def _interval(typmod: int) -> m.Type:
    if typmod < 0:
        return m.Type(kind="interval", fsp=_DEFAULT_FSP)
    mask = (typmod >> 16) & _INTERVAL_FULL_RANGE
    precision = typmod & 0xFFFF
    fields = None if mask == _INTERVAL_FULL_RANGE else _INTERVAL_FIELDS.get(mask)
    has_seconds = fields is None or fields.endswith("SECOND")
    fsp = (_DEFAULT_FSP if precision == _INTERVAL_FULL_PRECISION else precision) if has_seconds else None
    return m.Type(kind="interval", fields=fields, fsp=fsp)


# -- expressions ----------------------------------------------------------------------------------

_LITERAL_RE = re.compile(r"""'((?:[^']|'')*)'(?:::[\w" .\[\]]+(?:\([\d, ]+\))?(?:\[\])*)?""")
_NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_NULL_RE = re.compile(r"NULL(?:::.+)?")
_NOW_RE = re.compile(r"(?:CURRENT_TIMESTAMP|LOCALTIMESTAMP)(?:\((\d)\))?")
_TIME_RE = re.compile(r"(?:CURRENT_TIME|LOCALTIME)(?:\((\d)\))?")
_UUID_FUNCS = re.compile(r"(?:[\w\"]+\.)?(?:gen_random_uuid|uuid_generate_v4)\(\)")
_NEXTVAL_RE = re.compile(r"nextval\('((?:[^']|'')*)'::regclass\)")


def parse_default(expr: str | None) -> m.Default | None:
    """A ``pg_get_expr`` default → :class:`~dbjson.model.Default` (None for no default / NULL).

    Quoted literals (with or without a cast) and numbers become ``literal`` (unquoted text),
    ``true``/``false`` too; ``now()``, ``CURRENT_TIMESTAMP``/``LOCALTIMESTAMP[(p)]`` become
    ``current_timestamp``, ``CURRENT_DATE`` ``current_date``, ``CURRENT_TIME``/``LOCALTIME``
    ``current_time``, ``gen_random_uuid()`` ``uuid``; anything else is a PostgreSQL expression
    (without its outer parentheses).
    """
    if expr is None:
        return None
    text = expr.strip()
    if _NULL_RE.fullmatch(text):
        return None
    lit = _LITERAL_RE.fullmatch(text)
    if lit:
        return m.Default(kind="literal", value=lit.group(1).replace("''", "'"))
    if _NUMBER_RE.fullmatch(text) or text in ("true", "false"):
        return m.Default(kind="literal", value=text)
    return _function_default(text) or m.Default(kind="expression", value=_unwrap(text), dialect=ENGINE)


def _function_default(text: str) -> m.Default | None:
    if text in ("now()", "transaction_timestamp()"):
        return m.Default(kind="function", value="current_timestamp")
    now = _NOW_RE.fullmatch(text)
    if now:
        return m.Default(kind="function", value="current_timestamp", fsp=_int_or_none(now.group(1)))
    if text == "CURRENT_DATE":
        return m.Default(kind="function", value="current_date")
    time = _TIME_RE.fullmatch(text)
    if time:
        return m.Default(kind="function", value="current_time", fsp=_int_or_none(time.group(1)))
    if _UUID_FUNCS.fullmatch(text):
        return m.Default(kind="function", value="uuid")
    return None


def _int_or_none(text: str | None) -> int | None:
    return int(text) if text is not None else None


def split_top_level(text: str) -> list[str]:
    """Split a comma-separated SQL list at top level (outside quotes and brackets)."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                if i + 1 < len(text) and text[i + 1] == quote:
                    i += 1
                else:
                    quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


_CHECK_RE = re.compile(r"CHECK \((.*)\)((?: NO INHERIT)?)((?: NOT VALID)?)", re.DOTALL)


def check_expression(definition: str) -> str:
    """The expression inside ``CHECK (...)`` of a ``pg_get_constraintdef`` text."""
    match = _CHECK_RE.fullmatch(definition)
    return match.group(1) if match else definition


def _reloptions(values: list[str] | None) -> list[str]:
    """Storage parameters as PostgreSQL lists them (``["fillfactor=70"]``), ready for ``WITH (...)``."""
    return list(values or ())


def _compact(d: dict[str, Any]) -> dict[str, Any]:
    """Drop None/False/empty-collection values (engine options list only what is not the default)."""
    return {k: v for k, v in d.items() if v is not None and v is not False and v not in ([], {}, ())}


def _pg_options(d: dict[str, Any]) -> m.Options:
    c = _compact(d)
    return {ENGINE: c} if c else {}


# -- the reflector --------------------------------------------------------------------------------

_FK_ACTIONS = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}
_FK_MATCH = {"f": "FULL", "p": "PARTIAL", "s": None}
_ROUTINE_KINDS = {"f": "function", "p": "procedure", "a": "aggregate", "w": "window"}
_ARG_MODES = {"i": "IN", "o": "OUT", "b": "INOUT", "v": "VARIADIC", "t": "TABLE"}
_VOLATILITY = {"i": "immutable", "s": "stable", "v": "volatile"}
_PARALLEL = {"s": "safe", "r": "restricted", "u": "unsafe"}
_TRIGGER_ENABLED = {"O": None, "D": "disabled", "R": "replica", "A": "always"}
_PRIVILEGE_ORDER = (
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "TRUNCATE",
    "REFERENCES",
    "TRIGGER",
    "USAGE",
    "CREATE",
    "EXECUTE",
    "TEMPORARY",
    "CONNECT",
)
_TG_ROW, _TG_BEFORE, _TG_INSERT, _TG_DELETE, _TG_UPDATE, _TG_TRUNCATE, _TG_INSTEAD = 1, 2, 4, 8, 16, 32, 64
_TG_WHEN_RE = re.compile(r" WHEN \((.*)\) EXECUTE (?:FUNCTION|PROCEDURE) ", re.DOTALL)
_TG_EXEC_RE = re.compile(r" (EXECUTE (?:FUNCTION|PROCEDURE) .*)$", re.DOTALL)
_PARTKEY_RE = re.compile(r"(RANGE|LIST|HASH) \((.*)\)", re.DOTALL)
_SEQ_CHUNK = 500


@dataclass
class _Catalog:
    """Everything read from the server, indexed for assembly."""

    schemas: list[Row]
    relations: dict[int, Row]
    columns: dict[int, list[Row]]
    types: dict[int, Row]
    mapper: _TypeMapper
    constraints: list[Row]
    indexes: dict[int, list[Row]]
    sequences: dict[int, Row]
    seq_state: dict[int, tuple[int, bool]]
    routines: list[Row]
    triggers: list[Row]
    policies: dict[int, list[Row]]
    collations: list[Row]
    range_types: list[Row]


class PostgreSQLReflector:
    """``reflect_database`` for PostgreSQL (mixed into the engine class)."""

    def reflect_database(self, conn: Any, target: Any, options: Any) -> m.Database:
        """Reflect the URL's database (the selected or all non-system schemas) into the model."""
        from ...model import now_utc
        from ...url import source_host

        with _snapshot(conn):
            with conn.cursor() as cur:
                cur.execute(Q_DATABASE)
                database, version, encoding, collate, ctype = cur.fetchone()
            cat = _read_catalog(conn, options)
            schemas = tuple(_Assembler(cat, options).schemas())
            extensions = [dict(r) for r in _fetch(conn, Q_EXTENSIONS)]
            users: tuple[m.User, ...] = ()
            public: list[m.Grant] = []
            if options.grants:
                users, public = _read_users(conn, cat, options)
        source = m.Source(
            engine=ENGINE,
            server_version=version.split()[0],
            database=database,
            dumped_at=now_utc(),
            host=source_host(target.url),
        )
        db_options = _pg_options(
            {
                "encoding": encoding,
                "collate": collate,
                "ctype": ctype,
                "extensions": extensions,
                "public_grants": [m.to_dict(g) for g in public],
            }
        )
        return m.Database(source=source, schemas=schemas, users=users, options=db_options)


@contextmanager
def _snapshot(conn: Any) -> Iterator[None]:
    """A read-only REPEATABLE READ transaction with an empty search_path (restored afterwards)."""
    import psycopg

    idle = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    if not idle:  # the caller's transaction: reuse it, restore the search path
        with conn.cursor() as cur:
            cur.execute("SELECT current_setting('search_path'), set_config('search_path', '', true)")
            saved = cur.fetchone()[0]
        try:
            yield
        finally:
            if conn.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS:  # not after an error
                conn.execute("SELECT set_config('search_path', %s, true)", (saved,))
        return
    old = (conn.isolation_level, conn.read_only)
    conn.isolation_level, conn.read_only = psycopg.IsolationLevel.REPEATABLE_READ, True
    try:
        with conn.transaction():
            conn.execute("SELECT set_config('search_path', '', true)")
            yield
    finally:
        if not conn.closed:
            conn.isolation_level, conn.read_only = old


def _fetch(conn: Any, sql: str, params: dict[str, Any] | None = None) -> list[Row]:
    from psycopg.rows import dict_row

    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(sql, params)
        return list(cur.fetchall())


def _select_schemas(conn: Any, options: Any) -> list[Row]:
    rows = _fetch(conn, Q_SCHEMAS)
    if not options.schemas:
        return rows
    known = {r["name"] for r in rows}
    missing = [s for s in options.schemas if s not in known]
    if missing:
        raise UsageError(f"schema not found: {', '.join(missing)}", hint="available: " + ", ".join(sorted(known)))
    return [r for r in rows if r["name"] in options.schemas]


def _read_catalog(conn: Any, options: Any) -> _Catalog:
    schemas = _select_schemas(conn, options)
    params = {"nsp": [r["oid"] for r in schemas]}
    types = {r["oid"]: r for r in _fetch(conn, Q_TYPES)}
    labels: dict[int, list[str]] = defaultdict(list)
    for r in _fetch(conn, Q_ENUM_LABELS):
        labels[r["typ"]].append(r["label"])
    mapper = _TypeMapper({oid: _type_info(r) for oid, r in types.items()}, {k: tuple(v) for k, v in labels.items()})
    columns: dict[int, list[Row]] = defaultdict(list)
    for r in _fetch(conn, Q_COLUMNS, params):
        columns[r["rel"]].append(r)
    indexes: dict[int, list[Row]] = defaultdict(list)
    for r in _fetch(conn, Q_INDEXES, params):
        indexes[r["rel"]].append(r)
    sequences = {r["oid"]: r for r in _fetch(conn, Q_SEQUENCES, params)}
    policies: dict[int, list[Row]] = defaultdict(list)
    for r in _fetch(conn, Q_POLICIES, params):
        policies[r["rel"]].append(r)
    return _Catalog(
        schemas=schemas,
        relations={r["oid"]: r for r in _fetch(conn, Q_RELATIONS, params)},
        columns=columns,
        types=types,
        mapper=mapper,
        constraints=_fetch(conn, Q_CONSTRAINTS, params),
        indexes=indexes,
        sequences=sequences,
        seq_state=_sequence_state(conn, sequences.values()),
        routines=_fetch(conn, Q_ROUTINES, params),
        triggers=_fetch(conn, Q_TRIGGERS, params),
        policies=policies,
        collations=_fetch(conn, Q_COLLATIONS, params),
        range_types=_fetch(conn, Q_RANGE_TYPES, params),
    )


def _type_info(r: Row) -> _TypeInfo:
    return _TypeInfo(
        oid=r["oid"],
        schema=r["schema"],
        name=r["name"],
        typtype=r["typtype"],
        category=r["category"],
        elem=r["elem"],
        basetype=r["basetype"],
        basetypmod=r["basetypmod"],
        display=r["display"],
        range_subtype=r["range_subtype"],
        multi=r["multi"],
    )


def _sequence_state(conn: Any, sequences: Iterable[Row]) -> dict[int, tuple[int, bool]]:
    """``(last_value, is_called)`` of every readable sequence, in a few UNION ALL queries."""
    readable = sorted((r["oid"], r["qualified"]) for r in sequences if r["readable"])
    state: dict[int, tuple[int, bool]] = {}
    for i in range(0, len(readable), _SEQ_CHUNK):
        chunk = readable[i : i + _SEQ_CHUNK]
        sql = " UNION ALL ".join(f"SELECT {oid}::oid AS oid, last_value, is_called FROM {name}" for oid, name in chunk)
        for r in _fetch(conn, sql):
            state[r["oid"]] = (r["last_value"], r["is_called"])
    return state


def _next_value(state: tuple[int, bool] | None, seq: Row) -> int | None:
    """The value ``nextval()`` returns next (None when unknown or the sequence is exhausted)."""
    if state is None:
        return None
    last, called = state
    if not called:
        return last
    increment, low, high = int(seq["increment"]), int(seq["min_value"]), int(seq["max_value"])
    following = last + increment
    if low <= following <= high:
        return following
    if seq["cycle"]:
        return low if increment > 0 else high
    return None


def _qualify_rel(schema: str, name: str, home: str) -> str:
    """``name`` when in the ``home`` schema, else ``schema.name``."""
    return name if schema == home else f"{schema}.{name}"


class _Assembler:
    """Builds the model objects from a :class:`_Catalog`."""

    def __init__(self, cat: _Catalog, options: Any) -> None:
        self.cat = cat
        self.nsp_names = {r["oid"]: r["name"] for r in cat.schemas}
        self.kept: dict[int, Row] = {
            oid: r for oid, r in cat.relations.items() if options.wants(self.nsp_names[r["nsp"]], r["name"])
        }
        self.serial_seqs = {  # sequences that are a column's serial (even when its table is not kept)
            c["owned_seq"] for cols in cat.columns.values() for c in cols if self._is_serial(c)
        }
        self.constraints: dict[int, list[Row]] = defaultdict(list)
        self.domain_checks: dict[int, list[Row]] = defaultdict(list)
        for c in cat.constraints:
            if c["typ"]:
                self.domain_checks[c["typ"]].append(c)
            elif c["rel"] in self.kept and not c["parent"]:
                self.constraints[c["rel"]].append(c)

    # -- schemas ----------------------------------------------------------------------------
    def schemas(self) -> Iterator[m.Schema]:
        by_nsp: dict[int, dict[str, list[Any]]] = {r["oid"]: defaultdict(list) for r in self.cat.schemas}
        for oid, rel in sorted(self.kept.items(), key=lambda kv: kv[1]["name"]):
            bucket = by_nsp[rel["nsp"]]
            if rel["kind"] in ("r", "p"):
                bucket["tables"].append(self.table(oid, rel))
            else:
                bucket["views"].append(self.view(oid, rel))
        self._types(by_nsp)
        for seq in self.cat.sequences.values():  # standalone; an owned one goes with its table
            owner_kept = seq["owner_rel"] is None or seq["owner_rel"] in self.kept
            if seq["oid"] not in self.serial_seqs and seq["deptype"] != "i" and owner_kept:
                by_nsp[seq["nsp"]]["sequences"].append(self.sequence(seq))
        for r in self.cat.routines:
            by_nsp[r["nsp"]]["routines"].append(self.routine(r))
        for c in self.cat.collations:
            by_nsp[c["nsp"]]["collations"].append(_collation(c))
        for r in self.cat.range_types:
            by_nsp[r["nsp"]]["range_types"].append(_range_type(r))
        for t in self.cat.triggers:
            owner = self.kept.get(t["rel"])
            if owner is not None:
                by_nsp[owner["nsp"]]["triggers"].append(self.trigger(t, owner))
        for s in self.cat.schemas:
            b = by_nsp[s["oid"]]
            yield m.Schema(
                name=s["name"],
                tables=tuple(b["tables"]),
                views=tuple(b["views"]),
                sequences=tuple(sorted(b["sequences"], key=lambda x: x.name)),
                enums=tuple(sorted(b["enums"], key=lambda x: x.name)),
                domains=tuple(sorted(b["domains"], key=lambda x: x.name)),
                composites=tuple(sorted(b["composites"], key=lambda x: x.name)),
                routines=tuple(sorted(b["routines"], key=lambda x: (x.name, x.signature or ""))),
                triggers=tuple(sorted(b["triggers"], key=lambda x: (x.name, x.table))),
                comment=s["comment"],
                options=_pg_options({"collations": b["collations"], "range_types": b["range_types"]}),
            )

    def _types(self, by_nsp: dict[int, dict[str, list[Any]]]) -> None:
        mapper = self.cat.mapper
        for oid, t in self.cat.types.items():
            if t["nsp"] not in by_nsp or not t["not_extension"]:
                continue
            bucket = by_nsp[t["nsp"]]
            if t["typtype"] == "e":
                bucket["enums"].append(
                    m.EnumType(name=t["name"], values=mapper.enum_labels.get(oid, ()), comment=t["comment"])
                )
            elif t["typtype"] == "d":
                bucket["domains"].append(self.domain(oid, t))
            elif t["typtype"] == "c" and t["relid"]:
                bucket["composites"].append(self.composite(t))

    # -- tables -----------------------------------------------------------------------------
    def table(self, oid: int, rel: Row) -> m.Table:
        schema = self.nsp_names[rel["nsp"]]
        cons = self.constraints.get(oid, [])
        pk = next((c for c in cons if c["type"] == "p"), None)
        parents = [_qualify_rel(s, n, schema) for s, n in zip(rel["parent_schemas"], rel["parent_names"])]
        inherited = bool(parents) and not rel["is_partition"]
        return m.Table(
            name=rel["name"],
            columns=tuple(self.column(c, schema, inherited) for c in self.cat.columns.get(oid, [])),
            primary_key=m.PrimaryKey(name=pk["name"], columns=tuple(pk["columns"]), comment=pk["comment"])
            if pk
            else None,
            uniques=tuple(self.unique(c) for c in cons if c["type"] == "u"),
            foreign_keys=tuple(self.foreign_key(c, schema) for c in cons if c["type"] == "f"),
            checks=tuple(self.check(c) for c in cons if c["type"] == "c" and c["islocal"]),
            indexes=tuple(self.index(i) for i in self.cat.indexes.get(oid, [])),
            comment=rel["comment"],
            partitioning=_partitioning(rel["partkey"]),
            partition_of=parents[0] if rel["is_partition"] else None,
            partition_bound=rel["bound"],
            inherits=tuple(parents) if inherited else (),
            options=_pg_options(
                {
                    "unlogged": rel["persistence"] == "u",
                    "with": _reloptions(rel["reloptions"]),
                    "tablespace": rel["tablespace"],
                    "access_method": rel["access_method"] if rel["access_method"] not in (None, "heap") else None,
                    "row_security": rel["row_security"],
                    "force_row_security": rel["force_row_security"],
                    "policies": [_policy(p) for p in self.cat.policies.get(oid, [])],
                    "replica_identity": _REPLICA_IDENTITY[rel["replica_identity"]],
                    "replica_identity_index": rel["replica_identity_index"] if rel["replica_identity"] == "i" else None,
                    "exclusions": [
                        _compact({"name": c["name"], "definition": c["definition"], "comment": c["comment"]})
                        for c in cons
                        if c["type"] == "x"
                    ],
                }
            ),
            row_estimate=int(rel["reltuples"]) if rel["reltuples"] >= 0 else None,
        )

    def column(self, c: Row, schema: str, inherited_table: bool) -> m.Column:
        default = None if c["generated"] else parse_default(c["default_expr"])
        identity = self._identity(c)
        if identity is not None:
            default = None
        generated = None
        if c["generated"] == "s":
            generated = m.Generated(expression=_unwrap(c["default_expr"]), stored=True, dialect=ENGINE)
        return m.Column(
            name=c["name"],
            ordinal=c["attnum"],
            type=self.cat.mapper.standard(c["typid"], c["typmod"], c["ndims"]),
            native=m.NativeType(engine=ENGINE, raw=c["raw"]),
            nullable=not c["notnull"],
            default=default,
            identity=identity,
            generated=generated,
            collation=c["collation"],
            comment=c["comment"],
            options=_pg_options({"inherited": inherited_table and not c["islocal"]}),
        )

    def _identity(self, c: Row) -> m.Identity | None:
        seq = self.cat.sequences.get(c["owned_seq"]) if c["owned_seq"] else None
        if seq is None:
            return None
        if c["identity"] in ("a", "d"):
            return self._sequence_identity("identity", seq, always=c["identity"] == "a")
        if seq["oid"] in self.serial_seqs:
            return self._sequence_identity("serial", seq, always=False)
        return None

    def _is_serial(self, c: Row) -> bool:
        """The column's default is ``nextval()`` of the sequence the column owns."""
        seq = self.cat.sequences.get(c["owned_seq"]) if c["owned_seq"] else None
        if seq is None or c["identity"] or seq["deptype"] != "a":
            return False
        nextval = _NEXTVAL_RE.fullmatch(c["default_expr"] or "")
        return nextval is not None and nextval.group(1).replace("''", "'") == seq["regclass"]

    def _sequence_identity(self, kind: str, seq: Row, *, always: bool) -> m.Identity:
        return m.Identity(
            kind=kind,
            always=always,
            start=seq["start"],
            increment=seq["increment"],
            min_value=seq["min_value"],
            max_value=seq["max_value"],
            cycle=seq["cycle"],
            cache=seq["cache"],
            next_value=_next_value(self.cat.seq_state.get(seq["oid"]), seq),
            sequence=seq["name"],
        )

    @staticmethod
    def unique(c: Row) -> m.UniqueConstraint:
        return m.UniqueConstraint(
            name=c["name"],
            columns=tuple(c["columns"]),
            nulls_not_distinct=c["nulls_not_distinct"],
            deferrable=c["deferrable"],
            initially_deferred=c["deferred"],
            comment=c["comment"],
        )

    @staticmethod
    def foreign_key(c: Row, schema: str) -> m.ForeignKey:
        return m.ForeignKey(
            name=c["name"],
            columns=tuple(c["columns"]),
            ref_table=c["ref_table"],
            ref_columns=tuple(c["ref_columns"]),
            ref_schema=c["ref_schema"] if c["ref_schema"] != schema else None,
            on_update=_FK_ACTIONS[c["on_update"]],
            on_delete=_FK_ACTIONS[c["on_delete"]],
            match=_FK_MATCH[c["match"]],
            deferrable=c["deferrable"],
            initially_deferred=c["deferred"],
            enforced=c["validated"],
            comment=c["comment"],
        )

    @staticmethod
    def check(c: Row) -> m.Check:
        return m.Check(
            name=c["name"],
            expression=check_expression(c["definition"]),
            dialect=ENGINE,
            enforced=c["validated"],
            comment=c["comment"],
            options=_pg_options({"no_inherit": c["noinherit"]}),
        )

    @staticmethod
    def index(i: Row) -> m.Index:
        nkey = i["nkey"]
        parts = tuple(_index_part(i, k) for k in range(nkey))
        expressive = i["predicate"] is not None or any(p.expression for p in parts)
        return m.Index(
            name=i["name"],
            parts=parts,
            unique=i["unique"],
            kind=i["method"],
            where=i["predicate"],
            include=tuple(i["columns"][nkey:]),
            nulls_not_distinct=i["nulls_not_distinct"],
            comment=i["comment"],
            dialect=ENGINE if expressive else None,
            options=_pg_options(
                {
                    "with": _reloptions(i["reloptions"]),
                    "tablespace": i["tablespace"],
                    "invalid": not i["valid"],
                }
            ),
        )

    # -- views and other objects ------------------------------------------------------------
    def view(self, oid: int, rel: Row) -> m.View:
        opts = [o for o in _reloptions(rel["reloptions"]) if not o.startswith("check_option=")]
        check = next((o.partition("=")[2] for o in rel["reloptions"] or () if o.startswith("check_option=")), None)
        materialized = rel["kind"] == "m"
        return m.View(
            name=rel["name"],
            definition=rel["viewdef"].strip().rstrip(";").strip(),
            dialect=ENGINE,
            materialized=materialized,
            check_option=check.upper() if check else None,
            columns=tuple(c["name"] for c in self.cat.columns.get(oid, [])),
            comment=rel["comment"],
            indexes=tuple(self.index(i) for i in self.cat.indexes.get(oid, [])),
            options=_pg_options(
                {
                    "with": opts,
                    "tablespace": rel["tablespace"],
                    "with_no_data": materialized and not rel["populated"],
                }
            ),
        )

    def sequence(self, s: Row) -> m.Sequence:
        owned = f"{s['owner_table']}.{s['owner_column']}" if s["owner_table"] else None
        return m.Sequence(
            name=s["name"],
            data_type=s["data_type"],
            start=s["start"],
            increment=s["increment"],
            min_value=s["min_value"],
            max_value=s["max_value"],
            cycle=s["cycle"],
            cache=s["cache"],
            next_value=_next_value(self.cat.seq_state.get(s["oid"]), s),
            owned_by=owned,
            comment=s["comment"],
        )

    def domain(self, oid: int, t: Row) -> m.Domain:
        return m.Domain(
            name=t["name"],
            type=self.cat.mapper.standard(oid, -1),
            native=m.NativeType(engine=ENGINE, raw=t["base_raw"]),
            nullable=not t["notnull"],
            default=parse_default(t["default_expr"]),
            checks=tuple(self.check(c) for c in self.domain_checks.get(oid, []) if c["type"] == "c"),
            collation=t["collation"],
            comment=t["comment"],
        )

    def composite(self, t: Row) -> m.CompositeType:
        fields = tuple(
            m.CompositeField(
                name=c["name"],
                type=self.cat.mapper.standard(c["typid"], c["typmod"], c["ndims"]),
                native=m.NativeType(engine=ENGINE, raw=c["raw"]),
            )
            for c in self.cat.columns.get(t["relid"], [])
        )
        return m.CompositeType(name=t["name"], fields=fields, comment=t["comment"])

    @staticmethod
    def routine(r: Row) -> m.Routine:
        return m.Routine(
            name=r["name"],
            kind=_ROUTINE_KINDS[r["kind"]],
            arguments=_arguments(r),
            returns=r["result"] or None,
            language=r["language"],
            body=r["source"] if r["kind"] != "a" else "",  # an aggregate's prosrc is a placeholder
            definition=r["definition"] if r["kind"] != "a" else _aggregate_definition(r),
            dialect=ENGINE,
            deterministic=r["volatility"] == "i",
            security="DEFINER" if r["security_definer"] else "INVOKER",
            comment=r["comment"],
            signature=r["signature"],
            options=_pg_options(
                {
                    "volatility": _VOLATILITY[r["volatility"]],
                    "strict": r["strict"],
                    "leakproof": r["leakproof"],
                    "parallel": _PARALLEL[r["parallel"]] if r["parallel"] != "u" else None,
                    "cost": r["cost"] if r["cost"] != _default_cost(r["language"]) else None,
                    "rows": r["rows"] if r["rows"] and r["rows"] != _DEFAULT_SET_ROWS else None,
                    "config": r["config"],
                    **(_aggregate_options(r) if r["kind"] == "a" else {}),
                }
            ),
        )

    def trigger(self, t: Row, rel: Row) -> m.Trigger:
        tgtype = t["type"]
        events = [
            name
            for bit, name in (
                (_TG_INSERT, "INSERT"),
                (_TG_UPDATE, "UPDATE"),
                (_TG_DELETE, "DELETE"),
                (_TG_TRUNCATE, "TRUNCATE"),
            )
            if tgtype & bit
        ]
        timing = "INSTEAD OF" if tgtype & _TG_INSTEAD else "BEFORE" if tgtype & _TG_BEFORE else "AFTER"
        definition: str = t["definition"]
        when = _TG_WHEN_RE.search(definition)
        execute = _TG_EXEC_RE.search(definition)
        schema = self.nsp_names[rel["nsp"]]
        return m.Trigger(
            name=t["name"],
            table=rel["name"],
            timing=timing,
            events=tuple(events),
            orientation="ROW" if tgtype & _TG_ROW else "STATEMENT",
            body=execute.group(1) if execute else "",
            definition=definition,
            dialect=ENGINE,
            when=_unwrap(when.group(1)) if when else None,
            comment=t["comment"],
            options=_pg_options(
                {
                    "function": _qualify_rel(t["fn_schema"], t["fn_name"], schema),
                    "update_columns": list(t["columns"]),
                    "enabled": _TRIGGER_ENABLED.get(t["enabled"]),
                    "constraint": t["is_constraint"],
                    "deferrable": t["deferrable"],
                    "initially_deferred": t["deferred"],
                    "old_table": t["old_table"],
                    "new_table": t["new_table"],
                }
            ),
        )


_COLLATION_PROVIDERS = {"c": "libc", "i": "icu", "d": "default"}


def _collation(c: Row) -> dict[str, Any]:
    """A ``CREATE COLLATION`` as a mapping with its definition."""
    provider = _COLLATION_PROVIDERS.get(c["provider"], c["provider"])
    settings = [f"provider = {provider}"]
    if c["provider"] == "i":
        settings.append(f"locale = {_sql_string(c['locale'] or '')}")
    else:
        settings += [
            f"lc_collate = {_sql_string(c['lc_collate'] or '')}",
            f"lc_ctype = {_sql_string(c['lc_ctype'] or '')}",
        ]
    if not c["deterministic"]:
        settings.append("deterministic = false")
    out = _compact(
        {
            "name": c["name"],
            "provider": provider,
            "locale": c["locale"],
            "lc_collate": c["lc_collate"],
            "lc_ctype": c["lc_ctype"],
            "comment": c["comment"],
            "definition": f"CREATE COLLATION {c['qualified']} ({', '.join(settings)})",
        }
    )
    out["deterministic"] = c["deterministic"]
    return out


def _range_type(r: Row) -> dict[str, Any]:
    """A ``CREATE TYPE ... AS RANGE`` as a mapping with its definition."""
    settings = [f"SUBTYPE = {r['subtype']}"]
    for key, clause in (
        ("opclass", "SUBTYPE_OPCLASS"),
        ("collation", "COLLATION"),
        ("canonical", "CANONICAL"),
        ("subtype_diff", "SUBTYPE_DIFF"),
    ):
        if r[key]:
            settings.append(f"{clause} = {r[key]}")
    settings.append(f"MULTIRANGE_TYPE_NAME = {r['multirange']}")
    return _compact(
        {
            "name": r["name"],
            "subtype": r["subtype"],
            "multirange": r["multirange"],
            "comment": r["comment"],
            "definition": f"CREATE TYPE {r['qualified']} AS RANGE ({', '.join(settings)})",
        }
    )


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_REPLICA_IDENTITY = {"d": None, "n": "nothing", "f": "full", "i": "index"}
_POLICY_COMMANDS = {"*": "ALL", "r": "SELECT", "a": "INSERT", "w": "UPDATE", "d": "DELETE"}


def _policy(p: Row) -> dict[str, Any]:
    """A row-level security policy (``CREATE POLICY``) as a plain mapping."""
    return _compact(
        {
            "name": p["name"],
            "command": _POLICY_COMMANDS[p["command"]],
            "restrictive": not p["permissive"],
            "roles": list(p["roles"]),
            "using": _unwrap(p["using"]) if p["using"] else None,
            "with_check": _unwrap(p["with_check"]) if p["with_check"] else None,
        }
    )


def _unwrap(expr: str) -> str:
    """``(a AND b)`` → ``a AND b`` when the outer parentheses enclose the whole expression."""
    if not (expr.startswith("(") and expr.endswith(")")):
        return expr
    inner = expr[1:-1]
    return inner if split_top_level(inner) == [inner.strip()] and _balanced(inner) else expr


def _balanced(text: str) -> bool:
    """True when the brackets outside quotes never close more than they opened."""
    depth = 0
    quote: str | None = None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _partitioning(partkey: str | None) -> m.Partitioning | None:
    if not partkey:
        return None
    match = _PARTKEY_RE.fullmatch(partkey)
    if not match:
        return m.Partitioning(method="unknown", expression=partkey, dialect=ENGINE)
    return m.Partitioning(method=match.group(1).lower(), expression=match.group(2), dialect=ENGINE)


def _index_part(i: Row, k: int) -> m.IndexPart:
    flags = i["flags"][k] if k < len(i["flags"]) else 0
    desc = bool(flags & 1)
    nulls_first = bool(flags & 2)
    nulls = None
    if desc != nulls_first:  # ASC defaults to NULLS LAST, DESC to NULLS FIRST
        nulls = "first" if nulls_first else "last"
    return m.IndexPart(
        column=i["columns"][k],
        expression=i["expressions"][k],
        descending=desc,
        nulls=nulls,
        opclass=i["opclasses"][k] if k < len(i["opclasses"]) else None,
        collation=i["collations"][k] if k < len(i["collations"]) else None,
    )


def _arguments(r: Row) -> tuple[m.Argument, ...]:
    types: list[str] = r["argtypes"]
    modes = r["argmodes"] or ["i"] * len(types)
    names = r["argnames"] or [""] * len(types)
    defaults = split_top_level(r["argdefaults"]) if r["argdefaults"] else []
    inputs = [k for k, mode in enumerate(modes) if mode in ("i", "b", "v")]
    default_of = dict(zip(inputs[len(inputs) - len(defaults) :], defaults))
    return tuple(
        m.Argument(name=names[k] or None, native=types[k], mode=_ARG_MODES[modes[k]], default=default_of.get(k))
        for k in range(len(types))
        if modes[k] != "t"  # RETURNS TABLE columns are part of ``returns``
    )


_DEFAULT_SET_ROWS = 1000.0


def _default_cost(language: str) -> float:
    """The COST a routine gets when CREATE FUNCTION does not say (1 for C/internal, else 100)."""
    return 1.0 if language in ("c", "internal") else 100.0


def _aggregate_definition(r: Row) -> str:
    """``CREATE AGGREGATE`` for an aggregate (the server prints no definition for them)."""
    clauses = [f"SFUNC = {r['agg_sfunc']}", f"STYPE = {r['agg_stype']}"]
    if r["agg_finalfunc"]:
        clauses.append(f"FINALFUNC = {r['agg_finalfunc']}")
    if r["agg_combinefunc"]:
        clauses.append(f"COMBINEFUNC = {r['agg_combinefunc']}")
    if r["agg_initcond"] is not None:
        clauses.append(f"INITCOND = {_sql_string(r['agg_initcond'])}")
    if r["agg_sortop"]:
        clauses.append(f"SORTOP = OPERATOR({r['agg_sortop'].split('(')[0]})")
    if r["parallel"] != "u":
        clauses.append(f"PARALLEL = {_PARALLEL[r['parallel']].upper()}")
    return f"CREATE AGGREGATE {r['qualified']}({r['signature'] or '*'}) (\n    " + ",\n    ".join(clauses) + "\n)"


def _aggregate_options(r: Row) -> dict[str, Any]:
    return {
        "sfunc": r["agg_sfunc"],
        "stype": r["agg_stype"],
        "finalfunc": r["agg_finalfunc"],
        "combinefunc": r["agg_combinefunc"],
        "initcond": r["agg_initcond"],
        "aggkind": r["agg_kind"] if r["agg_kind"] != "n" else None,
    }


# -- users and grants -----------------------------------------------------------------------------


def _read_users(conn: Any, cat: _Catalog, options: Any) -> tuple[tuple[m.User, ...], list[m.Grant]]:
    """Roles (without ``pg_*`` system roles, never passwords) and their privileges on reflected objects."""
    nsp_names = {r["oid"]: r["name"] for r in cat.schemas}
    grants: dict[str | None, list[m.Grant]] = defaultdict(list)
    for g in _grants(_fetch(conn, Q_ACLS, {"nsp": list(nsp_names)}), nsp_names, options):
        grants[g.grantee if g.grantee != "PUBLIC" else None].append(g)
    users = []
    for r in _fetch(conn, Q_ROLES):
        users.append(
            m.User(
                name=r["name"],
                can_login=r["login"],
                superuser=r["superuser"],
                member_of=tuple(r["member_of"]),
                grants=tuple(grants.get(r["name"], ())),
                options=_pg_options(
                    {
                        "createdb": r["createdb"],
                        "createrole": r["createrole"],
                        "replication": r["replication"],
                        "bypassrls": r["bypassrls"],
                        "noinherit": not r["inherit"],
                        "connection_limit": r["connlimit"] if r["connlimit"] != -1 else None,
                        "valid_until": r["valid_until"],
                        "config": r["config"],
                        "comment": r["comment"],
                    }
                ),
            )
        )
    return tuple(users), grants.get(None, [])


def _grants(rows: list[Row], nsp_names: dict[int, str], options: Any) -> list[m.Grant]:
    """Group exploded ACL items into GRANT statements (one per object, grantee, grant option)."""
    whole: dict[tuple[Any, ...], set[str]] = defaultdict(set)
    columns: dict[tuple[Any, ...], list[str]] = defaultdict(list)
    for r in rows:
        schema = nsp_names.get(r["nsp"])  # None for the database
        if r["objtype"] == "TABLE" and not options.wants(schema, r["name"]):
            continue
        grantee = r["grantee"] or "PUBLIC"
        obj = (r["objtype"], schema, r["name"], r["signature"])
        if r["column_name"] is not None:
            columns[(obj, grantee, r["grantable"], r["privilege"])].append(r["column_name"])
        else:
            whole[(obj, grantee, r["grantable"])].add(r["privilege"])
    out = [_grant(obj, grantee, grantable, _ordered(privs), ()) for (obj, grantee, grantable), privs in whole.items()]
    out += [
        _grant(obj, grantee, grantable, (priv,), tuple(sorted(cols)))
        for (obj, grantee, grantable, priv), cols in columns.items()
    ]
    return sorted(out, key=lambda g: (g.grantee, g.on, g.columns, g.privileges, g.grantable))


def _ordered(privileges: set[str]) -> tuple[str, ...]:
    return tuple(sorted(privileges, key=lambda p: (_PRIVILEGE_ORDER.index(p) if p in _PRIVILEGE_ORDER else 99, p)))


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _grant(
    obj: tuple[Any, ...], grantee: str, grantable: bool, privileges: tuple[str, ...], columns: tuple[str, ...]
) -> m.Grant:
    objtype, schema, name, signature = obj
    if objtype in ("SCHEMA", "DATABASE"):
        on, target = f"{objtype} {name}", f"{objtype} {_quote(name)}"
    else:
        args = f"({signature})" if signature is not None else ""
        on = f"{objtype} {schema}.{name}{args}"
        target = f"{objtype} {_quote(schema)}.{_quote(name)}{args}"
    cols = f" ({', '.join(_quote(c) for c in columns)})" if columns else ""
    who = "PUBLIC" if grantee == "PUBLIC" else _quote(grantee)
    statement = f"GRANT {', '.join(privileges)}{cols} ON {target} TO {who}"
    if grantable:
        statement += " WITH GRANT OPTION"
    return m.Grant(
        privileges=privileges, on=on, grantee=grantee, grantable=grantable, statement=statement, columns=columns
    )
