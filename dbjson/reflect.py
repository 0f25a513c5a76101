"""schema-dump: reflect a live database into a :class:`~dbjson.model.Database`."""

from __future__ import annotations

from collections.abc import Sequence

from . import model as m
from .connect import Target, close_quietly, parse_url, raise_if_connection_error
from .engines import detect_engine
from .engines.interface import ReflectOptions
from .filters import check_filters
from .url import URL


def reflect(
    url: str | URL,
    *,
    tables: Sequence[str] = (),
    exclude: Sequence[str] = (),
    grants: bool = False,
    schemas: Sequence[str] = (),
    all_databases: bool = False,
    privileges: bool = True,
) -> m.Database:
    """Reflect the database at ``url`` into the schema model.

    ``tables``/``exclude`` are globs over table names (``"film*"``, ``"public.*"``); ``grants``
    adds users/roles and their privileges; ``schemas`` selects PostgreSQL schemas (default: every
    non-system schema) or MySQL databases (default: the URL's database; a MySQL URL without one is
    an error unless ``all_databases``, which reads every database on the server). A ``tables`` or
    ``exclude`` glob that matches no table is a :class:`~dbjson.errors.UsageError`. ``privileges``: the
    object privileges on the reflected objects (``Database.grants``), kept unless False.
    """
    target = Target(parse_url(url))
    options = ReflectOptions(
        tables=tuple(tables),
        exclude=tuple(exclude),
        grants=grants,
        schemas=tuple(schemas),
        all_databases=all_databases,
        privileges=privileges,
    )
    conn = target.connect_raw(read_only=True)
    try:
        engine = detect_engine(target.family, conn)
        try:
            db = engine.reflect_database(conn, target, options)
        except Exception as e:  # a driver error mid-reflection
            raise_if_connection_error(e, target.url)
            raise
    finally:
        close_quietly([conn])
    check_filters(options.seen, tables=tables, exclude=exclude, source=target.display())
    return db
