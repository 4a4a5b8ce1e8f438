"""Hostile files in the window (issue 31): a crafted session is refused with an error the user
acknowledges (a dialog where one can be answered), nothing in it runs; closing on a full disk
tells in a message instead of a traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from citeview.cli import main
from citeview.session.store import Session
from tests.session.make_hostile import HOSTILE, KEY, good_session, hostile_session, verdicts_of

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


class _FullDisk:
    """A session connection on a full disk: writes fail as SQLite fails them; reads work."""

    def __init__(self, conn) -> None:  # type: ignore[no-untyped-def]
        self._conn = conn

    def execute(self, sql: str, *args):  # type: ignore[no-untyped-def]
        if sql.lstrip().upper().startswith(("DELETE", "INSERT", "UPDATE", "BEGIN")):
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._conn, name)


def test_closing_the_window_on_a_full_disk_tells_instead_of_a_traceback(
        qtbot, win, messages, tmp_path: Path) -> None:
    """pytest-qt fails a test on an exception raised in closeEvent; the file keeps every
    verdict (the lock row left behind is seen as stale once this process is gone)."""
    path = good_session(tmp_path / "s.citeview")
    assert win.open_path(str(path))
    session = win.review_session.session
    assert session is not None and not session.readonly
    real = session.conn
    session.conn = _FullDisk(real)
    win.close()
    assert any("could not release the session" in e and "\n" not in e
               for e in messages.errors), messages.errors
    assert verdicts_of(path) == [("ana", "unsupported")]
    with Session.open(str(path), readonly=True) as s:  # the file is sound
        assert s.integrity_check() == "ok"
        assert s.annotation(KEY, "ana").verdict == "unsupported"


@pytest.mark.parametrize("labels", ["[1, 2]", '[{"a": 1}]', '{"x": 3}', "7"])
def test_a_screenshot_of_a_session_with_damaged_labels_is_one_line(
        qapp, capsys, tmp_path: Path, labels: str) -> None:
    path = good_session(tmp_path / "s.citeview")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'labels'", (labels,))
    conn.commit()
    conn.close()
    assert main(["screenshot", str(path), "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "labels" in err and "Traceback" not in err, err
    assert not (tmp_path / "x.png").exists()
