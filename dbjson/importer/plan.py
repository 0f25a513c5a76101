"""The plan of an import: which tables of an export load where, built from the export's schema
document and manifest against a target engine (:func:`plan_import`, also what ``dbjson verify``
compares).

The DDL plan (:func:`dbjson.ddl.to_ddl`) gives each table and column its target name and type;
``--rename`` renames columns in the document first; ``--set``, ``--set-sql`` and ``--increment``
replace a column's data (:func:`apply_column_option`). Each table becomes a
:class:`~dbjson.engines.interface.TablePlan`.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import model as m
from ..engines import Engine
from ..engines.interface import TablePlan
from ..errors import DocumentError, UsageError, first_line
from ..filters import check_filters, relations
from ..format.checksum import DEFAULT_CHECKSUM
from ..format.manifest import ManifestTable
from ..preflight import value_rules
from .options import ImportOptions, split_option
from .reader import LoadUnit

if TYPE_CHECKING:
    from ..ddl.plan import DdlPlan, Statement


@dataclass
class ImportPlan:
    """The DDL plan (None: the source's names and types, see :func:`plan_import`) and the tables."""

    ddl: DdlPlan | None
    tables: list[TablePlan]


def plan_import(
    db: m.Database,
    mtables: list[ManifestTable],
    engine: Engine,
    opts: ImportOptions,
    *,
    manifest_file: str,
    warn: Callable[[str], None],
) -> ImportPlan:
    """The plan of loading the export (``db``, ``mtables``) into a database of ``engine`` under ``opts``.

    With ``opts.data_only`` only the DDL plan's name and type maps are used: when no plan can be
    made for the target, ``warn`` is told and the source's names and types are used. Otherwise
    the DDL plan is the one the import runs (``--max-errors``: primary keys come with the table,
    so a duplicate key is a rejected row).
    """
    renamed = rename_columns(db, opts.renames)
    ddl = (
        _data_only_ddl(renamed, engine, warn, opts.casts)
        if opts.data_only
        else plan_ddl(
            renamed,
            engine,
            opts.strict,
            creating=opts.max_errors <= 0,
            options={
                "privileges": opts.privileges,
                "grants": opts.grants,
                "casts": opts.casts,
                "untrusted": opts.untrusted,
            },
        )
    )
    return ImportPlan(ddl, table_plans(db, renamed, mtables, ddl, engine, opts, manifest_file))


def _data_only_ddl(
    db: m.Database, engine: Engine, warn: Callable[[str], None], casts: Sequence[Any] = ()
) -> DdlPlan | None:
    """The DDL plan's name and type maps, or None (source names and types) when it cannot be made."""
    try:
        return plan_ddl(db, engine, False, options={"casts": casts, "privileges": False})
    except UsageError:  # a cast rule naming no column
        raise
    except Exception as e:  # noqa: BLE001 - data-only needs no DDL: fall back to the source's names
        warn(f"no DDL plan for this target ({first_line(e)}); using the source's names and types")
        return None


def table_plans(
    db: m.Database,
    renamed: m.Database,
    mtables: list[ManifestTable],
    plan: DdlPlan | None,
    engine: Engine,
    opts: ImportOptions,
    manifest_file: str,
) -> list[TablePlan]:
    """Tables to load: source columns (the lines' keys) paired with target names and types.

    ``renamed`` is ``db`` after ``--rename`` (what the DDL plan ``plan`` was made from; None: the
    source's names and types); ``manifest_file`` names the manifest in errors.
    """
    include, exclude = opts.tables, opts.exclude
    check_filters(
        relations(db),
        tables=include,
        exclude=exclude,
        source=f"the export ({manifest_file})",
    )
    by_name = {(t.schema, t.name): t for t in mtables}
    names_only = {t.name: t for t in mtables}
    out: list[TablePlan] = []
    for (s, t), (_rs, rt) in zip(db.tables(), renamed.tables()):
        if include and not _matches(t.name, s.name, include):
            continue
        if exclude and _matches(t.name, s.name, exclude):
            continue
        mt = by_name.get((s.name, t.name)) or names_only.get(t.name)
        if mt is None and not opts.schema_only and t.partition_of is None:
            raise DocumentError(
                f"table {s.name}.{t.name} is in schema.json but not in the manifest",
                file=manifest_file,
                table=t.name,
            )
        tschema, tname = (plan.table_names.get((s.name, t.name)) if plan is not None else None) or (
            default_target_schema(db, s.name, engine),
            t.name,
        )
        in_data = set(mt.columns) if mt is not None and mt.columns is not None else {c.name for c in t.columns}

        def tname_of(c: m.Column, s: m.Schema = s, t: m.Table = t) -> str:
            return plan.column_names.get((s.name, t.name, c.name), c.name) if plan is not None else c.name

        def ttype_of(c: m.Column, s: m.Schema = s, t: m.Table = t) -> m.Type:
            return plan.column_types.get((s.name, t.name, c.name), c.type) if plan is not None else c.type

        pairs = [(c, rc) for c, rc in zip(t.columns, rt.columns) if c.name in in_data]
        plain = plan.plain_generated if plan is not None else set()
        loaded = [(c, rc) for c, rc in pairs if c.generated is None or (s.name, t.name, rc.name) in plain]
        tp = TablePlan(
            schema=s.name,
            name=t.name,
            table=t,
            tschema=tschema,
            tname=tname,
            columns=[c for c, _ in loaded],
            target_names=[tname_of(rc) for _, rc in loaded],
            target_types=[ttype_of(rc) for _, rc in loaded],
            files=mt.files if mt else [],
            rows=mt.rows if mt else 0,
            checksum=mt.checksum if mt else None,
            checksum_algorithm=mt.algorithm if mt else DEFAULT_CHECKSUM,
            ddl_only=mt is None and t.partition_of is not None,
            verify_columns=[(c, tname_of(rc), ttype_of(rc)) for c, rc in pairs],
            json_text=frozenset(mt.json_text) if mt else frozenset(),
        )
        tp.value_rules = value_rules(engine, tp.verify_columns, opts.nul)
        for opt, attr, conv in (
            ("set_values", "fixed", str),
            ("set_sql", "exprs", str),
            ("increments", "increments", int),
        ):
            for col, value in _per_table(getattr(opts, opt), "--" + opt.replace("_", "-"), s.name, t.name).items():
                apply_column_option(tp, attr, col, conv(value))
        out.append(tp)
    for opt in ("set_values", "set_sql", "increments"):
        for key in getattr(opts, opt):
            tname, _col = split_option(key, opt)
            if not any(tname in (tp.name, f"{tp.schema}.{tp.name}") for tp in out):
                raise UsageError(f"--{opt.replace('_', '-')}: no table {tname!r} in this import")
    return out


def apply_column_option(tp: TablePlan, attr: str, col: str, value: Any) -> None:
    """Give column ``col`` of ``tp`` a fixed value, an SQL expression or a counter (``attr``: ``fixed``,
    ``exprs`` or ``increments``) instead of its data. An expression keeps the data column: the
    source value is what the expression sees under the column's name (``email=md5(email)``)."""
    if col in tp.target_names and attr != "exprs":  # the option replaces the data column
        i = tp.target_names.index(col)
        for lst in (tp.columns, tp.target_names, tp.target_types):
            del lst[i]
    getattr(tp, attr)[col] = value


def _matches(name: str, schema: str, globs: Sequence[str]) -> bool:
    names = (name, f"{schema}.{name}")
    return any(fnmatch.fnmatchcase(n, g) for g in globs for n in names)


def _per_table(options: Mapping[str, Any], what: str, schema: str, table: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in options.items():
        t, col = split_option(key, what)
        if t in (table, f"{schema}.{table}"):
            out[col] = value
    return out


def rename_columns(db: m.Database, renames: Mapping[str, str]) -> m.Database:
    """The document with columns renamed (``{"table.old": "new"}``): columns, keys, indexes, FKs."""
    if not renames:
        return db
    per: dict[str, dict[str, str]] = {}
    for key, new in renames.items():
        tname, old = split_option(key, "--rename")
        per.setdefault(tname, {})[old] = new
    schemas = []
    for s in db.schemas:
        tables = []
        for t in s.tables:
            mp = per.get(t.name, {}) | per.get(f"{s.name}.{t.name}", {})
            tables.append(_rename_in_table(t, mp, per, s.name))
        schemas.append(m.replace(s, tables=tuple(tables)))
    return m.replace(db, schemas=tuple(schemas))


def _rename_in_table(t: m.Table, mp: dict[str, str], per: dict[str, dict[str, str]], schema: str) -> m.Table:
    def r(names: Sequence[str]) -> tuple[str, ...]:
        return tuple(mp.get(n, n) for n in names)

    missing = [c for c in mp if not any(col.name == c for col in t.columns)]
    if missing:
        raise UsageError(f"--rename: table {t.name} has no column {missing[0]!r}")
    fks = []
    for fk in t.foreign_keys:
        ref = per.get(fk.ref_table, {}) | per.get(f"{fk.ref_schema or schema}.{fk.ref_table}", {})
        fks.append(m.replace(fk, columns=r(fk.columns), ref_columns=tuple(ref.get(c, c) for c in fk.ref_columns)))
    return m.replace(
        t,
        columns=tuple(m.replace(c, name=mp.get(c.name, c.name)) for c in t.columns),
        primary_key=m.replace(t.primary_key, columns=r(t.primary_key.columns)) if t.primary_key else None,
        uniques=tuple(m.replace(u, columns=r(u.columns)) for u in t.uniques),
        indexes=tuple(
            m.replace(
                ix,
                parts=tuple(m.replace(p, column=mp.get(p.column, p.column)) if p.column else p for p in ix.parts),
                include=r(ix.include),
            )
            for ix in t.indexes
        ),
        foreign_keys=tuple(fks),
    )


def plan_ddl(
    db: m.Database,
    engine: Engine,
    strict: bool,
    *,
    creating: bool = False,
    options: Mapping[str, Any] | None = None,
) -> DdlPlan:
    """The DDL plan of an import. ``creating``: the plan's statements will run (not only its name
    and type maps), so on engines with ``load_defer_primary_key`` primary keys come post-data.
    ``options``: more of :func:`dbjson.schemaload.to_ddl`'s (``privileges``, ``grants``, ``casts``, ``untrusted``: none of the
    document's code runs, docs/security.md)."""
    from ..schemaload import to_ddl  # (start-up time: the ddl kit loads when a plan is made)

    defer = creating and engine.capabilities.defers_primary_key
    opts = dict(options or {})
    if defer:
        opts["defer_primary_keys"] = True
    return to_ddl(db, engine, server_version=engine.server_version, strict=strict, options=opts or None)


def default_target_schema(db: m.Database, schema: str, engine: Engine) -> str | None:
    """Where a source schema goes when the DDL plan does not say (the brief's DDL contract)."""
    if not engine.capabilities.schemas:
        return None  # the URL's database
    if db.source.engine in ("mysql", "mariadb", "sqlite") and len(db.schemas) == 1:
        return "public"
    return schema


# Pre-data objects that are not tables (several tables may share one): types (enums, domains,
# composites, ranges), sequences, collations.
SHARED_KINDS = ("type", "sequence", "collation")


def qualified(tp: TablePlan) -> str:
    """The target table's name, schema-qualified when it has a schema."""
    return f"{tp.tschema}.{tp.tname}" if tp.tschema else tp.tname


def _names(engine: Engine, tables: Sequence[TablePlan]) -> set[str]:
    """The quoted names of ``tables`` as statements name them (``Statement.table``/``object``: the
    engine's ``qualify``), qualified and bare. Compared as quoted text, never unquoted: a name may
    hold a quote, a backtick or a dot (``we"ird``, ``d.o.t``)."""
    return {engine.qualify(tp.tschema, tp.tname) for tp in tables} | {engine.quote(tp.tname) for tp in tables}


def unquote(name: str) -> str:
    """``"public"."t"`` / ```t``` → ``public.t`` / ``t``: a statement's object for messages only."""
    return name.replace('"', "").replace("`", "")


def pre_data_statements(
    plan: DdlPlan, tables: list[TablePlan], existing: set[tuple[str | None, str]], engine: Engine
) -> list[Statement]:
    """Pre-data statements, without those of tables that are kept (skipped or already there)."""
    selected = _names(engine, tables)
    keep_existing = _names(engine, [tp for tp in tables if tp.skipped or (tp.tschema, tp.tname) in existing])
    out = []
    for st in plan.pre_data:
        obj = st.table or (st.object if st.kind == "table" else "")
        if obj and (obj in keep_existing or obj not in selected):
            continue
        out.append(st)
    return out


def post_data_statements(
    plan: DdlPlan, tables: list[TablePlan], engine: Engine, opts: ImportOptions | None = None
) -> list[Statement]:
    """Post-data statements of the selected, not skipped tables (and the table-less ones). With
    ``--tables``/``--exclude`` (``opts``), a view is created only when its name matches them too,
    as pg_restore -t restores only the relations named: a view over tables left out is not."""
    wanted = _names(engine, [tp for tp in tables if not tp.skipped and not tp.kept])
    restart = _names(engine, [tp for tp in tables if tp.kept])
    filtered = opts is not None and bool(opts.tables or opts.exclude)

    def view_selected(st: Statement) -> bool:
        assert opts is not None
        name = unquote(st.object)
        schema, _dot, bare = name.rpartition(".")
        return (not opts.tables or _matches(bare, schema, opts.tables)) and not _matches(bare, schema, opts.exclude)

    return [
        st
        for st in plan.post_data
        if (not st.table or st.table in wanted or (st.kind == "restart" and st.table in restart))
        and not (filtered and st.kind == "view" and not view_selected(st))
    ]


def replace_drops(
    engine: Engine, plan: DdlPlan, pre: list[Statement], tables: list[TablePlan], opts: ImportOptions | None = None
) -> list[Statement]:
    """``--if-exists replace``: drop (if they exist) the views, types, sequences and collations
    this import creates again (the importer drops the tables when it finds them). Only objects the
    document defines, and never with CASCADE: an object outside the document that uses one of
    them makes the drop fail (an ApplyError with a hint) instead of silently losing it."""
    from ..ddl.plan import DdlPlan  # (start-up time: dbjson.ddl loads when a plan is made, see plan_ddl)

    shared = DdlPlan(
        plan.target,
        plan.server_version,
        pre_data=[st for st in pre if st.kind in SHARED_KINDS],
        post_data=[st for st in post_data_statements(plan, tables, engine, opts) if st.kind == "view"],
    )
    drops = engine.ddl_drop_statements(shared)
    return [dataclasses.replace(st, sql=st.sql.removesuffix(" CASCADE")) for st in drops if st.kind == "drop"]


def foreign_key_waves(engine: Engine, units: list[LoadUnit]) -> list[list[LoadUnit]]:
    """The units in the order foreign keys allow.

    Tables this import creates get their foreign keys after the data (post-data), and MySQL /
    MariaDB load with ``foreign_key_checks = 0``, SQLite without ``foreign_keys``: any order
    then. But a table kept by ``--if-exists truncate`` keeps its foreign keys, and PostgreSQL
    (``load_checks_foreign_keys``) checks them at every statement: its rows are loaded after
    those of the tables it references (waves by depth; the units of one wave in parallel).
    References of a table to itself are not ordered (its units load in parallel)."""
    if not engine.capabilities.checks_foreign_keys or not any(u.table.kept for u in units):
        return [units]
    tables: dict[tuple[str, str], TablePlan] = {}
    for u in units:
        tables.setdefault((u.table.schema, u.table.name), u.table)
    depth: dict[tuple[str, str], int] = {}

    def level(key: tuple[str, str], path: frozenset[tuple[str, str]]) -> int:
        if key in depth:
            return depth[key]
        if key in path:
            names = ", ".join(sorted(f"{s}.{t}" for s, t in path))
            raise UsageError(
                f"--if-exists truncate: the foreign keys among {names} form a cycle, so no order "
                "of loading satisfies them",
                hint="use --if-exists replace: the tables are created "
                "again and their foreign keys added after the data",
            )
        tp = tables[key]
        refs = {(fk.ref_schema or tp.schema, fk.ref_table) for fk in tp.table.foreign_keys} if tp.kept else set()
        refs = {r for r in refs if r in tables and r != key}
        depth[key] = 1 + max((level(r, path | {key}) for r in refs), default=-1)
        return depth[key]

    for key in tables:
        level(key, frozenset())
    waves: list[list[LoadUnit]] = [[] for _ in range(max(depth.values()) + 1)]
    for u in units:
        waves[depth[(u.table.schema, u.table.name)]].append(u)
    return [w for w in waves if w]
