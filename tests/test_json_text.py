"""Issue 15, class 9: a same-engine copy of JSON kept as text is byte for byte the source.

MariaDB keeps JSON as text (LONGTEXT with a JSON_VALID check), PostgreSQL ``json`` keeps its input
text, SQLite keeps what a column declared JSON holds as text. Up to data format 1.2 the export
wrote such a value nested with its whitespace removed, so MariaDB → MariaDB turned
``{"v": 2, "geo": ...}`` into ``{"v":2,"geo":...}`` (verify passed: it compares JSON by meaning).
Since 1.3 the export writes the JSON string of the exact text and lists the column in the
manifest's ``json_text``; a same-engine import writes that text, verify proves the copy by
checksum, and a cross-engine import parses the text into the target's JSON type (compared by
meaning, as before). A 1.2 export (every json value nested) still imports.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
import xxhash

import dbjson
from dbjson.connect import Target, parse_url
from dbjson.engines import detect_engine
from dbjson.export import export_database, export_table
from dbjson.format.checksum import Checksum
from dbjson.format.codec import RowEncoder
from dbjson.format.jsontext import compact_json, raw_values, semantic_line_py, wrap_json_text
from dbjson.format.manifest import read_manifest
from dbjson.importer import import_database
from dbjson.verify import verify

# whitespace of every kind, key order, duplicate keys, number spellings, escapes, the JSON
# document null and the row encoding's own escape key
DOCS = [
    '{"v": 2, "geo": {"lat": 1.50, "lon": 1E2}}',
    '{"b":1,  "a":2, "b":3}',
    " [1.50, 1E2, -0.0, 1e-7, 1234567890123456789] ",  # (MySQL keeps integers beyond 2^64 as doubles)
    '{\n\t"\\u00e9": "caf\\u00e9\\n", "s": "a\\/b", "é": "é"\r\n}',
    "null",
    '{"$json": 1}',
    '"text"',
    "{}",
]
CREATE = {
    "mariadb": "CREATE TABLE docs (id int PRIMARY KEY, body json)",
    "mysql": "CREATE TABLE docs (id int PRIMARY KEY, body json)",
    "postgresql": "CREATE TABLE docs (id int PRIMARY KEY, body json)",
    "sqlite": "CREATE TABLE docs (id integer PRIMARY KEY, body JSON)",
}
SELECT = {
    "mariadb": "SELECT body FROM docs ORDER BY id",
    "mysql": "SELECT body FROM docs ORDER BY id",
    "postgresql": "SELECT body::text FROM public.docs ORDER BY id",
    "sqlite": "SELECT body FROM docs ORDER BY id",
}


def _source(fresh_db: Any, engine: str) -> Any:
    db = fresh_db(engine)
    db.execute(CREATE[engine])
    conn = db.connect()
    try:
        mark = "?" if engine == "sqlite" else "%s"
        rows = [(i, d) for i, d in enumerate(DOCS, 1)] + [(len(DOCS) + 1, None)]
        if engine == "sqlite":
            conn.executemany(f"INSERT INTO docs VALUES ({mark}, {mark})", rows)
        else:
            cur = conn.cursor()
            cur.executemany(f"INSERT INTO docs VALUES ({mark}, {mark})", rows)
            cur.close()
    finally:
        conn.close()
    return db


def _texts(db: Any, engine: str) -> list[Any]:
    return [r[0] for r in db.query(SELECT[engine])]


@pytest.mark.parametrize("speedups", [True, False], ids=["c", "python"])
@pytest.mark.parametrize("engine", ["mariadb", "postgresql", "sqlite"])
def test_same_engine_copy_is_byte_exact(
    engine: str, speedups: bool, fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not speedups:
        monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")
    src = _source(fresh_db, engine)
    assert _texts(src, engine) == [*DOCS, None]
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    dst = fresh_db(engine)
    report = import_database(out, dst.url, threads=1)
    assert report.verify is not None and report.verify.ok, report.verify.problems
    assert _texts(dst, engine) == [*DOCS, None]  # byte for byte
    manifest = read_manifest(out)
    assert manifest.format_version == "1.4" and manifest.tables[0].json_text == ["body"]
    lines = sorted((out / "data").glob("*docs*"))[0].read_bytes().splitlines()
    assert [orjson.loads(raw_values(ln)["body"]) for ln in lines] == [*DOCS, None]  # the text, as a string
    check = verify(out, dst.url)
    assert check.ok and check.tables[0].mode == "checksum"  # proved by the manifest's checksum


def test_same_engine_migrate_is_byte_exact(fresh_db: Any) -> None:
    from dbjson.migrate import migrate

    src = _source(fresh_db, "mariadb")
    dst = fresh_db("mariadb")
    report = migrate(src.url, dst.url, threads=2)
    assert report.load.verify is not None and report.load.verify.ok
    assert _texts(dst, "mariadb") == [*DOCS, None]


@pytest.mark.parametrize(
    ("source", "target"),
    [("mariadb", "postgresql"), ("postgresql", "mariadb"), ("sqlite", "mysql"), ("mariadb", "mysql")],
)
def test_cross_engine_parses_the_text_and_verifies(source: str, target: str, fresh_db: Any, tmp_path: Path) -> None:
    src = _source(fresh_db, source)
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    dst = fresh_db(target)
    report = import_database(out, dst.url, threads=1)
    assert report.verify is not None and report.verify.ok, report.verify.problems
    got = _texts(dst, target)
    if target == "mariadb":  # JSON kept as text on the target too: the same text
        assert got == [*DOCS, None]
    else:  # parsed into binary JSON: the same documents (jsonb keeps the last of a repeated key)
        assert got[-1] is None and orjson.loads(got[1]) == {"a": 2, "b": 3} and orjson.loads(got[4]) is None
    assert verify(out, dst.url).ok


def _as_format_1_2(out: Path) -> None:
    """Rewrite an export as data format 1.2 wrote it: json values nested (whitespace removed,
    the {"$json": X} escape), no json_text, checksums of those lines."""
    doc = orjson.loads((out / "manifest.json").read_bytes())
    doc["format_version"] = "1.2"
    for t in doc["tables"]:
        texts = set(t.pop("json_text", []))
        total = Checksum()
        for f in t["files"]:
            path = out / f["path"]
            new = []
            for ln in path.read_bytes().splitlines():
                spans = raw_values(ln)
                parts = []
                for k, v in spans.items():
                    if k in texts and v != b"null":
                        v = wrap_json_text(compact_json(orjson.loads(v).encode().strip()))
                    parts.append(orjson.dumps(k) + b":" + v)
                new.append(b"{" + b",".join(parts) + b"}")
            data = b"".join(ln + b"\n" for ln in new)
            path.write_bytes(data)
            c = Checksum()
            c.add_lines(new)
            f.update(checksum=c.hexdigest(), bytes=len(data), xxh128=xxhash.xxh3_128_hexdigest(data))
            total.merge(c)
        t["checksum"] = total.hexdigest()
    (out / "manifest.json").write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))


@pytest.mark.parametrize("target", ["mariadb", "postgresql"])
def test_format_1_2_export_still_imports(target: str, fresh_db: Any, tmp_path: Path) -> None:
    src = _source(fresh_db, "mariadb")
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    _as_format_1_2(out)
    line = (out / "data" / f"{src.name}.docs.jsonl").read_bytes().splitlines()[0]
    assert b'"body":{"v":2,"geo":{"lat":1.50,"lon":1E2}}' in line
    dst = fresh_db(target)
    report = import_database(out, dst.url, threads=1)
    assert report.verify is not None and report.verify.ok, report.verify.problems
    got = _texts(dst, target)
    if target == "mariadb":  # what 1.2 carried: the compacted text
        assert got[0] == '{"v":2,"geo":{"lat":1.50,"lon":1E2}}' and got[4] == "null" and got[-1] is None
    assert verify(out, dst.url).ok


def test_stream_export_writes_json_nested(fresh_db: Any) -> None:
    """``export --table T -o -`` has no manifest to mark json_text: its lines stay nested."""
    import io

    src = _source(fresh_db, "mariadb")
    buf = io.BytesIO()
    export_table(src.url, "docs", buf)
    first = buf.getvalue().splitlines()[0]
    assert b'"body":{"v":2,"geo":{"lat":1.50,"lon":1E2}}' in first


def test_server_python_and_c_paths_write_identical_json_text(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MariaDB (JSON_QUOTE, _cmyexport K_STRING, the codec) and PostgreSQL json (to_json(::text),
    _cpgexport K_STRING, the codec): the same bytes for a json column written as text."""
    for engine in ("mariadb", "postgresql"):
        db = _source(fresh_db, engine)
        target = Target(parse_url(db.url))
        conn = target.connect_raw()
        eng: Any = detect_engine(target.family, conn)
        conn.close()
        outs = []
        for server, c in ((True, True), (True, False), (False, False)):
            monkeypatch.setattr(
                type(eng), "capabilities", dataclasses.replace(eng.capabilities, server_side_json=server)
            )
            if c:
                monkeypatch.delenv("DBJSON_NO_SPEEDUPS", raising=False)
            else:
                monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")
            d = tmp_path / f"{engine}{server}{c}"
            export_database(db.url, d, threads=1)
            outs.append(sorted((d / "data").glob("*docs*"))[0].read_bytes())
        monkeypatch.undo()
        assert outs[0] == outs[1] == outs[2], engine
        assert orjson.dumps(DOCS[3]) in outs[0]


def test_server_expression_equals_the_codec_per_column(fresh_db: Any) -> None:
    for engine in ("mariadb", "postgresql"):
        db = _source(fresh_db, engine)
        target = Target(parse_url(db.url))
        conn = target.connect_raw()
        try:
            eng: Any = detect_engine(target.family, conn)
            eng.export_session(conn)

            schema = dbjson.reflect(db.url).schemas[0]
            table = schema.table("docs")
            col = table.columns[1]
            assert eng.export_json_text(col)
            src = eng.export_qualify(schema.name, table)
            server = eng._fetch(conn, f"SELECT id, {eng.json_expression(col, True)} FROM {src} ORDER BY id")
            python = eng._fetch(conn, f"SELECT id, {eng.select_expression(col)} FROM {src} ORDER BY id")
            enc = RowEncoder([col], json_text={col.name})
            for (_, s), (_, p) in zip(server, python, strict=True):
                text = None if s is None else (s.decode() if isinstance(s, bytes) else str(s))
                want = None if p is None else enc.line([p])[len(b'{"body":') : -1].decode()
                assert text == want, (engine, text, want)
        finally:
            conn.close()


def test_analytics_read_json_text(fresh_db: Any, tmp_path: Path) -> None:
    from decimal import Decimal

    from dbjson.analytics import duckdb_sql, read_table

    src = _source(fresh_db, "mariadb")
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    rows = list(read_table(out, "docs"))
    assert rows[0]["body"] == {"v": 2, "geo": {"lat": Decimal("1.50"), "lon": Decimal("1E2")}}
    assert rows[4]["body"] is None and rows[-1]["body"] is None
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute(duckdb_sql(out))
    got = con.execute(f"SELECT body->>'$.v', json_type(body) FROM \"{src.name}\".docs ORDER BY id").fetchall()
    assert got[0] == ("2", "OBJECT") and got[4] == (None, "NULL") and got[-1] == (None, None)


@pytest.mark.parametrize(
    "line",
    [
        b'{"id":1,"body":"{\\"b\\": 1.50, \\"a\\":1E2, \\"b\\": 2}"}',
        b'{"id":2,"body":" null "}',
        b'{"id":3,"body":"{\\"$json\\": 1}"}',
        b'{"id":4,"body":null}',
        b'{"id":5,"body":"\\"\\\\u00e9\\""}',
        b'{"id":6,"body":"[\\n1 ,\\t{} ]"}',
    ],
)
def test_by_meaning_form_of_json_text_equals_nested(line: bytes) -> None:
    """The C semantic_line and its twin agree on json_texts, and give the form of the same
    document written nested (1.2, or a binary-JSON target's export)."""
    from dbjson import speedups

    j, t = (b"body",), (b"body",)
    text = orjson.loads(raw_values(line)["body"])
    nested = (
        line
        if text is None
        else line.replace(raw_values(line)["body"], wrap_json_text(compact_json(text.strip().encode())))
    )
    want = semantic_line_py(nested, j, ())
    assert semantic_line_py(line, j, (), t) == want
    fast = speedups.load("_cchecksum")
    if fast is not None and not os.environ.get("DBJSON_NO_SPEEDUPS"):
        assert fast.semantic_line(line, j, (), t) == want


def test_manifest_json_text_is_checked(fresh_db: Any, tmp_path: Path) -> None:
    """``json_text`` is hostile input like the rest of the manifest: it must name distinct columns
    of the table, and a value it marks must be a JSON string holding JSON."""
    from dbjson.errors import DataError, DocumentError

    src = _source(fresh_db, "sqlite")
    out = tmp_path / "export"
    export_database(src.url, out, threads=1)
    good = (out / "manifest.json").read_bytes()
    doc = orjson.loads(good)
    doc["tables"][0]["json_text"] = ["body", "nope"]
    (out / "manifest.json").write_bytes(orjson.dumps(doc))
    with pytest.raises(DocumentError, match="json_text"):
        import_database(out, fresh_db("sqlite").url)
    (out / "manifest.json").write_bytes(good)
    path = sorted((out / "data").glob("*docs*"))[0]
    path.write_bytes(path.read_bytes().replace(orjson.dumps(DOCS[0]), orjson.dumps('{"v": 2,')))
    doc = orjson.loads(good)
    f = doc["tables"][0]["files"][0]
    for key in ("xxh128", "checksum", "bytes"):  # a hand-made manifest may leave them out
        f.pop(key, None)
    doc["tables"][0].pop("checksum", None)
    (out / "manifest.json").write_bytes(orjson.dumps(doc))
    with pytest.raises(DataError, match="not JSON"):
        import_database(out, fresh_db("sqlite").url)
