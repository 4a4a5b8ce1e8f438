"""Run under a real X server (see test_real_x.py): click a chip with the X mouse, grab the
answer pane; reach the same chip with the X keyboard, grab again; print what was seen (JSON).

A chip clicked with the mouse once went blank (an empty dotted box) while the keyboard drew it
right: offscreen rendering never showed it."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QPoint, QSettings
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QApplication


def settle(app: QApplication, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def screen_grab(win: object) -> QImage:
    """The answer pane as the X server shows it (what a reviewer sees), not a re-render."""
    view = win.answer.viewport()  # type: ignore[attr-defined]
    top_left = view.mapToGlobal(QPoint(0, 0))
    screen = QGuiApplication.primaryScreen()
    return screen.grabWindow(0, top_left.x(), top_left.y(), view.width(),
                             view.height()).toImage()


def main() -> None:
    case, index = sys.argv[1], int(sys.argv[2])
    app = QApplication([])
    from citeview.gui.main_window import MainWindow
    from citeview.gui.readback import is_settled
    from citeview.gui.review_session import ANNOTATOR_KEY

    tmp = tempfile.mkdtemp()
    settings = QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "x")
    win = MainWindow(settings=settings)
    win.resize(1024, 640)
    win.move(0, 0)
    win.show()
    win.activateWindow()
    win.open_path(case)
    end = time.monotonic() + 20
    while not (win.view is not None and is_settled(win)) and time.monotonic() < end:
        settle(app, 0.05)
    settle(app, 0.5)
    out: dict[str, object] = {}
    # Mouse: a real click on the chip where it is on screen.
    centre = win.answer.viewport().mapToGlobal(win.answer.chip_center(index))
    subprocess.run(["xdotool", "mousemove", str(centre.x()), str(centre.y()), "click", "1"],
                   check=True)
    settle(app, 0.5)
    subprocess.run(["xdotool", "mousemove", "1000", "620"], check=True)  # off the chip
    settle(app, 0.5)
    out["active_after_click"] = win.active
    out["chip_after_click"] = win.answer.chip_text(index)
    mouse = screen_grab(win)
    # Keyboard: from the chip before it, Right (a real key through X).
    win.navigator.activate_citation(index - 1)
    settle(app, 0.3)
    win.answer.setFocus()
    settle(app, 0.3)
    out["focus"] = type(QApplication.focusWidget()).__name__
    subprocess.run(["xdotool", "key", "Right"], check=True)
    settle(app, 0.5)
    out["active_after_key"] = win.active
    out["chip_after_key"] = win.answer.chip_text(index)
    key = screen_grab(win)
    out["same_picture"] = mouse == key
    if not out["same_picture"]:
        mouse.save(str(Path(tmp) / "mouse.png"))
        key.save(str(Path(tmp) / "key.png"))
        out["pictures"] = tmp
    print(json.dumps(out))
    win.close()


if __name__ == "__main__":
    main()
