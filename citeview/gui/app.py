"""Starting the GUI (placeholder main window until the inspection window lands)."""

from __future__ import annotations

import argparse
import sys


def run_gui(args: argparse.Namespace) -> int:
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    win = QMainWindow()
    win.setWindowTitle("citeview")
    win.resize(1200, 800)
    win.show()
    return int(app.exec())
