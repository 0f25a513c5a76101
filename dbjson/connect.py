"""Database URLs and connections.

URLs are SQLAlchemy URLs. Short schemes are accepted and completed with dbjson's drivers:
``mysql://`` and ``mariadb://`` → PyMySQL, ``postgresql://``/``postgres://`` → psycopg 3,
``sqlite:///path``. A URL may also come from the ``DBJSON_URL`` environment variable and a
password from ``DBJSON_PASSWORD``. Passwords are masked in every string dbjson produces.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL as URL, make_url  # URL re-exported: dbjson.ddl.apply imports it from here

from .errors import ConnectionFailed, DbjsonError, UsageError, hint_for

_SCHEMES = {
    "mysql": "mysql+pymysql",
    "mariadb": "mysql+pymysql",
    "mysql+pymysql": "mysql+pymysql",
    "mariadb+pymysql": "mysql+pymysql",
    "postgresql": "postgresql+psycopg",
    "postgres": "postgresql+psycopg",
    "postgresql+psycopg": "postgresql+psycopg",
    "sqlite": "sqlite",
    "sqlite+pysqlite": "sqlite",
}

_HINTS = {
    "postgresql+psycopg2": "dbjson uses psycopg 3: write postgresql:// or postgresql+psycopg://",
    "mysql+mysqldb": "dbjson uses PyMySQL: write mysql:// or mysql+pymysql://",
    "mysql+mysqlconnector": "dbjson uses PyMySQL: write mysql:// or mysql+pymysql://",
}


def parse_url(url: str | URL) -> URL:
    """Parse and normalize a database URL (raising :class:`UsageError` with a hint if wrong)."""
    if isinstance(url, URL):
        u = url
    else:
        text = url.strip()
        if "://" not in text:
            if text.endswith((".db", ".sqlite", ".sqlite3")) or os.path.exists(text):
                text = "sqlite:///" + text
            else:
                raise UsageError(
                    f"not a database URL: {mask_text(text)!r}",
                    hint="use e.g. mysql://root@127.0.0.1/db, postgresql://user@host/db or sqlite:///file.db",
                )
        try:
            u = make_url(text)
        except Exception:
            raise UsageError(f"cannot parse database URL {mask_text(text)!r}") from None
    scheme = u.drivername
    if scheme not in _SCHEMES:
        raise UsageError(
            f"unsupported URL scheme {scheme!r}",
            hint=_HINTS.get(scheme, "supported: mysql://, mariadb://, postgresql://, sqlite:///"),
        )
    u = u.set(drivername=_SCHEMES[scheme])
    if u.password is None and os.environ.get("DBJSON_PASSWORD") and not scheme.startswith("sqlite"):
        u = u.set(password=os.environ["DBJSON_PASSWORD"])
    return u


def family_of(url: URL) -> str:
    """``mysql`` (MySQL and MariaDB: decided later from the server), ``postgresql`` or ``sqlite``."""
    name = url.get_backend_name()
    return {"mysql": "mysql", "postgresql": "postgresql", "sqlite": "sqlite"}[name]


def mask(url: URL | str) -> str:
    """A URL rendered with its password hidden."""
    if isinstance(url, str):
        return mask_text(url)
    return url.render_as_string(hide_password=True)


_PW_RE = re.compile(r"(://[^:/@\s]*:)([^@\s]*)(@)")


def mask_text(text: str) -> str:
    """Hide any ``user:password@`` in free text."""
    return _PW_RE.sub(r"\1***\3", text)


def scrub(text: str, *secrets: str | None) -> str:
    """Remove secrets (passwords) and URL credentials from a message."""
    out = mask_text(text)
    for s in secrets:
        if s:
            out = out.replace(s, "***")
    return out


@dataclass
class Target:
    """A parsed URL with its engine family; creates engines and raw DBAPI connections."""

    url: URL

    @property
    def family(self) -> str:
        return family_of(self.url)

    @property
    def database(self) -> str | None:
        return self.url.database

    def display(self) -> str:
        return mask(self.url)

    def _connect_args(self) -> dict[str, Any]:
        if self.family == "mysql":
            return {"local_infile": True, "charset": "utf8mb4", "connect_timeout": 10}
        if self.family == "postgresql":
            return {"connect_timeout": 10}
        return {}

    def engine(self, **kw: Any) -> sa.Engine:
        args: dict[str, Any] = {"connect_args": self._connect_args()}
        args.update(kw)
        return sa.create_engine(self.url, poolclass=sa.pool.NullPool, **args)

    def connect_raw(self, *, create: bool = True) -> Any:
        """A raw DBAPI connection (PyMySQL, psycopg, sqlite3), errors translated.

        ``create=False`` refuses to create a missing SQLite file (reading must not invent a database).
        """
        if not create and self.family == "sqlite" and not _sqlite_exists(self.url.database):
            raise ConnectionFailed(
                f"cannot connect to {mask(self.url)}: no such SQLite database file",
                hint="check the path: sqlite:///relative/path.db or sqlite:////absolute/path.db",
            )
        eng = self.engine()
        try:
            # Straight from the dialect: a pooled connection's proxy would close it when collected.
            cargs, cparams = eng.dialect.create_connect_args(eng.url)
            cparams.update(self._connect_args())
            return eng.dialect.connect(*cargs, **cparams)
        except Exception as e:  # noqa: BLE001 - translate every driver error
            raise connection_error(e, self.url) from None


def _sqlite_exists(database: str | None) -> bool:
    """Does the SQLite database of a URL exist (in-memory databases always do)?"""
    if not database or database == ":memory:" or database.startswith("file:"):
        return True
    return os.path.isfile(database)


_SHUTDOWN_STATES = ("57P01", "57P02", "57P03")  # PostgreSQL: admin/crash shutdown, cannot connect now
_MYSQL_CONNECTION_CODES = (1053, 1927, 4031)  # server shutdown, connection killed, idle disconnect


def is_connection_problem(exc: BaseException) -> bool:
    """Whether a driver error is about the connection (server gone, connection refused, closed or
    killed) rather than about a statement: DB-API InterfaceError; OperationalError (or a subclass)
    whose SQLSTATE is of class 08 or a shutdown (psycopg) or whose MySQL code is a client error
    (2000+: gone away, lost connection) or a killed session; other OperationalErrors without a code."""
    if isinstance(exc, DbjsonError):
        return False
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "InterfaceError" in names:
        return True
    if "OperationalError" not in names:
        return False
    state = getattr(exc, "sqlstate", None)
    if isinstance(state, str):
        return state.startswith("08") or state in _SHUTDOWN_STATES
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    return code is None or code >= 2000 or code in _MYSQL_CONNECTION_CODES


def raise_if_connection_error(exc: BaseException, url: URL) -> None:
    """In an ``except`` block: raise :class:`ConnectionFailed` (masked URL, no password) for a
    driver's connection-level error; return for anything else, which the caller re-raises as is.
    The one translation of driver errors used by export and reflection."""
    if is_connection_problem(exc):
        raise connection_error(exc, url) from None


def connection_error(exc: BaseException, url: URL) -> ConnectionFailed:
    """Turn a driver's connection failure into a clear, password-free :class:`ConnectionFailed`."""
    orig = getattr(exc, "orig", None) or exc
    msg = scrub(str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__, url.password)
    return ConnectionFailed(f"cannot connect to {mask(url)}: {msg}", hint=hint_for(msg))
