"""Engines: everything that differs between MySQL, MariaDB, PostgreSQL and SQLite lives here,
one package per engine family (MariaDB is a variant of MySQL)."""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from .base import Engine

ENGINE_NAMES = ("mysql", "mariadb", "postgresql", "sqlite")


def get_engine(name: str, server_version: str | None = None) -> Engine:
    """An engine by name, for offline work (DDL printing); ``server_version`` tunes features."""
    # lazy: only the engine asked for is imported (its driver and its modules: start-up time)
    key = name.lower()
    if key in ("postgres", "pg"):
        key = "postgresql"
    if key == "mysql":
        from .mysql import MySQL

        return MySQL(server_version)
    if key == "mariadb":
        from .mysql import MariaDB

        return MariaDB(server_version)
    if key == "postgresql":
        from .postgresql import PostgreSQL

        return PostgreSQL(server_version)
    if key == "sqlite":
        from .sqlite import SQLite

        return SQLite(server_version)
    raise UsageError(f"unknown dialect {name!r}", hint="choose one of: " + ", ".join(ENGINE_NAMES))


def detect_engine(family: str, conn: Any) -> Engine:
    """The engine behind a live raw DBAPI connection (MariaDB is told from MySQL by the server)."""
    if family == "mysql":
        with conn.cursor() as cur:
            cur.execute("SELECT VERSION()")
            version = cur.fetchone()[0]
        return get_engine("mariadb" if "mariadb" in version.lower() else "mysql", version)
    if family == "postgresql":
        with conn.cursor() as cur:
            cur.execute("SHOW server_version")
            version = cur.fetchone()[0]
        return get_engine("postgresql", version)
    import sqlite3

    return get_engine("sqlite", sqlite3.sqlite_version)


__all__ = ["Engine", "ENGINE_NAMES", "get_engine", "detect_engine"]
