"""Every corpus database (../shared/corpus: real databases written by other people) migrates from each
engine it is native to into every engine, with ``dbjson migrate SRC DST --threads 2 --create``:

- the command exits 0 and verify passes;
- on the same engine the schema is a fixpoint: ``dbjson diff SRC DST`` finds nothing (database
  defaults included);
- across engines an independent check (tests/corpus_check.py: the target's own catalog, read without
  dbjson) compares each table's columns, nullability, type classes, keys, foreign keys and indexes
  with the source document, and every difference it finds must be in the migration's loss report.

Each source database is loaded once per test session (its folder's ``load`` script) and dropped at
the end; every target is a new uniquely named database, dropped after its test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from corpus import ENGINES, CorpusDatabase, TargetDatabase, sources
from corpus_check import catalog, unreported
from typer.testing import CliRunner

from dbjson.cli import app

# Failures caused by a class of issue 15 that another branch fixes: (database, source engine, target
# engine) -> the class. Strict: a case that starts passing fails here, so the entry is removed then.
EXPECTED_FAILURES: dict[tuple[str, str, str], str] = {}  # (db, source, target) → the class that still fails

# Pairs whose migration must stop at the pre-flight, naming the value (the policy, not a failure):
# SQLite holds date text that is no date ('2007-08-04- 00:00:00.000'); another engine would refuse
# or change it, so the run stops before any row loads (docs/unseen-migrations.md).
EXPECTED_REFUSALS: dict[tuple[str, str, str], str] = {
    ("northwind_harryho", "sqlite", "mysql"): "column requiredDate: pre-flight",
    ("northwind_harryho", "sqlite", "mariadb"): "column requiredDate: pre-flight",
    ("northwind_harryho", "sqlite", "postgresql"): "column requiredDate: pre-flight",
}

# Intermittent failures of another branch's class (not strict: the case passes in some runs).
FLAKY: dict[tuple[str, str, str], str] = {}


def _cases() -> list[Any]:
    out = []
    for db, src in sources():
        for dst in ENGINES:
            reason = EXPECTED_FAILURES.get((db, src, dst))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            if (db, src, dst) in FLAKY:
                marks = [pytest.mark.xfail(strict=False, reason=FLAKY[(db, src, dst)])]
            out.append(pytest.param(db, src, dst, marks=marks, id=f"{db}-{src}-to-{dst}"))
    return out


@pytest.fixture(scope="session")
def corpus_source(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str, str], CorpusDatabase]]:
    """``corpus_source(db, engine)``: the corpus database loaded on ``engine``, once per session."""
    made: dict[tuple[str, str], CorpusDatabase] = {}

    def get(db: str, engine: str) -> CorpusDatabase:
        if (db, engine) not in made:
            made[(db, engine)] = CorpusDatabase(db, engine, tmp_path_factory.mktemp("corpus"))
        return made[(db, engine)]

    yield get
    for loaded in made.values():
        try:
            loaded.drop()
        except Exception:  # noqa: BLE001 - the server went away: nothing left to drop
            pass


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(("db", "src_engine", "dst_engine"), _cases())
def test_corpus_migrates(
    corpus_source: Callable[[str, str], CorpusDatabase], tmp_path: Path, db: str, src_engine: str, dst_engine: str
) -> None:
    src = corpus_source(db, src_engine)
    dst = TargetDatabase(dst_engine, tmp_path)
    keep = tmp_path / "keep"
    try:
        code, out, err = _cli("migrate", src.url, dst.url, "--threads", "2", "--create", "--json", "--keep", str(keep))
        refusal = EXPECTED_REFUSALS.get((db, src_engine, dst_engine))
        if refusal is not None:  # stopped by the pre-flight, with the table, column and value named
            assert code == 6 and refusal in err and ".jsonl:" in err, (code, err[-3000:])
            return
        assert code == 0, err[-3000:]
        report = orjson.loads(out)
        assert report["ok"] is True and report["verify"]["ok"] is True, report["verify"]
        if dst_engine == src_engine:
            code, out, err = _cli("diff", src.url, dst.url, "--json")
            changes = orjson.loads(out)["changes"] if out else err
            assert code == 0, f"the same-engine copy differs from its source: {changes}"
            return
        doc = orjson.loads((keep / "schema.json").read_bytes())
        conn = dst.connect()
        try:
            cat = catalog(dst_engine, conn, dst.name)
        finally:
            conn.close()
        missing = unreported(doc, report, cat)
        assert not missing, f"{len(missing)} difference(s) not in the loss report:\n" + "\n".join(
            map(str, missing[:40])
        )
    finally:
        dst.drop()


def test_the_check_finds_what_the_report_does_not_mention(tmp_path: Path) -> None:
    """The independent check itself: a target lacking an index and a NOT NULL, against a report that
    mentions only the index, leaves the NOT NULL as unreported (the corpus test can fail)."""
    import sqlite3

    import dbjson

    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    for path, ddl in (
        (
            src,
            "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT NOT NULL, "
            "p INTEGER REFERENCES p (id)); CREATE INDEX t_a ON t (a);",
        ),
        (dst, "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, p INTEGER);"),
    ):
        conn = sqlite3.connect(path)
        conn.executescript(ddl)
        conn.close()
    doc = dbjson.reflect(f"sqlite:///{src}").to_dict()
    t = next(i for i, table in enumerate(doc["schemas"][0]["tables"]) if table["name"] == "t")
    conn = sqlite3.connect(dst)
    cat = catalog("sqlite", conn)
    conn.close()
    tables = {"main.p": {"target": "p"}, "main.t": {"target": "t"}}
    report = {"tables": tables, "translation": [f"/schemas/0/tables/{t}/indexes/0: index dropped [rule]"]}
    assert [d.path for d in unreported(doc, report, cat)] == [
        f"/schemas/0/tables/{t}/columns/1/nullable",
        f"/schemas/0/tables/{t}/foreign_keys/0",
    ]
    report["translation"] += [f"/schemas/0/tables/{t}: everything [rule]"]
    assert unreported(doc, report, cat) == []
