"""Telling the user something: one bridge for info, warnings and errors.

Any part of the GUI (an edit, a background op that failed, a reload) calls :func:`info`,
:func:`warning` or :func:`error`. The main window connects :class:`MessageBridge` once to its
status bar, and shows errors the user must acknowledge in a dialog where one can be answered
(:func:`citeview.gui.dialogs.can_ask`). Nothing else writes to the status bar; tests and snapshots
read what was said by connecting to :attr:`MessageBridge.shown`
(:class:`citeview.gui.readback.MessageLog`).

Messages are plain text and may quote model text or file names: receivers never render them as
rich text.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import QObject, Signal


class Level(Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


#: A timeout that keeps the message until another one replaces it (the status of what is shown).
KEEP = 0
#: How long the status bar shows a message of each level unless the caller says otherwise (ms).
TIMEOUTS = {Level.INFO: 4000, Level.WARNING: 8000, Level.ERROR: 10000}


@dataclass(frozen=True, slots=True)
class Message:
    level: Level
    text: str
    timeout_ms: int
    #: An error the user must acknowledge: also a dialog, where a dialog can be answered.
    dialog: bool = False


class MessageBridge(QObject):
    """Where messages go; the main window is connected to it (and tests may be)."""

    shown = Signal(object)  # a Message
    cleared = Signal()  # the status bar shows nothing again

    def show(self, message: Message) -> None:
        self.shown.emit(message)

    def clear(self) -> None:
        self.cleared.emit()


_bridge: MessageBridge | None = None


def bridge() -> MessageBridge:
    """The one bridge of the application (made on first use; make it in the GUI thread)."""
    global _bridge
    if _bridge is None:
        _bridge = MessageBridge()
    return _bridge


def info(text: str, timeout_ms: int = TIMEOUTS[Level.INFO]) -> None:
    """Something the user may want to know: what happened, what is shown."""
    bridge().show(Message(Level.INFO, text, timeout_ms))


def warning(text: str, timeout_ms: int = TIMEOUTS[Level.WARNING]) -> None:
    """Something did not happen, or happens differently, and the user should know why."""
    bridge().show(Message(Level.WARNING, text, timeout_ms))


def error(text: str, *, dialog: bool = True, timeout_ms: int = TIMEOUTS[Level.ERROR]) -> None:
    """Something failed. One line (the text may quote an input: its breaks are dropped); a
    dialog unless ``dialog`` is False (the user was just asked about it)."""
    bridge().show(Message(Level.ERROR, " ".join(str(text).split()), timeout_ms, dialog))


def clear() -> None:
    """Take the status message away (what it said is over)."""
    bridge().clear()


__all__ = ["KEEP", "Level", "Message", "MessageBridge", "bridge", "clear", "error", "info",
           "warning"]
