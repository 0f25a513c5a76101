"""PostgreSQL reflection, step 2: the model objects (schemas, tables, columns, constraints, indexes,
views, sequences, types, routines, triggers) assembled from a :class:`~.catalog.Catalog`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from ... import model as m
from .catalog import Catalog, Row
from .sqltext import ENGINE, check_expression, parse_default, split_top_level, unwrap

_NEXTVAL_RE = re.compile(r"nextval\('((?:[^']|'')*)'::regclass\)")

_FK_ACTIONS = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}
_FK_MATCH = {"f": "FULL", "p": "PARTIAL", "s": None}
_ROUTINE_KINDS = {"f": "function", "p": "procedure", "a": "aggregate", "w": "window"}
_ARG_MODES = {"i": "IN", "o": "OUT", "b": "INOUT", "v": "VARIADIC", "t": "TABLE"}
_VOLATILITY = {"i": "immutable", "s": "stable", "v": "volatile"}
_PARALLEL = {"s": "safe", "r": "restricted", "u": "unsafe"}
_TRIGGER_ENABLED = {"O": None, "D": "disabled", "R": "replica", "A": "always"}
_TG_ROW, _TG_BEFORE, _TG_INSERT, _TG_DELETE, _TG_UPDATE, _TG_TRUNCATE, _TG_INSTEAD = 1, 2, 4, 8, 16, 32, 64
_TG_WHEN_RE = re.compile(r" WHEN \((.*)\) EXECUTE (?:FUNCTION|PROCEDURE) ", re.DOTALL)
_TG_EXEC_RE = re.compile(r" (EXECUTE (?:FUNCTION|PROCEDURE) .*)$", re.DOTALL)
_PARTKEY_RE = re.compile(r"(RANGE|LIST|HASH) \((.*)\)", re.DOTALL)


def _reloptions(values: list[str] | None) -> list[str]:
    """Storage parameters as PostgreSQL lists them (``["fillfactor=70"]``), ready for ``WITH (...)``."""
    return list(values or ())


def _compact(d: dict[str, Any]) -> dict[str, Any]:
    """Drop None/False/empty-collection values (engine options list only what is not the default)."""
    return {k: v for k, v in d.items() if v is not None and v is not False and v not in ([], {}, ())}


def pg_options(d: dict[str, Any]) -> m.Options:
    """``options`` of a model object: the values of ``d`` that are not the default, under ``postgresql``."""
    c = _compact(d)
    return {ENGINE: c} if c else {}


def next_value(state: tuple[int, bool] | None, seq: Row) -> int | None:
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


class Assembler:
    """Builds the model objects from a :class:`Catalog`."""

    def __init__(self, cat: Catalog, options: Any) -> None:
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
                options=pg_options({"collations": b["collations"], "range_types": b["range_types"]}),
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
            options=pg_options(
                {
                    "unlogged": rel["persistence"] == "u",
                    "with": _reloptions(rel["reloptions"]),
                    "tablespace": rel["tablespace"],
                    "access_method": rel["access_method"] if rel["access_method"] not in (None, "heap") else None,
                    "row_security": rel["row_security"],
                    "force_row_security": rel["force_row_security"],
                    "policies": [_policy(p) for p in self.cat.policies.get(oid, [])],
                    "rules": [
                        _compact({"name": r["name"], "definition": r["definition"], "comment": r["comment"]})
                        for r in self.cat.rules.get(oid, [])
                    ],
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
            generated = m.Generated(expression=unwrap(c["default_expr"]), stored=True, dialect=ENGINE)
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
            options=pg_options({"inherited": inherited_table and not c["islocal"]}),
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
            next_value=next_value(self.cat.seq_state.get(seq["oid"]), seq),
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
            options=pg_options({"no_inherit": c["noinherit"]}),
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
            options=pg_options(
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
            options=pg_options(
                {
                    "with": opts,
                    "tablespace": rel["tablespace"],
                    "with_no_data": materialized and not rel["populated"],
                    "rules": [
                        _compact({"name": r["name"], "definition": r["definition"], "comment": r["comment"]})
                        for r in self.cat.rules.get(oid, [])
                    ],
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
            next_value=next_value(self.cat.seq_state.get(s["oid"]), s),
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
            options=pg_options(
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
            when=unwrap(when.group(1)) if when else None,
            comment=t["comment"],
            options=pg_options(
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


# -- parts of the model objects, and engine-only objects as mappings --------------------------------

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
            "using": unwrap(p["using"]) if p["using"] else None,
            "with_check": unwrap(p["with_check"]) if p["with_check"] else None,
        }
    )


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
