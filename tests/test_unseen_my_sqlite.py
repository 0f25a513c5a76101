"""Failure classes found by migrating real MySQL, MariaDB and SQLite databases that are not in the corpus
(WordPress, MediaWiki, a Firefox places.sqlite, Django and Rails SQLite schemas; docs/unseen-migrations.md,
"Databases outside the corpus: MySQL, MariaDB, SQLite"). Each test rebuilds the idiom on a small schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dbjson.migrate import migrate
from dbjson.reflect import reflect


def _verified(report: Any) -> None:
    assert report.load.verify is not None and report.load.verify.ok, report.load.verify.problems


# -- 1. BINARY/VARBINARY defaults that are not text (MediaWiki: ``bp_token BINARY(32) DEFAULT '' NOT NULL``) --------
# MySQL pads '' to 32 NUL bytes. Reflection read the bytes with DEFAULT(col) over an outer-joined row, which is
# NULL for a NOT NULL column: MySQL then fell back to information_schema's '0x' (a different default), MariaDB to
# the NUL text, which PostgreSQL ("unterminated quoted string") and SQLite ("null character") refused, stopping
# the schema load; a 0x… default was dropped (expression-guard), so inserts without the column failed.

BINARY_DEFAULTS = """
CREATE TABLE bot_passwords (
  bp_user INT UNSIGNED NOT NULL PRIMARY KEY,
  bp_token BINARY(4) DEFAULT '' NOT NULL,
  bp_flag VARBINARY(2) NOT NULL DEFAULT 0xFF00,
  bp_opt VARBINARY(2) DEFAULT 0x00FF,
  bp_text VARBINARY(8) NOT NULL DEFAULT 'ab'
)
"""


@pytest.mark.parametrize("source_engine", ["mysql", "mariadb"])
def test_binary_defaults_keep_their_bytes_on_every_engine(fresh_db: Any, tmp_path: Path, source_engine: str) -> None:
    src = fresh_db(source_engine)
    src.execute(BINARY_DEFAULTS)  # no rows: the defaults must come from the catalog alone
    defaults = {c.name: c.default for c in reflect(src.url).schemas[0].tables[0].columns}
    assert defaults["bp_token"] is not None and defaults["bp_token"].value.upper() == "0X00000000"
    assert defaults["bp_flag"] is not None and defaults["bp_flag"].value.upper() == "0XFF00"
    assert defaults["bp_opt"] is not None and defaults["bp_opt"].value.upper() == "0X00FF"
    for target in ("postgresql", "sqlite", "mysql" if source_engine == "mariadb" else "mariadb"):
        dst = fresh_db(target)
        report = migrate(src.url, dst.url, threads=2, state_dir=tmp_path / target)
        _verified(report)
        assert not [t for t in report.translation if "/default" in str(t)], report.translation
        dst.execute("INSERT INTO bot_passwords (bp_user) VALUES (7)")
        row = dst.query("SELECT bp_token, bp_flag, bp_opt, bp_text FROM bot_passwords WHERE bp_user = 7")[0]
        assert [bytes(v) for v in row] == [b"\0\0\0\0", b"\xff\0", b"\0\xff", b"ab"], (target, row)
