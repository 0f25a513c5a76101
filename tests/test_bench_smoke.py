"""The benchmark harness at a tiny scale, so it cannot rot: it runs and produces ratios.

Not a timed test: nothing here compares speeds. It checks that the dataset is deterministic, that
one engine's native and naive baselines (and dbjson, once export/import exist) run end to end on
2,000 rows with complete row counts, and that the report and the JSON results carry the ratios.
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


def test_dataset_is_deterministic_and_covers_every_table() -> None:
    counts = ds.table_rows(2000)
    assert sum(counts.values()) == 2000
    assert list(counts) == [t.name for t in ds.TABLES]
    for t in ds.TABLES:
        first = list(ds.generate(t.name, 2000, seed=7))
        assert first == list(ds.generate(t.name, 2000, seed=7))
        assert len(first) == counts[t.name]
        assert all(len(row) == len(t.columns) for row in first)
    kinds = {c.kind for t in ds.TABLES for c in t.columns}
    assert kinds >= {"int", "decimal", "float", "str", "bool", "datetime", "timestamptz", "json", "binary"}


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
        ds.drop_database(ds.servers()["postgresql"], database, timeout=60)  # the run drops its import databases
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(results.read_text())
    by_label = {(r["phase"], r["tool"], r["label"]): r for r in data["results"]}
    for phase in ("export", "import"):
        native = next(r for r in data["results"] if r["phase"] == phase and r["baseline"])
        naive = next(r for r in data["results"] if r["phase"] == phase and r["tool"] == "naive")
        assert native["status"] == naive["status"] == "ok", (native, naive)
        assert native["rows_per_s"] > 0 and naive["rows_per_s"] > 0
    dbjson = [r for key, r in by_label.items() if key[1] == "dbjson"]
    assert len(dbjson) == 4  # export and import at --threads 1 and 2, each measured or reported
    # dbjson's own failures are its tests' business; here only: every outcome is recorded and explained
    assert all(r["status"] == "ok" or r["note"] for r in dbjson), dbjson
    assert all((r["status"] == "ok") == (r["rows_per_s"] is not None) for r in dbjson), dbjson
    text = report.read_text()
    assert "## PostgreSQL: export" in text and "× bulk" in text and "| 1.00 |" in text
    assert "comparable only within one run" in text
