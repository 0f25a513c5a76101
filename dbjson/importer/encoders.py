"""Rows converted and encoded for the engines' bulk paths, a block of lines at a time: the worker
process pool (:func:`start_worker_pool`), the block encoder (:func:`build_block_encoder`: the C
speedup ``dbjson._cimport``, else column by column, else row by row) and the table of the C
module's operation codes (:func:`c_block_plan`).
"""

from __future__ import annotations

import gc
import operator
import os
import pickle
import signal
import sys
import threading
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import orjson

from .. import speedups
from ..engines import Engine, get_engine
from ..engines.interface import TablePlan
from ..errors import DataError
from ..format.checksum import DEFAULT_CHECKSUM, sum_block, sum_lines
from ..format.datafiles import count_lines
from .convert import build_row_converter, load_converters, raw_json_columns

PROCESS_MIN_BYTES = 4 << 20  # below this, starting worker processes costs more than it saves


class _InlinePool:
    """A stand-in for the process pool that converts a block at once, in the calling thread."""

    @staticmethod
    def submit(fn: Callable[..., Any], *args: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        fut.set_result(fn(*args))
        return fut


INLINE = _InlinePool()


# Threads object storage leaves behind that hold no lock a forked child would use: fsspec's event
# loop thread (s3fs/gcsfs/adlfs), idle in select() between requests, and the threads of that loop's
# default executor (``asyncio_N``), idle on their queue. The child only converts rows.
_FORK_SAFE_THREADS = ("fsspecIO", "asyncio_")


def _busy_threads() -> bool:
    """Whether the process runs threads other than the caller's and the fork-safe ones."""
    me = threading.current_thread()
    return any(t is not me and not t.name.startswith(_FORK_SAFE_THREADS) for t in threading.enumerate())


def start_worker_pool(engine: Engine, threads: int, todo_bytes: int, *, schema_only: bool = False) -> Any:
    """A pool of ``threads`` worker processes converting rows, forked now, when it pays: two or more
    threads, a text bulk path (COPY / LOAD DATA), parallel writers and at least
    ``PROCESS_MIN_BYTES`` to load; else None.

    Python threads share one interpreter lock, so only processes put the per-row conversion
    on several cores; the threads keep the connections, transactions and the journal. The
    workers are forked at once, before the import opens any connection or starts any thread
    (so they inherit no socket and no lock), and ignore SIGINT (the parent cancels them). A
    caller that runs other threads gets no workers (a fork would copy their locks).
    """
    import multiprocessing  # (start-up time: 16 ms, only when workers may start)

    if (
        threads < 2
        or todo_bytes < PROCESS_MIN_BYTES
        or schema_only
        or engine.capabilities.bulk_text is None
        or not engine.capabilities.parallel_writers
        or "fork" not in multiprocessing.get_all_start_methods()
        or _busy_threads()
    ):
        return None  # (other threads of the caller could hold locks a forked child would inherit)
    from concurrent.futures import ProcessPoolExecutor  # (start-up time, as multiprocessing)

    procs = ProcessPoolExecutor(
        max_workers=threads, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init
    )
    procs.submit(_worker_init).result()  # fork every worker now (a fork pool starts them all)
    return procs


def _worker_init() -> None:
    """In a worker process: Ctrl-C and status requests are the parent's business."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "SIGUSR1"):
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    _die_with_parent()


def _die_with_parent() -> None:
    """Linux: this worker gets SIGTERM when the importing process dies, even by ``kill -9`` (it
    would otherwise wait forever on its pipe, an orphan holding memory)."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        import ctypes  # (only worker processes need it)

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent or parent == 1:  # it died before the call
        os._exit(1)


_ENCODERS: dict[tuple[str, str, str, bytes], Callable[..., tuple[bytes, int, int]]] = {}  # per process
_ENCODERS_MAX = 64


def encode_block(
    engine_name: str,
    server_version: str,
    plan: bytes,
    zero_dates: str,
    rel: str,
    first_line: int,
    block: bytes,
    algorithm: str | None = DEFAULT_CHECKSUM,
) -> tuple[Any, ...]:
    """Convert and encode one block of whole lines for the engine's bulk path (in a worker process,
    or inline in the loading thread). ``plan`` is the pickled :class:`TablePlan`: it keys the
    encoder cache, so another import in the same process never reuses a stale encoder.

    Returns ``("ok", encoded bytes, rows, checksum, {})`` or ``("error", message, 0, 0, location)``;
    the checksum (of the line hash ``algorithm``) is 0 when ``algorithm`` is None (the caller checks
    the file's bytes instead).
    """
    key = (engine_name, server_version, zero_dates, plan)
    encode = _ENCODERS.get(key)
    if encode is None:
        if len(_ENCODERS) >= _ENCODERS_MAX:
            _ENCODERS.clear()
        tp = pickle.loads(plan)  # pickled by this process or its parent
        encode = _ENCODERS[key] = build_block_encoder(get_engine(engine_name, server_version), tp, zero_dates, rel)
    # A block makes tens of thousands of short-lived containers (parsed lines, row tuples) without
    # cycles: collecting during the block only re-walks them (a quarter of the block's time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        encoded, n, total = encode(block, first_line, algorithm)
    except DataError as e:
        info = {"file": rel, "line": e.line, "table": e.table, "column": e.column, "value": e.value}
        return ("error", e.message, 0, 0, info)
    finally:
        if collecting:
            gc.enable()
    return ("ok", encoded, n, total, {})


def encode_file_range(
    engine_name: str,
    server_version: str,
    plan: bytes,
    zero_dates: str,
    rel: str,
    first_line: int,
    path: str,
    offset: int,
    length: int,
    expect: int | None = None,
    algorithm: str = DEFAULT_CHECKSUM,
) -> tuple[Any, ...]:
    """:func:`encode_block` of the ``length`` bytes at ``offset`` of a plain file (whole lines).

    With ``expect`` (the CRC-32 of the bytes the loading thread read and checked against the
    manifest's file hash), the bytes read here must have that CRC (the file did not change between
    the two reads), and their lines are not hashed.
    """
    parts = []
    fd = os.open(path, os.O_RDONLY)
    try:
        while length > 0:
            part = os.pread(fd, length, offset)
            if not part:
                return ("error", "the file became shorter while it was loaded", 0, 0, {"file": rel, "line": first_line})
            parts.append(part)
            offset += len(part)
            length -= len(part)
    finally:
        os.close(fd)
    block = b"".join(parts)
    if expect is not None and zlib.crc32(block) != expect:
        return ("error", "the file changed while it was loaded", 0, 0, {"file": rel, "line": first_line})
    return encode_block(
        engine_name, server_version, plan, zero_dates, rel, first_line, block, algorithm if expect is None else None
    )


class _Slow(Exception):
    """The block needs the row-by-row path (it has something the column path does not handle)."""


def build_block_encoder(
    engine: Engine, tp: TablePlan, zero_dates: str, file: str
) -> Callable[..., tuple[bytes, int, int]]:
    """``encode(block, first_line_number, algorithm=DEFAULT_CHECKSUM)`` → (bulk text, rows,
    checksum) of a block of whole lines (checksum 0 when ``algorithm`` is None).

    The common case goes a column at a time: every line parsed by ``orjson`` in one ``map``, the
    values taken with one ``itemgetter``, transposed with ``zip``, converted per column and
    joined by the engine's :meth:`load_encode_columns`. A block that does not fit that mould (a
    bad line, a missing or extra key, a value a converter refuses, blank lines or CRLF) is done
    row by row with :func:`build_row_converter`, which names the bad line, column and value.
    """
    convert = build_row_converter(engine, tp, zero_dates, file)
    names = [c.name for c in tp.columns]
    convs = load_converters(engine, tp, zero_dates)
    active = [(i, conv) for i, conv in enumerate(convs) if conv is not None]
    fixed = list(tp.fixed.values())
    raw_json = raw_json_columns(engine, tp)  # canonical lines: the engine's converter writes the same text
    columnar = (
        len(names) >= 2
        and set(names) == {c.name for c in tp.table.columns}
        and not tp.increments
        and engine.capabilities.bulk_text is not None
    )
    getter = operator.itemgetter(*names)
    width = len(names)
    loads = orjson.loads
    cplan = c_block_plan(engine, tp, zero_dates) if columnar else None

    def by_rows(lines: list[bytes], first_line: int) -> bytes:
        rows = []
        number = first_line - 1
        for raw in lines:
            number += 1
            if raw:
                rows.append(convert(raw, number, 0))
        return engine.load_encode_rows(rows) if rows else b""

    def by_columns(lines: list[bytes]) -> bytes:
        objs = list(map(loads, lines))
        if set(map(type, objs)) != {dict} or set(map(len, objs)) != {width}:
            raise _Slow
        if raw_json and any(map(operator.ne, map(orjson.dumps, objs), lines)):
            raise _Slow  # a json value orjson would respell (1.50, \u00e9, big integers): its text, row by row
        cols = [list(c) for c in zip(*map(getter, objs))]
        for i, conv in active:
            cols[i] = [None if v is None else conv(v) for v in cols[i]]
        cols.extend([v] * len(objs) for v in fixed)
        return engine.load_encode_columns(cols)

    def encode(block: bytes, first_line: int, algorithm: str | None = DEFAULT_CHECKSUM) -> tuple[bytes, int, int]:
        if cplan is not None:
            # The C encoder takes the block as it is, without splitting it into a million line
            # objects first (and the line sums, when wanted, are one C call on the block too:
            # measured on a 1M-row wide migrate, the split and the searches for blank lines and CR
            # below took more client CPU than the encoding). It refuses blank lines and CR (as
            # below, those go by rows), so its lines are the block's rows.
            cmod = speedups.load("_cimport")  # checked per block: DBJSON_NO_SPEEDUPS=1 turns it off
            if cmod is not None:
                done = cmod.jsonl_to_bulk(block, *cplan)  # None: a line or value for the Python path
                if done is not None:
                    if algorithm is None:
                        return done, count_lines(block), 0
                    value, n = sum_block(block, algorithm)
                    return done, n, value
        lines = block.split(b"\n")
        lines.pop()  # the block ends with a newline
        if b"\r" in block:
            lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
        rows = [ln for ln in lines if ln] if b"\n\n" in block or block.startswith(b"\n") or b"\r" in block else lines
        total = sum_lines(rows, algorithm) if algorithm is not None else 0
        if not rows:
            return b"", 0, total
        encoded = None  # (the C encoder, when there is one, refused the block above)
        if columnar and rows is lines:
            try:
                encoded = by_columns(lines)
            except Exception:  # noqa: BLE001 - the row path finds and names the problem
                encoded = None
        if encoded is None:
            encoded = by_rows(lines, first_line)
        return encoded, len(rows), total

    return encode


# dbjson._cimport ops (see the comment block of dbjson/_cimport.c and the engines' load_bulk_op)
_C_OPS = {k[3:].lower(): v for k, v in speedups.constants("_cimport").items() if k.startswith("OP_")}


def c_block_plan(engine: Engine, tp: TablePlan, zero_dates: str) -> tuple[tuple[bytes, ...], bytes, int] | None:
    """The ``(keys, ops, flavor)`` arguments of ``dbjson._cimport.jsonl_to_bulk`` for ``tp``'s
    blocks, or None when some column has no C op that converts its values exactly as
    :func:`load_converters` does (the Python path is then used for every block of the table).

    Only plain tables qualify: no ``--set`` values, no increments and no value rules (``--nul``).
    Keys are the column names as orjson writes them in a line (ordinal order, as exported)."""
    bulk = engine.capabilities.bulk_text
    if bulk is None or tp.fixed or tp.increments or tp.value_rules or not tp.columns:
        return None
    raw = set(raw_json_columns(engine, tp))
    ops = []
    for i, (c, t) in enumerate(zip(tp.columns, tp.target_types)):
        if c.type.kind == "json" and c.name in tp.json_text:
            # the text its JSON string holds, as a text column's string: the targets with a bulk
            # text path (PostgreSQL json/jsonb, MySQL JSON, MariaDB's JSON_VALID check) check it is JSON
            if t.kind != "json":
                return None  # the Python path checks it
            ops.append(_C_OPS["pass"])
            continue
        op = "jsonraw" if i in raw else engine.load_bulk_op(c.type, t, zero_dates=zero_dates)
        if op == "jsondump" and c.type.kind != "json":
            op = "jsondump_nowrap"  # only json columns carry the {"$json": X} escape
        if op is None or (c.type.kind == "json") != (op in ("jsonraw", "jsondump")):
            return None
        ops.append(_C_OPS[op])
    keys = tuple(orjson.dumps(c.name) for c in tp.columns)
    return keys, bytes(ops), bulk.c_flavor
