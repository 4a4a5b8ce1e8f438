"""Work off the GUI thread through one small helper (like Anki's ``QueryOp``)::

    BackgroundOp(window, lambda: build(case), key="case").success(show).failure(fail).run()

``fn`` runs in a worker thread; then, on the GUI thread, ``success(result)`` or
``failure(error)``. Ops of one parent sharing a ``key`` supersede each other: only the latest
one started calls back (an earlier one still waiting is not even run), and :func:`cancel` drops
every op of a parent (its window closed). An op without a failure callback reports its error
through :mod:`citeview.gui.message`: a failure is never lost silently.

Ops run one at a time, in the order they were started, in one worker thread: building the next
case never competes with linting the previous one. An op given another ``lane`` runs in that
lane's own worker thread (making a review session must not hold up showing the case).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Generic, TypeVar, cast

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal, Slot

from citeview.gui import message

T = TypeVar("T")


class BackgroundOp(Generic[T]):
    def __init__(self, parent: QObject, fn: Callable[[], T], *, key: str | None = None) -> None:
        self.parent = parent
        self.fn = fn
        self.key = key
        self._on_success: Callable[[T], None] | None = None
        self._on_failure: Callable[[Exception], None] | None = None
        self._result: T | None = None
        self._error: Exception | None = None
        self._dropped = False  # superseded or cancelled: never calls back
        self._future: Future[None] | None = None

    def success(self, callback: Callable[[T], None]) -> BackgroundOp[T]:
        """Call ``callback(result)`` on the GUI thread once ``fn`` returned."""
        self._on_success = callback
        return self

    def failure(self, callback: Callable[[Exception], None]) -> BackgroundOp[T]:
        """Call ``callback(error)`` on the GUI thread if ``fn`` raised (default: an error
        message)."""
        self._on_failure = callback
        return self

    def run(self, *, here: bool = False, lane: str = "", after_paint: bool = False) -> None:
        """Start the op (from the GUI thread). ``here``: run ``fn`` now in this thread and call
        back before returning (snapshots, which must not wait for an event loop). ``lane``: the
        worker thread (ops of one lane run one at a time, in order). ``after_paint``: pending
        (and superseding) at once, handed to the worker once the paints asked for so far are
        done: a worker woken beside a paint takes the GIL from it (a case switch's paint
        waited 5 ms a submitted op)."""
        _REGISTRY.start(self)
        if here:
            self._work()
            _REGISTRY.finish(self)
        elif after_paint:
            _later().hold(self, lane)
        else:
            self._future = _submit(self, lane)

    # -- the worker side -----------------------------------------------------------------------

    def _work(self) -> None:
        if self._dropped:
            return  # superseded before it started: nobody wants the result
        try:
            self._result = self.fn()
        # The top of every background op: whatever fn raised goes to the failure callback or the
        # message bridge on the GUI thread, never lost in the worker.
        except Exception as err:  # noqa: BLE001
            self._error = err

    def _work_and_report(self, dispatcher: _Dispatcher) -> None:
        self._work()
        # (PySide emits with the GIL released: the Qt locks of the queued call are never waited
        # for holding the GIL, which the GUI thread may wait for under one of them; see
        # citeview.gui.answer_document's hand-over of a document for that deadlock.)
        dispatcher.finished.emit(self)

    # -- back on the GUI thread ----------------------------------------------------------------

    def _call_back(self) -> None:
        if self._error is not None:
            if self._on_failure is not None:
                self._on_failure(self._error)
            else:
                message.error(f"{type(self._error).__name__}: {self._error}")
        elif self._on_success is not None:
            self._on_success(cast(T, self._result))


def cancel(parent: QObject, key: str | None = None) -> None:
    """Drop the ops of ``parent`` (those with ``key``, or all) still waiting or running: none of
    them calls back."""
    _REGISTRY.cancel(parent, key)


def pending(parent: QObject, key: str) -> bool:
    """Whether the latest op of ``parent`` with ``key`` has yet to call back."""
    return _REGISTRY.pending(parent, key)


# ------------------------------------------------------------------------------ bookkeeping


class _Registry:
    """Ops started and not yet called back, by parent (touched on the GUI thread only)."""

    def __init__(self) -> None:
        self.live: dict[int, list[BackgroundOp[Any]]] = {}
        self.latest: dict[tuple[int, str], BackgroundOp[Any]] = {}

    def start(self, op: BackgroundOp[Any]) -> None:
        pid = id(op.parent)
        if op.key is not None:
            older = self.latest.get((pid, op.key))
            if older is not None:
                older._dropped = True
            self.latest[(pid, op.key)] = op
        self.live.setdefault(pid, []).append(op)

    def finish(self, op: BackgroundOp[Any]) -> None:
        pid = id(op.parent)
        ops = self.live.get(pid, [])
        if op in ops:
            ops.remove(op)
            if not ops:
                del self.live[pid]
        if op.key is not None and self.latest.get((pid, op.key)) is op:
            del self.latest[(pid, op.key)]
        if not op._dropped and shiboken6.isValid(op.parent):
            op._call_back()

    def cancel(self, parent: QObject, key: str | None) -> None:
        pid = id(parent)
        ops = self.live.pop(pid, [])
        for op in ops:
            if key is None or op.key == key:
                op._dropped = True
                if op._future is not None:
                    op._future.cancel()
        if key is not None and any(op.key != key for op in ops):
            self.live[pid] = [op for op in ops if op.key != key]
        for k in [k for k in self.latest if k[0] == pid and key in (None, k[1])]:
            del self.latest[k]

    def pending(self, parent: QObject, key: str) -> bool:
        return (id(parent), key) in self.latest


_REGISTRY = _Registry()


class _Dispatcher(QObject):
    """Brings finished ops back to the GUI thread (it lives there, so the signal is queued)."""

    finished = Signal(object)  # a BackgroundOp

    def __init__(self) -> None:
        super().__init__()
        self.finished.connect(self._finish)

    @Slot(object)
    def _finish(self, op: BackgroundOp[Any]) -> None:
        _REGISTRY.finish(op)


_dispatcher: _Dispatcher | None = None
_executors: dict[str, ThreadPoolExecutor] = {}

# While a worker runs Python, the GUI thread waits up to the interpreter's switch interval for
# the GIL before each step of its own (5 ms by default): a paint beside a worker waited most of
# that many times over (opening a 10,000-citation case: 8% slower than at 1 ms).
GUI_SWITCH_INTERVAL = 0.001


def _executor(lane: str) -> ThreadPoolExecutor:
    executor = _executors.get(lane)
    if executor is None:
        if sys.getswitchinterval() > GUI_SWITCH_INTERVAL:
            sys.setswitchinterval(GUI_SWITCH_INTERVAL)
        executor = _executors[lane] = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix=f"citeview-op{'-' + lane if lane else ''}")
    return executor


def _submit(op: BackgroundOp[Any], lane: str = "") -> Future[None]:
    """Queue ``op`` for its lane's worker thread (both made on first use, from the GUI
    thread)."""
    global _dispatcher
    if _dispatcher is None:
        _dispatcher = _Dispatcher()
    return _executor(lane).submit(op._work_and_report, _dispatcher)


def start_lanes(*lanes: str) -> None:
    """Start the worker threads of ``lanes`` now (from the GUI thread, while the window starts):
    starting a thread waits until it runs, which the first case shown should not."""
    for lane in lanes:
        _executor(lane).submit(_nothing)


def _nothing() -> None:
    pass


_AFTER_PAINT = QEvent.Type(QEvent.registerEventType())


class _SubmitLater(QObject):
    """Ops handed to their worker after the paints asked for so far (see ``run``)."""

    def __init__(self) -> None:
        super().__init__()
        self._held: list[tuple[BackgroundOp[Any], str]] = []

    def hold(self, op: BackgroundOp[Any], lane: str) -> None:
        if not self._held:
            QCoreApplication.postEvent(self, QEvent(_AFTER_PAINT),
                                       Qt.EventPriority.LowEventPriority.value)
        self._held.append((op, lane))

    def customEvent(self, ev: QEvent) -> None:  # noqa: N802
        if ev.type() != _AFTER_PAINT:
            return
        held, self._held = self._held, []
        for op, lane in held:
            if op._dropped:  # superseded or cancelled meanwhile: never run
                _REGISTRY.finish(op)  # (forgotten; it calls nothing back)
            else:
                op._future = _submit(op, lane)


_submit_later: _SubmitLater | None = None


def _later() -> _SubmitLater:
    global _submit_later
    if _submit_later is None:
        _submit_later = _SubmitLater()
    return _submit_later


class AfterPaint(QObject):
    """Calls ``fn`` on the GUI thread once the paints asked for so far are done: work that
    would hold the GIL beside a paint (a worker building, copying) starts after it. Posted at
    the low priority Qt posts a window's paint request with, so it comes after that request.
    Asked again before then: called once, after the last paint asked for."""

    def __init__(self, fn: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fn = fn
        self._posted = 0  # requests on their way
        self._wanted = False
        self._soon: QTimer | None = None  # request_soon's timer (made when first wanted)

    def request(self) -> None:
        self._wanted = True
        self._posted += 1
        QCoreApplication.postEvent(self, QEvent(_AFTER_PAINT),
                                   Qt.EventPriority.LowEventPriority.value)

    def request_soon(self) -> None:
        """:meth:`request` from the event loop's next turn, once the caller's changes have
        posted their paint request: the call then comes after that paint (requested at once,
        from inside a key's or a click's handler, it came before that request)."""
        if self._soon is None:
            self._soon = QTimer(self)  # (a child: gone with this object)
            self._soon.setSingleShot(True)
            self._soon.setInterval(0)
            self._soon.timeout.connect(self.request)
        self._soon.start()

    def cancel(self) -> None:
        self._wanted = False

    def customEvent(self, ev: QEvent) -> None:  # noqa: N802
        if ev.type() != _AFTER_PAINT:
            return
        self._posted -= 1
        if self._posted == 0 and self._wanted:
            self._wanted = False
            self._fn()


class _CollectAfterPaint:
    """Cycle collections held off while the window answers a key or a click, until the frame
    that shows the answer is painted (see :func:`collect_after_paint`)."""

    def __init__(self) -> None:
        self.held = False
        self.later = AfterPaint(self.resume)

    def hold(self) -> None:
        if not self.held and gc.isenabled():
            gc.disable()
            self.held = True
        if self.held:
            # (From the event loop: after the paint request the interaction posts.)
            self.later.request_soon()

    def resume(self) -> None:
        if self.held:
            self.held = False
            gc.enable()


_collect: _CollectAfterPaint | None = None


def collect_after_paint() -> None:
    """No cycle collection until the paints asked for so far are done (call on the GUI thread,
    as an interaction starts). A case switch makes thousands of objects: the collections they
    set off (a young generation's every few hundred allocations, an older one's of everything
    that survived: 5-80 ms on a loaded machine) ran inside the frame the reviewer waits for;
    they run right after it instead. Collections a caller turned off stay off."""
    global _collect
    if _collect is None:
        _collect = _CollectAfterPaint()
    _collect.hold()


__all__ = ["AfterPaint", "BackgroundOp", "cancel", "collect_after_paint", "pending",
           "start_lanes"]
