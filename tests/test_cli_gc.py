"""The console script turns the cyclic collector off for its start-up and back on for the
command's work (dbjson.cli.common.main / run); library calls and CliRunner leave it alone."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from dbjson.cli import app, common


def test_main_gives_the_collector_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["dbjson", "--version"])
    assert gc.isenabled()
    try:
        with pytest.raises(SystemExit):
            common.main()
        assert gc.isenabled() and not common._startup_gc
    finally:
        gc.unfreeze()  # main() froze this test process's objects


def test_collector_on_during_the_command(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """In a real process: off while the command's modules load, on when the library runs."""
    code = (
        "import gc, sys\n"
        "import dbjson.cli.common as c\n"
        "orig = c.run\n"
        "def run(fn):\n"
        "    print('before', gc.isenabled(), file=sys.stderr)\n"
        "    return orig(lambda: print('during', gc.isenabled(), file=sys.stderr) or fn())\n"
        "c.run = run\n"
        "import dbjson.cli.schema_dump as s\n"
        "s.run = run\n"
        "sys.argv = ['dbjson', 'schema-dump', 'sqlite:///' + sys.argv[1]]\n"
        "c.main()\n"
    )
    db = tmp_path / "t.db"
    import sqlite3

    sqlite3.connect(db).execute("CREATE TABLE t (id INTEGER PRIMARY KEY)").connection.commit()
    p = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "before False" in p.stderr and "during True" in p.stderr


def test_cli_runner_leaves_the_collector_alone() -> None:
    assert gc.isenabled()
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and gc.isenabled() and gc.get_freeze_count() == 0
