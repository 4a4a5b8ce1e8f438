"""Run under a real X server (see test_real_x.py): click chips with the X mouse at a window
width and zoom, and read the source pane back from the screen (what a reviewer sees, not a
re-render): whether the cited span's rows carry the highlight colour there. Prints JSON.

    python -m tests.gui.x_span_on_screen CASE WIDTH ZOOM CHIP [CHIP ...]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QPoint, QSettings
from PySide6.QtGui import QGuiApplication, QImage, QTextCursor
from PySide6.QtWidgets import QApplication


def settle(app: QApplication, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def screen_grab(widget: object) -> QImage:
    top_left = widget.mapToGlobal(QPoint(0, 0))  # type: ignore[attr-defined]
    return QGuiApplication.primaryScreen().grabWindow(
        0, top_left.x(), top_left.y(), widget.width(), widget.height()).toImage()  # type: ignore[attr-defined]


def main() -> None:
    case, width, zoom = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    chips = [int(a) for a in sys.argv[4:]]
    app = QApplication([])
    from citeview.gui.main_window import MainWindow
    from citeview.gui.readback import is_settled, view_state
    from citeview.gui.review_session import ANNOTATOR_KEY

    tmp = tempfile.mkdtemp()
    settings = QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "x")
    win = MainWindow(settings=settings)
    win.resize(width, 800)
    win.move(0, 0)
    win.show()
    win.activateWindow()
    win.open_path(case)
    end = time.monotonic() + 30
    while not (win.view is not None and is_settled(win)) and time.monotonic() < end:
        settle(app, 0.05)
    win.source.zoom(zoom)
    settle(app, 0.5)
    results = []
    for index in chips:
        answer = win.answer
        chip = answer.chip_range(index)
        assert chip is not None
        cursor = QTextCursor(answer.document())
        cursor.setPosition(chip[0])
        bar = answer.verticalScrollBar()
        bar.setValue(bar.value() + answer.cursorRect(cursor).center().y()
                     - answer.viewport().height() // 2)
        settle(app, 0.2)
        centre = answer.viewport().mapToGlobal(answer.chip_center(index))
        subprocess.run(["xdotool", "mousemove", str(centre.x()), str(centre.y()), "click", "1"],
                       check=True)
        # The click lands through the X server: wait for it (and a source's lines to go in),
        # then for the frame to reach the screen.
        end = time.monotonic() + 10
        while (win.active != index or win.source.is_loading()) and time.monotonic() < end:
            settle(app, 0.02)
        settle(app, 0.25)
        text = win.source.text_view()
        (sel,) = text.extraSelections()
        doc = text.document()
        first = doc.findBlock(sel.cursor.selectionStart())
        last = doc.findBlock(sel.cursor.selectionEnd())
        offset = text.contentOffset()
        top = text.blockBoundingGeometry(first).translated(offset).top()
        layout = last.layout()
        row = layout.lineAt(layout.lineCount() - 1)
        bottom = (text.blockBoundingGeometry(last).translated(offset).top() + row.y()
                  + row.height())
        image = screen_grab(text.viewport())
        height = text.viewport().height()
        x = text.viewport().width() - 2
        colour = text.roles.highlight.rgb()
        rows = [y for y in range(int(top) + 2, int(bottom) - 1) if 0 <= y < height]
        lit = [y for y in rows if image.pixel(x, y) == colour]
        state = view_state(win)
        results.append({"chip": index, "active": win.active, "lines": [state["first_line"],
                        state["last_line"]], "top": top, "bottom": bottom, "height": height,
                        "rows": len(rows), "lit": len(lit), "row_height": row.height(),
                        "span_in_view": state["span_in_view"]})
    print(json.dumps(results))
    win.close()


if __name__ == "__main__":
    main()
