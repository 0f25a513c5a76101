"""SQLite untyped columns keep each value's storage class (issue 15: nothing changes silently).

A column without a declared type (or ``ANY`` in a STRICT table, or one reflected untyped because it holds
values of several storage classes) holds integers, reals, text and blobs side by side. The export wrote
them all as text, so SQLite -> SQLite turned ``1`` into ``'1'`` (``typeof()`` integer -> text) and verify
did not see it. Data format 1.4 writes numbers as JSON numbers and blobs as ``{"$blob": base64}``; the
SQLite loader binds int/float/str/bytes; verify compares the storage class; other engines get the text."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from dbjson.export import export_database
from dbjson.format.codec import decode_value, encode_value
from dbjson.format.encoders import StoredBlob
from dbjson.importer import import_database
from dbjson.migrate import migrate
from dbjson.model import Type
from dbjson.verify import verify

UNTYPED = """
CREATE TABLE u (id INTEGER PRIMARY KEY, v, w INTEGER);
INSERT INTO u VALUES (1, 1, 1);
INSERT INTO u VALUES (2, 1.0, 'n/a');
INSERT INTO u VALUES (3, 1e300, 2);
INSERT INTO u VALUES (4, -0.0, 3);
INSERT INTO u VALUES (5, '1', 4);
INSERT INTO u VALUES (6, '01', 5);
INSERT INTO u VALUES (7, '1.0', 6);
INSERT INTO u VALUES (8, x'00ff10', 7);
INSERT INTO u VALUES (9, NULL, NULL);
INSERT INTO u VALUES (10, -9223372036854775808, 8);
INSERT INTO u VALUES (11, 'text', 9);
INSERT INTO u VALUES (12, x'6162', 10);
"""
STRICT_ANY = """
CREATE TABLE a (id INTEGER PRIMARY KEY, v ANY) STRICT;
INSERT INTO a VALUES (1, 7), (2, 2.5), (3, '7'), (4, x'07'), (5, NULL);
"""
CLASSES = "SELECT id, typeof(v), quote(v), typeof(w), quote(w) FROM u ORDER BY id"
ANY_CLASSES = "SELECT id, typeof(v), quote(v) FROM a ORDER BY id"


def _verified(report: Any) -> None:
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems


def _source(fresh_db: Any) -> Any:
    src = fresh_db("sqlite")
    src.execute(UNTYPED)
    src.execute(STRICT_ANY)
    return src


def test_codec_keeps_storage_classes() -> None:
    t = Type(kind="opaque")
    for v in (1, -(2**63), 1.0, 1e300, -0.0, float("inf"), "1", "01", "1.0", StoredBlob(b"\x00\xff"), "text"):
        enc = encode_value(t, v)
        back = decode_value(t, orjson.loads(orjson.dumps(enc)))
        want = bytes if type(v) is StoredBlob else type(v)
        assert type(back) is want and (back == v or str(back) == str(v)), (v, enc, back)
    assert orjson.dumps(encode_value(t, StoredBlob(b"\x00\xff"))) == b'{"$blob":"AP8="}'
    assert encode_value(t, b"ab") == "ab"  # other engines' opaque bytes: their text, as before
    assert orjson.dumps(encode_value(t, -0.0)) == b"-0.0"
    assert decode_value(t, "x") == "x"  # a format 1.3 export: every untyped value is text


def test_sqlite_to_sqlite_migrate_keeps_typeof(fresh_db: Any, tmp_path: Path) -> None:
    src = _source(fresh_db)
    dst = fresh_db("sqlite")
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / "m")
    _verified(report)
    assert dst.query(CLASSES) == src.query(CLASSES)
    assert dst.query(ANY_CLASSES) == src.query(ANY_CLASSES)
    assert all(t.mode == "checksum" for t in report.load.verify.tables)  # byte-exact


def test_sqlite_export_import_keeps_typeof_and_verify_sees_a_changed_class(fresh_db: Any, tmp_path: Path) -> None:
    src = _source(fresh_db)
    out = tmp_path / "export"
    export_database(src.url, out)
    lines = b"".join(p.read_bytes() for p in out.rglob("*.jsonl*") if p.suffix == ".jsonl")
    assert b'"v":1,' in lines and b'"v":"1",' in lines and b'"v":{"$blob":"AP8Q"}' in lines
    dst = fresh_db("sqlite")
    report = import_database(out, dst.url)
    assert report.verify.ok, report.verify.problems
    assert dst.query(CLASSES) == src.query(CLASSES)
    assert dst.query(ANY_CLASSES) == src.query(ANY_CLASSES)
    assert verify(out, dst.url).ok
    # one value's storage class changed, its text the same: verify fails
    path = dst.url.split("///", 1)[-1].split("?", 1)[0]
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE u SET v = CAST(v AS TEXT) WHERE id = 1")
    assert dst.query("SELECT typeof(v), v FROM u WHERE id = 1") == [("text", "1")]
    again = verify(out, dst.url)
    assert not again.ok and any("u" in p for p in again.problems), again.problems
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE u SET v = 1 WHERE id = 1")
        conn.execute("UPDATE a SET v = CAST(v AS REAL) WHERE id = 1")
    assert not verify(out, dst.url).ok


@pytest.mark.parametrize("target", ["postgresql", "mysql"])
def test_sqlite_untyped_values_reach_other_engines_as_text(fresh_db: Any, tmp_path: Path, target: str) -> None:
    src = fresh_db("sqlite")
    src.execute(UNTYPED.replace("x'00ff10'", "x'6364'"))  # other engines hold text: UTF-8 blobs only
    dst = fresh_db(target)
    report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / target)
    _verified(report)
    got = [tuple(None if x is None else str(x) for x in r) for r in dst.query("SELECT v, w FROM u ORDER BY id")]
    assert got == [
        ("1", "1"),
        ("1.0", "n/a"),
        ("1e+300", "2"),
        ("-0.0", "3"),
        ("1", "4"),
        ("01", "5"),
        ("1.0", "6"),
        ("cd", "7"),
        (None, None),
        ("-9223372036854775808", "8"),
        ("text", "9"),
        ("ab", "10"),
    ]
