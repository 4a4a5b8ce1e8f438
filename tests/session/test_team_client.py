"""The team client against a real (throwaway) PostgreSQL cluster: the outbox in front of the
PostgreSQL store, and the live feed (``LISTEN``). The server's faults (killed clients, restarts,
a stopped server) are ``test_team_faults.py``."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from citeview.session import edits
from citeview.session.events import AnnotationChanged, MetaChanged, ReviewChanged
from citeview.session.live import Heard, LiveFeed, heard_of
from citeview.session.model import ReviewState
from citeview.session.outbox import OutboxStore
from tests.session.conftest import key_of as first_key
from tests.session.conftest import sample_cases


@pytest.fixture
def project(pg: Any) -> str:
    from citeview.session.pg import PgBackend

    address: str = pg.address("qa")
    PgBackend().create_file(address, sample_cases(), overlap=2)
    return address


@pytest.fixture
def opened() -> Iterator[Callable[..., OutboxStore]]:
    from citeview.session.team_client import open_team_project

    stores: list[OutboxStore] = []

    def open_(address: str, annotator: str, **kw: Any) -> OutboxStore:
        store = open_team_project(address, annotator=annotator, **kw)
        stores.append(store)
        return store
    yield open_
    for s in stores:
        s.close()


def read_back(address: str, case_id: str, annotator: str) -> list[str | None]:
    from citeview.session.pg import PgBackend

    with PgBackend().open(address, readonly=True) as s:
        return [a.verdict for a in s.annotations(case_id, annotator=annotator)]


def test_a_verdict_is_committed_on_the_server_when_the_call_returns(
        project: str, opened: Callable[..., OutboxStore]) -> None:
    ana = opened(project, "ana")
    leased = ana.next_cases(3)
    assert len(leased) == 3 and all(ana.available_offline(c) for c in leased)
    edits.set_verdict(ana, first_key(ana, leased[0]), "supported")
    assert ana.waiting == 0 and ana.status().text() == "saved on the server"
    assert read_back(project, leased[0], "ana") == ["supported"]


def test_an_op_sent_twice_is_stored_once(project: str,
                                         opened: Callable[..., OutboxStore]) -> None:
    ana = opened(project, "ana")
    cid = ana.next_cases(1)[0]
    edit = edits.annotation_edit(ana, first_key(ana, cid), verdict="unsupported")
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    ana.outbox.add(first, edit.after)
    assert ana.retry() and read_back(project, cid, "ana") == ["unsupported"]
    ana.outbox.add(second, edit.before)  # undone
    assert ana.retry() and read_back(project, cid, "ana") == []
    # The first write sent again (as after a lost answer) is not stored a second time.
    ana.outbox.add(first, edit.after)
    assert ana.retry() and ana.waiting == 0
    assert read_back(project, cid, "ana") == []


def test_the_live_feed_hears_a_reviewers_verdict_and_a_leads_adjudication(
        project: str, pg: Any, opened: Callable[..., OutboxStore]) -> None:
    from citeview.session.pg import parse_address

    address = parse_address(project)
    heard: list[Heard] = []
    got = threading.Event()

    def on_heard(h: Heard) -> None:
        heard.append(h)
        got.set()
    feed = LiveFeed(address.conninfo, address.project, on_heard).start()
    try:
        assert feed.linked.wait(10)
        ana = opened(project, "ana")
        cid = ana.next_cases(1)[0]
        key = first_key(ana, cid)
        edits.set_verdict(ana, key, "supported")
        deadline = time.monotonic() + 10
        while not any(h.change == AnnotationChanged(cid) and h.who == "ana" for h in heard):
            assert time.monotonic() < deadline, heard
            got.wait(0.2)
            got.clear()
        edits.set_case(ana, cid, state=ReviewState.DONE)
        while not any(h.change == ReviewChanged(cid) and h.who == "ana" for h in heard):
            assert time.monotonic() < deadline, heard
            got.wait(0.2)
            got.clear()
    finally:
        feed.stop()
    assert not feed.linked.is_set()


def test_an_announcement_of_another_project_or_garbage_is_ignored() -> None:
    assert heard_of('{"project": "other", "table": "annotations", "case_id": "c"}', "qa") is None
    assert heard_of("not json", "qa") is None
    assert heard_of('{"project": "qa", "table": "annotations", "case_id": 3}', "qa") is None
    found = heard_of('{"project": "qa", "table": "reviews", "case_id": "c", "who": "ben"}', "qa")
    assert found == Heard(ReviewChanged("c"), "ben", "reviews")
    assert MetaChanged() == MetaChanged()
