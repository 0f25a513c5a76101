"""Compare two schema models into :class:`Change` records (``dbjson diff``, the comparing half).

Objects are matched by name (exactly, else case-insensitively when that is unambiguous); noise
(dump time, row estimates, ordinals, counters unless asked for, engine-only attributes across
families) is removed before the fields are compared.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .. import model as m
from ..ddl.context import engine_family
from ..errors import DocumentError
from ..reflect import reflect

Source = m.Database | str | Path | Any  # Any: a dbjson or SQLAlchemy URL, an SQLAlchemy Engine
_T = TypeVar("_T")

# Add/drop of these kinds loses data; so does a narrowing column type change.
_DESTRUCTIVE_DROPS = {"schema", "table", "column", "sequence", "enum", "domain", "composite"}
# Column fields that are the type (same family: native spelling; across families: standard type).
_TYPE_FIELDS = {"type", "native"}
_SIZE_PARAMS = ("bits", "precision", "scale", "length", "max_bytes", "fsp", "dims")


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One difference between A and B.

    ``op``: ``add`` (A has it, B lacks it), ``drop`` (only B has it) or ``change`` (``field``
    differs: ``old`` is B's value, ``new`` A's, both as document JSON). ``kind``: schema, table,
    column, primary_key, unique, foreign_key, check, index, view, sequence, enum, domain,
    composite, routine, trigger, event, or the object's field owner (``table`` for table options).
    ``path`` is the JSON pointer of the object (or field) in A's document (B's for ``drop``).
    """

    op: str
    kind: str
    schema: str
    name: str
    path: str
    table: str | None = None
    field: str | None = None
    old: Any = None
    new: Any = None
    destructive: bool = False

    @property
    def object(self) -> str:
        """The object's qualified display name (``schema.table.name``)."""
        parts = [self.schema, self.table] if self.table is not None and self.kind != "table" else [self.schema]
        return ".".join(p for p in (*parts, self.name) if p)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "op": self.op,
            "kind": self.kind,
            "schema": self.schema,
            "table": self.table,
            "name": self.name,
            "path": self.path,
            "destructive": self.destructive,
        }
        if self.op == "change":
            out.update(field=self.field, old=self.old, new=self.new)
        elif self.op == "add":
            out["new"] = self.new
        else:
            out["old"] = self.old
        return out


@dataclass(frozen=True, slots=True)
class SchemaDiff:
    """Every difference between schema ``a`` (the wanted state) and schema ``b`` (the current one)."""

    a: m.Database
    b: m.Database
    changes: tuple[Change, ...]
    include_counters: bool = False

    @property
    def empty(self) -> bool:
        """True when the two schemas are equal (after normalisation)."""
        return not self.changes

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: both sources, ``equal`` and the changes."""
        return {
            "equal": self.empty,
            "a": _source(self.a),
            "b": _source(self.b),
            "include_counters": self.include_counters,
            "changes": [c.to_dict() for c in self.changes],
        }


# ------------------------------------------------------------------------------------------------
# Loading and comparing
# ------------------------------------------------------------------------------------------------


def load_side(source: Source) -> m.Database:
    """A schema from a :class:`~dbjson.model.Database`, a database URL (``…://…``, a dbjson or
    SQLAlchemy ``URL``, an SQLAlchemy ``Engine``) or a document path."""
    if isinstance(source, m.Database):
        return source
    if not isinstance(source, str | os.PathLike):
        return reflect(source)  # a URL object or an Engine (str() would hide its password)
    text = str(source)
    if isinstance(source, str) and "://" in text:
        return reflect(text)
    try:
        raw = Path(text).read_bytes()
    except OSError as e:
        raise DocumentError(
            f"cannot read the schema document: {e.strerror}",
            file=text,
            hint="give a schema document (schema-dump output) or a database URL",
        ) from None
    return m.Database.from_json(raw, filename=text)


def diff(a: Source, b: Source, *, include_counters: bool = False) -> SchemaDiff:
    """Compare schema ``a`` (the wanted state) with schema ``b`` (the current state).

    Each side is a :class:`~dbjson.model.Database`, a live database URL or a schema document path.
    Counters (AUTO_INCREMENT, identity and sequence next values) are compared only with
    ``include_counters``.
    """
    da, db = load_side(a), load_side(b)
    cmp = _Comparer(da, db, include_counters)
    return SchemaDiff(da, db, tuple(cmp.run()), include_counters)


def _db_head(db: m.Database) -> dict[str, Any]:
    """What a database holds besides its schemas that a copy must keep: PostgreSQL's encoding,
    LC_COLLATE, LC_CTYPE and extensions (by name: versions follow the server). MySQL's defaults are
    its schema's options."""
    pg = db.options.get("postgresql", {})
    out: dict[str, Any] = {k: pg[k] for k in ("encoding", "collate", "ctype") if pg.get(k) is not None}
    if pg.get("extensions"):
        out["extensions"] = sorted(str(e.get("name")) for e in pg["extensions"])
    return out


def _source(db: m.Database) -> dict[str, Any]:
    s = db.source
    return {"engine": s.engine, "server_version": s.server_version, "database": s.database}


def _match(
    a_items: Sequence[_T], b_items: Sequence[_T], key: Callable[[_T], str]
) -> Iterator[tuple[int | None, int | None]]:
    """Pairs of indexes (A, B) by name: exact first, then case-insensitive when unambiguous."""
    b_exact = {key(x): i for i, x in enumerate(b_items)}
    used: set[int] = set()
    pairs: list[tuple[int | None, int | None]] = []
    pending: list[int] = []
    for i, x in enumerate(a_items):
        j = b_exact.get(key(x))
        if j is None:
            pending.append(i)
        else:
            used.add(j)
            pairs.append((i, j))
    rest = {j for j in range(len(b_items)) if j not in used}
    for i in pending:
        folded = [j for j in rest if key(b_items[j]).lower() == key(a_items[i]).lower()]
        if len(folded) == 1:
            rest.discard(folded[0])
            pairs.append((i, folded[0]))
        else:
            pairs.append((i, None))
    pairs += [(None, j) for j in sorted(rest)]
    return iter(pairs)


def _narrowing(old: m.Type, new: m.Type) -> bool:
    """Whether changing a column from ``old`` to ``new`` may lose or reject stored values."""
    if old == new:
        return False
    widen = {
        ("char", "varchar"),
        ("char", "text"),
        ("varchar", "text"),
        ("binary", "varbinary"),
        ("binary", "blob"),
        ("varbinary", "blob"),
        ("integer", "decimal"),
    }
    if old.kind != new.kind:
        return (old.kind, new.kind) not in widen or (
            new.kind != "text" and new.kind != "blob" and new.kind != "decimal" and _smaller(old.length, new.length)
        )
    if old.kind in ("enum", "set"):
        return new.values[: len(old.values)] != old.values
    if old.unsigned != new.unsigned or old.with_timezone != new.with_timezone:
        return True
    if (
        old.kind == "decimal"
        and old.precision is not None
        and new.precision is not None
        and (new.precision - (new.scale or 0)) < (old.precision - (old.scale or 0))
    ):
        return True
    return any(_smaller(getattr(old, p), getattr(new, p)) for p in _SIZE_PARAMS)


def _smaller(old: int | None, new: int | None) -> bool:
    """``new`` bounds a parameter more tightly than ``old`` (None = unbounded)."""
    if new is None:
        return False
    return old is None or new < old


_DISPLAY_WIDTH = re.compile(r"(?i)\b(tinyint|smallint|mediumint|int|integer|bigint|year)\(\d+\)")


def _sibling_native(raw: str) -> str:
    """A MySQL/MariaDB native spelling without what only one of them writes: integer display widths
    (MariaDB ``int(10) unsigned``, MySQL 8+ ``int unsigned``; ``tinyint(1)``, which both write, kept)
    and ``year(4)``."""
    return _DISPLAY_WIDTH.sub(lambda mo: mo.group(0) if mo.group(0).lower() == "tinyint(1)" else mo.group(1), raw)


def _sibling_spelling(d: dict[str, Any]) -> None:
    """MySQL against MariaDB: compare native spellings by :func:`_sibling_native` and ignore which
    of the two an expression's or a column's ``engine``/``dialect`` label names."""
    native = d.get("native")
    if isinstance(native, dict):
        d["native"] = _sibling_native(str(native.get("raw", "")))
    d.pop("dialect", None)
    for sub in ("default", "generated", "on_update"):
        if isinstance(d.get(sub), dict):
            d[sub].pop("dialect", None)
    if isinstance(d.get("returns"), str):
        d["returns"] = _sibling_native(d["returns"])
    if isinstance(d.get("arguments"), list):
        d["arguments"] = [
            dict(a, native=_sibling_native(a["native"]))
            if isinstance(a, dict) and isinstance(a.get("native"), str)
            else a
            for a in d["arguments"]
        ]


_INTRODUCER = re.compile(r"_(?!binary\b)[A-Za-z0-9]+\s*(?=')")


def _without_introducers(sql: str) -> str:
    """MySQL/MariaDB expression text without the character set introducers of its string literals
    (``_utf8mb3'x'``, ``_ascii''``): the server writes the charset of the session that created the
    check or default, so a copy made over a utf8mb4 session differs only there. ``_binary`` is kept."""
    out: list[str] = []
    i = 0
    while i < len(sql):
        ch = sql[i]
        if ch in "'\"`":  # copy a quoted string or name whole
            j = i + 1
            while j < len(sql):
                if sql[j] == "\\" and ch != "`":
                    j += 2
                    continue
                if sql[j] == ch:
                    if j + 1 < len(sql) and sql[j + 1] == ch:
                        j += 2
                        continue
                    break
                j += 1
            out.append(sql[i : j + 1])
            i = j + 1
            continue
        mo = (
            _INTRODUCER.match(sql, i)
            if ch == "_" and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] in "_$"))
            else None
        )
        if mo is not None:
            i = mo.end()
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _sibling_expressions(d: dict[str, Any]) -> None:
    """Same family: compare check, generated and default expressions without charset introducers."""
    if isinstance(d.get("expression"), str):
        d["expression"] = _without_introducers(d["expression"])
    gen = d.get("generated")
    if isinstance(gen, dict) and isinstance(gen.get("expression"), str):
        gen["expression"] = _without_introducers(gen["expression"])
    default = d.get("default")
    if isinstance(default, dict) and default.get("kind") == "expression" and isinstance(default.get("value"), str):
        default["value"] = _without_introducers(default["value"])


class _Comparer:
    """Walks both models and collects :class:`Change` records."""

    def __init__(self, a: m.Database, b: m.Database, include_counters: bool) -> None:
        self.a, self.b = a, b
        self.counters = include_counters
        self.same_family = engine_family(a.source.engine) == engine_family(b.source.engine)
        self.cross_engine = a.source.engine != b.source.engine  # MySQL against MariaDB
        self.out: list[Change] = []

    # -- normalisation -----------------------------------------------------------------------------
    def norm(self, kind: str, obj: Any) -> dict[str, Any]:
        """The comparable JSON form of an object: noise removed."""
        # top-level fields explicit (a changed ``nullable`` reads true → false, not none → false)
        d: dict[str, Any] = {f.name: m.to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
        d.pop("row_estimate", None)
        d.pop("ordinal", None)
        d.pop("name", None)  # matched by name already (perhaps case-insensitively)
        if not self.counters:
            d.pop("next_value", None)
            if isinstance(d.get("identity"), dict):
                d["identity"].pop("next_value", None)
        if not self.same_family:
            for key in ("native", "charset", "collation", "options", "dialect", "definition"):
                d.pop(key, None)
            for sub in ("default", "generated", "on_update", "identity"):
                if isinstance(d.get(sub), dict):
                    d[sub].pop("dialect", None)
                    d[sub].pop("sequence", None)
            if kind == "primary_key":
                d.pop("name", None)
        elif kind == "column":
            d.pop("type", None)  # the native spelling says it all, and exactly
        if self.same_family:
            opts = d.get("options")
            if isinstance(opts, dict):
                for eng in opts.values():
                    if isinstance(eng, dict):
                        eng.pop("definer", None)  # an account, like users and grants
        if self.same_family and self.cross_engine:
            _sibling_spelling(d)
        if self.same_family and engine_family(self.a.source.engine) == "mysql":
            _sibling_expressions(d)
        return d

    # -- walking -------------------------------------------------------------------------------------
    def run(self) -> list[Change]:
        if self.same_family:  # the database's own defaults (PostgreSQL: encoding, collation, extensions)
            self.fields(
                "database", "", None, self.a.source.database, "/options/postgresql", _db_head(self.a), _db_head(self.b)
            )
        empty = m.Schema(name="")
        for s_a, s_b in schema_pairs(self.a, self.b):
            pa = f"/schemas/{self.a.schemas.index(s_a)}" if s_a is not None else ""
            pb = f"/schemas/{self.b.schemas.index(s_b)}" if s_b is not None else ""
            name = s_a.name if s_a is not None else s_b.name if s_b is not None else ""
            if s_a is None:
                self.add("drop", "schema", name, pb, old=m.to_dict(s_b))
            elif s_b is None:
                self.add("add", "schema", name, pa, new=m.to_dict(s_a))
            else:
                self.fields("schema", name, None, name, pa, self._schema_head(s_a), self._schema_head(s_b))
            self.schema(name, s_a or empty, s_b or empty, pa, pb)
        return self.out

    def _schema_head(self, s: m.Schema) -> dict[str, Any]:
        out: dict[str, Any] = {"comment": s.comment}
        if self.same_family:
            out["options"] = m.to_dict(s.options)
        return out

    def add(
        self,
        op: str,
        kind: str,
        schema: str,
        path: str,
        *,
        name: str | None = None,
        table: str | None = None,
        fld: str | None = None,
        old: Any = None,
        new: Any = None,
        destructive: bool | None = None,
    ) -> None:
        if destructive is None:
            destructive = op == "drop" and kind in _DESTRUCTIVE_DROPS
        self.out.append(
            Change(
                op=op,
                kind=kind,
                schema=schema,
                name=name if name is not None else schema,
                path=path,
                table=table,
                field=fld,
                old=old,
                new=new,
                destructive=destructive,
            )
        )

    def fields(
        self,
        kind: str,
        schema: str,
        table: str | None,
        name: str,
        path: str,
        new: dict[str, Any],
        old: dict[str, Any],
        narrowing: bool = False,
    ) -> None:
        """One ``change`` per top-level field that differs."""
        for key in sorted(set(new) | set(old)):
            if new.get(key) != old.get(key):
                self.add(
                    "change",
                    kind,
                    schema,
                    f"{path}/{key}",
                    name=name,
                    table=table,
                    fld=key,
                    old=old.get(key),
                    new=new.get(key),
                    destructive=narrowing and key in _TYPE_FIELDS,
                )

    def collection(
        self,
        kind: str,
        schema: str,
        table: str | None,
        a_items: Sequence[Any],
        b_items: Sequence[Any],
        pa: str,
        pb: str,
        key: Callable[[Any], str] = lambda x: str(x.name),
        compare: Callable[[Any, Any, str], None] | None = None,
    ) -> None:
        """Match two lists of named objects; report additions, drops and field changes."""
        for i, j in _match(a_items, b_items, key):
            if i is None:
                assert j is not None
                obj = b_items[j]
                self.add("drop", kind, schema, f"{pb}/{j}", name=str(obj.name), table=table, old=m.to_dict(obj))
            elif j is None:
                obj = a_items[i]
                self.add("add", kind, schema, f"{pa}/{i}", name=str(obj.name), table=table, new=m.to_dict(obj))
            elif compare is not None:
                compare(a_items[i], b_items[j], f"{pa}/{i}")
            else:
                self.fields(
                    kind,
                    schema,
                    table,
                    str(a_items[i].name),
                    f"{pa}/{i}",
                    self.norm(kind, a_items[i]),
                    self.norm(kind, b_items[j]),
                )

    def schema(self, name: str, a: m.Schema, b: m.Schema, pa: str, pb: str) -> None:
        def table(ta: m.Table, tb: m.Table, path: str) -> None:
            self.table(name, ta, tb, path, pb + f"/tables/{b.tables.index(tb)}")

        self.collection("table", name, None, a.tables, b.tables, f"{pa}/tables", f"{pb}/tables", compare=table)
        for kind, attr in (
            ("view", "views"),
            ("sequence", "sequences"),
            ("enum", "enums"),
            ("domain", "domains"),
            ("composite", "composites"),
            ("event", "events"),
        ):
            self.collection(kind, name, None, getattr(a, attr), getattr(b, attr), f"{pa}/{attr}", f"{pb}/{attr}")
        self.collection(
            "routine",
            name,
            None,
            a.routines,
            b.routines,
            f"{pa}/routines",
            f"{pb}/routines",
            key=MATCH_KEYS["routines"],
        )
        self.collection(
            "trigger",
            name,
            None,
            a.triggers,
            b.triggers,
            f"{pa}/triggers",
            f"{pb}/triggers",
            key=MATCH_KEYS["triggers"],
        )

    def table(self, schema: str, a: m.Table, b: m.Table, pa: str, pb: str) -> None:
        head_a = self.norm("table", a)
        head_b = self.norm("table", b)
        for key in ("columns", "uniques", "foreign_keys", "checks", "indexes", "primary_key"):
            head_a.pop(key, None)
            head_b.pop(key, None)
        self.fields("table", schema, a.name, a.name, pa, head_a, head_b)
        pk_a = self.norm("primary_key", a.primary_key) if a.primary_key and a.primary_key.columns else None
        pk_b = self.norm("primary_key", b.primary_key) if b.primary_key and b.primary_key.columns else None
        if pk_a != pk_b:
            self.add(
                "change",
                "primary_key",
                schema,
                f"{pa}/primary_key",
                name="primary key",
                table=a.name,
                fld="primary_key",
                old=pk_b,
                new=pk_a,
            )

        def column(ca: m.Column, cb: m.Column, path: str) -> None:
            self.fields(
                "column",
                schema,
                a.name,
                ca.name,
                path,
                self.norm("column", ca),
                self.norm("column", cb),
                narrowing=_narrowing(cb.type, ca.type),
            )

        self.collection(
            "column", schema, a.name, a.columns, b.columns, f"{pa}/columns", f"{pb}/columns", compare=column
        )
        for kind, attr in (
            ("unique", "uniques"),
            ("foreign_key", "foreign_keys"),
            ("check", "checks"),
            ("index", "indexes"),
        ):
            self.collection(kind, schema, a.name, getattr(a, attr), getattr(b, attr), f"{pa}/{attr}", f"{pb}/{attr}")


# How schema objects are matched (and found again for the DDL); by name unless listed.
MATCH_KEYS: dict[str, Callable[[Any], str]] = {
    "routines": lambda r: f"{r.name}({r.signature or ''})",
    "triggers": lambda t: f"{t.table}.{t.name}",
}


def schema_pairs(a: m.Database, b: m.Database) -> list[tuple[m.Schema | None, m.Schema | None]]:
    """Schemas of A and B matched by name (a lone schema on each side matches whatever the names)."""
    if len(a.schemas) == 1 and len(b.schemas) == 1:
        return [(a.schemas[0], b.schemas[0])]
    return [
        (a.schemas[i] if i is not None else None, b.schemas[j] if j is not None else None)
        for i, j in _match(a.schemas, b.schemas, lambda s: s.name)
    ]
