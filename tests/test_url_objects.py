"""Every library entry point takes a URL string, a dbjson URL, an SQLAlchemy URL or an SQLAlchemy
Engine (what applications already hold); the password is kept for connecting, never shown."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy

import dbjson
from dbjson.connect import mask_text, parse_url
from dbjson.schemaload import load_schema
from dbjson.url import make_url


def test_an_engine_keeps_its_password_for_connecting_and_never_shows_it() -> None:
    engine = sqlalchemy.create_engine("postgresql+psycopg://app:s3cr%40t@db.example:5433/shop")
    for given in (engine, engine.url, make_url("postgresql://app:s3cr%40t@db.example:5433/shop")):
        u = parse_url(given)
        assert (u.username, u.password, u.host, u.port, u.database) == ("app", "s3cr@t", "db.example", 5433, "shop")
        assert "s3cr" not in str(u) and "s3cr" not in repr(u) and "s3cr" not in mask_text(str(given))
    with pytest.raises(dbjson.ConnectionFailed) as err:  # a refused connection names no password
        dbjson.reflect(sqlalchemy.create_engine("postgresql+psycopg://app:s3cr%40t@127.0.0.1:1/shop"))
    assert "s3cr" not in str(err.value)


@pytest.mark.parametrize("form", ["engine", "sqlalchemy-url", "dbjson-url"])
def test_every_entry_point_takes_url_objects(tmp_path: Path, form: str) -> None:
    src_file, dst_file, mig_file = (tmp_path / n for n in ("src.db", "dst.db", "mig.db"))
    with sqlite3.connect(src_file) as c:
        c.executescript("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b');")

    def url(path: Path) -> object:
        text = f"sqlite:///{path}"
        return {
            "engine": lambda: sqlalchemy.create_engine(text),
            "sqlalchemy-url": lambda: sqlalchemy.engine.make_url(text),
            "dbjson-url": lambda: make_url(text),
        }[form]()

    doc = dbjson.reflect(url(src_file))
    assert [t.name for _, t in doc.tables()] == ["t"]
    load_schema(doc, url(tmp_path / "schema.db"))
    exported = dbjson.export_database(url(src_file), tmp_path / "out")
    assert exported.rows == 2
    assert dbjson.import_database(tmp_path / "out", url(dst_file)).rows == 2
    assert dbjson.verify(tmp_path / "out", url(dst_file)).ok
    assert dbjson.migrate(url(src_file), url(mig_file), state_dir=tmp_path / "state").rows == 2
    assert dbjson.diff(url(src_file), url(mig_file)).empty


@pytest.mark.mariadb
def test_an_engine_connects_with_its_password(mariadb_user: tuple[str, str]) -> None:
    """A real password through an SQLAlchemy Engine: it connects; a wrong one is refused without
    the password in the message."""
    from conftest import server_url

    from dbjson.connect import Target

    name, password = mariadb_user
    admin = sqlalchemy.engine.make_url(server_url("mariadb"))
    good = sqlalchemy.create_engine(admin.set(username=name, password=password, database=None))
    conn = Target(parse_url(good)).connect_raw()
    conn.close()
    bad = sqlalchemy.create_engine(admin.set(username=name, password="Wrong-" + password, database=None))
    with pytest.raises(dbjson.ConnectionFailed) as err:
        Target(parse_url(bad)).connect_raw()
    assert password not in str(err.value) and "Wrong-" not in str(err.value)
