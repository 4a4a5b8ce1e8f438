"""The message bridge: what any part of the GUI tells reaches the window's status bar."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from citeview.gui import message
from citeview.gui.message import Level

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")


@pytest.fixture
def win(new_window, tmp_path: Path):  # type: ignore[no-untyped-def]
    return new_window(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))


def test_messages_reach_the_status_bar_of_the_shown_window(win, messages) -> None:
    message.info("Loaded", message.KEEP)
    assert win.statusBar().currentMessage() == "Loaded"
    message.error("bad\ninput:\t3")  # one line, and no dialog offscreen
    assert win.statusBar().currentMessage() == "bad input: 3"
    message.clear()
    assert win.statusBar().currentMessage() == ""
    assert [(m.level, m.text) for m in messages.messages] == [
        (Level.INFO, "Loaded"), (Level.ERROR, "bad input: 3")]
    assert messages.errors == ["bad input: 3"]


def test_a_closed_window_hears_nothing(win) -> None:
    win.close()
    message.warning("after close")
    assert win.statusBar().currentMessage() == ""
