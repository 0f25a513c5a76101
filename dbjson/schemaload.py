"""schema-load, the command: translate a schema document into DDL for a target engine, and apply it.

``to_ddl(database, target)`` returns a :class:`~dbjson.ddl.plan.DdlPlan`: ``pre_data`` (types,
sequences, tables with their primary keys), ``post_data`` (secondary indexes, unique and foreign
keys, checks, triggers, views, routines, identity and sequence restarts) and a
:class:`~dbjson.ddl.plan.TranslationReport` of everything dropped or approximated. ``apply_ddl``
runs statements: in one transaction where the engine has transactional DDL. ``load_schema`` does
both for a live target (``dbjson schema-load --to URL``). This module looks engines up by name or
detects them on a live connection; the translation itself is the ``dbjson.ddl`` kit's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import model as m
from .casts import apply_casts
from .connect import URL, Target, parse_url, scrub
from .ddl.context import Context
from .ddl.plan import DdlPlan, Statement
from .engines import Engine, detect_engine, get_engine
from .errors import ApplyError, ConnectionFailed, TranslationError, UsageError, first_line

# --if-exists of schema-load (the import has one more: truncate)
SCHEMA_LOAD_IF_EXISTS = ("fail", "skip", "replace")
_CREATES = ("table", "type", "collation", "sequence", "view", "schema")


def to_ddl(
    database: m.Database,
    target: Any,
    *,
    server_version: str | None = None,
    strict: bool = False,
    options: dict[str, Any] | None = None,
) -> DdlPlan:
    """Translate ``database`` into DDL for ``target`` (an engine name or an Engine object).

    ``options``: ``schema_map`` ({source schema: target schema}), ``casts`` (type-mapping rules,
    :mod:`dbjson.casts`), ``privileges``, ``grants`` (:mod:`dbjson.ddl.privileges`). With
    ``strict``, any loss (report items of severity ``loss``) raises :class:`~dbjson.errors.TranslationError`.
    """
    engine = target if isinstance(target, Engine) else get_engine(str(target), server_version)
    database, applied = apply_casts(database, (options or {}).get("casts") or ())
    ctx = Context(database, engine, options, source_engine=get_engine(database.source.engine))
    plan: DdlPlan = engine.ddl_plan(ctx)
    for a in applied:  # in the loss report, as every other type decision
        plan.report.add(
            a.path,
            f"{a.column}: {a.was} cast to {a.rule.target_text} (cast rule {a.rule.text!r})",
            "cast",
            "approximation",
        )
    if strict and plan.report.losses:
        first = plan.report.losses[0]
        raise TranslationError(
            f"{len(plan.report.losses)} loss(es) translating {database.source.engine} → {engine.name}; first: {first}",
            pointer=first.path,
            hint="drop --strict to accept the losses listed by --report",
            report=plan.report,
        )
    return plan


@dataclass
class LoadResult:
    """What ``load_schema`` did: the plan, and the statements it ran (or would run)."""

    plan: DdlPlan
    statements: list[Statement] = field(default_factory=list)
    skipped: list[Statement] = field(default_factory=list)  # --if-exists skip
    rejected: list[Statement] = field(default_factory=list)  # optional translations the target refused
    privileges: list[str] = field(default_factory=list)  # what apply_privileges skipped or the target refused


def apply_privileges(conn: Any, engine: Any, statements: Sequence[Statement]) -> list[str]:
    """Run a plan's privilege statements (``DdlPlan.privileges``) on ``conn`` (autocommit), each on
    its own: a role that exists is kept as it is; a grant or membership whose role does not exist
    in the target is skipped; a statement the target refuses is skipped. Returns one line per
    skipped statement (the caller reports them: never fatal, as pg_restore's)."""
    notes: list[str] = []
    existing = engine.load_existing_roles(conn)
    for st in statements:
        if st.kind == "role":
            if existing is not None and st.roles[0] in existing:
                continue  # an existing role or account is left as it is (its password, its options)
        else:
            missing = [r for r in st.roles if existing is not None and r not in existing]
            if missing:
                notes.append(
                    f"{st.path or st.object}: role {missing[0]} does not exist in the target; not applied: {st.sql}"
                )
                continue
        try:
            engine.load_execute_ddl(conn, st.sql)
        except Exception as e:  # noqa: BLE001 - reported, never fatal
            notes.append(f"{st.path or st.object}: the target refused {st.sql} ({first_line(e)})")
            continue
        if st.kind == "role" and existing is not None:
            existing.add(st.roles[0])
    return notes


def _is_transactional(engine: Any) -> bool:
    return bool(engine.table.get("capabilities", {}).get("transactional_ddl"))


def apply_ddl(statements: Sequence[Statement], url_or_conn: Any, engine: Any = None) -> list[tuple[Statement, str]]:
    """Run ``statements`` on a target (URL or raw DBAPI connection), in order.

    PostgreSQL and SQLite run everything in one transaction (all or nothing); MySQL/MariaDB
    commit each statement (DDL is not transactional there), and a failure drops what the earlier
    statements created (``engine.ddl_undo_statements``) before it is raised. A failure raises
    :class:`~dbjson.errors.ApplyError` naming the statement and the object. ``optional``
    statements (cross-engine translations) that the target rejects are skipped: they are
    returned with the server's message, for the translation report.
    """
    own = not hasattr(url_or_conn, "cursor")
    target = Target(parse_url(url_or_conn)) if own else None
    conn = target.connect_raw() if target else url_or_conn
    try:
        if engine is None:
            family = target.family if target else _family_of_conn(conn)
            engine = detect_engine(family, conn)
        elif isinstance(engine, str):
            engine = get_engine(engine)
        return _run(conn, engine, list(statements), target.url.password if target else None)
    finally:
        if own:
            conn.close()


def _family_of_conn(conn: Any) -> str:
    mod = type(conn).__module__
    if mod.startswith("pymysql"):
        return "mysql"
    if mod.startswith("psycopg"):
        return "postgresql"
    return "sqlite"


LOCK_BATCH = 400  # statements per transaction when the whole schema does not fit in one (see _run)


def _lock_table_full(e: BaseException) -> bool:
    """PostgreSQL's 'out of shared memory' (SQLSTATE 53200): one transaction took more locks than
    the server's lock table holds (max_locks_per_transaction × max_connections)."""
    return getattr(e, "sqlstate", None) == "53200" or "out of shared memory" in str(e)


def _run(
    conn: Any,
    engine: Any,
    statements: list[Statement],
    password: str | None,
    strict: bool = False,
    batch: int | None = None,
) -> list[tuple[Statement, str]]:
    """Run ``statements`` (see :func:`apply_ddl`): in one transaction where DDL is transactional.

    When that one transaction overflows PostgreSQL's lock table (a schema of thousands of tables:
    every CREATE holds its locks until commit), it is rolled back (nothing was written) and run
    again committing every ``LOCK_BATCH`` statements. A failure then rolls back the failing batch
    only; the error says how many statements of the earlier batches stay applied."""
    try:
        return _run_batches(conn, engine, statements, password, strict, batch)
    except _LockTableFull:
        return _run_batches(conn, engine, statements, password, strict, LOCK_BATCH)


class _LockTableFull(Exception):
    """The single transaction ran out of lock table slots (rolled back): retry in batches."""


def _run_batches(
    conn: Any, engine: Any, statements: list[Statement], password: str | None, strict: bool, batch: int | None
) -> list[tuple[Statement, str]]:
    transactional = _is_transactional(engine)
    committed = 0  # statements committed by earlier batches (batch mode)
    rejected: list[tuple[Statement, str]] = []
    engine.ddl_session_begin(conn)
    current: Statement | None = None
    created: list[Statement] = []  # what this run made, for the undo on a failure (not transactional)
    try:
        for i, current in enumerate(statements):
            if transactional and batch and i and i % batch == 0:
                engine.ddl_session_commit(conn)
                engine.ddl_session_begin(conn)
                committed = i
            if current.optional:
                problem = _try(conn, engine, current.sql, transactional)
                if problem is not None:
                    if strict:
                        raise TranslationError(
                            f"{current.kind} {current.object} was rejected by the target: {scrub(problem, password)}",
                            pointer=current.path,
                            hint="drop --strict to skip it (it is reported)",
                        )
                    rejected.append((current, scrub(problem, password)))
                else:
                    created.append(current)
                continue
            engine.load_execute_ddl(conn, current.sql)
            created.append(current)
        if transactional:
            engine.ddl_session_commit(conn)
        return rejected
    except Exception as e:  # noqa: BLE001 - every driver error becomes an ApplyError
        if transactional:
            try:
                engine.ddl_session_rollback(conn)
            except Exception:  # noqa: BLE001
                pass
        if isinstance(e, TranslationError):
            raise
        if transactional and batch is None and _lock_table_full(e) and len(statements) > LOCK_BATCH:
            raise _LockTableFull() from None
        assert current is not None
        msg = scrub(first_line(e), password)
        done = "rolled back" if transactional else _undo(conn, engine, created, password)
        if transactional and committed:
            done = (
                f"rolled back to the last commit; the schema was too large for one transaction (the server's lock "
                f"table), so the first {committed} statements were committed in batches of {batch} and stay applied"
            )
        table = current.table if current.table != current.object else None  # no "table t: table t: ..."
        hint = None
        if transactional and _lock_table_full(e):  # PostgreSQL's lock table (SQLSTATE 53200)
            hint = (
                "one transaction holds a lock per table and index: raise max_locks_per_transaction on the server "
                "(restart), or let 'dbjson import' create the tables"
            )
        elif committed:
            hint = "fix the cause and re-run with --if-exists replace (or skip) to complete or replace what was applied"
        raise ApplyError(
            f"{current.kind} {current.object}: {msg} ({done})",
            statement=current.sql,
            obj=current.object,
            table=table,
            hint=hint,
        ) from None


def _undo(conn: Any, engine: Any, created: list[Statement], password: str | None) -> str:
    """Remove what this run created on a target without transactional DDL (MySQL, MariaDB): the
    DROPs of ``engine.ddl_undo_statements``. Returns what the error says about the target."""
    replaced = any(s.kind == "drop" for s in created)
    made = [s for s in created if s.kind != "drop"]
    if not made:
        return "nothing was created" + ("; the objects --if-exists replace dropped stay dropped" if replaced else "")
    failed: list[str] = []
    for st in engine.ddl_undo_statements(made):
        try:
            engine.load_execute_ddl(conn, st.sql)
        except Exception as e:  # noqa: BLE001 - reported: what stays
            failed.append(f"{st.object} ({scrub(first_line(e), password)})")
    tail = "; the objects --if-exists replace dropped stay dropped" if replaced else ""
    if failed:
        return (
            f"undone as far as possible: {len(made)} statement(s) had run; these could not be dropped and stay: "
            + ", ".join(failed)
            + tail
        )
    return f"undone: the objects the {len(made)} statement(s) before it created were dropped{tail}"


def _try(conn: Any, engine: Any, sql: str, transactional: bool) -> str | None:
    """Run one optional statement (inside a savepoint where DDL is transactional)."""
    run = engine.load_execute_ddl
    if transactional:
        run(conn, "SAVEPOINT dbjson_try")
    try:
        run(conn, sql)
    except Exception as e:  # noqa: BLE001 - the target's verdict on a translation
        if transactional:
            run(conn, "ROLLBACK TO SAVEPOINT dbjson_try")
        return first_line(e)
    if transactional:
        run(conn, "RELEASE SAVEPOINT dbjson_try")
    return None


def create_database(url: str | URL, like: m.Database | None = None) -> None:
    """Create the URL's database (MySQL/MariaDB/PostgreSQL) if it does not exist.

    ``like``: the schema document being loaded; when it comes from the same engine, the new
    database gets its defaults (MySQL/MariaDB character set and collation, PostgreSQL encoding,
    LC_COLLATE and LC_CTYPE: the engine's ``ddl_database_options``), else utf8mb4 / the server's.

    A server that cannot be reached or refuses the credentials raises
    :class:`~dbjson.errors.ConnectionFailed`; a refused ``CREATE DATABASE`` (no CREATEDB role
    attribute, no CREATE privilege) raises :class:`~dbjson.errors.ApplyError` naming the database,
    with a hint (:func:`dbjson.errors.hint_for`). A database that exists is not created again, so a
    user without the privilege may still pass ``--create`` for it.
    """
    u = parse_url(url)
    target = Target(u)
    name = u.database
    kind = get_engine(target.family)  # the family's statements; the server's variant once connected
    sql = kind.ddl_create_database_sql(name, "") if name else None
    if sql is None or not name:
        return
    # URL.set(database=None) would keep the database: build the admin URL explicitly
    admin = Target(URL.create(u.drivername, u.username, u.password, u.host, u.port, sql[2], u.query))
    conn = admin.connect_raw()
    kind.ddl_session_autocommit(conn)  # PostgreSQL runs CREATE DATABASE outside a transaction
    defaults = ""
    if like is not None:
        try:
            engine = detect_engine(target.family, conn)
        except Exception:  # noqa: BLE001 - then the new database gets the server's defaults
            engine = None
        if engine is not None and like.source.engine == engine.name:
            defaults = engine.ddl_database_options(like)
    exists, create, _admin_db = kind.ddl_create_database_sql(name, defaults) or sql
    try:
        with conn.cursor() as cur:
            cur.execute(exists, (name,))
            if cur.fetchone() is None:
                cur.execute(create)
    except Exception as e:  # noqa: BLE001 - a refused CREATE DATABASE becomes an ApplyError
        msg = scrub(first_line(e), u.password)
        raise ApplyError(
            f"cannot create database {name!r} on {target.display()}: {msg}", statement=create, obj=name
        ) from None
    finally:
        conn.close()


def load_schema(
    database: m.Database,
    url: str | URL,
    *,
    create: bool = False,
    if_exists: str = "fail",
    dry_run: bool = False,
    strict: bool = False,
    options: dict[str, Any] | None = None,
    privileges: bool = True,
    grants: bool = False,
    casts: Sequence[str] = (),
) -> LoadResult:
    """Translate ``database`` for the target at ``url`` and apply it (``schema-load --to URL``).

    ``privileges``: apply the document's object privileges whose roles exist in the target (the
    others are reported in ``LoadResult.privileges``); ``grants``: create its users and roles first;
    ``casts``: type-mapping rules (:mod:`dbjson.casts`).

    ``if_exists``: ``fail`` (an existing object makes the load fail), ``skip`` (objects that exist
    are left alone, with their indexes and constraints), ``replace`` (drop them first).
    ``dry_run`` connects (to learn the server version and what exists) but changes nothing.
    """
    if if_exists not in SCHEMA_LOAD_IF_EXISTS:
        raise UsageError(f"--if-exists must be one of {', '.join(SCHEMA_LOAD_IF_EXISTS)}, not {if_exists!r}")
    target = Target(parse_url(url))
    if create and not dry_run:
        create_database(target.url, like=database)
    try:
        conn = target.connect_raw()
    except ConnectionFailed:
        if dry_run and create:
            raise ConnectionFailed(f"cannot connect to {target.display()}; --dry-run does not create it") from None
        raise
    try:
        engine: Any = detect_engine(target.family, conn)
        plan = to_ddl(
            database,
            engine,
            strict=strict,
            options={"privileges": privileges, "grants": grants, "casts": tuple(casts), **(options or {})},
        )
        statements = plan.statements
        result = LoadResult(plan)
        if if_exists == "replace":
            statements = engine.ddl_drop_statements(plan) + statements
        elif if_exists == "skip":
            existing = engine.ddl_existing_objects(conn, plan)
            keep: list[Statement] = []
            for s in statements:
                exists = (s.table in existing) if s.table else (s.kind in _CREATES and s.object in existing)
                (result.skipped if exists else keep).append(s)
            statements = keep
        result.statements = statements
        if not dry_run:
            for stmt, problem in _run(conn, engine, statements, target.url.password, strict):
                result.rejected.append(stmt)
                plan.report.add(
                    stmt.path or "/",
                    f"{stmt.kind} {stmt.object} rejected by the target ({problem}); skipped",
                    "trial-execution",
                )
            if plan.privileges:
                engine.ddl_session_autocommit(conn)
                result.privileges = apply_privileges(conn, engine, plan.privileges)
                for note in result.privileges:
                    plan.report.add(note.split(":", 1)[0], note.split(": ", 1)[1], "privilege-skipped", "approximation")
        return result
    finally:
        conn.close()
