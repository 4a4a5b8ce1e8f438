"""The status bar keeps room for its message at 1024x640, and counts read as English."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from citeview.gui.elided import plural
from tests.gui.helpers import shown_window


def test_permanent_labels_give_way_to_the_message_after_a_resize(qtbot, tmp_path) -> None:
    win = shown_window(qtbot, tmp_path, size=(1400, 860))
    win.counts_label.setText("Case 10/6000 \u00b7 " + " \u00b7 ".join(
        plural(n, w) for n, w in ((1, "citation"), (2, "problem"), (3, "source"),
                                  (0, "error"), (1, "warning"))) + " \u00b7 17 missing")
    win.progress_label.setText("Cases done 4000/6000 \u00b7 Citations judged 20000/60000")
    win.resize(1024, 640)
    qtbot.waitUntil(lambda: win.statusBar().width() <= 1024)
    bar = win.statusBar()
    # (The case's counts are in the citations table's header since #25, not in the bar.)
    assert win.counts_label.parentWidget() is not bar
    qtbot.waitUntil(lambda: sum(w.width() for w in (win.progress_label,
                                                    win.review_session.label)) <= 0.7 * bar.width())

    def left() -> int:
        return min(w.x() for w in (win.progress_label, win.review_session.label)
                   if w.isVisible())

    # 40% of the bar, at least, for the message, once the bar is laid out again
    qtbot.waitUntil(lambda: left() >= 0.4 * bar.width())
    assert "Case 10/6000" in win.counts_label.toolTip()  # the whole text on hover


def test_counts_are_pluralised() -> None:
    assert plural(1, "citation") == "1 citation"
    assert plural(0, "citation") == "0 citations"
    assert plural(2, "match", "matches") == "2 matches"


def test_the_review_bar_fits_1024_pixels_without_an_overflow_menu(qtbot, tmp_path) -> None:
    import json

    from PySide6.QtWidgets import QToolButton

    from tests.conftest import load_sample

    data = tmp_path / "t.jsonl"
    data.write_text(json.dumps(load_sample("transit-multi-turn.case.json")) + "\n")
    win = shown_window(qtbot, tmp_path, name="ana", size=(1024, 640))
    assert win.open_path(str(data))
    from citeview.gui.readback import is_settled

    qtbot.waitUntil(lambda: is_settled(win) and win.review.session is not None)
    bar = win.review.toolbar
    qtbot.waitUntil(lambda: bar.width() <= 1024)
    ext = bar.findChild(QToolButton, "qt_toolbar_ext_button")
    assert ext is None or not ext.isVisible()  # no "\u00bb": every button shows
    for action in (win.review.done_action, win.review.blind_action):
        button = bar.widgetForAction(action)
        assert button is not None and button.isVisible()
        assert button.geometry().right() <= bar.width()


def test_the_ctrl_enter_warning_fits_the_status_bar_at_1024_pixels(
        qtbot, tmp_path, new_window) -> None:
    """The message a reviewer must read to go on (Ctrl+Enter with sources not judged) is not
    cut off by the permanent labels at 1024x640."""
    import json

    from citeview.gui.readback import is_settled
    from citeview.gui.review_session import ANNOTATOR_KEY
    from tests.conftest import load_sample

    data = tmp_path / "t.jsonl"
    data.write_text(json.dumps(load_sample("transit-multi-turn.case.json")) + "\n")
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "ana")
    win = new_window(settings)
    win.resize(1024, 640)
    assert win.open_path(str(data))
    qtbot.waitUntil(lambda: is_settled(win) and win.review.session is not None)
    bar = win.statusBar()
    qtbot.waitUntil(lambda: bar.width() <= 1024)
    win.review.done_action.trigger()
    text = bar.currentMessage()
    assert "not judged" in text
    qtbot.wait(50)
    # (the status bar's labels: the case's counts are in the citations header since #25)
    left = min(w.x() for w in (win.progress_label, win.review_session.label) if w.isVisible())
    # (with room to spare: a real X server's font measured wider than the offscreen one)
    assert bar.fontMetrics().horizontalAdvance(text) * 1.1 + 12 <= left, (text, left)


def test_counts_say_what_they_count_on_a_case_with_only_warnings(qtbot, new_window,
                                                                  tmp_path) -> None:
    """Every citation of CV306's case carries its warning and none has a problem: the bar says
    so ("0 with a problem", the warnings counted as lint warnings), never a bare "0 problems"."""
    import json
    from pathlib import Path

    from citeview.core.cases import Case
    from citeview.core.datasets import ListDataset
    from citeview.gui.readback import is_settled

    path = (Path(__file__).parents[1] / "data" / "lint"
            / "CV306-citations-grouped-at-end.case.json")
    case = Case.from_dict(json.loads(path.read_text(encoding="utf-8")))
    win = new_window(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    win.open_dataset(ListDataset([case]), citation=0)
    qtbot.waitUntil(lambda: is_settled(win) and "lint:" in win.counts_label.text(),
                    timeout=5000)
    cits = win.view.citations
    assert cits and all(any(d.code == "CV306" for d in c.diagnostics) for c in cits)
    assert not any(c.problem for c in cits)
    text = win.counts_label.text()
    warnings = win.view.counts()["warnings"]
    assert warnings >= 1
    assert plural(len(cits), "citation") + ", 0 with a problem" in text
    assert f"lint: 0 errors, {plural(warnings, 'warning')}" in text
    assert "0 problems" not in text
