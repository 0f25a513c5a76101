"""JSON text fidelity: engines that store JSON as text (MariaDB, SQLite, PostgreSQL ``json``) get
the exact text of the export (``1.50``, ``\\u00e9`` escapes, integers beyond 2^64), not a
re-serialization; binary JSON (MySQL JSON, jsonb) normalises, as documented. Since data format
1.3 the export of such a column is the JSON string of the source's exact text (whitespace, key
order and duplicate keys included), so a same-engine copy is byte for byte the source."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from dbjson.export import export_database
from dbjson.importer import import_database
from dbjson.verify import verify

DOC = r'{"a":1.50,"b":"\u00e9","c":123456789012345678901234567890,"d":[1E2,-0.0,"x\"y"],"e":{"z":1,"a":2}}'
CREATE = {
    "mariadb": "CREATE TABLE docs (id int PRIMARY KEY, body json)",
    "sqlite": "CREATE TABLE docs (id integer PRIMARY KEY, body JSON)",
    "postgresql": "CREATE TABLE docs (id int PRIMARY KEY, body json)",
}
READ = {
    "mariadb": "SELECT body FROM docs ORDER BY id",
    "sqlite": "SELECT body FROM docs ORDER BY id",
    "postgresql": "SELECT body::text FROM public.docs ORDER BY id",
}


def _source(fresh_db: Any, engine: str) -> Any:
    src = fresh_db(engine)
    src.execute(CREATE[engine])
    doc = DOC.replace("\\", "\\\\") if engine == "mariadb" else DOC  # MySQL string literals unescape backslashes
    src.execute(f"INSERT INTO docs VALUES (1, '{doc}')")
    src.execute("INSERT INTO docs VALUES (2, NULL)")
    return src


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("mariadb", "mariadb"),
        ("sqlite", "sqlite"),
        ("postgresql", "postgresql"),
        ("mariadb", "sqlite"),
        ("sqlite", "mariadb"),
    ],
)
def test_text_stored_json_keeps_the_exact_text(source: str, target: str, fresh_db: Any, tmp_path: Path) -> None:
    src = _source(fresh_db, source)
    assert [r[0] for r in src.query(READ[source])][0] == DOC
    out = tmp_path / "export"
    export_database(src.url, out)
    line = next((out / "data").glob("*docs*")).read_bytes().splitlines()[0]
    assert orjson.dumps(DOC) in line  # the export keeps the text, as a JSON string (format 1.3)
    dst = fresh_db(target)
    report = import_database(out, dst.url)
    assert report.verify.ok, report.verify.problems
    assert [r[0] for r in dst.query(READ[target])] == [DOC, None]
    assert verify(out, dst.url).ok


def test_binary_json_targets_normalise(fresh_db: Any, tmp_path: Path) -> None:
    """jsonb cannot keep the text (nor -0.0): the values load by meaning and verify by meaning."""
    src = _source(fresh_db, "mariadb")
    out = tmp_path / "export"
    export_database(src.url, out)
    dst = fresh_db("postgresql")
    report = import_database(out, dst.url)
    assert report.verify.ok and report.verify.tables[0].mode == "checksum-semantic", report.verify.problems
    text = dst.query("SELECT body::text FROM public.docs WHERE id = 1")[0][0]
    assert '"b": "é"' in text and "123456789012345678901234567890" in text


# -- the JSON document null and SQL NULL (format 1.1) ---------------------------------------------

NULLS = {
    "mysql": (
        "CREATE TABLE j (id int PRIMARY KEY, doc json)",
        "INSERT INTO j VALUES (1, 'null'), (2, NULL), (3, '{\"$json\": 5}'), (4, '{\"$json\": null}'), "
        "(5, '[null]'), (6, '{\"$json\": 1, \"b\": 2}')",
    ),
    "postgresql": (
        "CREATE TABLE j (id int PRIMARY KEY, doc jsonb, txt json)",
        "INSERT INTO j VALUES (1, 'null', 'null'), (2, NULL, NULL), (3, '{\"$json\": 5}', '{\"$json\": 5}'), "
        "(4, '{\"$json\": null}', '{\"$json\": null}'), (5, '[null]', '[null]'), "
        '(6, \'{"$json": 1, "b": 2}\', \'{"$json": 1, "b": 2}\')',
    ),
    "sqlite": (
        "CREATE TABLE j (id integer PRIMARY KEY, doc JSON)",
        "INSERT INTO j VALUES (1, 'null'), (2, NULL), (3, '{\"$json\":5}'), (4, '{\"$json\":null}'), "
        "(5, '[null]'), (6, '{\"$json\":1,\"b\":2}')",
    ),
}
NULLS["mariadb"] = NULLS["mysql"]
EXPECTED_LINES = [
    b'{"$json":null}',
    b"null",
    b'{"$json":{"$json":5}}',
    b'{"$json":{"$json":null}}',
    b"[null]",
    b'{"$json":1,"b":2}',
]


def _json_texts(db: Any, engine: str, columns: list[str]) -> list[tuple[Any, ...]]:
    table = "public.j" if engine == "postgresql" else "j"
    cols = ", ".join(f"{c}::text" if engine == "postgresql" else c for c in columns)
    rows = db.query(f"SELECT {cols} FROM {table} ORDER BY id")
    norm = lambda v: None if v is None else v.replace(" ", "")  # noqa: E731 - engines space JSON differently
    return [tuple(norm(v) for v in r) for r in rows]


@pytest.mark.parametrize("source", ["mysql", "mariadb", "postgresql", "sqlite"])
@pytest.mark.parametrize("target", ["mysql", "mariadb", "postgresql", "sqlite"])
def test_json_null_and_sql_null_round_trip(source: str, target: str, fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.format.jsontext import compact_json, raw_values, wrap_json_text
    from dbjson.format.manifest import read_manifest

    src = fresh_db(source)
    for stmt in NULLS[source]:
        src.execute(stmt)
    cols = ["doc", "txt"] if source == "postgresql" else ["doc"]
    out = tmp_path / "export"
    export_database(src.url, out)
    lines = sorted(
        next((out / "data").glob("*j.*")).read_bytes().splitlines(), key=lambda ln: orjson.loads(raw_values(ln)["id"])
    )
    texts = set(read_manifest(out).tables[0].json_text or ())
    assert texts == ({"txt"} if source == "postgresql" else set() if source == "mysql" else {"doc"})
    for col in cols:
        values = [raw_values(ln)[col] for ln in lines]
        if col in texts:  # the JSON string of the text (format 1.3): no escape needed, "null" is not SQL NULL
            assert values[1] == b"null"
            values = [v if v == b"null" else wrap_json_text(compact_json(orjson.loads(v).encode())) for v in values]
        assert values[:5] == EXPECTED_LINES[:5]
        assert orjson.loads(values[5]) == orjson.loads(EXPECTED_LINES[5])  # key order: the engine's
    dst = fresh_db(target)
    report = import_database(out, dst.url)
    assert report.verify.ok, report.verify.problems
    got = _json_texts(dst, target, cols)
    want = [("null",), (None,), ('{"$json":5}',), ('{"$json":null}',), ("[null]",)]
    assert got[:5] == [w * len(cols) for w in want]
    assert all(orjson.loads(v) == {"$json": 1, "b": 2} for v in got[5])
    assert verify(out, dst.url).ok


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (b"null", b'{"$json":null}'),
        (b'{"$json":5}', b'{"$json":{"$json":5}}'),
        (b'{"$json":null}', b'{"$json":{"$json":null}}'),
        (b'{"$json":1,"b":2}', b'{"$json":1,"b":2}'),
        (b"[null]", b"[null]"),
        (b'"null"', b'"null"'),
        (b"{}", b"{}"),
        (b'{"a":{"$json":1}}', b'{"a":{"$json":1}}'),
    ],
)
def test_json_escape_is_reversible(text: bytes, line: bytes) -> None:
    from dbjson.format.codec import RowDecoder, RowEncoder
    from dbjson.format.jsontext import unwrap_json, unwrap_json_text, wrap_json_text
    from dbjson.model import Column, NativeType, Type

    assert wrap_json_text(text) == line
    assert unwrap_json_text(line) == text
    assert unwrap_json(orjson.loads(line)) == orjson.loads(text)
    column = Column(name="c", ordinal=1, type=Type(kind="json"), native=NativeType(engine="mysql", raw="json"))
    encoded = RowEncoder([column]).line([text.decode()])
    assert encoded == b'{"c":' + line + b"}"
    assert RowDecoder([column]).decode(encoded) == [text.decode()]
    assert RowDecoder([column]).decode(b'{"c":null}') == [None]  # SQL NULL
