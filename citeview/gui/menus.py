"""The window's menus (File, Edit, View, Go; Help last, after the review's menu): each action
calls the part that does it. The window builds them once its parts exist; the review adds its
own menu and its Go actions (:class:`~citeview.gui.review.ReviewController`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from citeview.gui.exports import FORMATS, Exporter
from citeview.gui.find import FindScope

if TYPE_CHECKING:
    from citeview.gui.case_actions import CaseActions
    from citeview.gui.find import FindBar
    from citeview.gui.navigation import Navigator
    from citeview.gui.opening import InputOpener
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.source_view import QtSourceView
    from citeview.gui.view_modes import ViewModes
    from citeview.gui.watcher import InputWatcher

SAVE_CASE_AS = "Save Case &As\u2026"
SAVE_SESSION_AS = "Save Session &As\u2026"

Shortcut = QKeySequence | QKeySequence.StandardKey | str | list[QKeySequence] | None


def add_action(parent: QMainWindow, menu: QMenu, text: str, slot: Callable[..., Any],
               shortcut: Shortcut = None, checkable: bool = False) -> QAction:
    act = QAction(text, parent)
    if isinstance(shortcut, list):
        act.setShortcuts(shortcut)
    elif shortcut is not None:
        act.setShortcut(QKeySequence(shortcut))
    act.setCheckable(checkable)
    act.triggered.connect(slot)
    menu.addAction(act)
    return act


class WindowMenus:
    """The menus and the actions other code changes (enabled with a session, renamed)."""

    def __init__(self, window: QMainWindow, opener: InputOpener, cases: CaseActions,
                 review_session: ReviewSession, watcher: InputWatcher, find: FindBar,
                 modes: ViewModes, source: QtSourceView, nav: Navigator) -> None:
        self.window = window
        bar = window.menuBar()

        def action(menu: QMenu, text: str, slot: Callable[..., Any], shortcut: Shortcut = None,
                   checkable: bool = False) -> QAction:
            return add_action(window, menu, text, slot, shortcut, checkable)

        m = bar.addMenu("&File")
        action(m, "&Open\u2026", opener.open_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = m.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(lambda: opener.fill_recent(self.recent_menu))
        # "Save Session As" while a review session is open (it saves the session, and work
        # goes on in the copy); "Save Case As" (the shown case as JSON) without one.
        self.save_as_action = action(m, SAVE_CASE_AS, cases.save_as_dialog,
                                     QKeySequence.StandardKey.SaveAs)
        self.exporter = Exporter(review_session, window)
        self.export_menu = m.addMenu("&Export Review")
        for fmt, (text, _suffix, _pattern) in FORMATS.items():
            action(self.export_menu, text,
                   lambda _=False, f=fmt: self.exporter.export_dialog(f))
        self.report_action = action(m, "Review Re&port in Browser", self.exporter.open_report)
        self.session_attached(None)  # export and report wait for a review session
        action(m, "&Reload", watcher.reload, QKeySequence.StandardKey.Refresh)
        m.addSeparator()
        action(m, "&Quit", window.close, QKeySequence.StandardKey.Quit)

        m = bar.addMenu("&Edit")
        action(m, "&Find\u2026", lambda: find.open(), QKeySequence.StandardKey.Find)
        action(m, "Find &Next", lambda: find.find_next(), QKeySequence.StandardKey.FindNext)
        action(m, "Find &Previous", lambda: find.find_next(backward=True),
               QKeySequence.StandardKey.FindPrevious)
        action(m, "Find in All &Cases\u2026", lambda: find.open(FindScope.ALL_CASES),
               "Ctrl+Shift+F")
        m.addSeparator()
        copy_menu = m.addMenu("Copy Answer &As")
        for label, fmt in (("Clean &Text", "text"), ("&Markdown with Footnotes", "markdown"),
                           ("&HTML with Links", "html"), ("&Raw (with markers)", "raw")):
            action(copy_menu, label, lambda f=fmt: cases.copy_answer(f))

        m = bar.addMenu("&View")
        m.addActions([modes.raw_action, modes.side_by_side_action])
        m.addSeparator()
        m.addActions([modes.zoom_in_action, modes.zoom_out_action, modes.actual_size_action])
        action(m, "Open Source &URL", source.open_url, "Ctrl+L")
        action(m, "What the &Model Saw\u2026", cases.show_model_input, "Ctrl+I")
        action(m, "&Stream Replay\u2026", cases.show_replay, "Ctrl+Shift+R")
        m.addAction(modes.present_action)

        m = bar.addMenu("&Go")
        self.go_menu = m  # the review adds Next/Previous Citation (J/K, F8/Shift+F8)
        action(m, "Next &Source of Citation", nav.next_source_of_citation, "Ctrl+F8")
        m.addSeparator()
        action(m, "Next &Case", nav.next_case, "Ctrl+PgDown")
        action(m, "Previous C&ase", nav.previous_case, "Ctrl+PgUp")
        action(m, "&Go to Case\u2026", nav.goto_case_dialog, "Ctrl+G")

    def add_help(self, review_session: ReviewSession) -> None:
        """The Help menu: last, after the review's."""
        from citeview.gui import help_menu as help_sheet

        window = self.window
        m = window.menuBar().addMenu("&Help")
        self.help_menu = m
        self.shortcuts_action = add_action(
            window, m, "&Keyboard Shortcuts\u2026", lambda: help_sheet.show_shortcuts(window),
            [QKeySequence("F1"), QKeySequence("?")])
        add_action(window, m, "&About citeview\u2026",
                   lambda: help_sheet.show_about(window, review_session))

    def session_attached(self, session: object | None) -> None:
        """Save As saves the session while one is open; export and report need one."""
        self.save_as_action.setText(SAVE_SESSION_AS if session is not None else SAVE_CASE_AS)
        for act in (self.export_menu.menuAction(), self.report_action):
            act.setEnabled(session is not None)


__all__ = ["SAVE_CASE_AS", "SAVE_SESSION_AS", "WindowMenus", "add_action"]
