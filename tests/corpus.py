"""The sample corpus (../shared/corpus, never committed here): which database loads on which engine,
and loading one into a new database (dropped afterwards) with the folder's own ``load`` script."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from chinook import load_chinook
from conftest import CORPUS, FreshDatabase, _mysql_connect, server_url

# database -> the engines it is native to (what its ``load`` script accepts)
NATIVE: dict[str, tuple[str, ...]] = {
    "chinook": ("mysql", "mariadb", "postgresql", "sqlite"),
    "adventureworks_pg": ("postgresql",),
    "gisia_pg": ("postgresql",),
    "lago_pg": ("postgresql",),
    "northwind_pg": ("postgresql",),
    "sharetribe_my": ("mariadb", "mysql"),
    "mywind_my": ("mariadb", "mysql"),
    "northwind_harryho": ("mysql", "mariadb", "sqlite"),
}
ENGINES = ("mysql", "mariadb", "postgresql", "sqlite")
# the load scripts' name for an engine
_SCRIPT_ENGINE = {"postgresql": "postgres", "mariadb": "mariadb", "mysql": "mysql", "sqlite": "sqlite"}


def sources() -> list[tuple[str, str]]:
    return [(db, engine) for db, engines in NATIVE.items() for engine in engines]


def require_corpus() -> Path:
    """The corpus folder; a missing one skips the test (fails with CI=true)."""
    if not (CORPUS / "README.md").is_file():
        msg = f"the sample corpus is not at {CORPUS} (set DBJSON_CORPUS or put it at ../shared/corpus)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return CORPUS


class _Dropped(FreshDatabase):
    def drop(self) -> None:
        """DROP DATABASE (no processlist scan: another test's query text there may not convert to utf8mb3)."""
        if self.engine in ("mysql", "mariadb"):
            conn = _mysql_connect(self.admin)
            try:
                with conn.cursor() as cur:
                    cur.execute("SET SESSION lock_wait_timeout = 120")
                    cur.execute(f"DROP DATABASE IF EXISTS `{self.name}`")
            finally:
                conn.close()
            return
        super().drop()


class CorpusDatabase(_Dropped):
    """A corpus database loaded into a new database (or SQLite file) named uniquely; ``drop()`` removes it."""

    def __init__(self, db: str, engine: str, tmp_path: Path) -> None:
        corpus = require_corpus()
        self.corpus_name = db
        if db == "chinook":
            super().__init__(engine, tmp_path)
            load_chinook(self)
            return
        self.engine = engine
        self.name = f"dbjson_cx_{db[:12]}_{uuid.uuid4().hex[:8]}"
        if engine == "sqlite":
            self.path = tmp_path / f"{self.name}.sqlite"
            self.url = f"sqlite:///{self.path}"
            target = str(self.path)
        else:
            from sqlalchemy.engine import make_url

            self.admin = server_url(engine)
            self.url = make_url(self.admin).set(database=self.name).render_as_string(hide_password=False)
            target = self.name
        if not shutil.which("psql" if engine == "postgresql" else "sqlite3" if engine == "sqlite" else "mariadb"):
            pytest.fail(f"the {engine} command-line client is needed to load the corpus")
        done = subprocess.run(
            ["bash", str(corpus / db / "load"), target, _SCRIPT_ENGINE[engine]],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            self.drop()
            pytest.fail(f"loading {db} on {engine} failed:\n{done.stderr[-4000:]}")


class TargetDatabase(_Dropped):
    """A uniquely named database that does not exist yet (``migrate --create`` makes it); ``drop()`` removes it."""

    def __init__(self, engine: str, tmp_path: Path) -> None:
        from sqlalchemy.engine import make_url

        self.engine = engine
        self.name = "dbjson_cxt_" + uuid.uuid4().hex[:10]
        if engine == "sqlite":
            self.path = tmp_path / f"{self.name}.sqlite"
            self.url = f"sqlite:///{self.path}"
            return
        self.admin = server_url(engine)
        self.url = make_url(self.admin).set(database=self.name).render_as_string(hide_password=False)
