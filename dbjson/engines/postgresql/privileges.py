"""PostgreSQL privileges: what can be granted on what, GRANT and CREATE ROLE statements (the hooks
of :mod:`dbjson.ddl.privileges`). Roles are created without a password: none is ever copied."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import model as m
from ...ddl.context import Context

_PRIVILEGES = {
    "table": frozenset({"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"}),
    "sequence": frozenset({"USAGE", "SELECT", "UPDATE"}),
    "schema": frozenset({"USAGE", "CREATE"}),
    "function": frozenset({"EXECUTE"}),
    "procedure": frozenset({"EXECUTE"}),
    "type": frozenset({"USAGE"}),
    "domain": frozenset({"USAGE"}),
}


class PostgreSQLPrivileges:
    """PostgreSQL's privilege hooks (mixed into the engine class with :class:`PostgreSQLDDL`)."""

    if TYPE_CHECKING:

        def quote(self, ident: str) -> str: ...
        def qualify(self, schema: str | None, name: str) -> str: ...

    def ddl_privilege_names(self, object_type: str) -> frozenset[str]:
        return _PRIVILEGES.get(object_type, frozenset())

    def ddl_role_key(self, grantee: str, source_family: str) -> str | None:
        if source_family == "mysql" and "@" in grantee:
            return grantee.rpartition("@")[0]  # an account user@host: the role of that user name
        return grantee

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
        if object_type == "schema":
            target = f"SCHEMA {self.quote(schema or 'public')}"
        elif object_type in ("function", "procedure"):
            target = f"{object_type.upper()} {self.qualify(schema, name or '')}({signature or ''})"
        else:
            target = f"{object_type.upper()} {self.qualify(schema, name or '')}"
        cols = f" ({', '.join(self.quote(c) for c in columns)})" if columns else ""
        who = "PUBLIC" if role == "PUBLIC" else self.quote(role)
        return f"GRANT {', '.join(privileges)}{cols} ON {target} TO {who}" + (" WITH GRANT OPTION" if grantable else "")

    def ddl_create_role(self, ctx: Context, user: m.User, role: str, path: str) -> str | None:
        opts = user.options.get("postgresql", {}) if ctx.source_family == "postgresql" else {}
        parts = ["LOGIN" if user.can_login else "NOLOGIN"]
        parts += [flag.upper() for flag in ("createdb", "createrole") if opts.get(flag)]
        if opts.get("noinherit"):
            parts.append("NOINHERIT")
        if isinstance(opts.get("connection_limit"), int):
            parts.append(f"CONNECTION LIMIT {int(opts['connection_limit'])}")
        dropped = [
            f
            for f in ("superuser", "replication", "bypassrls")
            if (user.superuser if f == "superuser" else opts.get(f))
        ]
        if dropped:
            ctx.report.add(
                path,
                f"role {role}: {', '.join(dropped).upper()} not given (grant it by hand)",
                "role-attribute",
                "approximation",
            )
        if user.can_login:
            ctx.report.add(
                path,
                f"role {role} created without a password (none is ever copied): ALTER ROLE ... PASSWORD to let it log in",
                "role-password",
                "approximation",
            )
        return f"CREATE ROLE {self.quote(role)} {' '.join(parts)}"

    def ddl_membership_sql(self, group: str, member: str) -> str:
        return f"GRANT {self.quote(group)} TO {self.quote(member)}"
