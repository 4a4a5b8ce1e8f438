"""The window follows the server's routing (issue 29), on the throwaway cluster: in a project of
N reviewers per case a reviewer's case list holds only the cases handed to them (and those they
judged), "done and next" takes the server's next hand-out, nobody gets a case another has,
reopening resumes where the reviewer stopped, an empty queue says "no more cases for you", and
a lead sees every case with its count of reviewers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt

from citeview.core.cases import Case
from citeview.gui.advance import ADVANCE_KEY
from citeview.gui.readback import is_settled
from citeview.gui.review_session import ANNOTATOR_KEY
from citeview.session.errors import SessionError
from citeview.session.model import CaseReview, ReviewState
from citeview.session.routed import NO_MORE, RoutedStore

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")


@pytest.fixture
def session_backend():  # type: ignore[no-untyped-def]
    from citeview.gui.app import SESSIONS

    return SESSIONS


def make(pg: Any, name: str, n: int, overlap: int | None, reviewers: list[str]) -> None:
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member

    address = pg.address(name)
    PgBackend().create_file(address, [Case(f"c{i:03}", f"Claim {i}.") for i in range(n)],
                            overlap=overlap)
    for who in reviewers:
        add_member(address, who)


def window_of(qtbot: Any, new_window: Any, tmp_path: Path, pg: Any, project: str,
              user: str, settle: bool = True) -> Any:
    settings = QSettings(str(tmp_path / f"{user}.ini"), QSettings.Format.IniFormat)
    settings.setValue(ADVANCE_KEY, True)
    settings.setValue(ANNOTATOR_KEY, user)  # (the server writes as the role connected as)
    win = new_window(settings)
    assert win.open_path(pg.address(project, user=user)), win.statusBar().currentMessage()
    if settle:
        qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    else:
        qtbot.wait(300)  # nothing to show: nothing to settle
    return win


def listed(win: Any) -> list[str]:
    model = win.cases_model
    return [model.data(model.index(r, 1)) for r in range(model.rowCount())]


def shown(win: Any) -> str | None:
    return win.view.case.id if win.view is not None else None


def focus(qtbot: Any, win: Any) -> None:
    """The review keys are window shortcuts: the window pressed in must be the active one."""
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=3000)


def done_and_next(qtbot: Any, win: Any, lands: str | None) -> None:
    """Ctrl+Enter on the case shown; the window lands on ``lands`` (None: stays put)."""
    before = shown(win)
    focus(qtbot, win)
    qtbot.keyClick(win, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    if lands is None:
        qtbot.wait(300)  # (time to move, were it to)
    else:
        qtbot.waitUntil(lambda: shown(win) == lands, timeout=5000)
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    if lands is None:
        assert shown(win) == before


def test_two_reviewers_on_an_n1_project_each_list_only_their_own_cases(
        qtbot, tmp_path, pg, new_window, messages) -> None:  # type: ignore[no-untyped-def]
    make(pg, "split", 8, 1, ["ana", "ben"])
    a = window_of(qtbot, new_window, tmp_path, pg, "split", "ana")
    b = window_of(qtbot, new_window, tmp_path, pg, "split", "ben")
    assert listed(a) == ["c000", "c001", "c002"]  # K handed out ahead, in input order
    assert listed(b) == ["c003", "c004", "c005"]
    assert shown(a) == "c000" and shown(b) == "c003"
    # A case handed to the other cannot be opened, nor written through the store.
    assert not b.navigator.goto_case("c001")
    assert shown(b) == "c003"
    assert any("'c001' is not handed to you" in m for m in messages.texts)
    store = b.review_session.session
    assert isinstance(store, RoutedStore)
    with pytest.raises(SessionError, match="not handed to you"):
        store.put_review(CaseReview("c001", "ben", ReviewState.DONE))
    a.close()
    b.close()


def test_done_and_next_takes_the_next_handout_and_nobody_gets_the_same_case(
        qtbot, tmp_path, pg, new_window, messages) -> None:  # type: ignore[no-untyped-def]
    from citeview.session.pg import PgBackend

    make(pg, "queue", 8, 1, ["ana", "ben"])
    a = window_of(qtbot, new_window, tmp_path, pg, "queue", "ana")
    b = window_of(qtbot, new_window, tmp_path, pg, "queue", "ben")
    assert shown(a) == "c000"
    # ana's three, then the third "done and next" asks the server for more: c003-c005 are
    # ben's, so hers are c006 and c007.
    for lands in ("c001", "c002", "c006"):
        done_and_next(qtbot, a, lands)
    assert listed(a) == ["c000", "c001", "c002", "c006", "c007"]  # the new hand-outs joined
    # Ctrl+PgDown past the last listed case also takes the server's next one (none are left
    # for ben beyond his own three).
    focus(qtbot, b)
    qtbot.keyClick(b, Qt.Key.Key_PageDown, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: shown(b) == "c004", timeout=5000)
    qtbot.waitUntil(lambda: is_settled(b), timeout=5000)
    done_and_next(qtbot, a, "c007")
    done_and_next(qtbot, a, None)  # the queue is empty for her now
    assert a.team.routing_label.text() == "No more cases for you"
    assert not set(listed(a)) & set(listed(b))
    with PgBackend().open(pg.address("queue"), readonly=True) as admin:
        assert {r.case_id for r in admin.reviews() if r.state is ReviewState.DONE} == {
            "c000", "c001", "c002", "c006", "c007"}
        assert all(r.annotator == "ana" for r in admin.reviews())
    a.close()
    b.close()


def test_reopening_resumes_where_the_reviewer_stopped(
        qtbot, tmp_path, pg, new_window, messages) -> None:  # type: ignore[no-untyped-def]
    make(pg, "resume", 6, 1, ["ana"])
    a = window_of(qtbot, new_window, tmp_path, pg, "resume", "ana")
    done_and_next(qtbot, a, "c001")
    done_and_next(qtbot, a, "c002")
    a.close()
    again = window_of(qtbot, new_window, tmp_path, pg, "resume", "ana")
    assert shown(again) == "c002"  # the first of hers not done
    # The done ones are listed (for a look back), topped up to K held: c002, c003, c004.
    assert listed(again) == ["c000", "c001", "c002", "c003", "c004"]
    assert again.progress.case_state("c000") is ReviewState.DONE
    again.close()


def test_an_empty_queue_says_no_more_cases_for_you(
        qtbot, tmp_path, pg, new_window, messages) -> None:  # type: ignore[no-untyped-def]
    make(pg, "small", 4, 1, ["ana", "ben"])
    a = window_of(qtbot, new_window, tmp_path, pg, "small", "ana")
    b = window_of(qtbot, new_window, tmp_path, pg, "small", "ben")
    assert listed(b) == ["c003"]  # ana holds three of the four
    label = b.findChild(type(b.team.routing_label), "teamRouting")
    assert label is not None and not label.isVisible()
    done_and_next(qtbot, b, None)
    assert label.isVisible() and label.text() == "No more cases for you"
    assert NO_MORE in messages.texts
    # ana's cases go back to the queue (her window died; here: released by the admin); ben's
    # next lease renewal takes them, and the window says "no more" is over.
    import psycopg

    with psycopg.connect(pg.conninfo(), autocommit=True) as conn:
        conn.execute("SELECT citeview.release_leases('small', 'ana')")
    b.team._renew_leases()  # (the renewal timer's work, every RENEW_MS)
    qtbot.waitUntil(lambda: not label.isVisible(), timeout=5000)
    assert listed(b) == ["c000", "c001", "c002", "c003"]
    done_and_next(qtbot, b, "c000")
    a.close()
    b.close()
    # Opening with nothing handed out (and nothing judged) says the same in the answer pane.
    make(pg, "taken", 2, 1, ["ana", "ben"])
    a = window_of(qtbot, new_window, tmp_path, pg, "taken", "ana")
    b = window_of(qtbot, new_window, tmp_path, pg, "taken", "ben", settle=False)
    assert listed(b) == [] and b.view is None
    assert NO_MORE in b.answer.toPlainText()
    assert b.team.routing_label.text() == "No more cases for you"
    a.close()
    b.close()


def test_a_lead_sees_every_case_with_its_count_of_reviewers(
        qtbot, tmp_path, pg, new_window, messages) -> None:  # type: ignore[no-untyped-def]
    from citeview.session.pg.team import add_member

    make(pg, "led", 6, 2, ["ana", "ben"])
    add_member(pg.address("led"), "lea", "lead")
    a = window_of(qtbot, new_window, tmp_path, pg, "led", "ana")
    lead = window_of(qtbot, new_window, tmp_path, pg, "led", "lea")
    assert listed(lead) == [f"c{i:03}" for i in range(6)]
    assert not isinstance(lead.review_session.session, RoutedStore)
    model = lead.cases_model

    def states() -> list[str]:
        return [model.data(model.index(r, 2)) for r in range(model.rowCount())]
    assert states() == ["1 reviewer"] * 3 + ["0 reviewers"] * 3
    repainted: set[int] = set()  # rows told their reviewers' column changed
    model.dataChanged.connect(lambda top, bottom, _roles=(): repainted.update(
        range(top.row(), bottom.row() + 1)) if top.column() <= 2 <= bottom.column() else None)
    b = window_of(qtbot, new_window, tmp_path, pg, "led", "ben")
    assert listed(b) == ["c000", "c001", "c002"]  # N = 2: the same three as ana
    # The lead's list follows live (the server's announcements of the hand-outs).
    qtbot.waitUntil(lambda: states()[:3] == ["2 reviewers"] * 3, timeout=5000)
    assert states()[3:] == ["0 reviewers"] * 3
    # Only the rows whose count moved are painted again (not the whole column).
    assert repainted and repainted <= {0, 1, 2}, repainted
    a.close()
    b.close()
    lead.close()


def test_a_full_overlap_project_lists_every_case(
        qtbot, tmp_path, pg, new_window, messages) -> None:  # type: ignore[no-untyped-def]
    make(pg, "all", 5, None, ["ana"])
    a = window_of(qtbot, new_window, tmp_path, pg, "all", "ana")
    assert listed(a) == [f"c{i:03}" for i in range(5)]
    assert not a.team.routed
    a.close()
