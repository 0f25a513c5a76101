"""Fault injection on real servers: kill -9 of `dbjson export` and `dbjson import` at seeded random
points, then a rerun (export) or `--resume` (import) and `dbjson verify`; the target must equal the
source, with zero rows lost and zero duplicated. Figures go to tests/.reliability/ (faultlib.record).

DBJSON_FAULT_POINTS (default 4) sets the kill points per engine, DBJSON_FAULT_SEED the seed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import faultlib as fl
import orjson
import pytest

from dbjson.export import export_database


def _looks_complete_files(out: Path) -> list[str]:
    """Data files named like finished ones whose content is not whole (a torn last line, bad JSON)."""
    bad = []
    for p in sorted((out / "data").glob("*.jsonl")):
        data = p.read_bytes()
        if data and not data.endswith(b"\n"):
            bad.append(p.name)
            continue
        try:
            for line in data.splitlines():
                orjson.loads(line)
        except orjson.JSONDecodeError:
            bad.append(p.name)
    return bad


def _manifest_checksums(out: Path) -> dict[str, tuple[int, str]]:
    doc = orjson.loads((out / "manifest.json").read_bytes())
    return {t["name"]: (t["rows"], t["checksum"]) for t in doc["tables"]}


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb"])
def test_kill_9_export_then_rerun(engine: str, fresh_db: Any, tmp_path: Path) -> None:
    """A killed export never leaves a manifest or a torn file under a final name; a rerun in the same
    directory produces the same rows and checksums as an export that was never interrupted."""
    src = fresh_db(engine)
    counts = fl.fill_source(src)
    baseline = export_database(src.url, tmp_path / "baseline", threads=2, chunk_rows=400)
    expected = _manifest_checksums(tmp_path / "baseline")
    assert {t: n for t, (n, _c) in expected.items()} == counts
    nfiles = sum(len(t.files) for t in baseline.manifest.tables)
    r = fl.rng("export-kill", engine)
    injected = survived = 0
    points = []
    hi = nfiles - 1
    for i in range(3 * fl.POINTS):  # a kill that lands after the export ended is a miss: try an earlier point
        if injected >= fl.POINTS:
            break
        out = tmp_path / f"out{i}"
        k = r.randint(0, hi)  # kill once k data files are finished, plus a random delay
        delay = r.uniform(0, 0.03)
        proc = fl.spawn("export", src.url, "-o", str(out), "--threads", "2", "--chunk-size", "400", "--quiet")
        data = out / "data"
        killed = fl.kill_when(proc, lambda: data.is_dir() and len(list(data.glob("*.jsonl"))) >= k, delay)
        if not killed:
            assert proc.returncode == 0, proc.stderr.read() if proc.stderr else b""
            continue
        injected += 1
        points.append(k)
        if (out / "manifest.json").exists():  # killed after its last write: the manifest must be whole
            assert _manifest_checksums(out) == expected
        assert _looks_complete_files(out) == []
        run = fl.dbjson("export", src.url, "-o", str(out), "--threads", "2", "--chunk-size", "400", "--quiet")
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr
        assert not list(out.rglob("*.partial")), "a rerun left partial files"
        assert _manifest_checksums(out) == expected
        check = fl.dbjson("validate", str(out / "manifest.json"))
        assert check.returncode == 0, check.stderr
        survived += 1
    assert injected >= max(1, fl.POINTS // 2), "too few kills landed before the export finished"
    fl.record("kill -9 export, rerun", engine, injected, survived, kill_points=points)


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb"])
def test_kill_9_import_then_resume_and_verify(engine: str, fresh_db: Any, tmp_path: Path) -> None:
    """Whole imports (DDL, rows, indexes and keys) killed after a random number of journal records,
    then `import --resume` and `verify`: zero rows lost, zero duplicated."""
    src = fresh_db(engine)
    counts = fl.fill_source(src)
    export = tmp_path / "export"
    export_database(src.url, export, threads=2, chunk_rows=400)
    want = fl.table_fingerprint(src)
    # An uninterrupted run: how many journal records a whole import writes.
    first = fresh_db(engine)
    run = fl.dbjson("import", str(export), first.url, "--threads", "2", "--quiet")
    assert run.returncode == 0, run.stderr
    total = fl.journal_lines(export)
    assert fl.table_fingerprint(first) == want
    r = fl.rng("import-kill", engine)
    injected = survived = lost = dup = 0
    points = []
    hi = total - 1
    for _ in range(3 * fl.POINTS):  # a kill that lands after the import ended is a miss: try an earlier point
        if injected >= fl.POINTS:
            break
        target = fresh_db(engine)
        before = fl.journal_lines(export)
        k = r.randint(0, hi)
        delay = r.uniform(0, 0.02)
        proc = fl.spawn("import", str(export), target.url, "--threads", "2", "--quiet")
        if not fl.kill_when(proc, lambda: fl.journal_lines(export) - before >= k, delay):
            assert proc.returncode == 0, proc.stderr.read() if proc.stderr else b""
            hi = max(0, k - 1)
            continue
        injected += 1
        points.append(k)
        resume = fl.dbjson("import", str(export), target.url, "--threads", "2", "--resume", "--quiet")
        assert "Traceback" not in resume.stderr
        assert resume.returncode == 0, f"kill after {k} journal records: {resume.stderr}"
        check = fl.dbjson("verify", str(export), target.url)
        assert check.returncode == 0, check.stdout + check.stderr
        got = fl.table_fingerprint(target)
        lo, du = fl.lost_and_duplicated(counts, got)
        lost += lo
        dup += du
        assert got == want, f"kill after {k} journal records"
        survived += 1
        target.drop()
    assert injected >= max(1, fl.POINTS // 2), "too few kills landed before the import finished"
    fl.record("kill -9 import, --resume, verify", engine, injected, survived, lost, dup, kill_points=points)


def test_summary_dir_is_ignored_by_git() -> None:
    """The figures are a by-product of test runs, never committed by accident."""
    import subprocess

    rel = os.path.relpath(fl.SUMMARY_DIR / "x.json", fl.ROOT)
    res = subprocess.run(["git", "check-ignore", "-q", rel], cwd=fl.ROOT)
    assert res.returncode == 0, f"{rel} is not ignored by .gitignore"
