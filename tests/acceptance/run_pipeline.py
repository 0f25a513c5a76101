#!/usr/bin/env python3
"""Acceptance pipeline: run every dbjson command on one source database against every engine.

Usage::

    .venv/bin/python tests/acceptance/run_pipeline.py SOURCE_URL [--target NAME=SERVER_URL ...]
        [--work DIR] [--threads N] [--only NAME ...] [--keep]

For the source it runs ``schema-dump`` + ``validate`` and compares the document with the server's
own catalog (tables, columns, primary keys, indexes, foreign keys, checks, views, sequences,
routines, triggers, enums, domains). For every target engine it then:

* ``schema``: ``schema-load --to URL --create --report`` into a fresh database, re-dumps the target
  and compares: same engine → the documents must be identical (source metadata aside); other
  engines → every difference from the source (missing object, changed standard type, nullability,
  default, key...) must be covered by a report item at that JSON path (or a parent/child of it);
* ``data``: ``export`` of the source (once), ``import`` into a fresh database, ``verify``.

It prints a pass/fail matrix and exits 1 if anything failed. Targets default to the local test
servers (MySQL 9 :3307, MariaDB :3306, PostgreSQL :5432, SQLite files under --work). Databases it
creates are named ``acc_<source db>_<step>`` and dropped first; nothing else is touched.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL, make_url

DBJSON = str(Path(sys.executable).with_name("dbjson"))
DEFAULT_TARGETS = {
    "mysql": "mysql://root@127.0.0.1:3307/",
    "mariadb": "mariadb://root@127.0.0.1:3306/",
    "postgresql": "postgresql://postgres@127.0.0.1:5432/postgres",
    "sqlite": "sqlite:///",
}
TYPE_KEYS = (
    "kind", "bits", "unsigned", "precision", "scale", "length", "max_bytes", "fsp", "with_timezone",
    "values", "srid", "subtype", "element", "dims", "varying",
)  # fmt: skip


# --------------------------------------------------------------------------- helpers


@dataclass
class Outcome:
    """One cell of the matrix: ok, and the lines explaining a failure."""

    ok: bool
    details: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """PASS / FAIL for the matrix."""
        return "PASS" if self.ok else "FAIL"


def run(args: list[str], log: Path, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    """Run one dbjson command, appending the command line and its output to ``log``."""
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)
    with log.open("a") as fh:
        fh.write(f"$ {' '.join(args)}\n[rc={proc.returncode}]\n{proc.stdout[-4000:]}{proc.stderr[-8000:]}\n")
    return proc


def family(url: URL) -> str:
    """mysql (also MariaDB), postgresql or sqlite."""
    backend = url.get_backend_name()
    return "mysql" if backend in ("mysql", "mariadb") else backend


def connect(url: URL) -> Any:
    """A raw DBAPI connection (autocommit where the driver has it)."""
    fam = family(url)
    if fam == "mysql":
        import pymysql

        return pymysql.connect(
            host=url.host or "127.0.0.1", port=url.port or 3306, user=url.username or "root",
            password=url.password or "", database=url.database or None, autocommit=True, charset="utf8mb4",
        )  # fmt: skip
    if fam == "postgresql":
        import psycopg

        return psycopg.connect(
            host=url.host or "127.0.0.1", port=url.port or 5432, user=url.username or "postgres",
            password=url.password or None, dbname=url.database or "postgres", autocommit=True,
        )  # fmt: skip
    return sqlite3.connect(url.database or ":memory:")


def query(url: URL, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of one catalog query."""
    conn = connect(url)
    try:
        cur = conn.cursor()
        cur.execute(sql, params)
        return list(cur.fetchall())
    finally:
        conn.close()


def url_text(url: URL) -> str:
    """The URL as a command-line argument (password kept: the subprocess needs it)."""
    return url.render_as_string(hide_password=False)


# --------------------------------------------------------------------------- target databases


@dataclass
class Server:
    """A target engine: its name, server URL and a scratch directory (SQLite files)."""

    name: str
    url: URL
    work: Path

    def fresh(self, db: str) -> URL:
        """Drop ``db`` if it exists and return its URL (created empty, except for SQLite)."""
        fam = family(self.url)
        if fam == "sqlite":
            path = self.work / f"{db}.db"
            for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
                p.unlink(missing_ok=True)
            return make_url(f"sqlite:///{path}")
        conn = connect(self.url.set(database="postgres" if fam == "postgresql" else None))
        try:
            cur = conn.cursor()
            if fam == "mysql":
                cur.execute(f"DROP DATABASE IF EXISTS `{db}`")
            else:
                cur.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        finally:
            conn.close()
        return self.url.set(database=db)

    def create(self, url: URL) -> None:
        """Create the (dropped) database at ``url``."""
        fam = family(url)
        if fam == "sqlite":
            sqlite3.connect(url.database or "").close()
            return
        conn = connect(self.url.set(database="postgres" if fam == "postgresql" else None))
        try:
            quote = "`" if fam == "mysql" else '"'
            conn.cursor().execute(f"CREATE DATABASE {quote}{url.database}{quote}")
        finally:
            conn.close()


# --------------------------------------------------------------------------- catalog counts

Catalog = dict[str, Counter[tuple[str, ...]]]


def catalog_mysql(url: URL) -> Catalog:
    """What information_schema lists for the URL's database."""
    db = url.database or ""

    def one(sql: str) -> Counter[tuple[str, ...]]:
        return Counter(tuple(str(v) for v in row) for row in query(url, sql, (db,)))

    base = "SELECT table_name FROM information_schema.tables WHERE table_schema=%s AND table_type='BASE TABLE'"
    return {
        "tables": one(base),
        "columns": one(
            "SELECT c.table_name, c.column_name FROM information_schema.columns c JOIN information_schema.tables t"
            " ON t.table_schema=c.table_schema AND t.table_name=c.table_name"
            " WHERE c.table_schema=%s AND t.table_type='BASE TABLE'"
        ),
        "primary_keys": one(
            "SELECT DISTINCT table_name FROM information_schema.statistics WHERE table_schema=%s AND index_name='PRIMARY'"
        ),
        "indexes": one(
            "SELECT DISTINCT table_name, index_name FROM information_schema.statistics"
            " WHERE table_schema=%s AND index_name<>'PRIMARY'"
        ),
        "foreign_keys": one(
            "SELECT table_name, constraint_name FROM information_schema.referential_constraints WHERE constraint_schema=%s"
        ),
        "checks": one(
            "SELECT table_name, constraint_name FROM information_schema.table_constraints"
            " WHERE table_schema=%s AND constraint_type='CHECK'"
        ),
        "views": one("SELECT table_name FROM information_schema.views WHERE table_schema=%s"),
        "sequences": one(
            "SELECT table_name FROM information_schema.tables WHERE table_schema=%s AND table_type='SEQUENCE'"
        ),
        "routines": one("SELECT routine_name FROM information_schema.routines WHERE routine_schema=%s"),
        "triggers": one(
            "SELECT event_object_table, trigger_name FROM information_schema.triggers WHERE trigger_schema=%s"
        ),
    }


_PG_USER = (
    "n.nspname NOT IN ('pg_catalog','information_schema') AND n.nspname NOT LIKE 'pg_toast%%'"
    " AND n.nspname NOT LIKE 'pg_temp%%'"
)
_PG_NOT_EXT = "NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid={oid} AND d.deptype='e')"


def catalog_postgresql(url: URL) -> Catalog:
    """What pg_catalog lists for the user schemas of the URL's database (extension objects aside)."""

    def one(sql: str) -> Counter[tuple[str, ...]]:
        return Counter(tuple(str(v) for v in row) for row in query(url, sql))

    rel = f"FROM pg_class c JOIN pg_namespace n ON n.oid=c.relnamespace WHERE {_PG_USER}"
    tbl = f"{rel} AND c.relkind IN ('r','p') AND {_PG_NOT_EXT.format(oid='c.oid')}"
    con = (
        "FROM pg_constraint k JOIN pg_class c ON c.oid=k.conrelid JOIN pg_namespace n ON n.oid=c.relnamespace"
        f" WHERE {_PG_USER} AND {_PG_NOT_EXT.format(oid='c.oid')} AND k.conparentid=0"  # not partition clones
    )
    return {
        "tables": one(f"SELECT n.nspname, c.relname {tbl}"),
        "columns": one(
            f"SELECT n.nspname, c.relname, a.attname {tbl.replace('WHERE', 'JOIN pg_attribute a ON a.attrelid=c.oid WHERE', 1)}"
            " AND a.attnum>0 AND NOT a.attisdropped"
        ),
        "primary_keys": one(f"SELECT n.nspname, c.relname {con} AND k.contype='p'"),
        "indexes": one(
            "SELECT n.nspname, c.relname, i.relname FROM pg_index x JOIN pg_class i ON i.oid=x.indexrelid"
            " JOIN pg_class c ON c.oid=x.indrelid JOIN pg_namespace n ON n.oid=c.relnamespace"
            f" WHERE {_PG_USER} AND NOT x.indisprimary AND c.relkind IN ('r','p','m')"
            f" AND {_PG_NOT_EXT.format(oid='c.oid')}"
        ),
        "foreign_keys": one(f"SELECT n.nspname, c.relname, k.conname {con} AND k.contype='f'"),
        "checks": one(f"SELECT n.nspname, c.relname, k.conname {con} AND k.contype='c'"),
        "views": one(
            f"SELECT n.nspname, c.relname {rel} AND c.relkind IN ('v','m') AND {_PG_NOT_EXT.format(oid='c.oid')}"
        ),
        "sequences": one(f"SELECT n.nspname, c.relname {rel} AND c.relkind='S' AND {_PG_NOT_EXT.format(oid='c.oid')}"),
        "routines": one(
            "SELECT n.nspname, p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid=p.pronamespace"
            f" WHERE {_PG_USER} AND {_PG_NOT_EXT.format(oid='p.oid')}"
        ),
        "triggers": one(
            "SELECT n.nspname, c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid=t.tgrelid"
            f" JOIN pg_namespace n ON n.oid=c.relnamespace WHERE {_PG_USER} AND NOT t.tgisinternal AND t.tgparentid=0"
        ),
        "enums": one(
            "SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid=t.typnamespace"
            f" WHERE {_PG_USER} AND t.typtype='e' AND {_PG_NOT_EXT.format(oid='t.oid')}"
        ),
        "domains": one(
            "SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid=t.typnamespace"
            f" WHERE {_PG_USER} AND t.typtype='d' AND {_PG_NOT_EXT.format(oid='t.oid')}"
        ),
    }


def catalog_sqlite(url: URL) -> Catalog:
    """What sqlite_schema and the pragmas list (FKs counted per table: SQLite keeps no FK names)."""
    conn = sqlite3.connect(url.database or "")
    try:
        objs = conn.execute("SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchall()
        tables = [n for t, n, _ in objs if t == "table"]
        cat: Catalog = {
            k: Counter() for k in ("tables", "columns", "primary_keys", "indexes", "foreign_keys", "views", "triggers")
        }
        for name in tables:
            cat["tables"][(name,)] += 1
            cols = conn.execute(f'PRAGMA table_xinfo("{name}")').fetchall()
            cat["columns"].update((name, c[1]) for c in cols)
            if any(c[5] for c in cols):
                cat["primary_keys"][(name,)] += 1
            fks = {row[0] for row in conn.execute(f'PRAGMA foreign_key_list("{name}")')}
            cat["foreign_keys"].update((name, "?") for _ in fks)
        cat["indexes"].update((tb, n) for t, n, tb in objs if t == "index")
        cat["views"].update((n,) for t, n, _ in objs if t == "view")
        cat["triggers"].update((tb, n) for t, n, tb in objs if t == "trigger")
        return cat
    finally:
        conn.close()


def catalog_of_document(doc: dict[str, Any], fam: str) -> Catalog:
    """The same counts taken from a schema document (schema names dropped for MySQL/SQLite)."""
    cat: Catalog = {}

    def add(key: str, *parts: str) -> None:
        cat.setdefault(key, Counter()).update([tuple(parts)])

    for s in doc["schemas"]:
        pre = (s["name"],) if fam == "postgresql" else ()
        for t in s.get("tables", []):
            add("tables", *pre, t["name"])
            for c in t["columns"]:
                add("columns", *pre, t["name"], c["name"])
                if fam != "mysql" and (c.get("identity") or {}).get("sequence"):  # serial: the owned sequence
                    add("sequences", *pre, c["identity"]["sequence"])
                if fam == "mysql" and c["type"]["kind"] == "json" and not c["type"].get("binary"):
                    add("checks", *pre, t["name"], c["name"])  # MariaDB JSON = LONGTEXT + CHECK (json_valid(c))
            if t.get("primary_key"):
                add("primary_keys", *pre, t["name"])
            names = {i["name"] for i in t.get("indexes", [])} | {u["name"] for u in t.get("uniques", [])}
            for n in names:
                add("indexes", *pre, t["name"], n)
            for fk in t.get("foreign_keys", []):
                add("foreign_keys", *pre, t["name"], "?" if fam == "sqlite" else fk["name"])
            for ck in t.get("checks", []):
                add("checks", *pre, t["name"], ck["name"])
        for v in s.get("views", []):
            add("views", *pre, v["name"])
            for i in v.get("indexes", []):
                add("indexes", *pre, v["name"], i["name"])
        for key in ("sequences", "routines", "enums", "domains"):
            for o in s.get(key, []):
                add(key, *pre, o["name"])
        for tr in s.get("triggers", []):
            add("triggers", *pre, tr["table"], tr["name"])
    return cat


def compare_catalog(url: URL, doc: dict[str, Any]) -> Outcome:
    """Every object the server lists is in the document, and nothing else."""
    fam = family(url)
    server = {"mysql": catalog_mysql, "postgresql": catalog_postgresql, "sqlite": catalog_sqlite}[fam](url)
    mine = catalog_of_document(doc, fam)
    details = []
    for key, want in server.items():
        got = mine.get(key, Counter())
        if fam == "sqlite" and key == "indexes":
            want = Counter({k: v for k, v in want.items() if not k[1].startswith("sqlite_autoindex")})
        missing, extra = want - got, got - want
        line = f"{key}: server {sum(want.values())}, document {sum(got.values())}"
        if missing or extra:
            details.append(f"{line}; missing {sorted(missing)[:8]} extra {sorted(extra)[:8]}")
    return Outcome(not details, details)


# --------------------------------------------------------------------------- document comparison

_VOLATILE = {"row_estimate", "dumped_at"}


def normalized(doc: dict[str, Any], source_db: str, target_db: str) -> Any:
    """The document without source metadata, with the target database name read as the source's."""
    text = json.dumps({k: v for k, v in doc.items() if k != "source"}, sort_keys=True)
    if target_db != source_db:
        text = text.replace(f"`{target_db}`", f"`{source_db}`").replace(
            f'"name": "{target_db}"', f'"name": "{source_db}"'
        )

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in _VOLATILE}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(json.loads(text))


def json_diff(a: Any, b: Any, path: str = "") -> list[str]:
    """JSON pointers (with both values) where ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for k in sorted(set(a) | set(b)):
            out += json_diff(a.get(k), b.get(k), f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in json_diff(x, y, f"{path}/{i}")]
    return [] if a == b else [f"{path}: {json.dumps(a)[:160]} -> {json.dumps(b)[:160]}"]


def std_type(t: dict[str, Any] | None, reference: dict[str, Any] | None = None) -> dict[str, Any]:
    """The standard facts of a type (user type names aside; LONGTEXT/LONGBLOB read as unbounded).

    An fsp is compared only when ``reference`` (the source's type) states one: SQLite's TIMESTAMP
    has no precision, so the target's choice of 6 is no loss.
    """
    if not t:
        return {}
    out = {k: t[k] for k in TYPE_KEYS if t.get(k) not in (None, False, [], ())}
    if out.get("max_bytes") == 4294967295:
        del out["max_bytes"]
    if reference is not None and reference.get("fsp") is None:
        out.pop("fsp", None)
    if isinstance(out.get("element"), dict):
        out["element"] = std_type(out["element"])
    return out


_BOOL_LITERALS = {"true": "1", "false": "0"}


def std_default(d: dict[str, Any] | None, reference: dict[str, Any] | None = None) -> Any:
    """A default as kind + value (expressions compared only by kind: their dialect may change).

    Boolean literals compare as 1/0; a function default's fsp is compared only when the source
    ``reference`` (the source's default) names one (PostgreSQL's now() has none: the target's
    CURRENT_TIMESTAMP(6) is the same value).
    """
    if not d:
        return None
    value = None if d["kind"] == "expression" else str(d.get("value")).lower()
    fsp = d.get("fsp") if reference is None or reference.get("fsp") is not None else None
    return (d["kind"], _BOOL_LITERALS.get(value or "", value), fsp)


def by_name(items: list[dict[str, Any]], key: str = "name") -> dict[str, tuple[int, dict[str, Any]]]:
    """index + object per lower-cased name."""
    return {str(o.get(key)).lower(): (i, o) for i, o in enumerate(items)}


def cross_differences(src: dict[str, Any], dst: dict[str, Any]) -> list[tuple[str, str]]:
    """(JSON pointer into the source document, what differs) for every source fact the target lacks."""
    diffs: list[tuple[str, str]] = []
    dst_schemas = dst["schemas"]
    for si, s in enumerate(src["schemas"]):
        match = [t for t in dst_schemas if t["name"] == s["name"]] or (dst_schemas if len(dst_schemas) == 1 else [])
        d = match[0] if match else {}
        sp = f"/schemas/{si}"
        dtables = by_name(d.get("tables", []))
        for ti, t in enumerate(s.get("tables", [])):
            tp = f"{sp}/tables/{ti}"
            if t["name"].lower() not in dtables:
                diffs.append((tp, f"table {t['name']} missing"))
                continue
            dt = dtables[t["name"].lower()][1]
            diffs += table_differences(t, dt, tp)
        for key in ("views", "sequences", "routines", "enums", "domains", "events"):
            present = by_name(d.get(key, []))
            for oi, o in enumerate(s.get(key, [])):
                if o["name"].lower() not in present:
                    diffs.append((f"{sp}/{key}/{oi}", f"{key[:-1]} {o['name']} missing"))
        present_tr = {(tr["table"].lower(), tr["name"].lower()) for tr in d.get("triggers", [])}
        for ri, tr in enumerate(s.get("triggers", [])):
            if (tr["table"].lower(), tr["name"].lower()) not in present_tr:
                diffs.append((f"{sp}/triggers/{ri}", f"trigger {tr['name']} on {tr['table']} missing"))
    return diffs


def table_differences(t: dict[str, Any], dt: dict[str, Any], tp: str) -> list[tuple[str, str]]:
    """Columns (type, nullability, default, identity, generated), keys, indexes, checks of one table."""
    diffs: list[tuple[str, str]] = []
    dcols = by_name(dt["columns"])
    for ci, c in enumerate(t["columns"]):
        cp = f"{tp}/columns/{ci}"
        if c["name"].lower() not in dcols:
            diffs.append((cp, f"column {t['name']}.{c['name']} missing"))
            continue
        dc = dcols[c["name"].lower()][1]
        if std_type(c["type"]) != std_type(dc["type"], c["type"]):
            diffs.append(
                (f"{cp}/type", f"{t['name']}.{c['name']} type {std_type(c['type'])} -> {std_type(dc['type'])}")
            )
        if c.get("nullable", True) != dc.get("nullable", True):
            diffs.append((f"{cp}/nullable", f"{t['name']}.{c['name']} nullable changed"))
        if std_default(c.get("default")) != std_default(dc.get("default"), c.get("default")):
            diffs.append(
                (f"{cp}/default", f"{t['name']}.{c['name']} default {c.get('default')} -> {dc.get('default')}")
            )
        for key in ("identity", "generated", "on_update", "comment"):
            if bool(c.get(key)) != bool(dc.get(key)):
                diffs.append(
                    (f"{cp}/{key}", f"{t['name']}.{c['name']} {key} {bool(c.get(key))} -> {bool(dc.get(key))}")
                )
    if t.get("comment") != dt.get("comment"):
        diffs.append((f"{tp}/comment", f"{t['name']} comment {t.get('comment')!r} -> {dt.get('comment')!r}"))
    if bool(t.get("primary_key")) != bool(dt.get("primary_key")) or (
        t.get("primary_key")
        and [x.lower() for x in t["primary_key"]["columns"]] != [x.lower() for x in dt["primary_key"]["columns"]]
    ):
        diffs.append((f"{tp}/primary_key", f"{t['name']} primary key differs"))
    for key in ("foreign_keys", "uniques", "checks", "indexes"):
        others = dt.get(key, []) + dt.get("uniques" if key == "indexes" else key, [])
        dset = {tuple(sorted(x.lower() for x in cols(o))) for o in others}
        dnames = {str(o.get("name", "")).lower() for o in others}
        for oi, o in enumerate(t.get(key, [])):
            same = tuple(sorted(x.lower() for x in cols(o))) in dset or str(o.get("name", "")).lower() in dnames
            if not same and key != "checks":  # by columns, or by name (a prefix index becomes an expression)
                diffs.append((f"{tp}/{key}/{oi}", f"{t['name']} {key[:-1]} {o.get('name')} missing"))
        if key == "checks" and len(dt.get(key, [])) < len(t.get(key, [])):
            diffs.append((f"{tp}/checks", f"{t['name']} has fewer checks"))
    for key in ("partitioning", "partition_of"):
        if bool(t.get(key)) != bool(dt.get(key)):
            diffs.append((f"{tp}/{key}", f"{t['name']} {key} differs"))
    return diffs


def cols(o: dict[str, Any]) -> list[str]:
    """Columns (or expressions) an index/key/check is about, for matching across engines."""
    if "parts" in o:
        return [p.get("column") or p.get("expression") or "" for p in o["parts"]]
    if "columns" in o:
        return list(o["columns"]) + ([o["ref_table"]] if "ref_table" in o else [])
    return [o.get("name", "")]


def covered(path: str, report_paths: list[str]) -> bool:
    """A report item sits at ``path``, above it or below it."""
    return any(path == q or path.startswith(q + "/") or q.startswith(path + "/") for q in report_paths)


# --------------------------------------------------------------------------- steps


def step_schema(source: dict[str, Any], src_url: URL, server: Server, tag: str, work: Path, log: Path) -> Outcome:
    """schema-load into a fresh database, re-dump, compare with the source document."""
    url = server.fresh(f"acc_{tag}_schema")
    doc_path, report = work / "source.schema.json", work / f"{server.name}.report.json"
    proc = run([DBJSON, "schema-load", str(doc_path), "--to", url_text(url), "--create", "--report", str(report)], log)
    if proc.returncode != 0:
        return Outcome(False, [f"schema-load rc={proc.returncode}: {proc.stderr.strip()[-600:]}"])
    dump = work / f"{server.name}.schema.json"
    proc = run([DBJSON, "schema-dump", url_text(url), "-o", str(dump)], log)
    if proc.returncode != 0:
        return Outcome(False, [f"re-dump rc={proc.returncode}: {proc.stderr.strip()[-600:]}"])
    target = json.loads(dump.read_text())
    if target["source"]["engine"] == source["source"]["engine"]:
        src_db = src_url.database or ""
        diffs = json_diff(normalized(source, src_db, src_db), normalized(target, src_db, url.database or ""))
        more = [f"... {len(diffs)} in all"] if len(diffs) > 25 else []
        return Outcome(not diffs, [f"same-engine diff {d}" for d in diffs[:25]] + more)
    report_paths = [item["path"] for item in json.loads(report.read_text())["items"]]
    missing = [
        f"unreported {p}: {what}" for p, what in cross_differences(source, target) if not covered(p, report_paths)
    ]
    return Outcome(not missing, missing[:40] + ([f"... {len(missing)} in all"] if len(missing) > 40 else []))


def step_data(export_dir: Path, server: Server, tag: str, threads: int, log: Path) -> Outcome:
    """import the export into a fresh database and verify it."""
    url = server.fresh(f"acc_{tag}_data")
    server.create(url)
    proc = run([DBJSON, "import", str(export_dir), url_text(url), "--threads", str(threads), "--quiet"], log)
    if proc.returncode != 0:
        return Outcome(False, [f"import rc={proc.returncode}: {proc.stderr.strip()[-800:]}"])
    proc = run([DBJSON, "verify", str(export_dir), url_text(url)], log)
    if proc.returncode != 0:
        return Outcome(False, [f"verify rc={proc.returncode}: {(proc.stdout + proc.stderr).strip()[-800:]}"])
    return Outcome(True)


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the pipeline, print the matrix."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", help="source database URL")
    ap.add_argument("--target", action="append", default=[], metavar="NAME=URL", help="target server (repeatable)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME", help="only these targets")
    ap.add_argument("--work", default=None, help="scratch directory (default: /tmp/dbjson-acceptance/<db>)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory's previous content")
    ap.add_argument("--dbjson", default=None, help="the dbjson executable (default: the one beside this Python)")
    args = ap.parse_args(argv)
    global DBJSON
    DBJSON = args.dbjson or DBJSON

    src_url = make_url(args.source)
    tag = re.sub(r"\W+", "_", Path(src_url.database or "db").stem.lower())[:40]
    work = Path(args.work or f"/tmp/dbjson-acceptance/{tag}")
    if work.exists() and not args.keep:
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    log = work / "commands.log"
    targets = dict(DEFAULT_TARGETS)
    targets.update(dict(t.split("=", 1) for t in args.target))
    servers = [
        Server(n, make_url(u if u != "sqlite:///" else f"sqlite:///{work}/x.db"), work) for n, u in targets.items()
    ]
    if args.only:
        servers = [s for s in servers if s.name in args.only]

    results: dict[str, dict[str, Outcome]] = {}
    doc_path = work / "source.schema.json"
    proc = run([DBJSON, "schema-dump", args.source, "-o", str(doc_path)], log)
    if proc.returncode != 0:
        print(f"schema-dump failed (rc={proc.returncode}): {proc.stderr.strip()}")
        return 1
    source = json.loads(doc_path.read_text())
    valid = run([DBJSON, "validate", str(doc_path)], log)
    results["source"] = {
        "validate": Outcome(valid.returncode == 0, [valid.stdout + valid.stderr] if valid.returncode else []),
        "catalog": compare_catalog(src_url, source),
    }
    export_dir = work / "export"
    proc = run([DBJSON, "export", args.source, "-o", str(export_dir), "--threads", str(args.threads), "--quiet"], log)
    results["source"]["export"] = Outcome(proc.returncode == 0, [proc.stderr.strip()[-800:]] if proc.returncode else [])
    if proc.returncode == 0:
        proc = run([DBJSON, "verify", str(export_dir), args.source], log)
        results["source"]["verify-self"] = Outcome(
            proc.returncode == 0, [(proc.stdout + proc.stderr).strip()[-800:]] if proc.returncode else []
        )

    steps: dict[str, Callable[[Server], Outcome]] = {
        "schema": lambda s: step_schema(source, src_url, s, tag, work, log),
        "data": lambda s: (
            step_data(export_dir, s, tag, args.threads, log)
            if results["source"]["export"].ok
            else Outcome(False, ["no export"])
        ),
    }
    for server in servers:
        results[server.name] = {}
        for name, fn in steps.items():
            try:
                results[server.name][name] = fn(server)
            except Exception as exc:  # noqa: BLE001 - a harness crash or a server error fails that cell
                results[server.name][name] = Outcome(False, [f"{type(exc).__name__}: {exc}"])
            print(f"{server.name:<11} {name:<8} {results[server.name][name].label}", file=sys.stderr, flush=True)

    print_matrix(args.source, results)
    return 0 if all(o.ok for row in results.values() for o in row.values()) else 1


def print_matrix(source: str, results: dict[str, dict[str, Outcome]]) -> None:
    """The pass/fail matrix, then the details of every failure."""
    print(f"source: {make_url(source).render_as_string(hide_password=True)}")
    for row, cells in results.items():
        print(f"  {row:<11} " + "  ".join(f"{k}={o.label}" for k, o in cells.items()))
    for row, cells in results.items():
        for k, o in cells.items():
            for line in o.details:
                print(f"[{row} {k}] {line}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
