"""Where dbjson export/import spend their time: a py-spy profile summarised as text.

    python -m bench.profile export mariadb            # profile `dbjson export --threads 2` of dbjson_bench
    python -m bench.profile import postgresql --threads 1 --rows 200000

Loads the benchmark dataset if needed (``--rows``, default 200,000, into ``dbjson_bench_profile``),
runs the dbjson command under ``py-spy record --subprocesses`` (every thread and worker process), and
prints the functions with the most samples on top of the stack ("self") and anywhere in the stack
("inclusive"). py-spy is a sampling profiler that sees worker threads, which cProfile does not;
``bash bench/setup.sh`` installs it into ``<work>/tools`` (it is not a dbjson dependency).
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import dataset as ds
from .run import precompile

PY = sys.executable
REPO = Path(__file__).resolve().parents[1]
PROCESS = re.compile(r"^process \d+:")  # the root frame py-spy --subprocesses adds per process
FRAME = re.compile(r"^\S.* \(.+\)$")  # "function (file:line)"; drops pieces of a process's command line
NOISE = re.compile(
    r"^(Thread\.|_bootstrap|_worker |_WorkItem|<module>|_run_|_find_and_load|_load_unlocked|"
    r"_call_with_frames|exec_module|_handle_fromlist|Typer|TyperGroup|Command\.|Context\.|main |"
    r"_main |get_callback|run \(common|BaseProcess|_process_worker|_serve_one)"
)


def py_spy(work: Path) -> str | None:
    """The py-spy executable: on PATH or in the bench tools venv."""
    found = shutil.which("py-spy")
    local = work / "tools" / "bin" / "py-spy"
    return found or (str(local) if local.exists() else None)


def summarize(raw: Path, top: int = 20) -> str:
    """Self and inclusive sample shares per function from py-spy's raw (collapsed-stack) output."""
    own: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        n = int(count)
        total += n
        frames = [
            re.sub(r" \((?:.*/)?([^/]+?)(?::\d+)?\)$", r" (\1)", f)
            for f in stack.split(";")
            if FRAME.match(f) and not PROCESS.match(f)
        ]
        if frames:
            own[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    if not total:
        return "no samples"
    out = [f"{total} samples (all threads of all processes)", "", "self (top of stack):"]
    out += [f"  {c / total * 100:5.1f}%  {f}" for f, c in own.most_common(top)]
    out += ["", "inclusive (anywhere in the stack; framework frames left out):"]
    out += [f"  {c / total * 100:5.1f}%  {f}" for f, c in incl.most_common() if not NOISE.match(f)][:top]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.profile", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    p.add_argument("command", choices=("export", "import"))
    p.add_argument("engine", choices=("postgresql", "mariadb", "mysql"))
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--database", default="dbjson_bench_profile")
    p.add_argument("--work", default="/tmp/dbjson-bench")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--raw", default="", help="also keep py-spy's raw output here")
    args = p.parse_args(argv)
    work = Path(args.work)
    spy = py_spy(work)
    if not spy:
        print("py-spy not available: run bash bench/setup.sh", file=sys.stderr)
        return 2
    server = ds.servers()[args.engine]
    ds.ensure_loaded(server, args.database, args.rows, args.seed, work / "data")
    precompile()  # as bench.run does: profile an installed-like dbjson, not its compiler
    with tempfile.TemporaryDirectory(prefix="dbjson-profile-") as tmp:
        export_dir = Path(tmp) / "export"
        export = [
            PY,
            "-m",
            "dbjson",
            "export",
            server.db_url(args.database),
            "-o",
            str(export_dir),
            "--threads",
            str(args.threads),
        ]
        if args.command == "export":
            cmd = export
        else:
            subprocess.run(export, check=True, cwd=REPO, capture_output=True)
            target = args.database + "_imp"
            ds.recreate_database(server, target)
            cmd = [
                PY,
                "-m",
                "dbjson",
                "import",
                str(export_dir),
                server.db_url(target),
                "--threads",
                str(args.threads),
                "--no-verify",
                "--quiet",
            ]
        raw = Path(args.raw) if args.raw else Path(tmp) / "raw.txt"
        subprocess.run(
            [spy, "record", "--subprocesses", "--rate", "200", "--format", "raw", "--output", str(raw), "--", *cmd],
            check=True,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
        )
        print(f"dbjson {args.command} --threads {args.threads}, {args.engine}, {args.rows:,} rows")
        print(summarize(raw, args.top))
        if args.command == "import":
            ds.drop_database(server, args.database + "_imp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
