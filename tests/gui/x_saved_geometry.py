"""Run under a real X server: a window whose geometry was saved at 1728x972 (a 1920x1080
monitor) opens on this screen; prints its geometry and the screen's room as JSON."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QApplication


def main() -> None:
    app = QApplication([])
    from citeview.gui.main_window import MainWindow
    from citeview.gui.review_session import ANNOTATOR_KEY

    settings = QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "ana")
    saved = QByteArray.fromBase64(sys.argv[1].encode())
    settings.setValue("window/geometry", saved)
    win = MainWindow(settings=settings)
    win.show()
    for _ in range(20):
        app.processEvents()
    room = win.screen().availableGeometry()
    g = win.geometry()
    print(json.dumps({"window": [g.x(), g.y(), g.width(), g.height()],
                      "room": [room.x(), room.y(), room.width(), room.height()]}))


if __name__ == "__main__":
    main()
