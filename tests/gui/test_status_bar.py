"""The status bar keeps room for its message at 1024x640, and counts read as English."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from citeview.gui.elided import plural


def test_permanent_labels_give_way_to_the_message_after_a_resize(qtbot, tmp_path) -> None:
    from citeview.gui.main_window import MainWindow

    win = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(win)
    win.resize(1400, 860)
    win.show()
    qtbot.waitExposed(win)
    win.counts_label.setText("Case 10/6000 \u00b7 " + " \u00b7 ".join(
        plural(n, w) for n, w in ((1, "citation"), (2, "problem"), (3, "source"),
                                  (0, "error"), (1, "warning"))) + " \u00b7 17 missing")
    win.progress_label.setText("Cases done 4000/6000 \u00b7 Citations judged 20000/60000")
    win.resize(1024, 640)
    qtbot.waitUntil(lambda: win.statusBar().width() <= 1024)
    bar = win.statusBar()
    qtbot.waitUntil(lambda: sum(w.width() for w in (win.counts_label, win.progress_label,
                                                    win.review_session.label)) <= 0.7 * bar.width())
    left = min(w.x() for w in (win.counts_label, win.progress_label) if w.isVisible())
    assert left >= 0.25 * bar.width()  # a quarter of the bar, at least, for the message
    assert "Case 10/6000" in win.counts_label.toolTip()  # the whole text on hover


def test_counts_are_pluralised() -> None:
    assert plural(1, "citation") == "1 citation"
    assert plural(0, "citation") == "0 citations"
    assert plural(2, "match", "matches") == "2 matches"
