"""Database URLs without SQLAlchemy.

dbjson's URLs are SQLAlchemy URLs (``dialect+driver://user:password@host:port/database?key=value``),
and :class:`URL` and :func:`make_url` here follow SQLAlchemy 2's ``sqlalchemy.engine.URL`` and
``make_url`` (same parsing regular expression, percent-decoding of user name, password and
database, query strings with repeated keys as tuples, rendering, masking, equality and hashing):
importing ``sqlalchemy.engine.url`` imports all of SQLAlchemy, about 0.2 s on every command.
``tests/test_url.py`` compares the two on a table of URLs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, NoReturn
from urllib.parse import parse_qsl, quote, quote_plus, unquote

from .errors import UsageError

QueryValue = str | tuple[str, ...]


class _Query(dict):  # type: ignore[type-arg]
    """An immutable ``str -> str | tuple[str, ...]`` mapping (``URL.query``)."""

    __slots__ = ()

    def _immutable(self, *_a: Any, **_kw: Any) -> NoReturn:
        raise TypeError("URL.query is immutable: use URL.set(query=...) or URL.update_query_dict()")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _immutable

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Query, (dict(self),))

    def __repr__(self) -> str:
        return f"immutabledict({dict.__repr__(self)})"

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))


_EMPTY = _Query()

# SQLAlchemy 2's pattern (sqlalchemy/engine/url.py, _parse_url), unchanged.
_URL_RE = re.compile(
    r"""
        (?P<name>[\w\+]+)://
        (?:
            (?P<username>[^:/]*)
            (?::(?P<password>[^@]*))?
        @)?
        (?:
            (?:
                \[(?P<ipv6host>[^/\?]+)\] |
                (?P<ipv4host>[^/:\?]+)
            )?
            (?::(?P<port>[^/\?]*))?
        )?
        (?:/(?P<database>[^\?]*))?
        (?:\?(?P<query>.*))?
        """,
    re.X,
)


def _to_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Iterable):
        return [value]
    return value if isinstance(value, list) else list(value)


def _assert_str(v: Any, paramname: str) -> str:
    if not isinstance(v, str):
        raise TypeError(f"{paramname} must be a string")
    return v


def _assert_none_str(v: Any, paramname: str) -> str | None:
    return None if v is None else _assert_str(v, paramname)


def _assert_port(port: Any) -> int | None:
    if port is None:
        return None
    try:
        return int(port)
    except TypeError:
        raise TypeError("Port argument must be an integer or None") from None


def _str_dict(items: Mapping[str, str | Sequence[str]] | Sequence[tuple[str, str | Sequence[str]]] | None) -> _Query:
    if items is None:
        return _EMPTY

    def value(v: Any) -> QueryValue:
        if isinstance(v, str):
            return v
        if isinstance(v, Sequence):
            return tuple(value(e) for e in v)  # type: ignore[misc]
        raise TypeError("Query dictionary values must be strings or sequences of strings")

    def key(k: Any) -> str:
        if not isinstance(k, str):
            raise TypeError("Query dictionary keys must be strings")
        return k

    pairs = items if isinstance(items, Sequence) else items.items()
    return _Query({key(k): value(v) for k, v in pairs})


class URL(NamedTuple):
    """The parts of a database URL; immutable (change it with :meth:`set` and :meth:`update_query_dict`).

    The same fields, methods and string forms as SQLAlchemy's ``URL`` for what dbjson uses. ``str()``
    and ``repr()`` hide the password; :meth:`render_as_string` with ``hide_password=False`` keeps it.
    """

    drivername: str
    username: str | None
    password: str | None
    host: str | None
    port: int | None
    database: str | None
    query: Mapping[str, QueryValue]

    @classmethod
    def create(
        cls,
        drivername: str,
        username: str | None = None,
        password: str | None = None,
        host: str | None = None,
        port: int | None = None,
        database: str | None = None,
        query: Mapping[str, str | Sequence[str]] = _EMPTY,
    ) -> URL:
        """A new URL from its parts (the password as typed, not percent-encoded)."""
        return cls(
            _assert_str(drivername, "drivername"),
            _assert_none_str(username, "username"),
            password,
            _assert_none_str(host, "host"),
            _assert_port(port),
            _assert_none_str(database, "database"),
            _str_dict(query),
        )

    def set(
        self,
        drivername: str | None = None,
        username: str | None = None,
        password: str | None = None,
        host: str | None = None,
        port: int | None = None,
        database: str | None = None,
        query: Mapping[str, str | Sequence[str]] | None = None,
    ) -> URL:
        """A copy with the given (non-None) parts replaced; ``query`` replaces the whole query."""
        kw: dict[str, Any] = {}
        if drivername is not None:
            kw["drivername"] = _assert_str(drivername, "drivername")
        if username is not None:
            kw["username"] = _assert_str(username, "username")
        if password is not None:
            kw["password"] = password
        if host is not None:
            kw["host"] = _assert_str(host, "host")
        if port is not None:
            _assert_port(port)  # checked, kept as given (as SQLAlchemy does)
            kw["port"] = port
        if database is not None:
            kw["database"] = _assert_str(database, "database")
        if query is not None:
            kw["query"] = _str_dict(query)
        return self._replace(**kw)

    def update_query_pairs(
        self, key_value_pairs: Iterable[tuple[str, str | Sequence[str]]], append: bool = False
    ) -> URL:
        """A copy with query parameters replaced (or, with ``append``, added to)."""
        new_keys: dict[str, Any] = {}
        for key, value in key_value_pairs:
            if key in new_keys:
                current = _to_list(new_keys[key])
                current.extend(_to_list(value))
                new_keys[key] = current
            else:
                new_keys[key] = list(value) if isinstance(value, (list, tuple)) else value
        existing = self.query
        if append:
            new_query: dict[str, Any] = {}
            for k in new_keys:
                if k in existing:
                    new_query[k] = tuple(_to_list(existing[k]) + _to_list(new_keys[k]))
                else:
                    new_query[k] = new_keys[k]
            new_query.update({k: existing[k] for k in set(existing).difference(new_keys)})
        else:
            new_query = {**existing, **new_keys}
        return self.set(query=new_query)

    def update_query_dict(self, query_parameters: Mapping[str, str | Sequence[str]], append: bool = False) -> URL:
        """A copy with the query updated from a dictionary (see :meth:`update_query_pairs`)."""
        return self.update_query_pairs(query_parameters.items(), append=append)

    def difference_update_query(self, names: Iterable[str]) -> URL:
        """A copy without the given query parameters."""
        names = set(names)
        if not names.intersection(self.query):
            return self
        return self.set(query={k: v for k, v in self.query.items() if k not in names})

    @property
    def normalized_query(self) -> Mapping[str, Sequence[str]]:
        """The query with every value a tuple."""
        return _Query({k: (v,) if not isinstance(v, tuple) else v for k, v in self.query.items()})

    def render_as_string(self, hide_password: bool = True) -> str:
        """The URL as a string (SQLAlchemy's rendering); the password is ``***`` unless ``hide_password=False``."""
        s = self.drivername + "://"
        if self.username is not None:
            s += quote(self.username, safe=" +")
            if self.password is not None:
                s += ":" + ("***" if hide_password else quote(str(self.password), safe=" +"))
            s += "@"
        if self.host is not None:
            s += f"[{self.host}]" if ":" in self.host else self.host
        if self.port is not None:
            s += ":" + str(self.port)
        if self.database is not None:
            s += "/" + quote(self.database, safe=" +/")
        if self.query:
            s += "?" + "&".join(
                f"{quote_plus(k)}={quote_plus(element)}"
                for k in sorted(self.query)
                for element in _to_list(self.query[k])
            )
        return s

    def __repr__(self) -> str:
        return self.render_as_string()

    def __str__(self) -> str:
        return self.render_as_string()

    def __hash__(self) -> int:
        return hash(str(self))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, URL)
            and self.drivername == other.drivername
            and self.username == other.username
            and self.password == other.password
            and self.host == other.host
            and self.database == other.database
            and self.query == other.query
            and self.port == other.port
        )

    def __ne__(self, other: object) -> bool:
        return not self == other

    def to_sqlalchemy(self) -> Any:
        """The same URL as a ``sqlalchemy.engine.URL`` (for ``sqlalchemy.create_engine``); imports
        SQLAlchemy, which dbjson itself does not need."""
        from sqlalchemy.engine import URL as SQLAlchemyURL

        return SQLAlchemyURL.create(
            self.drivername, self.username, self.password, self.host, self.port, self.database, self.query
        )

    def get_backend_name(self) -> str:
        """The part of the driver name before ``+`` (``mysql`` for ``mysql+pymysql``)."""
        return self.drivername.split("+")[0]

    def translate_connect_args(self, **names: str) -> dict[str, Any]:
        """host, database, username, password and port as a dict (renamed by ``names``); unset or
        empty parts left out."""
        out: dict[str, Any] = {}
        for attr in ("host", "database", "username", "password", "port"):
            value = getattr(self, attr)
            if value:
                out[names.get(attr, attr)] = str(value) if attr == "password" else value
        return out


def is_sqlalchemy_url(obj: object) -> bool:
    """Is ``obj`` a ``sqlalchemy.engine.URL`` (told by its class, without importing SQLAlchemy)?"""
    cls = type(obj)
    return cls.__name__ == "URL" and cls.__module__.startswith("sqlalchemy.")


def is_sqlalchemy_engine(obj: object) -> bool:
    """Is ``obj`` a ``sqlalchemy.engine.Engine`` (told by its class, without importing SQLAlchemy)?"""
    return any(c.__name__ == "Engine" and c.__module__.startswith("sqlalchemy.") for c in type(obj).__mro__)


def make_url(name_or_url: str | URL | Any, *, keep_blank_values: bool = False) -> URL:
    """Parse a URL string as SQLAlchemy's ``make_url`` does; a :class:`URL` is returned as is and a
    ``sqlalchemy.engine.URL`` converted part by part. Raises :class:`~dbjson.errors.UsageError`
    (the message holds no part of the URL: it may contain a password)."""
    if isinstance(name_or_url, URL):
        return name_or_url
    if is_sqlalchemy_engine(name_or_url):  # an application's Engine: its URL (password included, for connecting)
        name_or_url = getattr(name_or_url, "url")  # noqa: B009
    if is_sqlalchemy_url(name_or_url):
        u: Any = name_or_url
        password = None if u.password is None else str(u.password)
        return URL.create(u.drivername, u.username, password, u.host, u.port, u.database, u.query)
    if not isinstance(name_or_url, str):
        raise UsageError(f"expected a database URL string or URL object, got {type(name_or_url).__name__}")
    return _parse(name_or_url, keep_blank_values)


def _parse(name: str, keep_blank_values: bool) -> URL:
    m = _URL_RE.match(name)
    if m is None:
        raise UsageError("cannot parse the database URL (expected dialect://user:password@host:port/database)")
    c = m.groupdict()
    query: dict[str, Any] | None = None
    if c["query"] is not None:
        query = {}
        for key, value in parse_qsl(c["query"], keep_blank_values=keep_blank_values):
            if key in query:
                query[key] = _to_list(query[key])
                query[key].append(value)
            else:
                query[key] = value
    username, password, database = (
        unquote(c[k]) if c[k] is not None else None for k in ("username", "password", "database")
    )
    port: Any = c["port"]
    if port is not None:
        try:
            port = int(port)  # an empty port ("host:/db") is an error, as in SQLAlchemy
        except ValueError:
            raise UsageError("the port of the database URL is not a number") from None
    return URL.create(c["name"], username, password, c["ipv4host"] or c["ipv6host"], port, database, query)  # type: ignore[arg-type]


__all__ = ["URL", "make_url", "is_sqlalchemy_url"]


def source_host(url: URL) -> str | None:
    if not url.host:
        return None
    return f"{url.host}:{url.port}" if url.port else url.host
