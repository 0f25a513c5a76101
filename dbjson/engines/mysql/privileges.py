"""MySQL/MariaDB privileges: what can be granted on what, GRANT and CREATE USER/ROLE statements (the
hooks of :mod:`dbjson.ddl.privileges`). Accounts are created without a password and locked: none
is ever copied, and an account without one would let anybody in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import model as m
from ...ddl.context import Context

_TABLE = frozenset(
    {"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "REFERENCES", "INDEX", "ALTER", "CREATE VIEW",
     "SHOW VIEW", "TRIGGER"}
)  # fmt: skip
_PRIVILEGES = {
    "table": _TABLE,
    "schema": _TABLE
    | {"CREATE TEMPORARY TABLES", "LOCK TABLES", "EXECUTE", "CREATE ROUTINE", "ALTER ROUTINE", "EVENT"},
    "function": frozenset({"EXECUTE", "ALTER ROUTINE"}),
    "procedure": frozenset({"EXECUTE", "ALTER ROUTINE"}),
}


class MySQLPrivileges:
    """MySQL's privilege hooks (a base of :class:`~.ddl.MySQLDDL`)."""

    if TYPE_CHECKING:
        name: str

        def quote(self, ident: str) -> str: ...
        def qualify(self, schema: str | None, name: str) -> str: ...

    def ddl_privilege_names(self, object_type: str) -> frozenset[str]:
        return _PRIVILEGES.get(object_type, frozenset())

    def ddl_role_key(self, grantee: str, source_family: str) -> str | None:
        if grantee == "PUBLIC":
            return None
        if source_family != "mysql":
            return f"{grantee}@%"  # a PostgreSQL role: the account of that name from any host
        return grantee

    def _account(self, role: str) -> str:
        user, at, host = role.rpartition("@")
        return f"{self.quote(user)}@{self.quote(host)}" if at and host else self.quote(role.rstrip("@"))

    def ddl_grant_sql(
        self,
        object_type: str,
        schema: str | None,
        name: str | None,
        signature: str | None,
        privileges: tuple[str, ...],
        columns: tuple[str, ...],
        role: str,
        grantable: bool,
    ) -> str:
        if object_type == "global":
            target = "*.*"
        elif object_type in ("schema", "database"):
            target = f"{self.quote(schema)}.*" if schema else "*"  # '*': the connection's database
        else:
            target = self.qualify(schema, name or "")
            if object_type in ("function", "procedure"):
                target = f"{object_type.upper()} {target}"
        cols = f" ({', '.join(self.quote(c) for c in columns)})" if columns else ""
        privs = ", ".join(p + cols for p in privileges)
        return f"GRANT {privs} ON {target} TO {self._account(role)}" + (" WITH GRANT OPTION" if grantable else "")

    def ddl_create_role(self, ctx: Context, user: m.User, role: str, path: str) -> str | None:
        if user.superuser:
            ctx.report.add(path, f"account {role}: superuser privileges not given", "role-attribute", "approximation")
        if ctx.source_family == "mysql" and user.host is None:  # a MariaDB role
            return f"CREATE ROLE {self._account(role)}"
        ctx.report.add(
            path,
            f"account {role} created without a password and locked (none is ever copied): "
            "ALTER USER ... IDENTIFIED BY ... ACCOUNT UNLOCK to let it log in",
            "role-password",
            "approximation",
        )
        return f"CREATE USER {self._account(role)} ACCOUNT LOCK"

    def ddl_membership_sql(self, group: str, member: str) -> str:
        return f"GRANT {self._account(group)} TO {self._account(member)}"
