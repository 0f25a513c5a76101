"""Reading ``COPY ... TO STDOUT`` rows a block at a time with the C speedup ``dbjson._cpgcopy``.

libpq returns COPY data one row per ``PQgetCopyData`` call; psycopg's ``pgconn.get_copy_data``
costs an interpreter round trip per row, under the interpreter lock that the export's worker
threads share. ``_cpgcopy.read_rows`` runs that loop in C without the lock, calling the very libpq
that psycopg loaded (its functions' addresses taken with ctypes) on psycopg's own ``PGconn``.
:func:`block_reader` returns None (and the caller keeps the per-row Python loop) when the C module
is not built, psycopg is its pure-Python implementation, or which libpq psycopg uses cannot be told.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ... import speedups


@functools.cache
def _libpq_functions() -> tuple[int, int] | None:
    """Addresses of ``PQgetCopyData`` and ``PQfreemem`` in the libpq loaded in this process."""
    import ctypes

    try:
        from psycopg import pq

        if pq.__impl__ not in ("binary", "c"):
            return None
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            paths = {line.split()[-1] for line in f if "/libpq" in line and line.split()[-1].startswith("/")}
        if len(paths) != 1:
            return None  # none, or two libpq libraries: not sure which one psycopg calls
        lib = ctypes.CDLL(paths.pop())
        get = ctypes.cast(lib.PQgetCopyData, ctypes.c_void_p).value
        free = ctypes.cast(lib.PQfreemem, ctypes.c_void_p).value
    except (OSError, AttributeError, ImportError):
        return None
    return (get, free) if get and free else None


def block_reader(pgconn: Any) -> Callable[[int], tuple[int, bytes]] | None:
    """``read(max_bytes) -> (status, rows)`` for the COPY OUT in progress on ``pgconn`` (psycopg's
    ``PGconn``), or None. Status: 1 at least max_bytes read, 0 no complete row buffered (wait for
    the socket, ``consume_input``, call again), -1 the COPY ended, -2 it failed."""
    mod = speedups.load("_cpgcopy")
    if mod is None:
        return None
    fns = _libpq_functions()
    ptr = getattr(pgconn, "pgconn_ptr", None)
    if fns is None or not ptr:
        return None
    get, free = fns
    read_rows = mod.read_rows
    return lambda max_bytes: read_rows(ptr, get, free, max_bytes)  # type: ignore[no-any-return,unused-ignore]
