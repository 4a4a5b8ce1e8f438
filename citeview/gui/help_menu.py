"""The Help menu: the keyboard shortcut sheet (F1, ``?``) and About.

The sheet is made from the window's ``QAction``s each time it opens (menu by menu, then the
window's own actions), so an action added anywhere shows up with its keys and the sheet never
goes stale. About says the version and where the session file is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from citeview.gui.dialogs import fit_to_screen

if TYPE_CHECKING:
    from citeview.gui.review_session import ReviewSession

# Keys the panes handle themselves (no action of their own).
PANE_KEYS = ("In the answer, Left/Right move from chip to chip; in the source, Shift+arrows "
             "select text (evidence, lines to cite); Tab and Shift+Tab move between the panes; "
             "Escape closes the find bar.")


@dataclass(frozen=True, slots=True)
class ShortcutRow:
    keys: str  # as the platform writes them, several joined by ", "
    what: str  # the action's text, without its mnemonic
    where: str  # the menu it is in ("File", "Review > Case Verdict"), or "Window"


def action_text(action: QAction) -> str:
    """An action's text as read: no ``&`` mnemonic marks, no trailing ellipsis."""
    text = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    return text.rstrip("\u2026").rstrip(".").strip()


def _keys(action: QAction) -> str:
    return ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText)
                     for s in action.shortcuts() if not s.isEmpty())


def shortcut_rows(window: QWidget) -> list[ShortcutRow]:
    """Every action of ``window`` that has a key: those in the menu bar's menus in menu order,
    then the rest of the window's actions (review keys also on the toolbar, undo...)."""
    rows: list[ShortcutRow] = []
    seen: set[int] = set()

    def add(action: QAction, where: str) -> None:
        if id(action) in seen or action.isSeparator():
            return
        seen.add(id(action))
        keys = _keys(action)
        if keys:
            rows.append(ShortcutRow(keys, action_text(action), where))

    def walk(menu: QMenu, where: str) -> None:
        for action in menu.actions():
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{where} \u25b8 {action_text(action)}")
            else:
                add(action, where)

    bar = window.menuBar() if hasattr(window, "menuBar") else None
    if bar is not None:
        for top in bar.actions():
            sub = top.menu()
            if isinstance(sub, QMenu):
                walk(sub, action_text(top))
    for action in [*window.actions(), *window.findChildren(QAction)]:
        add(action, "Window")
    return rows


class ShortcutSheet(QDialog):
    """The keys of every action, generated when opened (:func:`shortcut_rows`)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setWindowTitle("Keyboard Shortcuts")
        self.rows = shortcut_rows(window)
        lay = QVBoxLayout(self)
        table = self.table = QTableWidget(len(self.rows), 3)
        table.setHorizontalHeaderLabels(["Keys", "Action", "Menu"])
        for r, row in enumerate(self.rows):
            for c, text in enumerate((row.keys, row.what, row.where)):
                table.setItem(r, c, QTableWidgetItem(text))  # plain text (labels are ours)
        table.verticalHeader().hide()
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setShowGrid(False)
        table.setAlternatingRowColors(True)
        table.resizeColumnsToContents()
        table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        lay.addWidget(table)
        note = QLabel(PANE_KEYS)
        note.setWordWrap(True)
        note.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        fit_to_screen(self, 640, 720)

    def text(self) -> str:
        """The sheet as plain text, one action a line (tests, copying)."""
        return "\n".join(f"{r.keys}\t{r.what}\t{r.where}" for r in self.rows)


def show_shortcuts(window: QWidget) -> ShortcutSheet:
    sheet = ShortcutSheet(window)
    sheet.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    sheet.finished.connect(lambda _r: window.activateWindow())  # the keys are the window's again
    sheet.show()
    sheet.activateWindow()
    return sheet


def about_text(review_session: ReviewSession) -> str:
    """The version, the session file open (or none) and where sessions are kept."""
    from PySide6 import __version__ as pyside_version

    from citeview import __version__
    from citeview.session.location import sessions_dir

    s = review_session.session
    if s is not None:
        where = f"Session file: {s.path}" + (" (read-only)" if s.readonly else "")
    elif review_session.making():
        where = "Session file: being made for the input shown"
    else:
        where = "No review session open."
    data = str(sessions_dir())
    return "\n\n".join([
        f"citeview {__version__} (PySide6 {pyside_version})",
        where,
        "A review is kept in NAME.citeview beside its input; the demo's, and those of inputs "
        f"in read-only folders, in {data}.",
    ])


def show_about(window: QWidget, review_session: ReviewSession) -> QDialog:
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(QMessageBox.Icon.Information, "About citeview", about_text(review_session),
                      QMessageBox.StandardButton.Close, window)
    box.setTextFormat(Qt.TextFormat.PlainText)  # paths are the user's: never rich text
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.show()
    return box


__all__ = ["PANE_KEYS", "ShortcutRow", "ShortcutSheet", "about_text", "action_text",
           "shortcut_rows", "show_about", "show_shortcuts"]
