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
                    )
                )
            elif priv.upper() != "USAGE":
                plain.append(priv.upper())
        if plain:
            grants.append(
                m.Grant(privileges=tuple(plain), on=obj, grantee=grantee, grantable=grantable, statement=stmt)
            )
    grants.sort(key=lambda g: (g.on, g.columns, g.privileges))
    return grants, roles
