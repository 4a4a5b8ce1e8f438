"""A reviewer's window on a team project whose server goes away and comes back (pytest-qt).

The server is the stand-in of ``tests/session/flaky_server.py`` (the real one is in
``test_team_live.py``): the window says when it cannot reach it, the reviewer keeps judging with
the keyboard, the status bar counts the edits waiting, they reach the server once it is back, and
closing with edits waiting says so and keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from citeview.core.cases import Case
from citeview.core.datasets import Dataset
from citeview.gui.advance import ADVANCE_KEY
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled
from citeview.gui.review_session import ANNOTATOR_KEY
from citeview.session.errors import ServerUnreachable
from citeview.session.outbox import Outbox, OutboxStore, outbox_path
from citeview.session.protocol import ReviewStore
from tests.session.flaky_server import Server

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")
K = Qt.Key


class OutboxBackend:
    """Team projects on the stand-in server, each opened behind its outbox."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def exists(self, path: str) -> bool:
        return self.server.backend.exists(path)

    def create_file(self, path: str, cases: Dataset | Iterable[Case], *,
                    source: str | None = None) -> None:
        self.server.backend.create_file(path, cases, source=source)

    def create(self, path: str, cases: Dataset | Iterable[Case], *, annotator: str = "",
               source: str | None = None) -> ReviewStore:
        self.create_file(path, cases, source=source)
        return self.open(path, annotator=annotator)

    def open(self, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> OutboxStore:
        box = Outbox(outbox_path(path, annotator))
        try:
            first: ReviewStore | None = self.server.open(path, annotator)
        except ServerUnreachable:
            first = None
        return OutboxStore(first, box, path=path, annotator=annotator,
                           reconnect=lambda: self.server.open(path, annotator))


@pytest.fixture
def server() -> Server:
    return Server()


@pytest.fixture
def session_backend(server: Server) -> OutboxBackend:
    return OutboxBackend(server)


def settings_of(tmp_path: Path, name: str = "ana") -> QSettings:
    s = QSettings(str(tmp_path / f"{name}.ini"), QSettings.Format.IniFormat)
    s.setValue(ANNOTATOR_KEY, name)
    s.setValue(ADVANCE_KEY, False)
    return s


def server_verdicts(server: Server, path: str, case_id: str) -> list[str | None]:
    with server.backend.open(path, annotator="ana", readonly=True) as s:
        return [a.verdict for a in s.annotations(case_id, annotator="ana")]


def test_offline_the_window_says_so_keeps_judging_and_sends_when_back(
        qtbot, tmp_path, dataset, new_window, server, messages) -> None:  # type: ignore[no-untyped-def]
    win: MainWindow = new_window(settings_of(tmp_path))
    assert win.open_path(str(dataset)), messages.errors
    qtbot.waitUntil(lambda: isinstance(win.review_session.session, OutboxStore), timeout=5000)
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    store = win.review_session.session
    assert isinstance(store, OutboxStore)
    win.team._retry.setInterval(50)
    label = win.team.status_label
    assert label.isVisible() and label.text() == "saved on the server"
    case_id = win.view.case.id

    qtbot.keyClick(win, K.Key_1)
    assert server_verdicts(server, store.path, case_id) == ["supported"]

    server.down = True
    qtbot.keyClick(win, K.Key_J)
    qtbot.keyClick(win, K.Key_3)
    assert win.view.citations[1].chip.state == "annotated"  # judged on, offline
    assert "server unreachable" in label.text() and "1 edit waiting" in label.text()
    qtbot.keyClick(win, K.Key_K)
    qtbot.keyClick(win, K.Key_2)
    assert "2 edits waiting" in label.text()

    server.down = False
    qtbot.waitUntil(lambda: label.text() == "saved on the server", timeout=5000)
    assert server_verdicts(server, store.path, case_id) == ["partially supported",
                                                            "unsupported"]


def test_closing_with_edits_waiting_says_so_and_the_next_start_sends_them(
        qtbot, tmp_path, dataset, new_window, server, messages) -> None:  # type: ignore[no-untyped-def]
    win: MainWindow = new_window(settings_of(tmp_path))
    assert win.open_path(str(dataset)), messages.errors
    qtbot.waitUntil(lambda: isinstance(win.review_session.session, OutboxStore), timeout=5000)
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    store = win.review_session.session
    assert isinstance(store, OutboxStore)
    path, case_id = store.path, win.view.case.id
    server.down = True
    qtbot.keyClick(win, K.Key_4)
    assert store.waiting == 1, messages.texts
    win.close()
    note = win.team.closing_note
    assert note is not None and "1 edit could not reach the server" in note
    assert any("kept in the outbox" in m for m in messages.texts)
    assert server_verdicts(server_up(server), path, case_id) == []

    again: MainWindow = new_window(settings_of(tmp_path))
    assert again.open_path(str(dataset)), messages.errors
    qtbot.waitUntil(lambda: isinstance(again.review_session.session, OutboxStore), timeout=5000)
    qtbot.waitUntil(lambda: server_verdicts(server, path, case_id) == ["cannot tell"],
                    timeout=5000)
    assert again.team.status_label.text() == "saved on the server"


def server_up(server: Server) -> Server:
    server.down = False
    return server
