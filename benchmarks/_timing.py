"""Timing shared by the benchmarks: the user CPU time of this process (and, for steps that
wait on other processes, wall time), percentiles, and how a duration is printed.

Kernel time (page faults while the heap grows to a new size) depends on the allocator and the
machine, not on the code measured, and it grows faster than linearly with the heap; wall time
depends on whatever else the machine runs. User CPU time is the code's own work.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

try:
    import resource

    def user_time() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_utime

except ImportError:  # Windows: no getrusage; process time includes kernel time there
    def user_time() -> float:
        return time.process_time()


def wall_time(fn: Callable[[], object]) -> float:
    """Seconds ``fn()`` took on the wall clock (a step timed once beside its baseline)."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``-th percentile of ``values`` (nearest rank: one of the values)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def ms(seconds: float, places: int = 1) -> str:
    """A duration as the benchmarks print it: milliseconds under a second, else seconds."""
    return f"{1000 * seconds:.{places}f} ms" if seconds < 1 else f"{seconds:.2f} s"


def wait_until(done: Callable[[], bool], timeout: float = 300.0) -> None:
    """Run the Qt event loop until ``done()``, checked after each batch of events, blocked in
    the loop meanwhile as a running application is (a timer wakes it every 5 ms at least).
    (``processEvents(flags, 5)`` returns at once when nothing is pending: a loop of it kept a
    core busy and took it from the processes a benchmark measured.)"""
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    end = time.perf_counter() + timeout
    wake = QTimer()
    wake.setInterval(5)
    wake.start()
    try:
        while not done():
            if time.perf_counter() > end:
                raise SystemExit("timed out")
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
    finally:
        wake.stop()


def spin(seconds: float) -> None:
    """Run the Qt event loop for ``seconds``."""
    end = time.perf_counter() + seconds
    wait_until(lambda: time.perf_counter() >= end, seconds + 60)
