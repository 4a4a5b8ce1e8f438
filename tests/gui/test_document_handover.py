"""An answer document made in a worker reaches the GUI thread, and never deadlocks on the way:
the worker hands it over with the GIL released (or, where it cannot, the GUI thread builds it).
A CI run hung with the worker in ``moveToThread`` holding the GIL, waiting for a Qt
signal-slot mutex the GUI thread held while it waited for the GIL (``QObject::disconnect``
calling a Python object's ``disconnectNotify``)."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PySide6.QtCore import QThread
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

from citeview.gui import answer_document
from citeview.gui.answer_document import prepare_document
from citeview.gui.answer_render import Chip, ChipState, chip_html

CHILD = Path(__file__).with_name("_handover_child.py")
ROOT = Path(__file__).resolve().parents[2]
HTML = (f"<p>One claim{chip_html(Chip(1))} and <em>another</em>"
        f"{chip_html(Chip(2, ChipState.PROBLEM))}.</p><ul><li>a list{chip_html(Chip(3))}</li></ul>")


@pytest.fixture(params=["gil-free move", "built on the GUI thread"])
def handover(request, monkeypatch) -> str:
    if request.param == "built on the GUI thread":
        monkeypatch.setattr(answer_document, "_move_found", [None])
    return str(request.param)


def test_a_document_made_in_a_worker_is_shown_from_the_gui_thread(qtbot, handover) -> None:
    app = QApplication.instance()
    font = QFont().toString()
    here = prepare_document(HTML, False, font)
    with ThreadPoolExecutor(1) as worker:
        there = worker.submit(prepare_document, HTML, False, font).result(10)
    assert there.document.thread() is app.thread()
    assert there.document.toPlainText() == here.document.toPlainText()
    assert there.chips == here.chips and len(there.chips) == 3
    assert there.painter.chips is there.chips  # (the view keeps them up to date in place)


def test_a_document_left_to_the_gui_thread_is_not_built_elsewhere(qtbot, monkeypatch) -> None:
    monkeypatch.setattr(answer_document, "_move_found", [None])
    with ThreadPoolExecutor(1) as worker:
        prepared = worker.submit(prepare_document, HTML, False, QFont().toString()).result(10)
        with pytest.raises(RuntimeError, match="GUI thread"):
            worker.submit(lambda: prepared.document).result(10)
    assert prepared.document.thread() is QThread.currentThread()


@pytest.mark.skipif(sys.platform != "linux", reason="the platform CI runs on")
def test_the_gil_free_move_is_found(qtbot) -> None:
    assert answer_document.gil_free_move() is not None


def test_a_worker_hands_its_document_over_while_the_gui_thread_waits_for_the_gil(
        handover) -> None:
    """The deadlock made certain (in a child process: a deadlock there fails the test, after
    its timeout): the GUI thread holds all of Qt's signal-slot mutexes, inside nested
    disconnects, while the worker moves its document; then it needs the GIL back."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                          if p))
    args = [] if handover == "gil-free move" else ["--fallback"]
    try:
        out = subprocess.run([sys.executable, str(CHILD), *args], env=env, capture_output=True,
                             text=True, timeout=15)
    except subprocess.TimeoutExpired:
        pytest.fail("deadlock: the worker waited for Qt's signal-slot mutex holding the GIL")
    if out.returncode == 2 and sys.platform != "linux":
        pytest.skip(out.stdout.strip())
    assert out.returncode == 0 and out.stdout.strip().endswith("OK"), out.stdout + out.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="the platform CI runs on")
def test_the_gil_free_move_refuses_an_object_already_deleted(qtbot) -> None:
    """As PySide's own moveToThread does (a RuntimeError, not a crash on a freed address)."""
    import shiboken6
    from PySide6.QtGui import QTextDocument

    move = answer_document.gil_free_move()
    assert move is not None
    doc = QTextDocument()
    shiboken6.delete(doc)
    with pytest.raises(RuntimeError, match="already deleted"):
        move(doc, QApplication.instance().thread())
    alive = QTextDocument()
    gone = QThread()
    shiboken6.delete(gone)
    with pytest.raises(RuntimeError, match="already deleted"):
        move(alive, gone)
    assert alive.thread() is QThread.currentThread()  # (not moved)
