"""Hostile and broken input (issue 6, item 2): every case ends in a clear error or a correct load.

* Hostile names (quotes, backticks, ``;``, ``..``, slashes, backslashes, spaces, unicode and 4-byte
  emoji, reserved words, names differing only in case, maximum lengths) survive schema-dump →
  schema-load → export → import → verify on every engine, and every file written stays inside the
  output directory.
* Schema documents crafted to inject SQL (tests/hostile/documents.py) either load with the text
  quoted exactly or are refused; the ``canary`` table always survives and ``pwned`` never appears.
* Broken export directories (truncated, malformed, wrongly typed, oversized lines; lying manifests)
  fail through the CLI with a clear message naming file/line/table/column, a non-zero exit code, no
  traceback, and no half-loaded table.

Counts per category go to tests/.reliability/hostile.json (docs/reliability.md).
"""

from __future__ import annotations

import base64
import fcntl
import gzip
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hostile.documents import CASES, LOAD, QUOTED, base_document
from hostile.names import column_names, quote, source_sql, table_names
from test_import import ITEMS, ITEMS_DDL, _lines, database, item_rows, make_export, target_with

from dbjson import model as m
from dbjson.errors import DbjsonError, DocumentError, TranslationError
from dbjson.reflect import reflect
from dbjson.schemaload import load_schema

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = Path(os.environ.get("DBJSON_RELIABILITY_DIR", ROOT / "tests" / ".reliability")) / "hostile.json"


def record(name: str, cases: int, rejected: int, loaded: int, part: str = "") -> None:
    """Add one test's counts to its category in tests/.reliability/hostile.json.

    Safe under pytest-xdist: every test writes its own part (``part``, e.g. its node id) of the
    category into hostile.parts.json under a lock, and hostile.json is the sum of the parts, so a
    rerun replaces its parts instead of adding to them.
    """
    SUMMARY.parent.mkdir(parents=True, exist_ok=True)
    parts_file = SUMMARY.with_name("hostile.parts.json")
    with open(SUMMARY.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            parts = json.loads(parts_file.read_text()) if parts_file.exists() else {}
        except ValueError:
            parts = {}
        parts.setdefault(name, {})[part or name] = [cases, rejected, loaded]
        parts_file.write_text(json.dumps(parts, indent=1, sort_keys=True) + "\n")
        entries = [
            {
                "name": n,
                "cases": sum(v[0] for v in ps.values()),
                "rejected_cleanly": sum(v[1] for v in ps.values()),
                "loaded_correctly": sum(v[2] for v in ps.values()),
            }
            for n, ps in sorted(parts.items())
        ]
        SUMMARY.write_text(json.dumps({"hostile": entries}, indent=2) + "\n")


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DBJSON_DEBUG"}
    return subprocess.run(
        [sys.executable, "-m", "dbjson", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=600
    )


def assert_clean_failure(r: subprocess.CompletedProcess[str], code: int | tuple[int, ...]) -> None:
    """A non-zero exit with dbjson's one-line error, never a traceback or an internal error."""
    codes = (code,) if isinstance(code, int) else code
    assert r.returncode in codes, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr[-3000:]
    assert "error:" in r.stderr, r.stderr[-2000:]


def files_under(directory: Path) -> set[Path]:
    return {p.resolve() for p in directory.rglob("*")}


# ---------------------------------------------------------------------------------------------
# 1. Hostile names: a real round trip on every engine
# ---------------------------------------------------------------------------------------------


def test_hostile_names_round_trip(engine: str, fresh_db: Any, tmp_path: Path) -> None:
    src, dst = fresh_db(engine), fresh_db(engine)
    src.execute(source_sql(engine))
    work = tmp_path / "work"
    work.mkdir()
    before = files_under(tmp_path)
    doc, out = work / "doc.json", work / "out"
    r = cli("schema-dump", src.url, "-o", str(doc))
    assert r.returncode == 0, r.stderr
    dumped = m.Database.from_json(doc.read_bytes())
    names = {t.name for _, t in dumped.tables()}
    expected = set(table_names(engine)) | {"canary", "child " + table_names(engine)[0]}
    assert names == expected
    first = next(t for _, t in dumped.tables() if t.name == table_names(engine)[0])
    assert [c.name for c in first.columns] == column_names(engine)
    assert {c.name for c in first.checks} >= {"ck0 ;x"} and {i.name for i in first.indexes} >= {"ix0 `;` .."}
    assert [v.name for s in dumped.schemas for v in s.views] == ["view semi;colon -- DROP TABLE canary"]

    r = cli("schema-load", str(doc), "--to", dst.url, "--report", str(work / "report.json"))
    assert r.returncode == 0, r.stderr
    report = orjson.loads((work / "report.json").read_bytes())
    renames = [i for i in report.get("items", []) if i.get("severity") == "rename"]
    # Only the case twin is renamed (schema-load keeps names unique case-insensitively, on every target).
    assert len(renames) == (1 if engine != "sqlite" else 0), renames
    r = cli("export", src.url, "-o", str(out), "-q", "--threads", "2")
    assert r.returncode == 0, r.stderr
    # Every path written is inside the output directory, one data file per table, no odd names.
    written = files_under(tmp_path) - before
    assert written and all(p.is_relative_to(work.resolve()) for p in written), sorted(written)
    data = sorted(p.name for p in (out / "data").iterdir())
    assert len(data) == len(expected) and all("/" not in n and not n.startswith(".") for n in data)
    assert {p.parent for p in (out / "data").iterdir()} == {(out / "data")}

    r = cli("import", str(out), dst.url, "--data-only", "-q")
    assert r.returncode == 0, r.stderr
    r = cli("verify", str(out), dst.url)
    assert r.returncode == 0, r.stdout + r.stderr
    # The values came through too (quotes, backslashes, newlines, emoji).
    q = quote(engine, table_names(engine)[0])
    got = dst.query(f"SELECT {quote(engine, column_names(engine)[2])} FROM {q} ORDER BY {quote(engine, 'id')}")
    want = src.query(f"SELECT {quote(engine, column_names(engine)[2])} FROM {q} ORDER BY {quote(engine, 'id')}")
    assert got == want and len(got) == 3
    assert dst.query(f"SELECT COUNT(*) FROM {quote(engine, 'canary')}") == [(1,)]
    record(f"hostile names round trip ({engine})", len(expected), 0, len(expected))


# ---------------------------------------------------------------------------------------------
# 2. Crafted schema documents: injected SQL never runs
# ---------------------------------------------------------------------------------------------


def _tables(db: Any, engine: str) -> set[str]:
    if engine == "sqlite":
        return {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    if engine == "postgresql":
        return {
            r[0] for r in db.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
        }
    return {
        r[0] for r in db.query(f"SELECT table_name FROM information_schema.tables WHERE table_schema = '{db.name}'")
    }


def _reset(db: Any, engine: str) -> None:
    """An empty database again (cheaper than a new one per case)."""
    if engine == "sqlite":
        db.path.unlink()
        sqlite3.connect(db.path).close()
    elif engine == "postgresql":
        db.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
    else:
        db.execute(f"DROP DATABASE `{db.name}`;\nCREATE DATABASE `{db.name}` CHARACTER SET utf8mb4;\n")


def _check_loaded(case: str, doc: dict[str, Any], got: m.Database) -> None:
    """The hostile text is kept exactly (where the target keeps it at all)."""
    t = next(t for _, t in got.tables() if t.name != "canary")
    want_t = doc["schemas"][0]["tables"][0]
    if case == "table-comment" and t.comment is not None:
        assert t.comment == QUOTED
    if case == "column-comment" and t.columns[1].comment is not None:
        assert t.columns[1].comment == QUOTED
    if case == "default-literal":
        assert t.columns[1].default is not None and t.columns[1].default.value == QUOTED[:40]
    if case == "enum-values" and t.columns[2].type.kind == "enum":
        assert list(t.columns[2].type.values or ()) == want_t["columns"][2]["type"]["values"]
    if case == "column-name":
        assert t.columns[1].name in (QUOTED, QUOTED[:64]) or "_" in t.columns[1].name[-9:]


def test_crafted_documents_never_run_injected_sql(engine: str, fresh_db: Any, tmp_path: Path) -> None:
    rejected = loaded = 0
    failures = []
    target = fresh_db(engine)
    for case, mutate, expected in CASES:
        _reset(target, engine)
        target.execute("CREATE TABLE canary (id int PRIMARY KEY);\nINSERT INTO canary VALUES (1);\n")
        doc = base_document(engine)
        mutate(doc, engine)
        outcome = "loaded"
        try:
            load_schema(m.Database.from_json(orjson.dumps(doc)), target.url)
        except (TranslationError, DocumentError) as e:
            outcome = "refused"
            assert e.pointer or e.file, f"{case}: {e}"
        except DbjsonError as e:  # the server refused the statement (a second statement smuggled in)
            outcome = "refused"
            assert "multiple" in str(e) or "syntax" in str(e).lower() or "one statement" in str(e), f"{case}: {e}"
        tables = _tables(target, engine)
        assert "canary" in tables and "pwned" not in tables, (case, tables)
        assert target.query("SELECT COUNT(*) FROM canary") == [(1,)], case
        if outcome == "loaded":
            if expected == LOAD:
                _check_loaded(case, doc, reflect(target.url))
            else:  # a refused construct the target does not have at all (partitions on SQLite): dropped
                assert len(tables) <= 3, (case, tables)
            loaded += 1
        else:
            if expected == LOAD:
                failures.append(f"{case}: refused a document that only needs quoting")
            rejected += 1
    assert not failures, failures
    record(f"injected SQL in schema documents ({engine})", len(CASES), rejected, loaded)


def test_crafted_document_through_the_cli(tmp_path: Path, fresh_db: Any) -> None:
    """The CLI turns a refused document into exit code 5 and a message with the JSON pointer."""
    target = fresh_db("sqlite")
    doc = base_document("sqlite")
    next(mutate for case, mutate, _ in CASES if case == "check-breakout")(doc, "sqlite")
    (tmp_path / "doc.json").write_bytes(orjson.dumps(doc))
    r = cli("schema-load", str(tmp_path / "doc.json"), "--to", target.url)
    assert_clean_failure(r, 5)
    assert "/schemas/0/tables/0/checks/0" in r.stderr and "refused" in r.stderr
    record("injected SQL through the CLI", 1, 1, 0)


# ---------------------------------------------------------------------------------------------
# 3. Broken data files and lying manifests, through the CLI
# ---------------------------------------------------------------------------------------------

ROWS = 20
FILE = "data/shop.items.jsonl"


def _good(**kw: Any) -> dict[str, Any]:
    row = {
        "id": 5,
        "name": "n",
        "price": "1.25",
        "data": None,
        "flag": True,
        "created": "2024-01-01T00:00:00",
        "big": "1",
        "ratio": 0.5,
        "day": "2020-02-29",
    }
    row.update(kw)
    return row


def _replace_line(n: int, line: bytes) -> Callable[[Path], None]:
    def mutate(export: Path) -> None:
        f = export / FILE
        lines = f.read_bytes().split(b"\n")
        lines[n - 1] = line
        f.write_bytes(b"\n".join(lines))
        _fix_manifest(export)

    return mutate


def _fix_manifest(export: Path) -> None:
    """Recompute the manifest's checksums and sizes, so only the damage under test is seen."""
    from dbjson.format.checksum import Checksum

    man = orjson.loads((export / "manifest.json").read_bytes())
    for t in man["tables"]:
        total = Checksum()
        for f in t["files"]:
            p = export / f["path"]
            if not p.is_file() or p.suffix != ".jsonl":
                continue
            c = Checksum()
            for line in p.read_bytes().splitlines():
                c.add(line)
                total.add(line)
            f["checksum"], f["bytes"] = c.hexdigest(), p.stat().st_size
        t["checksum"] = total.hexdigest()
    (export / "manifest.json").write_bytes(orjson.dumps(man))


def _cut(at: Callable[[bytes], int]) -> Callable[[Path], None]:
    def mutate(export: Path) -> None:
        f = next((export / "data").iterdir())
        data = f.read_bytes()
        f.write_bytes(data[: at(data)])

    return mutate


def _manifest(edit: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def mutate(export: Path) -> None:
        man = orjson.loads((export / "manifest.json").read_bytes())
        edit(man)
        (export / "manifest.json").write_bytes(orjson.dumps(man))

    return mutate


def _compressed(suffix: str, cut: int) -> Callable[[Path], None]:
    def mutate(export: Path) -> None:
        f = export / FILE
        data = f.read_bytes()
        if suffix == ".gz":
            packed = gzip.compress(data)
        else:
            import zstandard

            packed = zstandard.ZstdCompressor().compress(data)
        f.unlink()
        (export / (FILE + suffix)).write_bytes(packed[: len(packed) - cut])

        def rename(man: dict[str, Any]) -> None:
            man["tables"][0]["files"][0]["path"] = FILE + suffix
            man["compression"] = {".gz": "gzip", ".zst": "zstd"}[suffix]

        _manifest(rename)(export)

    return mutate


def _big_line(export: Path) -> None:
    _replace_line(7, orjson.dumps(_good(id=7, name="x" * (50 << 20))))(export)


def _set_file_path(path: str) -> Callable[[Path], None]:
    def edit(man: dict[str, Any]) -> None:
        man["tables"][0]["files"][0]["path"] = path

    return _manifest(edit)


def _outside_file(export: Path) -> None:
    (export.parent / "outside.jsonl").write_bytes((export / FILE).read_bytes())
    _set_file_path("../outside.jsonl")(export)


# (id, mutate, exit codes, what the message must name: file, line, column, words)
BROKEN: list[tuple[str, Callable[[Path], None], tuple[int, ...], dict[str, Any]]] = [
    ("cut-mid-line", _cut(lambda d: len(d) - 30), (6,), {"file": FILE, "words": "truncated"}),
    (
        "cut-mid-file",
        _cut(lambda d: d.rindex(b"\n", 0, len(d) // 2) + 1),
        (6,),
        {"file": FILE, "words": "manifest lists"},
    ),
    ("missing-last-newline", _cut(lambda d: len(d) - 1), (6,), {"file": FILE, "line": ROWS, "words": "newline"}),
    ("gzip-truncated", _compressed(".gz", 25), (6,), {"file": FILE + ".gz", "words": "truncated"}),
    ("zstd-truncated", _compressed(".zst", 9), (6,), {"file": FILE + ".zst", "words": "truncated"}),
    ("malformed-json", _replace_line(4, b'{"id":4,"name":"n",'), (6,), {"file": FILE, "line": 4, "words": "malformed"}),
    ("not-an-object", _replace_line(5, b"[1,2,3]"), (6,), {"file": FILE, "line": 5}),
    ("invalid-utf8", _replace_line(6, b'{"id":6,"name":"\xff\xfe"}'), (6,), {"file": FILE, "line": 6}),
    (
        "string-for-int",
        _replace_line(3, orjson.dumps(_good(id="three"))),
        (6,),
        {"file": FILE, "line": 3, "column": "id", "value": "three"},
    ),
    (
        "int-out-of-range",
        _replace_line(3, orjson.dumps(_good(id=2**40))),
        (6,),
        {"file": FILE, "line": 3, "column": "id"},
    ),
    (
        "bad-base64",
        _replace_line(3, orjson.dumps(_good(id=3, data="@@not base64@@"))),
        (6,),
        {"file": FILE, "line": 3, "column": "data"},
    ),
    (
        "bad-date",
        _replace_line(3, orjson.dumps(_good(id=3, day="2024-13-45"))),
        (6,),
        {"file": FILE, "line": 3, "column": "day"},
    ),
    (
        "bad-timestamp",
        _replace_line(3, orjson.dumps(_good(id=3, created="yesterday"))),
        (6,),
        {"file": FILE, "line": 3, "column": "created"},
    ),
    ("missing-column", _replace_line(3, b'{"id":3}'), (6,), {"file": FILE, "line": 3}),
    ("unknown-column", _replace_line(3, orjson.dumps({**_good(id=3), "evil": 1})), (6,), {"file": FILE, "line": 3}),
    ("oversized-line-50MB", _big_line, (6,), {"file": FILE, "line": 7, "column": "name"}),
    (
        "manifest-count-lies",
        _manifest(lambda m_: m_["tables"][0]["files"][0].update(rows=ROWS + 5)),
        (4, 6, 7),  # 4: the table's count is not its files' sum, refused before loading (issue 16)
        {"words": "manifest"},
    ),
    (
        "manifest-checksum-lies",
        _manifest(lambda m_: m_["tables"][0]["files"][0].update(checksum="0123456789abcdef")),
        (6, 7),
        {"words": "checksum"},
    ),
    (
        "manifest-missing-file",
        _set_file_path("data/shop.gone.jsonl"),
        (6,),
        {"file": "shop.gone.jsonl", "words": "missing"},
    ),
    ("manifest-path-outside", _outside_file, (4,), {"words": "inside the export directory"}),
    ("manifest-absolute-path", _set_file_path("/etc/passwd"), (4,), {"words": "inside the export directory"}),
    (
        "manifest-not-json",
        lambda e: (e / "manifest.json").write_bytes(b'{"tables": [ '),
        (4,),
        {"file": "manifest.json"},
    ),
    (
        "manifest-wrong-shape",
        _manifest(lambda m_: m_.update(tables=[{"name": "items", "files": [{"rows": 1}]}])),
        (4,),
        {"file": "manifest.json", "words": "path"},
    ),
    (
        "schema-not-a-document",
        lambda e: (e / "schema.json").write_bytes(b'{"format": "nope"}'),
        (4,),
        {"file": "schema.json"},
    ),
]


@pytest.mark.parametrize("case", [c[0] for c in BROKEN])
@pytest.mark.parametrize("target_engine", ["sqlite", "postgresql", "mysql", "mariadb"])
def test_broken_export_fails_cleanly(case: str, target_engine: str, fresh_db: Any, tmp_path: Path) -> None:
    if target_engine in ("mysql", "mariadb") and case not in _SERVER_SUBSET:
        pytest.skip("the full corpus runs on SQLite and PostgreSQL; MySQL/MariaDB run the type-error subset")
    _, mutate, codes, names = next(c for c in BROKEN if c[0] == case)
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(ROWS - 1)})
    mutate(export)
    target = target_with(fresh_db, target_engine, ITEMS_DDL)
    r = cli("import", str(export), target.url, "--data-only", "-q", "--threads", "1")
    category = f"broken data files and manifests ({target_engine})"
    if target_engine == "sqlite" and case in SQLITE_HOLDS:
        # SQLite's INTEGER is 64-bit and it does not enforce varchar lengths (schema-load reports
        # that): the value loads as written, and verify (run by import) agrees with the file.
        assert r.returncode == 0, r.stderr
        assert target.query("SELECT COUNT(*) FROM items") == [(ROWS,)]
        record(category, 1, 0, 1, part=case)
        return
    assert_clean_failure(r, codes)
    err = r.stderr
    if "file" in names:
        assert names["file"] in err, err
    packet = target_engine in ("mysql", "mariadb") and "gone away" in err  # row > max_allowed_packet (see below)
    if "line" in names and not packet:
        assert f":{names['line']}" in err, err
    if "column" in names and not packet:
        # dbjson's own checks say "column x"; MySQL/MariaDB's refusal quotes it (`db`.`items`.`x`)
        assert f"column {names['column']}" in err or f"`{names['column']}`" in err, err
    if packet:  # MariaDB (max_allowed_packet 16 MB) drops the connection on the 50 MB row
        assert case == "oversized-line-50MB" and "table shop.items" in err, err
    if "value" in names:
        assert repr(names["value"]) in err, err
    if "words" in names:
        words = names["words"] if isinstance(names["words"], tuple) else (names["words"],)
        assert any(w in err for w in words), err
    assert len(err) < 20000  # the 50 MB value is not echoed
    # Nothing half-loaded: the only unit failed, so the table is empty. (A manifest that lies only
    # about the checksum: the file's rows load, and verify fails the import saying so, exit 7.)
    rows = target.query("SELECT COUNT(*) FROM items")
    assert rows == [(0,)] or (r.returncode == 7 and case == "manifest-checksum-lies" and rows == [(ROWS,)]), (
        case,
        rows,
    )
    record(category, 1, 1, 0, part=case)


SQLITE_HOLDS = {"int-out-of-range", "oversized-line-50MB"}
_SERVER_SUBSET = {
    "cut-mid-line",
    "malformed-json",
    "string-for-int",
    "int-out-of-range",
    "bad-base64",
    "bad-date",
    "oversized-line-50MB",
    "manifest-checksum-lies",
    "invalid-utf8",
}


def test_rejects_file_of_a_hostile_table_name_stays_inside(fresh_db: Any, tmp_path: Path) -> None:
    """--max-errors writes rejects/<safe name>.jsonl, never a path taken from the table name."""
    name = "../../escape"
    lines = _lines(item_rows(5))
    lines[2] = b"{broken"
    export = make_export(tmp_path / "out", database(ITEMS), {}, raw_lines={"items": lines})
    for doc in ("schema.json", "manifest.json"):  # rename the table, keep the (safe) data file name
        text = (export / doc).read_text()
        (export / doc).write_text(text.replace('"items"', json.dumps(name)))
    target = fresh_db("sqlite")
    target.execute(ITEMS_DDL["sqlite"].replace("CREATE TABLE items", f"CREATE TABLE {quote('sqlite', name)}"))
    before = files_under(tmp_path)
    r = cli("import", str(export), target.url, "--data-only", "-q", "--max-errors", "5")
    assert r.returncode == 0, r.stderr
    new = files_under(tmp_path) - before
    assert new and all(p.is_relative_to(export.resolve()) for p in new), sorted(new)
    rejects = list((export / "rejects").iterdir())
    assert len(rejects) == 1 and rejects[0].parent == export / "rejects"
    assert orjson.loads(rejects[0].read_bytes().splitlines()[0])["line"] == 3
    record("rejects file of a hostile table name", 1, 0, 1)


def test_base64_helper_sanity() -> None:
    """The bad-base64 case really is invalid base64 (else it would test nothing)."""
    with pytest.raises(ValueError):
        base64.b64decode("@@not base64@@", validate=True)
