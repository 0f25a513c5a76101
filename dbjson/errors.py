"""One error hierarchy for the whole library.

Every error dbjson raises is a :class:`DbjsonError`. Each subclass has an ``exit_code`` that the CLI
uses (documented in docs/cli.md), and the location fields that apply (file, line, table, column,
JSON pointer). Messages never contain passwords: URLs are masked before they reach an error.
"""

from __future__ import annotations

from typing import Any


class DbjsonError(Exception):
    """Base class of every error dbjson raises.

    ``problems`` lists every problem found when there are several (the message names the first; the
    CLI prints the others under it): a document's validation problems, the pre-flight's findings, the
    tables that failed verification. Empty otherwise.
    """

    exit_code = 1
    hint: str | None = None

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        table: str | None = None,
        column: str | None = None,
        value: Any = None,
        pointer: str | None = None,
        hint: str | None = None,
        problems: list[Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.table = table
        self.column = column
        self.value = value
        self.pointer = pointer
        self.problems: list[Any] = problems or []
        if hint is not None:
            self.hint = hint
        elif self.hint is None:  # a server or driver message with a known remedy (see hint_for)
            self.hint = hint_for(message)

    def location(self) -> str:
        parts = []
        if self.file:
            parts.append(f"{self.file}:{self.line}" if self.line else self.file)
        if self.table:
            parts.append(f"table {self.table}")
        if self.column:
            parts.append(f"column {self.column}")
        if self.pointer:
            parts.append(f"at {self.pointer}")
        return ", ".join(parts)

    def __str__(self) -> str:
        loc = self.location()
        text = f"{loc}: {self.message}" if loc else self.message
        if self.value is not None:
            shown = repr(self.value)
            if len(shown) > 80:
                shown = shown[:77] + "..."
            text += f" (value {shown})"
        return text


class UsageError(DbjsonError):
    """Bad arguments: an unknown dialect, a malformed option value, a bad URL, no such export directory."""

    exit_code = 2


class ConnectionFailed(DbjsonError):
    """The server cannot be reached, refused the credentials, or the database does not exist."""

    exit_code = 3


class DocumentError(DbjsonError):
    """A schema document or manifest is malformed or fails validation."""

    exit_code = 4


class TranslationError(DbjsonError):
    """A schema cannot be translated for the target (or ``--strict`` and something would be lost).

    ``report``: with ``--strict``, the whole :class:`~dbjson.ddl.plan.TranslationReport` of the refused
    translation (every loss, not only the first the message names); None otherwise.
    """

    exit_code = 5

    def __init__(self, message: str, *, report: Any = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.report = report  # a TranslationReport (typed Any: the ddl kit is a layer above this module)


class DataError(DbjsonError):
    """Bad row data: a malformed line, a value that does not fit, a truncated or missing file.

    ``fatal``: the unit's data itself is wrong (a truncated file, a checksum that differs, more
    rejected rows than allowed), so loading it again row by row cannot help: the import stops.
    """

    exit_code = 6

    def __init__(self, message: str, *, fatal: bool = False, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.fatal = fatal


class RetriesExhausted(DataError):
    """A transient failure (a lost connection, a server restarting, a lock another session holds,
    a deadlock) outlasted the retry budget of an import or a migrate. Exit code 6, as for every
    error that stops a load midway: what committed is journaled, and ``--resume`` finishes."""

    hint = "run the same command again with --resume once the cause is gone (--retry-budget SECONDS waits longer)"


class VerifyError(DbjsonError):
    """Row counts or checksums in the target differ from the manifest."""

    exit_code = 7


class ApplyError(DbjsonError):
    """A statement failed on the target; names the statement and the object."""

    exit_code = 8

    def __init__(self, message: str, *, statement: str | None = None, obj: str | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.statement = statement
        self.obj = obj


class Cancelled(DbjsonError):
    """The operation was interrupted (Ctrl-C, SIGTERM)."""

    exit_code = 130


class UnsupportedError(DbjsonError):
    """The engine or server version does not support what was asked."""

    exit_code = 9


def first_line(e: BaseException) -> str:
    """The first line of an exception's message (its type's name when it has none): how a server's
    or driver's error is quoted inside a dbjson message."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


# -- hints for common server and driver messages -------------------------------------------------
# (pattern, hint) pairs, first match wins. The patterns are the servers' and drivers' own wording
# (MySQL 9, MariaDB 10.11, PostgreSQL 15, PyMySQL, psycopg 3), matched case-insensitively. The CLI
# shows the hint under the error; library callers find it on ``DbjsonError.hint``.
_HINT_RULES: tuple[tuple[str, str], ...] = (
    # LOAD DATA LOCAL INFILE refused (MySQL 3948, MariaDB 4166, older servers 1148)
    (
        r"local (?:data|infile)|local_infile|\b(?:3948|4166)\b|command is not allowed with this (?:mysql|mariadb) version",
        "the server has LOCAL INFILE disabled: SET GLOBAL local_infile = 1 (or local_infile=1 under [mysqld]); "
        "dbjson then loads with LOAD DATA LOCAL instead of slower multi-row INSERTs",
    ),
    # missing Python drivers
    (r"no module named '?pymysql", "install the MySQL/MariaDB driver: pip install 'PyMySQL[rsa]'"),
    (
        r"cryptography.{0,20} is required",
        "MySQL 8+/9 accounts (caching_sha2_password) need RSA support: pip install 'PyMySQL[rsa]'",
    ),
    (
        r"no module named '?psycopg2",
        "dbjson uses psycopg 3, not psycopg2: write postgresql:// and pip install 'psycopg[binary]'",
    ),
    (r"no module named '?psycopg", "install the PostgreSQL driver: pip install 'psycopg[binary]'"),
    (
        r"no module named '?(?:mysqldb|mysql\.connector|mariadb)",
        "dbjson uses PyMySQL: write mysql:// (or mysql+pymysql://) instead of another driver's scheme",
    ),
    # privileges: MySQL/MariaDB
    (
        r"access denied for user \S+ to database",
        "the user has no privileges on this database: GRANT ALL ON <db>.* TO <user> (a dump needs SELECT and "
        "SHOW VIEW, an import CREATE, ALTER, INDEX, INSERT, DROP, REFERENCES), or use --create as a user who may",
    ),
    (
        r"(\w+) command denied to user",
        "the user lacks a privilege named in the message: GRANT it on the database or table (e.g. GRANT SELECT, "
        "SHOW VIEW ON <db>.* TO <user> for schema-dump and export)",
    ),
    (
        r"you need \(at least one of\) the (\S+) privilege",
        "the operation needs the global privilege named in the message (GRANT ... ON *.* TO <user>), or run as "
        "an administrator",
    ),
    # privileges: PostgreSQL
    (
        r"permission denied to create database",
        "the role may not create databases: ALTER ROLE <user> CREATEDB, or create the database as its owner first",
    ),
    (
        r"permission denied for schema",
        "the role may not create objects in this schema: GRANT CREATE, USAGE ON SCHEMA <schema> TO <user>, "
        "or connect as the schema's owner",
    ),
    (
        r"permission denied for (?:table|relation|sequence|view)",
        "the role may not read or write this table: GRANT SELECT ON ALL TABLES IN SCHEMA <schema> TO <user> "
        "(export, verify), INSERT/TRUNCATE for import, or connect as the owner",
    ),
    (
        r"permission denied for database",
        "the role may not connect to or create in this database: GRANT CONNECT, CREATE ON DATABASE <db> TO <user>",
    ),
    (
        r"because other objects depend on it",
        "an object outside this import (a table, view or column the document does not define) uses it: "
        "import --if-exists replace drops only what the document defines and never cascades; drop or "
        "alter that object first, or import into another schema or database",
    ),
    (r"must be owner of", "only the object's owner (or a superuser) may alter or drop it: connect as the owner"),
    # files: a directory where a file is wanted, or the wrong directory
    (
        r"cannot read: is a directory",
        "give the schema document itself: an export directory holds it as DIR/schema.json",
    ),
    (
        r"missing from the export directory|not an export directory",
        "give the directory that dbjson export -o DIR wrote (schema.json, manifest.json and data/); an "
        "interrupted export has no manifest.json yet: run the export again",
    ),
    # unknown database / role
    (
        r"unknown database|database \S+ does not exist",
        "check the database name, or create it first: schema-load --create or import --create",
    ),
    (r"role \S+ does not exist", "no such PostgreSQL role: check the user name in the URL (postgresql://USER@host/db)"),
    # credentials, reachability
    (
        r"access denied for user|password authentication failed|authentication failed|no password supplied",
        "check the user name and password (DBJSON_PASSWORD can supply the password)",
    ),
    (
        r"connection refused|can't connect|could not connect|timed out|name or service not known|could not translate host",
        "is the server running and reachable at this host and port?",
    ),
)


def hint_for(message: str) -> str | None:
    """A hint for a common mistake recognised in a server or driver message, or ``None``.

    Covers LOCAL INFILE disabled on the server, a missing or wrong driver, missing privileges (MySQL,
    MariaDB and PostgreSQL wording), an unknown database or role, bad credentials and an unreachable
    server.
    """
    import re

    for pattern, hint in _HINT_RULES:
        if re.search(pattern, message, re.IGNORECASE):
            return hint
    return None
