"""Database URLs and connections.

URLs are SQLAlchemy URLs (parsed by :mod:`dbjson.url`, which follows SQLAlchemy's grammar without
importing it). Short schemes are accepted and completed with dbjson's drivers:
``mysql://`` and ``mariadb://`` → PyMySQL, ``postgresql://``/``postgres://`` → psycopg 3,
``sqlite:///path``. A URL may also come from the ``DBJSON_URL`` environment variable and a
password from ``DBJSON_PASSWORD``. Passwords are masked in every string dbjson produces.

Connections are opened with the drivers directly, with the arguments SQLAlchemy's dialects
(``mysql+pymysql``, ``postgresql+psycopg``, ``sqlite+pysqlite``) build from a URL, plus dbjson's
own settings: :func:`mysql_connect_args`, :func:`postgresql_connect_args` and
:func:`sqlite_connect_args` are the one place per engine where a URL becomes driver arguments.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ConnectionFailed, DbjsonError, UsageError, first_line, hint_for
from .url import URL as URL  # URL re-exported: dbjson.schemaload imports it from here
from .url import is_sqlalchemy_engine, is_sqlalchemy_url, make_url

if TYPE_CHECKING:
    import sqlalchemy as sa

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
    elif is_sqlalchemy_url(url) or is_sqlalchemy_engine(url):  # an application's SQLAlchemy URL or Engine
        u = make_url(url)
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
        except UsageError as e:  # its message holds no part of the URL
            raise UsageError(f"cannot parse database URL {mask_text(text)!r}: {e.message}") from None
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


# -- URL -> driver arguments, one function per engine ------------------------------------------------

_TRUE = ("true", "yes", "on", "y", "t", "1")
_FALSE = ("false", "no", "off", "n", "f", "0")


def _coerce(opts: Mapping[str, Any], key: str, type_: type, dest: dict[str, Any] | None = None) -> None:
    """SQLAlchemy's ``coerce_kw_type``: a query value not already of ``type_`` converted into
    ``dest`` (default: ``opts``); booleans from true/yes/on/y/t/1 and false/no/off/n/f/0."""
    value = opts.get(key)
    if value is None or isinstance(value, type_):
        return
    target = opts if dest is None else dest
    if type_ is bool and isinstance(value, str):
        word = value.strip().lower()
        if word not in _TRUE + _FALSE:
            raise UsageError(f"URL option {key}={value!r} is not a boolean", hint="use true or false")
        target[key] = word in _TRUE  # type: ignore[index]
    else:
        try:
            target[key] = type_(value)  # type: ignore[index]
        except (TypeError, ValueError):
            raise UsageError(f"URL option {key}={value!r} is not a valid {type_.__name__}") from None


# dbjson's own settings for every PyMySQL connection (they override the URL's options)
_MYSQL_DEFAULTS: dict[str, Any] = {"local_infile": True, "charset": "utf8mb4", "connect_timeout": 10}
_MYSQL_TYPES = (
    ("compress", bool),
    ("connect_timeout", int),
    ("read_timeout", int),
    ("write_timeout", int),
    ("client_flag", int),
    ("local_infile", bool),
    ("use_unicode", bool),
    ("charset", str),
    ("ssl_disabled", bool),
)
_MYSQL_SSL = (
    ("ssl_ca", str),
    ("ssl_key", str),
    ("ssl_cert", str),
    ("ssl_capath", str),
    ("ssl_cipher", str),
    ("ssl_check_hostname", bool),
)


def mysql_connect_args(url: URL) -> dict[str, Any]:
    """``pymysql.connect`` keyword arguments for a URL: what SQLAlchemy's ``mysql+pymysql`` dialect
    builds (host, port, user, password, database; query options such as ``unix_socket``,
    ``read_timeout``; ``ssl_*`` gathered into PyMySQL's ``ssl`` dict, so a CA file means a verified
    certificate and host name unless ``ssl_check_hostname=false``; the ``FOUND_ROWS`` client flag),
    then dbjson's settings: utf8mb4, LOCAL INFILE allowed, a 10 s connect timeout."""
    from .drivers import import_pymysql

    import_pymysql()  # without cryptography (start-up time)
    from pymysql.constants import CLIENT

    opts = url.translate_connect_args(username="user")
    opts.update(url.query)
    for key, type_ in _MYSQL_TYPES:
        _coerce(opts, key, type_)
    ssl: dict[str, Any] = {}
    for key, type_ in _MYSQL_SSL:
        if key in opts:
            ssl[key[4:]] = opts.pop(key)
            _coerce(ssl, key[4:], type_)
    if ssl:
        opts["ssl"] = ssl
    opts["client_flag"] = opts.get("client_flag", 0) | CLIENT.FOUND_ROWS
    opts.update(_MYSQL_DEFAULTS)
    return opts


_PG_HOST_PORT = re.compile(r"^([a-zA-Z0-9\-\.]*)(?:\:(\d*))?$")


def _pg_multihost(query: Any) -> tuple[tuple[str, ...], tuple[int | None, ...]] | tuple[None, None]:
    """Hosts and ports from ``?host=h1:p1&host=h2:p2`` or ``?host=h1,h2&port=p1,p2`` (SQLAlchemy's
    ``_split_multihost_from_url``)."""
    hosts: tuple[str, ...] | None = None
    ports_str: Any = None
    integrated = False
    if "host" in query:
        value = query["host"]
        if isinstance(value, tuple):
            integrated = True
            pairs = [tuple(t.split(":")) if ":" in t else (t, None) for t in value]
            if any(len(p) != 2 for p in pairs):
                raise UsageError("a host=HOST:PORT option of the URL has more than one ':'")
            hosts, ports_str = (tuple(x) for x in zip(*pairs))
        else:
            hosts = tuple(value.split(","))
            if "port" not in query and len(hosts) == 1 and ":" in hosts[0]:
                m = _PG_HOST_PORT.match(hosts[0])
                if m:
                    integrated = True
                    hosts, ports_str = (m.group(1),), (m.group(2) or None,)
    if "port" in query:
        if integrated:
            raise UsageError(
                "the URL mixes two multi-host forms",
                hint='use "host=h1,h2,h3&port=p1,p2,p3" or "host=h1:p1&host=h2:p2&host=h3:p3"',
            )
        value = query["port"]
        ports_str = value if isinstance(value, tuple) else tuple(value.split(","))
    ports: tuple[int | None, ...] | None = None
    if ports_str:
        try:
            ports = tuple(int(x) if x else None for x in ports_str)
        except ValueError:
            raise UsageError(f"the URL's port options are not numbers: {ports_str}") from None
    if ports and (
        (not hosts and len(ports) > 1) or (hosts and len(hosts) != len(ports) and (len(hosts) > 1 or len(ports) > 1))
    ):
        raise UsageError("the numbers of hosts and ports in the URL differ")
    if hosts is None:
        return None, None
    return hosts, ports if ports is not None else tuple(None for _ in hosts)


def postgresql_connect_args(url: URL) -> dict[str, Any]:
    """``psycopg.connect`` keyword arguments for a URL: what SQLAlchemy's ``postgresql+psycopg``
    dialect builds (host, port, user, password, dbname when given, otherwise libpq's defaults and
    environment; every query option is a libpq keyword: ``sslmode``, ``application_name``...;
    multiple hosts), then dbjson's 10 s connect timeout. Transactions are not in autocommit mode."""
    opts = url.translate_connect_args(username="user", database="dbname")
    if "port" in opts:
        opts["port"] = int(opts["port"])
    opts.update(url.query)
    hosts, ports = _pg_multihost(url.query)
    if hosts:
        opts["host"] = ",".join(hosts)
        comma_ports = ",".join(str(p) if p else "" for p in ports or ())
        if comma_ports:
            opts["port"] = comma_ports
    opts["connect_timeout"] = 10
    return opts


_SQLITE_OPTIONS = (
    ("uri", bool),
    ("timeout", float),
    ("isolation_level", str),
    ("detect_types", int),
    ("check_same_thread", bool),
    ("cached_statements", int),
)


def sqlite_connect_args(url: URL, *, read_only: bool = False, missing_ok: bool = False) -> tuple[str, dict[str, Any]]:
    """``sqlite3.connect`` arguments for a URL, as SQLAlchemy's ``sqlite+pysqlite`` dialect builds
    them: the file as an absolute path (``:memory:`` when there is none); ``uri``, ``timeout``,
    ``isolation_level``, ``detect_types``, ``check_same_thread`` and ``cached_statements`` from
    the query; with ``uri=true`` the database is a ``file:`` URI and the other query options are
    SQLite URI parameters (``?mode=ro&uri=true``). ``check_same_thread`` is off for a file.
    ``read_only``: a file is opened as a ``file:...?mode=ro`` URI (a reader never creates or
    changes it; a missing file is an error of :func:`sqlite3.connect`, or with ``missing_ok`` an
    empty in-memory database: what a dry run of a load into a file not made yet sees)."""
    if url.username or url.password or url.host or url.port:
        raise UsageError(
            f"invalid SQLite URL {mask(url)}: a SQLite URL has no user, password, host or port",
            hint="sqlite:///relative/path/to/file.db, sqlite:////absolute/path/to/file.db or sqlite:///:memory:",
        )
    opts = url.query
    kw: dict[str, Any] = {}
    for key, type_ in _SQLITE_OPTIONS:
        _coerce(opts, key, type_, dest=kw)  # (as in SQLAlchemy, a string option such as isolation_level is not used)
    if kw.get("uri", False):
        filename = url.database or ""
        rest = {k: v for k, v in opts.items() if k not in dict(_SQLITE_OPTIONS)}
        if rest:
            filename += "?" + "&".join(f"{k}={rest[k]}" for k in sorted(rest))
    else:
        filename = url.database or ":memory:"
        if filename != ":memory:":
            filename = os.path.abspath(filename)
            if read_only and missing_ok and not os.path.exists(filename):
                filename = ":memory:"
            elif read_only:
                filename = "file:" + urllib.parse.quote(filename) + "?mode=ro"
                kw["uri"] = True
    is_file = bool(url.database) and url.database != ":memory:" and opts.get("mode") != "memory"
    kw.setdefault("check_same_thread", not is_file)
    return filename, kw


@dataclass
class Target:
    """A parsed URL with its engine family; opens raw DBAPI connections (and SQLAlchemy engines)."""

    url: URL
    read_only: bool = False  # a dry run: the engines' loaders open connections that cannot write (SQLite: mode=ro)

    @property
    def family(self) -> str:
        return family_of(self.url)

    @property
    def database(self) -> str | None:
        return self.url.database

    def display(self) -> str:
        return mask(self.url)

    def engine(self, **kw: Any) -> sa.Engine:
        """An SQLAlchemy engine for the URL (no pool), for library users who want one: dbjson
        itself does not use SQLAlchemy, which is imported here, on first use."""
        import sqlalchemy as sa

        args: dict[str, Any] = {"poolclass": sa.pool.NullPool}
        if self.family == "mysql":
            args["connect_args"] = dict(_MYSQL_DEFAULTS)
        elif self.family == "postgresql":
            args["connect_args"] = {"connect_timeout": 10}
        args.update(kw)
        return sa.create_engine(self.url.to_sqlalchemy(), **args)

    def connect_raw(self, *, create: bool = True, read_only: bool = False) -> Any:
        """A raw DBAPI connection (PyMySQL, psycopg, sqlite3), errors translated.

        ``create=False`` refuses to create a missing SQLite file (reading must not invent a database);
        ``read_only`` opens a SQLite file read-only (see :func:`sqlite_connect_args`; implies ``create=False``).
        """
        family = self.family
        if family == "sqlite" and (read_only or not create):
            check_sqlite_exists(self.url)
        args: tuple[Any, ...] = ()
        if family == "sqlite":
            import sqlite3 as driver

            filename, kw = sqlite_connect_args(self.url, read_only=read_only)
            args = (filename,)
        elif family == "mysql":
            from .drivers import import_pymysql

            driver = import_pymysql()
            kw = mysql_connect_args(self.url)
        else:
            from .drivers import import_psycopg

            driver = import_psycopg()
            kw = postgresql_connect_args(self.url)
        try:
            return driver.connect(*args, **kw)
        except Exception as e:  # noqa: BLE001 - translate every driver error
            raise connection_error(e, self.url) from None


def close_quietly(conns: Iterable[Any]) -> None:
    """Close each connection, ignoring errors (a broken or killed connection may fail to close)."""
    for c in conns:
        try:
            c.close()
        except Exception:  # noqa: BLE001 - nothing left to do with it
            pass


def check_sqlite_exists(url: URL) -> None:
    """Raise :class:`ConnectionFailed` when the SQLite file of ``url`` does not exist (a source is read, never created)."""
    if not _sqlite_exists(url.database):
        raise ConnectionFailed(
            f"cannot connect to {mask(url)}: no such SQLite database file",
            hint="check the path: sqlite:///relative/path.db or sqlite:////absolute/path.db",
        )


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
    msg = scrub(first_line(orig), url.password)
    return ConnectionFailed(f"cannot connect to {mask(url)}: {msg}", hint=hint_for(msg))
