"""PostgreSQL import: what a loading thread does when its units are done. A finished table's index
builds go to every free loading thread at once (``capabilities.parallel_index_builds``, as
``pg_restore -j`` spreads them), and a thread with no unit left to start verifies a table whose rows
and keys are in (``Importer.verify_while_loading``), so that the verify phase only checks the rest; a
table whose rows differ from the export is still reported."""

from __future__ import annotations

import importlib
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dbjson.errors import VerifyError
from dbjson.export import export_database
from dbjson.importer import import_database

V = importlib.import_module("dbjson.verify")  # the module (dbjson.verify is also the function's name)

SOURCE = """
CREATE TABLE wide (id bigint PRIMARY KEY, a int, b int, c text);
CREATE INDEX wide_a ON wide (a);
CREATE INDEX wide_b ON wide (b);
CREATE INDEX wide_c ON wide (c);
INSERT INTO wide SELECT g, g % 97, g % 89, md5(g::text) FROM generate_series(1, 3000) g;
CREATE TABLE small (id int PRIMARY KEY, wide_id bigint REFERENCES wide (id), note text);
INSERT INTO small SELECT g, g, 'n' || g FROM generate_series(1, 300) g;
"""


def _export(fresh_db: Any, tmp_path: Path) -> Path:
    src = fresh_db("postgresql")
    src.execute(SOURCE)
    out = tmp_path / "out"
    export_database(src.url, out, threads=2, chunk_rows=1000)
    return out


def test_a_finished_tables_index_builds_run_on_every_free_thread(fresh_db: Any, tmp_path: Path) -> None:
    out = _export(fresh_db, tmp_path)
    dst = fresh_db("postgresql")
    spans: list[tuple[str, str, int, float, float]] = []  # (kind, object, thread, start, end)

    def hook(imp: Any) -> None:
        real = imp._run_early

        def timed(step: str, st: Any) -> bool:
            began = time.monotonic()
            if st.kind == "index":
                time.sleep(0.4)  # long enough for the other free thread to take the next build meanwhile
            ok = bool(real(step, st))
            spans.append((st.kind, st.object, threading.get_ident(), began, time.monotonic()))
            return ok

        imp._run_early = timed

    report = import_database(out, dst.url, threads=2, importer_hook=hook)
    assert report.verify is not None and report.verify.ok
    builds = sorted((s for s in spans if s[0] == "index"), key=lambda s: s[3])
    assert [s[1] for s in builds] and len(builds) == 3, spans
    # on two threads at once (which two: the pool's threads are also those that loaded units while
    # others waited for the pre-flight), never three: the third waits for a free thread
    assert len({s[2] for s in builds}) >= 2
    assert builds[1][3] < builds[0][4]  # the second build started before the first ended
    assert builds[2][3] >= min(builds[0][4], builds[1][4]) - 0.05
    pk = next(s for s in spans if s[0] == "primary_key" and "wide" in s[1])
    assert pk[4] <= builds[0][3]  # the key (an exclusive lock) before the builds
    fk = next(s for s in spans if s[0] == "foreign_key")
    assert fk[3] >= max(s[4] for s in builds)  # the foreign key once its table is keyed
    names = {r[0] for r in dst.query("SELECT indexname FROM pg_indexes WHERE tablename = 'wide'")}
    assert names == {"wide_pkey", "wide_a", "wide_b", "wide_c"}
    assert dst.query("SELECT count(*) FROM pg_constraint WHERE contype = 'f'")[0][0] == 1


def test_tables_are_verified_by_idle_loading_threads(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(V, "SPLIT_VERIFY_ROWS", 100)  # the big table in key ranges
    out = _export(fresh_db, tmp_path)
    dst = fresh_db("postgresql")
    seen: list[Any] = []
    phases: list[str] = []
    sums: list[tuple[str, Any]] = []
    real_sum = V._target_sum

    def ranged(*a: Any, **k: Any) -> Any:
        sums.append((phases[-1], a[2].display))
        return real_sum(*a, **k)

    monkeypatch.setattr(V, "_target_sum", ranged)

    def on_event(e: Any) -> None:
        if type(e).__name__ == "PhaseStarted":
            phases.append(e.phase)

    report = import_database(out, dst.url, threads=2, importer_hook=seen.append, on_event=on_event)
    assert report.verify is not None and report.verify.ok
    early = seen[0].verified
    assert set(early) == {"public.wide", "public.small"}
    assert all(c.ok for c in early.values())
    assert [t.mode for t in report.verify.tables] == [early[t.table].mode for t in report.verify.tables]
    ranges = [t for p, t in sums if t == "public.wide"]
    assert len(ranges) == 2 * V.RANGES_PER_THREAD  # read in key ranges, on the free threads
    assert {p for p, _t in sums} == {"data"}  # none left for the verify phase


def test_a_table_that_differs_is_still_reported(fresh_db: Any, tmp_path: Path) -> None:
    out = _export(fresh_db, tmp_path)
    dst = fresh_db("postgresql")
    dst.execute(
        "CREATE TABLE wide (id bigint PRIMARY KEY, a int, b int, c text);\n"
        "CREATE TABLE small (id int PRIMARY KEY, wide_id bigint, note text);\n"
        "CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN IF NEW.id = 2500 THEN NEW.c := 'changed'; END IF; RETURN NEW; END $$;\n"
        "CREATE TRIGGER bump BEFORE INSERT ON wide FOR EACH ROW EXECUTE FUNCTION bump();\n"
        "ALTER TABLE wide ENABLE ALWAYS TRIGGER bump;"  # fires under session_replication_role = replica too
    )
    seen: list[Any] = []
    with pytest.raises(VerifyError) as err:
        import_database(out, dst.url, threads=2, data_only=True, importer_hook=seen.append)
    assert "public.wide" not in seen[0].verified and "public.small" in seen[0].verified
    problems = err.value.problems or []
    assert len(problems) == 1 and "public.wide" in problems[0] and "content checksum" in problems[0]
