"""Export performance guards: what an export must not load or do (start-up, TLS to loopback), and
the error paths of the fast MySQL/MariaDB batches (bench/analysis.md explains why each matters)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from dbjson import model as m
from dbjson.connect import Target, parse_url
from dbjson.errors import DataError
from dbjson.export import connect_source, export_database
from dbjson.format.checksum import line_hash
from dbjson.reflect import reflect

# Modules an export never needs: schema validation, DDL translation, typer's rich help renderer.
NOT_FOR_EXPORT = ("jsonschema", "sqlglot", "typer.rich_utils", "markdown_it", "pygments")

_LIST_MODULES = """
import atexit, runpy, sys
atexit.register(lambda: print("MODULES " + " ".join(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["dbjson", "export", sys.argv[1], "-o", sys.argv[2], "--quiet"]
runpy.run_module("dbjson", run_name="__main__")
"""


def test_cli_export_does_not_import_validation_ddl_or_help_modules(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        conn.execute("INSERT INTO t VALUES (1, 'a')")
    p = subprocess.run(
        [sys.executable, "-c", _LIST_MODULES, f"sqlite:///{db}", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "NO_COLOR"},
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out" / "manifest.json").exists()
    loaded = set(next(ln for ln in p.stderr.splitlines() if ln.startswith("MODULES ")).split()[1:])
    assert "dbjson.export" in loaded
    assert [m for m in loaded if m.split(".")[0] in NOT_FOR_EXPORT or m in NOT_FOR_EXPORT] == []


def test_export_first_connection_to_loopback_mysql_skips_tls(fresh_db: Any) -> None:
    """The coordinator is connected like the workers (the MySQL 9 test server offers TLS)."""
    db = fresh_db("mysql")
    for url, plain in ((db.url, True), (parse_url(db.url).update_query_dict({"ssl_check_hostname": "false"}), False)):
        conn = connect_source(Target(parse_url(url)))
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
                assert (cur.fetchall()[0][1] == "") is plain
        finally:
            conn.close()


def flags_with_a_2(db: Any) -> m.Database:
    """Table ``flags`` (2,000 rows; row 777 holds 2 in the TINYINT(1) column ``ok``) and its
    document with ``ok`` as a boolean: a value without a canonical encoding. (TINYINT(1) reflects
    as an integer; a document from elsewhere may call it boolean.)"""
    rows = ", ".join(f"({i}, {2 if i == 777 else i % 2})" for i in range(1, 2001))
    db.execute(f"CREATE TABLE flags (id INT PRIMARY KEY, ok TINYINT(1) NOT NULL);\nINSERT INTO flags VALUES {rows};")
    doc = reflect(db.url)
    schema = doc.schemas[0]
    table = schema.tables[0]
    cols = tuple(replace(c, type=m.Type(kind="boolean")) if c.name == "ok" else c for c in table.columns)
    return replace(doc, schemas=(replace(schema, tables=(replace(table, columns=cols),)),))


@pytest.mark.parametrize("no_speedups", ["1", "0"], ids=["batched", "c-path"])
@pytest.mark.parametrize("engine_name", ["mysql", "mariadb"])
def test_mysql_batched_export_stops_on_a_value_without_canonical_form(
    fresh_db: Any, tmp_path: Path, engine_name: str, no_speedups: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A boolean column holding 2 inside a GROUP_CONCAT batch (or the C path's rows): an error
    naming the table, never a line written with a NUL in it."""
    monkeypatch.setenv("DBJSON_NO_SPEEDUPS", no_speedups)
    db = fresh_db(engine_name)
    doc = flags_with_a_2(db)
    with pytest.raises(DataError) as e:
        export_database(db.url, tmp_path / "out", threads=1, database=doc)
    assert "no canonical encoding" in str(e.value) and (e.value.table or "").endswith(".flags")
    assert not (tmp_path / "out" / "manifest.json").exists()


@pytest.mark.parametrize("no_speedups", ["1", "0"], ids=["batched", "c-path"])
@pytest.mark.parametrize("engine_name", ["mysql", "mariadb"])
def test_mysql_batched_lines_are_complete_and_counted(
    fresh_db: Any, tmp_path: Path, engine_name: str, no_speedups: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines carry their newline from the server (or from the C path): the files hold exactly one
    line per row, and the manifest's checksum is the sum of those lines' hashes."""
    monkeypatch.setenv("DBJSON_NO_SPEEDUPS", no_speedups)
    db = fresh_db(engine_name)
    rows = ", ".join(f"({i}, 'v{i}\\n\\t\"', {i * 3})" for i in range(1, 5001))
    db.execute(f"CREATE TABLE t (id BIGINT PRIMARY KEY, s VARCHAR(20), n INT);\nINSERT INTO t VALUES {rows};")
    report = export_database(db.url, tmp_path / "out", threads=2, chunk_rows=2000)
    entry = report.manifest.tables[0]
    data = b"".join((tmp_path / "out" / f.path).read_bytes() for f in entry.files)
    lines = data.split(b"\n")
    assert lines.pop() == b"" and len(lines) == entry.rows == 5000
    assert lines[0] == b'{"id":"1","s":"v1\\n\\t\\"","n":3}'
    assert sum(line_hash(ln) for ln in lines) % (1 << 64) == int(entry.checksum, 16)


_IMPORT_MODULES = """
import atexit, runpy, sys
atexit.register(lambda: print("MODULES " + " ".join(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["dbjson", "import", sys.argv[1], sys.argv[2], "--quiet"]
runpy.run_module("dbjson", run_name="__main__")
"""


def test_same_engine_import_of_plain_types_does_not_import_sqlglot(tmp_path: Path) -> None:
    """A same-engine import copies the native types verbatim after a guard; plain type text
    (``varchar(40)``, ``decimal(12,2)``) passes it without sqlglot's tokenizer (0.1-0.15 s)."""
    src, dst = tmp_path / "s.db", tmp_path / "t.db"
    with sqlite3.connect(src) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v VARCHAR(40), d DECIMAL(12,2), b BLOB)")
        conn.execute("INSERT INTO t VALUES (1, 'a', 1.5, x'00')")
    export_database(f"sqlite:///{src}", tmp_path / "out", threads=1)
    p = subprocess.run(
        [sys.executable, "-c", _IMPORT_MODULES, str(tmp_path / "out"), f"sqlite:///{dst}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    loaded = set(next(ln for ln in p.stderr.splitlines() if ln.startswith("MODULES ")).split()[1:])
    assert "dbjson.importer" in loaded and "sqlglot" not in loaded


@pytest.mark.parametrize(
    "text",
    ["varchar(100)", "decimal(12, 2)", "bigint unsigned", "timestamp(6) with time zone", "int(11) zerofill", "json"],
)
def test_plain_type_text_is_what_the_guard_passes(text: str) -> None:
    from dbjson.ddl.context import plain_text
    from dbjson.ddl.expr import verbatim_problem

    assert plain_text(text)
    for engine in ("postgresql", "mysql", "sqlite"):
        assert verbatim_problem(text, engine) is None


@pytest.mark.parametrize(
    "text",
    [
        "varchar(1); drop table x",
        "int -- c",
        "enum('a','b')",
        "a, b",
        "x)",
        "int[]",
        "(1",
        "integer REFERENCES victim",
        "int GENERATED ALWAYS AS (1) STORED",
        "0 NOT NULL",
        "integer DEFAULT 1",
    ],
)
def test_text_that_is_not_plain_goes_through_the_guard(text: str) -> None:
    from dbjson.ddl.context import plain_text

    assert not plain_text(text)
