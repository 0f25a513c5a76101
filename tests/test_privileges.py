"""Object privileges and roles: kept by import, migrate and schema-load (as pg_restore keeps them),
a missing role reported, --no-privileges, --grants creating roles, mapping across engines."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import _mysql_connect, _pg_connect, server_url
from typer.testing import CliRunner

import dbjson
from dbjson.cli import app
from dbjson.events import Warning as WarningEvent

pytestmark = pytest.mark.postgresql


@pytest.fixture
def pg_roles() -> Iterator[tuple[str, str]]:
    """Two cluster-wide NOLOGIN roles with unique names; afterwards their privileges in every
    database of this test and the roles themselves are dropped."""
    tag = uuid.uuid4().hex[:8]
    names = (f"dbjson_p_{tag}_reader", f"dbjson_p_{tag}_ghost")
    with _pg_connect(server_url("postgresql")) as c:
        for n in names:
            c.execute(f'CREATE ROLE "{n}" NOLOGIN')
    yield names
    with _pg_connect(server_url("postgresql")) as c:
        dbs = [r[0] for r in c.execute("SELECT datname FROM pg_database WHERE datname LIKE 'dbjson_t%'").fetchall()]
    for d in dbs:
        try:
            with _pg_connect(server_url("postgresql"), d) as c:
                for n in names:
                    if c.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (n,)).fetchone():
                        c.execute(f'DROP OWNED BY "{n}"')
        except Exception:  # noqa: BLE001 - a database dropped meanwhile
            pass
    with _pg_connect(server_url("postgresql")) as c:
        for n in names:
            c.execute(f'DROP ROLE IF EXISTS "{n}"')


def _drop_role(src: Any, name: str) -> None:
    src.execute(f'DROP OWNED BY "{name}"')
    with _pg_connect(server_url("postgresql")) as c:
        c.execute(f'DROP ROLE "{name}"')


def _can(db: Any, role: str, table: str, privilege: str) -> bool:
    return bool(db.query(f"SELECT has_table_privilege('{role}', '{table}', '{privilege}')")[0][0])


def test_postgresql_copy_keeps_grants_and_reports_a_missing_role(
    fresh_db: Any, tmp_path: Path, pg_roles: tuple[str, str]
) -> None:
    reader, ghost = pg_roles
    src = fresh_db("postgresql")
    src.execute(f"""
        CREATE SCHEMA app;
        CREATE TABLE app.events (id integer PRIMARY KEY, v text);
        INSERT INTO app.events VALUES (1, 'a'), (2, 'b');
        GRANT USAGE ON SCHEMA app TO "{reader}";
        GRANT SELECT ON app.events TO "{reader}";
        GRANT INSERT, UPDATE (v) ON app.events TO "{ghost}";
    """)
    out = tmp_path / "exp"
    dbjson.export_database(src.url, out)
    _drop_role(src, ghost)  # gone from the cluster before the import: reported, not fatal

    dst = fresh_db("postgresql")
    events: list[Any] = []
    report = dbjson.import_database(out, dst.url, on_event=events.append)
    assert _can(dst, reader, "app.events", "SELECT")
    assert not _can(dst, reader, "app.events", "INSERT")
    assert dst.query(f"SELECT has_schema_privilege('{reader}', 'app', 'USAGE')") == [(True,)]
    warned = [e.message for e in events if isinstance(e, WarningEvent)]
    assert any(ghost in w and "does not exist in the target" in w for w in warned), warned
    assert any(ghost in t for t in report.translation)

    # the CLI: the missing role is printed; --no-privileges applies none
    dst2 = fresh_db("postgresql")
    res = CliRunner().invoke(app, ["import", str(out), dst2.url, "--no-privileges"])
    assert res.exit_code == 0, res.output
    assert not _can(dst2, reader, "app.events", "SELECT")
    dst3 = fresh_db("postgresql")
    res = CliRunner().invoke(app, ["import", str(out), dst3.url])
    assert res.exit_code == 0, res.output
    assert _can(dst3, reader, "app.events", "SELECT")
    assert f"role {ghost} does not exist" in res.output


def test_grants_creates_missing_roles_without_password(fresh_db: Any, pg_roles: tuple[str, str]) -> None:
    reader, ghost = pg_roles
    src = fresh_db("postgresql")
    src.execute(f"""
        CREATE TABLE events (id integer PRIMARY KEY);
        GRANT SELECT ON events TO "{ghost}";
        GRANT "{reader}" TO "{ghost}";
    """)
    doc = dbjson.reflect(src.url, grants=True)
    doc = dataclasses.replace(doc, users=tuple(u for u in doc.users if u.name in (reader, ghost)))
    _drop_role(src, ghost)
    dst = fresh_db("postgresql")
    from dbjson.schemaload import load_schema

    result = load_schema(doc, dst.url, grants=True)
    assert result.privileges == []
    assert _can(dst, ghost, "public.events", "SELECT")
    assert dst.query(f"SELECT rolcanlogin FROM pg_roles WHERE rolname = '{ghost}'") == [(False,)]
    assert dst.query(f"SELECT pg_has_role('{ghost}', '{reader}', 'MEMBER')") == [(True,)]


def test_postgresql_to_mysql_maps_what_mysql_has(fresh_db: Any, pg_roles: tuple[str, str]) -> None:
    reader, _ghost = pg_roles
    src = fresh_db("postgresql")
    src.execute(f"""
        CREATE TABLE events (id integer PRIMARY KEY, v text);
        INSERT INTO events VALUES (1, 'a');
        GRANT SELECT, TRUNCATE ON events TO "{reader}";
    """)
    doc = dbjson.reflect(src.url)
    plan = dbjson.to_ddl(doc, "mariadb")
    assert [s.sql for s in plan.privileges] == [f"GRANT SELECT ON `events` TO `{reader}`@`%`"]
    assert any("TRUNCATE not granted" in i.lost for i in plan.report.losses)
    assert any(i.rule == "privilege-dropped" for i in dbjson.to_ddl(doc, "sqlite").report.losses)

    # a live migrate into MariaDB: granted to the account of that name
    admin = _mysql_connect(server_url("mariadb"))
    with admin.cursor() as cur:
        cur.execute(f"CREATE USER '{reader}'@'%' ACCOUNT LOCK")
    try:
        dst = fresh_db("mariadb")
        report = dbjson.migrate(src.url, dst.url)
        assert any("TRUNCATE" in t for t in report.translation)
        with admin.cursor() as cur:
            cur.execute(f"SHOW GRANTS FOR '{reader}'@'%'")
            grants = [r[0] for r in cur.fetchall()]
        assert any(f"GRANT SELECT ON `{dst.name}`.`events`" in g for g in grants), grants
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{reader}'@'%'")
        admin.close()


@pytest.mark.mariadb
def test_mariadb_copy_keeps_grants_and_maps_them_to_postgresql(fresh_db: Any, tmp_path: Path) -> None:
    account = "dbjson_p_" + uuid.uuid4().hex[:8]
    admin = _mysql_connect(server_url("mariadb"))
    src = fresh_db("mariadb")
    with admin.cursor() as cur:
        cur.execute(f"CREATE USER '{account}'@'%' ACCOUNT LOCK")
    pg = _pg_connect(server_url("postgresql"))
    pg.execute(f'CREATE ROLE "{account}" NOLOGIN')
    try:
        src.execute(f"""
            CREATE TABLE orders (id int PRIMARY KEY, total int);
            CREATE TABLE items (id int PRIMARY KEY);
            GRANT SELECT, INSERT ON `{src.name}`.* TO '{account}'@'%';
            GRANT UPDATE (total) ON `{src.name}`.orders TO '{account}'@'%';
            GRANT DELETE ON `{src.name}`.items TO '{account}'@'%';
        """)
        doc = dbjson.reflect(src.url)
        assert {(g.object_type, g.name, g.privileges, g.columns) for g in doc.grants} == {
            ("schema", None, ("SELECT", "INSERT"), ()),
            ("table", "orders", ("UPDATE",), ("total",)),
            ("table", "items", ("DELETE",), ()),
        }
        out = tmp_path / "exp"
        dbjson.export_database(src.url, out)

        dst = fresh_db("mariadb")
        dbjson.import_database(out, dst.url)
        with admin.cursor() as cur:
            cur.execute(f"SHOW GRANTS FOR '{account}'@'%'")
            grants = "\n".join(r[0] for r in cur.fetchall())
        assert f"GRANT SELECT, INSERT ON `{dst.name}`.*" in grants
        assert f"GRANT UPDATE (`total`) ON `{dst.name}`.`orders`" in grants
        assert f"GRANT DELETE ON `{dst.name}`.`items`" in grants

        # into PostgreSQL: the account's role; the database-wide SELECT, INSERT on each table
        target = fresh_db("postgresql")
        report = dbjson.import_database(out, target.url)
        assert _can(target, account, "public.orders", "SELECT") and _can(target, account, "public.items", "INSERT")
        assert _can(target, account, "public.items", "DELETE") and not _can(target, account, "public.orders", "DELETE")
        assert target.query(f"SELECT has_column_privilege('{account}', 'public.orders', 'total', 'UPDATE')") == [
            (True,)
        ]
        assert any("each of the database's 2 table(s)" in t for t in report.translation)
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{account}'@'%'")
        admin.close()
        for d in [
            r[0] for r in pg.execute("SELECT datname FROM pg_database WHERE datname LIKE 'dbjson_t%'").fetchall()
        ]:
            try:
                with _pg_connect(server_url("postgresql"), d) as c:
                    c.execute(f'DROP OWNED BY "{account}"')
            except Exception:  # noqa: BLE001 - dropped meanwhile
                pass
        pg.execute(f'DROP ROLE IF EXISTS "{account}"')
        pg.close()
