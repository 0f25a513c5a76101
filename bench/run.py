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

from . import dataset as ds

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
TOOLS = ("native", "naive", "dbjson", "pg_dump", "mydumper", "dump", "pgloader", "migrate")


@dataclass
class Result:
    """One measured step."""

    engine: str  # postgresql | mariadb | mysql | "mariadb->postgresql"
    phase: str  # export | import | migrate
    tool: str  # key of TOOLS
    label: str  # what ran, as shown in the report
    status: str = "ok"  # ok | failed | not available | wrong rows
    seconds: float | None = None
    maxrss_kb: int | None = None
    cpu_s: float | None = None  # user + system CPU of the client processes (not the server's)
    rows: int = 0
    note: str = ""
    baseline: bool = False  # the engine's bulk path the ratios are relative to

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
) -> Proc:
    """Run ``cmd`` (cwd = the repository), timing it and reading its peak RSS.

    The RSS comes from GNU time (``%M``: the largest process of the step) when /usr/bin/time is
    installed, else from ``wait4``, which also counts the forked copy of this Python process.
    """
    with (
        tempfile.TemporaryFile() as err,
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
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t0
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode("utf-8", "replace").strip().splitlines()[-6:]
        reported = (rss.read().strip().splitlines() or [""])[-1].split()
        if len(reported) == 3 and reported[0].isdigit():
            maxrss, cpu = int(reported[0]), float(reported[1]) + float(reported[2])
        else:
            maxrss, cpu = int(usage.ru_maxrss), usage.ru_utime + usage.ru_stime
    return Proc(seconds, maxrss, cpu, p.returncode, " | ".join(tail))


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
        self.db: str = args.database
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

    def record(self, r: Result) -> Result:
        self.results.append(r)
        if r.ok:
            rate = f"{r.rows_per_s:,.0f} rows/s" if r.rows_per_s else ""
            self.say(
                f"  {r.engine:>9} {r.phase:6} {r.label:44} {r.seconds:8.2f} s  {rate:>16}  "
                f"client CPU {r.cpu_s or 0:6.2f} s  peak RSS {(r.maxrss_kb or 0) / 1024:7.1f} MB {r.note}"
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
        env: dict[str, str] | None = None,
        baseline: bool = False,
        prepare: Callable[[], object] | None = None,
    ) -> Result:
        """Measure one step ``--repeat`` times (``prepare`` before each) and keep the fastest.

        ``cmd`` may be a function, called after ``prepare`` (import commands name the new database).

        The status is failed, with the error tail, as soon as one repetition exits non-zero.
        """
        r = Result(engine, phase, tool, label, rows=self.rows, baseline=baseline)
        for _ in range(self.args.repeat):
            try:
                if prepare:
                    prepare()
            except Exception as e:  # noqa: BLE001 - e.g. a DROP DATABASE that timed out: this step only
                r.status, r.note, r.seconds, r.maxrss_kb = "failed", f"setup: {type(e).__name__}: {e}", None, None
                break
            p = measure(cmd() if callable(cmd) else cmd, stdin=stdin, stdout=stdout, timeout=self.args.timeout, env=env)
            if p.returncode != 0:
                r.status, r.note, r.seconds, r.maxrss_kb = "failed", f"exit {p.returncode}: {p.err[-600:]}", None, None
                break
            if r.seconds is None or p.seconds < r.seconds:
                r.seconds, r.cpu_s = p.seconds, p.cpu_s
            r.maxrss_kb = max(r.maxrss_kb or 0, p.maxrss_kb)
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

    def check_import(self, server: ds.Server, r: Result, database: str, schema: str | None = None) -> Result:
        """Mark an import 'wrong rows' unless every table arrived complete."""
        if r.ok:
            got = ds.count_rows(server, database, schema)
            if got != ds.table_rows(self.rows):
                r.status = "wrong rows"
                r.note = f"row counts {got}"
        return self.record(r)

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
        for engine in self.args.engines.split(","):
            server = self.servers[engine]
            try:
                t0 = time.perf_counter()
                loaded = ds.ensure_loaded(server, self.db, self.rows, self.args.seed, self.work / "data")
                self.info[f"load_{engine}"] = f"{time.perf_counter() - t0:.1f} s" if loaded else "reused"
                self.info[f"version_{engine}"] = server_version(server)
            except Exception as e:  # noqa: BLE001 - a dead server must not stop the other engines
                self.say(f"  {engine}: cannot load the dataset ({type(e).__name__}: {e}); skipped")
                self.info[f"version_{engine}"] = f"not reachable ({type(e).__name__})"
                continue
            self.say(f"{engine}: dataset {self.info[f'load_{engine}']}")
            self.guarded(engine, self.export_engine, server)
            self.guarded(engine, self.import_engine, server)
            self.cleanup(engine)
        if {"mariadb", "postgresql"} <= set(self.args.engines.split(",")):
            self.guarded("mariadb->postgresql", lambda _: self.migrate(), None)
        if "postgresql" in self.args.engines.split(",") and self.wants("migrate"):
            self.guarded("dbjson migrate", lambda _: self.migrations(), None)
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
            for p in (self.work / "runs" / engine).glob("*"):
                if p.name != "dbjson-t2":
                    shutil.rmtree(p, ignore_errors=True)
            shutil.rmtree(self.outfile_dir(self.servers[engine])[0], ignore_errors=True)

    def out(self, engine: str, name: str) -> Path:
        return self.fresh(self.work / "runs" / engine / name)

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
        script = self.work / "runs" / e / "native-export.sql"
        script.parent.mkdir(parents=True, exist_ok=True)
        if server.family == "postgresql":
            out = self.work / "runs" / e / "native"
            script.write_text("".join(f"\\copy \"{t.name}\" TO '{out / (t.name + '.tsv')}'\n" for t in ds.TABLES))
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
            f"SELECT {outfile_columns(t)} INTO OUTFILE '{srv}/{t.name}.tsv' FROM `{t.name}`;\n" for t in ds.TABLES
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
        runs = self.work / "runs" / e
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
                    "pg_dump -Fd -j 2",
                    [
                        "pg_dump",
                        "-h",
                        server.host,
                        "-p",
                        str(server.port),
                        "-U",
                        server.user,
                        "-Fd",
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
                    [PY, "-m", "bench.naive", "export", e, self.db, str(runs / "naive")],
                    prepare=lambda: self.out(e, "naive"),
                )
            )
        if self.wants("dbjson"):
            for threads in (1, 2):
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
        pre, post = ds.ddl(server.family)
        script = self.work / "runs" / e / "native-import.sql"
        if server.family == "postgresql":
            src = self.work / "runs" / e / "native"
            body = [s + ";\n" for s in pre]
            body += [f"\\copy \"{t.name}\" FROM '{src / (t.name + '.tsv')}'\n" for t in ds.TABLES]
            body += [s + ";\n" for s in post]
            script.write_text("".join(body))
            self.import_step(
                server, "native", "COPY FROM (psql \\copy)", lambda db: psql(server, db, script), baseline=True
            )
            return
        _, srv = self.outfile_dir(server)
        body = ["SET foreign_key_checks = 0;\nSET unique_checks = 0;\nSET time_zone = '+00:00';\n"]
        body += [s + ";\n" for s in pre]
        body += [ds.load_data_sql(t, f"{srv}/{t.name}.tsv", local=False) + ";\n" for t in ds.TABLES]
        script.write_text("".join(body))
        self.import_step(
            server, "native", "LOAD DATA INFILE", lambda db: my_client(server, db), stdin=script, baseline=True
        )

    def import_engine(self, server: ds.Server) -> None:
        e = server.engine
        runs = self.work / "runs" / e
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
                lambda db: [PY, "-m", "bench.naive", "import", e, db, str(runs / "naive")],
            )
        if self.wants("dbjson"):
            self.dbjson_imports(server)
        self.drop_target()

    def dbjson_imports(self, server: ds.Server) -> None:
        e = server.engine
        made_by = next((t for t in (2, 1) if self.ok(e, "export", "dbjson", f"--threads {t}")), None)
        src = self.work / "runs" / e / f"dbjson-t{made_by}"
        for threads in (1, 2):
            label = f"dbjson import --threads {threads}"
            if not self.have["import"]:
                self.unavailable(e, "import", "dbjson", label, "dbjson import not in this checkout yet")
                continue
            if made_by is None:
                self.unavailable(e, "import", "dbjson", label, "no dbjson export to import")
                continue
            label += " --no-verify" if "--no-verify" in self.have["import"] else ""
            label += "" if made_by == 2 else " (of the --threads 1 export)"

            def import_cmd(db: str, n: int = threads) -> list[str]:
                return self.dbjson(
                    "import", str(src), server.db_url(db), "--threads", str(n), flags=("--quiet", "--no-verify")
                )

            r = self.import_step(server, "dbjson", label, import_cmd)
            if threads == 2 and r.ok and self.have["verify"]:
                v = measure(
                    self.dbjson("verify", str(src), server.db_url(self.imp), "--threads", "2"),
                    timeout=self.args.timeout,
                )
                self.record(
                    Result(
                        e,
                        "import",
                        "verify",
                        "dbjson verify --threads 2 (of that import)",
                        rows=self.rows,
                        seconds=v.seconds if v.returncode == 0 else None,
                        maxrss_kb=v.maxrss_kb,
                        cpu_s=v.cpu_s,
                        status="ok" if v.returncode == 0 else "failed",
                        note="" if v.returncode == 0 else f"exit {v.returncode}: {v.err[-300:]}",
                    )
                )

    def ok(self, engine: str, phase: str, tool: str, label_part: str = "") -> bool:
        return any(
            r.ok and r.engine == engine and r.phase == phase and r.tool == tool and label_part in r.label
            for r in self.results
        )

    # ----------------------------------------------------------------- MariaDB -> PostgreSQL

    def migrate(self) -> None:
        """pgloader MariaDB -> PostgreSQL against dbjson export (MariaDB) + dbjson import (PostgreSQL)."""
        my, pg = self.servers["mariadb"], self.servers["postgresql"]
        e = "mariadb->postgresql"
        self.say("MariaDB -> PostgreSQL")
        if self.wants("pgloader"):
            if shutil.which("pgloader"):
                src = f"mysql://{my.user}@{my.host}:{my.port}/{self.db}"
                r = self.run(
                    e,
                    "migrate",
                    "pgloader",
                    "pgloader (defaults)",
                    lambda: ["pgloader", src, f"postgresql://{pg.user}@{pg.host}:{pg.port}/{self.imp}"],
                    env={**client_env(pg), **client_env(my)},
                    baseline=True,
                    prepare=lambda: self.new_target(pg),
                )
                self.check_import(pg, r, self.imp, schema=self.db)
            else:
                self.unavailable(e, "migrate", "pgloader", "pgloader", "pgloader not installed (bench/setup.sh)")
        if self.wants("dbjson"):
            exp = next(
                (
                    r
                    for r in self.results
                    if r.ok
                    and r.engine == "mariadb"
                    and r.tool == "dbjson"
                    and r.phase == "export"
                    and "--threads 2" in r.label
                ),
                None,
            )
            src_dir = self.work / "runs" / "mariadb" / "dbjson-t2"
            if exp is None or not self.have["import"] or not src_dir.exists():
                self.unavailable(
                    e, "migrate", "dbjson", "dbjson export + import (--threads 2)", "needs dbjson export and import"
                )
            else:
                r = self.run(
                    e,
                    "migrate",
                    "dbjson",
                    "dbjson import --threads 2 (PostgreSQL)",
                    lambda: self.dbjson(
                        "import", str(src_dir), pg.db_url(self.imp), "--threads", "2", flags=("--quiet", "--no-verify")
                    ),
                    prepare=lambda: self.new_target(pg),
                )
                if r.seconds is not None and exp.seconds is not None:
                    r.note = f"import {r.seconds:.2f} s + MariaDB export {exp.seconds:.2f} s"
                    r.label = "dbjson export + import (--threads 2)"
                    r.seconds += exp.seconds
                    r.cpu_s = (r.cpu_s or 0.0) + (exp.cpu_s or 0.0)
                    r.maxrss_kb = max(r.maxrss_kb or 0, exp.maxrss_kb or 0)
                self.check_import(pg, r, self.imp)
                if r.ok and self.have["verify"]:
                    v = measure(
                        self.dbjson("verify", str(src_dir), pg.db_url(self.imp), "--threads", "2"),
                        timeout=self.args.timeout,
                    )
                    r.note += "; dbjson verify: " + (
                        "pass" if v.returncode == 0 else f"exit {v.returncode}: {v.err[-400:]}"
                    )
        self.drop_target()

    # ----------------------------------------------------------------- dbjson migrate (live, one command)

    def migrations(self) -> None:
        """``dbjson migrate --threads 2`` MariaDB/MySQL → PostgreSQL (against pgloader's defaults) and
        PostgreSQL → MariaDB/MySQL (pgloader cannot), each into a new empty database; rows checked."""
        engines = self.args.engines.split(",")
        for a, b in MIGRATIONS:
            if a not in engines or b not in engines:
                continue
            src, dst = self.servers[a], self.servers[b]
            e = f"{a}->{b}"
            self.say(f"{a} -> {b}: dbjson migrate")
            if a != "mariadb" and b == "postgresql" and self.wants("pgloader"):  # MariaDB's run is in migrate()
                r = self.run(
                    e,
                    "migrate",
                    "pgloader",
                    "pgloader (defaults)",
                    self.pgloader_cmd(src, dst),
                    env={**client_env(dst), **client_env(src)},
                    baseline=True,
                    prepare=lambda dst=dst: self.new_target(dst),
                )
                self.check_import(dst, r, self.imp, schema=self.db)
                if not r.ok:
                    r.note = (r.note + "; " if r.note else "") + pgloader_error(self.pgloader_cmd(src, dst)(), dst)
            r = self.run(
                e,
                "migrate",
                "migrate",
                "dbjson migrate --threads 2",
                lambda src=src, dst=dst: [
                    PY,
                    "-m",
                    "dbjson",
                    "migrate",
                    src.db_url(self.db),
                    dst.db_url(self.imp),
                    "--threads",
                    "2",
                    "--no-verify",
                    "--quiet",
                ],
                env={**client_env(dst), **client_env(src)},
                prepare=lambda dst=dst: self.new_target(dst),
            )
            self.check_import(dst, r, self.imp)
            if r.ok:
                r.note = "; ".join(self.check_content(src, dst, self.ok(e, "migrate", "pgloader")))
        self.drop_target()

    def pgloader_cmd(self, src: ds.Server, dst: ds.Server) -> Callable[[], list[str]]:
        u = ds.make_url(src.url)
        pg = ds.make_url(dst.url)
        return lambda: [
            "pgloader",
            f"mysql://{u.username}@{u.host}:{u.port}/{self.db}",
            f"postgresql://{pg.username}@{pg.host}:{pg.port}/{self.imp}",
        ]

    def source_export(self, src: ds.Server) -> Path:
        """A dbjson export of the source (the export section's, or a new one) for verify and the column check."""
        made = self.work / "runs" / src.engine / "dbjson-t2"
        if (made / "manifest.json").exists():
            return made
        out = self.fresh(self.work / "runs" / src.engine / "migrate-source")
        measure(
            [PY, "-m", "dbjson", "export", src.db_url(self.db), "-o", str(out), "--threads", "2", "--quiet"],
            timeout=self.args.timeout,
        )
        return out

    def check_content(self, src: ds.Server, dst: ds.Server, pgloader_ran: bool) -> list[str]:
        """``dbjson verify`` of the migrated target against a dbjson export of the source, and a column
        by column comparison of the target's own re-encoding (and pgloader's result, for PostgreSQL)."""
        notes = []
        source = self.source_export(src)
        v = measure(
            [PY, "-m", "dbjson", "verify", str(source), dst.db_url(self.imp), "--threads", "2"],
            timeout=self.args.timeout,
        )
        notes.append("dbjson verify: " + ("pass" if v.returncode == 0 else f"exit {v.returncode}: {v.err[-300:]}"))
        expected = column_digests(source)
        notes.append("columns vs source: " + self.compare_target(dst, self.imp, expected))
        if pgloader_ran:
            self.new_target(dst)
            p = measure(
                self.pgloader_cmd(src, dst)(), env={**client_env(dst), **client_env(src)}, timeout=self.args.timeout
            )
            if ds.count_rows(dst, self.imp, self.db) != ds.table_rows(self.rows):
                notes.append(f"pgloader's result (an untimed run): incomplete ({pgloader_error(None, dst, p.err)})")
            else:
                notes.append(
                    "pgloader's result (an untimed run), columns vs source: "
                    + self.compare_target(dst, self.imp, expected)
                )
        return notes

    def compare_target(self, dst: ds.Server, database: str, expected: dict[str, tuple[int, dict[str, int]]]) -> str:
        out = self.fresh(self.work / "runs" / "migrate-check")
        p = measure(
            [PY, "-m", "dbjson", "export", dst.db_url(database), "-o", str(out), "--threads", "2", "--quiet"],
            timeout=self.args.timeout,
        )
        if p.returncode != 0:
            return f"cannot export the target ({p.err[-200:]})"
        got = column_digests(out)
        shutil.rmtree(out, ignore_errors=True)
        same, differ = 0, []
        for table, (rows, cols) in sorted(expected.items()):
            trows, tcols = got.get(table, (None, {}))
            if trows != rows:
                differ.append(f"{table} rows {trows} vs {rows}")
                continue
            for col, digest in sorted(cols.items()):
                if tcols.get(col) == digest:
                    same += 1
                else:
                    differ.append(f"{table}.{col}")
        return f"{same}/{same + len([d for d in differ if ' rows ' not in d])} columns identical" + (
            f", differ: {', '.join(differ)}" if differ else ""
        )


MIGRATIONS = (("mariadb", "postgresql"), ("mysql", "postgresql"), ("postgresql", "mariadb"), ("postgresql", "mysql"))
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z?$")


def _normalized(v: Any) -> Any:
    """A canonical value with the spelling differences of a type change removed: booleans as 0/1,
    64-bit integers (strings) as numbers, JSON documents stored as text parsed, a timestamp without
    its UTC ``Z`` and trailing fractional zeros (JSON keys are sorted by the caller)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, str):
        if v.lstrip("-").isdigit():
            return int(v)
        if v[:1] in ("{", "["):
            try:
                return json.loads(v)
            except ValueError:
                return v
        mt = _STAMP.match(v)
        if mt:
            frac = (mt.group(2) or "").rstrip("0").rstrip(".")
            return mt.group(1) + frac
    return v


def column_digests(export_dir: Path) -> dict[str, tuple[int, dict[str, int]]]:
    """Table name → (rows, column → order-independent digest of its normalized canonical values) of an export."""
    import hashlib

    import orjson

    manifest = json.loads((export_dir / "manifest.json").read_text(encoding="utf-8"))
    out: dict[str, tuple[int, dict[str, int]]] = {}
    for t in manifest["tables"]:
        cols: dict[str, int] = {}
        rows = 0
        for f in t["files"]:
            with open(export_dir / f["path"], "rb") as fh:
                for line in fh:
                    rows += 1
                    for k, v in orjson.loads(line).items():
                        h = hashlib.blake2b(orjson.dumps(_normalized(v), option=orjson.OPT_SORT_KEYS), digest_size=8)
                        cols[k] = (cols.get(k, 0) + int.from_bytes(h.digest(), "little")) & 0xFFFFFFFFFFFFFFFF
        out[t["name"]] = (rows, cols)
    return out


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
    """One goal from the issues, evaluated on this run."""

    engine: str
    goal: str
    value: str
    status: str  # met | missed | n/a | info


def _get(b: Bench, engine: str, phase: str, tool: str, label_part: str = "") -> Result | None:
    return next(
        (
            r
            for r in b.results
            if r.ok and r.engine == engine and r.phase == phase and r.tool == tool and label_part in r.label
        ),
        None,
    )


def _ratio_target(engine: str, goal: str, mine: Result | None, other: Result | None, need: float, what: str) -> Target:
    """``mine`` must reach ``need`` × the rows/s of ``other`` (need=1: faster wall clock)."""
    if mine is None or other is None or not mine.seconds or not other.seconds:
        missing = "dbjson" if mine is None else what
        return Target(engine, goal, f"{missing} not available", "n/a")
    ratio = other.seconds / mine.seconds
    return Target(
        engine,
        goal,
        f"{ratio:.2f}× {what} ({mine.seconds:.2f} s vs {other.seconds:.2f} s)",
        "met" if ratio >= need else "missed",
    )


def targets(b: Bench) -> list[Target]:
    out: list[Target] = []
    for engine in b.args.engines.split(","):
        exp = _get(b, engine, "export", "dbjson", "--threads 2")
        imp = _get(b, engine, "import", "dbjson", "--threads 2")
        out.append(
            _ratio_target(
                engine,
                "export --threads 2 ≥ 0.5× the engine's bulk export",
                exp,
                _get(b, engine, "export", "native"),
                0.5,
                "bulk export",
            )
        )
        out.append(
            _ratio_target(
                engine,
                "export --threads 2 ≥ 4× the naive Python exporter",
                exp,
                _get(b, engine, "export", "naive"),
                4,
                "naive",
            )
        )
        if engine == "postgresql":
            out.append(
                _ratio_target(
                    engine,
                    "export --threads 2 ahead of pg_dump -Fd -j 2 (wall clock)",
                    exp,
                    _get(b, engine, "export", "pg_dump"),
                    1,
                    "pg_dump",
                )
            )
        else:
            dump = "mariadb-dump" if engine == "mariadb" else "mysqldump"
            out.append(
                _ratio_target(
                    engine,
                    f"export --threads 2 ahead of {dump} (wall clock)",
                    exp,
                    _get(b, engine, "export", "dump"),
                    1,
                    dump,
                )
            )
            t = _ratio_target(
                engine,
                "export --threads 2: distance to mydumper -t 2",
                exp,
                _get(b, engine, "export", "mydumper"),
                0,
                "mydumper",
            )
            out.append(Target(t.engine, t.goal, t.value, "info" if t.status != "n/a" else "n/a"))
        natives = [
            r
            for r in (_get(b, engine, "import", tool) for tool in ("native", "pg_dump", "mydumper", "dump"))
            if r is not None
        ]
        best = min(natives, key=lambda r: r.seconds or 0.0) if natives else None
        out.append(
            _ratio_target(
                engine,
                "import --threads 2 ≥ 0.5× the best native load",
                imp,
                best,
                0.5,
                f"best native ({best.label})" if best else "native load",
            )
        )
        if engine != "postgresql":
            out.append(
                _ratio_target(
                    engine,
                    "import --threads 2 ahead of myloader -t 2",
                    imp,
                    _get(b, engine, "import", "mydumper"),
                    1,
                    "myloader",
                )
            )
            out.append(
                _ratio_target(
                    engine,
                    "import --threads 2 ahead of the client reloading the dump",
                    imp,
                    _get(b, engine, "import", "dump"),
                    1,
                    "client reload",
                )
            )
        out.append(
            _ratio_target(
                engine,
                "import --threads 2 ≥ 4× the naive Python importer",
                imp,
                _get(b, engine, "import", "naive"),
                4,
                "naive",
            )
        )
    if {"mariadb", "postgresql"} <= set(b.args.engines.split(",")):
        t = _ratio_target(
            "mariadb->postgresql",
            "dbjson export + import vs pgloader",
            _get(b, "mariadb->postgresql", "migrate", "dbjson"),
            _get(b, "mariadb->postgresql", "migrate", "pgloader"),
            1,
            "pgloader",
        )
        out.append(Target(t.engine, t.goal, t.value, "info" if t.status != "n/a" else "n/a"))
    engines = set(b.args.engines.split(","))
    for a, c in MIGRATIONS:
        if {a, c} <= engines and c == "postgresql":
            out.append(
                _ratio_target(
                    f"{a}->{c}",
                    "dbjson migrate --threads 2 ahead of pgloader (defaults)",
                    _get(b, f"{a}->{c}", "migrate", "migrate"),
                    _get(b, f"{a}->{c}", "migrate", "pgloader"),
                    1,
                    "pgloader",
                )
            )
        elif {a, c} <= engines:
            mine = _get(b, f"{a}->{c}", "migrate", "migrate")
            out.append(
                Target(
                    f"{a}->{c}",
                    "dbjson migrate --threads 2 (pgloader cannot)",
                    f"{mine.seconds:.2f} s, {_fmt_rate(mine)} rows/s" if mine and mine.seconds else "not available",
                    "info" if mine else "n/a",
                )
            )
    return out


ANALYSIS = REPO / "bench" / "analysis.md"  # hand-written profile notes appended to the report, when present
LOAD_FIGURES = REPO / "bench" / "load-figures.md"  # bench/load.py's figures, appended after them
PREAMBLE = """\
# dbjson performance

<!-- Written by `python -m bench.run` (bench/run.py); edit the preamble there, not here. -->

This page is generated by the benchmark in `bench/` (see `bench/README.md`). One run loads the same
deterministic dataset into MariaDB, MySQL 9 and PostgreSQL 15, then times, on the same data:

- **export**: `dbjson export --threads 1` and `--threads 2`; the engine's own bulk export
  (PostgreSQL `COPY ... TO STDOUT` through `psql \\copy`; MySQL/MariaDB `SELECT ... INTO OUTFILE`, written
  by the server); `pg_dump -Fd -j 2`; `mydumper -t 2 -r 100000`; `mariadb-dump`/`mysqldump` (single
  stream, `--single-transaction`); and a naive single-threaded Python exporter (server-side cursor, one
  `orjson.dumps` per row, `bench/naive.py`).
- **import** (each into a new empty database: schema, data, indexes and foreign keys; row counts
  checked afterwards): `dbjson import --threads 1` and `--threads 2` of the `--threads 2` export,
  with `--no-verify` because no other loader verifies (`dbjson verify --threads 2` is timed on its
  own row: a default `dbjson import` costs about the sum); the engine's own bulk load (`COPY ...
  FROM STDIN` via `psql \\copy`; `LOAD DATA INFILE` of the OUTFILE files, binary columns through
  `HEX()`/`UNHEX()` because MySQL 9's `LOAD DATA` rejects raw non-UTF-8 bytes); `pg_restore -j 2`;
  `myloader -t 2`; the `mariadb`/`mysql` client reading the dump; a naive Python importer
  (`executemany`, batches of 1,000).
- **MariaDB → PostgreSQL**: `pgloader` (defaults) against `dbjson export` (MariaDB) + `dbjson import`
  (PostgreSQL), both `--threads 2`, the two times added.
- **migrate**: `dbjson migrate --threads 2 --no-verify` (one command, rows streamed, no files) MariaDB →
  PostgreSQL and MySQL 9 → PostgreSQL against `pgloader` with its defaults, and PostgreSQL → MariaDB /
  MySQL 9 (which pgloader cannot do), each into a new empty database. Afterwards (untimed) the rows are
  checked twice: `dbjson verify` of the target against a `dbjson export` of the source, and column by
  column: a `dbjson export` of the target (the target's own canonical re-encoding, under its own types)
  against the source's, each column's values summed as order-independent hashes after removing the
  spelling differences of a type change (booleans as 0/1, 64-bit integer strings as numbers, JSON
  stored as text parsed, timestamps without the UTC `Z` and trailing fractional zeros, JSON keys
  sorted). pgloader's result gets the same column check from an untimed second
  pgloader run, since pgloader changes types and `dbjson verify` needs dbjson's own DDL.

Times are wall clock around one process; rows/s is the dataset's total row count over that time; the
ratio columns are rows/s relative to the engine's bulk path (bold rows). Peak RSS is the largest
client-side process of the step and client CPU the user + system time of the step's processes (GNU
time `%M`, `%U`, `%S`); the servers' memory and CPU are not in them (client CPU close to wall time × 1
means a single-threaded client is the bottleneck; well below it, the server or the wire).

**Read these figures as comparable only within one run.** The machine has 2 cores shared with
other engineers' test runs and the three database servers, which are untuned (default buffer pools,
durability on); the load average before and after the run is recorded below. The naive importer and
dbjson go through the network protocol, the native bulk paths of MySQL/MariaDB read and write files on
the server itself. A target's status is computed from this run's figures; under contention a
"met" or "missed" close to the line can flip in the next run.

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


def _section(b: Bench, engine: str, phase: str) -> list[str]:
    rows = [r for r in b.results if r.engine == engine and r.phase == phase]
    if not rows:
        return []
    base = next((r for r in rows if r.baseline and r.ok), None)
    lines = [
        "| tool | wall s | rows/s | × bulk | client CPU s | peak RSS MB | status |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        ratio = f"{base.seconds / r.seconds:.2f}" if base and base.seconds and r.ok and r.seconds else "–"
        label = f"**{r.label}**" if r.baseline else r.label
        status = r.status if not r.note else f"{r.status} ({r.note})"
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


def machine(b: Bench) -> list[str]:
    lines = [
        f"- date: {b.info.get('date')} (start of the run); dbjson commit {b.info.get('commit')}",
        f"- machine: {b.info.get('machine')}",
        f"- load average before / after the run: {b.info.get('load_before')} / {b.info.get('load_after')}",
        f"- dataset: {b.rows:,} rows ("
        + ", ".join(f"{k} {v:,}" for k, v in ds.table_rows(b.rows).items())
        + f"), seed {b.args.seed}; every step run {b.args.repeat}× (fastest kept)",
        *([f"- sections aborted: {b.info['aborted']}"] if b.info.get("aborted") else []),
        f"- dbjson CLI start-up (`python -m dbjson --version`, included in every dbjson time): {b.info.get('startup')}"
        + (f"; dbjson's modules {b.info['bytecode']}" if b.info.get("bytecode") else ""),
    ]
    for engine in b.args.engines.split(","):
        lines.append(
            f"- {engine}: {b.info.get(f'version_{engine}', '?')} (dataset load: {b.info.get(f'load_{engine}', '?')})"
        )
    lines.append(f"- tools: {b.info.get('tools')}")
    return lines


def render(b: Bench) -> str:
    """The Markdown report."""
    out = (
        [PREAMBLE, "## This run", ""]
        + machine(b)
        + ["", "## Targets", "", "| engine | target | this run | status |", "|---|---|---|---|"]
    )
    out += [f"| {t.engine} | {t.goal} | {t.value} | {t.status} |" for t in targets(b)]
    titles = {
        "postgresql": "PostgreSQL",
        "mariadb": "MariaDB",
        "mysql": "MySQL 9",
        "mariadb->postgresql": "MariaDB → PostgreSQL",
        "mysql->postgresql": "MySQL 9 → PostgreSQL",
        "postgresql->mariadb": "PostgreSQL → MariaDB",
        "postgresql->mysql": "PostgreSQL → MySQL 9",
    }
    for engine in [*b.args.engines.split(","), *(f"{a}->{c}" for a, c in MIGRATIONS)]:
        for phase in ("export", "import", "migrate"):
            sec = _section(b, engine, phase)
            if sec:
                out += ["", f"## {titles.get(engine, engine)}: {phase}", "", *sec]
    if ANALYSIS.exists():
        out += ["", ANALYSIS.read_text(encoding="utf-8").strip()]
    if LOAD_FIGURES.exists():  # written by bench/load.py (many tables, wide/long tables, big rows)
        out += ["", LOAD_FIGURES.read_text(encoding="utf-8").strip()]
    return "\n".join(out) + "\n"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--rows", type=int, default=1_000_000, help="total rows over the four tables (default 1,000,000)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--engines", default="postgresql,mariadb,mysql")
    p.add_argument("--tools", default=",".join(TOOLS), help=f"subset of {','.join(TOOLS)}")
    p.add_argument("--database", default="dbjson_bench", help="source database (the import target is <name>_imp)")
    p.add_argument("--work", default="/tmp/dbjson-bench", help="data cache and outputs")
    p.add_argument("--out", default=str(REPO / "docs" / "performance.md"), help="Markdown report ('' for none)")
    p.add_argument("--json", default="", help="also write the results as JSON here")
    p.add_argument("--repeat", type=int, default=1, help="run every step N times and keep the fastest")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per step before it is killed")
    p.add_argument("--keep", action="store_true", help="keep the exported files")
    p.add_argument(
        "--concurrent",
        action="store_true",
        help="do not wait for other benchmark runs on this machine (figures not comparable)",
    )
    p.add_argument("--from-json", default="", help="no run: write --out again from a previous run's --json")
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


def rerender(path: Path, out: str) -> int:
    """Write the Markdown report again from a run's ``--json`` results (e.g. after editing analysis.md)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    b = Bench.__new__(Bench)
    b.args = argparse.Namespace(**data["args"])
    b.rows, b.info = data["rows"], data["info"]
    fields = {f.name for f in dataclasses.fields(Result)}
    b.results = [Result(**{k: v for k, v in r.items() if k in fields}) for r in data["results"]]
    Path(out).write_text(render(b), encoding="utf-8")
    print(f"wrote {out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json:
        return rerender(Path(args.from_json), args.out)
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
