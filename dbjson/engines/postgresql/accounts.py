"""PostgreSQL reflection: roles (without ``pg_*`` system roles, never passwords) and the privileges
granted on the reflected objects, as GRANT statements.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ... import model as m
from .assemble import pg_options
from .catalog import Q_ACLS, Q_ROLES, Catalog, Row, fetch

_PRIVILEGE_ORDER = (
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "TRUNCATE",
    "REFERENCES",
    "TRIGGER",
    "USAGE",
    "CREATE",
    "EXECUTE",
    "TEMPORARY",
    "CONNECT",
)


def read_users(conn: Any, cat: Catalog, options: Any) -> tuple[tuple[m.User, ...], list[m.Grant]]:
    """Roles (without ``pg_*`` system roles, never passwords) and their privileges on reflected objects."""
    nsp_names = {r["oid"]: r["name"] for r in cat.schemas}
    grants: dict[str | None, list[m.Grant]] = defaultdict(list)
    for g in _grants(fetch(conn, Q_ACLS, {"nsp": list(nsp_names)}), nsp_names, options):
        grants[g.grantee if g.grantee != "PUBLIC" else None].append(g)
    users = []
    for r in fetch(conn, Q_ROLES):
        users.append(
            m.User(
                name=r["name"],
                can_login=r["login"],
                superuser=r["superuser"],
                member_of=tuple(r["member_of"]),
                grants=tuple(grants.get(r["name"], ())),
                options=pg_options(
                    {
                        "createdb": r["createdb"],
                        "createrole": r["createrole"],
                        "replication": r["replication"],
                        "bypassrls": r["bypassrls"],
                        "noinherit": not r["inherit"],
                        "connection_limit": r["connlimit"] if r["connlimit"] != -1 else None,
                        "valid_until": r["valid_until"],
                        "config": r["config"],
                        "comment": r["comment"],
                    }
                ),
            )
        )
    return tuple(users), grants.get(None, [])


def read_object_grants(conn: Any, cat: Catalog, options: Any) -> list[m.Grant]:
    """The privileges on the reflected objects (``Database.grants``): not the owner's own, not the
    database's (pg_restore applies those only with --create), not a schema's initial ones (initdb's
    ``USAGE ON SCHEMA public TO PUBLIC``), not to ``pg_*`` system roles."""
    nsp_names = {r["oid"]: r["name"] for r in cat.schemas}
    rows = [
        r
        for r in fetch(conn, Q_ACLS, {"nsp": list(nsp_names)})
        if r["grantee"] != r["owner"]
        and r["objtype"] != "DATABASE"
        and not r["initial"]
        and not (r["grantee"] or "").startswith("pg_")
    ]
    return _grants(rows, nsp_names, options)


def _grants(rows: list[Row], nsp_names: dict[int, str], options: Any) -> list[m.Grant]:
    """Group exploded ACL items into GRANT statements (one per object, grantee, grant option)."""
    whole: dict[tuple[Any, ...], set[str]] = defaultdict(set)
    columns: dict[tuple[Any, ...], list[str]] = defaultdict(list)
    for r in rows:
        schema = nsp_names.get(r["nsp"])  # None for the database
        if r["objtype"] == "TABLE" and not options.wants(schema, r["name"]):
            continue
        grantee = r["grantee"] or "PUBLIC"
        obj = (r["objtype"], schema, r["name"], r["signature"])
        if r["column_name"] is not None:
            columns[(obj, grantee, r["grantable"], r["privilege"])].append(r["column_name"])
        else:
            whole[(obj, grantee, r["grantable"])].add(r["privilege"])
    out = [_grant(obj, grantee, grantable, _ordered(privs), ()) for (obj, grantee, grantable), privs in whole.items()]
    out += [
        _grant(obj, grantee, grantable, (priv,), tuple(sorted(cols)))
        for (obj, grantee, grantable, priv), cols in columns.items()
    ]
    return sorted(out, key=lambda g: (g.grantee, g.on, g.columns, g.privileges, g.grantable))


def _ordered(privileges: set[str]) -> tuple[str, ...]:
    return tuple(sorted(privileges, key=lambda p: (_PRIVILEGE_ORDER.index(p) if p in _PRIVILEGE_ORDER else 99, p)))


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _grant(
    obj: tuple[Any, ...], grantee: str, grantable: bool, privileges: tuple[str, ...], columns: tuple[str, ...]
) -> m.Grant:
    objtype, schema, name, signature = obj
    if objtype in ("SCHEMA", "DATABASE"):
        on, target = f"{objtype} {name}", f"{objtype} {_quote(name)}"
    else:
        args = f"({signature})" if signature is not None else ""
        on = f"{objtype} {schema}.{name}{args}"
        target = f"{objtype} {_quote(schema)}.{_quote(name)}{args}"
    cols = f" ({', '.join(_quote(c) for c in columns)})" if columns else ""
    who = "PUBLIC" if grantee == "PUBLIC" else _quote(grantee)
    statement = f"GRANT {', '.join(privileges)}{cols} ON {target} TO {who}"
    if grantable:
        statement += " WITH GRANT OPTION"
    return m.Grant(
        privileges=privileges,
        on=on,
        grantee=grantee,
        grantable=grantable,
        statement=statement,
        columns=columns,
        object_type=objtype.lower(),
        schema=name if objtype == "SCHEMA" else schema,
        name=None if objtype in ("SCHEMA", "DATABASE") else name,
        signature=signature,
    )
