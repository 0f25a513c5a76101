"""The benchmark datasets: related tables of deterministic mixed-type rows, and their loading.

Two datasets (``DATASETS``): ``narrow`` (the project's first one, below) and ``wide``, shaped like
what users move: an ``events`` table (33 % of the rows) with JSON documents of about 0.4 KB (nested
objects, arrays, non-ASCII, spaced as a user's client writes them), TEXT bodies of up to 4 KB,
binary digests and attachments, beside ``customers``, ``orders`` and ``order_lines``.

Narrow:

``customers`` (5 % of the rows), ``products`` (1 %), ``orders`` (24 %) and ``order_items`` (70 %)
cover INT/BIGINT/SMALLINT, DECIMAL, DOUBLE, CHAR/VARCHAR with non-ASCII text (4-byte emoji too),
TEXT with tabs, newlines, quotes and backslashes, DATETIME/timestamp, TIMESTAMP/timestamptz,
BOOLEAN, JSON, small VARBINARY/bytea and NULLs, with a secondary index and foreign keys.

Rows come from a seeded ``random.Random`` (the same ``rows``/``seed`` always give the same bytes)
and are written once per family as the engines' own text bulk format (PostgreSQL ``COPY`` text,
MySQL ``LOAD DATA`` defaults: tab separated, ``\\N`` for NULL, backslash escapes) into a cache
directory, then loaded with ``COPY ... FROM STDIN`` / ``LOAD DATA LOCAL INFILE``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pymysql
from sqlalchemy.engine import make_url

Value = Any
Row = tuple[Value, ...]


@dataclass(frozen=True)
class Column:
    """One column: its name, a kind (drives formatting and the naive importer) and both DDL types."""

    name: str
    kind: str  # int | decimal | float | str | bool | datetime | timestamptz | json | binary
    mysql: str
    pg: str
    nullable: bool = False


@dataclass(frozen=True)
class Table:
    """A benchmark table: columns in ordinal order, its share of the rows, indexes and foreign keys."""

    name: str
    share: float
    columns: tuple[Column, ...]
    indexes: tuple[tuple[str, str], ...] = ()  # (index name, column list)
    foreign_keys: tuple[tuple[str, str, str], ...] = ()  # (constraint name, column, parent table)


def _c(name: str, kind: str, mysql: str, pg: str, nullable: bool = False) -> Column:
    return Column(name, kind, mysql, pg, nullable)


TABLES: tuple[Table, ...] = (
    Table(
        "customers",
        0.05,
        (
            _c("id", "int", "INT", "INTEGER"),
            _c("name", "str", "VARCHAR(100)", "VARCHAR(100)"),
            _c("email", "str", "VARCHAR(160)", "VARCHAR(160)"),
            _c("country", "str", "CHAR(2)", "CHAR(2)"),
            _c("vip", "bool", "BOOLEAN", "BOOLEAN"),
            _c("balance", "decimal", "DECIMAL(12,2)", "NUMERIC(12,2)"),
            _c("created_at", "datetime", "DATETIME", "TIMESTAMP(0)"),
            _c("bio", "str", "TEXT", "TEXT", True),
        ),
    ),
    Table(
        "products",
        0.01,
        (
            _c("id", "int", "INT", "INTEGER"),
            _c("sku", "str", "VARCHAR(24)", "VARCHAR(24)"),
            _c("title", "str", "VARCHAR(200)", "VARCHAR(200)"),
            _c("price", "decimal", "DECIMAL(10,2)", "NUMERIC(10,2)"),
            _c("weight_kg", "float", "DOUBLE", "DOUBLE PRECISION", True),
            _c("attrs", "json", "JSON", "JSONB", True),
            _c("thumb", "binary", "VARBINARY(32)", "BYTEA", True),
        ),
    ),
    Table(
        "orders",
        0.24,
        (
            _c("id", "int", "BIGINT", "BIGINT"),
            _c("customer_id", "int", "INT", "INTEGER"),
            _c("status", "str", "VARCHAR(16)", "VARCHAR(16)"),
            _c("placed_at", "timestamptz", "TIMESTAMP(3)", "TIMESTAMPTZ(3)"),
            _c("total", "decimal", "DECIMAL(14,2)", "NUMERIC(14,2)"),
            _c("paid", "bool", "BOOLEAN", "BOOLEAN"),
            _c("meta", "json", "JSON", "JSONB", True),
            _c("note", "str", "TEXT", "TEXT", True),
        ),
        indexes=(("orders_customer_placed", "customer_id, placed_at"),),
        foreign_keys=(("orders_customer_fk", "customer_id", "customers"),),
    ),
    Table(
        "order_items",
        0.70,
        (
            _c("id", "int", "BIGINT", "BIGINT"),
            _c("order_id", "int", "BIGINT", "BIGINT"),
            _c("product_id", "int", "INT", "INTEGER"),
            _c("qty", "int", "SMALLINT", "SMALLINT"),
            _c("unit_price", "decimal", "DECIMAL(10,2)", "NUMERIC(10,2)"),
            _c("discount", "decimal", "DECIMAL(5,4)", "NUMERIC(5,4)", True),
            _c("shipped_at", "datetime", "DATETIME(6)", "TIMESTAMP(6)", True),
            _c("gift_note", "str", "VARCHAR(120)", "VARCHAR(120)", True),
            _c("token", "binary", "VARBINARY(16)", "BYTEA", True),
        ),
        indexes=(("order_items_order", "order_id"), ("order_items_product", "product_id")),
        foreign_keys=(
            ("order_items_order_fk", "order_id", "orders"),
            ("order_items_product_fk", "product_id", "products"),
        ),
    ),
)
TABLE_BY_NAME = {t.name: t for t in TABLES}
ORDER_ID_BASE = 5_000_000_000  # order and item ids need 64 bits


# --------------------------------------------------------------------------- servers


@dataclass(frozen=True)
class Server:
    """A benchmarked server: its engine name, family, address and client programs."""

    engine: str  # postgresql | mariadb | mysql
    family: str  # postgresql | mysql
    url: str  # admin URL (SQLAlchemy form), without a database for MySQL/MariaDB
    fs_root: str = ""  # where the server's "/" is on this host (MySQL 9 runs in a chroot)

    @property
    def host(self) -> str:
        return make_url(self.url).host or "127.0.0.1"

    @property
    def port(self) -> int:
        u = make_url(self.url)
        return u.port or (5432 if self.family == "postgresql" else 3306)

    @property
    def user(self) -> str:
        return make_url(self.url).username or ("postgres" if self.family == "postgresql" else "root")

    @property
    def password(self) -> str:
        return make_url(self.url).password or ""

    def db_url(self, database: str) -> str:
        """The dbjson URL of one database on this server."""
        return make_url(self.url).set(database=database).render_as_string(hide_password=False)


def servers() -> dict[str, Server]:
    """The three servers, from the same environment variables as the test suite."""
    return {
        "postgresql": Server(
            "postgresql",
            "postgresql",
            os.environ.get("DBJSON_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
        ),
        "mariadb": Server(
            "mariadb", "mysql", os.environ.get("DBJSON_TEST_MARIADB", "mysql+pymysql://root@127.0.0.1:3306/")
        ),
        "mysql": Server(
            "mysql",
            "mysql",
            os.environ.get("DBJSON_TEST_MYSQL", "mysql+pymysql://root@127.0.0.1:3307/"),
            fs_root=os.environ.get("DBJSON_MYSQL_ROOT", "/var/cache/dbjson-mysql-root"),
        ),
    }


def pg_connect(server: Server, database: str = "postgres") -> psycopg.Connection[Any]:
    """An autocommit psycopg connection to ``database``."""
    return psycopg.connect(
        host=server.host,
        port=server.port,
        user=server.user,
        password=server.password or None,
        dbname=database,
        autocommit=True,
    )


def my_connect(server: Server, database: str | None = None) -> pymysql.connections.Connection:
    """An autocommit PyMySQL connection (utf8mb4, UTC session, LOCAL INFILE allowed)."""
    conn = pymysql.connect(
        host=server.host,
        port=server.port,
        user=server.user,
        password=server.password,
        database=database,
        charset="utf8mb4",
        autocommit=True,
        local_infile=True,
    )
    with conn.cursor() as cur:
        cur.execute("SET time_zone = '+00:00'")
    return conn


ADMIN_TIMEOUT = 300  # seconds a DROP/CREATE DATABASE may wait for locks before the step fails


def recreate_database(server: Server, database: str) -> None:
    """Drop ``database`` if it exists and create it empty."""
    if server.family == "postgresql":
        with pg_connect(server) as conn:
            conn.execute(f"SET statement_timeout = '{ADMIN_TIMEOUT}s'")
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            conn.execute(f"CREATE DATABASE \"{database}\" ENCODING 'UTF8' TEMPLATE template0")
        return
    conn = my_connect(server)
    try:
        with conn.cursor() as cur:
            cur.execute(f"SET SESSION lock_wait_timeout = {ADMIN_TIMEOUT}")
            cur.execute(f"DROP DATABASE IF EXISTS `{database}`")
            cur.execute(f"CREATE DATABASE `{database}` CHARACTER SET utf8mb4")
    finally:
        conn.close()


def drop_database(server: Server, database: str, timeout: int = ADMIN_TIMEOUT) -> None:
    """Drop ``database`` if it exists (failing after ``timeout`` seconds of lock waits)."""
    if server.family == "postgresql":
        with pg_connect(server) as conn:
            conn.execute(f"SET statement_timeout = '{timeout}s'")
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        return
    conn = my_connect(server)
    try:
        with conn.cursor() as cur:
            cur.execute(f"SET SESSION lock_wait_timeout = {timeout}")
            cur.execute(f"DROP DATABASE IF EXISTS `{database}`")
    finally:
        conn.close()


def count_rows(
    server: Server, database: str, schema: str | None = None, dataset: Dataset | None = None
) -> dict[str, int] | None:
    """Row counts of the benchmark tables in ``database`` (None when it or a table is missing)."""
    tables = (dataset or NARROW).tables
    try:
        if server.family == "postgresql":
            prefix = f'"{schema}".' if schema else ""
            with pg_connect(server, database) as conn:
                return {
                    t.name: int(conn.execute(f'SELECT count(*) FROM {prefix}"{t.name}"').fetchone()[0])  # type: ignore[index]
                    for t in tables
                }
        conn = my_connect(server, database)
        try:
            with conn.cursor() as cur:
                out = {}
                for t in tables:
                    cur.execute(f"SELECT count(*) FROM `{t.name}`")
                    out[t.name] = int(cur.fetchone()[0])
                return out
        finally:
            conn.close()
    except (psycopg.Error, pymysql.MySQLError):
        return None


# --------------------------------------------------------------------------- DDL


def ddl(family: str, dataset: Dataset | None = None) -> tuple[list[str], list[str]]:
    """(pre-data, post-data) DDL statements creating the benchmark schema on ``family``.

    PostgreSQL: tables with primary keys before the data, indexes and foreign keys after it (as
    pg_dump does). MySQL/MariaDB: complete tables up front (as mysqldump does); load them with
    ``foreign_key_checks = 0``.
    """
    pre: list[str] = []
    post: list[str] = []
    for t in (dataset or NARROW).tables:
        if family == "postgresql":
            cols = [f'"{c.name}" {c.pg}{"" if c.nullable else " NOT NULL"}' for c in t.columns]
            pre.append(f'CREATE TABLE "{t.name}" (\n  ' + ",\n  ".join(cols + ['PRIMARY KEY ("id")']) + "\n)")
            post += [f'CREATE INDEX "{name}" ON "{t.name}" ({cols_})' for name, cols_ in t.indexes]
            post += [
                f'ALTER TABLE "{t.name}" ADD CONSTRAINT "{name}" FOREIGN KEY ("{col}") REFERENCES "{parent}" ("id")'
                for name, col, parent in t.foreign_keys
            ]
        else:
            cols = [f"`{c.name}` {c.mysql}{' NULL' if c.nullable else ' NOT NULL'}" for c in t.columns]
            cols.append("PRIMARY KEY (`id`)")
            cols += [f"KEY `{name}` ({cols_})" for name, cols_ in t.indexes]
            cols += [
                f"CONSTRAINT `{name}` FOREIGN KEY (`{col}`) REFERENCES `{parent}` (`id`)"
                for name, col, parent in t.foreign_keys
            ]
            pre.append(
                f"CREATE TABLE `{t.name}` (\n  " + ",\n  ".join(cols) + "\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
            )
    return pre, post


# --------------------------------------------------------------------------- rows

FIRST = (
    "Åsa",
    "Björn",
    "Zoë",
    "François",
    "Jürgen",
    "Łukasz",
    "Ελένη",
    "Дмитрий",
    "Siobhán",
    "José",
    "美咲",
    "太郎",
    "민준",
    "Ayşe",
    "Ngọc",
    "Olivia",
    "Noah",
    "Emma",
    "Liam",
    "Ava",
    "Kai",
    "Mia",
)
LAST = (
    "Öberg",
    "Dvořák",
    "Müller",
    "Ñúñez",
    "Kowalski",
    "Παπαδόπουλος",
    "Иванов",
    "O'Brien",
    "山田",
    "김",
    "Nguyễn",
    "Smith",
    "García",
    "Rossi",
    "Johansson",
    "Haddad",
    "Lefèvre",
    "Brown",
)
WORDS = (
    "alpha",
    "blue",
    "café",
    "naïve",
    "smörgåsbord",
    "straße",
    "déjà",
    "vu",
    "東京",
    "서울",
    "مرحبا",
    "שלום",
    "नमस्ते",
    "😀",
    "🚀",
    "gift",
    "order",
    "fast",
    "green",
    "red",
    "large",
    "small",
    "premium",
    "eco",
    "retro",
    "classic",
    "wood",
    "steel",
    "cotton",
    "silk",
    "100%",
    'quote"d',
    "it's",
    "back\\slash",
    "tab\there",
    "line\nbreak",
    "München",
    "Zürich",
    "Kraków",
)
COUNTRIES = ("SE", "DE", "FR", "PL", "GR", "RU", "JP", "KR", "VN", "US", "GB", "ES", "IT", "TR", "IE")
STATUSES = ("new", "paid", "shipped", "delivered", "cancelled", "returned")
CHANNELS = ("web", "app", "phone", "store", "partner")
BASE = dt.datetime(2016, 1, 1)
SPAN = 9 * 365 * 86400  # timestamps stay inside MySQL TIMESTAMP's range


def table_rows(total: int, dataset: Dataset | None = None) -> dict[str, int]:
    """How many rows each table gets for a ``total`` (at least 10 each; shares sum to ``total``)."""
    return (dataset or NARROW).table_rows(total)


def _words(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(lo, hi)))


def _cents(rng: random.Random, hi: int) -> str:
    c = rng.randrange(hi)
    return f"{c // 100}.{c % 100:02d}"


def _customers(rng: random.Random, n: int, _: dict[str, int]) -> Iterator[Row]:
    for i in range(1, n + 1):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        created = (BASE + dt.timedelta(seconds=rng.randrange(SPAN))).isoformat(" ")
        bio = None if rng.random() < 0.4 else f"{first} {last}: {_words(rng, 3, 30)}"
        sign = "-" if rng.random() < 0.1 else ""
        yield (
            i,
            f"{first} {last}",
            f"user{i}@example.{rng.choice(COUNTRIES).lower()}",
            rng.choice(COUNTRIES),
            rng.random() < 0.15,
            sign + _cents(rng, 10_000_000),
            created,
            bio,
        )


def _products(rng: random.Random, n: int, _: dict[str, int]) -> Iterator[Row]:
    for i in range(1, n + 1):
        attrs = (
            None
            if rng.random() < 0.2
            else orjson.dumps(
                {
                    "color": rng.choice(WORDS),
                    "size": rng.choice(("S", "M", "L", "XL")),
                    "stock": rng.randrange(1000),
                    "tags": rng.choices(WORDS, k=rng.randint(0, 4)),
                    "dims": {"w": rng.randrange(1, 500) / 10, "h": rng.randrange(1, 90)},
                }
            ).decode()
        )
        thumb = None if rng.random() < 0.3 else rng.randbytes(rng.randint(4, 32))
        weight = None if rng.random() < 0.1 else rng.randrange(1, 100_000) / 1000
        yield (i, f"SKU-{i:08d}", _words(rng, 2, 8).title(), _cents(rng, 1_000_000), weight, attrs, thumb)


def _orders(rng: random.Random, n: int, counts: dict[str, int]) -> Iterator[Row]:
    customers = counts["customers"]
    for i in range(1, n + 1):
        placed = BASE + dt.timedelta(seconds=rng.randrange(SPAN), milliseconds=rng.randrange(1000))
        meta = (
            None
            if rng.random() < 0.5
            else orjson.dumps(
                {
                    "channel": rng.choice(CHANNELS),
                    "coupon": None if rng.random() < 0.7 else f"C{rng.randrange(10**6)}",
                    "items": rng.randint(1, 9),
                    "gift": rng.random() < 0.1,
                }
            ).decode()
        )
        note = None if rng.random() < 0.8 else _words(rng, 1, 12)
        yield (
            ORDER_ID_BASE + i,
            rng.randint(1, customers),
            rng.choice(STATUSES),
            placed.isoformat(" ", "milliseconds"),
            _cents(rng, 5_000_000),
            rng.random() < 0.7,
            meta,
            note,
        )


def _order_items(rng: random.Random, n: int, counts: dict[str, int]) -> Iterator[Row]:
    orders, products = counts["orders"], counts["products"]
    for i in range(1, n + 1):
        shipped = (
            None
            if rng.random() < 0.3
            else (BASE + dt.timedelta(seconds=rng.randrange(SPAN), microseconds=rng.randrange(1_000_000))).isoformat(
                " ", "microseconds"
            )
        )
        discount = None if rng.random() < 0.6 else f"0.{rng.randrange(10_000):04d}"
        gift = None if rng.random() < 0.9 else _words(rng, 1, 6)[:120]
        token = None if rng.random() < 0.5 else rng.randbytes(16)
        yield (
            ORDER_ID_BASE * 2 + i,
            ORDER_ID_BASE + rng.randint(1, orders),
            rng.randint(1, products),
            rng.randint(1, 20),
            _cents(rng, 100_000),
            discount,
            shipped,
            gift,
            token,
        )


GENERATORS: dict[str, Callable[[random.Random, int, dict[str, int]], Iterator[Row]]] = {
    "customers": _customers,
    "products": _products,
    "orders": _orders,
    "order_items": _order_items,
}


def generate(table: str, total: int, seed: int, dataset: Dataset | None = None) -> Iterator[Row]:
    """The rows of ``table`` for a dataset of ``total`` rows (deterministic for a given seed)."""
    return (dataset or NARROW).generate(table, total, seed)


# --------------------------------------------------------------------------- the wide dataset

EVENT_KINDS = ("page_view", "add_to_cart", "checkout", "login", "search", "refund", "review", "support_ticket")
LOCALES = ("sv-SE", "de-DE", "fr-FR", "pl-PL", "el-GR", "ru-RU", "ja-JP", "ko-KR", "vi-VN", "en-US", "ar-EG", "he-IL")
CITIES = (
    ("Zürich", 47.3769, 8.5417),
    ("Kraków", 50.0647, 19.945),
    ("München", 48.1351, 11.582),
    ("東京", 35.6762, 139.6503),
    ("서울", 37.5665, 126.978),
    ("Αθήνα", 37.9838, 23.7275),
    ("Москва", 55.7558, 37.6173),
    ("São Paulo", -23.5505, -46.6333),
    ("القاهرة", 30.0444, 31.2357),
    ("Reykjavík", 64.1466, -21.9426),
)
AGENTS = (
    "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2) Mobile/15E148",
    "okhttp/4.12.0",
    "curl/8.5.0",
)

WIDE_TABLES: tuple[Table, ...] = (
    TABLE_BY_NAME["customers"],
    Table(
        "orders",
        0.20,
        TABLE_BY_NAME["orders"].columns,
        indexes=(("orders_customer_placed", "customer_id, placed_at"),),
        foreign_keys=(("orders_customer_fk", "customer_id", "customers"),),
    ),
    Table(
        "order_lines",
        0.42,
        (
            _c("id", "int", "BIGINT", "BIGINT"),
            _c("order_id", "int", "BIGINT", "BIGINT"),
            _c("sku", "str", "VARCHAR(24)", "VARCHAR(24)"),
            _c("qty", "int", "SMALLINT", "SMALLINT"),
            _c("unit_price", "decimal", "DECIMAL(10,2)", "NUMERIC(10,2)"),
            _c("discount", "decimal", "DECIMAL(5,4)", "NUMERIC(5,4)", True),
            _c("title", "str", "VARCHAR(200)", "VARCHAR(200)"),
            _c("token", "binary", "VARBINARY(16)", "BYTEA", True),
        ),
        indexes=(("order_lines_order", "order_id"),),
        foreign_keys=(("order_lines_order_fk", "order_id", "orders"),),
    ),
    Table(
        "events",
        0.33,
        (
            _c("id", "int", "BIGINT", "BIGINT"),
            _c("customer_id", "int", "INT", "INTEGER"),
            _c("kind", "str", "VARCHAR(32)", "VARCHAR(32)"),
            _c("occurred_at", "timestamptz", "TIMESTAMP(6)", "TIMESTAMPTZ(6)"),
            _c("payload", "json", "JSON", "JSONB"),
            _c("body", "str", "TEXT", "TEXT", True),
            _c("digest", "binary", "VARBINARY(16)", "BYTEA"),
            _c("attachment", "binary", "BLOB", "BYTEA", True),
            _c("source", "str", "VARCHAR(64)", "VARCHAR(64)"),
        ),
        indexes=(("events_customer_time", "customer_id, occurred_at"),),
        foreign_keys=(("events_customer_fk", "customer_id", "customers"),),
    ),
)


def _order_lines(rng: random.Random, n: int, counts: dict[str, int]) -> Iterator[Row]:
    orders = counts["orders"]
    for i in range(1, n + 1):
        yield (
            ORDER_ID_BASE * 2 + i,
            ORDER_ID_BASE + rng.randint(1, orders),
            f"SKU-{rng.randrange(10**6):08d}",
            rng.randint(1, 20),
            _cents(rng, 100_000),
            None if rng.random() < 0.6 else f"0.{rng.randrange(10_000):04d}",
            _words(rng, 2, 8)[:200],
            None if rng.random() < 0.5 else rng.randbytes(16),
        )


def _payload(rng: random.Random, customer: int, kind: str) -> str:
    """A JSON document of about 0.4 KB: nested objects, arrays, non-ASCII, spaced as json.dumps writes it."""
    city, lat, lon = rng.choice(CITIES)
    doc: dict[str, Any] = {
        "type": kind,
        "v": 3,
        "user": {
            "id": customer,
            "name": f"{rng.choice(FIRST)} {rng.choice(LAST)}",
            "locale": rng.choice(LOCALES),
            "tags": rng.choices(WORDS, k=rng.randint(0, 4)),
        },
        "context": {
            "ip": f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}",
            "agent": rng.choice(AGENTS),
            "geo": {"city": city, "lat": lat, "lon": lon},
        },
        "items": [
            {
                "sku": f"SKU-{rng.randrange(10**6):08d}",
                "qty": rng.randint(1, 5),
                "price": rng.randrange(100, 99_999) / 100,
            }
            for _ in range(rng.randint(0, 2))
        ],
        "flags": {"new": rng.random() < 0.2, "beta": rng.random() < 0.05, "consent": None},
    }
    if rng.random() < 0.5:
        doc["note"] = _words(rng, 1, 8)
    return json.dumps(doc, ensure_ascii=False)


def _events(rng: random.Random, n: int, counts: dict[str, int]) -> Iterator[Row]:
    customers = counts["customers"]
    for i in range(1, n + 1):
        customer = rng.randint(1, customers)
        kind = rng.choice(EVENT_KINDS)
        at = BASE + dt.timedelta(seconds=rng.randrange(SPAN), microseconds=rng.randrange(1_000_000))
        body = None
        if rng.random() < 0.02:  # a support ticket's or review's text, up to 4 KB
            body = "\n".join(_words(rng, 5, 40) for _ in range(rng.randint(1, 12)))[:4000]
        attachment = None if rng.random() < 0.98 else rng.randbytes(rng.randint(64, 1024))
        yield (
            EVENT_ID_BASE + i,
            customer,
            kind,
            at.isoformat(" ", "microseconds"),
            _payload(rng, customer, kind),
            body,
            rng.randbytes(16),
            attachment,
            rng.choice(("web", "ios", "android", "api", "batch-import")),
        )


EVENT_ID_BASE = 9_000_000_000

WIDE_GENERATORS: dict[str, Callable[[random.Random, int, dict[str, int]], Iterator[Row]]] = {
    "customers": _customers,
    "orders": _orders,
    "order_lines": _order_lines,
    "events": _events,
}


@dataclass(frozen=True)
class Dataset:
    """A named set of related tables, their generators, and which table takes the remainder of the rows."""

    name: str
    tables: tuple[Table, ...]
    generators: dict[str, Callable[[random.Random, int, dict[str, int]], Iterator[Row]]]
    remainder: str
    cache_prefix: str  # the bulk-file cache directory's prefix ('' keeps the narrow dataset's old cache)
    about: str

    @property
    def by_name(self) -> dict[str, Table]:
        return {t.name: t for t in self.tables}

    def table_rows(self, total: int) -> dict[str, int]:
        """How many rows each table gets for a ``total`` (at least 10 each; shares sum to ``total``)."""
        counts = {t.name: max(10, int(total * t.share)) for t in self.tables if t.name != self.remainder}
        counts[self.remainder] = max(10, total - sum(counts.values()))
        return {t.name: counts[t.name] for t in self.tables}

    def generate(self, table: str, total: int, seed: int) -> Iterator[Row]:
        """The rows of ``table`` for ``total`` rows (deterministic for a given seed)."""
        counts = self.table_rows(total)
        rng = random.Random(f"{seed}:{table}")
        return self.generators[table](rng, counts[table], counts)


NARROW = Dataset(
    "narrow",
    TABLES,
    GENERATORS,
    "order_items",
    "",
    "customers/products/orders/order_items (5/1/24/70 %), narrow rows: 62 MB of JSON lines per 1M rows",
)
WIDE = Dataset(
    "wide",
    WIDE_TABLES,
    WIDE_GENERATORS,
    "order_lines",
    "wide-",
    "customers/orders/order_lines/events (5/20/42/33 %); events carry ~0.4 KB JSON documents, "
    "TEXT bodies up to 4 KB (2 %), 16-byte digests, attachments up to 1 KB (2 %)",
)
DATASETS: dict[str, Dataset] = {"narrow": NARROW, "wide": WIDE}


# --------------------------------------------------------------------------- bulk text files


def _esc(s: str) -> str:
    if "\\" in s or "\t" in s or "\n" in s or "\r" in s:
        s = s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return s


def _formatter(kind: str, family: str) -> Callable[[Value], str]:
    pg = family == "postgresql"
    if kind in ("str", "json"):
        return _esc
    if kind == "bool":
        return (lambda v: "t" if v else "f") if pg else (lambda v: "1" if v else "0")
    if kind == "timestamptz":
        return (lambda v: v + "+00") if pg else str
    if kind == "binary":
        return (lambda v: "\\\\x" + v.hex()) if pg else (lambda v: v.hex())
    if kind == "float":
        return repr
    return str


def value_bytes(v: Value) -> int:
    """The size of one generated value as stored: UTF-8 text, raw binary, decimal digits."""
    if v is None:
        return 0
    if isinstance(v, bytes):
        return len(v)
    if isinstance(v, bool):
        return 1
    return len(str(v).encode("utf-8"))


def write_bulk_files(total: int, seed: int, cache: Path, dataset: Dataset | None = None) -> Path:
    """Write (once) ``cache/<prefix><total>-<seed>/<family>/<table>.tsv`` for both families; return the directory.

    ``data-bytes`` beside them: the dataset's size, the sum of its values' sizes (``value_bytes``).
    """
    dataset = dataset or NARROW
    out = cache / f"{dataset.cache_prefix}{total}-{seed}"
    if (out / "done").exists():
        return out
    for family in ("postgresql", "mysql"):
        (out / family).mkdir(parents=True, exist_ok=True)
    size = 0
    for t in dataset.tables:
        fmts = {f: [_formatter(c.kind, f) for c in t.columns] for f in ("postgresql", "mysql")}
        with (
            open(out / "postgresql" / f"{t.name}.tsv", "w", encoding="utf-8", newline="\n", buffering=1 << 20) as fp,
            open(out / "mysql" / f"{t.name}.tsv", "w", encoding="utf-8", newline="\n", buffering=1 << 20) as fm,
        ):
            pg_f, my_f = fmts["postgresql"], fmts["mysql"]
            for row in dataset.generate(t.name, total, seed):
                size += sum(map(value_bytes, row))
                fp.write("\t".join("\\N" if v is None else f(v) for f, v in zip(pg_f, row)) + "\n")
                fm.write("\t".join("\\N" if v is None else f(v) for f, v in zip(my_f, row)) + "\n")
    (out / "data-bytes").write_text(f"{size}\n")
    (out / "done").write_text("ok\n")
    return out


def data_bytes(total: int, seed: int, cache: Path, dataset: Dataset | None = None) -> int | None:
    """The size ``write_bulk_files`` recorded for this dataset (None when not written yet)."""
    path = cache / f"{(dataset or NARROW).cache_prefix}{total}-{seed}" / "data-bytes"
    return int(path.read_text()) if path.exists() else None


def create_database(server: Server, database: str) -> None:
    """Create ``database`` unless it exists (no DROP DATABASE: see ``load``)."""
    if server.family == "postgresql":
        with pg_connect(server) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone():
                conn.execute(f"CREATE DATABASE \"{database}\" ENCODING 'UTF8' TEMPLATE template0")
        return
    conn = my_connect(server)
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE IF NOT EXISTS `{database}` CHARACTER SET utf8mb4")
    finally:
        conn.close()


def load(server: Server, database: str, files: Path, dataset: Dataset | None = None) -> None:
    """(Re)create the benchmark tables in ``database`` and bulk-load the generated files.

    The tables are dropped and recreated rather than the database: a PostgreSQL DROP DATABASE
    waits for every backend of the server to acknowledge it, so one stuck session elsewhere blocks it.
    """
    tables = (dataset or NARROW).tables
    create_database(server, database)
    pre, post = ddl(server.family, dataset)
    src = files / server.family
    drops = [
        f'DROP TABLE IF EXISTS "{t.name}" CASCADE'
        if server.family == "postgresql"
        else f"DROP TABLE IF EXISTS `{t.name}`"
        for t in reversed(tables)
    ]
    if server.family == "postgresql":
        with pg_connect(server, database) as conn:
            for stmt in drops + pre:
                conn.execute(stmt)
            for t in tables:
                with (
                    conn.cursor() as cur,
                    cur.copy(f'COPY "{t.name}" FROM STDIN') as cp,
                    open(src / f"{t.name}.tsv", "rb") as fh,
                ):
                    while chunk := fh.read(1 << 20):
                        cp.write(chunk)
            for stmt in post:
                conn.execute(stmt)
            conn.execute("ANALYZE")
        return
    conn = my_connect(server, database)
    try:
        with conn.cursor() as cur:
            cur.execute("SET foreign_key_checks = 0")
            for stmt in drops + pre:
                cur.execute(stmt)
            for t in tables:
                cur.execute(load_data_sql(t, str(src / f"{t.name}.tsv"), local=True))
            cur.execute("SET foreign_key_checks = 1")
            for t in tables:
                cur.execute(f"ANALYZE TABLE `{t.name}`")
                cur.fetchall()
    finally:
        conn.close()


def load_data_sql(t: Table, path: str, *, local: bool) -> str:
    """A LOAD DATA statement for one table file (hex-encoded binary columns go through UNHEX)."""
    targets, sets = [], []
    for c in t.columns:
        if c.kind == "binary":
            targets.append(f"@{c.name}")
            sets.append(f"`{c.name}` = UNHEX(@{c.name})")
        else:
            targets.append(f"`{c.name}`")
    sql = (
        f"LOAD DATA {'LOCAL ' if local else ''}INFILE '{path}' INTO TABLE `{t.name}` CHARACTER SET utf8mb4 "
        f"({', '.join(targets)})"
    )
    return sql + (" SET " + ", ".join(sets) if sets else "")


def ensure_loaded(
    server: Server, database: str, total: int, seed: int, cache: Path, dataset: Dataset | None = None
) -> bool:
    """Load the dataset unless ``database`` already holds it (same row counts); True when it loaded."""
    if count_rows(server, database, dataset=dataset) == table_rows(total, dataset):
        return False
    load(server, database, write_bulk_files(total, seed, cache, dataset), dataset)
    return True
