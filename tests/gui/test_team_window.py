"""The window on a project on a PostgreSQL server (issue 29), through the entry point's
backend (gui/app.SESSIONS): opened by address, verdicts given with the keyboard are stored on
the server under the reviewer's role, and a second window of the same role is told the
project is in use."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from citeview.gui.advance import ADVANCE_KEY
from citeview.gui.readback import is_settled
from citeview.gui.review_session import ANNOTATOR_KEY

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")

DATASET = Path(__file__).parents[1] / "data" / "samples" / "policies.dataset.jsonl"


@pytest.fixture
def session_backend():  # type: ignore[no-untyped-def]
    from citeview.gui.app import SESSIONS

    return SESSIONS


def test_a_reviewer_window_opens_a_project_and_saves_verdicts_on_the_server(
        qtbot, tmp_path, pg, new_window, messages) -> None:  # type: ignore[no-untyped-def]
    from citeview.core.inputs import load_input
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member

    PgBackend().create_file(pg.address("win"), load_input(str(DATASET)))
    add_member(pg.address("win"), "ana")
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "someone else")  # the server knows the reviewer's role
    settings.setValue(ADVANCE_KEY, False)
    win = new_window(settings)
    address = pg.address("win", user="ana")
    assert win.open_path(address), messages.errors
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    assert win.view is not None and win.view.case.id == "handbook-line-level"
    qtbot.keyClick(win, Qt.Key.Key_1)
    assert win.view.citations[0].chip.state == "annotated"
    with PgBackend().open(pg.address("win"), readonly=True) as admin:
        assert [(a.annotator, a.verdict) for a in admin.annotations()] == [("ana", "supported")]
    second = new_window(QSettings(str(tmp_path / "s2.ini"), QSettings.Format.IniFormat))
    from citeview.gui import dialogs

    second.review_session.ask_in_use = lambda text: dialogs.InUse.CANCEL
    second.open_path(address)
    assert "already open in another citeview as ana" in (second.review_session.in_use or "")
    win.close()
    second.close()
