"""schema-load: translate a schema document into DDL for a target engine, and apply it.

``to_ddl(database, target)`` returns a :class:`DdlPlan`: ``pre_data`` (types, sequences, tables
with their primary keys), ``post_data`` (secondary indexes, unique and foreign keys, checks,
triggers, views, routines, identity and sequence restarts) and a :class:`TranslationReport` of
everything dropped or approximated. ``apply_ddl`` runs statements; ``load_schema`` does both for
a live target (``dbjson schema-load --to URL``).
"""

from __future__ import annotations

from typing import Any

from .. import model as m
from ..errors import TranslationError
from .apply import LoadResult, apply_ddl, create_database, load_schema
from .plan import DdlPlan, ReportItem, Statement, TranslationReport


def to_ddl(
    database: m.Database,
    target: Any,
    *,
    server_version: str | None = None,
    strict: bool = False,
    options: dict[str, Any] | None = None,
) -> DdlPlan:
    """Translate ``database`` into DDL for ``target`` (an engine name or an Engine object).

    ``options``: ``schema_map`` ({source schema: target schema}). With ``strict``, any loss
    (report items of severity ``loss``) raises :class:`~dbjson.errors.TranslationError`.
    """
    from ..engines import Engine, get_engine
    from .base import Context

    engine = target if isinstance(target, Engine) else get_engine(str(target), server_version)
    ctx = Context(database, engine, options)
    plan: DdlPlan = engine.ddl_plan(ctx)  # type: ignore[attr-defined]
    if strict and plan.report.losses:
        first = plan.report.losses[0]
        err = TranslationError(
            f"{len(plan.report.losses)} loss(es) translating {database.source.engine} → {engine.name}; first: {first}",
            pointer=first.path,
            hint="drop --strict to accept the losses listed by --report",
        )
        err.report = plan.report  # type: ignore[attr-defined]
        raise err
    return plan


__all__ = [
    "to_ddl",
    "apply_ddl",
    "load_schema",
    "create_database",
    "DdlPlan",
    "Statement",
    "TranslationReport",
    "ReportItem",
    "LoadResult",
]
