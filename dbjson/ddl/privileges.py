"""Privileges: the document's object grants (``Database.grants``) and, when asked, its users and
roles (``Database.users``) as statements for the target (the plan's ``privileges``).

Each statement names the roles it needs (``Statement.roles``): the command that applies them
(:func:`dbjson.schemaload.apply_privileges`) skips one whose role does not exist in the target
and reports it. Same engine family: the privileges as they were. Across engines: a privilege the
target has for that kind of object is granted; the others are reported as losses (a MySQL
database-wide grant becomes one grant per table of that database, reported as an approximation).
No password or hash is ever read or written: accounts are created without one (MySQL: locked).

Engines say what they can grant (:meth:`PrivilegeDDL.ddl_privilege_names`) and spell it
(``ddl_grant_sql``, ``ddl_role_key``, ``ddl_create_role``, ``ddl_membership_sql``).
"""

from __future__ import annotations

import re

from .. import model as m
from ..errors import TranslationError
from .context import Context
from .plan import Statement

# ``Grant.object_type`` values an engine may grant on, by family (``ddl_privilege_names``).
_PRIVILEGE = re.compile(r"^[A-Za-z][A-Za-z_ ]{0,63}$")  # SELECT, ALL PRIVILEGES, CREATE TEMPORARY TABLES, BACKUP_ADMIN
OBJECT_TYPES = ("table", "sequence", "schema", "function", "procedure", "type", "domain", "database", "global")


class PrivilegeDDL:
    """The privileges part of the walker (mixed into :class:`~dbjson.ddl.walker.BaseDDL`)."""

    name: str
    family: str

    # -- engine hooks ---------------------------------------------------------------------------
    def ddl_privilege_names(self, object_type: str) -> frozenset[str]:
        """The privileges this engine can grant on an object of ``object_type`` (none: SQLite)."""
        return frozenset()

    def ddl_role_key(self, grantee: str, source_family: str) -> str | None:
        """The target's name for a source grantee (``user@host`` on MySQL, a role on PostgreSQL);
        None when the target has no such grantee (PUBLIC on MySQL)."""
        return None

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
        raise NotImplementedError

    def ddl_create_role(self, ctx: Context, user: m.User, role: str, path: str) -> str | None:
        """The statement creating ``user`` as ``role``, without a password (None: not possible)."""
        return None

    def ddl_membership_sql(self, group: str, member: str) -> str:
        raise NotImplementedError

    # -- the walk --------------------------------------------------------------------------------
    def ddl_privileges(self, ctx: Context) -> list[Statement]:
        """The privilege statements of ``ctx.db``: roles (with ``grants``), memberships, grants.

        ``ctx.options``: ``privileges`` (default True) for the object grants, ``grants`` (default
        False) for the users and roles with their memberships and remaining grants."""
        db = ctx.db
        want_objects = ctx.options.get("privileges", True)
        want_users = bool(ctx.options.get("grants", False))
        out: list[Statement] = []
        todo: list[tuple[m.Grant, str]] = []
        if want_objects:
            todo += [(g, f"/grants/{i}") for i, g in enumerate(db.grants)]
        if want_users:
            seen = {_key(g) for g in db.grants}
            for ui, user in enumerate(db.users):
                role = self.ddl_role_key(_account(user), ctx.source_family)
                path = f"/users/{ui}"
                if role is None:
                    ctx.report.add(path, f"user {_account(user)} has no counterpart in {self.name}", "user-dropped")
                    continue
                sql = self.ddl_create_role(ctx, user, role, path)
                if sql is None:
                    ctx.report.add(
                        path, f"user {_account(user)} not created ({self.name} has no users)", "user-dropped"
                    )
                    continue
                out.append(Statement(sql, "role", role, path=path, roles=(role,)))
                for group in user.member_of:
                    gkey = self.ddl_role_key(group, ctx.source_family)
                    if gkey is not None:
                        out.append(
                            Statement(
                                self.ddl_membership_sql(gkey, role), "membership", role, path=path, roles=(gkey, role)
                            )
                        )
                todo += [(g, f"{path}/grants/{gi}") for gi, g in enumerate(user.grants) if _key(g) not in seen]
        elif db.users:
            ctx.report.add(
                "/users", "users and roles not created (--grants creates them)", "users-skipped", "approximation"
            )
        for grant, path in todo:
            out += self._grant(ctx, grant, path)
        return out

    def _grant(self, ctx: Context, g: m.Grant, path: str) -> list[Statement]:
        what = f"GRANT {', '.join(g.privileges)} ON {g.on} TO {g.grantee}"
        if not self.ddl_privilege_names("table"):
            ctx.report.add(path, f"{what} dropped ({self.name} has no privileges)", "privilege-dropped")
            return []
        if g.object_type is None:
            ctx.report.add(path, f"{what} dropped (the document does not record its object)", "privilege-dropped")
            return []
        for i, priv in enumerate(g.privileges):  # spliced into the GRANT: names only (a document may be crafted)
            if not _PRIVILEGE.match(priv):
                raise TranslationError(
                    f"privilege refused: {priv!r} is not a privilege name",
                    pointer=f"{path}/privileges/{i}",
                    value=priv,
                    hint="the schema document may have been crafted; see 'Untrusted documents' in docs/format.md",
                )
        if g.signature:
            ctx.verbatim(g.signature, f"{path}/signature", "routine signature", lists=True)
        role = self.ddl_role_key(g.grantee, ctx.source_family)
        if role is None:
            ctx.report.add(path, f"{what} dropped ({self.name} has no grantee {g.grantee})", "privilege-dropped")
            return []
        # The objects this grant lands on: (object type, target schema, name, signature).
        kind = g.object_type
        objects: list[tuple[str, str | None, str | None, str | None]]
        if kind == "database":  # the target database has another name, and pg_restore skips them too
            ctx.report.add(
                path, f"{what} not copied (grant database privileges on the target by hand)", "privilege-database",
                "approximation",
            )  # fmt: skip
            return []
        if kind == "table" and g.name is not None and g.schema is not None:
            tschema, tname = ctx.table_names.get((g.schema, g.name), (ctx.schema_names.get(g.schema, g.schema), g.name))
            objects = [("table", tschema, tname, None)]
        elif kind == "schema" and g.schema is not None:
            tschema = ctx.schema_names.get(g.schema, g.schema)
            objects = [("schema", tschema, None, None)]
            on_schema = self.ddl_privilege_names("schema")
            per_table = [p for p in g.privileges if p.upper() not in on_schema]
            if not ctx.same_family and per_table:  # MySQL's SELECT ON db.*: on each table of the database
                tables = [ctx.table_names[(s.name, t.name)] for s, t in ctx.db.tables() if s.name == g.schema]
                objects += [("table", ts, tn, None) for ts, tn in tables]
                ctx.report.add(
                    path,
                    f"{what}: {', '.join(per_table)} granted on each of the database's {len(tables)} table(s) "
                    "(tables created later do not get it)",
                    "privilege-per-table",
                    "approximation",
                )
        elif not ctx.same_family:
            ctx.report.add(path, f"{what} dropped (no {kind} privileges in {self.name})", "privilege-dropped")
            return []
        else:
            schema = ctx.schema_names.get(g.schema, g.schema) if g.schema is not None else None
            objects = [(kind, schema, g.name, g.signature)]
        out: list[Statement] = []
        granted: set[str] = set()
        for otype, schema, name, signature in objects:
            allowed = self.ddl_privilege_names(otype)
            keep = g.privileges if ctx.same_family else tuple(p for p in g.privileges if p.upper() in allowed)
            if otype == "schema" and not ctx.same_family and "USAGE" in allowed and len(objects) > 1:
                keep = tuple(dict.fromkeys((*keep, "USAGE")))  # PostgreSQL: the tables need the schema's USAGE
            granted.update(keep)
            if not keep:
                continue
            sql = self.ddl_grant_sql(otype, schema, name, signature, keep, g.columns, role, g.grantable)
            obj = ".".join(x for x in (schema, name) if x) or otype
            out.append(Statement(sql, "grant", obj, path=path, roles=(role,)))
        lost = [p for p in g.privileges if p not in granted]
        if lost == ["USAGE"] and kind == "schema":  # MySQL needs no USAGE on a database to use its tables
            ctx.report.add(path, f"{what}: USAGE not needed in {self.name}", "privilege-usage", "approximation")
        elif lost:
            ctx.report.add(
                path,
                f"{what}: {', '.join(lost)} not granted ({self.name} has no such privilege on a {kind})",
                "privilege-dropped",
            )
        return out


def _account(user: m.User) -> str:
    return f"{user.name}@{user.host}" if user.host is not None else user.name


def _key(g: m.Grant) -> tuple[object, ...]:
    return (g.on, g.grantee, g.privileges, g.columns, g.grantable)


__all__ = ["PrivilegeDDL", "OBJECT_TYPES"]
