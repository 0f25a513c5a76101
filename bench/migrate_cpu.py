"""CPU time of a PostgreSQL → PostgreSQL move: ``dbjson migrate`` against ``pgcopydb clone``.

``python -m bench.migrate_cpu --rows 200000 --dataset wide [--python OTHER/.venv/bin/python]``

On a machine shared with other work, wall time says little; this measures CPU time on both
sides. The tools run against a *private* PostgreSQL instance this script starts (initdb in
``--pgdata``, port ``--port``), so that the server's CPU is the move's alone: the backends of a
move are children of the postmaster, and once they exit their CPU time is in the postmaster's
``cutime + cstime`` (``/proc/<pid>/stat``), read before and after each step. The client's CPU is
``RUSAGE_CHILDREN`` of the step (dbjson's worker processes and pgcopydb's forks included).
Source and target are databases of that one instance (as in bench/run.py). Each step runs
``--repeat`` times; the median by CPU is printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import dataset as ds

PG_BIN = Path("/usr/lib/postgresql/15/bin")
CLK = os.sysconf("SC_CLK_TCK")


def _start(pgdata: Path, port: int) -> None:
    if not (pgdata / "PG_VERSION").exists():
        pgdata.mkdir(parents=True, exist_ok=True)
        shutil.chown(pgdata, "postgres", "postgres")
        subprocess.run(
            ["runuser", "-u", "postgres", "--", str(PG_BIN / "initdb"), "-D", str(pgdata), "-A", "trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
        )
    if (
        subprocess.run(
            ["runuser", "-u", "postgres", "--", str(PG_BIN / "pg_ctl"), "status", "-D", str(pgdata)],
            capture_output=True,
        ).returncode
        == 0
    ):
        return
    opts = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=/tmp -c shared_buffers=256MB -c max_wal_size=4GB -c fsync=on -c autovacuum=off"
    subprocess.run(
        [
            "runuser",
            "-u",
            "postgres",
            "--",
            str(PG_BIN / "pg_ctl"),
            "start",
            "-w",
            "-D",
            str(pgdata),
            "-o",
            opts,
            "-l",
            str(pgdata / "log.txt"),
        ],
        check=True,
        capture_output=True,
    )


def _postmaster_cpu(pgdata: Path) -> float:
    pid = int((pgdata / "postmaster.pid").read_text().split()[0])
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # after the ")": state is fields[0]; utime=11 stime=12 cutime=13 cstime=14 (0-based, man 5 proc minus 3)
    return (int(fields[13]) + int(fields[14])) / CLK


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--dataset", default="wide", choices=["narrow", "wide"])
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--port", type=int, default=55432)
    p.add_argument("--pgdata", default="/tmp/pgcopy-bench-pg")
    p.add_argument("--work", default="/tmp/dbjson-bench")
    p.add_argument("--python", action="append", default=[], help="a Python with dbjson installed (repeatable)")
    p.add_argument("--tools", default="dbjson,pgcopydb")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--no-verify", action="store_true")
    args = p.parse_args()
    pgdata = Path(args.pgdata)
    _start(pgdata, args.port)
    server = ds.Server("postgresql", "postgresql", f"postgresql+psycopg://postgres@127.0.0.1:{args.port}/postgres")
    data = ds.DATASETS[args.dataset]
    src = f"src_{args.dataset}_{args.rows}"
    ds.ensure_loaded(server, src, args.rows, args.seed, Path(args.work) / "data", data)
    with ds.pg_connect(server, src) as c:
        c.execute("VACUUM ANALYZE")
    pythons = args.python or [sys.executable]
    steps: list[tuple[str, list[str]]] = []
    for tool in args.tools.split(","):
        if tool == "dbjson":
            for py in pythons:
                flags = ["--no-verify"] if args.no_verify else []
                steps.append(
                    (
                        f"dbjson migrate ({py})" + (" --no-verify" if args.no_verify else ""),
                        [
                            py,
                            "-m",
                            "dbjson",
                            "migrate",
                            server.db_url(src),
                            server.db_url("dst"),
                            "--threads",
                            "2",
                            "--quiet",
                            *flags,
                        ],
                    )
                )
        elif tool == "pgcopydb":
            steps.append(
                (
                    "pgcopydb clone --table-jobs 2 --index-jobs 2",
                    [
                        "pgcopydb",
                        "clone",
                        "--source",
                        f"postgres://postgres@127.0.0.1:{args.port}/{src}",
                        "--target",
                        f"postgres://postgres@127.0.0.1:{args.port}/dst",
                        "--table-jobs",
                        "2",
                        "--index-jobs",
                        "2",
                        "--no-owner",
                        "--no-acl",
                        "--dir",
                        "/tmp/pgcopy-bench-pgcopydb",
                    ],
                )
            )
    print(f"{args.dataset} {args.rows} rows; load average {os.getloadavg()[0]:.1f}", flush=True)
    for label, cmd in steps:
        runs = []
        for _ in range(args.repeat):
            ds.recreate_database(server, "dst")
            shutil.rmtree("/tmp/pgcopy-bench-pgcopydb", ignore_errors=True)
            with ds.pg_connect(server, "postgres") as c:
                c.execute("CHECKPOINT")
            s0, c0, t0 = _postmaster_cpu(pgdata), _children_cpu(), time.monotonic()
            proc = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                cwd="/",  # not a checkout's directory: ``-m dbjson`` must import the given Python's dbjson
                env={**os.environ, "PGCOPYDB_LOG_LEVEL": "error", "XDG_STATE_HOME": "/tmp/pgcopy-bench-state"},
            )
            wall = time.monotonic() - t0
            client = _children_cpu() - c0
            server_cpu = _postmaster_cpu(pgdata) - s0
            if proc.returncode != 0:
                print(f"{label}: FAILED rc={proc.returncode}: {proc.stderr[-800:]}", flush=True)
                break
            runs.append((client + server_cpu, wall, client, server_cpu))
        if runs:
            total, wall, client, server_cpu = sorted(runs)[(len(runs) - 1) // 2]
            print(
                f"{label}: wall {wall:6.2f} s  client CPU {client:6.2f} s  server CPU {server_cpu:6.2f} s  "
                f"total CPU {total:6.2f} s  (load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    ds.drop_database(server, "dst")


if __name__ == "__main__":
    main()
