"""Regressions found by migrating a sample database dbjson had never seen (Sakila, issue 7 acceptance;
docs/unseen-migrations.md). Each test rebuilds the feature on a small synthetic schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from dbjson.errors import DataError
from dbjson.export import export_database
from dbjson.migrate import migrate


def _verified(report: Any) -> None:
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems


# -- 1. MySQL SET into SQLite (set-json): stored as a JSON array, exported back as one ------------------

SET_TABLE = """
CREATE TABLE film (
  film_id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  special_features SET('Trailers','Commentaries','Deleted Scenes','Behind the Scenes') DEFAULT NULL
);
INSERT INTO film (special_features) VALUES ('Deleted Scenes,Behind the Scenes'), ('Trailers'), (''), (NULL);
"""


@pytest.mark.parametrize("source_engine", ["mysql", "mariadb"])
def test_set_into_sqlite_is_a_json_array_and_migrates_onward(fresh_db: Any, tmp_path: Path, source_engine: str) -> None:
    src = fresh_db(source_engine)
    src.execute(SET_TABLE)
    lite = fresh_db("sqlite")
    _verified(migrate(src.url, lite.url, threads=2, state_dir=tmp_path / "s1"))
    stored = [r[0] for r in lite.query("SELECT special_features FROM film ORDER BY film_id")]
    # the column is JSON in SQLite (the set-json rule): each value is a JSON array, not MySQL's "a,b" text
    assert [None if v is None else orjson.loads(v) for v in stored] == [
        ["Deleted Scenes", "Behind the Scenes"], ["Trailers"], [], None]
    # ... so the SQLite copy exports valid lines and migrates onward (it failed: "malformed JSON line")
    back = fresh_db("postgresql")
    _verified(migrate(lite.url, back.url, threads=2, state_dir=tmp_path / "s2"))
    assert back.query("SELECT special_features::text FROM film ORDER BY film_id")[0][0] == \
        '["Deleted Scenes", "Behind the Scenes"]'


def test_sqlite_export_refuses_text_that_is_not_json_in_a_json_column(fresh_db: Any, tmp_path: Path) -> None:
    lite = fresh_db("sqlite")
    lite.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, j JSON);"
                 "INSERT INTO t VALUES (1, '[1, 2]'), (2, 'Deleted Scenes,Behind the Scenes');")
    with pytest.raises(DataError) as e:
        export_database(lite.url, tmp_path / "out", threads=1)
    # an error naming the table and column, not a malformed line ("DeletedScenes,BehindtheScenes")
    assert e.value.column == "j" and e.value.table == "t"
    assert "not JSON" in str(e.value)
    for f in (tmp_path / "out").rglob("*.jsonl"):
        for line in f.read_bytes().splitlines():
            orjson.loads(line)
