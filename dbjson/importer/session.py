"""A run against a target database: its connections (one per thread), the thread pool that runs
jobs over them, and the worker processes that convert rows on other cores.

An import (:class:`dbjson.importer.run.Importer`) is one :class:`TargetSession`; ``dbjson verify``
(:func:`dbjson.verify.verify`) makes one of its own.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, NamedTuple

from ..connect import Target, close_quietly, parse_url
from ..engines import Engine, detect_engine, get_engine
from ..errors import Cancelled
from .encoders import start_worker_pool


class Job(NamedTuple):
    """A job for :meth:`TargetSession.run_parallel`: its size (largest first) and what it runs;
    jobs with the same ``key`` do not run at once until one of them calls
    :meth:`TargetSession.release_key` (a MariaDB table's units until the first one committed: see
    :attr:`dbjson.engines.interface.Capabilities.unit_locks_table`)."""

    size: int
    run: Callable[[], None]
    key: str | None = None


class TargetSession:
    """Connections to ``target`` through ``engine``'s load hooks, one per thread (:meth:`conn`),
    jobs run in parallel over them (:meth:`run_parallel`), and the worker processes (``procs``,
    see :meth:`start_encoders`). ``data_only``: the connections load into tables that already
    exist (the engine sets them up accordingly). :meth:`close_all` ends everything."""

    def __init__(
        self, target: Target, engine: Engine, *, threads: int, data_only: bool, lock_timeout: float = 10.0
    ) -> None:
        self.target = target
        self.lock_timeout = lock_timeout  # seconds a statement waits for a lock before it fails (and is retried)
        self.engine = engine
        self.threads = threads
        self.data_only = data_only
        self.cancel = threading.Event()
        self.active: dict[int, Any] = {}  # thread id → the connection running its statement (interrupt_all)
        self.procs: Any = None  # ProcessPoolExecutor converting rows on other cores (see start_encoders)
        self._conn_lock = threading.Lock()
        self._local = threading.local()
        self._conns: list[Any] = []
        # jobs that running jobs hand to the next free thread (:meth:`push_jobs`), before any queued one
        self._urgent: deque[Callable[[], None]] = deque()
        self._wake: Future[None] | None = None  # set when urgent jobs arrive: run_parallel's wait ends
        # jobs blocked where they use no CPU (a loaded unit waiting to commit: see :meth:`parked`),
        # and how many more threads run_parallel may start for them (0: none)
        self._parked = 0
        self.extra_threads = 0
        self._in_flight = 0  # jobs run_parallel has started and that have not ended
        self._gate_waits = 0  # jobs waiting for the pre-flight without being parked (see waiting_for_gate)
        self._started_any = False
        self._all_parked_since: float | None = None  # since when every job in flight waits for the pre-flight
        self._busy: set[str] = set()  # the keys of the jobs in flight (see Job.key)
        self._released: set[str] = set()  # keys whose jobs may run at once from now on (release_key)

    # -- connections ----------------------------------------------------------------------------
    def conn(self) -> Any:
        """This thread's connection (opened on first use)."""
        c = getattr(self._local, "conn", None)
        if c is None:
            c = self.engine.load_connect(self.target, data_only=self.data_only, lock_timeout=self.lock_timeout)
            self._local.conn = c
            with self._conn_lock:
                self._conns.append(c)
        return c

    def drop_conn(self) -> None:
        """Close this thread's connection (a broken one): the next :meth:`conn` opens another."""
        c = getattr(self._local, "conn", None)
        if c is not None:
            self._local.conn = None
            with self._conn_lock:
                if c in self._conns:
                    self._conns.remove(c)
            close_quietly([c])

    def close_all(self) -> None:
        """Close every connection and stop the worker processes."""
        with self._conn_lock:
            conns, self._conns = self._conns, []
        for c in conns:
            try:
                self.engine.load_disconnect(c)
            except Exception:  # noqa: BLE001
                pass
        if self.procs is not None:
            # Always wait for the pool's manager thread: otherwise the interpreter's exit hook can race
            # it and print "Bad file descriptor". Queued blocks are cancelled; a block a worker is
            # converting (about 1 MB: tens of milliseconds) is let finish. Workers are never
            # terminated here: one killed while it writes its result leaves half a message in the
            # result pipe, and the pool's manager thread then waits forever for the rest (an
            # import that failed on a bad line hung in this shutdown once, in CI).
            self.procs.shutdown(wait=True, cancel_futures=True)
            self.procs = None

    def interrupt_all(self) -> None:
        """Interrupt every running statement (from the main thread, on Ctrl-C/SIGTERM)."""
        with self._conn_lock:
            active = list(self.active.values())
        for c in active:
            try:
                self.engine.load_interrupt(c, self.target)
            except Exception:  # noqa: BLE001
                pass

    # -- worker processes -----------------------------------------------------------------------
    def start_encoders(self, todo_bytes: int, *, schema_only: bool = False) -> None:
        """Fork the worker processes now when they pay (see :func:`dbjson.importer.encoders.start_worker_pool`)."""
        self.procs = start_worker_pool(self.engine, self.threads, todo_bytes, schema_only=schema_only)

    # -- running work in the pool ---------------------------------------------------------------
    @contextlib.contextmanager
    def parked(self) -> Iterator[None]:
        """Around a wait of a running job that uses no CPU (a unit loaded, waiting to be allowed to
        commit): meanwhile :meth:`run_parallel` may run up to ``extra_threads`` more jobs, each on
        a connection of its own, so that the cores are not idle while the job waits."""
        with self._conn_lock:
            self._parked += 1
            self._note_parked_locked()
            if self._wake is not None and not self._wake.done():
                self._wake.set_result(None)
        try:
            yield
        finally:
            with self._conn_lock:
                self._parked -= 1
                self._note_parked_locked()

    @contextlib.contextmanager
    def waiting_for_gate(self) -> Iterator[None]:
        """Around a wait of a running job for the pre-flight that keeps its place in the pool (its
        table's pre-flight, before it starts or after it failed): counted by :meth:`all_parked_for`."""
        with self._conn_lock:
            self._gate_waits += 1
            self._note_parked_locked()
        try:
            yield
        finally:
            with self._conn_lock:
                self._gate_waits -= 1
                self._note_parked_locked()

    def all_parked_for(self) -> float:
        """For how many seconds every job in flight has been waiting for the pre-flight, parked or
        not, or none has been in flight once jobs started (0: some job runs, or none started yet).
        Until the pre-flight is done no job makes progress then, and :meth:`run_parallel` starts
        another only if its width has room."""
        with self._conn_lock:
            since = self._all_parked_since
        return 0.0 if since is None else time.monotonic() - since

    def _note_parked_locked(self) -> None:
        if not self._started_any or self._in_flight != self._parked + self._gate_waits:
            self._all_parked_since = None
        elif self._all_parked_since is None:
            self._all_parked_since = time.monotonic()

    def _width(self, threads: int) -> int:
        """How many jobs :meth:`run_parallel` runs at once now: ``threads``, and one more for each
        parked job (at most ``extra_threads`` more)."""
        with self._conn_lock:
            return self._width_locked(threads)

    def _width_locked(self, threads: int) -> int:
        return threads + min(self._parked, self.extra_threads)

    def run_parallel(
        self,
        jobs: Sequence[tuple[int, Callable[[], None]] | Job],
        threads: int,
        idle: Callable[[], Callable[[], None] | None] | None = None,
    ) -> None:
        """Run jobs (size, fn[, key]) largest first on a pool of up to ``threads``; first error wins.
        A job whose ``key`` a running job has waits, and the next job in size order goes first.
        Jobs that the running ones hand over (:meth:`push_jobs`) go to the next free thread before
        any job still queued, and the call returns once they are done too. ``idle``: asked for a
        job for a thread that would otherwise wait for the others (None: there is none)."""
        # popped from the end: largest first
        queue = [Job(*j) for j in sorted(jobs, key=lambda j: -j[0])][::-1]
        if not queue and not self._urgent and idle is None:
            return
        pool = ThreadPoolExecutor(max_workers=max(1, threads + self.extra_threads), thread_name_prefix="dbjson-load")
        pending: set[Future[None]] = set()
        error: BaseException | None = None
        try:
            while True:
                while len(pending) < self._width(threads) and error is None and not self.cancel.is_set():
                    fn, key = self._next_job(queue)
                    if fn is None and idle is not None and error is None:
                        fn = idle()
                    if fn is None:
                        break
                    with self._conn_lock:
                        self._in_flight += 1
                        self._started_any = True
                        self._note_parked_locked()
                    fut = pool.submit(self._guard, fn)
                    fut.add_done_callback(functools.partial(self._ended, key=key))
                    pending.add(fut)
                if not pending:
                    break
                wake: Future[None] = Future()
                with self._conn_lock:
                    self._wake = wake
                    # (a job for a parked one's place: not one whose key a running job has)
                    more = self._startable_locked(queue) is not None and error is None and not self.cancel.is_set()
                    # a job to start and a thread free for it (not without one: the loop would spin,
                    # holding the interpreter lock, until a job ends; that end ends the wait below)
                    if (self._urgent or more) and len(pending) < self._width_locked(threads):
                        wake.set_result(None)
                done, _ = wait({*pending, wake}, timeout=0.2, return_when=FIRST_COMPLETED)
                for fut in done - {wake}:
                    pending.discard(fut)
                    exc = fut.exception()
                    if exc is not None and (
                        error is None or isinstance(error, Cancelled) and not isinstance(exc, Cancelled)
                    ):
                        error = exc  # the first real error, not the cancellations it caused
                        self.cancel.set()
                if error is not None:
                    queue.clear()
                    with self._conn_lock:
                        self._urgent.clear()
        except BaseException:
            self.cancel.set()
            self.interrupt_all()
            _wait_quietly(pending, 10.0)
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            with self._conn_lock:
                self._wake = None
        pool.shutdown(wait=True)
        if error is not None:
            raise error
        if queue or self._urgent:  # cancelled with jobs never started (the last running job ended normally)
            raise Cancelled("import cancelled")

    def push_jobs(self, fns: Sequence[Callable[[], None]]) -> None:
        """From a running job: ``fns`` go to the next free threads of this :meth:`run_parallel`,
        before its queued jobs (a table's index builds, once its rows are in)."""
        with self._conn_lock:
            self._urgent.extend(fns)
            if self._wake is not None and not self._wake.done():
                self._wake.set_result(None)

    def _next_job(self, queue: list[Job]) -> tuple[Callable[[], None] | None, str | None]:
        """The next job to start and its key (taken until it ends): a handed-over one, else the
        largest queued one whose key no running job has."""
        with self._conn_lock:
            if self._urgent:
                return self._urgent.popleft(), None
            i = self._startable_locked(queue)
            if i is None:
                return None, None
            job = queue.pop(i)
            if job.key is None or job.key in self._released:
                return job.run, None
            self._busy.add(job.key)
            return job.run, job.key

    def _startable_locked(self, queue: list[Job]) -> int | None:
        for i in range(len(queue) - 1, -1, -1):
            key = queue[i].key
            if key is None or key not in self._busy:
                return i
        return None

    def release_key(self, key: str) -> None:
        """From a running job: the jobs with ``key`` (:class:`Job`) may run at once from now on."""
        with self._conn_lock:
            self._released.add(key)
            self._release_locked(key)

    def _release_locked(self, key: str) -> None:
        if key in self._busy:
            self._busy.discard(key)
            if self._wake is not None and not self._wake.done():  # (run_parallel may wait for it)
                self._wake.set_result(None)

    def _ended(self, _fut: Future[None], *, key: str | None) -> None:
        with self._conn_lock:
            self._in_flight -= 1
            if key is not None:
                self._release_locked(key)
            self._note_parked_locked()

    def _guard(self, fn: Callable[[], None]) -> None:
        if self.cancel.is_set():
            raise Cancelled("import cancelled")
        fn()


def connect_target(url: str, *, read_only: bool = False) -> tuple[Target, Engine]:
    """The target and its engine (MariaDB told from MySQL by the server); ``read_only``: a dry run's
    target (see :attr:`dbjson.connect.Target.read_only`)."""
    target = Target(parse_url(url), read_only=read_only)
    conn = get_engine(target.family).load_connect(target)  # the family's engine connects; the server says which
    try:
        engine = detect_engine(target.family, conn)
    finally:
        conn.close()
    return target, engine


def target_identity(target: Target) -> str:
    """The target database as the journal names it (:func:`dbjson.format.journal.journal_path`):
    the same database gives the same string whatever the URL's password or options."""
    u = target.url
    if target.family == "sqlite":
        return f"sqlite:{os.path.abspath(u.database or '')}"
    return f"{target.family}://{u.username or ''}@{u.host or ''}:{u.port or ''}/{u.database or ''}"


class RetryBudget:
    """How long one operation (a unit, a statement, a connection) may keep retrying: ``seconds``
    from its first failure, with exponential, jittered pauses (0.1 s doubling, at most 5 s)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.attempt = 0
        self._start: float | None = None

    @property
    def spent(self) -> float:
        """Seconds since the first failure."""
        return 0.0 if self._start is None else time.monotonic() - self._start

    def next_pause(self) -> float | None:
        """The pause before the next attempt, or None when the budget is spent."""
        now = time.monotonic()
        if self._start is None:
            self._start = now
        left = self.seconds - (now - self._start)
        if left <= 0:
            return None
        pause = min(5.0, 0.1 * 2.0 ** min(self.attempt, 16)) * (0.5 + random.random())
        self.attempt += 1
        return min(pause, left)


def _wait_quietly(pending: set[Future[None]], timeout: float) -> None:
    if pending:
        wait(pending, timeout=timeout)
