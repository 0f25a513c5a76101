"""schema-dump: reflect a live database into a :class:`~dbjson.model.Database`."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from . import model as m
from .connect import Target, parse_url, raise_if_connection_error
from .engines import detect_engine
from .url import URL


@dataclass(frozen=True, kw_only=True)
class ReflectOptions:
    """What to reflect. Globs match ``table`` or ``schema.table`` (case-sensitive)."""

    tables: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    grants: bool = False
    schemas: tuple[str, ...] = ()  # PostgreSQL schemas / MySQL databases; () = the URL's default

    def wants(self, schema: str, table: str) -> bool:
        names = (table, f"{schema}.{table}")
        if self.tables and not any(fnmatch.fnmatchcase(n, g) for g in self.tables for n in names):
            return False
        return not any(fnmatch.fnmatchcase(n, g) for g in self.exclude for n in names)


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def source_host(url: URL) -> str | None:
    if not url.host:
        return None
    return f"{url.host}:{url.port}" if url.port else url.host


def reflect(
    url: str | URL,
    *,
    tables: Sequence[str] = (),
    exclude: Sequence[str] = (),
    grants: bool = False,
    schemas: Sequence[str] = (),
) -> m.Database:
    """Reflect the database at ``url`` into the schema model.

    ``tables``/``exclude`` are globs over table names (``"film*"``, ``"public.*"``); ``grants``
    adds users/roles and their privileges; ``schemas`` selects PostgreSQL schemas (default: every
    non-system schema) or MySQL databases (default: the URL's database).
    """
    target = Target(parse_url(url))
    options = ReflectOptions(tables=tuple(tables), exclude=tuple(exclude), grants=grants, schemas=tuple(schemas))
    conn = target.connect_raw(create=False)
    try:
        engine = detect_engine(target.family, conn)
        try:
            db: m.Database = engine.reflect_database(conn, target, options)  # type: ignore[attr-defined]
        except Exception as e:  # a driver error mid-reflection
            raise_if_connection_error(e, target.url)
            raise
        return db
    finally:
        try:
            conn.close()
        except Exception:  # noqa: BLE001
            pass
