"""The benchmark harness at a tiny scale, so it cannot rot: it runs and produces ratios.

Not a timed test: nothing here compares speeds. It checks that the datasets are deterministic, that
one engine's native and naive baselines and dbjson run end to end on 2,000 rows of both datasets
with complete row counts and an identical content check, and that the report and the JSON results
carry the ratios.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from conftest import server_url

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # bench/ is a top-level folder of the repository, not part of the package
    sys.path.insert(0, str(REPO))

from bench import dataset as ds


@pytest.mark.parametrize("dataset", sorted(ds.DATASETS))
def test_dataset_is_deterministic_and_covers_every_table(dataset: str) -> None:
    d = ds.DATASETS[dataset]
    counts = d.table_rows(2000)
    assert sum(counts.values()) == 2000
    assert list(counts) == [t.name for t in d.tables]
    for t in d.tables:
        first = list(d.generate(t.name, 2000, seed=7))
        assert first == list(d.generate(t.name, 2000, seed=7))
        assert len(first) == counts[t.name]
        assert all(len(row) == len(t.columns) for row in first)
    kinds = {c.kind for t in d.tables for c in t.columns}
    assert kinds >= {"int", "decimal", "str", "datetime", "timestamptz", "json", "binary"}


def test_wide_dataset_has_json_documents_of_about_0_4_kb() -> None:
    events = list(ds.WIDE.generate("events", 3000, seed=7))
    payload = [len(row[4].encode()) for row in events]
    assert 300 < sum(payload) / len(payload) < 500
    assert any(not row[4].isascii() for row in events) and any(row[5] for row in events)


def test_bulk_files_escape_text_and_differ_per_family(tmp_path: Path) -> None:
    out = ds.write_bulk_files(2000, 7, tmp_path)
    pg = (out / "postgresql" / "products.tsv").read_text(encoding="utf-8").splitlines()
    my = (out / "mysql" / "products.tsv").read_text(encoding="utf-8").splitlines()
    assert len(pg) == len(my) == ds.table_rows(2000)["products"]
    assert all(line.count("\t") == len(ds.TABLE_BY_NAME["products"].columns) - 1 for line in pg + my)
    assert any("\\\\x" in line for line in pg) and not any("\\\\x" in line for line in my)


@pytest.mark.postgresql
def test_benchmark_runs_at_tiny_scale_and_reports_ratios(tmp_path: Path) -> None:
    server_url("postgresql")
    database = "dbjson_bench_smoke_" + uuid.uuid4().hex[:8]
    report, results = tmp_path / "performance.md", tmp_path / "results.json"
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.run",
                "--rows",
                "2000",
                "--dataset",
                "both",
                "--engines",
                "postgresql",
                "--tools",
                "native,naive,dbjson",
                "--database",
                database,
                "--work",
                str(tmp_path / "work"),
                "--out",
                str(report),
                "--json",
                str(results),
                "--timeout",
                "120",
                "--concurrent",
            ],
            check=False,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        for name in (database, database + "_wide"):  # the run drops its import databases
            ds.drop_database(ds.servers()["postgresql"], name, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(results.read_text())
    for dataset in ("narrow", "wide"):
        results = [r for r in data["results"] if r["dataset"] == dataset]
        for phase in ("export", "import"):
            native = next(r for r in results if r["phase"] == phase and r["baseline"])
            naive = next(r for r in results if r["phase"] == phase and r["tool"] == "naive")
            assert native["status"] == naive["status"] == "ok", (native, naive)
            assert native["rows_per_s"] > 0 and naive["rows_per_s"] > 0
        loads = [r for r in results if r["phase"] == "import" and r["tool"] in ("native", "naive")]
        assert all(r["content_ok"] is True for r in loads), loads  # the independent content check ran
    dbjson = [r for r in data["results"] if r["tool"] == "dbjson"]
    by_label = {(r["dataset"], r["phase"], r["label"]): r for r in dbjson}
    assert len(by_label) == 10  # per dataset: export --threads 1/2, import --threads 1/2 --no-verify, 2 with verify
    # dbjson's own failures are its tests' business; here only: every outcome is recorded and explained
    assert all(r["status"] == "ok" or r["note"] for r in dbjson), dbjson
    assert all((r["status"] == "ok") == (r["rows_per_s"] is not None) for r in dbjson), dbjson
    assert {t["dataset"] for t in data["targets"]} == {"narrow", "wide"}
    text = report.read_text()
    assert "### PostgreSQL: export (wide)" in text and "× bold row" in text and "| 1.00 |" in text
    assert "comparable only within one run" in text
    # a second run (the 10M-row one, say) is shown beside the first: its targets and its tables
    both, run = tmp_path / "both.md", str(tmp_path / "results.json")
    proc = subprocess.run(
        [sys.executable, "-m", "bench.run", "--from-json", run, "--beside", run, "--out", str(both)],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = both.read_text()
    assert "## Targets at 2,000 rows (a separate run)" in text
    assert "### PostgreSQL: export (wide, 2,000 rows)" in text and "### PostgreSQL: export (wide)" in text


def test_no_single_thread_times_dbjson_with_two_threads_only() -> None:
    from bench.run import Bench, parse_args

    b = Bench.__new__(Bench)
    b.args = parse_args(["--no-single-thread"])
    assert b.dbjson_threads() == (2,)
    b.args = parse_args([])
    assert b.dbjson_threads() == (1, 2)
