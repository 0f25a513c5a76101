"""The unit plan on a Dask cluster (``export --cluster``): a real ``dask.distributed.LocalCluster`` of
two worker processes. The same per-table checksums as a local export; one snapshot across the
workers while another process moves money between accounts (the sum of balances holds); a worker
killed mid-run: its units complete elsewhere, nothing lost or duplicated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from dbjson.export import export_database
from dbjson.format.datafiles import iter_lines, open_data
from dbjson.format.manifest import read_manifest

distributed = pytest.importorskip("distributed")

ACCOUNTS = 60_000
START_BALANCE = 100


def _local_cluster() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, worker_dashboard_address=None
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    yield from _local_cluster()


@pytest.fixture
def own_client() -> Iterator[Any]:
    """A cluster of its own for a test that kills a worker: the tests after it do not depend on
    dask's nanny bringing the worker back (under load it once took longer than a minute)."""
    yield from _local_cluster()


def make_accounts(db: Any, rows: int = ACCOUNTS) -> None:
    if db.engine == "postgresql":
        db.execute(
            "CREATE TABLE acct (id integer PRIMARY KEY, bal bigint NOT NULL, owner text);"
            f"INSERT INTO acct SELECT g, {START_BALANCE}, 'owner ' || g FROM generate_series(1, {rows}) g;"
            "CREATE TABLE note (k varchar(20) PRIMARY KEY, v numeric(12,3), at timestamptz);"
            "INSERT INTO note SELECT 'k' || g, g / 7.0, '2024-01-01'::timestamptz + g * interval '1 hour' "
            "FROM generate_series(1, 500) g; ANALYZE"
        )
        return
    conn = db.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE acct (id int PRIMARY KEY, bal bigint NOT NULL, owner text)")
        cur.execute("CREATE TABLE note (k varchar(20) PRIMARY KEY, v decimal(12,3), at datetime(6))")
        batch = 20_000
        for lo in range(1, rows + 1, batch):
            cur.executemany(
                "INSERT INTO acct VALUES (%s, %s, %s)",
                [(i, START_BALANCE, f"owner {i}") for i in range(lo, min(rows, lo + batch - 1) + 1)],
            )
        cur.executemany(
            "INSERT INTO note VALUES (%s, %s, %s)",
            [(f"k{i}", f"{i / 7:.3f}", f"2024-01-01 {i % 24:02d}:00:00") for i in range(1, 501)],
        )
        cur.execute("ANALYZE TABLE acct, note")
        cur.fetchall()
    conn.commit()
    conn.close()


def sums(report: Any) -> dict[str, tuple[int, str]]:
    return {t.qualified: (t.rows, t.checksum) for t in report.manifest.tables}


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb"])
def test_a_cluster_export_gives_the_local_checksums(client: Any, fresh_db: Any, tmp_path: Path, engine: str) -> None:
    db = fresh_db(engine)
    make_accounts(db, rows=40_000)
    local = export_database(db.url, tmp_path / "local", threads=2)
    remote = export_database(db.url, tmp_path / "cluster", cluster=client, chunk_rows=10_000)
    assert sums(remote) == sums(local)
    expected_mode = {"postgresql": "exported-snapshot", "mysql": "global-read-lock", "mariadb": "backup-stage"}
    assert remote.manifest.snapshot.mode == expected_mode[engine] and remote.manifest.snapshot.consistent
    assert len(remote.manifest.table("public" if engine == "postgresql" else db.name, "acct").files) == 4
    assert read_manifest(tmp_path / "cluster").tables  # valid
    assert not list((tmp_path / "cluster" / "data").glob("*.partial"))


WRITER = r"""
import random, sys, time
url, engine, stop = sys.argv[1], sys.argv[2], sys.argv[3]
import os
if engine == "postgresql":
    import psycopg
    conn = psycopg.connect(url)
    run = lambda sql, args: conn.execute(sql, args)
    mark = "%s"
else:
    import pymysql
    from urllib.parse import urlparse
    u = urlparse(url)
    conn = pymysql.connect(host=u.hostname, port=u.port, user=u.username, database=u.path.lstrip("/"))
    cur = conn.cursor()
    run = lambda sql, args: cur.execute(sql, args)
n = 0
while not os.path.exists(stop):
    a, b = random.randint(1, ACCOUNTS), random.randint(1, ACCOUNTS)
    x = random.randint(1, 50)
    run("UPDATE acct SET bal = bal - %s WHERE id = %s", (x, a))
    run("UPDATE acct SET bal = bal + %s WHERE id = %s", (x, b))
    conn.commit()
    n += 1
print(n)
""".replace("ACCOUNTS", str(ACCOUNTS))


def _balance_sum(out: Path) -> tuple[int, int]:
    doc = read_manifest(out)
    t = next(t for t in doc.tables if t.name == "acct")
    total = rows = 0
    for f in t.files:
        with open_data(out / f.path) as fh:
            for _n, line in iter_lines(fh, f.path):
                total += int(orjson.loads(line)["bal"])
                rows += 1
    return rows, total


@pytest.mark.parametrize("engine", ["postgresql", "mariadb"])
def test_one_snapshot_across_workers_while_another_process_writes(
    client: Any, fresh_db: Any, tmp_path: Path, engine: str
) -> None:
    db = fresh_db(engine)
    make_accounts(db)
    url = db.url if engine != "postgresql" else db.url.replace("postgresql+psycopg://", "postgresql://")
    url = url.replace("mysql+pymysql://", "mysql://")
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, url, engine, str(stop)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        time.sleep(0.5)  # the writer is committing transfers
        assert writer.poll() is None, writer.stderr.read().decode() if writer.stderr else ""
        export_database(db.url, tmp_path / "out", cluster=client, chunk_rows=5_000)  # 12 units over 2 workers
    finally:
        stop.touch()
        out, err = writer.communicate(timeout=30)
    assert writer.returncode == 0, err.decode()
    assert int(out) > 10, "the writer committed too few transfers to test anything"
    assert _balance_sum(tmp_path / "out") == (ACCOUNTS, ACCOUNTS * START_BALANCE)


def test_a_killed_worker_s_units_complete_elsewhere(own_client: Any, fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("postgresql")
    make_accounts(db, rows=400_000)
    local = export_database(db.url, tmp_path / "local", threads=2)
    pids = own_client.run(os.getpid)  # worker address → process id
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["report"] = export_database(db.url, tmp_path / "cluster", cluster=own_client, chunk_rows=100_000)
        except BaseException as e:  # noqa: BLE001 - asserted below
            outcome["error"] = e

    t = threading.Thread(target=run)
    t.start()
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and t.is_alive() and time.monotonic() < deadline:
        for addr, keys in own_client.processing().items():
            if any("export_unit_task" in str(k) for k in keys) and addr in pids:
                os.kill(pids[addr], signal.SIGKILL)
                killed = addr
                break
        time.sleep(0.005)
    t.join(timeout=120)
    assert killed is not None, "no unit was running to kill"
    assert "error" not in outcome, outcome.get("error")
    report = outcome["report"]
    assert sums(report) == sums(local)
    paths = [f.path for t in report.manifest.tables for f in t.files]
    assert len(paths) == len(set(paths))  # every unit's files once
    assert sorted(p.name for p in (tmp_path / "cluster" / "data").iterdir()) == sorted(Path(p).name for p in paths)


@pytest.mark.parametrize("engine", ["postgresql", "mysql", "mariadb"])
def test_an_import_through_the_cluster_loads_every_unit_once(
    client: Any, fresh_db: Any, tmp_path: Path, engine: str
) -> None:
    from dbjson.importer import import_database

    src = fresh_db("postgresql")
    make_accounts(src, rows=30_000)
    export_database(src.url, tmp_path / "out", cluster=client, chunk_rows=5_000)
    target = fresh_db(engine)
    report = import_database(tmp_path / "out", target.url, cluster=client)
    assert report.verify is not None and report.verify.ok
    assert report.tables[next(k for k in report.tables if k.endswith("acct"))].units == 6
    assert target.query("SELECT COUNT(*), COUNT(DISTINCT id), SUM(bal) FROM acct")[0] == (
        30_000,
        30_000,
        30_000 * START_BALANCE,
    )


def test_a_killed_worker_s_import_unit_is_loaded_exactly_once(own_client: Any, fresh_db: Any, tmp_path: Path) -> None:
    from dbjson.importer import import_database

    src = fresh_db("postgresql")
    make_accounts(src, rows=300_000)
    export_database(src.url, tmp_path / "out", threads=2, chunk_rows=50_000)
    target = fresh_db("postgresql")
    pids = own_client.run(os.getpid)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["report"] = import_database(
                tmp_path / "out",
                target.url,
                cluster=own_client,
                on_event=lambda e: outcome.setdefault("events", []).append(e),
            )
        except BaseException as e:  # noqa: BLE001 - asserted below
            outcome["error"] = e

    t = threading.Thread(target=run)
    t.start()
    killed = None
    deadline = time.monotonic() + 60
    import psutil  # a dependency of distributed

    copying = (
        "SELECT client_port FROM pg_stat_activity WHERE query LIKE 'COPY%%' AND state = 'active' "
        "AND datname = current_database()"
    )
    while killed is None and t.is_alive() and time.monotonic() < deadline:
        ports = {r[0] for r in target.query(copying)}
        for addr, pid in pids.items():  # the worker whose connection is inside a unit's COPY
            try:
                mine = {c.laddr.port for c in psutil.Process(pid).net_connections(kind="tcp")}
            except psutil.Error:
                continue
            if mine & ports:
                os.kill(pid, signal.SIGKILL)
                killed = addr
                break
        time.sleep(0.005)
    t.join(timeout=120)
    assert killed is not None, "no unit was loading to kill"
    assert "error" not in outcome, outcome.get("error")
    assert outcome["report"].verify.ok
    # Usually the lost unit's task ran again, found the unit begun and the row counts decided (a
    # Retry event "its worker was lost"); when the COPY ended between the query and the kill, the
    # unit had finished. Either way every row is there exactly once (the counts below: a unit loaded
    # twice fails the primary key, as it did with a racy claim check).
    assert target.query("SELECT COUNT(*), COUNT(DISTINCT id), SUM(bal) FROM acct")[0] == (
        300_000,
        300_000,
        300_000 * START_BALANCE,
    )


def test_a_cluster_export_to_object_storage_and_an_import_from_it(
    client: Any, fresh_db: Any, s3: Any, tmp_path: Path
) -> None:
    from dbjson.format.storage import ObjectPath
    from dbjson.importer import import_database

    db = fresh_db("postgresql")
    make_accounts(db, rows=20_000)
    out = ObjectPath(f"s3://{s3.bucket}/cluster", s3.options)  # the options travel to the workers
    remote = export_database(db.url, out, cluster=client, chunk_rows=5_000)
    local = export_database(db.url, tmp_path / "local", threads=2)
    assert sums(remote) == sums(local)
    assert not s3.uploads() and "cluster/manifest.json" in s3.keys("cluster/")
    target = fresh_db("mariadb")
    report = import_database(out, target.url, cluster=client)
    assert report.verify is not None and report.verify.ok
    assert target.query("SELECT COUNT(*), SUM(bal) FROM acct")[0] == (20_000, 20_000 * START_BALANCE)


def test_the_cli_runs_on_a_scheduler_address(client: Any, fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("postgresql")
    make_accounts(db, rows=5_000)
    proc = subprocess.run(
        [sys.executable, "-m", "dbjson", "export", db.url, "-o", str(tmp_path / "o"), "--json"]
        + ["--cluster", client.scheduler.address],
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    doc = orjson.loads(proc.stdout)
    assert doc["snapshot"] == {"mode": "exported-snapshot", "consistent": True} and doc["rows"] == 5_500


def test_a_killed_actor_s_units_go_to_the_surviving_one(own_client: Any, fresh_db: Any, tmp_path: Path) -> None:
    """MySQL/MariaDB: the snapshot lives in the actors' sessions; a lost actor's unit is run by an
    actor that holds the same snapshot."""
    db = fresh_db("mariadb")
    make_accounts(db, rows=120_000)
    local = export_database(db.url, tmp_path / "local", threads=2)
    pids = own_client.run(os.getpid)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["report"] = export_database(db.url, tmp_path / "cluster", cluster=own_client, chunk_rows=15_000)
        except BaseException as e:  # noqa: BLE001 - asserted below
            outcome["error"] = e

    t = threading.Thread(target=run)
    t.start()
    killed = None
    deadline = time.monotonic() + 60
    data = tmp_path / "cluster" / "data"
    while killed is None and t.is_alive() and time.monotonic() < deadline:
        # both actors run a unit from the first one on (8 units, 2 actors): one is being written
        if data.is_dir() and any(p.name.endswith(".partial") for p in data.iterdir()):
            addr = sorted(pids)[0]
            os.kill(pids[addr], signal.SIGKILL)
            killed = addr
        time.sleep(0.005)
    t.join(timeout=120)
    assert not t.is_alive(), "the export hung after the actor was lost"
    assert killed is not None, "no actor was reading to kill"
    assert "error" not in outcome, outcome.get("error")
    report = outcome["report"]
    assert sums(report) == sums(local) and report.manifest.snapshot.mode == "backup-stage"
    paths = [f.path for t in report.manifest.tables for f in t.files]
    assert len(paths) == len(set(paths))


def test_a_cluster_export_makes_the_local_export_s_checks(client: Any, fresh_db: Any, tmp_path: Path) -> None:
    """The same refusals as a local export, before anything is written: a table filter that
    names no table, an output directory holding files no export wrote; ``overwrite`` replaces
    only what an export wrote, the files a cluster export wrote included."""
    from dbjson.errors import UsageError

    db = fresh_db("postgresql")
    make_accounts(db, rows=2_000)
    with pytest.raises(UsageError, match="acount"):
        export_database(db.url, tmp_path / "none", cluster=client, tables=["acount"])
    assert not (tmp_path / "none").exists() or not any((tmp_path / "none").iterdir())
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(UsageError):
        export_database(db.url, foreign, cluster=client)
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]
    out = tmp_path / "out"
    first = export_database(db.url, out, cluster=client, chunk_rows=500)
    stale = out / "data" / "stale.jsonl"  # not the export's: --overwrite must keep it
    stale.write_text("{}\n")
    with pytest.raises(UsageError):
        export_database(db.url, out, cluster=client)
    again = export_database(db.url, out, cluster=client, chunk_rows=500, overwrite=True)
    assert sums(again) == sums(first)
    assert stale.exists()
    assert not (out / ".dbjson-files").exists()
