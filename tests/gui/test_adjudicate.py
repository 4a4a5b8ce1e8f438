"""Adjudication of a merged session in the window: disagreements one by one, final verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from citeview.core.inputs import load_input
from citeview.gui.adjudicate import AdjudicationDialog
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_ready, shown_dialog
from citeview.gui.review_session import ANNOTATOR_KEY
from citeview.session.edits import set_verdict
from citeview.session.merge import ADJUDICATED, merge_sessions
from citeview.session.model import case_citations
from citeview.session.store import Session
from tests.conftest import load_sample

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")


def annotated(tmp_path: Path, name: str, verdicts: list[str]) -> Session:
    data = tmp_path / f"{name}.jsonl"
    data.write_text("".join(json.dumps(load_sample(f"{n}.case.json")) + "\n" for n in
                            ("handbook-line-level", "contract-block-level")), encoding="utf-8")
    s = Session.create(str(tmp_path / f"{name}.citeview"), load_input(str(data)), annotator=name)
    keys = [k for cid in s.case_ids() for slot in case_citations(s.get_case(cid))
            for k in slot.keys(cid)]
    for key, verdict in zip(keys, verdicts, strict=True):
        set_verdict(s, key, verdict)
    return s


def test_adjudicate_the_disagreements_with_keys(qtbot, tmp_path, messages) -> None:
    a = annotated(tmp_path, "ana", ["supported", "unsupported", "supported", "supported"])
    b = annotated(tmp_path, "bo", ["supported", "supported", "supported", "cannot tell"])
    merged, _report = merge_sessions(a, b, str(tmp_path / "both.citeview"))
    for s in (a, b, merged):
        s.close()
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "judge")
    win = MainWindow(settings=settings)
    qtbot.addWidget(win)
    win.show()
    assert win.open_path(str(tmp_path / "both.citeview")), messages.errors
    qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
    assert win.review.adjudicate_action.isEnabled()
    win.review.adjudicate_action.trigger()
    dlg = shown_dialog(win, AdjudicationDialog)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dlg)  # keys go to the dialog
    assert "Disagreement 1 of 2" in dlg.where.text()
    assert "citation 2" in dlg.where.text()
    text = dlg.text.toPlainText()
    assert "ana: unsupported" in text and "bo: supported" in text
    qtbot.waitUntil(lambda: is_ready(win) and win.active == 1, timeout=5000)
    qtbot.keyClick(dlg, Qt.Key.Key_3)  # final: unsupported, then the next one
    assert "Disagreement 2 of 2" in dlg.where.text()
    qtbot.waitUntil(lambda: is_ready(win) and win.view.case.id == "contract-block-level",
                    timeout=5000)
    qtbot.keyClick(dlg, Qt.Key.Key_4)
    s = win.review.session
    finals = {(a.key.case_id, a.key.number): a.verdict
              for a in s.annotations(annotator=ADJUDICATED)}
    assert finals == {("handbook-line-level", 2): "unsupported",
                      ("contract-block-level", 2): "cannot tell"}
    assert all(a.extra.get("adjudicator") == "judge"
               for a in s.annotations(annotator=ADJUDICATED))
    win.review.undo_stack.undo()
    assert len(s.annotations(annotator=ADJUDICATED)) == 1
    assert s.annotations(annotator="judge") == []  # the keys never reached the window
    # The summary counts final verdicts in place of the annotators' ones.
    assert "unsupported" in win.review.summary_text()
    dlg.close()
