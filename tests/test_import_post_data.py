"""Post-data DDL on MySQL/MariaDB: the indexes of one table are built by one ALTER TABLE (one scan
of the table instead of one per index, and no wait for each other's metadata lock); FULLTEXT
indexes, statements that may be skipped and foreign keys stay separate statements."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dbjson.ddl.plan import Statement
from dbjson.engines import get_engine
from dbjson.export import export_database
from dbjson.importer import import_database


def test_index_statements_merged_per_table() -> None:
    engine = get_engine("mysql", "9.0")
    sts = [
        Statement("CREATE INDEX `a` ON `t` (`x`)", "index", "a", "`t`"),
        Statement("CREATE UNIQUE INDEX `b``q` ON `t` (`y`(10), `z` DESC) COMMENT 'c'", "unique", "b", "`t`"),
        Statement("CREATE FULLTEXT INDEX `f` ON `t` (`x`)", "index", "f", "`t`"),
        Statement("CREATE INDEX `o` ON `t` ((`x` + 1))", "index", "o", "`t`", optional=True),
        Statement("CREATE INDEX `c` ON `u` (`x`)", "index", "c", "`u`"),
        Statement(
            "ALTER TABLE `t` ADD CONSTRAINT `fk` FOREIGN KEY (`x`) REFERENCES `u` (`x`)", "foreign_key", "fk", "`t`"
        ),
    ]
    out = engine.load_merge_indexes(sts)
    assert [st.sql for st in out] == [
        "ALTER TABLE `t` ADD INDEX `a` (`x`), ADD UNIQUE INDEX `b``q` (`y`(10), `z` DESC) COMMENT 'c'",
        "CREATE FULLTEXT INDEX `f` ON `t` (`x`)",
        "CREATE INDEX `o` ON `t` ((`x` + 1))",
        "CREATE INDEX `c` ON `u` (`x`)",
        "ALTER TABLE `t` ADD CONSTRAINT `fk` FOREIGN KEY (`x`) REFERENCES `u` (`x`)",
    ]
    pg = get_engine("postgresql", "15")
    assert pg.load_merge_indexes(sts) == sts  # the default: one statement per index


@pytest.mark.parametrize("engine_name", ["mysql", "mariadb"])
def test_merged_indexes_are_all_created(fresh_db: Any, tmp_path: Path, engine_name: str) -> None:
    src = fresh_db(engine_name)
    src.execute(
        "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(20), c INT, "
        "KEY t_a (a), UNIQUE KEY t_b (b), KEY t_ac (a, c) COMMENT 'two');\n"
        "INSERT INTO t VALUES (1, 1, 'x', 3), (2, 1, 'y', 4);"
    )
    export_database(src.url, tmp_path / "out")
    dst = fresh_db(engine_name)
    report = import_database(tmp_path / "out", dst.url, threads=2)
    assert report.verify is not None and report.verify.ok
    rows = dst.query(
        "SELECT index_name, non_unique, index_comment FROM information_schema.statistics "
        f"WHERE table_schema = '{dst.name}' AND table_name = 't' AND seq_in_index = 1 ORDER BY index_name"
    )
    assert [tuple(r) for r in rows] == [("PRIMARY", 0, ""), ("t_a", 1, ""), ("t_ac", 1, "two"), ("t_b", 0, "")]
