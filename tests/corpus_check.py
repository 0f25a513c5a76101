"""An independent check of a migration's target: what the target's catalog holds, read here with the
engines' own catalog queries (information_schema, pg_catalog, SQLite pragmas), compared with the source
document table by table. Written without dbjson's translation code, so that a translation that
changes or drops something without saying so is caught: every difference found must be covered by
an item of the migration's loss report (its JSON pointer is the difference's, an ancestor down to
the table, or a descendant).

What is compared, per source table: that it exists; per column: that it exists, its nullability,
its type's class (integer, string, timestamp, json, ...), a narrower integer or a shorter
varchar/char; the primary key's columns; each unique constraint and index (columns in order, with
MySQL prefix lengths, uniqueness, partial or not); each foreign key (columns, referenced table and
columns). Extra objects on the target (MySQL's own foreign-key indexes, ...) are not differences.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

# -- the target's catalog -------------------------------------------------------------------------


@dataclass
class Col:
    name: str
    nullable: bool
    cls: str  # a type class: int, dec, float, bool, str, bin, date, time, ts, json, uuid, enum, ...
    length: int | None = None  # declared length of a char/varchar (characters)
    bits: int | None = None  # integer width
    unsigned: bool = False


@dataclass
class Idx:
    name: str
    parts: tuple[str | None, ...]  # lower-cased column names (``col(n)`` for a prefix); None: an expression
    unique: bool
    partial: bool


@dataclass
class Fk:
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass
class Tab:
    columns: dict[str, Col] = field(default_factory=dict)  # lower-cased name -> column
    pk: tuple[str, ...] = ()
    indexes: list[Idx] = field(default_factory=list)
    fks: list[Fk] = field(default_factory=list)


_INT_BITS = {
    "tinyint": 8,
    "smallint": 16,
    "mediumint": 24,
    "int": 32,
    "integer": 32,
    "bigint": 64,
    "smallserial": 16,
    "serial": 32,
    "bigserial": 64,
}
_CLASS_BY_NAME = {
    **{n: "int" for n in _INT_BITS},
    "boolean": "bool",
    "bool": "bool",
    "numeric": "dec",
    "decimal": "dec",
    "money": "money",
    "real": "float",
    "float": "float",
    "double": "float",
    "double precision": "float",
    "char": "str",
    "character": "str",
    "varchar": "str",
    "character varying": "str",
    "nchar": "str",
    "nvarchar": "str",
    "text": "str",
    "tinytext": "str",
    "mediumtext": "str",
    "longtext": "str",
    "clob": "str",
    "citext": "str",
    "name": "str",
    "binary": "bin",
    "varbinary": "bin",
    "bytea": "bin",
    "blob": "bin",
    "tinyblob": "bin",
    "mediumblob": "bin",
    "longblob": "bin",
    "date": "date",
    "time": "time",
    "time without time zone": "time",
    "time with time zone": "time",
    "datetime": "ts",
    "timestamp": "ts",
    "timestamp without time zone": "ts",
    "timestamp with time zone": "ts",
    "interval": "interval",
    "year": "year",
    "bit": "bit",
    "bit varying": "bit",
    "enum": "enum",
    "set": "set",
    "json": "json",
    "jsonb": "json",
    "uuid": "uuid",
    "inet": "inet",
    "cidr": "inet",
    "inet4": "inet",
    "inet6": "inet",
    "macaddr": "macaddr",
    "macaddr8": "macaddr",
    "xml": "xml",
    **{
        g: "geometry"
        for g in (
            "geometry",
            "point",
            "linestring",
            "polygon",
            "multipoint",
            "multilinestring",
            "multipolygon",
            "geometrycollection",
        )
    },
}


def _base_name(native: str) -> str:
    """``character varying(20)`` -> ``character varying``; ``int unsigned`` -> ``int``."""
    name = re.sub(r"\(.*?\)", "", native.lower())
    name = re.sub(r"\b(unsigned|zerofill|signed)\b", "", name)
    return " ".join(name.split())


def _length(native: str) -> int | None:
    m = re.search(r"\((\d+)\)", native)
    return int(m.group(1)) if m else None


def _native_col(name: str, nullable: bool, native: str, *, sqlite: bool = False) -> Col:
    base = _base_name(native)
    if sqlite:
        cls = _sqlite_class(base)
        return Col(name, nullable, cls)
    cls = _CLASS_BY_NAME.get(base, "other:" + base)
    length = _length(native) if base in ("char", "character", "varchar", "character varying") else None
    bits = _INT_BITS.get(base)
    return Col(name, nullable, cls, length, bits, "unsigned" in native.lower())


def _sqlite_class(base: str) -> str:
    """A declared SQLite type's class: the name when it is one, else SQLite's affinity rules."""
    if base in _CLASS_BY_NAME:
        return _CLASS_BY_NAME[base]
    if "int" in base:
        return "int"
    if any(w in base for w in ("char", "clob", "text")):
        return "str"
    if base == "" or "blob" in base:
        return "bin"
    if any(w in base for w in ("real", "floa", "doub")):
        return "float"
    return "other:" + base


def catalog(engine: str, conn: Any, database: str | None = None) -> dict[str, Tab]:
    """The tables of the target (PostgreSQL: ``schema.table``; others: ``table``)."""
    if engine == "sqlite":
        return _sqlite_catalog(conn)
    if engine == "postgresql":
        return _pg_catalog(conn)
    assert database is not None
    return _mysql_catalog(conn, database)


def _rows(conn: Any, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    cur = conn.cursor()
    cur.execute(sql, params or None)
    rows = list(cur.fetchall())
    cur.close()
    return rows


def _pg_catalog(conn: Any) -> dict[str, Tab]:
    out: dict[str, Tab] = {}
    names: dict[int, str] = {}
    for oid, schema, table in _rows(
        conn,
        "SELECT c.oid, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
        "AND n.nspname NOT LIKE 'pg_toast%'",
    ):
        names[oid] = f"{schema}.{table}"
        out[names[oid]] = Tab()
    attnames: dict[tuple[int, int], str] = {}
    for rel, num, att, notnull, native, typtype in _rows(
        conn,
        "SELECT a.attrelid, a.attnum, a.attname, a.attnotnull, "
        "format_type(COALESCE(NULLIF(t.typbasetype, 0), a.atttypid), "
        "  CASE WHEN t.typbasetype <> 0 THEN t.typtypmod ELSE a.atttypmod END), "
        "(SELECT bt.typtype FROM pg_type bt WHERE bt.oid = COALESCE(NULLIF(t.typbasetype, 0), a.atttypid)) "
        "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
        "WHERE a.attnum > 0 AND NOT a.attisdropped AND a.attrelid = ANY(%s)",
        (list(names),),
    ):
        attnames[(rel, num)] = att
        col = _native_col(att, not notnull, native)
        if native.endswith("[]"):
            col.cls = "array"
        elif typtype == "e":
            col.cls = "enum"
        elif typtype == "r":
            col.cls = "range"
        out[names[rel]].columns[att.lower()] = col
    for rel, name, unique, primary, partial, keys, texts in _rows(
        conn,
        "SELECT i.indrelid, ic.relname, i.indisunique, i.indisprimary, i.indpred IS NOT NULL, "
        "(i.indkey::int2[])[0:i.indnkeyatts - 1], "
        "ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) AS k) "
        "FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid WHERE i.indrelid = ANY(%s)",
        (list(names),),
    ):
        parts = tuple(
            attnames[(rel, k)].lower() if k else _prefix_part(text) for k, text in zip(keys, texts, strict=True)
        )
        tab = out[names[rel]]
        if primary:
            tab.pk = tuple(p or "" for p in parts)
        tab.indexes.append(Idx(name, parts, bool(unique), bool(partial)))
    for rel, ref, conkey, confkey in _rows(
        conn,
        "SELECT conrelid, confrelid, conkey, confkey FROM pg_constraint WHERE contype = 'f' AND conrelid = ANY(%s)",
        (list(names),),
    ):
        if ref not in names:
            continue
        out[names[rel]].fks.append(
            Fk(
                tuple(attnames[(rel, k)].lower() for k in conkey),
                names[ref],
                tuple(attnames[(ref, k)].lower() for k in confkey),
            )
        )
    return out


def _mysql_catalog(conn: Any, database: str) -> dict[str, Tab]:
    out: dict[str, Tab] = {}
    for (table,) in _rows(
        conn,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = %s AND table_type = 'BASE TABLE'",
        (database,),
    ):
        out[table] = Tab()
    json_checked = (
        {
            (t, c)
            for t, c in (
                (row[0], m.group(1))
                for row in _rows(
                    conn,
                    "SELECT table_name, check_clause FROM information_schema.check_constraints "
                    "WHERE constraint_schema = %s",
                    (database,),
                )
                if row[0] is not None
                for m in [re.fullmatch(r"\s*json_valid\(`([^`]+)`\)\s*", row[1] or "")]
                if m
            )
        }
        if _has_table_name_in_checks(conn)
        else set()
    )
    for table, column, nullable, column_type in _rows(
        conn,
        "SELECT table_name, column_name, is_nullable, column_type FROM information_schema.columns "
        "WHERE table_schema = %s",
        (database,),
    ):
        if table not in out:
            continue
        col = _native_col(column, nullable == "YES", column_type)
        if (table, column) in json_checked and col.cls == "str":
            col.cls = "json"
        out[table].columns[column.lower()] = col
    indexes: dict[tuple[str, str], Idx] = {}
    for table, name, non_unique, column, sub_part, index_type in _rows(
        conn,
        "SELECT table_name, index_name, non_unique, column_name, sub_part, index_type "
        "FROM information_schema.statistics WHERE table_schema = %s ORDER BY table_name, index_name, seq_in_index",
        (database,),
    ):
        if index_type == "SPATIAL":  # its SUB_PART (32) is the bounding box's size, not a prefix
            sub_part = None
        if table not in out:
            continue
        idx = indexes.get((table, name))
        if idx is None:
            idx = indexes[(table, name)] = Idx(name, (), not int(non_unique), False)
            out[table].indexes.append(idx)
        part = None if column is None else column.lower() + (f"({sub_part})" if sub_part else "")
        idx.parts = (*idx.parts, part)
    for (table, name), idx in indexes.items():
        if name == "PRIMARY":
            out[table].pk = tuple(p or "" for p in idx.parts)
    fks: dict[tuple[str, str], Fk] = {}
    for table, name, column, ref_table, ref_column in _rows(
        conn,
        "SELECT table_name, constraint_name, column_name, referenced_table_name, referenced_column_name "
        "FROM information_schema.key_column_usage WHERE table_schema = %s AND referenced_table_name IS NOT NULL "
        "ORDER BY table_name, constraint_name, ordinal_position",
        (database,),
    ):
        if table not in out:
            continue
        fk = fks.get((table, name))
        if fk is None:
            fk = fks[(table, name)] = Fk((), ref_table, ())
            out[table].fks.append(fk)
        fk.columns = (*fk.columns, column.lower())
        fk.ref_columns = (*fk.ref_columns, ref_column.lower())
    return out


_SUBSTR = re.compile(r"substr\(\s*[\"`]?[^,()]+?[\"`]?(?:::text)?\s*,\s*1\s*,\s*\d+\s*\)", re.IGNORECASE)


def _prefix_part(text: str | None) -> str | None:
    """``substr((col)::text, 1, 10)`` (a translated MySQL prefix key part) -> ``col(10)``; else None."""
    found = re.fullmatch(
        r"\(?\s*substr\(\s*\(?\s*\"?([^\"(),]+?)\"?\s*\)?(?:::text)?\s*,\s*1\s*,\s*(\d+)\s*\)\s*\)?",
        (text or "").strip(),
        re.IGNORECASE,
    )
    return f"{found.group(1).lower()}({found.group(2)})" if found else None


def _has_table_name_in_checks(conn: Any) -> bool:
    """MariaDB's information_schema.check_constraints has TABLE_NAME; MySQL's does not."""
    return bool(
        _rows(
            conn,
            "SELECT 1 FROM information_schema.columns WHERE table_schema = 'information_schema' "
            "AND table_name = 'CHECK_CONSTRAINTS' AND column_name = 'TABLE_NAME'",
        )
    )


def _sqlite_catalog(conn: sqlite3.Connection) -> dict[str, Tab]:
    out: dict[str, Tab] = {}
    tables = [
        r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    ]
    for table in tables:
        tab = out[table] = Tab()
        q = table.replace('"', '""')
        # table_xinfo, not table_info: the latter hides generated columns (hidden 2 or 3)
        info = [r[:6] for r in conn.execute(f'PRAGMA table_xinfo("{q}")').fetchall() if r[6] in (0, 2, 3)]
        pk = sorted((r[5], r[1]) for r in info if r[5])
        tab.pk = tuple(name.lower() for _, name in pk)
        for _cid, name, declared, notnull, _default, pkpos in info:
            col = _native_col(name, not notnull, declared or "", sqlite=True)
            if pkpos and len(pk) == 1 and (declared or "").upper() == "INTEGER":
                col.nullable = False  # the rowid: never NULL
            tab.columns[name.lower()] = col
        for _seq, name, unique, origin, partial in conn.execute(f'PRAGMA index_list("{q}")').fetchall():
            parts = tuple(
                None if cname is None else cname.lower()
                for _n, _cid, cname, _desc, _coll, key in conn.execute(
                    f'PRAGMA index_xinfo("{name.replace(chr(34), chr(34) * 2)}")'
                ).fetchall()
                if key
            )
            if None in parts:  # expression parts: substr(col, 1, n) is MySQL's prefix part col(n)
                sql = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", (name,))
                found = [_prefix_part(x) for x in _SUBSTR.findall((sql.fetchone() or ("",))[0] or "")]
                if len(found) == parts.count(None):
                    it = iter(found)
                    parts = tuple(p if p is not None else next(it) for p in parts)
            if origin != "pk":
                tab.indexes.append(Idx(name, parts, bool(unique), bool(partial)))
        fks: dict[int, Fk] = {}
        for fid, _seq, ref, frm, to, *_ in conn.execute(f'PRAGMA foreign_key_list("{q}")').fetchall():
            fk = fks.get(fid)
            if fk is None:
                fk = fks[fid] = Fk((), ref, ())
                tab.fks.append(fk)
            fk.columns = (*fk.columns, frm.lower())
            fk.ref_columns = (*fk.ref_columns, (to or "").lower())
    for tab in out.values():  # a foreign key without target columns names the referenced primary key
        for fk in tab.fks:
            if not any(fk.ref_columns) and fk.ref_table in out:
                fk.ref_columns = out[fk.ref_table].pk
    return out


# -- comparing with the source document --------------------------------------------------------------

_KIND_CLASS = {
    "boolean": "bool",
    "integer": "int",
    "decimal": "dec",
    "float": "float",
    "char": "str",
    "varchar": "str",
    "text": "str",
    "binary": "bin",
    "varbinary": "bin",
    "blob": "bin",
    "date": "date",
    "time": "time",
    "timestamp": "ts",
}


def source_class(t: dict[str, Any]) -> str:
    if t.get("kind") == "opaque" and t.get("base"):
        return source_class(t["base"])
    return _KIND_CLASS.get(t["kind"], t["kind"])


@dataclass(frozen=True)
class Difference:
    path: str  # JSON pointer into the source document
    what: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what}"


def _find(mapping: dict[str, Any], name: str) -> Any:
    return mapping.get(name) or mapping.get(name.lower())


def differences(doc: dict[str, Any], tables: dict[str, dict[str, Any]], cat: dict[str, Tab]) -> Iterator[Difference]:
    """What the target ``cat`` lacks or holds differently from the source document ``doc``.

    ``tables`` is the migration report's table map (source ``schema.table`` -> ``{"target": name}``).
    """
    lower_cat = {k.lower(): v for k, v in cat.items()}

    def target_table(schema: str, table: str) -> tuple[str | None, Tab | None]:
        entry = tables.get(f"{schema}.{table}")
        name = entry.get("target") if entry else None
        if not name:
            return None, None
        return name, cat.get(name) or lower_cat.get(name.lower())

    for si, s in enumerate(doc["schemas"]):
        for ti, t in enumerate(s.get("tables", ())):
            tpath = f"/schemas/{si}/tables/{ti}"
            qual = f"{s['name']}.{t['name']}"
            _name, tab = target_table(s["name"], t["name"])
            if tab is None:
                yield Difference(tpath, f"table {qual} is not on the target")
                continue

            def col(name: str, tab: Tab = tab) -> Col | None:
                return tab.columns.get(name.lower())

            for ci, c in enumerate(t["columns"]):
                cpath = f"{tpath}/columns/{ci}"
                tc = col(c["name"])
                if tc is None:
                    yield Difference(cpath, f"column {qual}.{c['name']} is not on the target")
                    continue
                in_pk = c["name"] in ((t.get("primary_key") or {}).get("columns") or ())
                # a key column is NOT NULL everywhere (SQLite's rowid alias is reflected as nullable)
                if bool(c.get("nullable", True)) != tc.nullable and not (in_pk and not tc.nullable):
                    yield Difference(
                        f"{cpath}/nullable",
                        f"{qual}.{c['name']}: nullable {c.get('nullable', True)} became {tc.nullable}",
                    )
                st = c["type"]
                scls = source_class(st)
                if scls != tc.cls:
                    yield Difference(f"{cpath}/type", f"{qual}.{c['name']}: {scls} became {tc.cls}")
                    continue
                if tc.length is not None and st["kind"] in ("char", "varchar", "text"):
                    slen = st.get("length")
                    if slen is None or tc.length < slen:
                        yield Difference(
                            f"{cpath}/type", f"{qual}.{c['name']}: length {slen or 'unbounded'} became {tc.length}"
                        )
                if tc.bits is not None and st.get("bits"):
                    need = st["bits"] + (1 if st.get("unsigned") and not tc.unsigned else 0)
                    if tc.bits < need:
                        yield Difference(f"{cpath}/type", f"{qual}.{c['name']}: {need}-bit integer became {tc.bits}")

            def names(cols: list[str] | tuple[str, ...]) -> tuple[str, ...]:
                return tuple(c.lower() for c in cols)

            pk = t.get("primary_key")
            if pk and pk.get("columns") and names(pk["columns"]) != tab.pk:
                yield Difference(f"{tpath}/primary_key", f"{qual}: primary key {pk['columns']} became {list(tab.pk)}")
            for ui, u in enumerate(t.get("uniques", ())):
                want = set(names(u["columns"]))
                if not any(i.unique and not i.partial and set(i.parts) == want for i in tab.indexes) and not (
                    set(tab.pk) == want
                ):
                    yield Difference(f"{tpath}/uniques/{ui}", f"{qual}: unique {u['columns']} is not on the target")
            for ii, ix in enumerate(t.get("indexes", ())):
                parts = tuple(
                    None
                    if p.get("column") is None
                    else p["column"].lower() + (f"({p['length']})" if p.get("length") else "")
                    for p in ix["parts"]
                )
                unique, partial = bool(ix.get("unique")), ix.get("where") is not None
                if not any(
                    i.parts == parts and i.unique == unique and i.partial == partial for i in tab.indexes
                ) and not (unique and not partial and tab.pk == parts):
                    yield Difference(
                        f"{tpath}/indexes/{ii}",
                        f"{qual}: {'unique ' if unique else ''}{'partial ' if partial else ''}index {ix['name']} "
                        f"{list(parts)} is not on the target as such",
                    )
            for fi, fk in enumerate(t.get("foreign_keys", ())):
                ref_name, _ref = target_table(fk.get("ref_schema") or s["name"], fk["ref_table"])
                want_fk = (names(fk["columns"]), (ref_name or "").lower(), names(fk["ref_columns"]))
                if not any((f.columns, f.ref_table.lower(), f.ref_columns) == want_fk for f in tab.fks):
                    yield Difference(
                        f"{tpath}/foreign_keys/{fi}",
                        f"{qual}: foreign key {fk['name']} {fk['columns']} -> {fk['ref_table']} is not on the target",
                    )


def report_paths(translation: list[Any]) -> list[str]:
    """The JSON pointers of a migration report's translation items (``"path: what [rule]"`` or dicts)."""
    out = []
    for item in translation:
        path = item["path"] if isinstance(item, dict) else str(item).split(": ", 1)[0]
        out.append(path)
    return out


def covered(diff: Difference, paths: list[str]) -> bool:
    """An item at the difference's pointer, below it, or above it down to its table covers it."""
    p = diff.path
    for q in paths:
        if q == p or q.startswith(p + "/"):
            return True
        if p.startswith(q + "/") and "/tables/" in q:
            return True
    return False


def unreported(doc: dict[str, Any], report: dict[str, Any], cat: dict[str, Tab]) -> list[Difference]:
    """The differences between the source document and the target that the report does not mention."""
    paths = report_paths(report.get("translation", []))
    return [d for d in differences(doc, report.get("tables", {}), cat) if not covered(d, paths)]
