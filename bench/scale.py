"""Figures for docs/scale.md: per-worker (one thread) export and import throughput per engine, and
how a cluster export scales with Dask worker processes on this machine.

    .venv/bin/python -m bench.scale [--rows 200000] [--out bench/scale-last.json]

Uses the benchmark dataset (bench/dataset.py) in a database ``dbjson_scale_bench`` on each server
(and ``dbjson_scale_bench_t`` as the import target), both dropped at the end. Reports wall time,
the client process's CPU time (user + system, so rows per CPU-second is the per-core figure even
on a loaded machine) and the load average during the run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.dataset import create_database, drop_database, load, servers, write_bulk_files
from dbjson.export import export_database
from dbjson.importer import import_database

DB, TARGET = "dbjson_scale_bench", "dbjson_scale_bench_t"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


def _timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float, float]:
    w, c = time.monotonic(), _cpu()
    out = fn(*args, **kwargs)
    return out, time.monotonic() - w, _cpu() - c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--out", default="bench/scale-last.json")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dbjson-scale-"))
    files = write_bulk_files(args.rows, 42, work / "cache")
    result: dict[str, Any] = {"rows": args.rows, "loadavg_start": os.getloadavg(), "engines": {}, "cluster": []}
    srv = servers()
    try:
        for name, server in srv.items():
            load(server, DB, files)
            url = server.db_url(DB)
            rep, wall, cpu = _timed(export_database, url, work / name, threads=1)
            entry = {
                "export": {"wall": round(wall, 2), "cpu": round(cpu, 2), "rows": rep.rows, "bytes": rep.bytes},
            }
            drop_database(server, TARGET)
            create_database(server, TARGET)
            imp, wall, cpu = _timed(import_database, work / name, server.db_url(TARGET), threads=1)
            entry["import"] = {"wall": round(wall, 2), "cpu": round(cpu, 2), "rows": imp.rows, "bytes": rep.bytes}
            entry["loadavg"] = os.getloadavg()
            result["engines"][name] = entry
            drop_database(server, TARGET)
            print(name, entry, flush=True)
        from distributed import Client, LocalCluster

        pg = srv["postgresql"]
        for n in [int(x) for x in args.workers.split(",")]:
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
            try:
                out = work / f"cluster{n}"
                rep, wall, _cpu_unused = _timed(
                    export_database, pg.db_url(DB), out, cluster=client, chunk_rows=max(1, args.rows // 16)
                )
                row = {"workers": n, "wall": round(wall, 2), "rows": rep.rows, "loadavg": os.getloadavg()}
                result["cluster"].append(row)
                print("cluster", row, flush=True)
                shutil.rmtree(out)
            finally:
                client.close()
                cluster.close()
    finally:
        for server in srv.values():
            for d in (DB, TARGET):
                try:
                    drop_database(server, d)
                except Exception as e:  # noqa: BLE001
                    print("drop failed", server.name, d, e)
        shutil.rmtree(work, ignore_errors=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
