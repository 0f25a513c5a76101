"""An import killed with ``kill -9`` leaves no orphan: its encoder worker processes (forked for
large imports) end with it (Linux parent-death signal), instead of waiting forever on their pipe."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_import import ITEMS, ITEMS_DDL, database, item_rows, make_export, target_with

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal is Linux's")


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is dead too
        return f.read().split(")")[-1].split()[0] != "Z"


def test_kill_9_takes_the_encoder_processes_along(fresh_db: Any, tmp_path: Path) -> None:
    export = make_export(tmp_path / "out", database(ITEMS), {"items": item_rows(60_000)})
    target = target_with(fresh_db, "postgresql", ITEMS_DDL)
    env = {**os.environ, "DBJSON_NO_SPEEDUPS": "1"}  # the Python encoders keep the workers busy longer
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dbjson",
            "import",
            str(export),
            target.url,
            "--data-only",
            "--threads",
            "2",
            "-q",
            "--no-verify",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        kids: list[int] = []
        while time.monotonic() < deadline and proc.poll() is None:
            kids = _children(proc.pid)
            if len(kids) >= 2:
                break
            time.sleep(0.05)
        if proc.poll() is not None:
            pytest.fail("the import ended before its worker processes could be seen")
        assert len(kids) >= 2, "no encoder worker processes were started"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.1)
        assert not [k for k in kids if _alive(k)], "orphaned encoder processes after kill -9"
    finally:
        if proc.poll() is None:
            proc.kill()
