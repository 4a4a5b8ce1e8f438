"""The outbox (:mod:`citeview.session.outbox`) in front of a server that goes away on demand.

The "server" here is the session kept in memory behind a switch: while it is down every call
raises :class:`ServerUnreachable`, as the PostgreSQL store does when its connection is refused or
dropped; it keeps each op id once, as the server does. What a reviewer notices is checked: a
verdict is saved on the server only when acknowledged, work goes on offline on the cases fetched,
waiting edits are counted, sent in order when the server is back, never twice, and survive a
quit and a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from citeview.core.corrections import Correction, CorrectionKind
from citeview.core.datasets import ListDataset
from citeview.session import edits
from citeview.session.errors import ServerUnreachable, SessionError, SessionInUse
from citeview.session.events import AnnotationChanged, Change
from citeview.session.memory import MemoryBackend
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    Evidence,
    ReviewState,
)
from citeview.session.outbox import (
    Outbox,
    OutboxStatus,
    OutboxStore,
    change_from_json,
    change_json,
    outbox_path,
)
from citeview.session.protocol import ReviewStore, RowChange
from tests.session.conftest import key_of, sample_cases
from tests.session.flaky_server import Server


@pytest.fixture
def server() -> Server:
    s = Server()
    s.backend.create_file("project", ListDataset(sample_cases(), None, "jsonl"))
    return s


@pytest.fixture
def open_store(server: Server, tmp_path: Path) -> Iterator[Callable[..., OutboxStore]]:
    opened: list[OutboxStore] = []

    def open_(annotator: str = "ana") -> OutboxStore:
        box = Outbox(outbox_path("project", annotator))
        try:
            first: ReviewStore | None = server.open("project", annotator)
        except ServerUnreachable:
            first = None
        store = OutboxStore(first, box, path="project", annotator=annotator,
                            reconnect=lambda: server.open("project", annotator))
        opened.append(store)
        return store
    yield open_
    for s in opened:
        s.close()


def on_server(server: Server, key: AnnotationKey, annotator: str = "ana") -> str | None:
    with server.backend.open("project", annotator=annotator, readonly=True) as s:
        found = s.annotation(key)
        return None if found is None else found.verdict


def test_a_verdict_is_saved_on_the_server_before_the_call_returns(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    statuses: list[OutboxStatus] = []
    store.subscribe_status(statuses.append)
    cid = store.case_ids()[0]
    key = key_of(store, cid)
    edits.set_verdict(store, key, "supported")
    assert on_server(server, key) == "supported"
    assert store.waiting == 0 and statuses[-1].online
    assert statuses[-1].text() == "saved on the server"
    assert len(server.ops) == 1


def test_offline_the_reviewer_keeps_working_and_edits_wait_then_go_once(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    ids = store.case_ids()
    store.prefetch(ids[:2])  # the cases handed out ahead
    k0, k1 = key_of(store, ids[0]), key_of(store, ids[1])
    heard: list[Change] = []
    store.subscribe(heard.append)
    statuses: list[OutboxStatus] = []
    store.subscribe_status(statuses.append)

    server.down = True
    edits.set_verdict(store, k0, "unsupported")
    assert not store.online and store.waiting == 1
    assert "server unreachable" in statuses[-1].text() and "1 edit waiting" in statuses[-1].text()
    assert store.message is not None and "offline" in store.message
    # The window reads its own edit back, and the next leased case opens offline.
    assert store.annotation(k0) is not None and store.annotation(k0).verdict == "unsupported"
    assert store.get_case(ids[1]).id == ids[1]
    assert store.case_ids() == ids
    edits.set_case(store, ids[1], state=ReviewState.DONE)
    edits.set_verdict(store, k1, "supported")
    assert store.waiting == 3
    assert AnnotationChanged(ids[0], k0) in heard
    assert on_server(server_up(server), k0) is None  # not on the server: not shown as saved
    server.down = True

    assert not store.retry()  # still down: nothing lost, nothing sent
    assert store.waiting == 3
    server.down = False
    assert store.retry()
    assert store.waiting == 0 and store.online and statuses[-1].text() == "saved on the server"
    assert on_server(server, k0) == "unsupported" and on_server(server, k1) == "supported"
    with server.backend.open("project", annotator="ana", readonly=True) as s:
        assert s.review(ids[1]).state is ReviewState.DONE
    assert len(server.ops) == 3
    assert store.retry() and len(server.ops) == 3  # nothing sent twice


def server_up(server: Server) -> Server:
    server.down = False
    return server


def test_a_write_whose_answer_was_lost_is_sent_again_and_stored_once(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    cid = store.case_ids()[0]
    key = key_of(store, cid)
    server.drop_answer = True
    edits.set_verdict(store, key, "supported")
    assert store.waiting == 1 and not store.online  # not acknowledged: not shown as saved
    server.down = False
    assert store.retry()
    assert server.ops.count(server.ops[0]) == 1 and len(server.ops) == 1
    assert on_server(server, key) == "supported"


def test_quitting_with_edits_waiting_keeps_them_for_the_next_start(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    ids = store.case_ids()
    key = key_of(store, ids[0])
    server.down = True
    edits.set_verdict(store, key, "cannot tell")
    assert store.waiting == 1
    store.close()

    # The next start, server still down: the edit still waits and the case still opens.
    again = open_store()
    assert not again.online and again.waiting == 1
    assert again.annotation(key) is not None and again.annotation(key).verdict == "cannot tell"
    assert again.get_case(ids[0]).id == ids[0]
    assert again.labels == ("supported", "partially supported", "unsupported", "cannot tell")
    again.close()

    # Started again with the server back: sent at once.
    server.down = False
    third = open_store()
    assert third.online and third.waiting == 0
    assert on_server(server, key) == "cannot tell"


def test_verdicts_changed_and_cleared_online_open_offline_as_last_saved(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    cid = store.case_ids()[0]
    k0, k1 = key_of(store, cid, 0), key_of(store, cid, 1)
    edits.set_verdict(store, k0, "supported")
    edits.set_verdict(store, k1, "unsupported")
    edits.set_verdict(store, k0, "cannot tell")  # changed: the copy keeps the last
    edits.set_verdict(store, k1, None)  # cleared: the copy drops it
    assert store.waiting == 0 and on_server(server, k0) == "cannot tell"
    store.close()

    server.down = True
    again = open_store()  # offline start: read from the copy
    assert not again.online
    assert again.annotation(k0) is not None and again.annotation(k0).verdict == "cannot tell"
    assert again.annotation(k1) is None
    assert [a.key for a in again.annotations(cid)] == [k0]


def test_a_case_not_fetched_before_the_server_went_away_says_so(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    ids = store.case_ids()
    store.prefetch(ids[:1])
    server.down = True
    with pytest.raises(ServerUnreachable, match="not fetched before the server"):
        store.get_case(ids[-1])
    with pytest.raises(ServerUnreachable, match="needs the server"):
        store.set_labels(["a", "b"])


def test_a_write_the_server_refuses_is_refused_and_not_kept_waiting(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    with pytest.raises(SessionError, match="no case"):
        store.apply([RowChange("review", "no-such-case", "ana", None, False, None)])
    assert store.waiting == 0


def test_one_window_per_project_and_annotator(server: Server,
                                             open_store: Callable[..., OutboxStore]) -> None:
    open_store("ana")
    with pytest.raises(SessionInUse, match="already open for this annotator"):
        Outbox(outbox_path("project", "ana"))
    open_store("ben")  # another annotator has an outbox of their own


def test_an_edit_undone_offline_is_undone_on_the_server_too(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    cid = store.case_ids()[0]
    key = key_of(store, cid)
    edits.set_verdict(store, key, "supported")
    server.down = True
    edit = edits.set_verdict(store, key, "unsupported")
    edit.undo()
    assert store.annotation(key) is not None and store.annotation(key).verdict == "supported"
    server.down = False
    assert store.retry()
    assert on_server(server, key) == "supported"


def test_a_change_round_trips_through_the_outbox_file() -> None:
    store = MemoryBackend().create("x", sample_cases(), annotator="ana")
    cid = store.case_ids()[0]
    key = key_of(store, cid)
    edit = edits.set_verdict(store, key, "supported")
    for ch in [*edit.before, *edit.after]:
        assert change_from_json(change_json(ch)) == ch


# ---------------------------------------------------------------------- issue 30's rows


def on_server_rows(server: Server, case_id: str, annotator: str = "ana"
                   ) -> tuple[list[Evidence], list[Correction], list[Annotation]]:
    with server.backend.open("project", annotator=annotator, readonly=True) as s:
        return (s.evidence(case_id), s.corrections(case_id),
                s.annotations(case_id, annotator=annotator))


def test_evidence_corrections_and_reasons_made_offline_wait_and_go_once(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    ids = store.case_ids()
    store.prefetch(ids[:1])
    cid = ids[0]
    key = key_of(store, cid)
    citation = store.analysed(cid).citations[0]
    server.down = True
    edits.evidence_edit(store, key, 0, 5, first_line=1, last_line=1, text="hello").do()
    edits.remove_citation_edit(store, cid, citation).do()
    edits.annotation_edit(store, key, verdict="unsupported", reasons=("wrong source",)).do()
    edits.reword_edit(store, cid, (0, 3), "New").do()
    assert not store.online and store.waiting == 4
    # The window reads them back from the copy while the server is away.
    [ev] = store.evidence(cid)
    [corr, reword] = store.corrections(cid)
    assert (reword.kind, reword.claim, reword.text) == (CorrectionKind.REWORD, (0, 3), "New")
    assert (ev.start, ev.end, ev.text) == (0, 5, "hello")
    assert corr.kind is CorrectionKind.REMOVE and corr.number == citation.number
    assert store.annotation(key) is not None and store.annotation(key).reasons == (
        "wrong source",)
    assert on_server_rows(server_up(server), cid) == ([], [], [])
    server.down = True

    server.down = False
    assert store.retry() and store.waiting == 0
    evidence, corrections, annotations = on_server_rows(server, cid)
    assert evidence == [ev] and corrections == [corr, reword]
    assert [a.reasons for a in annotations] == [("wrong source",)]
    assert len(server.ops) == 4
    assert store.retry() and len(server.ops) == 4  # nothing sent twice

    # Taken back online: gone on the server too.
    store.delete_evidence(ev)
    store.delete_correction(corr)
    store.delete_correction(reword)
    assert on_server_rows(server, cid)[:2] == ([], [])


def test_evidence_and_corrections_survive_a_quit_while_waiting_and_open_offline(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    ids = store.case_ids()
    cid = ids[0]
    key = key_of(store, cid)
    citation = store.analysed(cid).citations[0]
    store.put_evidence(Evidence(key, "ana", "e1", 1, 4, text="ell"))  # saved on the server
    server.down = True
    edits.remove_citation_edit(store, cid, citation).do()  # waits
    store.close()

    again = open_store()  # server still down: the saved row and the waiting one both show
    assert not again.online and again.waiting == 1
    assert [e.id for e in again.evidence(cid)] == ["e1"]
    assert [c.kind for c in again.corrections(cid)] == [CorrectionKind.REMOVE]
    again.close()

    server.down = False
    third = open_store()
    assert third.online and third.waiting == 0
    assert [c.kind for c in on_server_rows(server, cid)[1]] == [CorrectionKind.REMOVE]


def test_reasons_offline_come_from_the_copy_and_changing_them_needs_the_server(
        server: Server, open_store: Callable[..., OutboxStore]) -> None:
    store = open_store()
    store.set_reasons(["wrong lines", "too broad"])
    store.close()
    open_store().close()  # the settings are copied when the server is reached
    server.down = True
    store = open_store()  # an offline start
    assert not store.online
    assert store.reasons == ("wrong lines", "too broad")
    with pytest.raises(ServerUnreachable, match="needs the server"):
        store.set_reasons(["other"])


def test_evidence_and_corrections_round_trip_through_the_outbox_file() -> None:
    store = MemoryBackend().create("x", sample_cases(), annotator="ana")
    cid = store.case_ids()[0]
    key = key_of(store, cid)
    citation = store.analysed(cid).citations[0]
    for edit in (edits.evidence_edit(store, key, 2, 7, first_line=1, last_line=2, text="x"),
                 edits.relocate_edit(store, cid, citation, locator="L1-L2"),
                 edits.reword_edit(store, cid, (0, 3), "New"),
                 edits.annotation_edit(store, key, verdict="unsupported",
                                       reasons=("wrong source", "outdated source"))):
        edit.do()
        for ch in [*edit.before, *edit.after]:
            assert change_from_json(change_json(ch)) == ch
