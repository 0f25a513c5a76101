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
from dbjson.schemaload import load_schema

pytestmark = pytest.mark.postgresql


@pytest.fixture
def pg_roles() -> Iterator[tuple[str, str]]:
    """Two cluster-wide NOLOGIN roles with unique names, dropped afterwards. A test names it
    before ``fresh_db``, so that its databases (holding the roles' privileges) are gone by then."""
    tag = uuid.uuid4().hex[:8]
    names = (f"dbjson_p_{tag}_reader", f"dbjson_p_{tag}_ghost")
    with _pg_connect(server_url("postgresql")) as c:
        for n in names:
            c.execute(f'CREATE ROLE "{n}" NOLOGIN')
    yield names
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
    pg_roles: tuple[str, str], fresh_db: Any, tmp_path: Path
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

    # migrate keeps them too (live), and --no-privileges there as well
    dst4, dst5 = fresh_db("postgresql"), fresh_db("postgresql")
    res = CliRunner().invoke(app, ["migrate", src.url, dst4.url, "-q"])
    assert res.exit_code == 0, res.output
    assert _can(dst4, reader, "app.events", "SELECT")
    res = CliRunner().invoke(app, ["migrate", src.url, dst5.url, "-q", "--no-privileges"])
    assert res.exit_code == 0, res.output
    assert not _can(dst5, reader, "app.events", "SELECT")


def test_grants_creates_missing_roles_without_password(pg_roles: tuple[str, str], fresh_db: Any) -> None:
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
    result = load_schema(doc, dst.url, grants=True)
    assert result.privileges == []
    assert _can(dst, ghost, "public.events", "SELECT")
    assert dst.query(f"SELECT rolcanlogin FROM pg_roles WHERE rolname = '{ghost}'") == [(False,)]
    assert dst.query(f"SELECT pg_has_role('{ghost}', '{reader}', 'MEMBER')") == [(True,)]


def test_postgresql_to_mysql_maps_what_mysql_has(pg_roles: tuple[str, str], fresh_db: Any) -> None:
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
    made: list[Any] = []
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
        made.append(target)
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
        for d in made:  # the databases holding the role's privileges (dropped after this)
            d.execute(f'DROP OWNED BY "{account}"')
        pg.execute(f'DROP ROLE IF EXISTS "{account}"')
        pg.close()


def test_a_crafted_grant_is_refused() -> None:
    from dbjson import model as m
    from dbjson.errors import TranslationError

    source = m.Source(engine="postgresql", server_version="15", database="x", dumped_at="2026-01-01T00:00:00Z")
    schema = m.Schema(name="public")
    for grant, pointer in (
        (m.Grant(privileges=("SELECT ON t TO x; DROP TABLE t; --",), on="TABLE public.t", grantee="r",
                 object_type="table", schema="public", name="t"), "/grants/0/privileges/0"),
        (m.Grant(privileges=("EXECUTE",), on="FUNCTION public.f", grantee="r", object_type="function",
                 schema="public", name="f", signature="x int) TO r; DROP TABLE t; --"), "/grants/0/signature"),
    ):  # fmt: skip
        doc = m.Database(source=source, schemas=(schema,), grants=(grant,))
        with pytest.raises(TranslationError) as err:
            dbjson.to_ddl(doc, "postgresql")
        assert err.value.pointer == pointer
    harmless = m.Grant(privileges=("SELECT",), on="TABLE public.t", grantee='r"; DROP TABLE t; --',
                       object_type="table", schema="public", name="t")  # fmt: skip
    sql = (
        dbjson.to_ddl(m.Database(source=source, schemas=(schema,), grants=(harmless,)), "postgresql").privileges[0].sql
    )
    assert sql == 'GRANT SELECT ON TABLE "public"."t" TO "r""; DROP TABLE t; --"'


@pytest.mark.mariadb
def test_grants_creates_a_locked_mariadb_account(fresh_db: Any) -> None:
    account = "dbjson_p_" + uuid.uuid4().hex[:8]
    admin = _mysql_connect(server_url("mariadb"))
    src = fresh_db("mariadb")
    try:
        with admin.cursor() as cur:
            cur.execute(f"CREATE USER '{account}'@'%' IDENTIFIED BY 'Pw-{account}'")
            cur.execute(f"GRANT SELECT ON `{src.name}`.* TO '{account}'@'%'")
        src.execute("CREATE TABLE t (id int PRIMARY KEY)")
        doc = dbjson.reflect(src.url, grants=True)
        doc = dataclasses.replace(doc, users=tuple(u for u in doc.users if u.name == account))
        assert f"Pw-{account}" not in doc.to_json()
        with admin.cursor() as cur:
            cur.execute(f"DROP USER '{account}'@'%'")
        dst = fresh_db("mariadb")
        result = load_schema(doc, dst.url, grants=True)
        assert result.privileges == []
        assert any("created without a password and locked" in i.lost for i in result.plan.report.items)
        with admin.cursor() as cur:
            cur.execute(f"SHOW GRANTS FOR '{account}'@'%'")
            grants = "\n".join(r[0] for r in cur.fetchall())
            cur.execute(f"SHOW CREATE USER '{account}'@'%'")
            created = cur.fetchone()[0]
        assert f"GRANT SELECT ON `{dst.name}`.*" in grants and "ACCOUNT LOCK" in created
        assert "PASSWORD" not in grants.upper().replace("IDENTIFIED", "")
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP USER IF EXISTS '{account}'@'%'")
        admin.close()
