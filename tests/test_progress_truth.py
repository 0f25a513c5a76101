"""Progress that tells the truth (issue 17): import and migrate count rows per table (not MB
labelled rows), verify has its own progress, and the summary's time includes every phase."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_cli_polish import on_terminal

import dbjson.importer.reader as reader
from dbjson import events, export_database, import_database, verify

ROWS = 12_000


@pytest.fixture
def export_dir(tmp_path: Path) -> Path:
    path = tmp_path / "src.db"
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE big (id INTEGER PRIMARY KEY, v TEXT);"
        "CREATE TABLE small (id INTEGER PRIMARY KEY, w TEXT);"
        f"WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {ROWS}) "
        "INSERT INTO big SELECT g, printf('value %d', g) FROM s;"
        "INSERT INTO small VALUES (1, 'a'), (2, 'b');"
    )
    con.commit()
    con.close()
    export_database(f"sqlite:///{path}", tmp_path / "out", threads=1)
    return tmp_path / "out"


def test_import_events_count_rows_per_table_and_the_time_includes_verify(
    export_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reader, "PROGRESS_EVERY", 0.0)  # every 2000 rows: deterministic
    seen: list[Any] = []
    report = import_database(export_dir, f"sqlite:///{tmp_path / 't.db'}", threads=1, on_event=seen.append)
    started = {e.table: e.rows for e in seen if isinstance(e, events.TableStarted)}
    assert started == {"main.big": ROWS, "main.small": 2}
    progress = [e.rows for e in seen if isinstance(e, events.UnitProgress) and e.table == "main.big"]
    assert progress and progress == sorted(progress) and progress[-1] <= ROWS  # a running total of rows
    data = next(e for e in seen if isinstance(e, events.PhaseStarted) and e.phase == "data")
    assert data.rows == ROWS + 2
    check = next(e for e in seen if isinstance(e, events.PhaseStarted) and e.phase == "verify")
    assert (check.tables, check.rows) == (2, ROWS + 2)
    assert set(report.phases) >= {"pre-data", "data", "post-data", "verify"}
    assert report.seconds >= sum(report.phases.values()) > 0  # verify's time is in the total
    tracker = events.StatusTracker()
    for e in seen:
        tracker.handle(e)
    assert tracker.rows_done == ROWS + 2 and not tracker.inflight
    assert verify(export_dir, f"sqlite:///{tmp_path / 't.db'}").seconds > 0


def test_the_terminal_shows_a_bar_per_table_in_rows_and_verify_its_own(export_dir: Path, tmp_path: Path) -> None:
    code, out = on_terminal("import", str(export_dir), f"sqlite:///{tmp_path / 't.db'}", "-j", "1")
    assert code == 0, out
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out)
    assert re.search(rf"main\.big .*/{ROWS} rows", plain), plain
    assert re.search(rf"total .*/{ROWS + 2} rows", plain) and re.search(rf"verify .*/{ROWS + 2} rows", plain)
    summary = next(line for line in plain.splitlines() if line.startswith("imported"))
    total = float(re.search(r" in ([0-9.]+)s", summary).group(1))  # type: ignore[union-attr]
    phases = [float(s) for s in re.findall(r"(?:pre-data|pre-flight|data|post-data|verify) ([0-9.]+)s", summary)]
    assert "verify" in summary and total + 0.2 >= sum(phases), summary
    code, out = on_terminal("verify", str(export_dir), f"sqlite:///{tmp_path / 't.db'}")
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out)
    assert code == 0 and re.search(rf"verify .*/{ROWS + 2} rows", plain) and "verified 2 table(s)" in plain, plain
