"""Load figures (issue 6, item 5): many tables, wide tables, long tables, big rows — on the real servers.

Each scenario builds its source database with the engine's own fast generator (``generate_series``
on PostgreSQL, a cross join of a digits table on MySQL/MariaDB, a recursive CTE on SQLite), then
runs the dbjson CLI as a child process and records its wall time, its CPU time and its memory: the
peak RSS of its largest process (``os.wait4``: the child's maximum resident set, which includes the
encoder processes it waited for) and the peak of the sum over all its processes (the proportional
set size, PSS, of every process of its process group, sampled every 0.2 s from /proc):

* ``tables``  — a database with N tables (default 5,000): schema-dump, schema-load, export, import;
* ``columns`` — one table with 1,000 int columns (MySQL's row-size limit rules out wide text);
* ``rows``    — one narrow table at two sizes (default 1M and 10M rows): export and import, so the
  growth of time (linear?) and of memory (bounded?) can be read off;
* ``big``     — rows of several MB: TEXT, BLOB and JSON values of 5 MB each (default 200 rows);
* ``gb``      — a wide-row table of several GB (default 4M rows x 1 KB: about 4 GiB of JSON lines),
  exported with ``--threads 2`` and imported into a new database (memory on a table much larger
  than the buffers); PostgreSQL by default, ``--gb-engines`` for others.

Every command runs under ``--timeout`` (default 30 minutes): a command that fails or is killed is a
row of the table too (its time, its peak RSS so far, why), and its scenario stops there.

The figures go to ``bench/load-figures.md`` (``bench/run.py`` appends it to docs/performance.md):
the runs are numbered, each with its date, dbjson commit (``--commit`` when the checkout is not a git
one), Python, C speedups and server versions; ``--append`` adds a run to those already there, and a
hand-written part after the ``KEPT`` marker line is kept at the end.
This is a script, not a test: a full run takes tens of minutes and needs the disk space of the
exports (several GB for ``gb`` and ``big``). Examples::

    .venv/bin/python -m bench.load --engines postgresql --scenarios rows --rows 1000000,10000000
    .venv/bin/python -m bench.load --scenarios tables,columns,big --tables 5000 --big-rows 200
    .venv/bin/python -m bench.load --scenarios gb --gb-engines postgresql,mariadb --gb-rows 4000000
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pymysql
from sqlalchemy.engine import make_url

REPO = Path(__file__).resolve().parents[1]
FIGURES = REPO / "bench" / "load-figures.md"
URLS = {
    "mysql": os.environ.get("DBJSON_TEST_MYSQL", "mysql+pymysql://root@127.0.0.1:3307/"),
    "mariadb": os.environ.get("DBJSON_TEST_MARIADB", "mysql+pymysql://root@127.0.0.1:3306/"),
    "postgresql": os.environ.get("DBJSON_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
}
ENGINES = ("postgresql", "mysql", "mariadb", "sqlite")


# ---------------------------------------------------------------------------------------------
# Databases
# ---------------------------------------------------------------------------------------------


class Db:
    """A scratch database on one engine (created on entry, dropped by :meth:`drop`)."""

    def __init__(self, engine: str, work: Path) -> None:
        self.engine = engine
        self.name = "dbjson_load_" + uuid.uuid4().hex[:8]
        if engine == "sqlite":
            self.path = work / f"{self.name}.db"
            self.url = f"sqlite:///{self.path}"
            return
        admin = make_url(URLS[engine])
        self.admin = admin
        self.url = admin.set(database=self.name).render_as_string(hide_password=False)
        if engine == "postgresql":
            with self._pg(admin.database or "postgres") as c:
                c.execute(f'CREATE DATABASE "{self.name}"')
        else:
            c = self._my(None)
            c.cursor().execute(f"CREATE DATABASE `{self.name}` CHARACTER SET utf8mb4")
            c.close()

    def _pg(self, dbname: str) -> Any:
        u = self.admin
        return psycopg.connect(
            host=u.host,
            port=u.port or 5432,
            user=u.username or "postgres",
            password=u.password or None,
            dbname=dbname,
            autocommit=True,
        )

    def _my(self, dbname: str | None) -> Any:
        u = self.admin
        return pymysql.connect(
            host=u.host,
            port=u.port or 3306,
            user=u.username or "root",
            password=u.password or "",
            database=dbname,
            autocommit=True,
            charset="utf8mb4",
            max_allowed_packet=64 << 20,
        )

    def run(self, *statements: str) -> None:
        """Run statements in order on this database."""
        if self.engine == "sqlite":
            import sqlite3

            c = sqlite3.connect(self.path)
            for s in statements:
                c.execute(s)
            c.commit()
            c.close()
        elif self.engine == "postgresql":
            with self._pg(self.name) as c:
                for s in statements:
                    c.execute(s)
        else:
            c = self._my(self.name)
            with c.cursor() as cur:
                for s in statements:
                    cur.execute(s)
            c.close()

    def drop(self) -> None:
        if self.engine == "sqlite":
            self.path.unlink(missing_ok=True)
        elif self.engine == "postgresql":
            with self._pg(self.admin.database or "postgres") as c:
                c.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        else:
            c = self._my(None)
            c.cursor().execute(f"DROP DATABASE IF EXISTS `{self.name}`")
            c.close()


def fill_series(db: Db, table: str, rows: int, select: str) -> None:
    """``INSERT INTO table SELECT <select over n> FROM <1..rows>`` with the engine's fast generator."""
    if db.engine == "postgresql":
        db.run(f"INSERT INTO {table} SELECT {select} FROM generate_series(1, {rows}) AS g(n)")
    elif db.engine == "sqlite":
        db.run(
            f"INSERT INTO {table} WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g LIMIT {rows}) "
            f"SELECT {select} FROM g"
        )
    else:  # MySQL and MariaDB: a cross join of digits, in slices of at most 1M rows (one transaction each)
        db.run(
            "CREATE TABLE IF NOT EXISTS _d (d int PRIMARY KEY)",
            "DELETE FROM _d",
            "INSERT INTO _d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)",
        )
        joins = " CROSS JOIN ".join(f"_d d{i}" for i in range(6))
        million = " + ".join(f"d{i}.d * {10**i}" for i in range(6))
        for start in range(0, rows, 1_000_000):
            count = min(1_000_000, rows - start)
            db.run(
                f"INSERT INTO {table} SELECT {select} FROM (SELECT {start} + {million} + 1 AS n FROM {joins}) g "
                f"WHERE n <= {start + count}"
            )
        db.run("DROP TABLE _d")


# ---------------------------------------------------------------------------------------------
# Measuring the CLI
# ---------------------------------------------------------------------------------------------


@dataclass
class Step:
    """One dbjson command: wall seconds, CPU seconds, peak RSS of its largest process and peak PSS of
    all its processes together (MiB)."""

    scenario: str
    engine: str
    size: str
    command: str
    seconds: float
    rss_mib: float
    note: str = ""
    cpu: float = 0.0  # user + system seconds of the command and the processes it waited for
    run: int = 0  # the run (numbered in the figures file) that measured it; 0: this one
    pss_mib: float = 0.0  # the peak of the summed PSS of all its processes (sampled)

    def row(self) -> str:
        return (
            f"| {self.run} | {self.scenario} | {self.engine} | {self.size} | {self.command} | {self.seconds:,.1f} "
            f"| {self.cpu:,.1f} | {self.rss_mib:,.0f} | {self.pss_mib:,.0f} | {self.note} |"
        )

    @classmethod
    def parse(cls, line: str) -> Step:
        """The step of a table row written by :meth:`row` (an earlier run, for --append)."""
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        run, scenario, engine, size, command, seconds, cpu, rss, pss, note = cells
        return cls(
            scenario,
            engine,
            size,
            command,
            float(seconds.replace(",", "")),
            float(rss.replace(",", "")),
            note,
            float(cpu.replace(",", "")),
            int(run),
            float(pss.replace(",", "")),
        )


@dataclass
class Run:
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


TIMEOUT = 1800.0  # seconds per dbjson command (--timeout)


class Failed(RuntimeError):
    """A dbjson command exited non-zero or was killed at the timeout (its step is recorded)."""


def group_pss(pgid: int) -> float:
    """The summed PSS (MiB) of the live processes of process group ``pgid`` (Linux /proc)."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()  # after "pid (comm)": state ppid pgrp ...
            if int(fields[2]) != pgid:
                continue
            with open(f"/proc/{entry.name}/smaps_rollup", "rb") as f:
                for line in f:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1])  # KiB
                        break
        except (OSError, IndexError, ValueError):  # gone meanwhile, or not ours to read
            continue
    return total / 1024


def dbjson(*args: str, timeout: float | None = None) -> tuple[float, float, float, float, int, str]:
    """Run ``python -m dbjson ARGS``: (wall s, peak RSS MiB, CPU s, peak group PSS MiB, exit code, stderr tail).

    The child runs in its own session; at ``timeout`` seconds the whole group (the command and
    its encoder processes) is killed with SIGKILL and the exit code is -9.
    """
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err_file:  # a file, not a pipe: a chatty child cannot block on it
        p = subprocess.Popen(
            [sys.executable, "-m", "dbjson", *args], stdout=subprocess.DEVNULL, stderr=err_file, start_new_session=True
        )
        limit = start + (timeout if timeout is not None else TIMEOUT)
        pss, sampled = 0.0, 0.0
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - sampled >= 0.2:
                pss, sampled = max(pss, group_pss(p.pid)), time.perf_counter()
            if time.perf_counter() > limit:
                os.killpg(p.pid, signal.SIGKILL)
                _, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        try:  # encoder processes left behind by a killed command
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        err_file.seek(0)
        err = err_file.read()[-4000:].decode(errors="replace")
    # ru_maxrss is in KiB on Linux
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, pss, p.returncode, err


def measure(run: Run, scenario: str, engine: str, size: str, command: str, *args: str, note: str = "") -> Step:
    """Run one command and record it; a failure is recorded too, then raised as :class:`Failed`."""
    seconds, rss, cpu, pss, code, err = dbjson(command, *args)
    step = Step(scenario, engine, size, command, seconds, rss, note, cpu, pss_mib=pss)
    run.steps.append(step)
    if code != 0:
        why = "killed at the timeout" if code == -signal.SIGKILL and seconds >= TIMEOUT else f"exit {code}"
        lines = [ln.strip() for ln in err.splitlines() if ln.strip()]
        last = next((ln for ln in lines if ln.startswith(("error", "internal error"))), lines[-1] if lines else "")
        step.note = (f"**failed** ({why})" + (f": {last[:300]}" if last else "")).replace("|", "\\|")
    print(
        f"  {scenario:8} {engine:10} {size:>14} {command:12} {seconds:9.1f} s {cpu:8.1f} cpu {rss:6.0f} MiB {pss:6.0f} MiB all {step.note}",
        flush=True,
    )
    if code != 0:
        raise Failed(f"dbjson {command} failed ({code}): {err[-2000:]}")
    return step


def round_trip(
    run: Run,
    scenario: str,
    engine: str,
    size: str,
    src: Db,
    work: Path,
    *,
    schema: bool = True,
    export_args: Sequence[str] = (),
    rows: int | None = None,
) -> None:
    """schema-dump and schema-load (optional), export and import of ``src`` into a new database."""
    out = work / f"{scenario}-{engine}-{size}".replace(" ", "")
    doc = work / f"{scenario}-{engine}.json"
    dst = Db(engine, work)
    try:
        per = f"{rows:,} rows" if rows else ""
        if schema:
            measure(run, scenario, engine, size, "schema-dump", src.url, "-o", str(doc))
            try:
                measure(run, scenario, engine, size, "schema-load", str(doc), "--to", dst.url)
            except Failed:  # recorded; import then creates the schema itself
                dst.drop()
                dst = Db(engine, work)
                schema = False
        measure(run, scenario, engine, size, "export", src.url, "-o", str(out), "-q", *export_args, note=per)
        size_mb = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 2**20
        amount = f"{size_mb / 1024:.2f} GiB" if size_mb >= 1024 else f"{size_mb:,.0f} MiB"
        run.steps[-1].note = ", ".join(x for x in (f"{amount} of JSON lines", per, " ".join(export_args)) if x)
        measure(
            run,
            scenario,
            engine,
            size,
            "import",
            str(out),
            dst.url,
            "-q",
            *(("--data-only",) if schema else ()),
            note=per,
        )
    finally:
        dst.drop()
        shutil.rmtree(out, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------------------------


def many_tables(run: Run, engine: str, work: Path, n: int) -> None:
    """N small tables (id, name, one row each), created in one go."""
    src = Db(engine, work)
    try:
        stmts: list[str] = []
        for i in range(n):
            stmts += [
                f"CREATE TABLE t{i:05d} (id int PRIMARY KEY, name varchar(40))",
                f"INSERT INTO t{i:05d} VALUES (1, 'row {i}')",
            ]
        src.run(*stmts)
        round_trip(run, "tables", engine, f"{n:,} tables", src, work)
    finally:
        src.drop()


def wide_table(run: Run, engine: str, work: Path, columns: int, rows: int) -> None:
    """One table of ``columns`` int columns and ``rows`` rows."""
    src = Db(engine, work)
    try:
        cols = ", ".join(f"c{i:04d} int" for i in range(1, columns))
        src.run(f"CREATE TABLE wide (id int PRIMARY KEY, {cols})")
        fill_series(src, "wide", rows, "n, " + ", ".join(f"n + {i}" for i in range(1, columns)))
        round_trip(run, "columns", engine, f"{columns:,} cols x {rows:,}", src, work)
    finally:
        src.drop()


def long_table(run: Run, engine: str, work: Path, sizes: Sequence[int]) -> None:
    """One narrow table (bigint, int, varchar(16), timestamp) at each size: export and import."""
    for rows in sizes:
        src = Db(engine, work)
        try:
            ts = {"postgresql": "timestamp(0)", "sqlite": "datetime"}.get(engine, "datetime")
            src.run(f"CREATE TABLE narrow (id bigint PRIMARY KEY, v int, s varchar(16), at {ts})")
            stamp = {
                "postgresql": "timestamp '2024-01-01' + n * interval '1 second'",
                "sqlite": "datetime(1704067200 + n, 'unixepoch')",
            }.get(engine, "TIMESTAMPADD(SECOND, n, '2024-01-01')")
            concat = "'s' || n" if engine in ("postgresql", "sqlite") else "CONCAT('s', n)"
            built = time.perf_counter()
            fill_series(src, "narrow", rows, f"n, n % 1000, {concat}, {stamp}")
            run.notes.append(f"{engine}: {rows:,} narrow rows generated in {time.perf_counter() - built:.0f} s")
            round_trip(
                run,
                "rows",
                engine,
                f"{rows:,} rows",
                src,
                work,
                schema=False,
                export_args=("--threads", "2"),
                rows=rows,
            )
        finally:
            src.drop()


def big_rows(run: Run, engine: str, work: Path, rows: int, mb: int) -> None:
    """Rows holding one ``mb``-MB value each, in turn TEXT, BLOB and JSON."""
    src = Db(engine, work)
    size = mb << 20
    try:
        if engine == "postgresql":
            src.run("CREATE TABLE big (id int PRIMARY KEY, t text, b bytea, j jsonb)")
            fill_series(
                src,
                "big",
                rows,
                f"n, CASE WHEN n % 3 = 0 THEN repeat(chr(65 + n % 26), {size}) END, "
                f"CASE WHEN n % 3 = 1 THEN convert_to(repeat('x', {size}), 'UTF8') END, "
                f"CASE WHEN n % 3 = 2 THEN jsonb_build_object('k', repeat('j', {size - 10})) END",
            )
        elif engine == "sqlite":
            src.run("CREATE TABLE big (id integer PRIMARY KEY, t text, b blob, j text)")
            fill_series(
                src,
                "big",
                rows,
                f"n, CASE WHEN n % 3 = 0 THEN printf('%.*c', {size}, 'A') END, "
                f"CASE WHEN n % 3 = 1 THEN zeroblob({size}) END, "
                f"CASE WHEN n % 3 = 2 THEN json_object('k', printf('%.*c', {size - 10}, 'j')) END",
            )
        else:
            src.run("CREATE TABLE big (id int PRIMARY KEY, t longtext, b longblob, j json)")
            for n in range(1, rows + 1):  # one row at a time: each value stays under max_allowed_packet
                values = ["NULL", "NULL", "NULL"]
                values[n % 3] = (
                    f"REPEAT('A', {size})",
                    f"REPEAT(0x78, {size})",
                    f"JSON_OBJECT('k', REPEAT('j', {size - 10}))",
                )[n % 3]
                src.run(f"INSERT INTO big VALUES ({n}, {', '.join(values)})")
        round_trip(run, "big", engine, f"{rows} x {mb} MB", src, work, export_args=("--threads", "2"))
    finally:
        src.drop()


def gb_table(run: Run, engine: str, work: Path, rows: int, width: int) -> None:
    """``rows`` rows of ``width`` bytes of text: export with --threads 2, import into a new database."""
    src = Db(engine, work)
    try:
        src.run("CREATE TABLE wide_rows (id bigint PRIMARY KEY, payload text)")
        repeat = max(1, width // 32)
        payload = {"postgresql": f"repeat(md5(n::text), {repeat})", "sqlite": f"printf('%0{repeat * 32}d', n)"}.get(
            engine, f"REPEAT(MD5(n), {repeat})"
        )
        built = time.perf_counter()
        fill_series(src, "wide_rows", rows, f"n, {payload}")
        run.notes.append(f"{engine}: {rows:,} rows of {repeat * 32} B generated in {time.perf_counter() - built:.0f} s")
        round_trip(
            run,
            "gb",
            engine,
            f"{rows:,} x {repeat * 32} B",
            src,
            work,
            schema=False,
            export_args=("--threads", "2"),
            rows=rows,
        )
    finally:
        src.drop()


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


HEADER = (
    "| run | scenario | engine | size | command | seconds | CPU s | peak RSS, largest process (MiB) "
    "| peak PSS, all processes (MiB) | note |"
)
RULE = "|---|---|---|---|---|---:|---:|---:|---:|---|"
RUNS = "Runs (the `run` column of the table):"
KEPT = "<!-- Written by hand: kept as it is when bench/load.py appends a run. -->"


def commit() -> str:
    """The dbjson commit measured: ``git rev-parse`` of this checkout, marked when dbjson/ has changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "dbjson"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout; give --commit)"
    return head + (" with uncommitted changes in dbjson/" if dirty else "")


def server_version(engine: str) -> str:
    if engine == "sqlite":
        import sqlite3

        return f"SQLite {sqlite3.sqlite_version}"
    u = make_url(URLS[engine])
    if engine == "postgresql":
        with psycopg.connect(
            host=u.host,
            port=u.port or 5432,
            user=u.username or "postgres",
            password=u.password or None,
            dbname=u.database or "postgres",
        ) as c:
            row = c.execute("SHOW server_version").fetchone()
            return "PostgreSQL " + str(row[0] if row else "?").split()[0]
    c = pymysql.connect(host=u.host, port=u.port or 3306, user=u.username or "root", password=u.password or "")
    try:
        with c.cursor() as cur:
            cur.execute("SELECT VERSION()")
            version = str(cur.fetchone()[0])
    finally:
        c.close()
    return ("MariaDB " if "mariadb" in version.lower() else "MySQL ") + version.split("-")[0]


def markdown(
    run: Run,
    args: argparse.Namespace,
    number: int,
    previous_runs: Sequence[str] = (),
    previous_steps: Sequence[Step] = (),
    previous_notes: Sequence[str] = (),
) -> str:
    from dbjson import speedups

    built = [n for n, ok in speedups.available().items() if ok]
    out = [
        "## Load: many tables, wide tables, long tables, big rows",
        "",
        f"<!-- Written by `python -m bench.load` (bench/load.py) on {args.when}; do not edit by hand. -->",
        "",
        f"Machine: {platform.node() or 'this machine'}, {os.cpu_count()} CPUs shared with other work running at "
        "the same time (other engineers' tests and builds), so these figures are for memory and for growth "
        "with size, not for speed comparisons (the `CPU s` column, user + system time of dbjson itself, is "
        "less disturbed than the wall time). Each figure is one run of the dbjson CLI as a child process: wall "
        "time, CPU time (user + system, including the encoder processes it waited for), the peak resident "
        "memory of its largest process (`os.wait4`: the largest of the process and the encoder processes it "
        "waited for) and the peak of the memory of all its processes together (the sum of their proportional "
        "set sizes, PSS: a page shared by several processes is divided among them, so pages shared between "
        "dbjson's processes count once, and the sum can be below the largest process's RSS, whose shared "
        "library pages count in full; sampled every 0.2 s from /proc, so a shorter peak can be missed). A "
        "command that failed is a row too, marked **failed**.",
        "",
        RUNS,
        "",
        *previous_runs,
        *(
            [
                f"{number}. {args.when}, dbjson {args.commit}, Python {platform.python_version()}, "
                f"C speedups {', '.join(built) if built else 'none'}, {', '.join(args.versions)}: "
                f"`python -m bench.load {' '.join(args.argv)}`"
            ]
            if run.steps or run.notes
            else []
        ),
        "",
        HEADER,
        RULE,
    ]
    for s in run.steps:
        s.run = number
    steps = [*previous_steps, *run.steps]
    out += [s.row() for s in steps]
    growth = _growth([s for s in steps if s.scenario in ("rows", "gb")])
    if growth:
        out += [
            "",
            "Growth from the smallest to the largest table of the `rows` and `gb` scenarios (time ratio vs "
            "row ratio; memory):",
            "",
            *growth,
        ]
    notes = [*previous_notes, *[f"- run {number}: {n}" for n in run.notes]]
    if notes:
        out += ["", *notes]
    return "\n".join(out) + "\n"


def _growth(rows: list[Step]) -> list[str]:
    """Per scenario, engine and command: the largest size against the smallest (latest run of each)."""
    out = []

    def count(s: Step) -> int:
        return int(s.size.split()[0].replace(",", ""))

    for scenario, engine in dict.fromkeys((s.scenario, s.engine) for s in rows):
        for command in ("export", "import"):
            latest = {
                count(s): s
                for s in rows
                if (s.scenario, s.engine, s.command) == (scenario, engine, command) and "failed" not in s.note
            }
            if len(latest) < 2:
                continue
            a, b = latest[min(latest)], latest[max(latest)]
            ra, rb = count(a), count(b)
            runs = f" (runs {a.run} and {b.run})" if a.run != b.run else ""
            out.append(
                f"- {scenario} {engine} {command}{runs}: {rb / ra:.0f}x the rows took {b.seconds / a.seconds:.1f}x the time "
                f"and {b.cpu / a.cpu:.1f}x the CPU ({ra / a.seconds:,.0f} → {rb / b.seconds:,.0f} rows/s); "
                f"peak RSS {a.rss_mib:,.0f} → {b.rss_mib:,.0f} MiB, all processes {a.pss_mib:,.0f} → "
                f"{b.pss_mib:,.0f} MiB"
            )
    return out


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.load", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument(
        "--engines", default="postgresql,mysql,mariadb", help="comma-separated (postgresql, mysql, mariadb, sqlite)"
    )
    p.add_argument(
        "--scenarios", default="tables,columns,rows,big,gb", help="comma-separated: tables, columns, rows, big, gb"
    )
    p.add_argument("--tables", type=int, default=5000, help="tables in the many-tables database (5,000)")
    p.add_argument("--columns", type=int, default=1000, help="int columns of the wide table (1,000)")
    p.add_argument("--wide-rows", type=int, default=10_000, help="rows of the wide table (10,000)")
    p.add_argument("--rows", default="1000000,10000000", help="sizes of the long table (1M and 10M)")
    p.add_argument("--rows-engines", default="", help="engines for the long table (default: --engines)")
    p.add_argument("--tables-engines", default="", help="engines for the many-tables database (default: --engines)")
    p.add_argument("--big-engines", default="", help="engines for the big-row table (default: --engines)")
    p.add_argument("--big-rows", type=int, default=200, help="rows of the big-row table (200)")
    p.add_argument("--big-mb", type=int, default=5, help="MB per big value (5)")
    p.add_argument("--gb-engines", default="postgresql", help="engines for the multi-GB table (postgresql)")
    p.add_argument("--gb-rows", type=int, default=4_000_000, help="rows of the multi-GB table (4M)")
    p.add_argument("--gb-width", type=int, default=1024, help="bytes of text per row of that table (1 KB)")
    p.add_argument("--work", type=Path, default=None, help="scratch directory for exports (default: a temporary one)")
    p.add_argument("--output", type=Path, default=FIGURES, help="the Markdown figures (bench/load-figures.md)")
    p.add_argument(
        "--append", action="store_true", help="keep the figures already in --output (another scenario's run)"
    )
    p.add_argument("--note", action="append", default=[], help="a note to add under the table (repeatable)")
    p.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds before a dbjson command is killed (1800)")
    p.add_argument("--commit", default="", help="the dbjson commit measured (default: git rev-parse of this checkout)")
    args = p.parse_args(argv)
    args.argv = list(argv if argv is not None else sys.argv[1:])
    args.when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    args.commit = args.commit or commit()
    args.previous = args.output.read_text(encoding="utf-8").splitlines() if args.append and args.output.exists() else []
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    unknown = set(engines) - set(ENGINES)
    if unknown:
        raise SystemExit(f"unknown engine(s): {', '.join(sorted(unknown))}")
    scenarios = [s for s in args.scenarios.split(",") if s]
    global TIMEOUT
    TIMEOUT = args.timeout
    run = Run(notes=list(args.note))
    work = Path(args.work or tempfile.mkdtemp(prefix="dbjson-load-"))
    work.mkdir(parents=True, exist_ok=True)
    plan: list[tuple[str, Callable[[], None]]] = []

    def on(option: str) -> list[str]:
        return [e for e in (option or args.engines).split(",") if e]

    if "tables" in scenarios:
        plan += [("tables", lambda e=e: many_tables(run, e, work, args.tables)) for e in on(args.tables_engines)]
    if "columns" in scenarios:
        plan += [
            ("columns", lambda e=e: wide_table(run, e, work, args.columns, args.wide_rows)) for e in on(args.engines)
        ]
    if "big" in scenarios:
        plan += [("big", lambda e=e: big_rows(run, e, work, args.big_rows, args.big_mb)) for e in on(args.big_engines)]
    if "rows" in scenarios:
        sizes = sorted(int(x) for x in args.rows.split(","))
        plan += [("rows", lambda e=e: long_table(run, e, work, sizes)) for e in on(args.rows_engines)]
    if "gb" in scenarios:
        plan += [("gb", lambda e=e: gb_table(run, e, work, args.gb_rows, args.gb_width)) for e in on(args.gb_engines)]
    used = {
        e
        for e in ENGINES
        if any(
            e in on(x)
            for x, name in (
                (args.tables_engines, "tables"),
                (args.engines, "columns"),
                (args.big_engines, "big"),
                (args.rows_engines, "rows"),
                (args.gb_engines, "gb"),
            )
            if name in scenarios
        )
    }
    args.versions = [server_version(e) for e in ENGINES if e in used]
    try:
        for name, fn in plan:
            try:
                fn()
            except Failed as e:  # the failed command is a row of the table already
                print(f"  {name} failed: {e}", file=sys.stderr, flush=True)
            except Exception as e:  # noqa: BLE001 - one failed scenario is a figure too
                run.notes.append(f"{name}: failed: {str(e).splitlines()[0][:300]}")
                print(f"  {name} failed: {e}", file=sys.stderr, flush=True)
            write(run, args)  # after every scenario: an interrupted run keeps what it measured
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print(f"wrote {args.output}")
    return 0


def write(run: Run, args: argparse.Namespace) -> None:
    """Write (or, with --append, extend) the figures file.

    With --append the earlier runs (their entries in the list of runs, their rows, each with its run
    number, and their notes) are kept and this run gets the next number; the growth lines are worked
    out again over all rows, and a hand-written part that starts with the :data:`KEPT` line is kept
    at the end. A file in another layout is refused rather than mixed in.
    """
    old = args.previous
    if old and (HEADER not in old or RUNS not in old):
        raise SystemExit(f"{args.output} is not in this script's layout; run without --append to replace it")
    previous_runs: list[str] = []
    previous_steps: list[Step] = []
    previous_notes: list[str] = []
    kept: list[str] = []
    if KEPT in old:  # a hand-written reading of the figures, below the generated part
        old, kept = old[: old.index(KEPT)], old[old.index(KEPT) :]
    if old:
        at = old.index(RUNS) + 2
        while at < len(old) and old[at][:1].isdigit():
            previous_runs.append(old[at])
            at += 1
        at = old.index(HEADER) + 2
        while at < len(old) and old[at].startswith("| "):
            previous_steps.append(Step.parse(old[at]))
            at += 1
        previous_notes = [ln for ln in old[at:] if ln.startswith("- ") and "x the rows took" not in ln]
    text = markdown(run, args, len(previous_runs) + 1, previous_runs, previous_steps, previous_notes)
    if kept:
        text += "\n" + "\n".join(kept) + "\n"
    args.output.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
