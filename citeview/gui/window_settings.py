"""The window's geometry, splitter positions, zoom and side by side: restored, saved, and sized
on a first run (no splitters saved yet). Never sees the window class, only a QMainWindow."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter, QTableView

from citeview.gui import dialogs
from citeview.gui.side_by_side import SIDE_BY_SIDE_KEY
from citeview.gui.view_modes import ViewModes


def first_size(room_width: int, room_height: int) -> tuple[int, int]:
    """The window's size on a first start on a screen with this much room: 90% of it, at least
    1400x860 (fitted to the room by the caller)."""
    return max(1400, room_width * 9 // 10), max(860, room_height * 9 // 10)


def restore(window: QMainWindow, s: QSettings, splitters: Sequence[QSplitter],
            modes: ViewModes) -> bool:
    """Restore what ``save`` kept; whether any splitter was restored."""
    geometry = s.value("window/geometry")
    if isinstance(geometry, QByteArray) and window.restoreGeometry(geometry):
        # Saved on a larger screen (a monitor, then the laptop's 1024x640): fitted to this one
        # and moved into it, never cut off at its edges.
        screen = window.screen()
        if screen is not None:
            room = screen.availableGeometry()
            frame = window.frameGeometry()
            margins = (frame.width() - window.width(), frame.height() - window.height())
            if frame.width() > room.width() or frame.height() > room.height():
                dialogs.fit_to_screen(window, window.width(), window.height(), frame=margins)
            frame = window.frameGeometry()
            if not room.contains(frame):
                frame.moveLeft(max(room.left(), min(frame.left(), room.right() - frame.width())))
                frame.moveTop(max(room.top(), min(frame.top(), room.bottom() - frame.height())))
                window.move(frame.topLeft())
    else:
        # First start: most of the screen (a 1920x1080 display gives the panes room), at least
        # 1400x860 where the screen has it, never more than it has (a 1024x640 display shows
        # the whole window, not its left part).
        screen = window.screen()
        room = screen.availableGeometry() if screen is not None else None
        width, height = first_size(room.width(), room.height()) if room else (1400, 860)
        dialogs.fit_to_screen(window, width, height, frame=(0, 0))
        if room is not None:
            frame = window.frameGeometry()
            frame.moveCenter(room.center())
            window.move(frame.topLeft())
    restored = False
    for split in splitters:
        state = s.value(f"splitters/{split.objectName()}")
        if isinstance(state, QByteArray):
            restored |= split.restoreState(state)
    try:
        modes.set_zoom(int(str(s.value("view/zoom", 0))))
    except (TypeError, ValueError):
        modes.set_zoom(0)
    if s.value(SIDE_BY_SIDE_KEY, False) in (True, "true", "1", 1):
        modes.set_side_by_side(True)
    return restored


def save(window: QMainWindow, s: QSettings, splitters: Sequence[QSplitter],
         modes: ViewModes) -> None:
    s.setValue("window/geometry", window.saveGeometry())
    for split in splitters:
        s.setValue(f"splitters/{split.objectName()}", split.saveState())
    s.setValue("view/zoom", modes.zoom)
    s.sync()


def first_run_sizes(width: int, split_main: QSplitter, split_right: QSplitter,
                    split_panes: QSplitter, citations_table: QTableView,
                    side_by_side: bool) -> None:
    """Lists take a quarter of the width (their questions and titles readable), the panes share
    the rest evenly; the citations table shows 8 rows."""
    width = max(width, 600)
    left = min(520, max(220, width * 28 // 100))
    split_main.setSizes([left, width - left])
    total = sum(split_right.sizes())
    rows = citations_table.verticalHeader().defaultSectionSize()
    below = max(total * 3 // 10, 8 * rows + 80)  # (a scroll bar may show)
    if total > 2 * below:
        split_right.setSizes([total - below, below])
    # Side by side, the two answers take two thirds (gui/side_by_side).
    answer = (width - left) * 2 // 3 if side_by_side else (width - left) // 2
    split_panes.setSizes([answer, width - left - answer])


__all__ = ["first_run_sizes", "first_size", "restore", "save"]
