"""The DDL translation kit: a schema document (:mod:`dbjson.model`) → DDL for one target engine.

Engine-neutral and imports no engine registry: the engines' ``ddl.py`` mixins subclass
:class:`~dbjson.ddl.walker.BaseDDL`, and the caller hands a :class:`~dbjson.ddl.context.Context`
the engine objects it needs. Modules: ``plan`` (the result: :class:`DdlPlan`, :class:`Statement`,
:class:`TranslationReport`), ``context`` (the state of one translation, naming), ``walker`` (the
walk in a fixed order), ``tableinfo``, ``columns``, ``constraints`` and ``alter`` (its parts),
``order`` (table and view dependency order), ``types`` (the type rules of ``dialects/*.toml``)
and ``expr`` (guarded expression translation with sqlglot). The commands that look engines up and
apply DDL are in :mod:`dbjson.schemaload`.
"""

from __future__ import annotations

from .plan import DdlPlan, ReportItem, Statement, TranslationReport

__all__ = ["DdlPlan", "Statement", "TranslationReport", "ReportItem"]
