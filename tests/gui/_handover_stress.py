"""Stress reproducer of the GIL / Qt signal-slot-mutex inversion (not part of the suite: its
deterministic form is ``_handover_child.py``, run by ``test_document_handover.py``). Run::

    QT_QPA_PLATFORM=offscreen PYTHONPATH=$PWD MODE=doc SECONDS=30 timeout 60 \
        python tests/gui/_handover_stress.py

Before the fix (the worker's moveToThread holding the GIL) it hung within seconds.

GUI thread: connects a signal of a freshly made Python QObject (its wrapper's disconnectNotify
override not looked up yet) to a bound method of a short-lived Python object and drops that
object: PySide's weakref callback releases the GIL and calls QObject::disconnect, which locks
signalSlotLock(sender) and then waits for the GIL (Sbk_GetPyOverride for disconnectNotify).

Workers (MODE):
  doc  -- prepare_document in ThreadPoolExecutor threads (a QTextDocument made in the worker and
          handed to the GUI thread: moveToThread locks signalSlotLock(doc));
  ops  -- citeview.gui.ops.BackgroundOp round trips (the worker hands each finished op back to
          the GUI thread);
  both -- the two at once.
Prints OK when it ran SECONDS without hanging; a faulthandler dump after DUMP_AFTER seconds
otherwise (run it under `timeout`)."""
import faulthandler
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

faulthandler.dump_traceback_later(int(os.environ.get("DUMP_AFTER", "50")), exit=False)

app = QApplication(sys.argv)
from citeview.gui import ops  # noqa: E402
from citeview.gui.answer_document import prepare_document  # noqa: E402
from citeview.gui.warm_up import warm_up_qt  # noqa: E402

font = QFont()
warm_up_qt(font)
sys.setswitchinterval(float(os.environ.get("SWITCH", "0.001")))
SECONDS = float(os.environ.get("SECONDS", "30"))
WORKERS = int(os.environ.get("WORKERS", "3"))
MODE = os.environ.get("MODE", "doc")


class Sender(QObject):
    sig = Signal()


class Receiver:
    def slot(self) -> None:
        pass


stop = threading.Event()
made = [0] * WORKERS
handed: list[object] = []
lock = threading.Lock()


def work(w: int) -> None:
    font_s = font.toString()
    while not stop.is_set():
        p = prepare_document("<p>a <b>b</b></p>", False, font_s)
        with lock:
            handed.append(p)  # dropped on the GUI thread (where the document now lives)
        made[w] += 1


pool = ThreadPoolExecutor(WORKERS)
futures = [pool.submit(work, w) for w in range(WORKERS)] if MODE in ("doc", "both") else []
parent = QObject()
called = [0]


def done(_: object) -> None:
    called[0] += 1


t0 = time.monotonic()
rounds = 0
last = t0
while time.monotonic() - t0 < SECONDS:
    if MODE in ("ops", "both"):
        for lane in ("", "a", "b"):
            for _ in range(20):
                ops.BackgroundOp(parent, lambda: None).success(done).run(lane=lane)
    for s in [Sender() for _ in range(200)]:
        r = Receiver()
        s.sig.connect(r.slot)
        del r  # weakref callback -> QObject::disconnect
    app.processEvents()
    with lock:
        handed.clear()
    rounds += 1
    now = time.monotonic()
    if now - last > 5:
        print(f"{now - t0:5.1f}s rounds={rounds} docs={sum(made)} ops={called[0]}", flush=True)
        last = now
stop.set()
for f in futures:
    f.result()
print(f"OK: no hang in {SECONDS:.0f}s, mode={MODE} rounds={rounds} docs={sum(made)} "
      f"ops={called[0]}", flush=True)
faulthandler.cancel_dump_traceback_later()
