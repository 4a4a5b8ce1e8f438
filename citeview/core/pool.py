"""The one order-preserving process pool: work on batches of items in several processes, results
in input order, with a bounded number of batches in flight (memory stays flat however long the
input). ``citeview lint --jobs`` and the session's row export use it.

It never forks a process that has Qt loaded (Qt's threads and GPU handles do not survive a
fork): it starts its workers with ``spawn`` then (:func:`start_method`). A worker that dies or
whose initializer fails raises :class:`BrokenProcessPool` here: ``multiprocessing.Pool`` started
new workers for ever and waited on the lost batch (a hang that kept the CPU busy).
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")

QT_MODULES = ("PySide6", "shiboken6")


def start_method() -> str:
    """``fork`` where there is one and no Qt module is loaded; ``spawn`` otherwise."""
    qt = any(m.split(".")[0] in QT_MODULES for m in list(sys.modules))
    return "fork" if "fork" in multiprocessing.get_all_start_methods() and not qt else "spawn"


def usable_cpus() -> int:
    """The CPUs this process may run on: those it is bound to (``sched_getaffinity``, where
    there is one; ``taskset``, a container's cpuset), fewer where a cgroup's CPU quota allows
    less time (a container's ``--cpus``), at least 1."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    quota = _cgroup_cpus()
    return max(1, min(n, quota) if quota else n)


def _cgroup_cpus() -> int | None:
    """CPUs' worth of time the quota at the root of ``/sys/fs/cgroup`` gives (a container's,
    which sees its own cgroup there; a quota set on a cgroup below the root, systemd's
    ``CPUQuota`` say, is not read: then more jobs run, never fewer) (cgroup v2 ``cpu.max``, or
    v1's ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``), rounded up; None when it sets
    none or cannot be read (not Linux, say)."""
    for quota_file, period_file in _CGROUP_QUOTAS:
        try:
            with open(quota_file, encoding="ascii") as f:
                fields = f.read().split()
            if period_file is not None:
                with open(period_file, encoding="ascii") as f:
                    fields.append(f.read().strip())
            quota, period = int(fields[0]), int(fields[1])
        except (OSError, ValueError, IndexError, UnicodeDecodeError):
            continue  # ("max": no quota; no such file)
        if quota > 0 and period > 0:
            return max(1, math.ceil(quota / period))
    return None


_CGROUP_QUOTAS: tuple[tuple[str, str | None], ...] = (
    ("/sys/fs/cgroup/cpu.max", None),
    ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us"),
)


def batches(items: Iterable[_T], size: int) -> Iterator[list[_T]]:
    """``items`` in lists of ``size`` (the last may be shorter)."""
    batch: list[_T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def ordered_map(work: Callable[[list[_T]], list[_R]], items: Iterable[_T], jobs: int, *,
                batch: int, in_flight_per_job: int = 4,
                initializer: Callable[..., object] | None = None,
                initargs: tuple[Any, ...] = ()) -> Iterator[_R]:
    """``work(batch)`` for every batch of ``items`` in ``jobs`` processes (each set up by
    ``initializer(*initargs)``), yielding the results in input order. ``work`` and
    ``initializer`` must be module-level functions (a spawned worker imports them)."""
    ctx = multiprocessing.get_context(start_method())
    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_start_worker,
                               initargs=(os.getpid(), initializer, initargs))
    _widen_results(pool)
    try:
        window: deque[Future[list[_R]]] = deque()
        for chunk in batches(items, batch):
            window.append(pool.submit(work, chunk))
            if len(window) >= jobs * in_flight_per_job:
                yield from window.popleft().result()
        while window:
            yield from window.popleft().result()
    finally:  # (also when the caller stops early: batches not started are dropped)
        pool.shutdown(wait=True, cancel_futures=True)


def _widen_results(pool: ProcessPoolExecutor) -> None:
    """Let the pipe that brings results back hold :data:`PIPE_BYTES` (Linux; elsewhere, or
    where the pool's pipe is not found, it stays as it is): a worker then writes a result of
    a few hundred KB in one go, not a 64 KB piece each time this process has read one."""
    reader = getattr(getattr(pool, "_result_queue", None), "_reader", None)
    fileno = getattr(reader, "fileno", None)
    if not callable(fileno):
        return
    with contextlib.suppress(OSError, ImportError, ValueError, TypeError):
        import fcntl

        command = getattr(fcntl, "F_SETPIPE_SZ", None)  # (Linux only: no number guessed)
        if command is not None:
            fcntl.fcntl(fileno(), command, PIPE_BYTES)


PIPE_BYTES = 1 << 20  # Linux's default most for an unprivileged process


def _start_worker(parent: int, initializer: Callable[..., object] | None,
                  initargs: tuple[Any, ...]) -> None:
    """A worker's set-up: it ends when the process that started it is gone (killed, say: a
    forked worker holds the task pipe's other end too, so it would wait on it for ever)."""
    threading.Thread(target=_exit_with, args=(parent,), name="citeview-pool-parent",
                     daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _exit_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)  # (ends the process, whatever its main thread waits on)


PARENT_CHECK_SECONDS = 1.0

__all__ = ["BrokenProcessPool", "batches", "ordered_map", "start_method", "usable_cpus"]
