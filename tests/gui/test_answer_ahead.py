"""An answer laid out ahead (the case a reviewer likely opens next) outlives the pane it was
laid out for: the window closed while it was built or laid out, it is still laid out (the rest
of it, lazily, from the event loop) and used without touching the closed pane."""

from __future__ import annotations

from pathlib import Path

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication

from citeview.core.datasets import ListDataset
from citeview.gui.answer_document import PreparedDocument, prepare_document
from citeview.gui.answer_view import AnswerView
from citeview.gui.main_window import MainWindow
from tests.gui.helpers import window_settings
from tests.gui.test_side_by_side import long_case

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


def long_html() -> str:
    return "".join(f"<p>Paragraph {k}: <b>the handbook</b> says fact {k} holds, and a few "
                   f"more words to make the line wrap once or twice in a narrow pane.</p>"
                   for k in range(400))


def test_an_answer_laid_out_ahead_outlives_its_closed_pane(qtbot) -> None:
    view = AnswerView()
    view.resize(500, 400)
    view.show()
    qtbot.waitExposed(view)
    prepared = prepare_document(long_html(), False, view.font())
    doc = prepared.document
    view.lay_out_ahead(prepared)
    first = doc.begin().layout()
    assert first is not None and first.lineCount() > 0  # its first screen is laid out
    assert doc.lastBlock().layout().lineCount() == 0  # the rest of it later, from the loop
    view.close()
    shiboken6.delete(view)  # the window closed before the case it was built for is opened
    QApplication.processEvents()
    # The document keeps nothing of the dead pane (Qt would ask a freed widget for its
    # metrics while laying out the rest: "QPaintDevice::metrics: Device has no metric
    # information", or a crash, depending on what reused its memory).
    assert doc.documentLayout().paintDevice() is None
    qtbot.waitUntil(lambda: doc.lastBlock().layout().lineCount() > 0, timeout=5000)
    shown = AnswerView()  # and it can still be shown (another window's pane)
    qtbot.addWidget(shown)
    shown.resize(500, 400)
    shown.show()
    shown.set_prepared(prepared, [])
    qtbot.waitExposed(shown)
    assert shown.document() is doc and shown.toPlainText().startswith("Paragraph 0:")


def test_closing_the_window_as_the_next_case_is_laid_out_ahead(qtbot, session_backend,
                                                               tmp_path: Path) -> None:
    """The window closed right after the next case's answer was laid out ahead (its rest still
    to be laid out from the event loop), that answer kept alive a while longer (as a closed
    window's Python objects are until collected): no Qt warning, no crash (CI: the test after
    one such window failed with "QPaintDevice::metrics: Device has no metric information")."""
    win = MainWindow(settings=window_settings(tmp_path), sessions=session_backend)
    win.resize(1300, 800)
    win.show()
    qtbot.waitExposed(win)
    laid_out: list[tuple[PreparedDocument, bool]] = []
    lay_out_ahead = win.panes.answer.lay_out_ahead

    def then_close(prepared: PreparedDocument) -> None:
        lay_out_ahead(prepared)
        laid_out.append((prepared, prepared.document.lastBlock().layout().lineCount() == 0))
        win.close()
        win.deleteLater()

    win.panes.answer.lay_out_ahead = then_close  # type: ignore[method-assign]
    win.open_dataset(ListDataset([long_case(case_id=f"c{k}") for k in range(3)]), citation=0)
    qtbot.waitUntil(lambda: not shiboken6.isValid(win), timeout=5000)
    assert laid_out, "no case was built ahead"
    prepared, rest_later = laid_out[0]
    assert rest_later  # the window closed with the rest of that answer still to lay out
    doc = prepared.document
    qtbot.waitUntil(lambda: doc.lastBlock().layout().lineCount() > 0, timeout=5000)
    qtbot.wait(50)
