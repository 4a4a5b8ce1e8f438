"""Dialogs fit the screen they open on: on a small display their buttons stay reachable."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QGuiApplication

from citeview.core.cases import Case
from citeview.gui.dialogs import ModelInputDialog, SummaryDialog
from citeview.gui.replay import QtStreamReplay


@pytest.mark.parametrize("make", [
    lambda: QtStreamReplay(Case("c", "An answer.\ue200cite\ue202turn0file0\ue201")),
    lambda: ModelInputDialog("text\n" * 200, "What the Model Saw"),
    lambda: SummaryDialog("line\n" * 200),
], ids=["stream-replay", "model-input", "summary"])
def test_a_dialog_opens_within_the_screen(qtbot, make) -> None:  # type: ignore[no-untyped-def]
    dlg = make()
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    room = (dlg.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    assert dlg.frameGeometry().width() <= room.width()
    assert dlg.frameGeometry().height() <= room.height()
    dlg.close()


@pytest.mark.qt_log_ignore(r"This plugin does not support")
def test_go_to_case_takes_one_enter_after_choosing_a_completion(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialog, QLineEdit

    from citeview.gui.dialogs import case_dialog

    dlg = case_dialog(None, ["alpha-one", "transit-multi-turn", "handbook"])
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    edit = dlg.findChild(QLineEdit)
    qtbot.keyClicks(edit, "tran")
    popup = edit.completer().popup()
    qtbot.waitUntil(popup.isVisible, timeout=3000)
    qtbot.keyClick(popup, Qt.Key.Key_Down)  # the completion highlighted
    qtbot.keyClick(popup, Qt.Key.Key_Return)  # one Enter: chosen, and gone there
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=3000)
    assert dlg.result() == QDialog.DialogCode.Accepted
    assert dlg.textValue() == "transit-multi-turn"
