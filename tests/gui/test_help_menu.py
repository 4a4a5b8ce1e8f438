"""The Help menu: a shortcut sheet made from the window's actions (F1, ?) and About."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication

from citeview import __version__
from citeview.gui.help_menu import ShortcutSheet, about_text, action_text
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled
from citeview.gui.review_session import ANNOTATOR_KEY

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")


def window(qtbot, new_window, tmp_path: Path, path: Path | None = None) -> MainWindow:  # type: ignore[no-untyped-def]
    s = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    s.setValue(ANNOTATOR_KEY, "ana")
    win = new_window(s)
    if path is not None:
        assert win.open_path(str(path))
        qtbot.waitUntil(lambda: is_settled(win) and win.active is not None, timeout=5000)
    return win


def open_sheets() -> list[ShortcutSheet]:
    return [w for w in QApplication.topLevelWidgets()
            if isinstance(w, ShortcutSheet) and w.isVisible()]


@pytest.mark.parametrize("key", [Qt.Key.Key_F1, Qt.Key.Key_Question])
def test_f1_and_question_mark_open_the_shortcut_sheet(qtbot, new_window, tmp_path, dataset,
                                                       key) -> None:  # type: ignore[no-untyped-def]
    win = window(qtbot, new_window, tmp_path, dataset)
    qtbot.keyClick(win, key)
    qtbot.waitUntil(lambda: bool(open_sheets()), timeout=3000)
    text = open_sheets()[0].text()
    assert "Go to Case" in text and QKeySequence("Ctrl+G").toString(
        QKeySequence.SequenceFormat.NativeText) in text
    # The review keys of the session's rubric, with their menu.
    assert any(line.startswith("1\t") and "supported" in line and "Review" in line
               for line in text.splitlines())
    for sheet in open_sheets():
        sheet.close()


def test_every_action_with_a_key_is_on_the_sheet(qtbot, new_window, tmp_path, dataset) -> None:  # type: ignore[no-untyped-def]
    win = window(qtbot, new_window, tmp_path, dataset)
    sheet = ShortcutSheet(win)
    listed = {(r.what, r.keys) for r in sheet.rows}
    keyed = [a for a in win.findChildren(QAction) if any(not s.isEmpty() for s in a.shortcuts())]
    assert len(keyed) > 30  # menus, review keys, undo...
    for a in keyed:
        keys = ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText)
                         for s in a.shortcuts() if not s.isEmpty())
        assert (action_text(a), keys) in listed, action_text(a)
    sheet.close()


def test_an_action_added_later_shows_up_on_the_sheet(qtbot, new_window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    win = window(qtbot, new_window, tmp_path)
    before = ShortcutSheet(win)
    assert not any(r.what == "Frobnicate" for r in before.rows)
    before.close()
    act = QAction("&Frobnicate\u2026", win)
    act.setShortcut(QKeySequence("Ctrl+Shift+9"))
    win.menus.go_menu.addAction(act)
    after = ShortcutSheet(win)
    row = next(r for r in after.rows if r.what == "Frobnicate")
    assert row.where == "Go" and row.keys == QKeySequence("Ctrl+Shift+9").toString(
        QKeySequence.SequenceFormat.NativeText)
    after.close()


def test_about_says_the_version_and_where_the_session_file_is(
        qtbot, new_window, tmp_path, dataset) -> None:  # type: ignore[no-untyped-def]
    win = window(qtbot, new_window, tmp_path)
    about = about_text(win.review_session)
    assert __version__ in about and "No review session open" in about
    assert win.open_path(str(dataset))
    qtbot.waitUntil(lambda: win.review_session.session is not None, timeout=5000)
    text = about_text(win.review_session)
    assert str(dataset.with_suffix(".citeview")) in text
    assert "About citeview" in [a.text().replace("&", "").rstrip("\u2026")
                                for a in win.menus.help_menu.actions()]
