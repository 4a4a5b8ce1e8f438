"""Background ops: results on the GUI thread, the latest of a key wins, failures are told."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject

from citeview.gui import ops
from citeview.gui.ops import BackgroundOp


def test_result_comes_back_on_the_gui_thread(qtbot) -> None:
    owner = QObject()
    got: list[tuple[int, bool]] = []
    worker: list[bool] = []

    def work() -> int:
        worker.append(threading.current_thread() is threading.main_thread())
        return 42

    BackgroundOp(owner, work).success(
        lambda r: got.append((r, threading.current_thread() is threading.main_thread()))).run()
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    assert got == [(42, True)] and worker == [False]


def test_the_latest_op_of_a_key_wins(qtbot) -> None:
    owner = QObject()
    gate = threading.Event()
    got: list[str] = []
    BackgroundOp(owner, lambda: gate.wait(5) and "first", key="k").success(got.append).run()
    for name in ("second", "third"):
        BackgroundOp(owner, lambda name=name: name, key="k").success(got.append).run()
    assert ops.pending(owner, "k")
    gate.set()
    qtbot.waitUntil(lambda: not ops.pending(owner, "k"), timeout=5000)
    assert got == ["third"]


def test_cancelled_ops_never_call_back(qtbot) -> None:
    owner = QObject()
    gate = threading.Event()
    got: list[object] = []
    BackgroundOp(owner, lambda: gate.wait(5), key="k").success(got.append).run()
    ops.cancel(owner)
    assert not ops.pending(owner, "k")
    gate.set()
    done: list[int] = []
    BackgroundOp(QObject(), lambda: 1).success(done.append).run()  # runs after the first
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert got == []


def test_a_failure_goes_to_its_callback_or_to_the_message_bridge(qtbot, messages) -> None:
    owner = QObject()
    failed: list[Exception] = []

    def boom() -> None:
        raise ValueError("bad input")

    BackgroundOp(owner, boom).failure(failed.append).run(here=True)
    assert isinstance(failed[0], ValueError)
    BackgroundOp(owner, boom).run()
    qtbot.waitUntil(lambda: bool(messages.errors), timeout=5000)
    assert messages.errors == ["ValueError: bad input"]


def test_an_op_started_after_the_paint_is_pending_at_once_and_runs_once_the_loop_turns(
        qtbot) -> None:
    owner = QObject()
    ran: list[str] = []
    got: list[str] = []

    def work(name: str) -> str:
        ran.append(name)
        return name

    BackgroundOp(owner, lambda: work("first"), key="k").success(got.append).run(
        after_paint=True)
    assert ops.pending(owner, "k") and ran == []  # nothing woken beside the paint
    # Superseded before the loop turned: never run, never called back.
    BackgroundOp(owner, lambda: work("second"), key="k").success(got.append).run(
        after_paint=True)
    cancelled: list[str] = []
    other = QObject()
    BackgroundOp(other, lambda: work("cancelled")).success(cancelled.append).run(
        after_paint=True)
    ops.cancel(other)
    qtbot.waitUntil(lambda: not ops.pending(owner, "k"), timeout=5000)
    qtbot.wait(50)
    assert got == ["second"] and ran == ["second"] and cancelled == []
