"""The Chinook corpus loads on every engine (the basis of many other tests)."""

from __future__ import annotations

from chinook import chinook_row_counts, chinook_table_name, load_chinook


def test_chinook_loads(engine: str, fresh_db) -> None:  # type: ignore[no-untyped-def]
    db = fresh_db(engine)
    load_chinook(db)
    quote = "`" if engine in ("mysql", "mariadb") else '"'
    for table, count in chinook_row_counts().items():
        name = chinook_table_name(engine, table)
        assert db.query(f"SELECT COUNT(*) FROM {quote}{name}{quote}")[0][0] == count, table
