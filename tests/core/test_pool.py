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
