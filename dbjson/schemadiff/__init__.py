"""diff: compare two schemas (documents or live databases) and derive the DDL that turns B into A.

``diff(a, b)`` returns a :class:`SchemaDiff`: one typed :class:`Change` per difference, read as
"what B lacks or has too much of, compared to A" — ``add`` (in A only), ``drop`` (in B only) and
``change`` (a field whose value in B, ``old``, differs from A's, ``new``). ``diff_ddl(d, dialect)``
turns the changes into ordered ALTER/CREATE/DROP statements (:class:`DiffDdl`), rendered by the
engine's own schema-load DDL (``dbjson/ddl``, ``engines/*/ddl.py``); destructive changes (dropping a
table, column, sequence or type; narrowing a column's type) are emitted only with ``allow_drop`` and
otherwise listed in ``DiffDdl.skipped``.

What is noise and never compared: the document's ``source`` (dump time, host, versions), row
estimates, column ordinals, users and grants, and — unless ``include_counters`` — AUTO_INCREMENT /
identity / sequence next values. Objects are matched by name (exactly, else case-insensitively when
that is unambiguous); a document's only schema matches the other side's only schema whatever their
names. Across engine families, columns compare by standard type (``Column.type``) and engine-only
attributes (native types, charsets, collations, ``options``, expression dialects) are not compared.

The package is split as alembic does it: :mod:`.compare` walks the two models into
:class:`Change` records; :mod:`.render` turns them into the statements of one dialect.
"""

from __future__ import annotations

from .compare import Change, SchemaDiff, Source, diff, load_side
from .render import DiffDdl, Skipped, diff_ddl

__all__ = ["diff", "diff_ddl", "load_side", "SchemaDiff", "Change", "DiffDdl", "Skipped", "Source"]
