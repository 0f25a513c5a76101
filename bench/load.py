"""Load figures (issue 6, item 5): many tables, wide tables, long tables, big rows — on the real servers.

Each scenario builds its source database with the engine's own fast generator (``generate_series``
on PostgreSQL, a cross join of a digits table on MySQL/MariaDB, a recursive CTE on SQLite), then
runs the dbjson CLI as a child process and records its wall time and peak RSS (``os.wait4``: the
child's maximum resident set, which includes the encoder processes it waited for):

* ``tables``  — a database with N tables (default 5,000): schema-dump, schema-load, export, import;
* ``columns`` — one table with 1,000 int columns (MySQL's row-size limit rules out wide text);
* ``rows``    — one narrow table at two sizes (default 1M and 10M rows): export and import, so the
  growth of time (linear?) and of memory (bounded?) can be read off;
* ``big``     — rows of several MB: TEXT, BLOB and JSON values of 5 MB each (default 200 rows);
* ``gb``      — PostgreSQL only: a wide-row table of several GB (default 2M rows x 1 KB), exported
  with ``--threads 2`` (export memory on a table much larger than RAM buffers).

The figures go to ``bench/load-figures.md`` (``bench/run.py`` appends it to docs/performance.md).
This is a script, not a test: a full run takes tens of minutes and needs the disk space of the
exports (several GB for ``gb`` and ``big``). Examples::

    .venv/bin/python -m bench.load --engines postgresql --scenarios rows --rows 1000000,10000000
    .venv/bin/python -m bench.load --scenarios tables,columns,big --tables 5000 --big-rows 200
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shutil
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
        return psycopg.connect(host=u.host, port=u.port or 5432, user=u.username or "postgres", password=u.password or None,
                               dbname=dbname, autocommit=True)

    def _my(self, dbname: str | None) -> Any:
        u = self.admin
        return pymysql.connect(host=u.host, port=u.port or 3306, user=u.username or "root", password=u.password or "",
                               database=dbname, autocommit=True, charset="utf8mb4", max_allowed_packet=64 << 20)

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
        db.run(f"INSERT INTO {table} WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g LIMIT {rows}) "
               f"SELECT {select} FROM g")
    else:  # MySQL and MariaDB: a cross join of digits, in slices of at most 1M rows (one transaction each)
        db.run("CREATE TABLE IF NOT EXISTS _d (d int PRIMARY KEY)", "DELETE FROM _d",
               "INSERT INTO _d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
        joins = " CROSS JOIN ".join(f"_d d{i}" for i in range(6))
        million = " + ".join(f"d{i}.d * {10 ** i}" for i in range(6))
        for start in range(0, rows, 1_000_000):
            count = min(1_000_000, rows - start)
            db.run(f"INSERT INTO {table} SELECT {select} FROM (SELECT {start} + {million} + 1 AS n FROM {joins}) g "
                   f"WHERE n <= {start + count}")
        db.run("DROP TABLE _d")


# ---------------------------------------------------------------------------------------------
# Measuring the CLI
# ---------------------------------------------------------------------------------------------


@dataclass
class Step:
    """One dbjson command: wall seconds and peak RSS (MiB)."""

    scenario: str
    engine: str
    size: str
    command: str
    seconds: float
    rss_mib: float
    note: str = ""


@dataclass
class Run:
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def dbjson(*args: str) -> tuple[float, float]:
    """Run ``python -m dbjson ARGS``: (wall seconds, peak RSS in MiB); raises on failure."""
    start = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "dbjson", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    seconds = time.perf_counter() - start
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    if p.stderr:
        p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"dbjson {' '.join(args[:2])} failed ({p.returncode}): {err[-2000:]}")
    return seconds, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def measure(run: Run, scenario: str, engine: str, size: str, command: str, *args: str, note: str = "") -> Step:
    seconds, rss = dbjson(command, *args)
    step = Step(scenario, engine, size, command, seconds, rss, note)
    run.steps.append(step)
    print(f"  {scenario:8} {engine:10} {size:>14} {command:12} {seconds:9.1f} s {rss:8.0f} MiB {note}", flush=True)
    return step


def round_trip(run: Run, scenario: str, engine: str, size: str, src: Db, work: Path, *, schema: bool = True,
               export_args: Sequence[str] = (), rows: int | None = None) -> None:
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
            except RuntimeError as e:  # recorded; import then creates the schema itself
                run.notes.append(f"{scenario} {engine} {size}: schema-load failed: {str(e).splitlines()[0][:300]}")
                dst.drop()
                dst = Db(engine, work)
                schema = False
        measure(run, scenario, engine, size, "export", src.url, "-o", str(out), "-q", *export_args, note=per)
        size_mb = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 2**20
        run.steps[-1].note = f"{size_mb:,.0f} MiB of JSON lines" + (f", {per}" if per else "")
        measure(run, scenario, engine, size, "import", str(out), dst.url, "-q",
                *(("--data-only",) if schema else ()), note=per)
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
            stmts += [f"CREATE TABLE t{i:05d} (id int PRIMARY KEY, name varchar(40))", f"INSERT INTO t{i:05d} VALUES (1, 'row {i}')"]
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
            stamp = {"postgresql": "timestamp '2024-01-01' + n * interval '1 second'",
                     "sqlite": "datetime(1704067200 + n, 'unixepoch')"}.get(engine, "TIMESTAMPADD(SECOND, n, '2024-01-01')")
            concat = "'s' || n" if engine in ("postgresql", "sqlite") else "CONCAT('s', n)"
            built = time.perf_counter()
            fill_series(src, "narrow", rows, f"n, n % 1000, {concat}, {stamp}")
            run.notes.append(f"{engine}: {rows:,} narrow rows generated in {time.perf_counter() - built:.0f} s")
            round_trip(run, "rows", engine, f"{rows:,} rows", src, work, schema=False, export_args=("--threads", "2"), rows=rows)
        finally:
            src.drop()


def big_rows(run: Run, engine: str, work: Path, rows: int, mb: int) -> None:
    """Rows holding one ``mb``-MB value each, in turn TEXT, BLOB and JSON."""
    src = Db(engine, work)
    size = mb << 20
    try:
        if engine == "postgresql":
            src.run("CREATE TABLE big (id int PRIMARY KEY, t text, b bytea, j jsonb)")
            fill_series(src, "big", rows, f"n, CASE WHEN n % 3 = 0 THEN repeat(chr(65 + n % 26), {size}) END, "
                                          f"CASE WHEN n % 3 = 1 THEN convert_to(repeat('x', {size}), 'UTF8') END, "
                                          f"CASE WHEN n % 3 = 2 THEN jsonb_build_object('k', repeat('j', {size - 10})) END")
        elif engine == "sqlite":
            src.run("CREATE TABLE big (id integer PRIMARY KEY, t text, b blob, j text)")
            fill_series(src, "big", rows, f"n, CASE WHEN n % 3 = 0 THEN printf('%.*c', {size}, 'A') END, "
                                          f"CASE WHEN n % 3 = 1 THEN zeroblob({size}) END, "
                                          f"CASE WHEN n % 3 = 2 THEN json_object('k', printf('%.*c', {size - 10}, 'j')) END")
        else:
            src.run("CREATE TABLE big (id int PRIMARY KEY, t longtext, b longblob, j json)")
            for n in range(1, rows + 1):  # one row at a time: each value stays under max_allowed_packet
                values = ["NULL", "NULL", "NULL"]
                values[n % 3] = (f"REPEAT('A', {size})", f"REPEAT(0x78, {size})", f"JSON_OBJECT('k', REPEAT('j', {size - 10}))")[n % 3]
                src.run(f"INSERT INTO big VALUES ({n}, {', '.join(values)})")
        round_trip(run, "big", engine, f"{rows} x {mb} MB", src, work, export_args=("--threads", "2"))
    finally:
        src.drop()


def gb_table(run: Run, work: Path, rows: int, width: int) -> None:
    """PostgreSQL: ``rows`` rows of ``width`` bytes of text, exported with --threads 2 (memory)."""
    src = Db("postgresql", work)
    out = work / "gb-export"
    try:
        src.run("CREATE TABLE wide_rows (id bigint PRIMARY KEY, payload text)")
        fill_series(src, "wide_rows", rows, f"n, repeat(md5(n::text), {max(1, width // 32)})")
        step = measure(run, "gb", "postgresql", f"{rows:,} x {width} B", "export", src.url, "-o", str(out), "-q", "--threads", "2")
        size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
        step.note = f"{size / 2**30:.2f} GiB of JSON lines, --threads 2"
    finally:
        src.drop()
        shutil.rmtree(out, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


def markdown(run: Run, args: argparse.Namespace) -> str:
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        "## Load: many tables, wide tables, long tables, big rows",
        "",
        f"<!-- Written by `python -m bench.load` (bench/load.py) on {when}; do not edit by hand. -->",
        "",
        f"Run on {platform.node() or 'this machine'} ({os.cpu_count()} CPUs, shared), {when}, command "
        f"`python -m bench.load {' '.join(args.argv)}`. Each figure is one run of the dbjson CLI as a child "
        "process: wall time and peak resident memory (`os.wait4`, the largest of the process and the "
        "encoder processes it waited for).",
        "",
        "| scenario | engine | size | command | seconds | peak RSS (MiB) | note |",
        "|---|---|---|---|---:|---:|---|",
    ]
    for s in run.steps:
        out.append(f"| {s.scenario} | {s.engine} | {s.size} | {s.command} | {s.seconds:,.1f} | {s.rss_mib:,.0f} | {s.note} |")
    rows = [s for s in run.steps if s.scenario == "rows"]
    growth = _growth(rows)
    if growth:
        out += ["", "Growth from the smallest to the largest long table (time ratio vs row ratio; memory):", "", *growth]
    if run.notes:
        out += ["", *[f"- {n}" for n in run.notes]]
    return "\n".join(out) + "\n"


def _growth(rows: list[Step]) -> list[str]:
    out = []
    for engine in dict.fromkeys(s.engine for s in rows):
        for command in ("export", "import"):
            pts = [s for s in rows if s.engine == engine and s.command == command]
            if len(pts) < 2:
                continue
            a, b = pts[0], pts[-1]
            ra, rb = (int(x.size.split()[0].replace(",", "")) for x in (a, b))
            out.append(f"- {engine} {command}: {rb / ra:.0f}x the rows took {b.seconds / a.seconds:.1f}x the time "
                       f"({ra / a.seconds:,.0f} → {rb / b.seconds:,.0f} rows/s); peak RSS {a.rss_mib:,.0f} → {b.rss_mib:,.0f} MiB")
    return out


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.load", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--engines", default="postgresql,mysql,mariadb", help="comma-separated (postgresql, mysql, mariadb, sqlite)")
    p.add_argument("--scenarios", default="tables,columns,rows,big,gb", help="comma-separated: tables, columns, rows, big, gb")
    p.add_argument("--tables", type=int, default=5000, help="tables in the many-tables database (5,000)")
    p.add_argument("--columns", type=int, default=1000, help="int columns of the wide table (1,000)")
    p.add_argument("--wide-rows", type=int, default=10_000, help="rows of the wide table (10,000)")
    p.add_argument("--rows", default="1000000,10000000", help="sizes of the long table (1M and 10M)")
    p.add_argument("--rows-engines", default="", help="engines for the long table (default: --engines)")
    p.add_argument("--tables-engines", default="", help="engines for the many-tables database (default: --engines)")
    p.add_argument("--big-engines", default="", help="engines for the big-row table (default: --engines)")
    p.add_argument("--big-rows", type=int, default=200, help="rows of the big-row table (200)")
    p.add_argument("--big-mb", type=int, default=5, help="MB per big value (5)")
    p.add_argument("--gb-rows", type=int, default=2_000_000, help="rows of the PostgreSQL multi-GB table (2M)")
    p.add_argument("--gb-width", type=int, default=1024, help="bytes of text per row of that table (1 KB)")
    p.add_argument("--work", type=Path, default=None, help="scratch directory for exports (default: a temporary one)")
    p.add_argument("--output", type=Path, default=FIGURES, help="the Markdown figures (bench/load-figures.md)")
    p.add_argument("--append", action="store_true", help="keep the figures already in --output (another scenario's run)")
    p.add_argument("--note", action="append", default=[], help="a note to add under the table (repeatable)")
    args = p.parse_args(argv)
    args.argv = list(argv if argv is not None else sys.argv[1:])
    args.previous = args.output.read_text(encoding="utf-8").splitlines() if args.append and args.output.exists() else []
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    unknown = set(engines) - set(ENGINES)
    if unknown:
        raise SystemExit(f"unknown engine(s): {', '.join(sorted(unknown))}")
    scenarios = [s for s in args.scenarios.split(",") if s]
    run = Run(notes=list(args.note))
    work = Path(args.work or tempfile.mkdtemp(prefix="dbjson-load-"))
    work.mkdir(parents=True, exist_ok=True)
    plan: list[tuple[str, Callable[[], None]]] = []
    def on(option: str) -> list[str]:
        return [e for e in (option or args.engines).split(",") if e]

    if "tables" in scenarios:
        plan += [("tables", lambda e=e: many_tables(run, e, work, args.tables)) for e in on(args.tables_engines)]
    if "columns" in scenarios:
        plan += [("columns", lambda e=e: wide_table(run, e, work, args.columns, args.wide_rows)) for e in engines]
    if "big" in scenarios:
        plan += [("big", lambda e=e: big_rows(run, e, work, args.big_rows, args.big_mb)) for e in on(args.big_engines)]
    if "rows" in scenarios:
        sizes = sorted(int(x) for x in args.rows.split(","))
        plan += [("rows", lambda e=e: long_table(run, e, work, sizes)) for e in on(args.rows_engines)]
    if "gb" in scenarios:
        plan.append(("gb", lambda: gb_table(run, work, args.gb_rows, args.gb_width)))
    try:
        for name, fn in plan:
            try:
                fn()
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
    """Write (or, with --append, extend) the figures file."""
    text = markdown(run, args)
    if args.append and args.previous:  # keep the rows and notes of the earlier run(s)
        old = args.previous
        rows = [ln for ln in old if ln.startswith("| ") and not ln.startswith("| scenario")]
        new = text.splitlines()
        fresh_growth = any("x the rows took" in ln for ln in new)
        notes = [ln for ln in old if ln.startswith("- ") and not (fresh_growth and "x the rows took" in ln)]
        at = new.index("|---|---|---|---|---:|---:|---|") + 1
        new[at:at] = rows
        new += notes
        new[4] += f" Earlier rows of this table come from earlier runs (`--append`)."
        text = "\n".join(new) + "\n"
    args.output.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
