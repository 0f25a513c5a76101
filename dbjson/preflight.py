"""Cross-engine pre-flight: values of the export that the target cannot hold, found before loading.

Runs after the pre-data DDL (so the target's real column collations are known), while the units
load, and before any row is committed (the importer's ``_PreflightGate``). Only columns whose
source and target types *could* disagree are scanned, so a same-engine import reads nothing:

* integers outside the target integer's range (MySQL ``BIGINT UNSIGNED`` into a signed type...);
* MySQL elapsed times (negative, or 24 hours and more) for a target whose ``time`` is a time of day;
* zero dates (``0000-00-00``) for a target that cannot hold them: a warning under
  ``--zero-dates null`` (they load as NULL), an error under ``--zero-dates error``, and always an
  error when the target column is NOT NULL (the NULL could not load);
* NUL characters (U+0000) in text (and in the strings of jsonb values) for a target that cannot
  hold them (PostgreSQL): an error under ``--nul error`` (the default), a warning under
  ``--nul strip`` (removed) or ``--nul replace`` (U+FFFD);
* text in a date or timestamp column of a source engine that keeps dates as text (SQLite) that is
  not a date (``'2007-08-04- 00:00:00.000'``), for another engine: an error (MySQL would load it
  changed, PostgreSQL refuse it); into the same engine it loads as it is;
* strings longer than the target column (characters for char/varchar, bytes for text tiers) and
  binary values longer than the target's bytes;
* unique keys (primary key, unique constraints, unique indexes) whose values collide under the
  target column's collation when that collation is case- or accent-insensitive (MySQL ``_ci``,
  ``_ai_ci``; PostgreSQL non-deterministic collations; SQLite ``NOCASE``): values are compared
  through a normalising key (casefold, NFKD without combining marks, trailing spaces for PAD SPACE
  collations).

Each finding names the table, the column and an example value (with file and line).

:func:`value_rules` says which columns the load changes on purpose (zero dates → NULL, NUL
characters stripped or replaced); the verification applies the same rules to the export's lines
(:mod:`dbjson.verify`), so such tables are still compared by content.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import orjson

from . import model as m
from . import speedups
from .format.datafiles import DataFile, block_lines, file_blocks, iter_lines, open_data
from .format.decoders import is_date_text, is_zero_date_text
from .format.encoders import DOUBLE_DIGITS, significant_digits
from .format.linefilter import LineFilter, spelled_one_way

if TYPE_CHECKING:
    from .engines import Engine
    from .engines.interface import TablePlan

MAX_FINDINGS_PER_COLUMN = 1
# The value policies of import, verify and migrate (``--zero-dates``, ``--nul``): what happens to
# values a target cannot hold.
ZERO_DATES = ("null", "error")
NUL_POLICIES = ("error", "strip", "replace")
NUL_REPLACEMENT = {"strip": "", "replace": "\ufffd"}
# Kinds whose values are strings (or lists of strings) that a NUL-less target stores as text.
_NUL_KINDS = ("char", "varchar", "text", "enum", "set", "xml", "opaque")


@dataclass
class Finding:
    """One problem found by the pre-flight."""

    severity: str  # error | warning
    table: str
    column: str
    problem: str
    example: Any
    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = (
            f" ({self.file}:{self.line})"
            if self.file and self.line is not None
            else f" ({self.file})"
            if self.file
            else ""
        )
        return f"table {self.table}, column {self.column}: {self.problem}; example {self.example!r}{where}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "table": self.table,
            "column": self.column,
            "problem": self.problem,
            "example": self.example,
            "file": self.file,
            "line": self.line,
        }


def _int_range(t: m.Type) -> tuple[int, int] | None:
    if t.kind == "boolean":
        return (0, 1)
    if t.kind != "integer" or not t.bits:
        return None
    if t.unsigned:
        return (0, (1 << t.bits) - 1)
    return (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1)


def is_zero_date(v: Any) -> bool:
    """Whether an encoded date/timestamp value is a MySQL zero date (year, month or day zero)."""
    return isinstance(v, str) and len(v) >= 10 and is_zero_date_text(v)


def may_be_infinite(col: m.Column) -> bool:
    """Whether a date/timestamp column can hold 'infinity': one read from PostgreSQL (or of unknown
    origin). Only those get the pre-flight check, so that other imports into MySQL scan nothing more."""
    return col.type.kind in ("date", "timestamp") and (col.native is None or col.native.engine == "postgresql")


def is_infinite_date(v: Any) -> bool:
    """Whether an encoded date/timestamp value is PostgreSQL's ``infinity`` or ``-infinity``."""
    return isinstance(v, str) and v in ("infinity", "-infinity")


def has_nul(v: Any) -> bool:
    """Whether a decoded JSON value holds U+0000 in a string (or an object key), at any depth."""
    if isinstance(v, str):
        return "\x00" in v
    if isinstance(v, list):
        return any(map(has_nul, v))
    if isinstance(v, dict):
        return any(has_nul(k) or has_nul(x) for k, x in v.items())
    return False


def replace_nul(v: Any, by: str, char: str = "\x00") -> Any:
    """``v`` with every ``char`` (U+0000) in its strings (and object keys) replaced by ``by``, at any depth."""
    if isinstance(v, str):
        return v.replace(char, by) if char in v else v
    if isinstance(v, list):
        return [replace_nul(x, by, char) for x in v]
    if isinstance(v, dict):
        return {replace_nul(k, by, char): replace_nul(x, by, char) for k, x in v.items()}
    return v


def holds_nul(engine: Engine) -> bool:
    """Whether the target engine's text (and json) columns can hold U+0000."""
    return engine.capabilities.text_holds_nul


# a timestamp's text with a numeric UTC offset (the row encoding writes ``Z`` for none)
_OFFSET = re.compile(r"T\d{2}:\d{2}(?::\d{2})?(?:\.\d*)?[+-]\d{2}(?::?\d{2}){0,2}$")


def _source_dates_as_text(src: m.Column, engine: Engine) -> bool:
    """Whether ``src`` comes from another engine that keeps dates as text (SQLite), so that its
    date and timestamp columns may hold any text (into the same engine it loads as it is)."""
    if src.native.engine == engine.name:
        return False
    from .engines import get_engine  # the registry imports every engine package: only when asked

    try:
        return get_engine(src.native.engine).capabilities.dates_as_text
    except Exception:  # noqa: BLE001 - an engine this version does not know: no such rule
        return False


def _source_elapsed_time(src: m.Column) -> bool:
    """Whether ``src``'s engine keeps elapsed times (MySQL TIME: negative, 24 hours and more) in
    a time column."""
    from .engines import get_engine  # the registry imports every engine package: only when asked

    try:
        return get_engine(src.native.engine).capabilities.elapsed_time
    except Exception:  # noqa: BLE001 - an engine this version does not know: no such rule
        return False


def holds_zero_dates(engine: Engine) -> bool:
    """Whether the target engine keeps zero dates (MySQL/MariaDB natively, SQLite as text)."""
    return engine.capabilities.holds_zero_dates


def nul_sensitive(engine: Engine, src: m.Type, tgt: m.Type) -> bool:
    """Whether values of a ``src`` column loaded into ``tgt`` on ``engine`` must not hold U+0000."""
    if holds_nul(engine):
        return False
    if src.kind == "json" or tgt.kind == "json":
        return tgt.kind != "json" or tgt.binary  # PostgreSQL json keeps the text (\u0000 included)
    return src.kind in _NUL_KINDS


def decimal_as_double(engine: Engine, src: m.Type, tgt: m.Type) -> bool:
    """Whether an unconstrained decimal column is stored as a double on this target (SQLite's NUMERIC
    affinity keeps 15 significant digits): values with more are a pre-flight warning, and verify
    compares the column at 15 digits (value rule ``decimal-double``)."""
    return (
        engine.capabilities.decimals_as_float
        and src.kind == "decimal"
        and src.scale is None
        and tgt.kind == "decimal"
        and tgt.precision is None
    )


def value_rules(engine: Engine, columns: list[tuple[m.Column, str, m.Type]], nul: str | None) -> dict[str, str]:
    """Source column name → how the load changes its values on purpose on this target.

    ``zero-null``: zero dates load as NULL (a target without zero dates; under ``--zero-dates error``
    an import with zero dates stops before loading, so the rule holds for every loaded table);
    ``infinity-null``: PostgreSQL's infinite dates load as NULL on a target without them
    (:func:`is_infinite_date`; ``zero-null`` nulls them too): added by the import only for the
    columns whose pre-flight found such values (a standing rule would keep every PostgreSQL date
    column from the export proof);
    ``nul-strip`` / ``nul-replace``: U+0000 removed / replaced by U+FFFD (``--nul``);
    ``nul-unknown``: either of the two (``dbjson verify`` of an import whose policy is not known);
    ``offset-drop``: a ``time with time zone`` keeps its local time, without the offset;
    ``decimal-double``: an unconstrained decimal kept as a double (:func:`decimal_as_double`). Under ``--nul error`` nothing with a NUL loads, so no rule is needed.
    """
    rules: dict[str, str] = {}
    for col, _name, tgt in columns:
        st = col.type
        if st.kind in ("date", "timestamp") and st.allows_zero and not holds_zero_dates(engine):
            rules[col.name] = "zero-null"  # (and infinite dates, where the target has none either)
        elif decimal_as_double(engine, st, tgt):
            rules[col.name] = "decimal-double"  # more than 15 digits: compared at a double's precision
        elif (
            st.kind == "time"
            and st.with_timezone
            and tgt.kind == "time"
            and not tgt.with_timezone
            and not engine.capabilities.dates_as_text  # SQLite keeps the text, offset and all
        ):
            rules[col.name] = "offset-drop"  # time with time zone kept as its local time (timetz-time)
        elif nul != "error" and nul_sensitive(engine, st, tgt):
            rules[col.name] = f"nul-{nul}" if nul in NUL_REPLACEMENT else "nul-unknown"
    return rules


def fold_key(collation: str) -> Callable[[str], str]:
    """The normalising comparison key of a case/accent-insensitive collation."""
    low = collation.lower()
    accents = "_as_" not in low and "_as" != low[-3:]
    pad = "0900" not in low and "nopad" not in low and "nocase" not in low

    def key(v: str) -> str:
        s = v.casefold()
        if accents:
            s = "".join(ch for ch in unicodedata.normalize("NFKD", s) if not unicodedata.combining(ch))
        return s.rstrip(" ") if pad else s

    return key


def is_insensitive(collation: str | None) -> bool:
    if not collation:
        return False
    low = collation.lower()
    return low.endswith("_ci") or "_ci_" in low or "_ai" in low or "nocase" in low


Check = Callable[[Any], str | None]
# What every value failing a check satisfies, engine-neutral (a source engine turns it into SQL,
# ``preflight_condition``): ("int_outside", lo, hi) | ("zero_date",) | ("infinite_date",) | ("nul",) | ("elapsed_time",) |
# ("chars_over", characters) | ("bytes_over", UTF-8 bytes) | ("binary_over", bytes) | ("digits_over", digits).
Condition = tuple[Any, ...]


def _column_checks(
    engine: Engine, src: m.Column, tgt: m.Type, zero_dates: str, nul: str = "error", not_null: bool = False
) -> list[tuple[str, Check]]:
    """(severity, check) pairs for one column; a check returns the problem text or None.

    ``not_null``: the target column is NOT NULL (a zero date that would load as NULL cannot load).
    """
    return [(sev, check) for sev, check, _cond in column_rules(engine, src, tgt, zero_dates, nul, not_null)]


def column_rules(
    engine: Engine, src: m.Column, tgt: m.Type, zero_dates: str, nul: str = "error", not_null: bool = False
) -> list[tuple[str, Check, Condition]]:
    """(severity, check, condition) triples for one column: the checks of :func:`_column_checks`, each
    with the engine-neutral :data:`Condition` that every value failing it satisfies (what a source
    server filters on, :func:`source_filter`)."""
    out: list[tuple[str, Check, Condition]] = []
    st = src.type
    rng = _int_range(tgt)
    stored = engine.capabilities.integer_limit  # what the engine stores, whatever the type says
    if rng is not None and stored is not None:
        rng = (max(rng[0], stored[0]), min(rng[1], stored[1]))
    if (
        st.kind == "integer"
        and rng is not None
        and (_int_range(st) is None or not (rng[0] <= _int_range(st)[0] and _int_range(st)[1] <= rng[1]))  # type: ignore[index]
    ):
        lo, hi = rng

        def int_check(v: Any) -> str | None:
            try:
                n = int(v)
            except (TypeError, ValueError):
                return None
            return None if lo <= n <= hi else f"{n} is outside the target type's range {lo}..{hi}"

        out.append(("error", int_check, ("int_outside", lo, hi)))
    if st.kind in ("date", "timestamp") and _source_dates_as_text(src, engine):
        msg_bad = (
            f"not a date: the source engine stores this {st.kind} column as text and this value is not a {st.kind}; "
            "the target would refuse or change it (fix the value in the source, or exclude the table)"
        )
        out.append(("error", lambda v: msg_bad if type(v) is str and not is_date_text(v) else None, ("not_date_text",)))
    if st.kind == "timestamp" and not st.with_timezone and _source_dates_as_text(src, engine):
        msg_off = (
            "a UTC offset in a timestamp column without time zone: the target would shift the time to UTC, drop "
            "the offset or refuse the row (fix the value in the source, or exclude the table)"
        )
        out.append(("error", lambda v: msg_off if type(v) is str and _OFFSET.search(v) else None, ("date_offset",)))
    if st.kind in ("date", "timestamp") and st.allows_zero and not holds_zero_dates(engine):
        if not_null:
            sev, msg = (
                "error",
                (
                    "zero date: the target cannot hold it, and the target column is NOT NULL so it cannot "
                    "load as NULL either (exclude the table, or load it with --data-only into a nullable column)"
                ),
            )
        elif zero_dates == "error":
            sev, msg = "error", "zero date: the target cannot hold it (--zero-dates error)"
        else:
            sev, msg = "warning", "zero date: the target cannot hold it; it loads as NULL (--zero-dates null)"
        out.append((sev, lambda v: msg if is_zero_date(v) else None, ("zero_date",)))
    if may_be_infinite(src) and not engine.capabilities.holds_infinite_dates:
        if not_null:
            sev, msg = (
                "error",
                (
                    "infinite date ('infinity'): the target cannot hold it, and the target column is NOT NULL "
                    "so it cannot load as NULL either (exclude the table, or change the value in the source)"
                ),
            )
        elif zero_dates == "error":
            sev, msg = "error", "infinite date ('infinity'): the target cannot hold it (--zero-dates error)"
        else:
            sev, msg = (
                "warning",
                "infinite date ('infinity'): the target cannot hold it; it loads as NULL (--zero-dates null)",
            )
        out.append((sev, lambda v: msg if is_infinite_date(v) else None, ("infinite_date",)))
    if decimal_as_double(engine, st, tgt):
        msg_digits = (
            f"more than {DOUBLE_DIGITS} significant digits: the target stores this unconstrained decimal as a"
            f" double, so it keeps the first {DOUBLE_DIGITS} (as the numeric item of the report says)"
        )
        out.append(
            (
                "warning",
                lambda v: msg_digits if v is not None and significant_digits(v) > DOUBLE_DIGITS else None,
                ("digits_over", DOUBLE_DIGITS),
            )
        )
    if nul_sensitive(engine, st, tgt):
        if nul == "error":
            out.append(
                (
                    "error",
                    lambda v: (
                        "a NUL character (U+0000): the target cannot hold it "
                        "(--nul strip removes it, --nul replace writes U+FFFD)"
                        if has_nul(v)
                        else None
                    ),
                    ("nul",),
                )
            )
        else:
            done = "removed" if nul == "strip" else "replaced by U+FFFD"
            out.append(
                ("warning", lambda v: f"NUL characters (U+0000) {done} (--nul {nul})" if has_nul(v) else None, ("nul",))
            )
    if st.kind == "time" and tgt.kind == "time" and _source_elapsed_time(src) and not engine.capabilities.elapsed_time:
        out.append(
            (
                "error",
                lambda v: (
                    "an elapsed time outside 00:00:00..23:59:59 (MySQL TIME); the target's time cannot hold it"
                    if isinstance(v, str)
                    and (v.startswith("-") or v[:3].rstrip(":").isdigit() and int(v.split(":")[0]) > 23)
                    else None
                ),
                ("elapsed_time",),
            )
        )
    if st.kind in ("char", "varchar", "text", "enum") and tgt.kind in ("char", "varchar") and tgt.length:
        limit = tgt.length
        if st.kind == "text" or not st.length or st.length > limit:
            out.append(
                (
                    "error",
                    lambda v: (
                        f"{len(v)} characters, the target column holds {limit}"
                        if isinstance(v, str) and len(v) > limit
                        else None
                    ),
                    ("chars_over", limit),
                )
            )
    if (
        st.kind in ("char", "varchar", "text")
        and tgt.kind == "text"
        and tgt.max_bytes
        and (st.kind != "text" or not st.max_bytes or st.max_bytes > tgt.max_bytes)
    ):
        tier: int = tgt.max_bytes
        out.append(
            (
                "error",
                lambda v: (
                    f"{len(v.encode())} bytes, the target column holds {tier}"
                    if isinstance(v, str) and len(v) * 4 > tier and len(v.encode()) > tier
                    else None
                ),
                ("bytes_over", tier),
            )
        )
    if st.kind in ("binary", "varbinary", "blob") and tgt.kind in ("binary", "varbinary", "blob"):
        cap = tgt.length if tgt.kind != "blob" else tgt.max_bytes
        src_cap = st.length if st.kind != "blob" else st.max_bytes
        if cap and (not src_cap or src_cap > cap):
            out.append(
                (
                    "error",
                    lambda v: (
                        f"{len(v) * 3 // 4}+ bytes, the target column holds {cap}"
                        if isinstance(v, str) and (len(v) * 3 // 4 - v.count("=")) > cap
                        else None
                    ),
                    ("binary_over", cap),
                )
            )
    return out


def _unique_keys(t: m.Table) -> list[tuple[str, tuple[str, ...]]]:
    keys: list[tuple[str, tuple[str, ...]]] = []
    if t.primary_key and t.primary_key.columns:
        keys.append((t.primary_key.name or "PRIMARY", t.primary_key.columns))
    keys += [(u.name, u.columns) for u in t.uniques]
    keys += [
        (ix.name, tuple(p.column for p in ix.parts if p.column))
        for ix in t.indexes
        if ix.unique and all(p.column and not p.length for p in ix.parts) and not ix.where
    ]
    return keys


def preflight(
    engine: Engine,
    conn: Any,
    tables: list[TablePlan],
    *,
    zero_dates: str = "null",
    nul: str = "error",
    open_file: Callable[[DataFile], IO[bytes]] | None = None,
) -> list[Finding]:
    """Scan the export for values the target cannot hold (see the module docstring).

    ``open_file`` reads a data file's lines from elsewhere (``dbjson.migrate``: from the source).
    """
    findings: list[Finding] = []
    for tp in tables:
        if tp.skipped:
            continue
        checks, conditions, uniques = _table_checks(engine, conn, tp, zero_dates, nul)
        if not checks and not uniques:
            continue
        # the lines worth parsing: those a byte test cannot clear (every line for unique keys)
        sieve = None if uniques else line_filter(conditions)
        seen_cols: set[str] = set()  # unique keys already reported
        seen_checks: set[tuple[str, int]] = set()  # (column, check) already reported
        seen_keys: dict[str, dict[tuple[Any, ...], Any]] = {name: {} for name, _cols, _fold in uniques}
        # Only NUL checks (one per column, the one nul_sensitive adds): a file without the escape
        # \u0000 (JSON's only spelling of U+0000) has nothing to find, and is not parsed.
        nul_cols = {c.name for c, t in zip(tp.columns, tp.target_types) if nul_sensitive(engine, c.type, t)}
        nul_only = not uniques and all(col in nul_cols and len(cs) == 1 for col, cs in checks.items())
        for f in tp.files:
            if open_file is None and not f.path.is_file():
                continue
            if nul_only and open_file is None and not _may_hold_nul(f.path):
                continue
            with open_file(f) if open_file is not None else open_data(f.path) as fh:
                # a stream the source filtered (source_filter) holds only some lines: no line numbers
                numbered = not getattr(fh, "filtered", False)
                for number, raw in _lines(fh, f.rel, sieve):
                    try:
                        obj = orjson.loads(raw)
                    except orjson.JSONDecodeError:
                        continue  # the load reports malformed lines with their position
                    for col, cs in checks.items():
                        v = obj.get(col)
                        if v is None:
                            continue
                        if col in tp.json_text and type(v) is str:  # the document its text holds
                            try:
                                v = orjson.loads(v)
                            except orjson.JSONDecodeError:
                                continue  # the load reports text that is not JSON
                        for i, (sev, check) in enumerate(cs):
                            if (col, i) in seen_checks:
                                continue
                            problem = check(v)
                            if problem:
                                findings.append(
                                    Finding(sev, tp.display, col, problem, v, f.rel, number if numbered else None)
                                )
                                seen_checks.add((col, i))
                    for name, cols, folds in uniques:
                        vals = tuple(obj.get(c) for c in cols)
                        if any(v is None for v in vals):
                            continue
                        key = tuple(fold(v) if fold and isinstance(v, str) else v for v, fold in zip(vals, folds))
                        prev = seen_keys[name].get(key)
                        if prev is None:
                            seen_keys[name][key] = vals
                        elif prev != vals and name not in seen_cols:
                            seen_cols.add(name)
                            findings.append(
                                Finding(
                                    "error",
                                    tp.display,
                                    ", ".join(cols),
                                    f"unique key {name} collides under the target's case/accent-insensitive collation "
                                    f"with {_show(prev)!r}",
                                    _show(vals),
                                    f.rel,
                                    number,
                                )
                            )
    return findings


def _table_checks(
    engine: Engine, conn: Any, tp: TablePlan, zero_dates: str, nul: str
) -> tuple[
    dict[str, list[tuple[str, Check]]],
    list[tuple[str, Condition]],
    list[tuple[str, tuple[str, ...], list[Callable[[str], str] | None]]],
]:
    """What :func:`preflight` checks in ``tp``'s lines: the (severity, check) pairs of each column,
    their ``(column, condition)`` rules, and the unique keys that may collide on the target."""
    checks: dict[str, list[tuple[str, Check]]] = {}
    conditions: list[tuple[str, Condition]] = []
    not_null = _not_null_columns(engine, conn, tp)
    for c, t, tname in zip(tp.columns, tp.target_types, tp.target_names):
        rules = column_rules(engine, c, t, zero_dates, nul, tname in not_null)
        if rules:
            checks[c.name] = [(sev, check) for sev, check, _cond in rules]
            conditions += [(c.name, cond) for _sev, _check, cond in rules]
    return checks, conditions, _collision_keys(engine, conn, tp)


def stream_sieve(
    engine: Engine, conn: Any, tp: TablePlan, *, zero_dates: str = "null", nul: str = "error"
) -> LineFilter | None:
    """The byte test of :func:`preflight` for ``tp``, when the lines it cannot clear are all the
    pre-flight parses of the table (every check has a byte test and no unique key may collide
    under the target's collation): the lines of the table's units as a load streams them, sieved
    by it, then stand in for reading the table again (``dbjson migrate``). None when the
    pre-flight must read the table itself, or has nothing to check in it."""
    checks, conditions, uniques = _table_checks(engine, conn, tp, zero_dates, nul)
    if not checks or uniques:
        return None
    return line_filter(conditions)


def line_filter(rules: Iterable[tuple[str, Condition]]) -> LineFilter | None:
    """The byte pre-test of lines (:class:`~dbjson.format.linefilter.LineFilter`) for these
    ``(column, condition)`` rules: a line it clears holds no value their checks report. None when
    some condition has no such test (integer ranges, significant digits, dates kept as text,
    elapsed times): every line is then parsed."""
    dates: list[str] = []
    nul = False
    longer: int | None = None
    for name, cond in rules:
        kind = cond[0]
        if kind in ("zero_date", "infinite_date") and spelled_one_way(name):
            dates.append(name)
        elif kind == "nul":
            nul = True
        elif kind in ("chars_over", "bytes_over", "binary_over"):
            longer = cond[1] if longer is None else min(longer, cond[1])
        else:
            return None
    return LineFilter(dates, nul, longer)


def _lines(fh: IO[bytes], rel: str, sieve: LineFilter | None) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of a data file that the pre-flight parses: every line, or with
    ``sieve`` only those it cannot clear (a block at a time: a block it clears is not split)."""
    if sieve is None:
        yield from iter_lines(fh, rel)
        return
    for before, block in file_blocks(fh, rel):
        if sieve.block_may(block):
            for number, line in block_lines(before, block):
                if sieve.may(line):
                    yield number, line


def preflight_columns(engine: Engine, tp: TablePlan, zero_dates: str) -> set[str]:
    """The columns :func:`preflight` looks at in ``tp``'s lines: those with a check for this target,
    and the columns of unique keys (collisions under the target's collation). ``dbjson migrate``
    reads only these from the source for the pre-flight."""
    needed = {c.name for c, t in zip(tp.columns, tp.target_types) if _column_checks(engine, c, t, zero_dates)}
    for _name, cols in _unique_keys(tp.table):
        needed.update(cols)
    return needed


def source_filter(
    engine: Engine, conn: Any, source_engine: Engine, tp: TablePlan, *, zero_dates: str = "null", nul: str = "error"
) -> str | None:
    """A SQL condition on the source table that every row :func:`preflight` would report for ``tp`` satisfies.

    ``dbjson migrate`` reads only those rows for the pre-flight (the source server evaluates the
    checks' :data:`Condition` s, ``source_engine.preflight_condition(column, condition)``), in the
    order of the unit's full read, so the pre-flight finds the same problems with the same example
    values (only without line numbers). None when every row must be read: the source engine cannot
    express a condition, or a unique key may collide under the target's collation (``engine`` and
    ``conn`` are the target's).
    """
    if not source_engine.capabilities.filters_preflight or _collision_keys(engine, conn, tp):
        return None
    parts: list[str] = []
    for c, t in zip(tp.columns, tp.target_types):
        for _sev, _check, cond in column_rules(engine, c, t, zero_dates, nul):
            sql = source_engine.preflight_condition(c, cond)
            if sql is None:
                return None
            parts.append(f"({sql})")
    return " OR ".join(parts) if parts else None


def _may_hold_nul(path: Any) -> bool:
    """Whether the data file's bytes hold the JSON escape ``\\u0000`` (read in 8 MB pieces into one
    buffer; searched by ``_cimport.has_nul_escape``, memchr for the backslashes, when built:
    Python's ``in`` reads about 0.5 GB/s of JSON lines)."""
    needle = b"\\u0000"
    keep = len(needle) - 1
    tail = b""
    cmod = speedups.load("_cimport")
    buf = bytearray(8 << 20)
    view = memoryview(buf)
    try:
        with open_data(path) as fh:
            reader: Any = fh  # (every reader open_data gives is a BufferedIOBase: readinto)
            while n := reader.readinto(buf):
                if needle in tail + bytes(view[: min(n, keep)]):
                    return True
                if cmod.has_nul_escape(view[:n]) if cmod is not None else buf.find(needle, 0, n) >= 0:
                    return True
                tail = (tail + bytes(view[max(0, n - keep) : n]))[-keep:]
    except Exception:  # noqa: BLE001 - EOFError, OSError, zstandard.ZstdError: a damaged file
        return True  # the line-by-line scan reads it and reports the damage with file and line
    return False


def _not_null_columns(engine: Engine, conn: Any, tp: TablePlan) -> set[str]:
    """Target names of the NOT NULL columns of ``tp`` (as created), when the engine can tell
    (only needed where zero dates load as NULL); else those NOT NULL in the source."""
    if (holds_zero_dates(engine) or not any(c.type.allows_zero for c in tp.columns)) and (
        engine.capabilities.holds_infinite_dates or not any(c.type.kind in ("date", "timestamp") for c in tp.columns)
    ):
        return set()
    try:
        return set(engine.load_not_null_columns(conn, tp.tschema, tp.tname))
    except Exception:  # noqa: BLE001 - no such method, or the table does not exist yet
        return {n for c, n in zip(tp.columns, tp.target_names) if not c.nullable}


def _show(vals: tuple[Any, ...]) -> Any:
    return vals[0] if len(vals) == 1 else list(vals)


def _collision_keys(
    engine: Engine, conn: Any, tp: TablePlan
) -> list[tuple[str, tuple[str, ...], list[Callable[[str], str] | None]]]:
    """Unique keys with at least one text column under an insensitive target collation."""
    keys = _unique_keys(tp.table)
    if not keys or not any(c.type.kind in ("char", "varchar", "text", "enum") for c in tp.columns):
        return []
    try:
        collations = engine.load_collations(conn, tp.tschema, tp.tname)
    except Exception:  # noqa: BLE001 - the table may not exist yet (schema-less data-only)
        return []
    tnames = dict(zip([c.name for c in tp.columns], tp.target_names))
    src_coll = {c.name: c.collation for c in tp.table.columns}
    out = []
    for name, cols in keys:
        folds: list[Callable[[str], str] | None] = []
        for col in cols:
            coll = collations.get(tnames.get(col, col))
            same = coll is not None and src_coll.get(col) == coll
            folds.append(fold_key(coll) if is_insensitive(coll) and not same and coll else None)
        if any(folds):
            out.append((name, tuple(cols), folds))
    return out


__all__ = [
    "preflight",
    "line_filter",
    "source_filter",
    "stream_sieve",
    "preflight_columns",
    "column_rules",
    "Condition",
    "Finding",
    "fold_key",
    "is_insensitive",
    "value_rules",
    "replace_nul",
    "has_nul",
    "is_zero_date",
    "nul_sensitive",
    "holds_nul",
    "holds_zero_dates",
    "NUL_POLICIES",
    "ZERO_DATES",
    "NUL_REPLACEMENT",
]
