"""Keyboard focus between the panes: Tab and Shift+Tab move case list -> answer -> source ->
citations table (and round), every pane shows that it has the focus, and nothing else takes a
Tab stop (filters, the sources list and the find bar's neighbours are a click away).

Inside the answer, Tab used to walk every chip and then an invisible stop; now the arrow keys
(Left/Right) and J/K move between chips, and Tab leaves the pane. Tables move row by row, not
cell by cell, on Tab: Tab leaves them too.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QPlainTextEdit,
    QTextBrowser,
    QTextEdit,
    QWidget,
)

PANE = "pane"  # object-name prefix styled with a focus frame


def install(window: QWidget, stops: list[QWidget], find_bar: QWidget) -> None:
    """Tab order, Tab stops (``stops``, in order: hidden ones are skipped by Qt) and focus
    frames for ``window`` (once its widgets exist); the find bar keeps its own Tab stops."""
    keep = set(stops)
    for w in window.findChildren(QWidget):
        if w in keep or find_bar.isAncestorOf(w):
            continue
        if w.focusPolicy() & Qt.FocusPolicy.TabFocus:
            w.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
    for w in stops:
        w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        if isinstance(w, QAbstractItemView):
            w.setTabKeyNavigation(False)
        if isinstance(w, (QTextEdit, QPlainTextEdit)):
            w.setTabChangesFocus(True)
        if isinstance(w, QTextBrowser):  # Tab walked the links: chips move with arrows, J/K
            w.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                      | Qt.TextInteractionFlag.LinksAccessibleByMouse)
    for a, b in zip(stops, stops[1:], strict=False):
        QWidget.setTabOrder(a, b)
    roles_highlight = window.palette().color(window.palette().ColorRole.Highlight).name()
    for k, w in enumerate(stops):
        w.setObjectName(w.objectName() or f"{PANE}{k}")
        name = w.objectName()
        w.setStyleSheet(f"#{name} {{ border: 2px solid transparent; }}"
                        f"#{name}:focus {{ border: 2px solid {roles_highlight}; }}")


__all__ = ["install"]
