"""Create dbjson's sample "shop" database on any engine, with deterministic generated data.

    python examples/sample_db.py sqlite:///examples/shop.db
    python examples/sample_db.py mysql://root@127.0.0.1:3306/shop --create
    python examples/sample_db.py postgresql://postgres@127.0.0.1/shop --create --customers 5000
    python examples/sample_db.py postgresql://postgres@127.0.0.1/shop_copy --empty   # an empty target

The data is made here (seeded random generator), not copied from anywhere: customers with non-ASCII
names, products with decimal prices, JSON attributes and small binary thumbnails, orders with an
enum status and timestamps, order lines with a composite primary key, and a view.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
from decimal import Decimal

import sqlalchemy as sa

from dbjson.connect import parse_url

metadata = sa.MetaData()

customers = sa.Table(
    "customers",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("email", sa.String(120), nullable=False, unique=True),
    sa.Column("name", sa.String(80), nullable=False, comment="display name, any script"),
    sa.Column("country", sa.CHAR(2), nullable=False, server_default="SE"),
    sa.Column("vip", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created_at", sa.DateTime, nullable=False, server_default=sa.func.current_timestamp()),
    comment="people who bought something",
)
products = sa.Table(
    "products",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("sku", sa.String(16), nullable=False, unique=True),
    sa.Column("title", sa.String(200), nullable=False),
    sa.Column("price", sa.Numeric(10, 2), nullable=False),
    sa.Column("weight_kg", sa.Float),
    sa.Column("attributes", sa.JSON),
    sa.Column("thumbnail", sa.LargeBinary),
    sa.CheckConstraint("price >= 0", name="products_price_nonneg"),
)
orders = sa.Table(
    "orders",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("customer_id", sa.Integer, sa.ForeignKey("customers.id", ondelete="CASCADE"), nullable=False),
    sa.Column(
        "status",
        sa.Enum("new", "paid", "shipped", "cancelled", name="order_status", create_constraint=True),
        nullable=False,
    ),  # SQLite: a CHECK
    sa.Column("placed_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("note", sa.Text),
    sa.Index("orders_customer_placed", "customer_id", "placed_at"),
)
order_lines = sa.Table(
    "order_lines",
    metadata,
    sa.Column("order_id", orders.c.id.type, sa.ForeignKey("orders.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("line_no", sa.SmallInteger, primary_key=True),
    sa.Column("product_id", sa.Integer, sa.ForeignKey("products.id"), nullable=False),
    sa.Column("quantity", sa.Integer, nullable=False),
    sa.Column("unit_price", sa.Numeric(10, 2), nullable=False),
)

FIRST = [
    "Åsa",
    "Björn",
    "Zoë",
    "José",
    "Mårten",
    "Chloé",
    "Łukasz",
    "Ngọc",
    "Søren",
    "Amélie",
    "Jürgen",
    "Ana",
    "李",
    "Олег",
]
LAST = ["Lindqvist", "Ødegård", "García", "Müller", "Nguyễn", "Dvořák", "O'Brien", "Smith", "王", "Иванов"]
WORDS = ["linen", "oak", "lamp", "chair", "mug", "kettle", "scarf", "desk", "rug", "vase", "clock", "bowl"]


def rows(n_customers: int, seed: int = 42) -> dict[str, list[dict[str, object]]]:
    """Deterministic rows for every table."""
    rnd = random.Random(seed)
    epoch = dt.datetime(2024, 1, 1, 9, 0, 0)
    cust = []
    for i in range(1, n_customers + 1):
        first, last = rnd.choice(FIRST), rnd.choice(LAST)
        cust.append(
            {
                "id": i,
                "email": f"user{i}@example.org",
                "name": f"{first} {last}",
                "country": rnd.choice(["SE", "NO", "DE", "FR", "VN", "CN", "US"]),
                "vip": rnd.random() < 0.1,
                "created_at": epoch + dt.timedelta(minutes=rnd.randrange(500_000)),
            }
        )
    prod = []
    for i in range(1, max(20, n_customers // 5) + 1):
        w = rnd.choice(WORDS)
        prod.append(
            {
                "id": i,
                "sku": f"SKU-{i:06d}",
                "title": f"{w.title()} no. {i}",
                "price": Decimal(rnd.randrange(100, 100_000)) / 100,
                "weight_kg": None if rnd.random() < 0.2 else round(rnd.uniform(0.1, 40), 3),
                "attributes": {
                    "colour": rnd.choice(["red", "oak", "blå"]),
                    "tags": rnd.sample(WORDS, 2),
                    "stock": rnd.randrange(100),
                },
                "thumbnail": bytes(rnd.randrange(256) for _ in range(rnd.randrange(8, 64))),
            }
        )
    ords, lines = [], []
    oid = 0
    for c in cust:
        for _ in range(rnd.randrange(0, 4)):
            oid += 1
            ords.append(
                {
                    "id": oid,
                    "customer_id": c["id"],
                    "status": rnd.choice(["new", "paid", "shipped", "cancelled"]),
                    "placed_at": (epoch + dt.timedelta(seconds=rnd.randrange(30_000_000))).replace(tzinfo=dt.UTC),
                    "note": None if rnd.random() < 0.7 else "Leave at the door — tack!",
                }
            )
            for ln in range(1, rnd.randrange(2, 5)):
                p = rnd.choice(prod)
                lines.append(
                    {
                        "order_id": oid,
                        "line_no": ln,
                        "product_id": p["id"],
                        "quantity": rnd.randrange(1, 5),
                        "unit_price": p["price"],
                    }
                )
    return {"customers": cust, "products": prod, "orders": ords, "order_lines": lines}


def recreate_database(url: str) -> None:
    """Drop the URL's database and create it empty (an SQLite file is deleted)."""
    u = parse_url(url)
    if u.get_backend_name() == "sqlite":
        if u.database and u.database != ":memory:" and os.path.exists(u.database):
            os.remove(u.database)
        return
    if not u.database:
        raise SystemExit(f"no database name in {url!r}")
    admin = u._replace(database="postgres" if u.get_backend_name() == "postgresql" else None)
    eng = sa.create_engine(admin.to_sqlalchemy(), isolation_level="AUTOCOMMIT")
    with eng.connect() as c:
        q = '"' if u.get_backend_name() == "postgresql" else "`"
        c.execute(sa.text(f"DROP DATABASE IF EXISTS {q}{u.database}{q}"))
        c.execute(sa.text(f"CREATE DATABASE {q}{u.database}{q}"))
    eng.dispose()


def create(url: str, *, n_customers: int = 1000, create_database: bool = False) -> dict[str, int]:
    """Create the sample schema at ``url`` and fill it; returns row counts per table.

    ``create_database`` drops and re-creates the database first (servers only).
    """
    u = parse_url(url)
    if create_database and u.get_backend_name() != "sqlite":
        recreate_database(url)
    engine = sa.create_engine(u.to_sqlalchemy())
    metadata.drop_all(engine)
    metadata.create_all(engine)
    data = rows(n_customers)
    with engine.begin() as c:
        if engine.dialect.name == "postgresql":
            c.execute(sa.text("SET TIME ZONE 'UTC'"))
        for table in metadata.sorted_tables:
            if data[table.name]:
                c.execute(table.insert(), data[table.name])
        c.execute(
            sa.text(
                "CREATE VIEW order_totals AS SELECT o.id AS order_id, o.customer_id, SUM(l.quantity * l.unit_price) AS total "
                "FROM orders o JOIN order_lines l ON l.order_id = o.id GROUP BY o.id, o.customer_id"
            )
        )
        if engine.dialect.name == "postgresql":
            for t in ("customers", "products", "orders"):
                c.execute(sa.text(f"SELECT setval(pg_get_serial_sequence('{t}', 'id'), (SELECT max(id) FROM {t}))"))
    engine.dispose()
    return {k: len(v) for k, v in data.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("url", help="database URL (sqlite:///shop.db, mysql://..., postgresql://...)")
    ap.add_argument("--customers", type=int, default=1000, help="number of customers (orders scale with it)")
    ap.add_argument("--create", action="store_true", help="drop and create the database first (servers only)")
    ap.add_argument(
        "--empty", action="store_true", help="only drop the database and create it empty (a target for import)"
    )
    args = ap.parse_args(argv)
    if args.empty:
        recreate_database(args.url)
        print(f"created an empty database at {args.url}", file=sys.stderr)
        return 0
    counts = create(args.url, n_customers=args.customers, create_database=args.create)
    print("created " + ", ".join(f"{t}: {n} rows" for t, n in counts.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
