"""Starting the GUI: ``citeview [FILE] [--demo] [--case ID]`` and ``citeview open``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from citeview.core.inputs import InputLoader
from citeview.session.backends import AddressBackend
from citeview.session.loader import SESSION_LOADERS
from citeview.session.protocol import SessionBackend
from citeview.session.team_client import team_backend

if TYPE_CHECKING:  # Qt loads only when a window is made (the CLI starts without it)
    from PySide6.QtCore import QCoreApplication, QMessageLogContext, QSettings, QtMsgType
    from PySide6.QtGui import QIcon

    from citeview.core.datasets import Dataset
    from citeview.gui.main_window import MainWindow

#: Where the window keeps review sessions, and the readers of binary inputs it opens (session
#: files): chosen here, at the GUI's entry point. Files, and projects on a PostgreSQL server by
#: address (``citeview postgresql://...?project=NAME``): nothing else in the GUI changes.
#: Nothing is registered on import.
#: A reviewer's project opens behind its outbox (nothing acknowledged is lost while the server
#: is away: citeview.session.outbox).
SESSIONS: SessionBackend = AddressBackend(server=team_backend)
LOADERS: tuple[InputLoader, ...] = SESSION_LOADERS


def demo_path() -> Path:
    """The bundled demo dataset (JSONL, one case per material shape)."""
    from citeview.resource_files import resource_path

    return resource_path("demo", "demo.jsonl")


def application(offscreen: bool = False) -> QCoreApplication:
    """The QApplication (created once). ``offscreen`` selects the offscreen platform unless the
    user chose one."""
    if offscreen:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from citeview.gui.platform_check import check_platform, import_failure

    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as err:  # a system library of Qt's own is missing
        raise import_failure(err) from None

    app = QApplication.instance()
    if app is None:
        # Qt aborts the process when its platform cannot start: say what is missing first.
        display = check_platform()
        if os.environ.get("QT_QPA_PLATFORM") == "offscreen":
            _quiet_offscreen_notes()
        try:
            app = QApplication(sys.argv[:1])
        finally:
            if display is not None:
                display.close()  # Qt holds its own connection now
        app.setApplicationName("citeview")
        app.setOrganizationName("citeview")
        app.setWindowIcon(_app_icon())
    return app


def _app_icon() -> QIcon:
    from PySide6.QtGui import QIcon

    from citeview.resource_files import resource_path

    return QIcon(str(resource_path("icons", "citeview.svg")))


def user_settings() -> QSettings:
    """The user's settings store (window geometry, splitters, recent files, zoom)."""
    from PySide6.QtCore import QSettings

    return QSettings("citeview", "citeview")


# What the offscreen platform says about window-manager features it lacks: noise in a snapshot.
_OFFSCREEN_NOTES = ("This plugin does not support",)


def _quiet_offscreen_notes() -> None:
    from PySide6.QtCore import qInstallMessageHandler

    def handler(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if not message.startswith(_OFFSCREEN_NOTES):
            sys.stderr.write(message + "\n")

    qInstallMessageHandler(handler)


def new_window(settings: QSettings | None = None, synchronous: bool = False, *,
               sessions: SessionBackend | None = None,
               loaders: Iterable[InputLoader] | None = None) -> MainWindow:
    """A window composed of its parts (the one place outside the window that names it). The
    entry point names where sessions live and which binary inputs load (session files):
    :data:`SESSIONS` and :data:`LOADERS` unless given."""
    from citeview.gui.main_window import MainWindow

    return MainWindow(settings=settings, synchronous=synchronous,
                      sessions=sessions if sessions is not None else SESSIONS,
                      loaders=loaders if loaders is not None else LOADERS)


def run_gui(args: argparse.Namespace) -> int:
    """The window for ``citeview [FILE] [--demo] [--case ID]``."""
    app = application()
    win = new_window(user_settings())
    if getattr(args, "no_advance", False):
        win.advance.override(False)
    win.show()
    win.activateWindow()  # the keyboard is the reviewer's from the first key (no click)
    path = str(demo_path()) if getattr(args, "demo", False) else getattr(args, "file", None)
    if path:
        win.open_path(path, case_id=getattr(args, "case", None))
    return int(app.exec())


def run_gui_dataset(dataset: Dataset, case_id: str | None = None,
                    advance: bool = True) -> int:
    """The window on an already loaded dataset (``citeview open``)."""
    app = application()
    win = new_window(user_settings())
    if not advance:
        win.advance.override(False)
    win.show()
    win.activateWindow()
    win.open_input(dataset, case_id=case_id)  # reviewed in NAME.citeview like any input
    return int(app.exec())
