"""An answer laid out ahead (the case a reviewer likely opens next) outlives the pane it was
laid out for: the window closed while it was built or laid out, it is still laid out (the rest
of it, lazily, from the event loop) and used without touching the closed pane."""

from __future__ import annotations

import shiboken6
from PySide6.QtWidgets import QApplication

from citeview.gui.answer_document import prepare_document
from citeview.gui.answer_view import AnswerView


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
