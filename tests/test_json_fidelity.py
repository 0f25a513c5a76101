"""JSON text fidelity: engines that store JSON as text (MariaDB, SQLite, PostgreSQL ``json``) get
the exact text of the export (``1.50``, ``\\u00e9`` escapes, integers beyond 2^64), not a
re-serialization; binary JSON (MySQL JSON, jsonb) normalises, as documented."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
READ = {"mariadb": "SELECT body FROM docs ORDER BY id", "sqlite": "SELECT body FROM docs ORDER BY id",
        "postgresql": "SELECT body::text FROM public.docs ORDER BY id"}


def _source(fresh_db: Any, engine: str) -> Any:
    src = fresh_db(engine)
    src.execute(CREATE[engine])
    doc = DOC.replace("\\", "\\\\") if engine == "mariadb" else DOC  # MySQL string literals unescape backslashes
    src.execute(f"INSERT INTO docs VALUES (1, '{doc}')")
    src.execute("INSERT INTO docs VALUES (2, NULL)")
    return src


@pytest.mark.parametrize(("source", "target"), [("mariadb", "mariadb"), ("sqlite", "sqlite"),
                                                ("postgresql", "postgresql"), ("mariadb", "sqlite"),
                                                ("sqlite", "mariadb")])
def test_text_stored_json_keeps_the_exact_text(source: str, target: str, fresh_db: Any, tmp_path: Path) -> None:
    src = _source(fresh_db, source)
    assert [r[0] for r in src.query(READ[source])][0] == DOC
    out = tmp_path / "export"
    export_database(src.url, out)
    line = next((out / "data").glob("*docs*")).read_bytes().splitlines()[0]
    assert DOC.encode() in line  # the export keeps the text
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
