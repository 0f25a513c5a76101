"""MySQL/MariaDB reflection: the accounts and roles with a grant on ``*.*`` or on a reflected database,
and their grants as ``SHOW GRANTS`` prints them (without any password or authentication string).
"""

from __future__ import annotations

import re
from typing import Any

from ... import model as m
from ...errors import UsageError
from .catalog import decode_text, query
from .sqltext import quote_name

SYSTEM_ACCOUNTS = ("mysql.infoschema", "mysql.session", "mysql.sys", "mariadb.sys")


def read_users(cur: Any, schemas: list[str], mariadb: bool) -> tuple[m.User, ...]:
    """Accounts with a grant on ``*.*`` (beyond USAGE) or on a reflected database; no secrets."""
    if mariadb:  # mysql.user is a view there; the lock flag lives in global_priv's JSON
        sql = (
            "SELECT User AS user, Host AS host, Super_priv AS super, is_role AS is_role,"
            " IF(JSON_VALUE(p.Priv, '$.account_locked') = 'true', 'Y', 'N') AS locked"
            " FROM mysql.user u LEFT JOIN mysql.global_priv p USING (User, Host)"
        )
    else:
        sql = "SELECT User AS user, Host AS host, Super_priv AS super, 'N' AS is_role, account_locked AS locked FROM mysql.user"
    try:
        accounts = query(cur, sql)
    except Exception as e:  # noqa: BLE001 - typically access denied to the mysql schema
        raise UsageError(
            f"cannot read the accounts for --grants: {decode_text(e.args[-1]) if e.args else e}",
            hint="--grants needs SELECT on mysql.user (and mysql.global_priv on MariaDB)",
        ) from None
    users = []
    for a in sorted(accounts, key=lambda a: (a["user"], a["host"])):
        if a["user"] in SYSTEM_ACCOUNTS or not a["user"]:
            continue
        is_role = a["is_role"] == "Y"
        account = quote_name(a["user"]) if is_role else f"{quote_name(a['user'])}@{quote_name(a['host'])}"
        cur.execute(f"SHOW GRANTS FOR {account}")
        statements = [decode_text(row[0]) for row in cur.fetchall()]
        grants, member_of = _parse_grants(statements, schemas)
        if not grants and not member_of:
            continue
        users.append(
            m.User(
                name=a["user"],
                host=None if is_role else a["host"],
                can_login=not is_role and a["locked"] != "Y",
                superuser=a["super"] == "Y",
                member_of=tuple(sorted(member_of)),
                grants=tuple(grants),
            )
        )
    return tuple(users)


_GRANT = re.compile(r"^GRANT (?P<privs>.+?) ON (?P<obj>.+?) TO (?P<grantee>\S+)(?P<rest>.*)$", re.DOTALL)
_ROLE_GRANT = re.compile(r"^GRANT (?P<roles>.+?) TO (?P<grantee>\S+)(?P<rest>.*)$", re.DOTALL)
_IDENTIFIED = re.compile(r"\s+IDENTIFIED\s+.*?(?=\s+WITH\s|\s+REQUIRE\s|$)", re.DOTALL | re.IGNORECASE)


def _unquote_name(text: str) -> str:
    """```db`.`t``` → ``db.t`` (backticks removed, doubled backticks undone)."""
    return re.sub(r"`((?:[^`]|``)*)`", lambda mo: mo.group(1).replace("``", "`"), text)


def _split_privileges(text: str) -> list[str]:
    parts: list[str] = []
    buf: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf).strip())
    return [p for p in parts if p]


def _relevant(obj: str, schemas: list[str]) -> bool:
    if obj in ("*.*", "*"):
        return True
    for kw in ("PROCEDURE ", "FUNCTION ", "TABLE "):
        if obj.upper().startswith(kw):
            obj = obj[len(kw) :]
    return obj.split(".", 1)[0] in schemas


_QUOTED = r"(\*|`(?:[^`]|``)*`|[^`.\s]+)"
_OBJECT = re.compile(rf"^(?:(?P<kind>PROCEDURE|FUNCTION|TABLE)\s+)?{_QUOTED}(?:\.{_QUOTED})?$", re.IGNORECASE)


def _object_fields(raw: str) -> dict[str, Any]:
    """``Grant`` fields of a SHOW GRANTS object: ``*.*`` global, ```db`.*`` schema, ```db`.`t``` table..."""
    mo = _OBJECT.match(raw.strip())
    if mo is None:
        return {}
    kind, first, second = mo.group("kind"), mo.group(2), mo.group(3)
    if second is None:  # ``*`` alone: the default database, not known here
        return {}
    if first == "*":
        return {"object_type": "global"}
    schema = _unquote_name(first)
    if second == "*":
        return {"object_type": "schema", "schema": schema}
    return {"object_type": (kind or "table").lower(), "schema": schema, "name": _unquote_name(second)}


def _parse_grants(statements: list[str], schemas: list[str]) -> tuple[list[m.Grant], list[str]]:
    """SHOW GRANTS lines → grants on ``*.*`` and the reflected databases, plus role memberships.

    ``IDENTIFIED BY PASSWORD '…'`` / ``IDENTIFIED VIA … USING '…'`` (MariaDB) is removed from the
    kept statement text: no password or authentication string ever reaches the document.
    """
    grants: list[m.Grant] = []
    roles: list[str] = []
    for stmt in statements:
        stmt = _IDENTIFIED.sub("", stmt.strip())
        mo = _GRANT.match(stmt)
        if mo is None:
            rm = _ROLE_GRANT.match(stmt)
            if rm is not None:
                roles.extend(_unquote_name(r.strip()) for r in rm.group("roles").split(","))
            continue
        obj = _unquote_name(mo.group("obj").strip())
        fields = _object_fields(mo.group("obj"))
        if mo.group("privs").upper().startswith("PROXY") or not _relevant(obj, schemas):
            continue
        grantee = _unquote_name(mo.group("grantee"))
        grantable = "WITH GRANT OPTION" in mo.group("rest").upper()
        plain: list[str] = []
        for priv in _split_privileges(mo.group("privs")):
            col = re.match(r"^(?P<p>[^(]+?)\s*\((?P<cols>.*)\)$", priv)
            if col is not None:
                cols = tuple(_unquote_name(c.strip()) for c in col.group("cols").split(","))
                grants.append(
                    m.Grant(
                        privileges=(col.group("p").upper(),),
                        on=obj,
                        grantee=grantee,
                        grantable=grantable,
                        statement=stmt,
                        columns=cols,
                        **fields,
                    )
                )
            elif priv.upper() != "USAGE":
                plain.append(priv.upper())
        if plain:
            grants.append(
                m.Grant(privileges=tuple(plain), on=obj, grantee=grantee, grantable=grantable, statement=stmt, **fields)
            )
    grants.sort(key=lambda g: (g.on, g.columns, g.privileges))
    return grants, roles


_GRANTEE = re.compile(r"^'((?:[^']|'')*)'@'((?:[^']|'')*)'$")


def _grantee(text: str) -> str:
    """``'user'@'host'`` (information_schema's spelling) → ``user@host``."""
    mo = _GRANTEE.match(text)
    if mo is None:
        return text
    return mo.group(1).replace("''", "'") + "@" + mo.group(2).replace("''", "'")


def read_object_grants(cur: Any, schemas: list[str], options: Any) -> list[m.Grant]:
    """The privileges on the reflected databases, tables and columns (``Database.grants``), from
    information_schema: every account's for a user who may read the ``mysql`` schema, else the
    connecting user's own. Routine privileges (``mysql.procs_priv``) are not read."""
    if not schemas:
        return []
    marks = ", ".join(["%s"] * len(schemas))
    whole: dict[tuple[Any, ...], list[str]] = {}
    cols: dict[tuple[Any, ...], list[str]] = {}
    for r in query(
        cur,
        "SELECT GRANTEE AS grantee, TABLE_SCHEMA AS db, NULL AS tbl, NULL AS col, PRIVILEGE_TYPE AS priv,"
        " IS_GRANTABLE AS grantable FROM information_schema.SCHEMA_PRIVILEGES"
        f" WHERE TABLE_SCHEMA IN ({marks})"
        " UNION ALL SELECT GRANTEE, TABLE_SCHEMA, TABLE_NAME, NULL, PRIVILEGE_TYPE, IS_GRANTABLE"
        f" FROM information_schema.TABLE_PRIVILEGES WHERE TABLE_SCHEMA IN ({marks})"
        " UNION ALL SELECT GRANTEE, TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, PRIVILEGE_TYPE, IS_GRANTABLE"
        f" FROM information_schema.COLUMN_PRIVILEGES WHERE TABLE_SCHEMA IN ({marks})",
        *(schemas * 3),
    ):
        db, tbl = r["db"], r["tbl"]
        if tbl is not None and not options.wants(db, tbl):
            continue
        key = (db, tbl, _grantee(r["grantee"]), r["grantable"] == "YES")
        if r["col"] is not None:
            cols.setdefault((*key, r["priv"]), []).append(r["col"])
        else:
            whole.setdefault(key, []).append(r["priv"])
    out = [
        _object_grant(db, tbl, who, grantable, tuple(privs), ()) for (db, tbl, who, grantable), privs in whole.items()
    ]
    out += [
        _object_grant(db, tbl, who, grantable, (priv,), tuple(sorted(c)))
        for (db, tbl, who, grantable, priv), c in cols.items()
    ]
    return sorted(out, key=lambda g: (g.grantee, g.on, g.columns, g.privileges, g.grantable))


def _object_grant(
    db: str, table: str | None, grantee: str, grantable: bool, privileges: tuple[str, ...], columns: tuple[str, ...]
) -> m.Grant:
    user, _, host = grantee.rpartition("@")
    target = f"{quote_name(db)}.{quote_name(table) if table is not None else '*'}"
    cols = f" ({', '.join(quote_name(c) for c in columns)})" if columns else ""
    privs = ", ".join(f"{p}{cols}" for p in privileges)
    statement = f"GRANT {privs} ON {target} TO {quote_name(user)}@{quote_name(host)}"
    if grantable:
        statement += " WITH GRANT OPTION"
    return m.Grant(
        privileges=privileges,
        on=f"{db}.{table if table is not None else '*'}",
        grantee=grantee,
        grantable=grantable,
        statement=statement,
        columns=columns,
        object_type="table" if table is not None else "schema",
        schema=db,
        name=table,
    )
