"""Every example runs, against the real servers: the quickstart, the README tour (its pasted output
included), the sample database on every engine, the MariaDB → PostgreSQL → MariaDB walkthrough and
the library tour."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FreshDatabase

import dbjson

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent

Fresh = Callable[[str], FreshDatabase]


def run(args: list[str] | str, cwd: Path, timeout: int = 240, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a command the way a user would (the venv's bin first on PATH), not on a terminal."""
    full_env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "COLUMNS": "200", **env}
    full_env.pop("NO_COLOR", None)
    return subprocess.run(
        args,
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        shell=isinstance(args, str),
        executable="/bin/bash" if isinstance(args, str) else None,
    )


def ok_lines(text: str) -> list[str]:
    """The per-table lines of `dbjson verify` (ok or MISMATCH)."""
    return [line for line in text.splitlines() if re.match(r"(ok|MISMATCH) +\S+: \d+ rows", line)]


# -- the quickstart ------------------------------------------------------------------------------


def test_quickstart(tmp_path: Path) -> None:
    out = tmp_path / "qs"
    proc = run([str(ROOT / "scripts" / "quickstart")], ROOT, QUICKSTART_DIR=str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = ok_lines(proc.stdout)
    assert [line.split()[1] for line in lines] == [
        "main.customers:",
        "main.order_lines:",
        "main.orders:",
        "main.products:",
    ]
    assert all(line.startswith("ok ") for line in lines)
    assert "CREATE TABLE" in proc.stdout  # the PostgreSQL DDL was printed
    assert (out / "export" / "manifest.json").is_file() and (out / "copy.db").is_file()
    assert "\x1b" not in proc.stdout + proc.stderr  # not a terminal: no colours


# -- the README's 60-second tour ---------------------------------------------------------------


def readme_tour() -> list[tuple[str, list[str]]]:
    """The tour's console block: (command, the output lines pasted under it)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## A 60-second tour", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif line.strip() and steps:
            steps[-1][1].append(line)
    return steps


def _normalise(line: str) -> str:
    """Timings vary between runs: blank them out."""
    line = re.sub(r"\b\d+\.\ds\b", "Ts", line)  # the total and each phase's time
    return re.sub(r"[\d,]+ rows/s", "R rows/s", line)


def test_readme_tour_runs_and_prints_what_the_readme_shows(fresh_db: Fresh, tmp_path: Path) -> None:
    steps = readme_tour()
    assert [c.split()[1] for c, _ in steps[1:]] == ["schema-dump", "schema-load", "export", "import", "verify"]
    mariadb, postgresql = fresh_db("mariadb"), fresh_db("postgresql")
    urls = {"mysql://root@127.0.0.1:3306/shop": mariadb.url, "postgresql://postgres@127.0.0.1/shop": postgresql.url}
    for command, expected in steps:
        for shown, real in urls.items():
            command = re.sub(re.escape(shown) + r"(?=\s|$)", real, command)
        command = command.replace("examples/", f"{EXAMPLES}/")
        proc = run(command, tmp_path)
        assert proc.returncode == 0, f"{command}\n{proc.stderr[-3000:]}"
        actual = {_normalise(line) for line in (proc.stdout + proc.stderr).splitlines()}
        for line in expected:
            if line.strip() == "...":
                continue
            want = _normalise(line.replace("ok       shop.", f"ok       {mariadb.name}."))
            assert want in actual, f"README shows {line!r} for `{command}`; the run printed:\n" + "\n".join(
                sorted(actual)
            )


# -- the sample database -------------------------------------------------------------------------


def test_sample_db_on_every_engine(engine: str, fresh_db: Fresh) -> None:
    db = fresh_db(engine)
    proc = run([sys.executable, str(EXAMPLES / "sample_db.py"), db.url, "--customers", "60"], ROOT)
    assert proc.returncode == 0, proc.stderr
    sys.path.insert(0, str(EXAMPLES))
    try:
        import sample_db
    finally:
        sys.path.remove(str(EXAMPLES))
    expected = {t: len(rows) for t, rows in sample_db.rows(60).items()}
    assert f"customers: {expected['customers']} rows" in proc.stderr
    for table, n in expected.items():
        assert db.query(f"SELECT COUNT(*) FROM {table}") == [(n,)], table
    model = dbjson.reflect(db.url)
    kinds = {(t.name, c.name): c.type.kind for _, t in model.tables() for c in t.columns}
    assert kinds[("products", "price")] == "decimal" and kinds[("products", "attributes")] == "json"
    assert kinds[("products", "thumbnail")] in ("blob", "varbinary")
    assert kinds[("orders", "placed_at")] == "timestamp"
    assert kinds[("orders", "status")] == ("varchar" if engine == "sqlite" else "enum")  # SQLite has no enum...
    if engine == "sqlite":  # ... so the values are kept by a CHECK
        orders = next(t for _, t in model.tables() if t.name == "orders")
        assert any("'shipped'" in c.expression for c in orders.checks)
    tables = {t.name: t for _, t in model.tables()}
    assert tables["order_lines"].primary_key is not None and len(tables["order_lines"].primary_key.columns) == 2
    assert len(tables["order_lines"].foreign_keys) == 2
    assert [v.name for s in model.schemas for v in s.views] == ["order_totals"]


def test_sample_db_empty_recreates_the_database(fresh_db: Fresh) -> None:
    db = fresh_db("postgresql")
    db.execute("CREATE TABLE leftover (i int)")
    proc = run([sys.executable, str(EXAMPLES / "sample_db.py"), db.url, "--empty"], ROOT)
    assert proc.returncode == 0, proc.stderr
    assert db.query("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [(0,)]


# -- the walkthrough -----------------------------------------------------------------------------


def test_walkthrough_mariadb_postgresql_and_back(fresh_db: Fresh, tmp_path: Path) -> None:
    source, middle, back = fresh_db("mariadb"), fresh_db("postgresql"), fresh_db("mariadb")
    proc = run(
        [str(EXAMPLES / "walkthrough.sh"), source.url, middle.url, back.url],
        tmp_path,
        WALKTHROUGH_DIR=str(tmp_path / "out"),
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    lines = ok_lines(proc.stdout)
    assert len(lines) == 8 and all(line.startswith("ok ") for line in lines)
    assert lines[:4] == lines[4:]  # PostgreSQL and the MariaDB copy both match the original export
    # walkthrough.md pastes the same verify output (the data is deterministic)
    doc = (EXAMPLES / "walkthrough.md").read_text(encoding="utf-8")
    pasted = ok_lines(doc.split("```text\n", 1)[1].split("```", 1)[0])
    assert [line.replace("shop.", f"{source.name}.", 1) for line in pasted] == lines[:4]
    assert (tmp_path / "out" / "shop_back.schema.json").is_file()
    if "$ dbjson migrate" in proc.stdout:  # the one-command step, when dbjson has migrate
        rows = sum(int(line.split(": ")[1].split()[0]) for line in lines[:4])
        assert re.search(rf"migrated {rows} rows of 4 table\(s\) .*; verified", proc.stderr), proc.stderr[-2000:]
    assert back.query("SELECT COUNT(*) FROM order_lines") == source.query("SELECT COUNT(*) FROM order_lines")


# -- the library tour ----------------------------------------------------------------------------


def test_library_tour_sqlite(tmp_path: Path) -> None:
    proc = run([sys.executable, str(EXAMPLES / "library_tour.py"), "--workdir", str(tmp_path / "tour")], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "6. verify: ok" in proc.stdout and "library tour: done" in proc.stdout
    assert (
        "events {'Finished': 1, 'PhaseStarted': 5, 'Started': 1, 'TableFinished': 4, 'TableStarted': 4, 'TableVerified': 4, 'UnitLoaded': 4}"
        in proc.stdout
    )
    assert "hint: dbjson uses psycopg 3" in proc.stdout


def test_library_tour_mysql_to_postgresql(fresh_db: Fresh, tmp_path: Path) -> None:
    source, target = fresh_db("mysql"), fresh_db("postgresql")
    made = run([sys.executable, str(EXAMPLES / "sample_db.py"), source.url, "--customers", "80"], ROOT)
    assert made.returncode == 0, made.stderr
    proc = run(
        [
            sys.executable,
            str(EXAMPLES / "library_tour.py"),
            source.url,
            target.url,
            "--workdir",
            str(tmp_path / "tour"),
        ],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "1. reflect: mysql 9." in proc.stdout and "6. verify: ok" in proc.stdout
    assert target.query("SELECT COUNT(*) FROM customers") == [(80,)]


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".py", ".sh")))
def test_every_example_is_run_here(script: str) -> None:
    """A new example must get a test in this file."""
    source = Path(__file__).read_text(encoding="utf-8")
    assert f'"{script}"' in source, f"examples/{script} has no test in tests/test_examples.py"
