"""PostgreSQL reflection, step 1: the catalog queries, one per object kind for the whole database
(never one per table), read in one snapshot into a :class:`Catalog`.

``%(nsp)s`` in a query is the array of the reflected schemas' oids. :func:`snapshot` opens the
read-only REPEATABLE READ transaction with an empty ``search_path`` that every query runs in.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ...errors import UsageError
from .typemap import TypeInfo, TypeMapper

Row = dict[str, Any]  # one catalog row, keyed by the query's column aliases

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

# Every type except the row types of tables/views (and arrays of them): a few hundred rows. The
# base type's and the collation's facts are scalar subqueries (one index lookup per type): as LEFT
# JOINs, the anti-join's estimate of one row made the planner loop over all of pg_type and
# pg_collation for every type (a 20-50 ms query, the biggest of an export's reflection).
Q_TYPES = f"""
SELECT t.oid, t.typnamespace AS nsp, n.nspname AS schema, t.typname AS name, t.typtype::text AS typtype,
       t.typcategory::text AS category, t.typelem AS elem, t.typbasetype AS basetype,
       t.typtypmod AS basetypmod, t.typnotnull AS notnull, t.typrelid AS relid,
       format_type(t.oid, NULL) AS display,
       CASE WHEN t.typbasetype <> 0 THEN format_type(t.typbasetype, t.typtypmod) END AS base_raw,
       CASE WHEN t.typcollation <> 0
                 AND t.typcollation <> (SELECT bt.typcollation FROM pg_type bt WHERE bt.oid = t.typbasetype) THEN
            (SELECT CASE WHEN co.collnamespace IN ('pg_catalog'::regnamespace, t.typnamespace) THEN co.collname
                         ELSE cn.nspname || '.' || co.collname END
             FROM pg_collation co LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
             WHERE co.oid = t.typcollation)
       END AS collation,
       pg_get_expr(t.typdefaultbin, 0) AS default_expr,
       COALESCE(r.rngsubtype, mr.rngsubtype) AS range_subtype, mr.rngtypid IS NOT NULL AS multi,
       obj_description(t.oid, 'pg_type') AS comment,
       {_NOT_EXTENSION.format(catalog="pg_type", oid="t.oid")} AS not_extension
FROM pg_type t
JOIN pg_namespace n ON n.oid = t.typnamespace
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

# Rewrite rules (CREATE RULE) of tables, but a view's own ``_RETURN``: the definition as
# pg_get_ruledef prints it (schema-qualified under the empty search_path), without its ';'.
Q_RULES = """
SELECT r.ev_class AS rel, r.rulename AS name, rtrim(pg_get_ruledef(r.oid), ';') AS definition,
       obj_description(r.oid, 'pg_rewrite') AS comment
FROM pg_rewrite r
JOIN pg_class c ON c.oid = r.ev_class
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND r.rulename <> '_RETURN'
ORDER BY r.rulename
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
       c.relname AS name, NULL::text AS signature, NULL::name AS column_name, {_ACL_GRANTEE},
       pg_get_userbyid(c.relowner) AS owner, false AS initial
FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) x
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
UNION ALL
SELECT 'TABLE', c.relnamespace, c.relname, NULL, a.attname, {_ACL_GRANTEE}, pg_get_userbyid(c.relowner), false
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid CROSS JOIN LATERAL aclexplode(a.attacl) x
WHERE c.relnamespace = ANY(%(nsp)s::int8[]::oid[]) AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0
  AND NOT a.attisdropped
UNION ALL
SELECT 'SCHEMA', n.oid, n.nspname, NULL, NULL, {_ACL_GRANTEE}, pg_get_userbyid(n.nspowner),
       EXISTS (SELECT 1 FROM pg_init_privs ip CROSS JOIN LATERAL aclexplode(ip.initprivs) y
               WHERE ip.objoid = n.oid AND ip.classoid = 'pg_namespace'::regclass AND ip.objsubid = 0
                 AND y.grantee = x.grantee AND y.privilege_type = x.privilege_type)
FROM pg_namespace n CROSS JOIN LATERAL aclexplode(n.nspacl) x
WHERE n.oid = ANY(%(nsp)s::int8[]::oid[])
UNION ALL
SELECT CASE WHEN p.prokind = 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END, p.pronamespace, p.proname,
       pg_get_function_identity_arguments(p.oid), NULL, {_ACL_GRANTEE}, pg_get_userbyid(p.proowner), false
FROM pg_proc p CROSS JOIN LATERAL aclexplode(p.proacl) x
WHERE p.pronamespace = ANY(%(nsp)s::int8[]::oid[])
UNION ALL
SELECT CASE WHEN t.typtype = 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.typnamespace, t.typname, NULL, NULL,
       {_ACL_GRANTEE}, pg_get_userbyid(t.typowner), false
FROM pg_type t CROSS JOIN LATERAL aclexplode(t.typacl) x
WHERE t.typnamespace = ANY(%(nsp)s::int8[]::oid[]) AND t.typtype IN ('e', 'd', 'c', 'r', 'm')
UNION ALL
SELECT 'DATABASE', NULL, d.datname, NULL, NULL, {_ACL_GRANTEE}, pg_get_userbyid(d.datdba), false
FROM pg_database d CROSS JOIN LATERAL aclexplode(d.datacl) x
WHERE d.datname = current_database()
"""

# -- reading the catalog --------------------------------------------------------------------------

_SEQ_CHUNK = 500


@dataclass
class Catalog:
    """Everything read from the server, indexed for assembly."""

    schemas: list[Row]
    relations: dict[int, Row]
    columns: dict[int, list[Row]]
    types: dict[int, Row]
    mapper: TypeMapper
    constraints: list[Row]
    indexes: dict[int, list[Row]]
    sequences: dict[int, Row]
    seq_state: dict[int, tuple[int, bool]]
    routines: list[Row]
    triggers: list[Row]
    policies: dict[int, list[Row]]
    rules: dict[int, list[Row]]
    collations: list[Row]
    range_types: list[Row]


@contextmanager
def snapshot(conn: Any) -> Iterator[None]:
    """A read-only REPEATABLE READ transaction with an empty search_path (restored afterwards)."""
    import psycopg  # lazy: only a PostgreSQL command pays for importing the driver

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


def fetch(conn: Any, sql: str, params: dict[str, Any] | None = None) -> list[Row]:
    """The rows of one query as dicts keyed by column alias."""
    from psycopg.rows import dict_row  # lazy: see snapshot()

    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(sql, params)
        return list(cur.fetchall())


def _select_schemas(conn: Any, options: Any) -> list[Row]:
    rows = fetch(conn, Q_SCHEMAS)
    if not options.schemas:
        return rows
    known = {r["name"] for r in rows}
    missing = [s for s in options.schemas if s not in known]
    if missing:
        raise UsageError(f"schema not found: {', '.join(missing)}", hint="available: " + ", ".join(sorted(known)))
    return [r for r in rows if r["name"] in options.schemas]


# The catalog queries run on a helper connection (``ReflectOptions.helpers``) while the others run
# on the reflecting one: the types (the longest, 15-30 ms: every type of the database) and the
# objects read after the tables (name → query, whether it takes ``%(nsp)s``).
_ASIDE: dict[str, tuple[str, bool]] = {
    "types": (Q_TYPES, False),
    "labels": (Q_ENUM_LABELS, False),
    "routines": (Q_ROUTINES, True),
    "triggers": (Q_TRIGGERS, True),
    "collations": (Q_COLLATIONS, True),
    "range_types": (Q_RANGE_TYPES, True),
}


def _fetch_named(conn: Any, queries: dict[str, tuple[str, bool]], params: dict[str, Any]) -> dict[str, list[Row]]:
    return {name: fetch(conn, sql, params if takes else None) for name, (sql, takes) in queries.items()}


class _Aside:
    """:data:`_ASIDE` read on a thread on ``helper`` (inside :func:`snapshot`), or at once on the
    reflecting connection without one. :meth:`rows` waits for them (and raises their error)."""

    def __init__(self, conn: Any, helper: Any, params: dict[str, Any]) -> None:
        self._rows: dict[str, list[Row]] = {}
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if helper is None:
            self._rows = _fetch_named(conn, _ASIDE, params)
            return

        def run() -> None:
            try:
                with snapshot(helper):
                    self._rows = _fetch_named(helper, _ASIDE, params)
            except BaseException as e:  # noqa: BLE001 - raised by rows()
                self._error = e

        self._thread = threading.Thread(target=run, name="dbjson-reflect-aside", daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """The helper is done with its connection (called on every way out of :func:`read_catalog`)."""
        if self._thread is not None:
            self._thread.join()

    def rows(self) -> dict[str, list[Row]]:
        self.wait()
        if self._error is not None:
            raise self._error
        return self._rows


def read_catalog(conn: Any, options: Any) -> Catalog:
    """Run every catalog query for the selected schemas (inside :func:`snapshot`). With
    ``options.helpers`` (connections in the same snapshot, idle meanwhile), the queries of
    :data:`_ASIDE` run on the first of them at the same time."""
    schemas = _select_schemas(conn, options)
    params = {"nsp": [r["oid"] for r in schemas]}
    helpers = getattr(options, "helpers", ())
    aside = _Aside(conn, helpers[0] if helpers else None, params)
    try:
        columns: dict[int, list[Row]] = defaultdict(list)
        for r in fetch(conn, Q_COLUMNS, params):
            columns[r["rel"]].append(r)
        indexes: dict[int, list[Row]] = defaultdict(list)
        for r in fetch(conn, Q_INDEXES, params):
            indexes[r["rel"]].append(r)
        sequences = {r["oid"]: r for r in fetch(conn, Q_SEQUENCES, params)}
        policies: dict[int, list[Row]] = defaultdict(list)
        for r in fetch(conn, Q_POLICIES, params):
            policies[r["rel"]].append(r)
        rules: dict[int, list[Row]] = defaultdict(list)
        for r in fetch(conn, Q_RULES, params):
            rules[r["rel"]].append(r)
        relations = {r["oid"]: r for r in fetch(conn, Q_RELATIONS, params)}
        constraints = fetch(conn, Q_CONSTRAINTS, params)
        seq_state = _sequence_state(conn, sequences.values())
        side = aside.rows()
    finally:
        aside.wait()
    types = {r["oid"]: r for r in side["types"]}
    labels: dict[int, list[str]] = defaultdict(list)
    for r in side["labels"]:
        labels[r["typ"]].append(r["label"])
    mapper = TypeMapper({oid: _type_info(r) for oid, r in types.items()}, {k: tuple(v) for k, v in labels.items()})
    return Catalog(
        schemas=schemas,
        relations=relations,
        columns=columns,
        types=types,
        mapper=mapper,
        constraints=constraints,
        indexes=indexes,
        sequences=sequences,
        seq_state=seq_state,
        routines=side["routines"],
        triggers=side["triggers"],
        policies=policies,
        rules=rules,
        collations=side["collations"],
        range_types=side["range_types"],
    )


def _type_info(r: Row) -> TypeInfo:
    return TypeInfo(
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
        for r in fetch(conn, sql):
            state[r["oid"]] = (r["last_value"], r["is_called"])
    return state
