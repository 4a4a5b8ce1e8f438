"""Child process of ``test_document_handover``: a worker hands its answer document to the GUI
thread while the GUI thread holds every one of Qt's signal-slot mutexes and then needs the GIL,
as it does inside ``QObject::disconnect`` (a Python object's ``disconnectNotify``, called under
the sender's mutex). A worker that waits for the document's mutex holding the GIL deadlocks the
two: this process then never ends (the test's timeout tells it). Prints ``OK`` once the
document reached the GUI thread. ``--fallback``: with no GIL-free move (the document is built
on the GUI thread instead)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import shiboken6
from PySide6.QtCore import QMetaMethod, QObject, Signal, Slot
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

# Qt's signal-slot mutexes: a pool of 131, an object's chosen by its address (qobject.cpp:
# uint(quintptr(o)) % 131).
POOL = 131
HOLD_SECONDS = 0.3  # how long the GUI thread holds them all once the worker is started


class Holder(QObject):
    """Its signal's disconnection runs ``step`` under its signal-slot mutex."""

    sig = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.step: Callable[[], None] | None = None

    @Slot()
    def nothing(self) -> None:
        pass

    def disconnectNotify(self, signal: QMetaMethod) -> None:  # noqa: N802
        step, self.step = self.step, None
        if step is not None:
            step()


def main() -> int:
    app = QApplication(sys.argv[:1])
    from citeview.gui import answer_document
    from citeview.gui.answer_document import prepare_document
    from citeview.gui.warm_up import warm_up_qt

    warm_up_qt(QFont())
    if "--fallback" in sys.argv:
        answer_document._move_found[:] = [None]
    elif getattr(answer_document, "gil_free_move", lambda: True)() is None:  # (none: old code)
        print("no GIL-free move here")
        return 2
    font = QFont().toString()
    worker = ThreadPoolExecutor(1)
    warm = worker.submit(prepare_document, "<p>warm</p>", False, font).result(10)
    assert warm.document.thread() is app.thread()
    # One holder per mutex of the pool.
    holders: dict[int, Holder] = {}
    spare: list[Holder] = []
    while len(holders) < POOL:
        h = Holder()
        bucket = (shiboken6.getCppPointer(h)[0] & 0xFFFF_FFFF) % POOL
        (spare if bucket in holders else holders.__setitem__(bucket, h) or []).append(h)
    chain = list(holders.values())
    # (To its own slot: its mutex is the connection's only one. A Python callable's connection
    # has a receiver of PySide's own, the same for all.)
    connections = [h.sig.connect(h.nothing) for h in chain]
    started: list[object] = []

    def hold(i: int) -> None:
        if i + 1 < len(chain):  # the next mutex too, under this one
            chain[i + 1].step = lambda: hold(i + 1)
            QObject.disconnect(connections[i + 1])
        else:  # all held: the worker moves its document now; this thread waits, GIL released
            started.append(worker.submit(prepare_document, "<p>a <b>b</b></p>", False, font))
            time.sleep(HOLD_SECONDS)

    chain[0].step = lambda: hold(0)
    QObject.disconnect(connections[0])
    prepared = started[0].result(10)  # type: ignore[attr-defined]
    doc = prepared.document
    assert doc.thread() is app.thread(), doc.thread()
    assert doc.toPlainText() == "a b", doc.toPlainText()
    assert threading.current_thread() is threading.main_thread()
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
