"""dbjson.url against SQLAlchemy (the reference for the URL grammar), the driver arguments against
SQLAlchemy's dialects, connections through them on every server, and start-up without SQLAlchemy."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from conftest import server_url
from sqlalchemy.engine import make_url as sa_make_url

from dbjson.connect import (
    Target,
    mysql_connect_args,
    parse_url,
    postgresql_connect_args,
    sqlite_connect_args,
)
from dbjson.errors import ConnectionFailed, UsageError
from dbjson.url import URL, make_url

ROOT = Path(__file__).resolve().parents[1]

URLS = [
    "mysql://root@127.0.0.1:3306/shop",
    "mysql+pymysql://root@127.0.0.1:3306/",
    "mariadb://u:p@h/db",
    "postgresql://postgres@127.0.0.1/shop",
    "postgres://u:pa%40ss%3Aw%2Fo%25rd%23%3F@db.example.com:5433/my%20db",
    "mysql://u:p@ss@host/db",
    "mysql://u:p:a:ss@host/db",
    "mysql://u:p/ss@host/db",
    "mysql://u:p#x?y@host/db",
    "mysql://u:100%@host/db",
    "mysql://u:%zz%2@host/db",
    "mysql://us%40er:pw@host/db",
    "mysql://:pw@host/db",
    "mysql://u:@host/db",
    "mysql://u@host",
    "mysql://host:3306",
    "mysql://u@[::1]:3306/db",
    "mysql://u@[2001:db8::1]/db",
    "postgresql://u@[fe80::1%25eth0]:5432/db",
    "postgresql:///db",
    "postgresql://",
    "postgresql:///db?host=/var/run/postgresql",
    "postgresql://u@/db?host=h1:5432&host=h2:5433",
    "postgresql://u@h/db?sslmode=verify-full&sslrootcert=/etc/ssl/ca.pem&application_name=dbjson%20test",
    "postgresql://u@h/db?options=-c%20search_path%3Dx",
    "sqlite://",
    "sqlite:///:memory:",
    "sqlite:///relative/file.db",
    "sqlite:////absolute/path/file.db",
    "sqlite:///file:data.db?mode=ro&uri=true",
    "sqlite:///C:\\path\\x.db",
    "sqlite:///with space/and+plus.db",
    "sqlite:///caf%C3%A9.db",
    "sqlite:///ümlaut.db",
    "mysql://u@h/db?charset=utf8mb4&ssl_ca=/etc/ssl/ca.pem&ssl_ca=/x",
    "mysql://u@localhost/db?unix_socket=/run/mysqld/mysqld.sock",
    "mysql://u@h/db?a=1&b=&a=2&c=%2Fpath%2Fto&a=3",
    "mysql://u@h/db?",
    "mysql://u@h/db?x=a+b&y=%2B",
    "mysql://u@h/db/with/slashes",
    "mysql://u@h/db?x=1\nrest",
    "my_sql+dri_ver://u@h/db",
    "MYSQL://U@H/DB",
    "mysql://u p@h q/d b",
]

BAD_URLS = ["nonsense", "://h/db", "mysql:/h/db", "mysql://h:abc/db", "mysql://u@h:/db", "my-sql://h/db", ""]

FIELDS = ("drivername", "username", "password", "host", "port", "database")


def same(ours: URL, ref: Any) -> None:
    """Field by field, the query, and every rendering."""
    for f in FIELDS:
        assert getattr(ours, f) == getattr(ref, f), f
    assert dict(ours.query) == dict(ref.query)
    assert ours.render_as_string(hide_password=True) == ref.render_as_string(hide_password=True)
    assert ours.render_as_string(hide_password=False) == ref.render_as_string(hide_password=False)
    assert str(ours) == str(ref) and repr(ours) == repr(ref)
    assert hash(ours) == hash(ref)
    assert ours.get_backend_name() == ref.get_backend_name()
    assert ours.translate_connect_args(username="user", database="dbname") == ref.translate_connect_args(
        username="user", database="dbname"
    )


@pytest.mark.parametrize("text", URLS)
def test_parser_matches_sqlalchemy(text: str) -> None:
    same(make_url(text), sa_make_url(text))
    same(make_url(text, keep_blank_values=True), sa_make_url(text, keep_blank_values=True))


@pytest.mark.parametrize("text", URLS)
def test_rendering_round_trips(text: str) -> None:
    u = make_url(text)
    again = make_url(u.render_as_string(hide_password=False))
    assert again == u and hash(again) == hash(u)
    if u.password is not None:
        assert ":***@" in str(u) and str(u) == u.render_as_string()


@pytest.mark.parametrize("text", BAD_URLS)
def test_refused_like_sqlalchemy(text: str) -> None:
    with pytest.raises((sa.exc.ArgumentError, ValueError)):
        sa_make_url(text)
    with pytest.raises(UsageError) as e:
        make_url(text)
    assert "abc" not in str(e.value)  # no part of the URL (it may hold a password) in the message


def test_modifications_match_sqlalchemy() -> None:
    text = "postgresql://u:pw@h:5432/db?a=1&a=2&b=x"
    ours, ref = make_url(text), sa_make_url(text)
    same(
        ours.set(password="n@w:/%#?", database="other db", username="new user"),
        ref.set(password="n@w:/%#?", database="other db", username="new user"),
    )
    same(
        ours.set(host="::1", port=6543, drivername="postgresql+psycopg"),
        ref.set(host="::1", port=6543, drivername="postgresql+psycopg"),
    )
    same(ours.set(query={"c": "3", "d": ["4", "5"]}), ref.set(query={"c": "3", "d": ["4", "5"]}))
    same(ours.update_query_dict({"ssl_disabled": "true"}), ref.update_query_dict({"ssl_disabled": "true"}))
    same(ours.update_query_dict({"a": "9"}), ref.update_query_dict({"a": "9"}))
    same(
        ours.update_query_dict({"a": ["8", "9"], "z": "1"}, append=True),
        ref.update_query_dict({"a": ["8", "9"], "z": "1"}, append=True),
    )
    same(ours.update_query_pairs([("b", "y"), ("b", "z")]), ref.update_query_pairs([("b", "y"), ("b", "z")]))
    same(ours.difference_update_query(["a", "nope"]), ref.difference_update_query(["a", "nope"]))
    assert dict(ours.normalized_query) == dict(ref.normalized_query)
    args = (
        "mysql+pymysql",
        "us:er",
        "p@ss/w#rd",
        "db.example.com",
        3307,
        "shop",
        {"ssl_ca": "/ca.pem", "x": ["1", "2"]},
    )
    same(URL.create(*args), sa.engine.URL.create(*args))
    same(URL.create("sqlite"), sa.engine.URL.create("sqlite"))
    # immutable, like SQLAlchemy's
    with pytest.raises(TypeError):
        ours.query["a"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        ours.host = "x"  # type: ignore[misc]
    assert ours == make_url(text) and ours != ours.set(password="other") and ours != text


def test_parse_url_accepts_a_sqlalchemy_url() -> None:
    ref = sa_make_url("mysql+pymysql://us%40er:p%40ss%2Fw%3Ard@[::1]:3307/my%20db?ssl_ca=/ca.pem&x=1&x=2")
    u = parse_url(ref)
    assert isinstance(u, URL)
    same(u, ref)
    with pytest.raises(UsageError, match="unsupported URL scheme"):
        parse_url(sa_make_url("postgresql+psycopg2://u@h/db"))
    back = u.to_sqlalchemy()
    assert isinstance(back, sa.engine.URL) and back == ref


def test_parse_url_errors_hide_the_password() -> None:
    with pytest.raises(UsageError) as e:
        parse_url("mysql://root:s3cr3t@host:notaport/db")
    assert "s3cr3t" not in str(e.value) and "port" in str(e.value)


# -- driver arguments: what SQLAlchemy's dialects build --------------------------------------------


def sa_connect_args(text: str) -> tuple[list[Any], dict[str, Any]]:
    ref = sa_make_url(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pysqlite warns about query options it ignores
        cargs, cparams = sa.create_engine(ref).dialect.create_connect_args(ref)
    return list(cargs), dict(cparams)


@pytest.mark.parametrize(
    "text",
    [
        "mysql+pymysql://root:pw@127.0.0.1:3306/shop",
        "mysql+pymysql://h",
        "mysql+pymysql://u:p%40ss@[::1]:3307/db",
        "mysql+pymysql://u@localhost/db?unix_socket=/run/mysqld/mysqld.sock&read_timeout=30&write_timeout=5",
        "mysql+pymysql://u@h/db?ssl_ca=/ca.pem&ssl_cert=/c.pem&ssl_key=/k.pem&ssl_check_hostname=false",
        "mysql+pymysql://u@h/db?ssl_disabled=true",
        "mysql+pymysql://u@h/db?charset=latin1&connect_timeout=3&local_infile=0&compress=yes&client_flag=2",
    ],
)
def test_mysql_arguments_match_sqlalchemy(text: str) -> None:
    cargs, expected = sa_connect_args(text)
    assert cargs == []
    if "ssl_disabled" in expected:  # SQLAlchemy passes the string on; dbjson reads it as a boolean
        expected["ssl_disabled"] = expected["ssl_disabled"] == "true"
    # dbjson's own settings win over the URL's (as they did through SQLAlchemy's connect_args)
    expected.update(local_infile=True, charset="utf8mb4", connect_timeout=10)
    assert mysql_connect_args(make_url(text)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "postgresql+psycopg://postgres@127.0.0.1:5432/postgres",
        "postgresql+psycopg://",
        "postgresql+psycopg:///db?host=/var/run/postgresql",
        "postgresql+psycopg://u:p%40ss@h/db?sslmode=require&application_name=x%20y",
        "postgresql+psycopg://u@/db?host=h1:5432&host=h2:5433",
        "postgresql+psycopg://u@/db?host=h1,h2&port=5432,5433",
        "postgresql+psycopg://u@/db?host=h1:5555",
        "postgresql+psycopg://u@/db?host=h1,h2",
    ],
)
def test_postgresql_arguments_match_sqlalchemy(text: str) -> None:
    cargs, expected = sa_connect_args(text)
    assert cargs in ([], [""])  # [""]: no arguments at all (the empty conninfo psycopg also defaults to)
    expected.pop("context", None)  # SQLAlchemy's copy of psycopg's global adapters, nothing registered on it
    expected["connect_timeout"] = 10
    assert postgresql_connect_args(make_url(text)) == expected


@pytest.mark.parametrize("query", ["host=h1:1&host=h2:2&port=3", "host=h1,h2,h3&port=1,2", "host=h&port=x"])
def test_postgresql_bad_multihost_refused_like_sqlalchemy(query: str) -> None:
    text = f"postgresql+psycopg://u@/db?{query}"
    with pytest.raises(sa.exc.ArgumentError):
        sa_connect_args(text)
    with pytest.raises(UsageError):
        postgresql_connect_args(make_url(text))


@pytest.mark.parametrize(
    "text",
    [
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:///relative/x.db",
        "sqlite:////absolute/x.db",
        "sqlite:///file:x.db?mode=ro&uri=true",
        "sqlite:///file:mem1?mode=memory&cache=shared&uri=true",
        "sqlite:///x.db?timeout=5&check_same_thread=true&cached_statements=10",
        "sqlite:///x.db?isolation_level=IMMEDIATE&detect_types=1",
        "sqlite:///x.db?mode=ro",
    ],
)
def test_sqlite_arguments_match_sqlalchemy(text: str) -> None:
    cargs, expected = sa_connect_args(text)
    filename, kw = sqlite_connect_args(make_url(text))
    assert [filename] == cargs and kw == expected


def test_sqlite_url_with_a_host_is_refused() -> None:
    with pytest.raises(UsageError, match="SQLite URL"):
        sqlite_connect_args(make_url("sqlite://host/x.db"))


# -- connections through these arguments, on every server ------------------------------------------


def test_postgresql_connections_take_the_url_options() -> None:
    admin = make_url(server_url("postgresql"))
    u = parse_url(
        admin.update_query_dict({"application_name": "dbjson_url_test"}).render_as_string(hide_password=False)
    )
    target = Target(u)
    conn = target.connect_raw()
    try:
        assert conn.execute("SHOW application_name").fetchone()[0] == "dbjson_url_test"
        assert conn.autocommit is False  # as through SQLAlchemy: transactions are explicit
        sockets = conn.execute("SHOW unix_socket_directories").fetchone()[0].split(",")[0].strip()
    finally:
        conn.close()
    from dbjson.engines import get_engine

    load = get_engine("postgresql").load_connect(target)  # the loader's connections: the same arguments
    try:
        assert load.execute("SHOW application_name").fetchone()[0] == "dbjson_url_test"
    finally:
        load.close()
    if not os.path.isdir(sockets):
        pytest.skip(f"the server's socket directory {sockets} is not visible here")
    local = Target(u.set(query={"host": sockets, "application_name": "dbjson_url_test"})._replace(host=None, port=None))
    conn = local.connect_raw()
    try:
        assert conn.info.host == sockets
    finally:
        conn.close()


@pytest.mark.parametrize("engine", ["mysql", "mariadb"])
def test_mysql_connections_take_the_url_options(engine: str) -> None:
    from pymysql.constants import CLIENT

    admin = make_url(server_url(engine))
    target = Target(parse_url(admin.update_query_dict({"read_timeout": "31"}).render_as_string(hide_password=False)))
    conn = target.connect_raw()
    try:
        assert conn._read_timeout == 31
        assert conn.client_flag & CLIENT.FOUND_ROWS  # as SQLAlchemy's dialect sets it
        with conn.cursor() as cur:
            cur.execute("SELECT @@character_set_client, @@socket")
            charset, socket_path = cur.fetchone()
        assert charset == "utf8mb4"
    finally:
        conn.close()
    from dbjson.engines import get_engine

    load = get_engine(engine).load_connect(target)
    try:
        assert load._read_timeout == 31 and load.client_flag & CLIENT.LOCAL_FILES and load.get_autocommit()
    finally:
        load.close()
    if socket_path and not os.path.exists(socket_path):  # MySQL 9 of scripts/mysql-server runs in a chroot
        inside = os.path.join(
            os.environ.get("DBJSON_MYSQL_ROOT", "/var/cache/dbjson-mysql-root"), socket_path.lstrip("/")
        )
        socket_path = inside if os.path.exists(inside) else socket_path
    if not socket_path or not os.path.exists(socket_path):
        pytest.skip(f"the {engine} server's socket {socket_path} is not visible here")
    local = Target(admin.set(host="localhost", query={"unix_socket": socket_path})._replace(port=None))
    conn = local.connect_raw()
    try:
        assert conn.unix_socket == socket_path
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchone() == (1,)
    finally:
        conn.close()


def test_mysql_tls_ca_reaches_the_driver_on_both_paths(tmp_path: Path) -> None:
    u = parse_url(
        make_url(server_url("mariadb"))
        .update_query_dict({"ssl_ca": str(tmp_path / "none.pem")})
        .render_as_string(hide_password=False)
    )
    with pytest.raises(ConnectionFailed, match="none.pem"):
        Target(u).connect_raw()
    from dbjson.engines import get_engine

    with pytest.raises(ConnectionFailed, match="none.pem"):
        get_engine("mariadb").load_connect(Target(u))


def test_sqlite_uri_options(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    with sqlite3.connect(path) as c:
        c.execute("CREATE TABLE t (a int)")
    c.close()
    ro = Target(parse_url(f"sqlite:///file:{path}?mode=ro&uri=true"))
    conn = ro.connect_raw(create=False)
    try:
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("INSERT INTO t VALUES (1)")
    finally:
        conn.close()
    assert not (tmp_path / f"file:{path}").exists() and not Path(f"file:{path}").exists()
    rel = Target(parse_url(f"sqlite:///{os.path.relpath(path)}"))
    conn = rel.connect_raw(create=False)
    try:
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
    finally:
        conn.close()
    with pytest.raises(ConnectionFailed, match="no such SQLite database file"):
        Target(parse_url(f"sqlite:///{tmp_path / 'missing.db'}")).connect_raw(create=False)


# -- start-up: no SQLAlchemy on the command paths ----------------------------------------------------


def imported_modules(*args: str, cwd: Path | None = None) -> set[str]:
    """The modules ``python -X importtime -m dbjson ARGS`` imports (it must succeed)."""
    env = dict(os.environ)
    env.pop("NO_COLOR", None)  # (NO_COLOR makes every command import rich to turn colours off)
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "dbjson", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    mods = {line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
    assert "dbjson.cli" in mods  # the importtime output was read
    return mods


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["--help"],
        ["export", "--help"],
        ["import", "--help"],
        ["verify", "--help"],
        ["schema-dump", "--help"],
        ["schema-load", "--help"],
        ["migrate", "--help"],
        ["diff", "--help"],
    ],
)
def test_commands_start_without_sqlalchemy(args: list[str]) -> None:
    mods = imported_modules(*args)
    assert not {m for m in mods if m.split(".")[0] == "sqlalchemy"}, "a command imports SQLAlchemy again"
    if args == ["--version"]:  # nothing to render: rich (about 30 ms) stays out too
        assert not {m for m in mods if m.split(".")[0] == "rich" or m in ("dbjson.model", "dbjson.export")}


def test_commands_run_without_sqlalchemy(tmp_path: Path) -> None:
    """Real runs on SQLite (reflect, export, import, verify) connect without SQLAlchemy."""
    src = tmp_path / "src.db"
    with sqlite3.connect(src) as c:
        c.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
        c.executemany("INSERT INTO t VALUES (?, ?)", [(i, f"n{i}") for i in range(50)])
    c.close()
    out, dst = tmp_path / "out", tmp_path / "dst.db"
    runs = [
        ["schema-dump", f"sqlite:///{src}", "-o", str(tmp_path / "s.json")],
        ["export", f"sqlite:///{src}", "-o", str(out), "-q"],
        ["import", str(out), f"sqlite:///{dst}", "-q"],
        ["verify", str(out), f"sqlite:///{dst}"],
    ]
    for args in runs:
        mods = imported_modules(*args)
        assert not {m for m in mods if m.split(".")[0] == "sqlalchemy"}, args
        if "-q" in args:  # quiet export and import print nothing: no rich either
            assert not {m for m in mods if m.split(".")[0] == "rich"}, args


def test_import_dbjson_is_light() -> None:
    code = (
        "import sys, dbjson; bad = sorted(m for m in sys.modules if m.split('.')[0] == 'sqlalchemy' "
        "or m in ('dbjson.reflect', 'dbjson.verify', 'dbjson.migrate', 'dbjson.model', 'dbjson.export')); "
        "print(bad)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "[]", (r.stdout, r.stderr)


def test_entry_points_stay_functions_after_their_modules_are_imported() -> None:
    """``dbjson.verify`` (and reflect, validate, migrate) are functions even after ``import
    dbjson.verify``, whichever comes first, in a fresh interpreter."""
    code = """
import types
import dbjson
import dbjson.verify, dbjson.migrate, dbjson.reflect, dbjson.validate
from dbjson.verify import verify as v
from dbjson.migrate import migrate as mg
for name in ("verify", "migrate", "reflect", "validate"):
    assert isinstance(getattr(dbjson, name), types.FunctionType), name
assert dbjson.verify is v and dbjson.migrate is mg
import dbjson.importer, dbjson.export, dbjson.schemadiff, dbjson.ddl
assert isinstance(dbjson.verify, types.FunctionType)
from dbjson import *
assert callable(verify) and callable(migrate) and Database.__name__ == "Database"
assert all(hasattr(dbjson, n) for n in dbjson.__all__) and set(dbjson.__all__) <= set(dir(dbjson))
import sys
assert sys.modules["dbjson.verify"].__name__ == "dbjson.verify"
print("ok")
"""
    first_attr = "import dbjson, types\nassert isinstance(dbjson.verify, types.FunctionType)\n"
    for prog in (code, first_attr + code):
        r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_entry_points_in_this_process() -> None:
    import types

    import dbjson
    import dbjson.verify  # noqa: F401 - the submodule import must not replace the function

    assert isinstance(dbjson.verify, types.FunctionType) and isinstance(dbjson.migrate, types.FunctionType)
    with pytest.raises(AttributeError):
        dbjson.no_such_thing  # noqa: B018
