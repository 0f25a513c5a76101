"""TargetSession.run_parallel with parked jobs: a job waiting without using the CPU (a loaded unit
waiting for the pre-flight to allow its commit) lets another job start, up to ``extra_threads``."""

from __future__ import annotations

import threading
import time
from typing import Any, cast

from dbjson.importer.session import TargetSession


def _session(threads: int, extra: int) -> TargetSession:
    s = TargetSession(cast(Any, None), cast(Any, None), threads=threads, data_only=False)
    s.extra_threads = extra
    return s


def test_a_parked_job_lets_the_next_ones_run() -> None:
    s = _session(1, 2)
    release = threading.Event()
    order: list[str] = []

    def parked_job() -> None:
        order.append("a")
        with s.parked():
            assert release.wait(10), "no other job ran while this one was parked"
        order.append("a-done")

    def job(name: str, last: bool = False) -> Any:
        def go() -> None:
            order.append(name)
            if last:
                release.set()

        return go

    t0 = time.monotonic()
    s.run_parallel([(3, parked_job), (2, job("b")), (1, job("c", last=True))], 1)
    assert time.monotonic() - t0 < 5
    assert order[0] == "a" and order[-1] == "a-done" and set(order[1:3]) == {"b", "c"}


def test_without_parking_the_width_is_the_threads() -> None:
    s = _session(2, 4)
    lock = threading.Lock()
    running = [0]
    most = [0]

    def job() -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1

    s.run_parallel([(1, job) for _ in range(8)], 2)
    assert most[0] == 2


def test_parked_jobs_are_bounded_by_extra_threads() -> None:
    s = _session(1, 2)
    release = threading.Event()
    lock = threading.Lock()
    parked_now = [0]
    most = [0]

    def parked_job() -> None:
        with s.parked():
            with lock:
                parked_now[0] += 1
                most[0] = max(most[0], parked_now[0])
                if parked_now[0] == 3:
                    release.set()  # the third parked job: the limit (1 thread + 2 extra) is reached
            release.wait(10)
            with lock:
                parked_now[0] -= 1

    t0 = time.monotonic()
    s.run_parallel([(1, parked_job) for _ in range(6)], 1)
    assert time.monotonic() - t0 < 5
    assert most[0] == 3


def test_handed_over_jobs_wait_for_a_free_thread_without_spinning() -> None:
    """A running job hands over jobs (a table's index builds) while no thread is free: the pool
    waits for one without using the CPU (the loop once spun until the job ended)."""
    s = _session(1, 0)
    ran: list[str] = []

    def busy() -> None:
        s.push_jobs([lambda: ran.append("handed over")])
        time.sleep(1.0)  # holds the only thread, using no CPU
        ran.append("first")

    cpu0, t0 = time.process_time(), time.monotonic()
    s.run_parallel([(1, busy)], 1)
    assert ran == ["first", "handed over"]
    assert time.monotonic() - t0 >= 1.0
    assert time.process_time() - cpu0 < 0.3, "run_parallel used the CPU while waiting for a free thread"


def test_all_parked_for_counts_parked_jobs_and_waits_for_the_gate() -> None:
    s = _session(2, 2)
    assert s.all_parked_for() == 0.0  # no job started yet
    seen: list[float] = []
    step = threading.Event()

    def parked_job() -> None:
        with s.parked():
            step.wait(10)

    def gate_job() -> None:
        with s.waiting_for_gate():
            time.sleep(0.3)
            seen.append(s.all_parked_for())  # both jobs wait: the clock runs
            step.set()
        seen.append(s.all_parked_for())  # this one runs again: 0

    s.run_parallel([(2, parked_job), (1, gate_job)], 2)
    assert seen[0] >= 0.2 and seen[1] == 0.0, seen
