"""export on real servers: Chinook counts and checksums, consistency under concurrent writes, safe
file names, compression, --where, chunking, cancellation."""

from __future__ import annotations

import gzip
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
import xxhash
import zstandard
from chinook import chinook_row_counts, chinook_table_name, load_chinook

from dbjson.errors import DataError, UsageError
from dbjson.export import export_database, parse_chunk_size, parse_where
from dbjson.format.checksum import Checksum
from dbjson.format.layout import safe_names
from dbjson.format.manifest import read_manifest
from dbjson.validate import validate


def read_data(path: Path) -> bytes:
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        return gzip.decompress(raw)
    if path.name.endswith(".zst"):
        return zstandard.ZstdDecompressor().decompressobj().decompress(raw)
    return raw


def check_files(out: Path) -> dict[str, Any]:
    """Every file matches its manifest entry (size, sha256, rows, checksum); returns the manifest doc."""
    doc = orjson.loads((out / "manifest.json").read_bytes())
    assert validate(doc, "manifest") == []
    assert (doc["format_version"], doc["checksum_algorithm"]) == ("1.4", "xxh3-64-sum")
    listed = set()
    for t in doc["tables"]:
        total = Checksum()
        for f in t["files"]:
            path = out / f["path"]
            listed.add(path.name)
            raw = path.read_bytes()
            assert len(raw) == f["bytes"] and xxhash.xxh3_128_hexdigest(raw) == f["xxh128"] and "sha256" not in f
            c = Checksum()
            c.add_block(read_data(path))
            assert (c.rows, c.hexdigest()) == (f["rows"], f["checksum"])
            total.merge(c)
        assert (total.rows, total.hexdigest()) == (t["rows"], t["checksum"])
    assert {p.name for p in (out / "data").iterdir()} == listed  # nothing partial, nothing extra
    return doc


# -- Chinook --------------------------------------------------------------------------------


def test_chinook_counts_and_checksums(fresh_db: Any, engine: str, tmp_path: Path) -> None:
    db = fresh_db(engine)
    load_chinook(db)
    events: list[Any] = []
    report = export_database(db.url, tmp_path / "out", threads=2, on_event=events.append)
    doc = check_files(tmp_path / "out")
    counts = {t["name"]: t["rows"] for t in doc["tables"]}
    expected = {chinook_table_name(engine, t): n for t, n in chinook_row_counts().items()}
    assert counts == expected
    assert report.rows == sum(expected.values())
    assert doc["source"]["engine"] == engine and "password" not in (tmp_path / "out" / "manifest.json").read_text()
    assert doc["snapshot"]["consistent"] is True
    assert (tmp_path / "out" / "schema.json").exists()
    assert any(type(e).__name__ == "Finished" for e in events)
    # an export is deterministic: the same database gives the same checksums
    again = export_database(db.url, tmp_path / "again", threads=3)
    assert [(t.name, t.checksum) for t in again.manifest.tables] == [(t["name"], t["checksum"]) for t in doc["tables"]]
    manifest = read_manifest(tmp_path / "out")
    assert manifest.rows == report.rows


def test_mysql_and_mariadb_agree_on_chinook(fresh_db: Any, tmp_path: Path) -> None:
    sums = []
    for engine in ("mysql", "mariadb"):
        db = fresh_db(engine)
        load_chinook(db)
        r = export_database(db.url, tmp_path / engine, threads=2)
        sums.append({t.name: t.checksum for t in r.manifest.tables})
    assert sums[0] == sums[1]


# -- consistency ----------------------------------------------------------------------------

ACCOUNTS = 400


def _writer(db: Any, stop: threading.Event, done: list[int], errors: list[BaseException]) -> None:
    """Transfers between accounts, each in one transaction that also writes two ledger rows.
    Invariant: balance(a) == 100 + sum(ledger.amount of a)."""
    conn = db.connect()
    if db.engine == "sqlite":  # in rollback-journal mode a COMMIT waits until the export ends (by design)
        conn.execute("PRAGMA busy_timeout = 300000")
    rnd = random.Random(7)
    begin = {"sqlite": "BEGIN IMMEDIATE", "postgresql": "BEGIN"}.get(db.engine, "START TRANSACTION")

    def run(sql: str) -> None:
        if db.engine == "sqlite":
            conn.execute(sql)
        else:
            with conn.cursor() as cur:
                cur.execute(sql)

    try:
        while not stop.is_set():
            a, b = rnd.sample(range(1, ACCOUNTS + 1), 2)
            x = rnd.randint(1, 50)
            run(begin)
            run(f"UPDATE accounts SET balance = balance - {x} WHERE id = {a}")
            run(f"INSERT INTO ledger (account_id, amount) VALUES ({a}, {-x})")
            run(f"UPDATE accounts SET balance = balance + {x} WHERE id = {b}")
            run(f"INSERT INTO ledger (account_id, amount) VALUES ({b}, {x})")
            run("COMMIT")
            done[0] += 1
    except BaseException as e:  # noqa: BLE001 - the test reports it
        errors.append(e)
    finally:
        conn.close()


def test_snapshot_consistency_under_concurrent_writes(fresh_db: Any, engine: str, tmp_path: Path) -> None:
    _consistency_under_concurrent_writes(fresh_db(engine), engine, tmp_path)


def test_sqlite_snapshot_consistency_in_wal_mode(fresh_db: Any, tmp_path: Path) -> None:
    """In WAL mode writers do not wait for readers: only the write lock keeps the workers' snapshots equal."""
    db = fresh_db("sqlite")
    conn = db.connect()
    assert conn.execute("PRAGMA journal_mode = wal").fetchone()[0] == "wal"
    conn.close()
    _consistency_under_concurrent_writes(db, "sqlite", tmp_path)


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_sqlite_write_lock_holds_off_writers_while_workers_start(fresh_db: Any, journal: str) -> None:
    """The export's connections are read-only, yet while its workers fix their snapshots no other
    connection may commit, in either journal mode (a write lock taken on a read-only connection is
    no lock at all). After the snapshot is fixed, a writer commits (WAL) and the workers still read
    the earlier state."""
    from dbjson.connect import Target, close_quietly, parse_url
    from dbjson.engines import detect_engine
    from dbjson.export import connect_source, open_workers

    db = fresh_db("sqlite")
    setup = db.connect()
    assert setup.execute(f"PRAGMA journal_mode = {journal}").fetchone()[0] == journal
    setup.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)")
    setup.close()
    writer = db.connect()
    writer.execute("PRAGMA busy_timeout = 0")
    outcomes: list[str] = []

    class Starting:
        """A worker connection that tries an outside commit as it starts its read transaction."""

        def __init__(self, conn: Any) -> None:
            self.conn = conn

        def execute(self, sql: str, *args: Any) -> Any:
            if sql == "BEGIN":
                try:
                    writer.execute("INSERT INTO t VALUES (NULL)")
                    outcomes.append("committed")
                except sqlite3.OperationalError as e:
                    outcomes.append(str(e))
            return self.conn.execute(sql, *args)

    target = Target(parse_url(db.url))
    coordinator = connect_source(target)
    engine = detect_engine(target.family, coordinator)
    workers = open_workers(target, engine, 2)
    try:
        snap = engine.export_snapshot(coordinator, [Starting(w) for w in workers], lambda _m: None)
        assert snap.mode == "sqlite-write-lock" and snap.consistent
        assert outcomes == ["database is locked"] * 2
        if journal == "wal":  # readers do not hold writers off: the snapshot does
            writer.execute("INSERT INTO t VALUES (NULL)")
        assert [w.execute("SELECT COUNT(*) FROM t").fetchone()[0] for w in workers] == [0, 0]
    finally:
        close_quietly([coordinator, *workers])
        writer.close()


def _consistency_under_concurrent_writes(db: Any, engine: str, tmp_path: Path) -> None:
    serial = {
        "postgresql": "id serial PRIMARY KEY",
        "sqlite": "id INTEGER PRIMARY KEY AUTOINCREMENT",
    }.get(engine, "id INT AUTO_INCREMENT PRIMARY KEY")
    rows = ", ".join(f"({i}, 100)" for i in range(1, ACCOUNTS + 1))
    db.execute(
        f"CREATE TABLE accounts (id INT PRIMARY KEY, balance INT NOT NULL);\n"
        f"CREATE TABLE ledger ({serial}, account_id INT NOT NULL, amount INT NOT NULL);\n"
        f"INSERT INTO accounts VALUES {rows};\n"
    )
    stop, done = threading.Event(), [0]
    errors: list[BaseException] = []
    writer = threading.Thread(target=_writer, args=(db, stop, done, errors))
    writer.start()
    try:
        while done[0] < 20 and not errors:
            time.sleep(0.01)
        before = done[0]
        for i in range(3):
            export_database(db.url, tmp_path / f"out{i}", threads=4, chunk_rows=100)
        during = done[0] - before
    finally:
        stop.set()
        writer.join()
    assert not errors, f"the writer failed: {errors[0]!r}"
    assert during > 0, "the writer must run while exporting"
    for i in range(3):
        doc = check_files(tmp_path / f"out{i}")
        assert doc["snapshot"]["consistent"] is True
        data = {
            t["name"]: [
                orjson.loads(ln) for f in t["files"] for ln in read_data(tmp_path / f"out{i}" / f["path"]).splitlines()
            ]
            for t in doc["tables"]
        }
        assert len(next(t for t in doc["tables"] if t["name"] == "accounts")["files"]) == 4  # split across workers
        balance = {int(r["id"]): int(r["balance"]) for r in data["accounts"]}
        moved: dict[int, int] = {}
        for r in data["ledger"]:
            moved[int(r["account_id"])] = moved.get(int(r["account_id"]), 0) + int(r["amount"])
        assert sum(balance.values()) == 100 * ACCOUNTS
        assert all(balance[a] == 100 + moved.get(a, 0) for a in balance)
        assert len(data["ledger"]) % 2 == 0


# -- names, compression, filters, chunks ----------------------------------------------------


def test_safe_names_are_unique_deterministic_and_contained() -> None:
    names = [
        ("main", n) for n in ("a b", "a/b", "..", ".", "x.y", "Foo", "foo", "ünï", "a%2Fb", "CON", "x" * 300, "\\", "")
    ]
    out = safe_names(names)
    assert safe_names(reversed(names)) == out
    values = list(out.values())
    assert len({v.lower() for v in values}) == len(values)
    for v in values:
        assert "/" not in v and "\\" not in v and not v.startswith(".") and len(v.encode()) <= 130
        assert all(ch.isascii() for ch in v)
    assert out[("main", "a b")] == "main.a%20b" and out[("main", "..")] == "main.%2E%2E"
    assert out[("main", "Foo")].startswith("main.Foo~") and out[("main", "foo")].startswith("main.foo~")


@pytest.mark.parametrize("engine_name", ["sqlite", "postgresql", "mysql"])
def test_odd_table_names_export_inside_the_directory(fresh_db: Any, engine_name: str, tmp_path: Path) -> None:
    db = fresh_db(engine_name)
    q = "`" if engine_name == "mysql" else '"'
    names = {
        "postgresql": ["a b", "a/b", "..", "x.y", "Foo", "foo", "ünï"],  # case-only difference: two tables
        "sqlite": ["a b", "a/b", "..", "x.y", "Foo", "ünï"],
        "mysql": ["a b", "a/b", "..x", "x.y", "ünï"],
    }[engine_name]
    db.execute(
        "\n".join(f"CREATE TABLE {q}{n}{q} (id INT PRIMARY KEY);\nINSERT INTO {q}{n}{q} VALUES (1);" for n in names)
    )
    out = tmp_path / "out"
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    export_database(db.url, out, threads=2)
    doc = check_files(out)
    assert sorted(t["name"] for t in doc["tables"]) == sorted(names)
    created = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    assert created and all(out in p.parents for p in created)
    assert len({f["path"].lower() for t in doc["tables"] for f in t["files"]}) == len(names)


@pytest.mark.parametrize("compress", ["gzip", "zstd"])
def test_compression(fresh_db: Any, tmp_path: Path, compress: str) -> None:
    db = fresh_db("sqlite")
    load_chinook(db)
    plain = export_database(db.url, tmp_path / "plain", threads=2)
    packed = export_database(db.url, tmp_path / "packed", threads=2, compress=compress)
    doc = check_files(tmp_path / "packed")
    assert doc["compression"] == compress
    ext = ".gz" if compress == "gzip" else ".zst"
    for a, b in zip(plain.manifest.tables, packed.manifest.tables):
        assert a.checksum == b.checksum and a.rows == b.rows
        assert all(f.path.endswith(".jsonl" + ext) for f in b.files)
        assert read_data(tmp_path / "packed" / b.files[0].path) == (tmp_path / "plain" / a.files[0].path).read_bytes()
    assert packed.bytes < plain.bytes / 2


def test_where_filters_rows(fresh_db: Any, server_engine: str, tmp_path: Path) -> None:
    db = fresh_db(server_engine)
    load_chinook(db)
    track = chinook_table_name(server_engine, "Track")
    ms = "milliseconds" if server_engine == "postgresql" else "Milliseconds"
    cond = f"{ms} > 300000"
    (expected,) = db.query(f"SELECT COUNT(*) FROM {track} WHERE {cond}")[0]
    r = export_database(db.url, tmp_path / "out", threads=2, tables=[track, "*enre"], where={track: cond})
    t = next(t for t in r.manifest.tables if t.name == track)
    assert t.rows == expected and t.where == f"({cond})" and 0 < expected < 3503
    assert any(t.name.lower() == "genre" and t.rows == 25 for t in r.manifest.tables)
    check_files(tmp_path / "out")
    name = "name" if server_engine == "postgresql" else "Name"
    like = f"{name} LIKE '%a%' AND {name} NOT LIKE '%%z'"
    (expected,) = db.query(f"SELECT COUNT(*) FROM {track} WHERE {like}")[0]
    r = export_database(db.url, tmp_path / "like", threads=2, tables=[track], where={track: like}, chunk_rows=500)
    assert r.manifest.tables[0].rows == expected and len(r.manifest.tables[0].files) == -(-expected // 500) > 1


def _fill_big(db: Any, n: int) -> None:
    if db.engine == "postgresql":
        db.execute(
            f"CREATE TABLE big (id int PRIMARY KEY, v text); INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, {n}) g;"
        )
        db.execute(
            f"CREATE TABLE keyed (k varchar(20) PRIMARY KEY, n int); INSERT INTO keyed SELECT 'k' || lpad(g::text, 6, '0'), g FROM generate_series(1, {n // 10}) g;"
        )
        return
    rec = "WITH RECURSIVE seq(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM seq WHERE g < {n})"
    md5 = "hex(randomblob(16))" if db.engine == "sqlite" else "CONCAT('v', g, REPEAT('x', 20))"
    pre = "SET SESSION cte_max_recursion_depth = 1000000;\n" if db.engine == "mysql" else ""
    pre += "SET SESSION max_recursive_iterations = 1000000;\n" if db.engine == "mariadb" else ""
    pad = "printf('k%06d', g)" if db.engine == "sqlite" else "CONCAT('k', LPAD(g, 6, '0'))"
    db.execute(
        f"{pre}CREATE TABLE big (id INT PRIMARY KEY, v TEXT);\n"
        f"INSERT INTO big (id, v) {rec.format(n=n)} SELECT g, {md5} FROM seq;\n"
        f"CREATE TABLE keyed (k VARCHAR(20) PRIMARY KEY, n INT);\n"
        f"INSERT INTO keyed (k, n) {rec.format(n=n // 10)} SELECT {pad}, g FROM seq;\n"
    )


def test_chunking_by_rows_and_bytes(fresh_db: Any, engine: str, tmp_path: Path) -> None:
    db = fresh_db(engine)
    _fill_big(db, 50_000)
    whole = export_database(db.url, tmp_path / "whole", threads=2, tables=["big", "keyed"], chunk_rows=10**9)
    split = export_database(db.url, tmp_path / "split", threads=2, tables=["big", "keyed"], chunk_rows=10_000)
    doc = check_files(tmp_path / "split")
    big = next(t for t in doc["tables"] if t["name"] == "big")
    assert len(big["files"]) == 5 and [f["rows"] for f in big["files"]] == [10_000] * 5
    assert [f["chunk"] for f in big["files"]] == [0, 1, 2, 3, 4]
    assert "lower" not in big["files"][0]["key_range"] and "upper" not in big["files"][-1]["key_range"]  # unbounded
    assert big["files"][1]["key_range"]["lower"] == big["files"][0]["key_range"]["upper"]
    keyed = next(t for t in doc["tables"] if t["name"] == "keyed")
    assert len(keyed["files"]) == 1  # 5,000 rows: one chunk
    split2 = export_database(db.url, tmp_path / "split2", threads=2, tables=["keyed"], chunk_rows=1_000)
    assert [f.rows for f in split2.manifest.tables[0].files] == [1_000] * 5  # keyset boundaries on a text key
    assert split2.manifest.tables[0].files[1].key_range.lower == ["k001001"]  # type: ignore[union-attr]
    for a, b in zip(whole.manifest.tables, split.manifest.tables):
        assert (a.rows, a.checksum) == (b.rows, b.checksum)
    by_bytes = export_database(db.url, tmp_path / "bytes", threads=2, tables=["big"], chunk_bytes=256 * 1024)
    files = by_bytes.manifest.tables[0].files
    assert len(files) >= 8 and all(f.bytes <= 256 * 1024 for f in files)
    assert by_bytes.manifest.tables[0].checksum == whole.manifest.table(whole.manifest.tables[0].schema, "big").checksum
    check_files(tmp_path / "bytes")


def test_ctrl_c_stops_workers_and_leaves_no_complete_looking_file(fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("postgresql")
    db.execute(
        "CREATE TABLE big (id int PRIMARY KEY, v text); INSERT INTO big SELECT g, repeat('x', 200) FROM generate_series(1, 300000) g;"
    )
    out = tmp_path / "out"
    # Ctrl-C as a user presses it: SIGINT to a process running the export (its own process, so the
    # signal state of the test runner plays no part), once the first data file exists.
    # (SIGINT's default handler restored first: an ignored SIGINT is inherited from the test runner's
    # worker process, where something in the suite leaves it ignored.)
    code = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from dbjson.export import export_database; "
        "export_database(sys.argv[1], sys.argv[2], threads=2, chunk_rows=20_000)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, db.url, str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 30
    while not list(out.glob("data/*.jsonl*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the export finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    started = time.monotonic()
    _stdout, stderr = proc.communicate(timeout=30)
    assert time.monotonic() - started < 8, "Ctrl-C did not stop the export promptly"
    assert proc.returncode != 0 and "KeyboardInterrupt" in stderr, stderr[-2000:]
    assert not (out / "manifest.json").exists()
    assert not list((out / "data").glob("*.partial"))
    # every complete file is whole: its rows are complete JSON lines of 20,000-row chunks
    for f in (out / "data").glob("*.jsonl"):
        assert len(f.read_bytes().splitlines()) == 20_000


def test_option_parsing() -> None:
    assert parse_chunk_size("500000") == (500000, None)
    assert parse_chunk_size("64MB") == (None, 64 * 1024**2)
    assert parse_chunk_size("1g") == (None, 1024**3)
    with pytest.raises(UsageError):
        parse_chunk_size("lots")
    assert parse_where(["orders:id > 5 AND note = 'a:b'"]) == {"orders": "id > 5 AND note = 'a:b'"}
    with pytest.raises(UsageError):
        parse_where(["no condition"])
    with pytest.raises(UsageError):
        export_database("sqlite:///x.db", "/tmp/never", compress="rar")


def test_postgresql_partitions_and_inheritance_export_each_row_once(fresh_db: Any, tmp_path: Path) -> None:
    db = fresh_db("postgresql")
    db.execute(
        "CREATE TABLE m (id int, k int, PRIMARY KEY (id, k)) PARTITION BY RANGE (k);"
        "CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (0) TO (10);"
        "CREATE TABLE m2 PARTITION OF m FOR VALUES FROM (10) TO (20);"
        "INSERT INTO m SELECT g, g % 20 FROM generate_series(1, 100) g;"
        "CREATE TABLE base (id int PRIMARY KEY); CREATE TABLE child (extra int) INHERITS (base);"
        "INSERT INTO base VALUES (1), (2); INSERT INTO child VALUES (3, 30);"
    )
    (tmp_path / "out" / "data").mkdir(parents=True)
    (tmp_path / "out" / "data" / "public.old.jsonl").write_text("stale\n")  # an interrupted earlier export's file
    (tmp_path / "out" / ".dbjson-files").write_text("data/public.old.jsonl\n")  # ... which it listed
    r = export_database(db.url, tmp_path / "out", threads=2)
    rows = {t.name: t.rows for t in r.manifest.tables}
    assert rows == {"m": 100, "base": 2, "child": 1}
    check_files(tmp_path / "out")


@pytest.mark.parametrize("engine_name", ["mysql", "mariadb"])
def test_without_lock_privilege_per_worker_snapshots_with_a_warning(
    fresh_db: Any, engine_name: str, tmp_path: Path
) -> None:
    from sqlalchemy.engine import make_url

    db = fresh_db(engine_name)
    db.execute("CREATE TABLE t (id INT PRIMARY KEY);\nINSERT INTO t VALUES (1), (2);")
    user = f"lp_{db.name[-8:]}"
    db.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw';\nGRANT SELECT ON `{db.name}`.* TO '{user}'@'%';")
    try:
        url = make_url(db.url).set(username=user, password="pw").render_as_string(hide_password=False)
        events: list[Any] = []
        r = export_database(url, tmp_path / "out", threads=2, on_event=events.append)
        assert r.manifest.snapshot.mode == "per-worker" and r.manifest.snapshot.consistent is False
        assert any(type(e).__name__ == "Warning" and "snapshot" in e.message for e in events)
        assert r.warnings and r.manifest.tables[0].rows == 2
        assert "pw" not in (tmp_path / "out" / "manifest.json").read_text().replace("password", "")
    finally:
        db.execute(f"DROP USER '{user}'@'%'")


def test_bad_where_is_a_usage_error(fresh_db: Any, engine: str, tmp_path: Path) -> None:
    db = fresh_db(engine)
    db.execute("CREATE TABLE t (id INT PRIMARY KEY);")
    with pytest.raises(UsageError) as e:
        export_database(db.url, tmp_path / "out", where={"t": "no_such_column > 1"})
    assert e.value.table and e.value.table.endswith(".t") and "no_such_column" in str(e.value)
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_mysql_batches_cut_by_group_concat_limit_are_refetched(
    fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dbjson.engines.mysql.export import MySQLExport

    db = fresh_db("mariadb")
    _fill_big(db, 20_000)
    whole = export_database(db.url, tmp_path / "a", threads=1, tables=["big"])
    session = MySQLExport.export_session

    def small_limit(self: Any, conn: Any) -> None:
        session(self, conn)
        with conn.cursor() as cur:
            cur.execute("SET SESSION group_concat_max_len = 3000")  # about 40 lines per batch

    monkeypatch.setattr(MySQLExport, "export_session", small_limit)
    monkeypatch.setenv("DBJSON_NO_SPEEDUPS", "1")  # the GROUP_CONCAT batches (the C path reads plain rows)
    cut = export_database(db.url, tmp_path / "b", threads=2, tables=["big"])
    assert (cut.rows, cut.manifest.tables[0].checksum) == (20_000, whole.manifest.tables[0].checksum)


def test_mysql_worker_connections_to_loopback_skip_tls(fresh_db: Any) -> None:
    """Workers talking to 127.0.0.1 do not pay for PyMySQL's opportunistic TLS; an ``ssl_*`` URL
    option keeps the driver's default (the MySQL 9 test server offers TLS, the MariaDB one does not)."""
    from dbjson.connect import Target, parse_url
    from dbjson.engines import detect_engine

    db = fresh_db("mysql")
    target = Target(parse_url(db.url))
    coordinator = target.connect_raw()
    eng: Any = detect_engine(target.family, coordinator)
    coordinator.close()
    for url, plain in ((target.url, True), (target.url.update_query_dict({"ssl_check_hostname": "false"}), False)):
        conn = eng.export_connect(Target(url))
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
                assert (cur.fetchall()[0][1] == "") is plain
        finally:
            conn.close()


def test_prefetched_keeps_order_raises_stream_errors_and_stops() -> None:
    """The reader thread hands blocks over in order, re-raises the stream's error in the consumer,
    and ends when the export is stopped even if the stream would block for ever."""
    from dbjson.export import prefetched

    stop = threading.Event()
    assert list(prefetched(iter([b"a\n", b"b\n", b"c\n"]), stop, depth=1)) == [b"a\n", b"b\n", b"c\n"]

    def failing() -> Any:
        yield b"x\n"
        raise ValueError("server went away")

    got: list[bytes] = []
    with pytest.raises(ValueError, match="server went away"):
        got.extend(prefetched(failing(), stop))
    assert got == [b"x\n"]

    release = threading.Event()

    def blocking() -> Any:
        yield b"y\n"
        release.wait(10)
        yield b"z\n"

    blocks = prefetched(blocking(), stop)
    assert next(blocks) == b"y\n"
    threading.Timer(0.2, stop.set).start()
    started = time.monotonic()
    assert list(blocks) == []
    assert time.monotonic() - started < 2
    release.set()


def test_big_table_split_into_two_units_per_worker(fresh_db: Any, tmp_path: Path) -> None:
    """Without --chunk-size, a table of at least SPLIT_MIN_ROWS gets UNITS_PER_WORKER key ranges
    per worker (so the workers finish together), each range a file, together the whole table."""
    from dbjson.export import SPLIT_MIN_ROWS, UNITS_PER_WORKER

    db = fresh_db("postgresql")
    n = 2 * SPLIT_MIN_ROWS
    db.execute(
        f"CREATE TABLE big (id INT PRIMARY KEY, v TEXT);\n"
        f"INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, {n}) g;\nANALYZE big;"
    )
    report = export_database(db.url, tmp_path / "out", threads=2)
    files = report.manifest.tables[0].files
    assert len(files) == 2 * UNITS_PER_WORKER
    assert sum(f.rows for f in files) == n and all(f.rows >= n // (2 * len(files)) for f in files)
    assert [f.chunk for f in files] == list(range(len(files)))
    whole = export_database(db.url, tmp_path / "whole", threads=1, chunk_rows=10 * n)
    assert len(whole.manifest.tables[0].files) == 1
    assert whole.manifest.tables[0].checksum == report.manifest.tables[0].checksum
    check_files(tmp_path / "out")


def test_small_table_planned_without_count(fresh_db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small table with an integer primary key is one unit when its key's MIN/MAX bound its rows
    below SPLIT_MIN_ROWS: no COUNT(*) before the first row. A sparse key (the bound too wide), a
    table without such a key, a ``where`` and a ``chunk_rows`` still count."""
    from dbjson import export as ex

    db = fresh_db("postgresql")
    db.execute(
        "CREATE TABLE dense (id INT PRIMARY KEY, v INT);\n"
        "INSERT INTO dense SELECT g, g FROM generate_series(-5, 494) g;\n"
        "CREATE TABLE sparse (id BIGINT PRIMARY KEY);\nINSERT INTO sparse VALUES (1), (500000);\n"
        "CREATE TABLE nokey (v INT);\nINSERT INTO nokey VALUES (1), (2), (3);\n"
        "CREATE TABLE empty (id INT PRIMARY KEY);"
    )
    target = ex.Target(ex.parse_url(db.url))
    conn = ex.connect_source(target)
    try:
        engine = ex.detect_engine(target.family, conn)
        engine.export_session(conn)
        counted: list[str] = []
        real_count = engine.export_count
        monkeypatch.setattr(engine, "export_count", lambda c, s, t, w: counted.append(t.name) or real_count(c, s, t, w))
        found = {t.name: t for _s, t in engine.reflect_database(conn, target, ex.ReflectOptions()).tables()}

        def plan(name: str, **kw: Any) -> list[Any]:
            opts = {"where": None, "chunk_rows": None, **kw}
            return ex.plan_table(engine, conn, "public", found[name], threads=2, **opts)

        units = {name: plan(name) for name in ("dense", "sparse", "nokey", "empty")}
        assert counted == ["sparse", "nokey"]
        assert all(len(u) == 1 and u[0].count == 1 for u in units.values())
        # never analyzed (no estimate): the key's span; the counted ones exact
        assert [units[n][0].rows_estimate for n in ("dense", "sparse", "nokey", "empty")] == [500, 2, 3, 0]
        counted.clear()
        assert plan("dense", where="v > 10")[0].rows_estimate == 484
        assert len(plan("dense", chunk_rows=100)) == 5
        assert counted == ["dense", "dense"]
    finally:
        ex.close_quietly([conn])


def test_wide_table_split_by_its_size(fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table of few but wide rows (its size on disk at least SPLIT_MIN_BYTES) is split into key
    ranges like a table of many rows, planned from the catalog without a COUNT(*), and its units
    are handed out before those of a table with more but narrower rows."""
    from dbjson import export as ex

    monkeypatch.setattr(ex, "SPLIT_MIN_BYTES", 1 << 20)
    db = fresh_db("postgresql")
    db.execute(
        "CREATE TABLE wide (id INT PRIMARY KEY, doc TEXT);\n"
        "INSERT INTO wide SELECT g, repeat(md5(g::text), 30) FROM generate_series(1, 3000) g;\n"
        "CREATE TABLE narrow (id INT PRIMARY KEY, v INT);\n"
        "INSERT INTO narrow SELECT g, g FROM generate_series(1, 10000) g;\nANALYZE wide; ANALYZE narrow;"
    )
    engine, conn = None, None
    target = ex.Target(ex.parse_url(db.url))
    conn = ex.connect_source(target)
    try:
        engine = ex.detect_engine(target.family, conn)
        engine.export_session(conn)
        counted: list[str] = []
        real_count = engine.export_count
        monkeypatch.setattr(engine, "export_count", lambda c, s, t, w: counted.append(t.name) or real_count(c, s, t, w))
        found = {t.name: t for _s, t in engine.reflect_database(conn, target, ex.ReflectOptions()).tables()}
        wide = ex.plan_table(engine, conn, "public", found["wide"], where=None, chunk_rows=None, threads=2)
        narrow = ex.plan_table(engine, conn, "public", found["narrow"], where=None, chunk_rows=None, threads=2)
    finally:
        ex.close_quietly([conn])
    assert len(wide) == 2 * ex.UNITS_PER_WORKER and len(narrow) == 1
    assert counted == []  # the big table from its estimate, the small one from its key's MIN/MAX
    assert all(u.bytes_estimate >= (1 << 20) // len(wide) for u in wide)
    assert sorted([*narrow, *wide], key=ex.unit_weight, reverse=True)[-1] is narrow[0]
    report = export_database(db.url, tmp_path / "out", threads=2)
    files = {t.name: t.files for t in report.manifest.tables}
    assert len(files["wide"]) == 2 * ex.UNITS_PER_WORKER and sum(f.rows for f in files["wide"]) == 3000
    whole = export_database(db.url, tmp_path / "whole", threads=1, chunk_rows=10**6)
    assert [t.checksum for t in whole.manifest.tables] == [t.checksum for t in report.manifest.tables]
    check_files(tmp_path / "out")


def test_fsync_failure_stops_the_export_cleanly(fresh_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Data files are made durable by a background thread (fsync, then rename): a failure there
    stops the workers and is reported as the output error it is, with no manifest and no
    ``.partial`` file left, and nothing under a final name that was not fsynced."""
    import errno
    import os

    from dbjson import export as ex

    db = fresh_db("postgresql")
    db.execute(
        "CREATE TABLE big (id INT PRIMARY KEY, v TEXT);\n"
        "INSERT INTO big SELECT g, md5(g::text) FROM generate_series(1, 200000) g;\n"
        "CREATE TABLE small (id INT PRIMARY KEY);\nINSERT INTO small VALUES (1), (2);\nANALYZE;"
    )
    synced: list[int] = []
    real = os.fsync

    def failing(fd: int) -> None:
        if synced:
            raise OSError(errno.EIO, "Input/output error")
        real(fd)
        synced.append(fd)

    monkeypatch.setattr(ex.os, "fsync", failing)
    out = tmp_path / "out"
    with pytest.raises(DataError, match="cannot write the export"):
        export_database(db.url, out, threads=2)
    assert not (out / "manifest.json").exists()
    names = [p.name for p in (out / "data").iterdir()]
    assert not [n for n in names if n.endswith(".partial")]
    assert len(names) <= len(synced) == 1  # only the file whose fsync succeeded has its final name


# -- connections made at the same time (PostgreSQL: export_connect_concurrently) -------------------


class _FakeConn:
    def __init__(self, n: int) -> None:
        self.n = n
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_pending_connections_hand_over_or_close_everything() -> None:
    from dbjson.export import PendingConnections

    made: list[_FakeConn] = []
    lock = threading.Lock()

    def connect() -> _FakeConn:
        with lock:
            c = _FakeConn(len(made))
            made.append(c)
        return c

    conns = PendingConnections(connect, 3).result()
    assert sorted(c.n for c in conns) == [0, 1, 2] and not any(c.closed for c in conns)

    # one connection fails: its error is raised and the others are closed
    made.clear()
    calls = iter(range(3))

    def flaky() -> _FakeConn:
        with lock:
            i = next(calls)
        if i == 1:
            raise ConnectionError("refused")
        return connect()

    with pytest.raises(ConnectionError, match="refused"):
        PendingConnections(flaky, 3).result()
    assert len(made) == 2 and all(c.closed for c in made)

    # abandoned while a connection is still being made: it is closed once made
    made.clear()
    gate = threading.Event()

    def slow() -> _FakeConn:
        gate.wait(5)
        return connect()

    pending = PendingConnections(slow, 2)
    pending.abandon()
    gate.set()
    for t in pending._threads:
        t.join(5)
    assert len(made) == 2 and all(c.closed for c in made)


def test_postgresql_export_connects_concurrently(fresh_db: Any, tmp_path: Path) -> None:
    """The workers' connections are made while the coordinator connects; the export is the same
    as with one worker (every connection in one snapshot)."""
    from dbjson.engines import get_engine

    assert get_engine("postgresql").export_connect_concurrently
    assert not get_engine("mysql").export_connect_concurrently  # PyMySQL's handshake is Python work
    # MySQL's TABLE_ROWS depends on the session's statistics cache: planned on one connection
    assert get_engine("postgresql").export_plan_concurrently and not get_engine("mysql").export_plan_concurrently
    db = fresh_db("postgresql")
    db.execute(
        "CREATE TABLE a (id integer PRIMARY KEY, v text); INSERT INTO a SELECT g, 'a' || g FROM generate_series(1, 50) g;"
        "CREATE TABLE b (id integer PRIMARY KEY, v text); INSERT INTO b SELECT g, 'b' || g FROM generate_series(1, 70) g;"
    )
    one = export_database(db.url, tmp_path / "one", threads=1)
    three = export_database(db.url, tmp_path / "three", threads=3)
    assert three.manifest.snapshot.mode == "exported-snapshot" and three.manifest.snapshot.consistent
    assert [(t.name, t.rows, t.checksum) for t in three.manifest.tables] == [
        (t.name, t.rows, t.checksum) for t in one.manifest.tables
    ]

    def schema(out: str) -> Any:
        doc = orjson.loads((tmp_path / out / "schema.json").read_bytes())
        doc["source"].pop("dumped_at")
        return doc

    assert schema("one") == schema("three")


def test_tables_are_planned_at_the_same_time_and_the_first_error_is_raised(fresh_db: Any, tmp_path: Path) -> None:
    """plan_tables shares the tables out to the workers; the units are those planned on one
    connection, and a failing plan is reported as planning alone would: the first failing table."""
    from dbjson.connect import Target, close_quietly, parse_url
    from dbjson.engines import detect_engine
    from dbjson.export import PLAN_TOGETHER_MIN_TABLES, connect_source, open_workers, plan_tables, select_tables

    db = fresh_db("postgresql")
    db.execute(
        "".join(
            f"CREATE TABLE t{i} (id integer PRIMARY KEY, v text); "
            f"INSERT INTO t{i} SELECT g, 'v' || g FROM generate_series(1, {10 * (i + 1)}) g; "
            for i in range(9)
        )
    )
    target = Target(parse_url(db.url))
    coordinator = connect_source(target)
    engine = detect_engine(target.family, coordinator)
    engine.export_session(coordinator)
    workers = open_workers(target, engine, 3)
    try:
        engine.export_snapshot(coordinator, workers, lambda _m: None)
        from dbjson.export import reflect_source

        doc = reflect_source(engine, workers[0], target, (), ())
        plan = [(s, t, None) for s, t in select_tables(doc, (), ())]
        assert len(plan) >= PLAN_TOGETHER_MIN_TABLES  # planned on every worker
        alone = plan_tables(engine, workers[:1], plan, chunk_rows=20, threads=3)
        together = plan_tables(engine, workers, plan, chunk_rows=20, threads=3)
        assert together == alone and [u[0].table.name for u in together] == [f"t{i}" for i in range(9)]
        assert sum(len(u) for u in together) > 9  # split by --chunk-size: MIN/MAX on every connection
        bad = [(s, t, "nope_a = 1" if t.name in ("t3", "t5", "t8") else None) for s, t, _ in plan]
        for conns in (workers[:1], workers):
            with pytest.raises(UsageError, match="--where condition failed") as err:
                plan_tables(engine, conns, bad, chunk_rows=None, threads=3)
            assert err.value.table == "public.t3"
            for w in workers:  # the failed statement ended the transactions: start them again
                w.rollback() if not w.autocommit else w.execute("ROLLBACK")
            engine.export_snapshot(coordinator, workers, lambda _m: None)
    finally:
        close_quietly([coordinator, *workers])
