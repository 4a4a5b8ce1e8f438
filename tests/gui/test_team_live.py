"""Live progress in the window (pytest-qt) on a real (throwaway) PostgreSQL cluster: the server's
announcements (``LISTEN`` on a thread of the window's team link) reach the GUI thread; a lead's
status bar shows each reviewer's progress as they work, and a reviewer's window hears the lead's
adjudication."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QMainWindow

from citeview.gui.team import QtTeamLink
from citeview.session import edits
from citeview.session.events import Change
from citeview.session.model import Annotation, ReviewState, now_iso
from citeview.session.outbox import OutboxStore
from tests.session.conftest import key_of, sample_cases

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")


@pytest.fixture
def stores(pg: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
           ) -> Iterator[dict[str, OutboxStore]]:
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member
    from citeview.session.team_client import open_team_project

    monkeypatch.setenv("CITEVIEW_DATA_DIR", str(tmp_path / "data"))
    lead_address = pg.address("live")
    PgBackend().create_file(lead_address, sample_cases(), overlap=2)
    for who in ("ana", "ben"):
        add_member(lead_address, who)
    opened = {"lead": open_team_project(lead_address, annotator="lead", ahead=0)}
    for who in ("ana", "ben"):
        opened[who] = open_team_project(pg.address("live", user=who))
    yield opened
    for s in opened.values():
        s.close()


def window_on(qtbot: Any, store: OutboxStore) -> QtTeamLink:
    win = QMainWindow()
    qtbot.addWidget(win)
    link = QtTeamLink(win)
    link.attach(store)
    win.show()
    assert link.feed is not None
    qtbot.waitUntil(link.feed.feed.linked.is_set, timeout=10_000)
    return link


def test_a_leads_window_shows_each_reviewers_progress_as_they_work(
        qtbot: Any, stores: dict[str, OutboxStore]) -> None:
    link = window_on(qtbot, stores["lead"])
    try:
        assert not link.progress_label.isVisible()  # nobody has started
        ana, ben = stores["ana"], stores["ben"]
        a_case, b_case = ana.next_cases(1)[0], ben.next_cases(1)[0]
        edits.set_case(ana, a_case, state=ReviewState.DONE)
        qtbot.waitUntil(lambda: link.progress_label.text() == "ana: 1 done, 0 in progress",
                        timeout=10_000)
        key = key_of(ben, b_case)
        edits.set_verdict(ben, key, "supported")  # starts ben's case
        qtbot.waitUntil(lambda: link.progress_label.text() ==
                        "ana: 1 done, 0 in progress · ben: 0 done, 1 in progress",
                        timeout=10_000)
        assert link.progress_label.isVisible()
    finally:
        link.detach()


def test_a_leads_window_asks_the_progress_once_for_a_burst_of_changes(
        qtbot: Any, stores: dict[str, OutboxStore], monkeypatch: pytest.MonkeyPatch) -> None:
    """Three cases done in one write (several announcements at once): the lead's label shows
    them after one question to the store, which never lists every review for it."""
    from citeview.session.model import CaseReview
    from citeview.session.protocol import RowChange

    lead, ana = stores["lead"], stores["ana"]
    asked: list[bool] = []
    count = lead.annotator_progress

    def progress() -> Any:
        asked.append(True)
        return count()

    def every_review(case_id: str | None = None) -> Any:
        raise AssertionError("the window read every review of the project")

    monkeypatch.setattr(lead, "annotator_progress", progress)
    monkeypatch.setattr(lead, "reviews", every_review)
    link = window_on(qtbot, lead)
    try:
        held = ana.next_cases(3)
        assert len(held) == 3 and not link.progress_label.isVisible()
        asked.clear()
        ana.apply([RowChange("review", cid, "ana", None, False,
                             CaseReview(cid, "ana", ReviewState.DONE)) for cid in held])
        qtbot.waitUntil(lambda: link.progress_label.text() == "ana: 3 done, 0 in progress",
                        timeout=10_000)
        assert link.progress_label.isVisible() and asked == [True]
    finally:
        link.detach()


def test_a_reviewers_window_hears_the_leads_adjudication_on_the_gui_thread(
        qtbot: Any, stores: dict[str, OutboxStore]) -> None:
    ana, lead = stores["ana"], stores["lead"]
    link = window_on(qtbot, ana)
    heard: list[tuple[Change, bool]] = []
    ana.subscribe(lambda ch: heard.append(
        (ch, threading.current_thread() is threading.main_thread())))
    try:
        cid = ana.next_cases(1)[0]
        key = key_of(ana, cid)
        edits.set_verdict(ana, key, "unsupported")
        heard.clear()
        lead.put_annotation(Annotation(key, "lead", "supported", "adjudicated", now_iso()))
        qtbot.waitUntil(lambda: any(ch.case_id == cid for ch, _ in heard  # type: ignore[union-attr]
                                    ), timeout=10_000)
        assert all(on_gui for _, on_gui in heard)
        assert ("lead", "supported") in [(a.annotator, a.verdict)
                                         for a in ana.annotations(cid)]
    finally:
        link.detach()


def test_the_window_tops_the_reviewers_leases_up_to_k_ahead_fetched_for_offline_work(
        qtbot: Any, stores: dict[str, OutboxStore]) -> None:
    from citeview.session.team_client import AHEAD

    ana = stores["ana"]
    link = window_on(qtbot, ana)
    try:
        held = ana.next_cases(AHEAD)
        assert len(held) == AHEAD
        edits.set_case(ana, held[0], state=ReviewState.DONE)  # finished: its lease ends
        link._renew_leases()  # (the timer's job)
        now = ana.next_cases(AHEAD)
        assert held[0] not in now and len(now) == AHEAD
        assert all(ana.available_offline(c) for c in now)
    finally:
        link.detach()
