"""The message bridge's messages, shown in the window's status bar while the window is shown (a
closed window tells nothing); an error to acknowledge also in a dialog, where one can be.
Never sees the window class, only a QMainWindow."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMainWindow

from citeview.gui import dialogs, message
from citeview.gui.message import Message


class StatusMessages(QObject):
    # A QObject child of the window: Qt drops its connections when the window goes.
    def __init__(self, window: QMainWindow, can_ask: Callable[[], bool]) -> None:
        super().__init__(window)
        self._window = window
        self._can_ask = can_ask  # whether a modal dialog can be answered
        self._connected = False

    def listen(self, on: bool) -> None:
        """Connect to (or leave) the bridge; idempotent."""
        if on == self._connected:
            return
        b = message.bridge()
        if on:
            b.shown.connect(self._show)
            b.cleared.connect(self._clear)
        else:
            b.shown.disconnect(self._show)
            b.cleared.disconnect(self._clear)
        self._connected = on

    def _show(self, m: Message) -> None:
        self._window.statusBar().showMessage(m.text, m.timeout_ms)
        if m.dialog and self._can_ask():
            dialogs.show_error(self._window, m.text)

    def _clear(self) -> None:
        self._window.statusBar().clearMessage()


__all__ = ["StatusMessages"]
