"""A typo must not look like success (issue 17): filters that name no table, a SQLite source that
does not exist, an output directory holding other files, a MySQL URL without a database, and the
losses of an import across engines, printed."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dbjson import export_database, import_database, reflect
from dbjson.cli import app
from dbjson.errors import ConnectionFailed, UsageError


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``dbjson ARGS`` in this process (CliRunner), stderr captured."""
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200", "NO_COLOR": "1"})
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def shop(tmp_path: Path) -> str:
    path = tmp_path / "shop.db"
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT);"
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers (id), total REAL);"
        "CREATE VIEW big_orders AS SELECT * FROM orders WHERE total > 10;"
        "INSERT INTO customers VALUES (1, 'a@example.com'), (2, 'b@example.com');"
        "INSERT INTO orders VALUES (1, 1, 5.0), (2, 2, 50.0);"
    )
    con.commit()
    con.close()
    return f"sqlite:///{path}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-t", "nosuchtable"], "no table matches --tables 'nosuchtable'"),
        (["-t", "Orders"], "did you mean 'orders'"),
        (["-x", "nosuch*"], "no table matches --exclude 'nosuch*'"),
        (["-w", "nosuch:1=1"], "--where names table 'nosuch'"),
        (["-t", "orders", "-w", "customers:id > 1"], "--where names table 'customers'"),
        (["-t", "orders", "-x", "ord*"], "leave no table"),
    ],
)
def test_export_filters_that_name_no_table_fail_and_create_nothing(
    shop: str, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "out"
    r = cli("export", shop, "-o", str(out), *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert not out.exists()


def test_filters_of_export_to_stdout_and_migrate(shop: str, tmp_path: Path) -> None:
    r = cli("export", shop, "--table", "orders", "-o", "-", "-w", "custmers:id > 1")
    assert r.returncode == 2 and "--where names table 'custmers'" in r.stderr, r.stderr
    target = tmp_path / "target.db"
    r = cli("migrate", shop, f"sqlite:///{target}", "-x", "nosuch", "--state-dir", str(tmp_path / "state"))
    assert r.returncode == 2 and "no table matches --exclude 'nosuch'" in r.stderr, r.stderr


def test_filters_of_import_verify_and_schema_dump(shop: str, tmp_path: Path) -> None:
    export_database(shop, tmp_path / "out", threads=1)
    target = tmp_path / "target.db"
    r = cli("import", str(tmp_path / "out"), f"sqlite:///{target}", "-t", "nosuch")
    assert r.returncode == 2 and "no table matches --tables 'nosuch'" in r.stderr, r.stderr
    assert not target.exists()  # not even an empty target file, nor a view over missing tables
    r = cli("verify", str(tmp_path / "out"), shop, "-x", "nosuch")
    assert r.returncode == 2 and "--exclude 'nosuch'" in r.stderr, r.stderr
    r = cli("schema-dump", shop, "-t", "nosuch")
    assert r.returncode == 2 and "--tables 'nosuch'" in r.stderr, r.stderr
    with pytest.raises(UsageError, match="--tables 'nosuch'"):
        import_database(tmp_path / "out", f"sqlite:///{target}", tables=["nosuch"])
    with pytest.raises(UsageError, match="--exclude 'cust'"):
        reflect(shop, exclude=["cust"])
    assert [t.name for _s, t in reflect(shop, tables=["cust*"]).tables()] == ["customers"]


def test_a_missing_sqlite_source_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    typo = tmp_path / "typo.db"
    for args in (
        ["export", f"sqlite:///{typo}", "-o", str(tmp_path / "out")],
        ["schema-dump", f"sqlite:///{typo}"],
        ["migrate", f"sqlite:///{typo}", f"sqlite:///{tmp_path / 'target.db'}"],
        ["diff", f"sqlite:///{typo}", f"sqlite:///{typo}"],
    ):
        r = cli(*args)
        assert r.returncode == 3 and "no such SQLite database file" in r.stderr, (args, r.stderr)
        assert not typo.exists(), args
    assert not (tmp_path / "out").exists()
    with pytest.raises(ConnectionFailed):
        export_database(f"sqlite:///{typo}", tmp_path / "out")
    assert not typo.exists()


def test_a_sqlite_source_is_opened_read_only(shop: str, tmp_path: Path) -> None:
    path = Path(shop.removeprefix("sqlite:///"))
    before = path.read_bytes()
    path.chmod(0o444)
    try:
        report = export_database(shop, tmp_path / "out", threads=2)
    finally:
        path.chmod(0o644)
    assert report.rows == 4 and path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith("shop")) == ["shop.db"]


def test_export_refuses_a_directory_it_did_not_write_and_deletes_nothing_foreign(shop: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "data").mkdir(parents=True)
    (out / "data" / "x.jsonl").write_text("mine\n")
    (out / "notes.txt").write_text("mine too\n")
    r = cli("export", shop, "-o", str(out))
    assert r.returncode == 2 and "data/x.jsonl" in r.stderr and "--overwrite" in r.stderr, r.stderr
    assert sorted(p.name for p in (out / "data").iterdir()) == ["x.jsonl"]
    with pytest.raises(UsageError, match="not a dbjson export"):
        export_database(shop, out)
    r = cli("export", shop, "-o", str(out), "--overwrite", "-q")
    assert r.returncode == 0, r.stderr
    assert (out / "data" / "x.jsonl").read_text() == "mine\n" and (out / "notes.txt").read_text() == "mine too\n"
    assert (out / "manifest.json").is_file() and not (out / ".dbjson-files").exists()


def test_export_replaces_its_own_previous_export_even_an_interrupted_one(shop: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    export_database(shop, out, threads=1, compress="gzip")
    (out / "rejects").mkdir()
    (out / "rejects" / "main.orders.jsonl").write_text("{}\n")  # what an import of it wrote
    old = sorted(p.name for p in (out / "data").iterdir())
    assert old == ["main.customers.jsonl.gz", "main.orders.jsonl.gz"]
    export_database(shop, out, threads=1)  # the previous export: replaced, no --overwrite needed
    assert sorted(p.name for p in (out / "data").iterdir()) == ["main.customers.jsonl", "main.orders.jsonl"]
    # interrupted: data files and no manifest; the list of written files says they are dbjson's
    (out / "manifest.json").unlink()
    (out / ".dbjson-files").write_text("data/main.customers.jsonl\ndata/main.orders.jsonl\n")
    export_database(shop, out, threads=1, tables=["orders"])
    assert sorted(p.name for p in (out / "data").iterdir()) == ["main.orders.jsonl"]
    # a manifest naming a file outside the directory never deletes it
    outside = tmp_path / "keep.txt"
    outside.write_text("keep\n")
    text = (out / "manifest.json").read_text().replace('"data/main.orders.jsonl"', '"../keep.txt"')
    (out / "manifest.json").write_text(text)
    r = cli("export", shop, "-o", str(out), "-q")
    assert r.returncode == 2 and "data/main.orders.jsonl" in r.stderr  # no longer vouched for
    export_database(shop, out, threads=1, overwrite=True)
    assert outside.read_text() == "keep\n"


def test_a_mysql_url_without_a_database_needs_all_databases(fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("mariadb")
    db.execute("CREATE TABLE only_here_t (id INT PRIMARY KEY)")
    server = db.admin  # the server URL, without a database
    r = cli("export", server, "-o", str(tmp_path / "out"))
    assert r.returncode == 2 and "names no database" in r.stderr and "--all-databases" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
    r = cli("schema-dump", server, "-t", "only_here_t")
    assert r.returncode == 2 and "--all-databases" in r.stderr
    r = cli("schema-dump", server, "-t", "only_here_t", "--all-databases")
    assert r.returncode == 0 and "only_here_t" in r.stdout and db.name in r.stdout, r.stderr
    report = export_database(server, tmp_path / "all", tables=["only_here_t"], all_databases=True, threads=1)
    assert [(t.schema, t.name) for t in report.manifest.tables] == [(db.name, "only_here_t")]


def test_import_across_engines_prints_what_the_translation_lost(fresh_db: Any, tmp_path: Path) -> None:
    src = fresh_db("sqlite")
    src.execute(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);"
        "CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN UPDATE t SET v = 'x' WHERE id = NEW.id; END;"
    )
    export_database(src.url, tmp_path / "out", threads=1)
    target = fresh_db("mariadb")
    r = cli("import", str(tmp_path / "out"), target.url)
    assert r.returncode == 0, r.stderr
    assert "translation:" in r.stderr and "trigger" in r.stderr.lower(), r.stderr


def test_import_tables_creates_only_the_views_the_filters_name(shop: str, tmp_path: Path) -> None:
    export_database(shop, tmp_path / "out", threads=1)
    only = tmp_path / "only.db"
    import_database(tmp_path / "out", f"sqlite:///{only}", tables=["customers"])
    con = sqlite3.connect(only)
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")] == [
        "customers"
    ]  # once also a view over orders, which is not there
    con.close()
    both = tmp_path / "both.db"
    import_database(tmp_path / "out", f"sqlite:///{both}", tables=["orders", "customers", "big_*"], if_exists="replace")
    con = sqlite3.connect(both)
    assert con.execute("SELECT COUNT(*) FROM big_orders").fetchone() == (1,)
    con.close()
