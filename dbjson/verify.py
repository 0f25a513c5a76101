"""``dbjson verify``: compare a loaded database with the manifest of its export.

For each table: the row count, and the content checksum computed from the *target's* rows
re-encoded canonically under the *source* column kinds (the schema document's types), so a
MySQL → PostgreSQL load verifies even though the drivers hand back different Python values.
The engine's ``verify_select`` reads the rows (PostgreSQL temporal and json columns as text) and
``verify_adapters`` bridge engine differences (MySQL geometry bytes → EWKB, JSON arrays stored as
text...) before :class:`dbjson.format.codec.RowEncoder` builds each canonical line.

Values the load changes by policy (zero dates → NULL on PostgreSQL, ``--nul strip|replace``) are
compared after applying the same rule to the export's lines (``TablePlan.value_rules``, see
:func:`dbjson.preflight.value_rules`): the expected checksum is then computed from the data files.
``dbjson verify`` learns the import's ``--nul`` from the import journal (or its own ``nul``
argument); when neither says, NUL-affected columns are compared in a weaker mode that ignores
U+0000 and U+FFFD on both sides (``nul-unknown``).

Tables whose content was changed on purpose (``--set``, ``--set-sql``, ``--increment``), that
had rows rejected (``--max-errors``) or that held rows before a ``--data-only`` import are checked
by count only (expected = manifest rows − rejected rows + rows that were there before).
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import IO, Any

import orjson

from . import model as m
from .connect import Target, close_quietly, parse_url
from .engines import Engine, get_engine
from .engines.interface import ExportUnit, TablePlan
from .engines.shared.batches import FETCH_BYTES
from .errors import DataError, UsageError, VerifyError
from .events import EventHandler, Finished, Started, TableVerified, Warning
from .format.checksum import Checksum, SemanticLines, format_checksum, line_hash
from .format.codec import RowEncoder
from .format.datafiles import DataFile, block_lines, file_blocks, iter_lines, open_data
from .format.encoders import round_significant
from .format.journal import Journal, journal_path
from .format.linefilter import date_values, has_escape
from .format.manifest import read_export
from .format.storage import ObjectPath, local_state_dir, location
from .importer.options import ImportOptions, default_load_threads, parse_assignments
from .importer.plan import plan_import
from .importer.session import TargetSession, connect_target, target_identity
from .preflight import NUL_POLICIES, NUL_REPLACEMENT, is_infinite_date, is_zero_date, replace_nul


@dataclass
class TableCheck:
    """The verification of one table."""

    table: str
    target: str
    expected_rows: int | None
    rows: int
    expected_checksum: str | None
    checksum: str | None
    # checksum | checksum-semantic (JSON, unconstrained decimals by meaning) | count |
    # checksum-native (a same-engine migrate: both servers' native row text, see native_check)
    mode: str = "checksum"
    rules: dict[str, str] = field(default_factory=dict)  # column → value rule applied (zero-null, nul-strip...)
    # How the target's content was read: "export" (the target's own export path proved it,
    # :func:`exact_check`), "rows" (each row re-encoded in Python, :func:`check_table`), "count".
    path: str = "rows"

    @property
    def ok(self) -> bool:
        if self.expected_rows is not None and self.rows != self.expected_rows:
            return False
        return not (self.mode != "count" and self.expected_checksum and self.checksum != self.expected_checksum)

    def problem(self) -> str | None:
        if self.expected_rows is not None and self.rows != self.expected_rows:
            return f"table {self.table}: {self.rows} rows in the target, the manifest says {self.expected_rows}"
        if not self.ok:
            return (
                f"table {self.table}: content checksum {self.checksum} differs from the manifest's "
                f"{self.expected_checksum} (same row count {self.rows})"
            )
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "target": self.target,
            "rows": self.rows,
            "expected_rows": self.expected_rows,
            "checksum": self.checksum,
            "expected_checksum": self.expected_checksum,
            "mode": self.mode,
            "rules": self.rules,
            "path": self.path,
            "ok": self.ok,
        }


@dataclass
class VerifyReport:
    """Per-table checks; ``ok`` when every table matches."""

    tables: list[TableCheck] = field(default_factory=list)
    seconds: float = 0.0  # the whole check (dbjson verify: connecting and planning included)

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.tables)

    @property
    def problems(self) -> list[str]:
        return [p for t in self.tables if (p := t.problem())]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "tables": [t.to_dict() for t in self.tables],
            "problems": self.problems,
        }


def verify_error(report: VerifyReport) -> VerifyError:
    """The error for a failed verification (every problem listed)."""
    problems = report.problems
    return VerifyError(
        f"verification failed for {len(problems)} table(s): {problems[0]}",
        hint="the target differs from the export; re-import the tables named above",
        problems=problems,
    )


def check_table(
    engine: Engine,
    conn: Any,
    tp: TablePlan,
    rejected: int = 0,
    open_file: Callable[[DataFile], IO[bytes]] | None = None,
    known: dict[str, str] | None = None,
) -> TableCheck:
    """Count and checksum one target table under the source column kinds (``open_file``: see
    :func:`verify_tables`)."""
    expected = None if tp.rows is None else tp.rows - rejected + tp.base_rows
    if _counts_only(tp, rejected):
        rows = engine.load_count(conn, tp.tschema, tp.tname)
        target = f"{tp.tschema}.{tp.tname}" if tp.tschema else tp.tname
        return TableCheck(tp.display, target, expected, rows, tp.checksum, None, mode="count", path="count")
    total = target_checksum(engine, conn, tp)
    return _table_check(tp, expected, total, open_file, known, float_decimals=engine.capabilities.decimals_as_float)


def exact_check(
    engine: Engine,
    target: Target,
    tp: TablePlan,
    rejected: int = 0,
    open_file: Callable[[DataFile], IO[bytes]] | None = None,
    known: dict[str, str] | None = None,
) -> TableCheck | None:
    """The check of ``tp`` by the target's own export path, when it proves the table equal.

    The target's rows are exported exactly as ``dbjson export`` would (the engine's
    ``export_stream``: lines built by the server or by the C speedups, no Python object per value)
    under the *target's* column types and hashed; if the row count and the checksum equal the
    manifest's, the target holds the same canonical lines, so the table is verified. That is the
    usual outcome of a same-engine load. Anything else (a cross-engine load whose types spell
    values differently, a real difference, an engine without an export path, an error) returns
    None and the caller does the full check (:func:`check_table`: re-encoding under the source
    kinds, by-meaning comparison, the report of a mismatch): this path can only confirm, never
    fail a table. Not used for tables that verify cannot compare exactly (renamed columns, the
    ``nul-unknown`` rule, column options, rejected rows, rows that were there before).

    A table with JSON or unconstrained decimal columns (:func:`semantic_line_normalizer`) whose
    exported lines differ in bytes, as after a cross-engine load (jsonb reorders keys, MySQL JSON
    respaces, a fixed scale pads decimals), or under value rules (zero dates loaded as NULL, U+0000
    stripped or replaced), is compared the way the full check compares it: the target's lines in
    their by-meaning form against the export's lines through the rules and the by-meaning form
    (:func:`_expected_line`), in C without a Python object per value. Equal sums prove the table;
    the export's side is kept in ``known`` (table → checksum) for the full check when they differ.
    """
    if not _exact_checkable(tp, rejected) or tp.rows is None:
        return None
    unit_of = _target_table(tp, engine)
    texts = unit_of[2]
    float_decimals = engine.capabilities.decimals_as_float
    semantic = semantic_line_normalizer(tp, float_decimals, json_text=texts)
    expected_line = _expected_line(tp, float_decimals)
    # Under value rules, or across engines with values the target spells its own way (JSON,
    # decimals), the lines cannot match as they are: straight to the by-meaning pass, with the
    # export's side computed meanwhile in a second thread (both sides' C code runs without the
    # interpreter lock) or already known from the load (``tp.expected_semantic``, dbjson migrate).
    cross = any(c.native.engine != engine.name for c, _n, _t in tp.verify_columns)
    first = semantic if tp.value_rules or (cross and semantic is not None) else None
    wanted: list[str | None] = []
    if expected_line is not None and tp.expected_semantic is not None:
        wanted.append(tp.expected_semantic)
    # (the export's side is needed whenever there are value rules, even when the lines are hashed
    # as they are: the rules may change a line, so it runs alongside the target's export too)
    side = (
        _expected_side(tp, expected_line, open_file, wanted)
        if (first is not None or tp.value_rules) and not wanted and expected_line is not None
        else None
    )
    total = _target_sum(engine, target, tp, unit_of, first)
    if side is not None:
        side.join()
    expected = tp.rows - rejected + tp.base_rows
    name = f"{tp.tschema}.{tp.tname}" if tp.tschema else tp.tname
    if total is None or total.rows != expected:
        return None
    if not tp.value_rules and total.hexdigest() == tp.checksum:
        return TableCheck(
            tp.display, name, total.rows, total.rows, tp.checksum, total.hexdigest(), mode="checksum", path="export"
        )
    if expected_line is None:
        return None
    got: Checksum | None = total
    if first is None:  # the lines differ in bytes: both sides by meaning, again side by side
        if not wanted and side is None:
            side = _expected_side(tp, expected_line, open_file, wanted)
        got = _target_sum(engine, target, tp, unit_of, semantic) if semantic is not None else total
        if side is not None:
            side.join()
    want = wanted[0] if wanted else None
    if want is None:  # the export's side failed: the full check reads the files again and reports
        return None
    if known is not None:
        known[tp.display] = want
    if got is None or got.hexdigest() != want:
        return None
    mode = "checksum" if semantic is None else "checksum-semantic"
    return TableCheck(
        tp.display, name, got.rows, got.rows, want, want, mode=mode, rules=dict(tp.value_rules), path="export"
    )


def _exact_checkable(tp: TablePlan, rejected: int) -> bool:
    """Whether :func:`exact_check` can check ``tp`` (see there)."""
    return not (
        _counts_only(tp, rejected)
        or "nul-unknown" in tp.value_rules.values()  # the full check maps the target's values back
        or not tp.checksum
        or tp.rows is None
        or not tp.verify_columns
        or any(c.name != name for c, name, _t in tp.verify_columns)
    )


def _target_table(tp: TablePlan, engine: Engine) -> tuple[m.Table, tuple[str, ...], frozenset[str]]:
    """The table as the target holds it (its column types), its key columns and the json columns
    its export writes as text (the target engine's rule, on its types: the same columns as the
    export's on the same engine, so the lines can match byte for byte), for its export."""
    # Each column under the type whose export spells the source's values as the source did
    # (engine.verify_export_column: a timestamptz kept in a MySQL DATETIME gets its Z back).
    columns = tuple(engine.verify_export_column(c, t) for c, _n, t in tp.verify_columns)
    table = dataclasses.replace(tp.table, name=tp.tname, columns=columns)
    pk = tp.table.primary_key
    keys = tuple(pk.columns) if pk is not None and all(k in {c.name for c in columns} for k in pk.columns) else ()
    # (only where the source's values are JSON too: an array kept in a MariaDB JSON column is
    # compared as the nested array the export wrote)
    texts = frozenset(
        c.name
        for (src, _n, _t), c in zip(tp.verify_columns, columns)
        if src.type.kind == "json" and c.type.kind == "json" and engine.export_json_text(c)
    )
    return table, keys, texts


SPLIT_VERIFY_BYTES = 16 << 20  # a same-engine table whose data files hold this much is checked in key ranges
SPLIT_VERIFY_ROWS = 100_000  # ... or this many rows
RANGES_PER_THREAD = 2


def key_ranges(
    engine: Engine, conn: Any, tp: TablePlan, threads: int, rejected: int = 0
) -> list[tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]] | None:
    """Key ranges covering every row of a big table whose target lines are compared byte for byte
    (same engine, or another engine without by-meaning columns: the lines then match under the
    value rules alone), to check in parallel (the target's export of each range, the checksums
    added: see :func:`verify_tables`), or None.

    The ranges are cut on the *target*: between its smallest and largest value of a one-column
    integer key, the first open below and the last open above, each next range starting where the
    one before ends. So they partition the key space whatever the data or the manifest say, and
    every row of the target is read exactly once (NULL keys cannot occur in a primary key)."""
    if threads < 2 or not engine.capabilities.verify_parts or tp.rows is None:
        return None
    if not _exact_checkable(tp, rejected):
        return None
    size = sum(f.bytes or 0 for f in tp.files)
    if size < SPLIT_VERIFY_BYTES and tp.rows < SPLIT_VERIFY_ROWS:
        return None
    cross = any(c.native.engine != engine.name for c, _n, _t in tp.verify_columns)
    semantic = semantic_line_normalizer(
        tp, engine.capabilities.decimals_as_float, json_text=_target_table(tp, engine)[2]
    )
    if semantic is not None and (cross or tp.value_rules):
        return None  # compared by meaning (another engine spells values its own way): the whole-table check
    key = part_key(engine, tp)
    schema = tp.tschema if tp.tschema is not None else engine.export_current_schema(conn)
    if key is None or schema is None:
        return None
    table, _keys, _texts = _target_table(tp, engine)
    lo, hi = engine.export_key_bounds(conn, schema, table, key, None)
    if lo is None or hi is None:
        return None
    lo, hi = int(lo), int(hi)
    n = min(threads * RANGES_PER_THREAD, hi - lo + 1)
    if n < 2:
        return None
    cuts = sorted({lo + (hi - lo + 1) * i // n for i in range(1, n)})
    edges: list[tuple[Any, ...] | None] = [None, *((c,) for c in cuts), None]
    return list(zip(edges[:-1], edges[1:]))


def range_sum(
    engine: Engine, target: Target, tp: TablePlan, bounds: tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]
) -> Checksum | None:
    """The checksum of the target's rows of ``tp`` in one of its :func:`key_ranges` (None: that
    read failed; the whole-table check then decides and reports)."""
    return _target_sum(engine, target, tp, _target_table(tp, engine), None, bounds)


def ranged_check(tp: TablePlan, sums: Sequence[Checksum | None], want: str | None) -> TableCheck | None:
    """The check of a table read back in :func:`key_ranges` (``sums``, one per range): proven when
    every range was read and together they hold the expected rows and checksum ``want``; None
    otherwise (the whole-table check then decides, and reports a difference)."""
    total = Checksum(algorithm=tp.checksum_algorithm)
    for part in sums:
        if part is None:
            return None
        total.merge(part)
    if want is None or total.rows != tp.rows or total.hexdigest() != want:
        return None
    name = f"{tp.tschema}.{tp.tname}" if tp.tschema else tp.tname
    return TableCheck(tp.display, name, total.rows, total.rows, want, want, rules=dict(tp.value_rules))


def _expected_side(
    tp: TablePlan,
    expected_line: Callable[[bytes], bytes] | None,
    open_file: Callable[[DataFile], IO[bytes]] | None,
    out: list[str | None],
) -> threading.Thread:
    """A started thread appending to ``out`` the export's checksum through ``expected_line``
    (:func:`_files_checksum`), or None when that fails."""

    def run() -> None:
        try:
            out.append(_files_checksum(tp, expected_line, open_file) if expected_line is not None else None)
        except Exception:  # noqa: BLE001 - the full check reads the files again and reports
            out.append(None)

    t = threading.Thread(target=run, name="verify-expected", daemon=True)
    t.start()
    return t


def _target_sum(
    engine: Engine,
    target: Target,
    tp: TablePlan,
    unit_of: tuple[m.Table, tuple[str, ...], frozenset[str]],
    normalize: Callable[[bytes], bytes] | None,
    bounds: tuple[tuple[Any, ...] | None, tuple[Any, ...] | None] = (None, None),
) -> Checksum | None:
    """The checksum of the target's own export of a table (``unit_of``: the table under the target's
    types, its key columns, its json columns written as text), each line through ``normalize`` when
    given; None when that export fails. ``bounds``: only the rows with ``lower <= key < upper``
    (None: unbounded)."""
    table, keys, texts = unit_of
    try:
        conn = engine.export_connect(target)
    except Exception:  # noqa: BLE001 - the full check will connect (and report) its own way
        return None
    total = Checksum(algorithm=tp.checksum_algorithm)
    try:
        engine.export_session(conn)
        engine.export_snapshot(None, [conn], lambda _m: None)
        schema = tp.tschema if tp.tschema is not None else engine.export_current_schema(conn)
        if schema is None:
            return None
        unit = ExportUnit(schema, table, key_columns=keys, lower=bounds[0], upper=bounds[1], json_text=texts)
        for block in engine.export_stream(conn, unit, threading.Event()):
            if normalize is None:
                total.add_block(block)
                continue
            if isinstance(normalize, SemanticLines):
                normalize.add_block(total, block)
                continue
            lines = block.split(b"\n")
            if lines and not lines[-1]:
                lines.pop()
            total.add_lines([normalize(ln) for ln in lines])
    except Exception:  # noqa: BLE001 - e.g. a type the target's export cannot read this way
        return None
    finally:
        close_quietly([conn])
    return total


def native_check(
    engine: Engine,
    target: Target,
    tp: TablePlan,
    rejected: int = 0,
    parts: int = 1,
    seal: dict[str, int] | None = None,
) -> TableCheck | None:
    """The check of a table whose rows a same-engine migrate moved in the engine's native row
    format (``tp.checksum_kind``, the sum of the source's native rows in ``tp.checksum``): the
    target's rows read back in that format on a session set up as the export's
    (``engine.verify_native_checksum``) and summed the same way. Equal counts and sums prove the
    table; anything else returns None and the caller compares the canonical lines of both sides
    (a real difference is then reported as any other; two servers whose output functions spell a
    value differently, as across major versions, are then compared by content). ``parts`` > 1: a
    big table with a one-column integer key is read in that many parts at once (key modulo
    ``parts``, one connection each; the sums add up). ``seal``: filled with what
    ``engine.verify_native_unchanged`` needs to prove later that no row changed since (of the
    whole table, in the snapshot of the first part: a row changed before another part's snapshot
    shows in that part's sum, one changed after it breaks the seal)."""
    if _counts_only(tp, rejected) or not tp.checksum or tp.rows is None:
        return None
    key = part_key(engine, tp) if parts > 1 and tp.rows >= PART_MIN_ROWS else None
    if key is None:
        total = (
            engine.verify_native_checksum(target, tp)
            if seal is None
            else engine.verify_native_checksum(target, tp, seal=seal)
        )
    else:
        sums: list[Any] = [None] * parts

        def read(k: int) -> None:
            if k == 0 and seal is not None:
                sums[k] = engine.verify_native_checksum(target, tp, part=(key, k, parts), seal=seal)
            else:
                sums[k] = engine.verify_native_checksum(target, tp, part=(key, k, parts))

        readers = [threading.Thread(target=read, args=(k,), name="verify-part", daemon=True) for k in range(parts)]
        for t in readers:
            t.start()
        for t in readers:
            t.join()
        total = None
        if all(x is not None for x in sums):
            total = Checksum(algorithm=tp.checksum_algorithm)
            for x in sums:
                total.merge(x)
    expected = tp.rows - rejected + tp.base_rows
    if total is None or total.rows != expected or total.hexdigest() != tp.checksum:
        return None
    name = f"{tp.tschema}.{tp.tname}" if tp.tschema else tp.tname
    return TableCheck(tp.display, name, expected, total.rows, tp.checksum, total.hexdigest(), mode="checksum-native")


def _lines_checksum(tp: TablePlan, open_file: Callable[[DataFile], IO[bytes]]) -> str:
    """The checksum of the canonical lines of ``tp``'s data files (``open_file``), a block at a time."""
    total = Checksum(algorithm=tp.checksum_algorithm)
    for f in tp.files:
        with open_file(f) as fh:
            rest = b""
            while chunk := fh.read(1 << 20):
                data = rest + chunk
                cut = data.rfind(b"\n") + 1
                total.add_block(data[:cut])
                rest = data[cut:]
            if rest:
                total.add_block(rest + b"\n")
    return total.hexdigest()


def _counts_only(tp: TablePlan, rejected: int) -> bool:
    return tp.altered or rejected > 0 or tp.base_rows > 0


def _table_check(
    tp: TablePlan,
    expected_rows: int | None,
    total: Checksum,
    open_file: Callable[[DataFile], IO[bytes]] | None,
    known: dict[str, str] | None = None,
    *,
    float_decimals: bool = False,
) -> TableCheck:
    """The check of ``tp`` from the target's checksum ``total`` (see :func:`target_checksum`) and
    the expected one: the manifest's, or the export's lines through the same rules/normalizer."""
    target = f"{tp.tschema}.{tp.tname}" if tp.tschema else tp.tname
    rules = dict(tp.value_rules)
    semantic = semantic_line_normalizer(tp, float_decimals)
    # Values the load changed by policy (``rules``): the expected checksum comes from the export's
    # lines with the same rules applied. Values whose text the target may legitimately spell
    # differently are compared by meaning (``semantic``): JSON (jsonb and MySQL JSON reorder keys
    # and drop whitespace; text-stored JSON keeps escapes as written) and unconstrained decimals
    # stored with a fixed scale (PostgreSQL/SQLite ``numeric`` → MySQL DECIMAL(65,30): 2.99 reads
    # back as 2.990000…) or as a float (PostgreSQL ``numeric`` → SQLite NUMERIC: 2.70 reads back
    # as 2.7; the report says digits beyond 15 are inexact, and verify then fails). Both: the rules first, then by meaning.
    expected_line = _expected_line(tp, float_decimals)
    if expected_line is None:
        return TableCheck(tp.display, target, expected_rows, total.rows, tp.checksum, total.hexdigest())
    cached = (known or {}).get(tp.display)  # exact_check computed it
    return TableCheck(
        tp.display,
        target,
        expected_rows,
        total.rows,
        cached or _files_checksum(tp, expected_line, open_file),
        total.hexdigest(),
        mode="checksum" if semantic is None else "checksum-semantic",
        rules=rules,
    )


class _Expected:
    """What an export line becomes before it is hashed as the expected side: the value rules the
    load applied (``transform``), then the by-meaning form (``semantic``)."""

    def __init__(
        self, rules: Mapping[str, str], semantic: SemanticLines | None, json_text: frozenset[str] = frozenset()
    ) -> None:
        self.rules = _rules_functions(rules, json_text)
        self.semantic = semantic

    def __call__(self, raw: bytes) -> bytes:
        if self.rules is not None:
            raw = self.rules[1](raw)
        return raw if self.semantic is None else self.semantic(raw)

    def add_block(self, total: Checksum, block: bytes) -> None:
        """Add a block of whole export lines (each ending in a newline)."""
        if self.rules is None or not self.rules[0](block):  # no line to change: one C call
            if self.semantic is not None:
                self.semantic.add_block(total, block)
            else:
                total.add_block(block)
            return
        lines = block.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        self.add_lines(total, lines)

    def add_lines(self, total: Checksum, lines: list[bytes]) -> None:
        """Add a batch of export lines; lines no rule touches are not looked at one by one."""
        if self.rules is not None:
            touched, transform = self.rules
            if touched(b"\n".join(lines)):  # a match across two joined lines only costs this loop
                lines = [transform(ln) for ln in lines]
        if self.semantic is not None:
            self.semantic.add_lines(total, lines)
        else:
            total.add_lines(lines)


def expected_lines(tp: TablePlan, float_decimals: bool = False) -> _Expected | None:
    """What the export's lines of ``tp`` go through before verify sums them as the expected side
    (``add_block(total, block)``), or None when verify compares the lines as they are. A loader
    that sums its lines this way as it loads them (``dbjson migrate``) records the result in
    ``tp.expected_semantic``, so that verify does not read them again."""
    return _expected_line(tp, float_decimals)


def _expected_line(tp: TablePlan, float_decimals: bool = False) -> _Expected | None:
    """The expected side's line function of ``tp``; None when the lines are hashed as they are."""
    semantic = semantic_line_normalizer(tp, float_decimals)
    if not tp.value_rules and semantic is None:
        return None
    return _Expected(tp.value_rules, semantic, tp.json_text)


def target_checksum(engine: Engine, conn: Any, tp: TablePlan, part: tuple[str, int, int] | None = None) -> Checksum:
    """The content checksum of the target's rows of ``tp``: each row re-encoded canonically under
    the source column kinds, then (JSON, unconstrained decimals) in its by-meaning form.

    ``part`` = ``(key column, k, n)``: only the rows whose integer key is ``k`` modulo ``n``
    (the checksum is a sum, so the parts of a table add up to the whole). Lines are hashed a
    batch at a time (one C-level pass, :meth:`dbjson.format.checksum.Checksum.add_lines`)."""
    columns = [c for c, _n, _t in tp.verify_columns]
    adapters = engine.verify_adapters(tp)
    for name, rule in tp.value_rules.items():
        if rule == "nul-unknown":  # the target holds "" or U+FFFD where the export has U+0000
            adapters[name] = _then(adapters.get(name), lambda v: replace_nul(v, "", "\ufffd"))
    line = RowEncoder(columns, adapters, tp.json_text).line  # json written as the export wrote it
    semantic = semantic_line_normalizer(tp, engine.capabilities.decimals_as_float)
    make = line if semantic is None else (lambda row: semantic(line(row)))
    rows = engine.verify_select(conn, tp, part=part)
    total = Checksum(algorithm=tp.checksum_algorithm)
    batch: list[bytes] = []
    size = 0
    for row in rows:
        ln = make(row)
        batch.append(ln)
        size += len(ln)
        if len(batch) >= _HASH_BATCH or size >= FETCH_BYTES:  # bounded by rows and by bytes (multi-MB rows)
            total.add_lines(batch)
            batch, size = [], 0
    total.add_lines(batch)
    return total


_HASH_BATCH = 5000


PART_MIN_ROWS = 20000  # smaller tables are checked in one piece


def part_key(engine: Engine, tp: TablePlan) -> str | None:
    """The target column that splits ``tp`` into parts (a one-column integer primary key, on an
    engine whose ``verify_select`` takes ``part``), or None."""
    pk = tp.table.primary_key
    if not engine.capabilities.verify_parts or pk is None or len(pk.columns) != 1:
        return None
    for c, name, t in tp.verify_columns:
        if c.name == pk.columns[0] and c.type.kind == "integer" and t.kind == "integer":
            return name
    return None


def _check_part(
    engine_name: str, server_version: str, target: Target, plan: bytes, part: tuple[str, int, int]
) -> tuple[int, int]:
    """In a worker process: (rows, checksum value) of one part of a table (:func:`target_checksum`)."""
    engine = get_engine(engine_name, server_version)
    tp = pickle.loads(plan)
    conn = engine.load_connect(target)
    try:
        total = target_checksum(engine, conn, tp, part)
    finally:
        engine.load_disconnect(conn)
    return total.rows, total.value


def semantic_line_normalizer(
    tp: TablePlan, float_decimals: bool = False, json_text: frozenset[str] | None = None
) -> SemanticLines | None:
    """For a table whose values may be spelled differently by the target: a function from a
    canonical line to its by-meaning form (:func:`dbjson.format.jsontext.semantic_line_function`:
    members and JSON object keys sorted, JSON without whitespace, strings minimally escaped, JSON
    numbers and the decimals of unconstrained columns by exact value: ``1.50`` = ``1.5``, ``1E2`` =
    ``100``, ``-0.0`` = ``0``, integers beyond 2^64 kept exactly); None when exact bytes must match.
    One C call per line with the speedup ``_cchecksum``. ``float_decimals``: the target stores
    unconstrained decimals as floats (``capabilities.decimals_as_float``). ``json_text``: the json
    columns the lines write as the JSON string of their text (default: the export's, ``tp.json_text``);
    their documents are compared with the nested ones by meaning."""
    decimals = tuple(
        c.name
        for c, _n, t in tp.verify_columns
        if c.type.kind == "decimal"
        and c.type.scale is None
        and (t.scale is not None or (float_decimals and t.kind == "decimal" and t.precision is None))
    )
    jsons = tuple(c.name for c, _n, _t in tp.verify_columns if c.type.kind == "json")
    # untyped values (SQLite: any storage class) in a target column of a type: the target holds their text
    opaque = tuple(c.name for c, _n, t in tp.verify_columns if c.type.kind == "opaque" and t.kind != "opaque")
    if not decimals and not jsons and not opaque:
        return None
    texts = tp.json_text if json_text is None else json_text
    return SemanticLines(jsons, decimals, tuple(n for n in jsons if n in texts), opaque)


def _then(first: Callable[[Any], Any] | None, then: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return then if first is None else (lambda v: then(first(v)))


def rules_line_transform(
    rules: Mapping[str, str], json_text: frozenset[str] = frozenset()
) -> Callable[[bytes], bytes] | None:
    """A function from an export line to the line the target should give back under ``rules``
    (column → ``zero-null`` | ``nul-strip`` | ``nul-replace`` | ``nul-unknown``); None without rules.
    ``json_text``: the json columns written as the JSON string of their text (a rule applies to
    the document that text holds).

    Lines that no rule touches are returned as they are (a cheap byte test first)."""
    fns = _rules_functions(rules, json_text)
    return None if fns is None else fns[1]


# the offset of a time with time zone's text (10:00:00+02, 10:00:00.5-05:30, 10:00:00Z)
_TIME_OFFSET = re.compile(r"(?:[+-][0-9]{2}(?::?[0-9]{2}){0,2}|Z)$")


def _rules_functions(
    rules: Mapping[str, str], json_text: frozenset[str] = frozenset()
) -> tuple[Callable[[bytes], bool], Callable[[bytes], bytes]] | None:
    """(touched, transform) of :func:`rules_line_transform`: ``touched(text)`` is False for text
    (one line or several) in which no rule can change anything."""
    if not rules:
        return None
    zero = [n for n, r in rules.items() if r == "zero-null"]
    infinite = [n for n, r in rules.items() if r in ("zero-null", "infinity-null")]
    offsets = [n for n, r in rules.items() if r == "offset-drop"]
    doubles = [n for n, r in rules.items() if r == "decimal-double"]
    nuls = {n: r[4:] for n, r in rules.items() if r.startswith("nul-")}
    unknown = "unknown" in nuls.values()
    # (every zero-null column is one: zero ⊆ infinite); a name or a value spelled with \u escapes
    # is not found by the search, so such a line is parsed (linefilter's rule)
    found = date_values(infinite)
    dates = (lambda text: has_escape(text) or found(text)) if infinite else found
    fffd = "\ufffd".encode()

    def touched(line: bytes) -> bool:
        return bool(offsets or doubles or dates(line) or nuls and (b"\\u0000" in line or unknown and fffd in line))

    def transform(line: bytes) -> bytes:
        if not touched(line):
            return line
        obj = orjson.loads(line)
        for name in zero:
            if is_zero_date(obj.get(name)):
                obj[name] = None
        for name in infinite:
            if is_infinite_date(obj.get(name)):
                obj[name] = None
        for name in doubles:
            v = obj.get(name)
            if v is not None:
                r = round_significant(v)
                obj[name] = format(r, "f") if isinstance(r, Decimal) else r
        for name in offsets:
            v = obj.get(name)
            if isinstance(v, str):
                obj[name] = _TIME_OFFSET.sub("", v)
        for name, how in nuls.items():
            v = obj.get(name)
            if v is None:
                continue
            text = name in json_text and type(v) is str
            if text:
                v = orjson.loads(v)  # the document the text holds (a rule changes its strings)
            v = replace_nul(v, NUL_REPLACEMENT.get(how, ""))
            v = replace_nul(v, "", "\ufffd") if how == "unknown" else v
            obj[name] = orjson.dumps(v).decode() if text else v
        return orjson.dumps(obj)

    return touched, transform


def _files_checksum(
    tp: TablePlan, normalize: Callable[[bytes], bytes], open_file: Callable[[DataFile], IO[bytes]] | None = None
) -> str:
    """The checksum of the export's own data files for ``tp``, each line through ``normalize``."""
    if isinstance(normalize, _Expected) and normalize.semantic is None and normalize.rules is not None:
        if tp.checksum and tp.checksum_kind == "lines":
            return _rules_checksum(tp, normalize.rules, open_file)
    total = Checksum(algorithm=tp.checksum_algorithm)
    for f in tp.files:
        with open_file(f) if open_file is not None else open_data(f.path) as fh:
            if isinstance(normalize, (_Expected, SemanticLines)):
                _add_file_blocks(fh, f.rel, normalize, total)
                continue
            for _number, raw in iter_lines(fh, f.rel):
                total.add(normalize(raw))
    return total.hexdigest()


def _rules_checksum(
    tp: TablePlan,
    rules: tuple[Callable[[bytes], bool], Callable[[bytes], bytes]],
    open_file: Callable[[DataFile], IO[bytes]] | None = None,
) -> str:
    """The checksum of ``tp``'s export lines through value rules alone (``rules``: touched,
    transform), from the manifest's checksum of the lines as they are: the checksum is a sum of
    line hashes, so only the lines a rule changes are hashed, before and after (the others add
    what the manifest already counts). The files are read in blocks and a block in which no rule
    can change anything (``touched``: a byte or regular expression search) is not split into
    lines. As the manifest is the reference, a data file changed after the export makes the
    target differ, as it does for a table without rules."""
    assert tp.checksum is not None
    algorithm = tp.checksum_algorithm
    value = int(tp.checksum, 16)
    touched, transform = rules
    for f in tp.files:
        with open_file(f) if open_file is not None else open_data(f.path) as fh:
            for before, block in file_blocks(fh, f.rel):
                if not touched(block):
                    continue
                for _number, raw in block_lines(before, block):
                    new = transform(raw)
                    if new != raw:
                        value += line_hash(new, algorithm) - line_hash(raw, algorithm)
    return format_checksum(value)


def _add_file_blocks(fh: IO[bytes], rel: str, normalize: _Expected | SemanticLines, total: Checksum) -> None:
    """Add a data file's lines through ``normalize`` a block of whole lines at a time (one
    ``add_block`` call each: no Python object per line): the same lines as :func:`iter_lines`
    gives, and the same errors for a truncated file or a line over :func:`max_line_bytes`. A block
    with a carriage return or an empty line (which :func:`iter_lines` drops) goes line by line:
    an empty line is not a JSON object, so ``add_block`` refuses such a block without adding
    anything (a byte search for two newlines would cost more than the by-meaning form's C pass)."""
    for before, block in file_blocks(fh, rel):
        if block[0] != 0x0A and b"\r" not in block:
            try:
                normalize.add_block(total, block)
                continue
            except (ValueError, DataError):
                pass  # an empty line, or a line to report: line by line below
        lines = [raw for _number, raw in block_lines(before, block)]
        if lines:
            normalize.add_lines(total, lines)


def verify_tables(
    engine: Engine,
    conn_for_thread: Callable[[], Any],
    tables: Sequence[TablePlan],
    run_parallel: Callable[[list[tuple[int, Callable[[], None]]]], None],
    rejected: dict[str, int] | None = None,
    on_event: EventHandler | None = None,
    open_file: Callable[[DataFile], IO[bytes]] | None = None,
    pool: Any = None,
    target: Target | None = None,
    threads: int = 1,
) -> VerifyReport:
    """Check every table (in parallel through ``run_parallel``; one connection per thread).

    A big same-engine table is checked in key ranges on ``threads`` threads (:func:`key_ranges`):
    the target's export of each range, the checksums added, must give the manifest's rows and
    checksum; when it does not, the table gets the whole-table check below, which decides and
    reports.

    ``open_file`` reads a data file's lines from elsewhere (``dbjson.migrate``: from the source).
    With ``pool`` (the worker processes, see :meth:`dbjson.importer.session.TargetSession.start_encoders`) and
    ``target``, a large table with a one-column integer key is read and re-encoded in parts
    (key modulo the number of workers), one per worker process and connection, while this
    thread computes the expected checksum: re-encoding in Python then runs on every core.
    A table a same-engine migrate copied in the native row format is read back in ``threads``
    parts at once when it is big (:func:`native_check`).
    """
    report = VerifyReport()
    began = time.monotonic()
    results: dict[str, TableCheck] = {}
    known: dict[str, str] = {}  # table → the export's by-meaning checksum, when exact_check computed it
    workers = int(getattr(pool, "_max_workers", 0) or 0) if target is not None else 0

    def in_parts(tp: TablePlan, rejected_rows: int) -> TableCheck | None:
        key = part_key(engine, tp) if workers > 1 and (tp.rows or 0) >= PART_MIN_ROWS else None
        if key is None or _counts_only(tp, rejected_rows) or tp.value_rules:
            return None
        plan = pickle.dumps(tp)
        futures = [
            pool.submit(_check_part, engine.name, engine.server_version, target, plan, (key, k, workers))
            for k in range(workers)
        ]
        expected = None if tp.rows is None else tp.rows - rejected_rows + tp.base_rows
        total = Checksum(algorithm=tp.checksum_algorithm)
        try:
            check = _table_check(
                tp, expected, total, open_file, known, float_decimals=engine.capabilities.decimals_as_float
            )  # the expected side, meanwhile
        finally:
            for fut in futures:
                rows, value = fut.result()
                total.merge(Checksum(value, rows, total.algorithm))
        check.rows, check.checksum = total.rows, total.hexdigest()
        return check

    rules_sums: dict[str, str | None] = {}  # a ranged table with value rules → the export's side through them

    def rules_job(tp: TablePlan) -> Callable[[], None]:
        def go() -> None:
            expected_line = _expected_line(tp, engine.capabilities.decimals_as_float)
            if tp.expected_semantic is not None:  # summed while loading (dbjson migrate)
                rules_sums[tp.display] = tp.expected_semantic
                return
            try:
                rules_sums[tp.display] = _files_checksum(tp, expected_line, open_file) if expected_line else None
            except Exception:  # noqa: BLE001 - the whole-table check reads the files again and reports
                rules_sums[tp.display] = None

        return go

    def range_job(
        tp: TablePlan,
        sums: list[Checksum | None],
        i: int,
        bounds: tuple[tuple[Any, ...] | None, tuple[Any, ...] | None],
    ) -> Callable[[], None]:
        def go() -> None:
            assert target is not None
            sums[i] = range_sum(engine, target, tp, bounds)

        return go

    def job(tp: TablePlan) -> Callable[[], None]:
        def go() -> None:
            rejected_rows = (rejected or {}).get(tp.display, 0)
            if tp.checksum_kind != "lines":
                native = native_check(engine, target, tp, rejected_rows, parts=threads) if target is not None else None
                if native is not None:
                    results[tp.display] = native
                    if on_event is not None:
                        on_event(TableVerified(tp.display, native.rows, None))
                    return
                # Not proven equal: compare the lines, the source's read again (``open_file``).
                tp.checksum = _lines_checksum(tp, open_file) if open_file is not None else None
                tp.checksum_kind = "lines"
            check = (
                (exact_check(engine, target, tp, rejected_rows, open_file, known) if target is not None else None)
                or in_parts(tp, rejected_rows)
                or check_table(engine, conn_for_thread(), tp, rejected_rows, open_file, known)
            )
            results[tp.display] = check
            if on_event is not None:
                on_event(TableVerified(tp.display, check.rows, check.problem()))

        return go

    def size(tp: TablePlan) -> int:
        return sum(f.bytes or 0 for f in tp.files) or (tp.rows or 0)

    ranged: dict[str, list[Checksum | None]] = {}
    jobs: list[tuple[int, Callable[[], None]]] = []
    for tp in tables:
        ranges = (
            key_ranges(engine, conn_for_thread(), tp, threads, (rejected or {}).get(tp.display, 0))
            if target is not None
            else None
        )
        if ranges is None:
            jobs.append((size(tp), job(tp)))
            continue
        sums: list[Checksum | None] = [None] * len(ranges)
        ranged[tp.display] = sums
        for i, bounds in enumerate(ranges):
            jobs.append((size(tp) // len(ranges), range_job(tp, sums, i, bounds)))
        if tp.value_rules:  # the export's lines through the rules, alongside the ranges
            jobs.append((size(tp) // len(ranges), rules_job(tp)))
    run_parallel(jobs)
    again = []
    for tp in tables:
        sums = ranged.get(tp.display, [])
        if not sums:
            continue
        ranged_ok = ranged_check(tp, sums, rules_sums.get(tp.display) if tp.value_rules else tp.checksum)
        if ranged_ok is not None:
            results[tp.display] = ranged_ok
            if on_event is not None:
                on_event(TableVerified(tp.display, ranged_ok.rows, None))
            continue
        again.append((size(tp), job(tp)))  # the whole-table check decides and reports
    if again:
        run_parallel(again)
    report.tables = [results[tp.display] for tp in tables]
    report.seconds = time.monotonic() - began
    return report


def verify(
    directory: str | os.PathLike[str] | ObjectPath,
    url: str,
    *,
    tables: Sequence[str] = (),
    exclude: Sequence[str] = (),
    threads: int | None = None,
    renames: Any = (),
    nul: str | None = None,
    on_event: EventHandler | None = None,
) -> VerifyReport:
    """Compare the database at ``url`` with the export in ``directory`` (counts and checksums).

    Returns the report (``report.ok``, ``report.problems``); the CLI turns a mismatch into
    :class:`VerifyError`. ``renames`` must repeat the ``--rename`` options of the import. ``nul``
    is the import's ``--nul`` policy; None reads it from the import journal in ``directory`` and,
    when the journal does not say, compares NUL-affected columns ignoring U+0000 and U+FFFD.
    Zero dates on a target without them are compared as NULL (what any successful import loaded).
    """
    if nul is not None and nul not in NUL_POLICIES:
        raise UsageError("--nul must be error, strip or replace")
    started = time.monotonic()
    emit = on_event or (lambda _event: None)
    d = location(directory)
    db, mtables, _export_id = read_export(d)
    # Verifying must not invent a database (an SQLite URL would otherwise create an empty file).
    Target(parse_url(url)).connect_raw(create=False).close()
    target, engine = connect_target(url)
    if nul is None:
        recorded = Journal(journal_path(local_state_dir(d), target_identity(target))).read().done.get("policies", {})
        nul = recorded.get("nul") if recorded.get("nul") in NUL_POLICIES else None
    opts = ImportOptions(
        threads=threads or default_load_threads(),
        tables=tuple(tables),
        exclude=tuple(exclude),
        data_only=True,
        nul=nul,
        renames=parse_assignments(renames, "--rename"),
    )

    session = TargetSession(target, engine, threads=opts.threads, data_only=True)
    try:
        session.start_encoders(sum(f.bytes or 0 for t in mtables for f in t.files))  # big tables in parts
        plan = plan_import(
            db,
            mtables,
            engine,
            opts,
            manifest_file=str(d / "manifest.json"),
            warn=lambda message: emit(Warning(message)),
        )
        checked = [t for t in plan.tables if not t.ddl_only]
        expected = None if any(t.rows is None for t in checked) else sum(t.rows or 0 for t in checked)
        emit(Started("verify", len(checked), expected, opts.threads))
        report = verify_tables(
            engine,
            session.conn,
            checked,
            lambda jobs: session.run_parallel(jobs, opts.threads),
            on_event=on_event,
            pool=session.procs,
            target=target,
            threads=opts.threads,
        )
    finally:
        session.close_all()
    report.seconds = time.monotonic() - started
    emit(Finished(report.ok, sum(t.rows for t in report.tables), report.seconds, report))
    return report


__all__ = [
    "verify",
    "verify_tables",
    "check_table",
    "exact_check",
    "native_check",
    "expected_lines",
    "semantic_line_normalizer",
    "rules_line_transform",
    "verify_error",
    "VerifyReport",
    "TableCheck",
]
