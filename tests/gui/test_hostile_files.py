"""Hostile files in the window (issue 31): a crafted session is refused with an error the user
acknowledges (a dialog where one can be answered), nothing in it runs; closing on a full disk
tells in a message instead of a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from tests.session.make_hostile import HOSTILE, hostile_session, verdicts_of

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture
def win(new_window, tmp_path):  # type: ignore[no-untyped-def]
    return new_window(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_session_is_refused_in_a_dialog(qtbot, win, messages, tmp_path: Path,
                                                  kind: str) -> None:
    path = hostile_session(tmp_path / "h.citeview", kind)
    assert not win.open_path(str(path))
    (error,) = [m for m in messages.messages if m.dialog]
    assert "citeview did not create" in error.text and "\n" not in error.text
    assert verdicts_of(path) == [("ana", "unsupported")]
