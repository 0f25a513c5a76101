"""Helpers of the fault-injection suite (tests/test_faults*.py): a source database, the dbjson CLI
as a real subprocess, kill points, and the reliability summary.

The summary: every fault test records what it injected in ``tests/.reliability/faults-<test>.json``
(format in ``scripts/reliability-report``), which renders the table of docs/reliability.md.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
SUMMARY_DIR = Path(os.environ.get("DBJSON_RELIABILITY_DIR", ROOT / "tests" / ".reliability"))
SEED = int(os.environ.get("DBJSON_FAULT_SEED", "20261122"))
POINTS = int(os.environ.get("DBJSON_FAULT_POINTS", "4"))

# customers: a PK and unicode; orders: bigint key, decimals, bytes, a foreign key; events: no key at
# all (a duplicated row there can only be seen by counting and checksums).
SOURCE_DDL = {
    "postgresql": """
CREATE TABLE customers (id integer PRIMARY KEY, name varchar(60) NOT NULL, email text, created timestamp(0));
CREATE TABLE orders (id bigint PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers (id),
  total numeric(12,2), note text, payload bytea);
CREATE INDEX orders_customer ON orders (customer_id);
CREATE TABLE events (at timestamp(3), kind varchar(20), detail text);
""",
    "mysql": """
CREATE TABLE customers (id int PRIMARY KEY, name varchar(60) NOT NULL, email text, created datetime) ENGINE=InnoDB;
CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int NOT NULL, total decimal(12,2), note text, payload blob,
  KEY orders_customer (customer_id), CONSTRAINT orders_fk FOREIGN KEY (customer_id) REFERENCES customers (id)) ENGINE=InnoDB;
CREATE TABLE events (at datetime(3), kind varchar(20), detail text) ENGINE=InnoDB;
""",
}
SOURCE_DDL["mariadb"] = SOURCE_DDL["mysql"]
TABLES = ("customers", "orders", "events")
COUNTS = {"customers": 1500, "orders": 4000, "events": 2500}


def source_rows(counts: dict[str, int] = COUNTS) -> dict[str, list[tuple[Any, ...]]]:
    """Deterministic rows with awkward values (tabs, newlines, backslashes, quotes, unicode, NUL-free bytes)."""
    base = dt.datetime(2024, 3, 1, 12, 0, 0)
    customers = [
        (
            i,
            f"Kund\u00e9 {i}" + ("\t\\x\n'q'" if i % 17 == 0 else ""),
            None if i % 5 == 0 else f"c{i}@ex.org",
            base + dt.timedelta(minutes=i),
        )
        for i in range(1, counts["customers"] + 1)
    ]
    orders = [
        (
            10**12 + i,
            1 + i % counts["customers"],
            Decimal(i * 7919 % 100000) / 100,
            "\u00fcber \u2603 " * (i % 4) if i % 9 else None,
            bytes([i % 256, 10, 9, 92, 255]) if i % 3 else None,
        )
        for i in range(1, counts["orders"] + 1)
    ]
    events = [
        (base + dt.timedelta(milliseconds=37 * i), "kind" + str(i % 6), f"detail {i % 50}")  # many equal rows
        for i in range(counts["events"])
    ]
    return {"customers": customers, "orders": orders, "events": events}


def fill_source(db: Any, counts: dict[str, int] = COUNTS) -> dict[str, int]:
    """Create the three tables in ``db`` (a conftest FreshDatabase) and insert the rows; returns counts."""
    db.execute(SOURCE_DDL[db.engine])
    rows = source_rows(counts)
    conn = db.connect()
    try:
        if db.engine == "postgresql":
            with conn.cursor() as cur:
                for t in TABLES:
                    n = len(rows[t][0])
                    with cur.copy(f"COPY {t} FROM STDIN") as cp:
                        for r in rows[t]:
                            cp.write_row(r)
                    assert n
        else:
            with conn.cursor() as cur:
                for t in TABLES:
                    marks = ", ".join(["%s"] * len(rows[t][0]))
                    cur.executemany(f"INSERT INTO {t} VALUES ({marks})", rows[t])
    finally:
        conn.close()
    return {t: len(rows[t]) for t in TABLES}


def table_fingerprint(db: Any) -> dict[str, tuple[int, int]]:
    """(rows, distinct rows) per table, computed by the server: duplicates show as rows > distinct."""
    out: dict[str, tuple[int, int]] = {}
    cols = {"customers": "id", "orders": "id", "events": "at, kind, detail"}
    for t in TABLES:
        n = db.query(f"SELECT COUNT(*) FROM {t}")[0][0]
        d = db.query(f"SELECT COUNT(*) FROM (SELECT DISTINCT {cols[t]} FROM {t}) d")[0][0]
        out[t] = (int(n), int(d))
    return out


def dbjson(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m dbjson ARGS`` to completion."""
    return subprocess.run(
        [sys.executable, "-m", "dbjson", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
    )


def spawn(*args: str) -> subprocess.Popen[bytes]:
    """Start ``python -m dbjson ARGS`` (output captured)."""
    return subprocess.Popen(
        [sys.executable, "-m", "dbjson", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )


def kill_when(proc: subprocess.Popen[bytes], ready: Callable[[], bool], delay: float, timeout: float = 60) -> bool:
    """SIGKILL ``proc`` ``delay`` seconds after ``ready()`` turns true; False if it finished first."""
    deadline = time.monotonic() + timeout
    while not ready():
        if proc.poll() is not None:
            return False
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("the process made no progress")
        time.sleep(0.002)
    time.sleep(delay)
    if proc.poll() is not None:
        return False
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    return True


def journal_lines(export: Path) -> int:
    """Records in the (only) import journal of an export directory."""
    journals = list(export.glob(".dbjson-import-*.journal"))
    return sum(len(j.read_bytes().splitlines()) for j in journals)


def rng(name: str, engine: str) -> random.Random:
    """A seeded random source per test and engine (DBJSON_FAULT_SEED changes every seed)."""
    return random.Random(f"{SEED}:{name}:{engine}")


def record(
    name: str, engine: str, injected: int, survived: int, rows_lost: int = 0, rows_duplicated: int = 0, **extra: Any
) -> None:
    """Write this fault test's figures to tests/.reliability/faults-<name>-<engine>.json."""
    SUMMARY_DIR.mkdir(parents=True, exist_ok=True)
    entry = {
        "name": name,
        "engine": engine,
        "injected": injected,
        "survived": survived,
        "rows_lost": rows_lost,
        "rows_duplicated": rows_duplicated,
        "seed": SEED,
        "at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **extra,
    }
    slug = re.sub(r"[^a-z0-9]+", "-", f"{name} {engine}".lower()).strip("-")
    path = SUMMARY_DIR / f"faults-{slug}.json"
    path.write_bytes(orjson.dumps({"faults": [entry]}, option=orjson.OPT_INDENT_2))


def lost_and_duplicated(expected: dict[str, int], got: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """Rows missing and rows in excess over all tables (counts against the source)."""
    lost = sum(max(0, expected[t] - got[t][0]) for t in expected)
    dup = sum(max(0, got[t][0] - expected[t]) for t in expected)
    return lost, dup


def record_secrets(engine: str, artefacts: int, leaks: int = 0) -> None:
    """The secrets test's figure: artefacts of a run searched for the password, and how many held it."""
    SUMMARY_DIR.mkdir(parents=True, exist_ok=True)
    entry = {
        "name": "password searched in every artefact of a run",
        "engine": engine,
        "artefacts": artefacts,
        "leaks": leaks,
    }
    (SUMMARY_DIR / f"secrets-{engine}.json").write_bytes(orjson.dumps({"secrets": [entry]}, option=orjson.OPT_INDENT_2))
