"""The one order-preserving process pool (core/pool.py): results in input order whatever the
workers' speed, and never a fork of a process that has Qt loaded."""

from __future__ import annotations

import os
import sys
import time
import types

import pytest

from citeview.core.pool import BrokenProcessPool, batches, ordered_map, start_method


def _square_slowly(batch: list[int]) -> list[int]:
    # Early batches take longest: a pool that yielded results as they came would reorder them.
    time.sleep(0.02 if batch[0] < 20 else 0)
    return [x * x for x in batch]


def test_results_come_in_input_order() -> None:
    got = list(ordered_map(_square_slowly, range(200), 2, batch=7, in_flight_per_job=2))
    assert got == [x * x for x in range(200)]


def _cannot_start() -> None:
    raise OSError("the session file went away")


def _die(batch: list[int]) -> list[int]:
    os._exit(3)


def test_a_worker_that_cannot_start_fails_the_run_instead_of_hanging() -> None:
    # multiprocessing.Pool started new workers for ever and waited on the lost batch.
    with pytest.raises(BrokenProcessPool):
        list(ordered_map(_square_slowly, range(10), 2, batch=2, initializer=_cannot_start))


def test_a_worker_that_dies_fails_the_run_instead_of_hanging() -> None:
    with pytest.raises(BrokenProcessPool):
        list(ordered_map(_die, range(10), 2, batch=2))


def test_batches_cover_every_item_once() -> None:
    assert [len(b) for b in batches(range(10), 4)] == [4, 4, 2]
    assert [x for b in batches(iter(range(10)), 3) for x in b] == list(range(10))


@pytest.mark.skipif(sys.platform != "linux", reason="fork is the default start only on Linux")
def test_qt_loaded_means_spawn_not_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6")]:
        monkeypatch.delitem(sys.modules, name)
    assert start_method() == "fork"
    monkeypatch.setitem(sys.modules, "PySide6.QtCore", types.ModuleType("PySide6.QtCore"))
    assert start_method() == "spawn"


@pytest.mark.skipif(sys.platform != "linux", reason="fork is the default start only on Linux")
def test_the_pool_asks_for_spawn_when_qt_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    import citeview.core.pool as pool

    asked: list[str] = []
    real = multiprocessing.get_context

    def get_context(method: str):  # type: ignore[no-untyped-def]
        asked.append(method)
        return real("fork")  # (a spawned worker is slow to start: the choice is what matters)
    monkeypatch.setattr(pool.multiprocessing, "get_context", get_context)
    monkeypatch.setitem(sys.modules, "PySide6", types.ModuleType("PySide6"))
    assert list(ordered_map(_square_slowly, range(30), 2, batch=4)) == [x * x for x in range(30)]
    assert asked == ["spawn"]


_KILLED_RUN = """
import os, sys, time
from citeview.core.pool import ordered_map
def slow(batch):
    time.sleep(0.2)
    return batch
results = ordered_map(slow, range(10000), 2, batch=1)
next(results)
print("running", flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _killed_run_leaves_no_worker(script: str, workers_at_least: int) -> None:
    """Start ``script`` (a run of the pool that prints "running"), kill it outright, and wait
    up to 15 s for every worker it had to end."""
    import signal
    import subprocess

    run = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert run.stdout is not None and run.stdout.readline().strip() == "running"
        workers = [int(p) for p in subprocess.run(["pgrep", "-P", str(run.pid)],
                                                  capture_output=True, text=True).stdout.split()]
        assert len(workers) >= workers_at_least and all(_alive(p) for p in workers)
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in workers)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        if run.stdout is not None:
            run.stdout.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_workers_of_a_killed_run_end_with_it() -> None:
    """A run killed outright (a window's background pass stopped, an export killed) leaves no
    worker behind: a forked worker holds the task pipe's other end, so it never sees the pipe
    close, and waited for ever."""
    _killed_run_leaves_no_worker(_KILLED_RUN, 2)


# A run whose workers are spawned (Qt loaded: the window's export), idle once the first
# results are in.
_KILLED_SPAWNED_RUN = """
import sys, time, types
sys.modules["PySide6"] = types.ModuleType("PySide6")
from citeview.core.pool import ordered_map, start_method
assert start_method() == "spawn"
results = ordered_map(sorted, range(10000), 2, batch=1)
next(results)
print("running", flush=True)
time.sleep(120)
"""

# The run started by a process that adopts orphans (a subreaper: systemd --user, tini, a
# container's init): a worker's parent after the kill is that process, not init. Prints how
# many workers the run had, then how many are left once it is killed.
_UNDER_SUBREAPER = """
import ctypes, os, signal, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
run = subprocess.Popen([sys.executable, "-c", sys.argv[1]], stdout=subprocess.PIPE, text=True)
assert run.stdout.readline().strip() == "running"
workers = [int(p) for p in subprocess.run(["pgrep", "-P", str(run.pid)], capture_output=True,
                                          text=True).stdout.split()]
os.kill(run.pid, signal.SIGKILL)
run.wait()
deadline = time.monotonic() + 15
left = set(workers)
while left and time.monotonic() < deadline:
    for pid in list(left):
        if os.waitpid(pid, os.WNOHANG)[0] == pid:  # (adopted: ended ones are reaped here)
            left.discard(pid)
    time.sleep(0.1)
for pid in left:
    os.kill(pid, signal.SIGKILL)
print(len(workers), len(left))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_spawned_workers_of_a_killed_run_end_with_it() -> None:
    """The same with Qt loaded, where the workers are spawned (the window's export)."""
    _killed_run_leaves_no_worker(_KILLED_SPAWNED_RUN, 2)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl, /proc")
def test_the_workers_of_a_killed_run_end_under_a_subreaper() -> None:
    """Orphans go to the nearest subreaper, not init: a worker still sees its parent gone."""
    import subprocess

    got = subprocess.run([sys.executable, "-c", _UNDER_SUBREAPER, _KILLED_RUN],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert got.stdout.split() == ["2", "0"]


def test_usable_cpus_are_those_this_process_may_run_on(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path) -> None:
    from citeview.core import pool

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    monkeypatch.setattr(pool, "_CGROUP_QUOTAS", ())
    assert pool.usable_cpus() == 3
    quota = tmp_path / "cpu.max"
    monkeypatch.setattr(pool, "_CGROUP_QUOTAS", ((str(quota), None),))
    for text, cpus in (("max 100000\n", 3), ("150000 100000\n", 2), ("50000 100000\n", 1),
                       ("900000 100000\n", 3), ("junk\n", 3)):
        quota.write_text(text)
        assert pool.usable_cpus() == cpus, text
    v1 = (tmp_path / "quota", tmp_path / "period")
    monkeypatch.setattr(pool, "_CGROUP_QUOTAS", ((str(v1[0]), str(v1[1])),))
    v1[1].write_text("100000\n")
    for text, cpus in (("-1\n", 3), ("200000\n", 2)):
        v1[0].write_text(text)
        assert pool.usable_cpus() == cpus, text
