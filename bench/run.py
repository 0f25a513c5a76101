"""dbjson's performance benchmark: export and import against the engines' own tools, one run.

    python -m bench.run                      # 1M rows, all three servers, writes docs/performance.md
    python -m bench.run --rows 200000 --engines postgresql,mariadb
    python -m bench.run --setup              # install pgloader/mydumper first (bench/setup.sh)

Every measured step is a separate process (dbjson's CLI, psql/mariadb clients, pg_dump, mydumper,
pgloader, or ``python -m bench.naive``): wall-clock time around it, peak RSS from ``wait4``'s
rusage (the largest process of the step, client side only: server work is not in it). A tool
that is missing or fails is reported as such, never fatal. See bench/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import fcntl
import functools
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from . import content
from . import dataset as ds

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # colours in a tool's error output (Sling)
TOOLS = (
    "native",
    "naive",
    "dbjson",
    "pg_dump",
    "mydumper",
    "dump",
    "pgloader",
    "migrate",
    "pgcopydb",
    "sling",
    "dlt",
    "verify",
)


@dataclass
class Result:
    """One measured step."""

    engine: str  # postgresql | mariadb | mysql | "mariadb->postgresql"
    phase: str  # export | import | migrate | verify
    tool: str  # key of TOOLS
    label: str  # what ran, as shown in the report
    status: str = "ok"  # ok | failed | not available | wrong rows
    seconds: float | None = None
    maxrss_kb: int | None = None
    cpu_s: float | None = None  # user + system CPU of the client processes (not the server's)
    rows: int = 0
    note: str = ""
    baseline: bool = False  # the engine's bulk path the ratios are relative to
    dataset: str = "narrow"
    check: str = ""  # the independent content check's outcome (loads only)
    content_ok: bool | None = None  # None: not checked
    times: list[float] = dataclasses.field(default_factory=list)  # every repetition's wall time

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.seconds is not None

    @property
    def rows_per_s(self) -> float | None:
        return self.rows / self.seconds if self.ok and self.seconds else None


@dataclass
class Proc:
    """What ``measure`` saw of one process."""

    seconds: float
    maxrss_kb: int
    cpu_s: float
    returncode: int
    err: str


def measure(
    cmd: Sequence[str],
    *,
    stdin: Path | None = None,
    stdout: Path | None = None,
    timeout: float = 3600,
    env: dict[str, str] | None = None,
    give_up: re.Pattern[str] | None = None,
) -> Proc:
    """Run ``cmd`` (cwd = the repository), timing it and reading its peak RSS.

    The RSS comes from GNU time (``%M``: the largest process of the step) when /usr/bin/time is
    installed, else from ``wait4``, which also counts the forked copy of this Python process.
    ``give_up``: a pattern that, once the step has printed it on stderr, means it has failed; the
    step is killed 5 s later if it has not exited by then (a peer that reports an error and then
    waits forever is not given the whole ``timeout``).
    """
    with (
        tempfile.NamedTemporaryFile() as err,
        tempfile.NamedTemporaryFile("r") as rss,
        open(stdin, "rb") if stdin else open(os.devnull, "rb") as fin,
        open(stdout, "wb") if stdout else open(os.devnull, "wb") as fout,
    ):
        gnu_time = ["/usr/bin/time", "-f", "%M %U %S", "-o", rss.name] if os.access("/usr/bin/time", os.X_OK) else []
        t0 = time.perf_counter()
        try:
            p = subprocess.Popen(
                gnu_time + list(cmd),
                stdin=fin,
                stdout=fout,
                stderr=err,
                cwd=REPO,
                env={**os.environ, **(env or {})},
                start_new_session=True,
            )
        except OSError as e:
            return Proc(0.0, 0, 0.0, 127, str(e))
        timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
        timer.start()
        done = threading.Event()
        if give_up is not None:
            threading.Thread(target=_give_up_on, args=(give_up, err.name, p.pid, done), daemon=True).start()
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t0
        done.set()
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = ANSI.sub("", err.read().decode("utf-8", "replace")).strip().splitlines()[-6:]
        reported = (rss.read().strip().splitlines() or [""])[-1].split()
        if len(reported) == 3 and reported[0].isdigit():
            maxrss, cpu = int(reported[0]), float(reported[1]) + float(reported[2])
        else:
            maxrss, cpu = int(usage.ru_maxrss), usage.ru_utime + usage.ru_stime
    return Proc(seconds, maxrss, cpu, p.returncode, " | ".join(tail))


def _give_up_on(pattern: re.Pattern[str], err: str, pid: int, done: threading.Event) -> None:
    """Kill ``pid``'s process group 5 s after ``pattern`` appears in the file ``err`` (see measure)."""
    while not done.wait(0.5):
        with open(err, "rb") as f:
            if pattern.search(ANSI.sub("", f.read().decode("utf-8", "replace"))):
                break
    else:
        return
    if not done.wait(5.0):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)


def precompile() -> str:
    """Byte-compile dbjson's modules, as ``pip install`` does for an installed package.

    The checkout is an editable install, and with ``PYTHONDONTWRITEBYTECODE`` set (as on the
    development machines) every dbjson step would otherwise compile all of dbjson's sources again
    at start-up (measured: about 0.1 s of CPU per step). ``__pycache__`` is git-ignored.
    """
    p = subprocess.run(
        [PY, "-m", "compileall", "-q", str(REPO / "dbjson")], check=False, capture_output=True, text=True
    )
    return (
        "byte-compiled first (as pip install does)"
        if p.returncode == 0
        else f"not byte-compiled ({p.stderr.strip()[:200]})"
    )


def first_line(cmd: Sequence[str]) -> str | None:
    """The first output line of a version command, or None when it is not installed."""
    if not shutil.which(cmd[0]):
        return None
    try:
        out = subprocess.run(list(cmd), check=False, capture_output=True, text=True, timeout=60, cwd=REPO)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (out.stdout or out.stderr).strip().splitlines()
    return lines[0].strip() if lines else None


def dbjson_help(command: str) -> str:
    """The help text of a dbjson CLI command, or '' when this checkout does not have it yet."""
    out = subprocess.run(
        [PY, "-m", "dbjson", command, "--help"],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )
    return out.stdout if out.returncode == 0 else ""


# --------------------------------------------------------------------------- client commands


def client_env(server: ds.Server) -> dict[str, str]:
    if not server.password:
        return {}
    return {"PGPASSWORD": server.password} if server.family == "postgresql" else {"MYSQL_PWD": server.password}


def psql(server: ds.Server, database: str, script: Path) -> list[str]:
    return [
        "psql",
        "-X",
        "-q",
        "-v",
        "ON_ERROR_STOP=1",
        "-h",
        server.host,
        "-p",
        str(server.port),
        "-U",
        server.user,
        "-d",
        database,
        "-f",
        str(script),
    ]


def my_client(server: ds.Server, database: str, program: str = "mariadb") -> list[str]:
    return [
        program,
        "-h",
        server.host,
        "-P",
        str(server.port),
        "-u",
        server.user,
        "--default-character-set=utf8mb4",
        database,
    ]


class Bench:
    """One benchmark run: the dataset, the servers, the tools and the results."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rows: int = args.rows
        self.base_db: str = args.database
        self.db: str = args.database
        self.dset: ds.Dataset = ds.NARROW
        self.datasets = [ds.DATASETS[n] for n in (("narrow", "wide") if args.dataset == "both" else (args.dataset,))]
        self.expected: dict[tuple[str, str, str], content.Digest] = {}  # (dataset, engine, mode) -> digests
        self.imp: str = ""  # the current import target: a new database for every import (see new_target)
        self.imp_seq = 0
        self.leftovers: list[tuple[ds.Server, str]] = []
        self.work: Path = Path(args.work)
        self.tools = set(args.tools.split(","))
        self.servers = ds.servers()
        self.results: list[Result] = []
        self.info: dict[str, str] = {}
        self.have = {cmd: dbjson_help(cmd) for cmd in ("export", "import", "verify")}

    # ----------------------------------------------------------------- bookkeeping

    def say(self, msg: str) -> None:
        print(msg, flush=True)

    def use(self, dataset: ds.Dataset) -> None:
        """Switch the run to ``dataset``: its source database (``<database>`` or ``<database>_wide``)."""
        self.dset = dataset
        self.db = self.base_db if dataset.name == "narrow" else f"{self.base_db}_{dataset.name}"

    def rdir(self, engine: str) -> Path:
        """This dataset's run directory for ``engine`` (exports, scripts)."""
        return self.work / "runs" / self.dset.name / engine

    def record(self, r: Result) -> Result:
        r.dataset = self.dset.name
        self.results.append(r)
        if r.ok:
            rate = f"{r.rows_per_s:,.0f} rows/s" if r.rows_per_s else ""
            self.say(
                f"  {r.engine:>9} {r.phase:6} {r.label:44} {r.seconds:8.2f} s  {rate:>16}  "
                f"client CPU {r.cpu_s or 0:6.2f} s  peak RSS {(r.maxrss_kb or 0) / 1024:7.1f} MB {r.note} {r.check}"
            )
        else:
            self.say(f"  {r.engine:>9} {r.phase:6} {r.label:44} {r.status}: {r.note}")
        return r

    def run(
        self,
        engine: str,
        phase: str,
        tool: str,
        label: str,
        cmd: Sequence[str] | Callable[[], Sequence[str]],
        *,
        stdin: Path | None = None,
        stdout: Path | None = None,
        env: dict[str, str] | Callable[[], dict[str, str]] | None = None,
        baseline: bool = False,
        prepare: Callable[[], object] | None = None,
        timeout: float | None = None,
        give_up: re.Pattern[str] | None = None,
    ) -> Result:
        """Measure one step ``--repeat`` times (``prepare`` before each) and keep the median.

        ``cmd`` and ``env`` may be functions, called after ``prepare`` (import commands name the new database).

        The status is failed, with the error tail, as soon as one repetition exits non-zero.
        """
        r = Result(engine, phase, tool, label, rows=self.rows, baseline=baseline)
        runs: list[tuple[float, float]] = []
        for _ in range(self.args.repeat):
            try:
                if prepare:
                    prepare()
            except Exception as e:  # noqa: BLE001 - e.g. a DROP DATABASE that timed out: this step only
                r.status, r.note, r.seconds, r.maxrss_kb = "failed", f"setup: {type(e).__name__}: {e}", None, None
                break
            p = measure(
                cmd() if callable(cmd) else cmd,
                stdin=stdin,
                stdout=stdout,
                timeout=timeout or self.args.timeout,
                env=env() if callable(env) else env,
                give_up=give_up,
            )
            if p.returncode != 0:
                r.status, r.note, r.seconds, r.maxrss_kb = "failed", f"exit {p.returncode}: {p.err[-600:]}", None, None
                break
            r.times.append(p.seconds)
            runs.append((p.seconds, p.cpu_s))
            r.maxrss_kb = max(r.maxrss_kb or 0, p.maxrss_kb)
        if r.status == "ok" and runs:
            r.seconds, r.cpu_s = sorted(runs)[(len(runs) - 1) // 2]  # the median (the lower one of an even count)
        return r

    def unavailable(self, engine: str, phase: str, tool: str, label: str, why: str) -> Result:
        return self.record(Result(engine, phase, tool, label, status="not available", note=why))

    def dbjson(self, command: str, *args: str, flags: Sequence[str] = ("--quiet",)) -> list[str]:
        """A dbjson CLI command line, with those of ``flags`` that this checkout's command knows."""
        return [PY, "-m", "dbjson", command, *args, *(f for f in flags if f in self.have[command])]

    def wants(self, tool: str) -> bool:
        return tool in self.tools

    def fresh(self, path: Path) -> Path:
        shutil.rmtree(path, ignore_errors=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def check_import(
        self,
        server: ds.Server,
        r: Result,
        database: str,
        schema: str | None = None,
        source: ds.Server | None = None,
    ) -> Result:
        """Mark a load 'wrong rows' unless every table arrived complete, then check its content
        independently against the source database (``source``, default the same server)."""
        if r.ok:
            got = ds.count_rows(server, database, schema, self.dset)
            if got != ds.table_rows(self.rows, self.dset):
                r.status = "wrong rows"
                r.note = f"row counts {got}"
            else:
                r.content_ok, r.check = self.check_content(source or server, server, database, schema)
        return self.record(r)

    def check_content(
        self, source: ds.Server, target: ds.Server, database: str, schema: str | None = None
    ) -> tuple[bool | None, str]:
        """Compare every column of ``database`` with the source database (bench/content.py)."""
        same = source.engine == target.engine and schema is None
        mode = "server" if same else "normalized"
        key = (self.dset.name, source.engine, mode)
        digest = content.server_digests if same else content.normalized_digests
        try:
            if key not in self.expected:
                self.expected[key] = digest(source, self.db, self.dset)
            return content.compare(self.expected[key], digest(target, database, self.dset, schema))
        except Exception as e:  # noqa: BLE001 - a peer's different table layout: reported, not fatal
            return False, f"content check failed: {type(e).__name__}: {str(e)[:200]}"

    # ----------------------------------------------------------------- the run

    def main(self) -> int:
        self.work.mkdir(parents=True, exist_ok=True)
        self.info.update(machine_info())
        self.info["load_before"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
        self.say(f"dbjson benchmark: {self.rows:,} rows, engines {self.args.engines}, work dir {self.work}")
        self.info["bytecode"] = precompile()
        startup = measure([PY, "-m", "dbjson", "--version"])
        self.info["startup"] = f"{startup.seconds:.2f} s wall, {startup.cpu_s:.2f} s CPU"
        if not self.have["export"] or not self.have["import"]:
            self.say("  dbjson export/import: not available in this checkout yet (reported as such)")
        for dataset in self.datasets:
            self.use(dataset)
            self.say(f"== dataset {dataset.name}: {dataset.about}; database {self.db}")
            loaded: list[str] = []
            for engine in self.args.engines.split(","):
                server = self.servers[engine]
                key = f"{dataset.name}_{engine}"
                try:
                    t0 = time.perf_counter()
                    fresh = ds.ensure_loaded(server, self.db, self.rows, self.args.seed, self.work / "data", dataset)
                    self.info[f"load_{key}"] = f"{time.perf_counter() - t0:.1f} s" if fresh else "reused"
                    self.info[f"version_{engine}"] = server_version(server)
                except Exception as e:  # noqa: BLE001 - a dead server must not stop the other engines
                    self.say(f"  {engine}: cannot load the dataset ({type(e).__name__}: {e}); skipped")
                    self.info[f"version_{engine}"] = f"not reachable ({type(e).__name__})"
                    continue
                loaded.append(engine)
                size = ds.data_bytes(self.rows, self.args.seed, self.work / "data", dataset)
                if size:
                    self.info[f"bytes_{dataset.name}"] = str(size)
                self.say(f"{engine}: dataset {self.info[f'load_{key}']}")
                self.guarded(engine, self.export_engine, server)
                self.guarded(engine, self.import_engine, server)
                self.cleanup(engine)
            if self.wants("verify"):
                self.guarded(f"{dataset.name}: verify", lambda _, loaded=loaded: self.verifies(loaded), None)
            self.guarded(f"{dataset.name}: moves", lambda _, loaded=loaded: self.migrations(loaded), None)
        self.info["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
        self.drop_target(timeout=30)
        if self.leftovers:
            names = ", ".join(f"{srv.engine}:{name}" for srv, name in self.leftovers)
            self.say(f"  could not drop {names} (a server lock wait); drop them by hand")
        self.write_reports()
        if not self.args.keep:
            shutil.rmtree(self.work / "runs", ignore_errors=True)
        return 0

    def guarded(self, what: str, fn: Callable[[Any], None], arg: Any) -> None:
        """Run one section; a server problem (e.g. a lock timeout) ends that section, not the run."""
        try:
            fn(arg)
        except Exception as e:  # noqa: BLE001
            self.info.setdefault("aborted", "")
            self.info["aborted"] += f"{what}: {type(e).__name__}: {str(e)[:300]}; "
            self.say(f"  {what}: section aborted ({type(e).__name__}: {e})")

    def write_reports(self) -> None:
        report = render(self)
        if self.args.out:
            Path(self.args.out).write_text(report, encoding="utf-8")
            self.say(f"wrote {self.args.out}")
        if self.args.json:
            Path(self.args.json).write_text(
                json.dumps(
                    {
                        "rows": self.rows,
                        "args": vars(self.args),
                        "info": self.info,
                        "results": [asdict(r) | {"rows_per_s": r.rows_per_s} for r in self.results],
                        "targets": [asdict(t) for t in targets(self)],
                    },
                    indent=2,
                ),
                encoding="utf-8",
            )

    def cleanup(self, engine: str) -> None:
        if not self.args.keep:
            for p in self.rdir(engine).glob("*"):
                if p.name != "dbjson-t2":
                    shutil.rmtree(p, ignore_errors=True)
            shutil.rmtree(self.outfile_dir(self.servers[engine])[0], ignore_errors=True)

    def out(self, engine: str, name: str) -> Path:
        return self.fresh(self.rdir(engine) / name)

    def empty_dir(self, path: Path, mode: int = 0o755) -> Callable[[], Path]:
        """A ``prepare`` callback: ``path`` recreated as an empty directory."""

        def prepare() -> Path:
            self.fresh(path).mkdir()
            path.chmod(mode)
            return path

        return prepare

    # ----------------------------------------------------------------- export

    def outfile_dir(self, server: ds.Server) -> tuple[Path, str]:
        """(host path, server path) of the directory SELECT ... INTO OUTFILE writes into."""
        server_path = f"/tmp/dbjson-bench-outfile/{self.db}/{server.engine}"  # per run: runs may overlap
        return Path(server.fs_root or "/") / server_path.lstrip("/"), server_path

    def native_export(self, server: ds.Server) -> tuple[Result, Path]:
        e = server.engine
        script = self.rdir(e) / "native-export.sql"
        script.parent.mkdir(parents=True, exist_ok=True)
        if server.family == "postgresql":
            out = self.rdir(e) / "native"
            script.write_text(
                "".join(f"\\copy \"{t.name}\" TO '{out / (t.name + '.tsv')}'\n" for t in self.dset.tables)
            )
            return self.run(
                e,
                "export",
                "native",
                "COPY TO (psql \\copy)",
                psql(server, self.db, script),
                env=client_env(server),
                baseline=True,
                prepare=self.empty_dir(out),
            ), out
        host, srv = self.outfile_dir(server)
        sql = "SET time_zone = '+00:00';\n" + "".join(
            f"SELECT {outfile_columns(t)} INTO OUTFILE '{srv}/{t.name}.tsv' FROM `{t.name}`;\n"
            for t in self.dset.tables
        )
        script.write_text(sql)
        return self.run(
            e,
            "export",
            "native",
            "SELECT INTO OUTFILE",
            my_client(server, self.db),
            stdin=script,
            env=client_env(server),
            baseline=True,
            prepare=self.empty_dir(host, 0o777),
        ), host

    def export_engine(self, server: ds.Server) -> None:
        e = server.engine
        runs = self.rdir(e)
        if self.wants("native"):
            self.native_export(server)  # warm-up: the same data read once before any timed step
            r, _ = self.native_export(server)
            self.record(r)
        if server.family == "postgresql" and self.wants("pg_dump"):
            self.record(
                self.run(
                    e,
                    "export",
                    "pg_dump",
                    "pg_dump -Fd -Z0 -j 2",
                    [
                        "pg_dump",
                        "-h",
                        server.host,
                        "-p",
                        str(server.port),
                        "-U",
                        server.user,
                        "-Fd",
                        "-Z0",
                        "-j",
                        "2",
                        "-f",
                        str(runs / "pg_dump"),
                        self.db,
                    ],
                    env=client_env(server),
                    prepare=lambda: self.out(e, "pg_dump"),
                )
            )
        if server.family == "mysql" and self.wants("mydumper"):
            if shutil.which("mydumper"):
                cmd = [
                    "mydumper",
                    "-h",
                    server.host,
                    "-P",
                    str(server.port),
                    "-u",
                    server.user,
                    "-B",
                    self.db,
                    "-t",
                    "2",
                    "-r",
                    "100000",
                    "-o",
                    str(runs / "mydumper"),
                ]
                self.record(
                    self.run(
                        e,
                        "export",
                        "mydumper",
                        "mydumper -t 2 -r 100000",
                        cmd + (["-p", server.password] if server.password else []),
                        prepare=lambda: self.out(e, "mydumper"),
                    )
                )
            else:
                self.unavailable(e, "export", "mydumper", "mydumper -t 2", "mydumper not installed (bench/setup.sh)")
        if server.family == "mysql" and self.wants("dump"):
            prog = "mariadb-dump" if server.engine == "mariadb" else "mysqldump"
            if shutil.which(prog):
                out = self.empty_dir(runs / "dump")()
                cmd = [
                    prog,
                    "-h",
                    server.host,
                    "-P",
                    str(server.port),
                    "-u",
                    server.user,
                    "--single-transaction",
                    "--default-character-set=utf8mb4",
                    self.db,
                ]
                self.record(
                    self.run(
                        e,
                        "export",
                        "dump",
                        f"{prog} (single stream)",
                        cmd,
                        stdout=out / "dump.sql",
                        env=client_env(server),
                    )
                )
            else:
                self.unavailable(e, "export", "dump", prog, f"{prog} not installed")
        if self.wants("naive"):
            self.record(
                self.run(
                    e,
                    "export",
                    "naive",
                    "naive Python (orjson per row)",
                    [PY, "-m", "bench.naive", "export", e, self.db, str(runs / "naive"), self.dset.name],
                    prepare=lambda: self.out(e, "naive"),
                )
            )
        if self.wants("dbjson"):
            for threads in self.dbjson_threads():
                label = f"dbjson export --threads {threads}"
                if not self.have["export"]:
                    self.unavailable(e, "export", "dbjson", label, "dbjson export not in this checkout yet")
                    continue
                out = runs / f"dbjson-t{threads}"
                self.record(
                    self.run(
                        e,
                        "export",
                        "dbjson",
                        label,
                        self.dbjson("export", server.db_url(self.db), "-o", str(out), "--threads", str(threads)),
                        prepare=functools.partial(self.fresh, out),
                    )
                )

    # ----------------------------------------------------------------- import

    def new_target(self, server: ds.Server) -> str:
        """Drop the previous import database (best effort) and create a new, empty, uniquely named one.

        New names rather than drop-and-recreate: on PostgreSQL a DROP DATABASE waits for every
        backend of the server, so someone else's stuck session would otherwise stall the run.
        """
        self.drop_target()
        self.imp_seq += 1
        self.imp = f"{self.db}_imp{self.imp_seq}"
        ds.recreate_database(server, self.imp)
        self.leftovers.append((server, self.imp))
        return self.imp

    def drop_target(self, timeout: int = 5) -> None:
        """Drop the import databases made so far; those that cannot be dropped now stay listed."""
        keep = []
        for server, name in self.leftovers:
            try:
                ds.drop_database(server, name, timeout=timeout)
            except Exception:  # noqa: BLE001 - retried later; reported if still there at the end
                keep.append((server, name))
        self.leftovers = keep

    def import_step(
        self,
        server: ds.Server,
        tool: str,
        label: str,
        cmd: Callable[[str], Sequence[str]],
        *,
        stdin: Path | None = None,
        baseline: bool = False,
    ) -> Result:
        """Run one import (``cmd(database)``) into a new empty database and check the row counts."""
        e = server.engine
        r = self.run(
            e,
            "import",
            tool,
            label,
            lambda: cmd(self.imp),
            stdin=stdin,
            env=client_env(server),
            baseline=baseline,
            prepare=lambda: self.new_target(server),
        )
        self.check_import(server, r, self.imp)
        return r

    def native_import(self, server: ds.Server) -> None:
        e = server.engine
        pre, post = ds.ddl(server.family, self.dset)
        script = self.rdir(e) / "native-import.sql"
        if server.family == "postgresql":
            src = self.rdir(e) / "native"
            body = [s + ";\n" for s in pre]
            body += [f"\\copy \"{t.name}\" FROM '{src / (t.name + '.tsv')}'\n" for t in self.dset.tables]
            body += [s + ";\n" for s in post]
            script.write_text("".join(body))
            self.import_step(
                server, "native", "COPY FROM (psql \\copy)", lambda db: psql(server, db, script), baseline=True
            )
            return
        _, srv = self.outfile_dir(server)
        body = ["SET foreign_key_checks = 0;\nSET unique_checks = 0;\nSET time_zone = '+00:00';\n"]
        body += [s + ";\n" for s in pre]
        body += [ds.load_data_sql(t, f"{srv}/{t.name}.tsv", local=False) + ";\n" for t in self.dset.tables]
        script.write_text("".join(body))
        self.import_step(
            server, "native", "LOAD DATA INFILE", lambda db: my_client(server, db), stdin=script, baseline=True
        )

    def import_engine(self, server: ds.Server) -> None:
        e = server.engine
        runs = self.rdir(e)
        if self.wants("native") and self.ok(e, "export", "native"):
            self.native_import(server)
        if server.family == "postgresql" and self.wants("pg_dump") and self.ok(e, "export", "pg_dump"):
            self.import_step(
                server,
                "pg_dump",
                "pg_restore -j 2",
                lambda db: [
                    "pg_restore",
                    "-h",
                    server.host,
                    "-p",
                    str(server.port),
                    "-U",
                    server.user,
                    "-j",
                    "2",
                    "-d",
                    db,
                    str(runs / "pg_dump"),
                ],
            )
        if server.family == "mysql" and self.wants("mydumper") and self.ok(e, "export", "mydumper"):
            pw = ["-p", server.password] if server.password else []
            self.import_step(
                server,
                "mydumper",
                "myloader -t 2",
                lambda db: [
                    "myloader",
                    "-h",
                    server.host,
                    "-P",
                    str(server.port),
                    "-u",
                    server.user,
                    "-t",
                    "2",
                    "-d",
                    str(runs / "mydumper"),
                    "-B",
                    db,
                    "-o",
                    *pw,
                ],
            )
        if server.family == "mysql" and self.wants("dump") and self.ok(e, "export", "dump"):
            prog = "mariadb" if server.engine == "mariadb" else "mysql"
            self.import_step(
                server,
                "dump",
                f"{prog} client < dump",
                lambda db: my_client(server, db, prog),
                stdin=runs / "dump" / "dump.sql",
            )
        if self.wants("naive") and self.ok(e, "export", "naive"):
            self.import_step(
                server,
                "naive",
                "naive Python (executemany 1000)",
                lambda db: [PY, "-m", "bench.naive", "import", e, db, str(runs / "naive"), self.dset.name],
            )
        if self.wants("dbjson"):
            self.dbjson_imports(server)
        self.drop_target()

    def dbjson_imports(self, server: ds.Server) -> None:
        """``dbjson import`` of the ``--threads 2`` export: ``--threads 1`` and ``2`` with ``--no-verify``,
        and ``--threads 2`` with its defaults (verify on)."""
        e = server.engine
        made_by = next((t for t in (2, 1) if self.ok(e, "export", "dbjson", f"--threads {t}")), None)
        src = self.rdir(e) / f"dbjson-t{made_by}"
        for threads, verify in ((1, False), (2, False), (2, True)):
            if threads not in self.dbjson_threads():
                continue
            label = f"dbjson import --threads {threads}" + ("" if verify else " --no-verify")
            if not self.have["import"]:
                self.unavailable(e, "import", "dbjson", label, "dbjson import not in this checkout yet")
                continue
            if made_by is None:
                self.unavailable(e, "import", "dbjson", label, "no dbjson export to import")
                continue
            label += "" if made_by == 2 else " (of the --threads 1 export)"

            def import_cmd(db: str, n: int = threads, v: bool = verify) -> list[str]:
                flags = ("--quiet",) if v else ("--quiet", "--no-verify")
                return self.dbjson("import", str(src), server.db_url(db), "--threads", str(n), flags=flags)

            self.import_step(server, "dbjson", label, import_cmd)

    def dbjson_threads(self) -> tuple[int, ...]:
        """The ``--threads`` settings dbjson's own export and import steps are timed with."""
        return (2,) if getattr(self.args, "no_single_thread", False) else (1, 2)

    def ok(self, engine: str, phase: str, tool: str, label_part: str = "") -> bool:
        return any(
            r.ok
            and r.engine == engine
            and r.phase == phase
            and r.tool == tool
            and label_part in r.label
            and r.dataset == self.dset.name
            for r in self.results
        )

    def timed_verify(self, engine: str, label: str, export_dir: Path, target: ds.Server) -> Result:
        """Time ``dbjson verify --threads 2`` of ``export_dir`` against the current import database."""
        v = measure(
            self.dbjson("verify", str(export_dir), target.db_url(self.imp), "--threads", "2"),
            timeout=self.args.timeout,
        )
        return self.record(
            Result(
                engine,
                "verify",
                "verify",
                label,
                rows=self.rows,
                seconds=v.seconds if v.returncode == 0 else None,
                maxrss_kb=v.maxrss_kb,
                cpu_s=v.cpu_s,
                status="ok" if v.returncode == 0 else "failed",
                note="" if v.returncode == 0 else f"exit {v.returncode}: {v.err[-300:]}",
            )
        )

    # ----------------------------------------------------------------- verify: same engine vs across engines

    def verifies(self, engines: list[str]) -> None:
        """``dbjson verify`` of one export against a same-engine import and a cross-engine import of it.

        For each pair (A, B) of VERIFY_PAIRS: A's ``dbjson export --threads 2`` (the export section's)
        is imported with ``--no-verify`` into a new database on A and one on B (the latter timed, as
        ``dbjson export + import``, with the content check against A's source), then ``dbjson verify
        --threads 2`` is timed against each.
        """
        for a, b in VERIFY_PAIRS:
            if a not in engines or b not in engines or not self.have["verify"]:
                continue
            src, dst = self.servers[a], self.servers[b]
            exp = next(
                (
                    r
                    for r in self.results
                    if r.ok
                    and r.dataset == self.dset.name
                    and r.engine == a
                    and r.phase == "export"
                    and r.tool == "dbjson"
                    and "--threads 2" in r.label
                ),
                None,
            )
            export_dir = self.rdir(a) / "dbjson-t2"
            if exp is None or not (export_dir / "manifest.json").exists():
                self.unavailable(f"{a}->{b}", "verify", "verify", "dbjson verify", f"no dbjson export of {a}")
                continue
            self.say(f"{a} -> {a} / {b}: dbjson verify")
            self.new_target(src)
            p = measure(
                self.dbjson(
                    "import", str(export_dir), src.db_url(self.imp), "--threads", "2", flags=("--quiet", "--no-verify")
                ),
                timeout=self.args.timeout,
            )
            if p.returncode == 0:
                self.timed_verify(f"{a}->{a}", "dbjson verify --threads 2 (same engine)", export_dir, src)
            else:
                self.unavailable(f"{a}->{a}", "verify", "verify", "dbjson verify", f"import failed: {p.err[-300:]}")
            r = self.run(
                f"{a}->{b}",
                "migrate",
                "dbjson",
                f"dbjson import --threads 2 --no-verify ({b})",
                lambda dst=dst, export_dir=export_dir: self.dbjson(
                    "import",
                    str(export_dir),
                    dst.db_url(self.imp),
                    "--threads",
                    "2",
                    flags=("--quiet", "--no-verify"),
                ),
                prepare=lambda dst=dst: self.new_target(dst),
            )
            if r.seconds is not None and exp.seconds is not None:
                r.note = f"import {r.seconds:.2f} s + {a} export {exp.seconds:.2f} s"
                r.label = "dbjson export + import --no-verify (--threads 2)"
                r.seconds += exp.seconds
                r.cpu_s = (r.cpu_s or 0.0) + (exp.cpu_s or 0.0)
                r.maxrss_kb = max(r.maxrss_kb or 0, exp.maxrss_kb or 0)
            self.check_import(dst, r, self.imp, source=src)
            if r.ok:
                self.timed_verify(f"{a}->{b}", "dbjson verify --threads 2 (cross-engine)", export_dir, dst)
        self.drop_target()

    # ----------------------------------------------------------------- moves between servers

    def migrations(self, engines: list[str]) -> None:
        """One database moved from server A to a new empty database on B, by ``dbjson migrate --threads 2``
        (defaults, verify on; and ``--no-verify``) and by the peers a user would pick instead:
        ``pgcopydb clone`` (PostgreSQL → PostgreSQL), pgloader, Sling and dlt (MySQL family →
        PostgreSQL). Every result gets the row count and content check against A's database."""
        for a, b in MIGRATIONS:
            if a not in engines or b not in engines:
                continue
            src, dst = self.servers[a], self.servers[b]
            e = f"{a}->{b}"
            self.say(f"{a} -> {b}")
            if a == b == "postgresql" and self.wants("pgcopydb"):
                self.pgcopydb(src, dst)
            if a != b and b == "postgresql":
                if self.wants("pgloader"):
                    self.pgloader(src, dst)
                if self.wants("sling"):
                    self.sling(src, dst)
                if self.wants("dlt"):
                    self.dlt(src, dst)
            if not self.wants("migrate"):
                continue
            for verify in (True, False):
                label = "dbjson migrate --threads 2" + ("" if verify else " --no-verify")
                r = self.run(
                    e,
                    "migrate",
                    "migrate",
                    label,
                    lambda src=src, dst=dst, v=verify: [
                        PY,
                        "-m",
                        "dbjson",
                        "migrate",
                        src.db_url(self.db),
                        dst.db_url(self.imp),
                        "--threads",
                        "2",
                        "--quiet",
                        *(() if v else ("--no-verify",)),
                    ],
                    env={**client_env(dst), **client_env(src)},
                    prepare=lambda dst=dst: self.new_target(dst),
                )
                self.check_import(dst, r, self.imp, source=src)
        self.drop_target()

    def pgcopydb(self, src: ds.Server, dst: ds.Server) -> None:
        e = f"{src.engine}->{dst.engine}"
        label = "pgcopydb clone --table-jobs 2 --index-jobs 2"
        if not shutil.which("pgcopydb"):
            self.unavailable(e, "migrate", "pgcopydb", label, "pgcopydb not installed (bench/setup.sh)")
            return
        work = self.rdir(e) / "pgcopydb"
        r = self.run(
            e,
            "migrate",
            "pgcopydb",
            label,
            lambda: [
                "pgcopydb",
                "clone",
                "--source",
                pg_uri(src, self.db),
                "--target",
                pg_uri(dst, self.imp),
                "--table-jobs",
                "2",
                "--index-jobs",
                "2",
                "--no-owner",
                "--no-acl",
                "--dir",
                str(work),
            ],
            env={**client_env(src), "PGCOPYDB_LOG_LEVEL": "error"},
            baseline=True,
            prepare=lambda: (self.new_target(dst), self.fresh(work)),
        )
        self.check_import(dst, r, self.imp, source=src)

    def pgloader(self, src: ds.Server, dst: ds.Server) -> None:
        e = f"{src.engine}->{dst.engine}"
        if not shutil.which("pgloader"):
            self.unavailable(e, "migrate", "pgloader", "pgloader", "pgloader not installed (bench/setup.sh)")
            return
        r = self.run(
            e,
            "migrate",
            "pgloader",
            "pgloader (defaults)",
            self.pgloader_cmd(src, dst),
            env={**client_env(dst), **client_env(src)},
            baseline=True,
            prepare=lambda: self.new_target(dst),
        )
        self.check_import(dst, r, self.imp, schema=self.db, source=src)
        if r.status in ("failed", "wrong rows"):  # pgloader exits 0 when it cannot connect to the source
            r.note = (r.note + "; " if r.note else "") + pgloader_error(self.pgloader_cmd(src, dst)(), dst)
        if r.status == "failed" and ("Heap exhausted" in r.note or "fatal error encountered in SBCL" in r.note):
            # pgloader's defaults (prefetch rows = 100000) exhaust SBCL's heap on wide rows ("Heap
            # exhausted", or "GC invariant lost" as its collector gives up); its documented remedy is
            # fewer rows in flight. The failed default run stays in the report.
            again = self.run(
                e,
                "migrate",
                "pgloader",
                "pgloader (prefetch rows = 10000: its defaults crashed SBCL's heap)",
                self.pgloader_cmd(src, dst, "prefetch rows = 10000"),
                env={**client_env(dst), **client_env(src)},
                baseline=True,
                prepare=lambda: self.new_target(dst),
            )
            self.check_import(dst, again, self.imp, schema=self.db, source=src)

    def sling(self, src: ds.Server, dst: ds.Server) -> None:
        """Sling (``sling run -r``: a replication of every table, full refresh, defaults)."""
        e = f"{src.engine}->{dst.engine}"
        label = "sling run (full-refresh, defaults)"
        binary = tool_path("sling", self.work)
        if binary is None:
            self.unavailable(e, "migrate", "sling", label, "sling not installed (bench/setup.sh)")
            return
        work = self.rdir(e) / "sling"
        spec = work / "replication.yaml"

        def prepare() -> None:
            self.new_target(dst)
            self.fresh(work).mkdir()
            streams = "".join(f"  {self.db}.{t.name}: {{}}\n" for t in self.dset.tables)
            spec.write_text(
                "source: BENCH_SRC\ntarget: BENCH_DST\ndefaults:\n  mode: full-refresh\n"
                "  object: public.{stream_table}\nstreams:\n" + streams
            )

        r = self.run(
            e,
            "migrate",
            "sling",
            label,
            lambda: [str(binary), "run", "-r", str(spec)],
            env=lambda: {
                "BENCH_SRC": my_uri(src, self.db),
                "BENCH_DST": pg_uri(dst, self.imp) + "?sslmode=disable",
                "SLING_HOME_DIR": str(work),
                "SLING_DISABLE_TELEMETRY": "true",
            },
            prepare=prepare,
            # Sling stops after a server error without exiting: do not wait --timeout for it
            timeout=min(self.args.timeout, max(120.0, self.rows / 2000)),
            # (it logs the server's error as a warning, then waits: seen on the wide data's bytea)
            give_up=re.compile(r'execution failed|fatal:|"Severity":"(?:ERROR|FATAL)"'),
        )
        self.check_import(dst, r, self.imp, schema="public", source=src)

    def dlt(self, src: ds.Server, dst: ds.Server) -> None:
        """dlt's ``sql_database`` source into its ``postgres`` destination (bench/dlt_move.py)."""
        e = f"{src.engine}->{dst.engine}"
        label = "dlt sql_database → postgres (defaults)"
        python = tool_path("python", self.work)
        if python is None or subprocess.run([str(python), "-c", "import dlt"], capture_output=True).returncode:
            self.unavailable(e, "migrate", "dlt", label, "dlt not installed (bench/setup.sh)")
            return
        work = self.rdir(e) / "dlt"
        r = self.run(
            e,
            "migrate",
            "dlt",
            label,
            lambda: [
                str(python),
                str(REPO / "bench" / "dlt_move.py"),
                make_url(src.db_url(self.db)).set(drivername="mysql+pymysql").render_as_string(hide_password=False),
                pg_uri(dst, self.imp),
                "dlt_bench",
                ",".join(t.name for t in self.dset.tables),
                str(work),
            ],
            env={
                "RUNTIME__DLTHUB_TELEMETRY": "false",
                "DLT_DATA_DIR": str(work),
                # dlt insists on a password even where the server trusts the connection
                "DESTINATION__POSTGRES__CREDENTIALS__PASSWORD": dst.password or "unused-trust-auth",
            },
            prepare=lambda: (self.new_target(dst), self.fresh(work)),
        )
        self.check_import(dst, r, self.imp, schema="dlt_bench", source=src)

    def pgloader_cmd(self, src: ds.Server, dst: ds.Server, with_: str = "") -> Callable[[], list[str]]:
        extra = ["--with", with_] if with_ else []
        return lambda: ["pgloader", *extra, my_uri(src, self.db), pg_uri(dst, self.imp)]


VERIFY_PAIRS = (("mariadb", "postgresql"), ("postgresql", "mariadb"))
MIGRATIONS = (
    ("postgresql", "postgresql"),
    ("mariadb", "postgresql"),
    ("mysql", "postgresql"),
    ("postgresql", "mariadb"),
    ("postgresql", "mysql"),
)


def pg_uri(server: ds.Server, database: str) -> str:
    """A libpq URI (pgcopydb, pgloader, Sling, dlt); the password comes from PGPASSWORD, not the URI."""
    return f"postgresql://{server.user}@{server.host}:{server.port}/{database}"


def my_uri(server: ds.Server, database: str) -> str:
    """A mysql:// URI for pgloader and Sling (the password comes from MYSQL_PWD)."""
    return f"mysql://{server.user}@{server.host}:{server.port}/{database}"


def tool_path(name: str, work: Path) -> Path | None:
    """A peer installed by bench/setup.sh into its own venv (``<work>/tools``): ``sling`` or ``python``."""
    for root in (work / "tools", Path(os.environ.get("DBJSON_BENCH_WORK", "/tmp/dbjson-bench")) / "tools"):
        if name == "python" and (root / "bin" / "python").exists():
            return root / "bin" / "python"
        if name == "sling":
            found = sorted(root.glob("lib/python*/site-packages/sling_linux_amd64/bin/sling-linux-amd64"))
            if found:
                found[0].chmod(0o755)
                return found[0]
    found_on_path = shutil.which(name) if name == "sling" else None
    return Path(found_on_path) if found_on_path else None


def pgloader_error(cmd: Sequence[str] | None, dst: ds.Server, err: str = "") -> str:
    """pgloader's first ERROR line (it exits 0 when it cannot connect to the source)."""
    if cmd is not None:
        p = subprocess.run(
            list(cmd), capture_output=True, text=True, timeout=300, env={**os.environ, **client_env(dst)}, check=False
        )
        err = p.stdout + p.stderr  # pgloader logs its errors on stdout
    line = next((ln for ln in err.replace(" | ", "\n").splitlines() if "ERROR" in ln), "")
    return "pgloader: " + (line.split("ERROR", 1)[1].strip()[:300] if line else "no error message")


def outfile_columns(t: ds.Table) -> str:
    """The select list for INTO OUTFILE: binary columns as HEX() (MySQL 9's LOAD DATA rejects raw bytes)."""
    return ", ".join(f"HEX(`{c.name}`)" if c.kind == "binary" else f"`{c.name}`" for c in t.columns)


def server_version(server: ds.Server) -> str:
    if server.family == "postgresql":
        with ds.pg_connect(server) as conn:
            return str(conn.execute("SHOW server_version").fetchone()[0])  # type: ignore[index]
    conn = ds.my_connect(server)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT version()")
            return str(cur.fetchone()[0])
    finally:
        conn.close()


# --------------------------------------------------------------------------- targets and report


@dataclass
class Target:
    """One goal from the issue (issue 19's Targets), evaluated on this run."""

    engine: str
    goal: str
    value: str
    status: str  # met | missed | n/a | info | invalid (content differs)
    dataset: str = "narrow"


def _get(b: Bench, engine: str, phase: str, tool: str, label_part: str = "", dataset: str = "") -> Result | None:
    """The first successful result matching (label_part: a substring; exact when it ends with '$')."""
    exact = label_part.endswith("$")
    part = label_part.rstrip("$")
    return next(
        (
            r
            for r in b.results
            if r.ok
            and r.engine == engine
            and r.phase == phase
            and r.tool == tool
            and (r.label == part if exact else part in r.label)
            and (not dataset or r.dataset == dataset)
        ),
        None,
    )


def _ratio_target(engine: str, goal: str, mine: Result | None, other: Result | None, need: float, what: str) -> Target:
    """``mine`` must reach ``need`` × the rows/s of ``other`` (need=1: faster wall clock).

    A dbjson result whose content check found a difference is 'invalid', whatever its speed.
    """
    dataset = mine.dataset if mine else other.dataset if other else ""
    if mine is None or other is None or not mine.seconds or not other.seconds:
        missing = "dbjson" if mine is None else what
        return Target(engine, goal, f"{missing} not available", "n/a", dataset)
    ratio = other.seconds / mine.seconds
    status = "met" if ratio >= need else "missed"
    if mine.content_ok is False:
        status = "invalid (content differs)"
    return Target(engine, goal, f"{ratio:.2f}× {what} ({mine.seconds:.2f} s vs {other.seconds:.2f} s)", status, dataset)


def targets(b: Bench) -> list[Target]:
    """Issue 19's targets, per dataset: export ≥ 0.8× bulk export and ahead of the dump tools; import
    --no-verify ≥ 0.8× the best native load, with verify ahead of pg_restore/myloader; migrate
    PostgreSQL → PostgreSQL ≥ 0.9× pgcopydb, MySQL family → PostgreSQL ≥ 2× pgloader and ahead of
    Sling and dlt where they succeed; a cross-engine verify at most 2× the same-engine one."""
    out: list[Target] = []
    engines = b.args.engines.split(",")
    datasets = ("narrow", "wide") if getattr(b.args, "dataset", "narrow") == "both" else (b.args.dataset,)
    for d in datasets:
        start = len(out)

        def get(engine: str, phase: str, tool: str, label: str = "", d: str = d) -> Result | None:
            return _get(b, engine, phase, tool, label, d)

        for engine in engines:
            exp = get(engine, "export", "dbjson", "--threads 2")
            out.append(
                _ratio_target(
                    engine,
                    "export --threads 2 ≥ 0.8× the engine's bulk export",
                    exp,
                    get(engine, "export", "native"),
                    0.8,
                    "bulk export",
                )
            )
            peer = get(engine, "export", "pg_dump") if engine == "postgresql" else get(engine, "export", "mydumper")
            name = "pg_dump -Fd -Z0 -j 2" if engine == "postgresql" else "mydumper -t 2"
            out.append(_ratio_target(engine, f"export --threads 2 ahead of {name}", exp, peer, 1, name))
            natives = [r for r in (get(engine, "import", "native"), get(engine, "import", "pg_dump")) if r]
            best = min(natives, key=lambda r: r.seconds or 0.0) if natives else None
            out.append(
                _ratio_target(
                    engine,
                    "import --threads 2 --no-verify ≥ 0.8× the best native load",
                    get(engine, "import", "dbjson", "dbjson import --threads 2 --no-verify"),
                    best,
                    0.8,
                    f"best native ({best.label})" if best else "native load",
                )
            )
            loader = get(engine, "import", "pg_dump") if engine == "postgresql" else get(engine, "import", "mydumper")
            lname = "pg_restore -j 2" if engine == "postgresql" else "myloader -t 2"
            out.append(
                _ratio_target(
                    engine,
                    f"import --threads 2 (verify on) ahead of {lname}",
                    get(engine, "import", "dbjson", "dbjson import --threads 2$"),
                    loader,
                    1,
                    lname,
                )
            )
        for a, c in MIGRATIONS:
            if a not in engines or c not in engines:
                continue
            e = f"{a}->{c}"
            for variant in ("dbjson migrate --threads 2$", "dbjson migrate --threads 2 --no-verify$"):
                mine = get(e, "migrate", "migrate", variant)
                shown = variant.rstrip("$").replace("dbjson ", "")
                if a == c == "postgresql":
                    out.append(
                        _ratio_target(
                            e,
                            f"{shown} ≥ 0.9× pgcopydb clone",
                            mine,
                            get(e, "migrate", "pgcopydb"),
                            0.9,
                            "pgcopydb",
                        )
                    )
                elif c == "postgresql":
                    out.append(
                        _ratio_target(e, f"{shown} ≥ 2× pgloader", mine, get(e, "migrate", "pgloader"), 2, "pgloader")
                    )
                    for tool, tname in (("sling", "Sling"), ("dlt", "dlt")):
                        other = get(e, "migrate", tool)
                        if other is None:
                            failed = next(
                                (
                                    r
                                    for r in b.results
                                    if r.engine == e and r.tool == tool and r.dataset == d and r.phase == "migrate"
                                ),
                                None,
                            )
                            why = f"{tname} {failed.status}" if failed else f"{tname} not run"
                            out.append(Target(e, f"{shown} ahead of {tname} (where it succeeds)", why, "n/a", d))
                        else:
                            out.append(_ratio_target(e, f"{shown} ahead of {tname}", mine, other, 1, tname))
                else:
                    out.append(
                        Target(
                            e,
                            f"{shown} (no peer moves this direction)",
                            f"{mine.seconds:.2f} s, {_fmt_rate(mine)} rows/s" if mine and mine.seconds else "failed",
                            "info" if mine else "n/a",
                            d,
                        )
                    )
        for a, c in VERIFY_PAIRS:
            cross, same = get(f"{a}->{c}", "verify", "verify"), get(f"{a}->{a}", "verify", "verify")
            goal = f"verify of {a}'s export: into {c} ≤ 2× into {a}"
            if cross is None or same is None or not cross.seconds or not same.seconds:
                if a in engines and c in engines:
                    out.append(Target(f"{a}->{c}", goal, "not available", "n/a", d))
                continue
            ratio = cross.seconds / same.seconds
            out.append(
                Target(
                    f"{a}->{c}",
                    goal,
                    f"{ratio:.2f}× ({cross.seconds:.2f} s vs {same.seconds:.2f} s)",
                    "met" if ratio <= 2 else "missed",
                    d,
                )
            )
        for t in out[start:]:
            t.dataset = d
    return out


ANALYSIS = REPO / "bench" / "analysis.md"  # hand-written profile notes appended to the report, when present
LOAD_FIGURES = REPO / "bench" / "load-figures.md"  # bench/load.py's figures, appended after them
PREAMBLE = """\
# dbjson performance

<!-- Written by `python -m bench.run` (bench/run.py); edit the preamble there, not here. -->

This page is generated by the benchmark in `bench/` (see `bench/README.md`). One run loads the same
deterministic datasets into MariaDB, MySQL 9 and PostgreSQL 15 and times, on the same data:

- **two datasets**: `narrow` (customers/products/orders/order_items, 70 % of the rows in a narrow
  `order_items`) and `wide`, shaped like what users move: an `events` table (33 % of the rows) with
  JSON documents of about 0.4 KB (nested objects, arrays, non-ASCII), TEXT bodies up to 4 KB and
  binary columns, beside customers/orders/order_lines (see `bench/dataset.py`).
- **export**: `dbjson export --threads 1` and `--threads 2`; the engine's own bulk export
  (PostgreSQL `COPY ... TO STDOUT` through `psql \\copy`; MySQL/MariaDB `SELECT ... INTO OUTFILE`,
  written by the server); `pg_dump -Fd -Z0 -j 2`; `mydumper -t 2 -r 100000`;
  `mariadb-dump`/`mysqldump` (single stream); a naive single-threaded Python exporter (`bench/naive.py`).
- **import** (each into a new empty database: schema, data, indexes and foreign keys):
  `dbjson import --threads 1 --no-verify`, `--threads 2 --no-verify` and `--threads 2` with its
  defaults (verify on) of the `--threads 2` export; the engine's own bulk load (`COPY ... FROM STDIN`
  via `psql \\copy`; `LOAD DATA INFILE` of the OUTFILE files); `pg_restore -j 2`; `myloader -t 2`;
  the `mariadb`/`mysql` client reading the dump; a naive Python importer (`executemany`, 1,000 rows).
- **verify**: `dbjson verify --threads 2` of one export against a same-engine import of it and
  against a cross-engine import of it (MariaDB's export into MariaDB and into PostgreSQL, and back).
- **moves between servers**, each into a new empty database: `dbjson migrate --threads 2` with its
  defaults (verify on) and with `--no-verify`; PostgreSQL → PostgreSQL against `pgcopydb clone
  --table-jobs 2 --index-jobs 2`; MariaDB/MySQL 9 → PostgreSQL against pgloader (defaults; when
  they exhaust its heap, as on the wide data, again with `--with "prefetch rows = 10000"`), Sling
  (`sling run`, full refresh) and dlt (`sql_database` source → `postgres` destination, defaults);
  PostgreSQL → MariaDB/MySQL 9 (no peer).

**Every load is checked by an independent content check** (`bench/content.py`), not by dbjson:
row counts, then every column of every table against the source database — within one engine the
servers' own hashes of the values as stored (PostgreSQL `hashtextextended(col::text)`, MySQL/MariaDB
`SHA2(col, 256)`), exact to the byte; across engines each value read by the driver and normalized by its
kind (numbers as numbers, booleans as 0/1, timestamps in UTC, JSON parsed with sorted keys, binary as
hex). A load whose content differs says which columns, and a dbjson figure with a content difference
makes its target "invalid" whatever the speed. A peer that fails is reported as failed, with its error.

Times are wall clock around one process (the median of `--repeat` runs); rows/s is the dataset's
total row count over that time; the ratio columns are relative to the bold row (the engine's bulk
path, or the peer a move is compared with). Peak RSS is the largest client-side process of the step
(its worker processes included; GNU time `%M`) and client CPU the user + system time of the step's
processes; the servers' memory and CPU are not in them.

**Read these figures as comparable only within one run.** The machine has 2 cores shared with the
three database servers, which are untuned (default buffer pools, durability on); the load average
before and after the run is recorded below. A target's status is computed from this run's figures.

## Schema reflection

`schema-dump` reads each catalog with one query per object kind (not one per table). Reflecting
1,000 tables of 10 columns each (with primary keys, a foreign key, defaults) — the tests
`test_reflects_1000_tables_quickly` in `tests/test_reflect_mysql.py` and
`tests/test_reflect_postgresql.py`, which assert under 15 s — measured on this 2-core machine:

| engine | machine idle | machine busy (load ≈ 6) |
|---|---:|---:|
| MySQL 9 | 0.32 s | 0.8–1.3 s |
| MariaDB 10.11 | 0.45 s | ≈ 1.0 s |
| PostgreSQL 15 | 0.74–0.97 s | – |
"""


def _fmt_rate(r: Result) -> str:
    return f"{r.rows_per_s:,.0f}" if r.rows_per_s else "–"


def _section(b: Bench, engine: str, phase: str, dataset: str) -> list[str]:
    rows = [r for r in b.results if r.engine == engine and r.phase == phase and r.dataset == dataset]
    if not rows:
        return []
    base = next((r for r in rows if r.baseline and r.ok), None)
    lines = [
        "| tool | wall s | rows/s | × bold row | client CPU s | peak RSS MB | status |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        ratio = f"{base.seconds / r.seconds:.2f}" if base and base.seconds and r.ok and r.seconds else "–"
        label = f"**{r.label}**" if r.baseline else r.label
        status = "; ".join(x for x in (r.status, r.note, r.check) if x)
        lines.append(
            f"| {label} | {r.seconds:.2f} | {_fmt_rate(r)} | {ratio} | {r.cpu_s or 0:.2f} | "
            f"{(r.maxrss_kb or 0) / 1024:.0f} | {status.replace('|', '/')} |"
            if r.ok
            else f"| {label} | – | – | – | – | – | {status.replace('|', '/')} |"
        )
    return lines


def machine_info() -> dict[str, str]:
    """Date, commit, machine and tool versions, taken when the run starts."""
    mem = next(
        (
            ln.split(":")[1].strip()
            for ln in Path("/proc/meminfo").read_text().splitlines()
            if ln.startswith("MemTotal")
        ),
        "?",
    )
    cpu = next(
        (
            ln.split(":")[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    commit = first_line(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]) or "?"
    dirty = first_line(["git", "-C", str(REPO), "status", "--porcelain", "--", "dbjson"])
    tools = {
        "dbjson": first_line([PY, "-m", "dbjson", "--version"]),
        "psql": first_line(["psql", "--version"]),
        "pg_dump": first_line(["pg_dump", "--version"]),
        "mariadb-dump": first_line(["mariadb-dump", "--version"]),
        "mydumper": first_line(["mydumper", "--version"]),
        "pgloader": first_line(["pgloader", "--version"]),
    }
    return {
        "date": f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        "commit": commit + (" plus uncommitted changes in dbjson/" if dirty else ""),
        "machine": f"{os.cpu_count()} CPUs ({cpu}), {mem} memory, {platform.platform()}, "
        f"Python {platform.python_version()}",
        "tools": "; ".join(f"{k} {v or 'not available'}" for k, v in tools.items()),
    }


def _datasets(b: Bench) -> list[ds.Dataset]:
    name = getattr(b.args, "dataset", "narrow")
    return [ds.DATASETS[n] for n in (("narrow", "wide") if name == "both" else (name,))]


def machine(b: Bench) -> list[str]:
    lines = [
        f"- date: {b.info.get('date')} (start of the run); dbjson commit {b.info.get('commit')}",
        f"- machine: {b.info.get('machine')}",
        f"- load average before / after the run: {b.info.get('load_before')} / {b.info.get('load_after')}",
        *([f"- conditions: {b.args.conditions}"] if getattr(b.args, "conditions", "") else []),
        f"- every step run {b.args.repeat}× (the median kept); seed {b.args.seed}",
    ]
    for d in _datasets(b):
        size = b.info.get(f"bytes_{d.name}")
        lines.append(
            f"- dataset `{d.name}`: {b.rows:,} rows ("
            + ", ".join(f"{k} {v:,}" for k, v in d.table_rows(b.rows).items())
            + (f"; {int(size) / 1e6:,.0f} MB of values" if size else "")
            + f"): {d.about}"
        )
    lines += [
        *([f"- sections aborted: {b.info['aborted']}"] if b.info.get("aborted") else []),
        f"- dbjson CLI start-up (`python -m dbjson --version`, included in every dbjson time): {b.info.get('startup')}"
        + (f"; dbjson's modules {b.info['bytecode']}" if b.info.get("bytecode") else ""),
    ]
    for engine in b.args.engines.split(","):
        loads = ", ".join(
            f"{d.name} {b.info.get(f'load_{d.name}_{engine}', b.info.get(f'load_{engine}', '?'))}" for d in _datasets(b)
        )
        lines.append(f"- {engine}: {b.info.get(f'version_{engine}', '?')} (dataset load: {loads})")
    lines.append(f"- tools: {b.info.get('tools')}")
    return lines


TITLES = {
    "postgresql": "PostgreSQL",
    "mariadb": "MariaDB",
    "mysql": "MySQL 9",
}


def _title(engine: str) -> str:
    return " → ".join(TITLES.get(part, part) for part in engine.split("->"))


def _sections(b: Bench, suffix: str = "") -> list[str]:
    """Every dataset's per-engine, per-phase result tables of run ``b``."""
    out: list[str] = []
    moves = [f"{a}->{c}" for a, c in MIGRATIONS] + [f"{a}->{a}" for a, _ in VERIFY_PAIRS]
    moves += [f"{a}->{c}" for a, c in VERIFY_PAIRS]
    for d in _datasets(b):
        out += ["", f"## Dataset `{d.name}`{suffix}"]
        for engine in dict.fromkeys([*b.args.engines.split(","), *moves]):
            for phase in ("export", "import", "migrate", "verify"):
                sec = _section(b, engine, phase, d.name)
                if sec:
                    out += ["", f"### {_title(engine)}: {phase} ({d.name}{suffix})", "", *sec]
    return out


def _targets(b: Bench) -> list[str]:
    out = ["| dataset | engine | target | this run | status |", "|---|---|---|---|---|"]
    return out + [f"| {t.dataset} | {_title(t.engine)} | {t.goal} | {t.value} | {t.status} |" for t in targets(b)]


def render(b: Bench, beside: Sequence[Bench] = ()) -> str:
    """The Markdown report of run ``b``; each run in ``beside`` (e.g. the same steps at 10M rows) follows it."""
    out = [PREAMBLE, "## This run", "", *machine(b), "", "## Targets (issue 19)", "", *_targets(b)]
    for other in beside:
        out += ["", f"## Targets at {other.rows:,} rows (a separate run)", "", *machine(other), "", *_targets(other)]
    out += _sections(b)
    for other in beside:
        out += _sections(other, f", {other.rows:,} rows")
    if ANALYSIS.exists():
        out += ["", ANALYSIS.read_text(encoding="utf-8").strip()]
    if LOAD_FIGURES.exists():  # written by bench/load.py (many tables, wide/long tables, big rows)
        out += ["", LOAD_FIGURES.read_text(encoding="utf-8").strip()]
    return "\n".join(out) + "\n"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--rows", type=int, default=1_000_000, help="total rows over the four tables (default 1,000,000)")
    p.add_argument(
        "--dataset",
        choices=("narrow", "wide", "both"),
        default="both",
        help="narrow: the four-table order dataset; wide: events with JSON documents, TEXT and binary (default both)",
    )
    p.add_argument(
        "--conditions", default="", help="free text on the machine's load during the run, shown in the report"
    )
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--engines", default="postgresql,mariadb,mysql")
    p.add_argument("--tools", default=",".join(TOOLS), help=f"subset of {','.join(TOOLS)}")
    p.add_argument("--database", default="dbjson_bench", help="source database (the import target is <name>_imp)")
    p.add_argument("--work", default="/tmp/dbjson-bench", help="data cache and outputs")
    p.add_argument("--out", default=str(REPO / "docs" / "performance.md"), help="Markdown report ('' for none)")
    p.add_argument("--json", default="", help="also write the results as JSON here")
    p.add_argument("--repeat", type=int, default=1, help="run every step N times and keep the median")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per step before it is killed")
    p.add_argument("--keep", action="store_true", help="keep the exported files")
    p.add_argument(
        "--no-single-thread",
        action="store_true",
        help="time dbjson's export and import only with --threads 2 (the targets' setting), not also with 1",
    )
    p.add_argument(
        "--concurrent",
        action="store_true",
        help="do not wait for other benchmark runs on this machine (figures not comparable)",
    )
    p.add_argument("--from-json", default="", help="no run: write --out again from a previous run's --json")
    p.add_argument(
        "--beside",
        action="append",
        default=[],
        metavar="JSON",
        help="with --from-json: also show this run's targets and tables (e.g. the 10M-row run); repeatable",
    )
    p.add_argument("--setup", action="store_true", help="run bench/setup.sh (apt-get install the tools) first")
    args = p.parse_args(argv)
    unknown = set(args.tools.split(",")) - set(TOOLS)
    if unknown:
        p.error(f"unknown tools {sorted(unknown)}")
    return args


@contextlib.contextmanager
def exclusive(name: str, why: str) -> Iterator[None]:
    """Hold the lock file ``/tmp/dbjson-bench-<name>.lock``, waiting (with a message) while another run has it."""
    path = Path(tempfile.gettempdir()) / f"dbjson-bench-{name}.lock"
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            print(f"waiting for another benchmark run ({fh.read().strip() or 'unknown'}): {why}", flush=True)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}: {' '.join(sys.argv[1:])}\n")
        fh.flush()
        yield


def load_run(path: Path) -> Bench:
    """A finished run, read back from its ``--json`` results (data only: nothing is executed)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    b = Bench.__new__(Bench)
    b.args = argparse.Namespace(**data["args"])
    b.rows, b.info = data["rows"], data["info"]
    fields = {f.name for f in dataclasses.fields(Result)}
    b.results = [Result(**{k: v for k, v in r.items() if k in fields}) for r in data["results"]]
    return b


def rerender(path: Path, out: str, beside: Sequence[str] = ()) -> int:
    """Write the Markdown report again from a run's ``--json`` results (e.g. after editing analysis.md)."""
    text = render(load_run(path), [load_run(Path(p)) for p in beside])
    Path(out).write_text(text, encoding="utf-8")
    print(f"wrote {out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json:
        return rerender(Path(args.from_json), args.out, args.beside)
    if args.setup:
        subprocess.run(["bash", str(REPO / "bench" / "setup.sh")], check=False)
    with contextlib.ExitStack() as locks:
        if not args.concurrent:
            locks.enter_context(
                exclusive(
                    "machine",
                    "runs that overlap on 2 cores and the same servers measure "
                    "each other (pass --concurrent for a run whose figures do not matter)",
                )
            )
        locks.enter_context(
            exclusive(f"db-{args.database}", f"it uses database {args.database} (pass another --database)")
        )
        return Bench(args).main()


if __name__ == "__main__":
    sys.exit(main())
