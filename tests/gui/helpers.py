"""Helpers the window's tests share (and the scripts run under a real X server: no pytest
here): a citation marker, a reviewer's settings, a shown window, a chip scrolled into view, the
highlighted span's rows on screen, the event loop run for a while, a grab of the screen."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from PySide6.QtCore import QPoint, QSettings
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPalette, QTextCursor
from PySide6.QtWidgets import QApplication, QWidget

from citeview.core.markers import DELIMITER, START, STOP

if TYPE_CHECKING:
    from citeview.gui.main_window import MainWindow


def cite(*parts: str) -> str:
    """A guide-format citation marker: ``cite("turn0file0", "L2-L3")``."""
    return START + "cite" + DELIMITER + DELIMITER.join(parts) + STOP


def reading_palette(dark: bool) -> QPalette:
    """A light (or dark) desktop's palette: its base and text colours."""
    pal = QPalette()
    base, text = ("#1e1e1e", "#dddddd") if dark else ("#ffffff", "#1f1f1f")
    pal.setColor(QPalette.ColorRole.Base, QColor(base))
    pal.setColor(QPalette.ColorRole.Text, QColor(text))
    return pal


def window_settings(folder: Path, name: str | None = None, advance: bool | None = None,
                    file: str = "settings.ini") -> QSettings:
    """A window's settings kept in ``folder`` (never the user's): the reviewer's ``name``
    (None: not asked yet) and moving on after a verdict (``advance``; None: the default),
    set only when given."""
    from citeview.gui.advance import ADVANCE_KEY
    from citeview.gui.review_session import ANNOTATOR_KEY

    settings = QSettings(str(folder / file), QSettings.Format.IniFormat)
    if name is not None:
        settings.setValue(ANNOTATOR_KEY, name)
    if advance is not None:
        settings.setValue(ADVANCE_KEY, advance)
    return settings


def shown_window(qtbot: Any, folder: Path, *, name: str | None = None,
                 size: tuple[int, int] = (1280, 800)) -> MainWindow:
    """A main window with settings in ``folder``, shown (exposed) at ``size``, with the
    sessions the application uses."""
    from citeview.gui.main_window import MainWindow

    win = MainWindow(settings=window_settings(folder, name))
    qtbot.addWidget(win)
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    return win


def centre_chip(win: MainWindow, index: int) -> None:
    """Scroll the answer once to put chip ``index`` (0-based) in the middle of the pane (as
    far as the scroll range reaches yet)."""
    answer = win.answer
    chip = answer.chip_range(index)
    assert chip is not None
    cursor = QTextCursor(answer.document())
    cursor.setPosition(chip[0])
    bar = answer.verticalScrollBar()
    bar.setValue(bar.value() + answer.cursorRect(cursor).center().y()
                 - answer.viewport().height() // 2)


def scroll_to_chip(qtbot: Any, win: MainWindow, index: int) -> None:
    """Scroll the answer until chip ``index`` (0-based) stands in the pane, as a reader
    scrolling on would (a long answer may still be laid out, its scroll range growing)."""
    answer = win.answer

    def there() -> bool:
        centre_chip(win, index)
        at = answer.chip_center(index)
        return at is not None and answer.viewport().rect().contains(at)

    qtbot.waitUntil(there, timeout=10_000)


class SpanRows(NamedTuple):
    top: float  # the span's first row, in the source viewport (as laid out: as painted)
    bottom: float  # the bottom of its last row
    height: int  # the viewport's height
    row_height: float  # the last row's


def span_rows(win: MainWindow) -> SpanRows:
    """Where the highlighted span's rows are in the source viewport, from the text layout."""
    text = win.source.text_view()
    (sel,) = text.extraSelections()
    doc = text.document()
    first = doc.findBlock(sel.cursor.selectionStart())
    last = doc.findBlock(sel.cursor.selectionEnd())
    offset = text.contentOffset()
    top = text.blockBoundingGeometry(first).translated(offset).top()
    layout = last.layout()
    row = layout.lineAt(layout.lineCount() - 1)
    bottom = text.blockBoundingGeometry(last).translated(offset).top() + row.y() + row.height()
    return SpanRows(top, bottom, text.viewport().height(), row.height())


def settle(app: QApplication, seconds: float) -> None:
    """Run the event loop for ``seconds`` (a script's wait for the X server and the window)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def screen_grab(widget: QWidget) -> QImage:
    """``widget`` as the screen shows it (what a reviewer sees), not a re-render."""
    top_left = widget.mapToGlobal(QPoint(0, 0))
    return QGuiApplication.primaryScreen().grabWindow(
        0, top_left.x(), top_left.y(), widget.width(), widget.height()).toImage()


def opened_on_screen(app: QApplication, path: str, settings: QSettings, *,
                     size: tuple[int, int] | None = None, session: bool = False,
                     timeout: float = 30.0) -> MainWindow:
    """A main window at the screen's top left (``size``, or as a first start sizes it), shown
    and active, with ``path`` open: returned once its case is shown and settled (and its
    review session attached, with ``session``), or after ``timeout`` seconds. For the scripts
    run under a real X server."""
    from citeview.gui.main_window import MainWindow
    from citeview.gui.readback import is_settled

    win = MainWindow(settings=settings)
    if size is not None:
        win.resize(*size)
    win.move(0, 0)
    win.show()
    win.activateWindow()
    win.open_path(path)
    end = time.monotonic() + timeout
    while not (win.view is not None and is_settled(win)
               and (not session or win.review_session.session is not None)
               ) and time.monotonic() < end:
        settle(app, 0.05)
    return win
