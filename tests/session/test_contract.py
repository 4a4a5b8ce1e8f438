"""The session interface (:class:`citeview.session.protocol.ReviewStore`): one contract, run
against every implementation (the SQLite file, the session kept in memory and a project on a
PostgreSQL server: a throwaway cluster, skipped without PostgreSQL unless
CITEVIEW_REQUIRE_POSTGRES=1), so the window and the commands can rely on the protocol."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from citeview.core.cases import Case
from citeview.core.datasets import ListDataset
from citeview.session import edits
from citeview.session.errors import ReadOnlySession, SessionError, SessionInUse
from citeview.session.events import (
    AnnotationChanged,
    CaseChanged,
    CasesAdded,
    Change,
    MetaChanged,
    ReviewChanged,
    SizesKnown,
)
from citeview.session.memory import MemoryBackend
from citeview.session.model import Annotation, CaseReview, ReviewState
from citeview.session.protocol import ReviewStore, RowChange, SessionBackend
from citeview.session.store import SQLITE
from tests.session.conftest import key_of, sample_cases

# The server twice: as its admin (a superuser: row-level security does not apply) and as a lead
# (a plain role granted citeview_lead: every write passes the policies).
BACKENDS = ("sqlite", "memory", "postgresql", "postgresql-lead")
LEAD = "contract_lead"


def make_backend(name: str) -> SessionBackend:
    if name.startswith("postgresql"):
        from citeview.session.pg import PgBackend

        return PgBackend()
    return SQLITE if name == "sqlite" else MemoryBackend()


def server_user(request: pytest.FixtureRequest, name: str) -> str:
    """The role the server's sessions of ``name`` connect as (a lead made when needed)."""
    cluster = request.getfixturevalue("pg")
    if name != "postgresql-lead":
        return "citeview_admin"
    import psycopg

    from citeview.session.pg.schema import migrate

    with psycopg.connect(cluster.conninfo(), autocommit=True) as conn:
        migrate(conn)
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (LEAD,)).fetchone():
            conn.execute(f"CREATE ROLE {LEAD} LOGIN IN ROLE citeview_lead")
    return LEAD


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> SessionBackend:
    if request.param.startswith("postgresql"):
        request.getfixturevalue("pg")
    return make_backend(request.param)


@pytest.fixture
def place(request: pytest.FixtureRequest, backend: SessionBackend,
          tmp_path: Path) -> Callable[[str], str]:
    """Where a session named ``name`` lives for ``backend``: a file, or a project."""
    kind = request.node.callspec.params["backend"]
    if kind.startswith("postgresql"):
        cluster, user = request.getfixturevalue("pg"), server_user(request, kind)
        return lambda name: str(cluster.address(name, user=user))
    return lambda name: str(tmp_path / f"{name}.citeview")


@pytest.fixture
def path(place: Callable[[str], str]) -> str:
    return place("s")


@pytest.fixture
def session(backend: SessionBackend, path: str) -> Iterator[ReviewStore]:
    s = backend.create(path, ListDataset(sample_cases(), None, "jsonl"), annotator="ana")
    yield s
    s.close()


def test_cases_are_held_in_input_order_and_read_back_whole(session: ReviewStore) -> None:
    cases = sample_cases()
    assert session.case_ids() == [c.id for c in cases] and len(session) == len(cases)
    for i, c in enumerate(cases):
        assert session.index_of(c.id) == i
        assert session.get_case(c.id) == c == session.case_at(i)
        assert session.case_data(c.id) == c.to_dict()
    ds = session.dataset()
    assert ds.kind == "session" and ds.case_ids() == session.case_ids()
    with pytest.raises(KeyError):
        session.index_of("no-such-case")


def test_settings_are_kept_and_checked(backend: SessionBackend, session: ReviewStore,
                                       path: str) -> None:
    seen: list[Change] = []
    session.subscribe(seen.append)
    assert session.name == "s" and session.blind is False
    session.set_labels(["yes", "no"])
    session.set_blind(True)
    session.set_meta("x-team", {"a": 1})
    assert seen == [MetaChanged()] * 3
    with pytest.raises(SessionError, match="distinct"):
        session.set_labels(["a", "a"])
    session.close()
    with backend.open(path) as again:
        assert again.labels == ("yes", "no") and again.blind is True
        assert again.meta["x-team"] == {"a": 1}


def test_verdicts_by_two_annotators_persist_and_resume(backend: SessionBackend,
                                                       session: ReviewStore, path: str) -> None:
    key = key_of(session, "handbook-line-level")
    edits.set_verdict(session, key, "supported")
    edits.set_case(session, "handbook-line-level", state=ReviewState.DONE)
    session.close()
    with backend.open(path, annotator="bob") as s:
        edits.set_verdict(s, key, "unsupported")
        assert s.annotation(key, "ana").verdict == "supported"  # type: ignore[union-attr]
        assert s.annotation(key).verdict == "unsupported"  # type: ignore[union-attr]
        assert [a.annotator for a in s.annotations("handbook-line-level")] == ["ana", "bob"]
        assert [a.annotator for a in s.annotations(annotator="bob")] == ["bob"]
        assert s.first_not_done("ana") == 1 and s.first_not_done() == 0
        assert s.states("ana") == {"handbook-line-level": ReviewState.DONE}
        assert s.review("handbook-line-level", "ana").state is ReviewState.DONE
        assert s.review("contract-block-level").state is ReviewState.NOT_STARTED


def test_annotations_come_in_case_then_citation_order(session: ReviewStore) -> None:
    ids = session.case_ids()
    keys = [key_of(session, ids[2], 1), key_of(session, ids[0], 1), key_of(session, ids[0], 0)]
    for k in keys:
        edits.set_verdict(session, k, "supported")
    got = [(a.case_id, a.key.number) for a in session.iter_annotations()]
    assert got == sorted(got, key=lambda x: (ids.index(x[0]), x[1])) and len(got) == 3
    assert [a.key for a in session.iter_annotations(ids[0], number=keys[1].number)] == [keys[1]]


def test_an_edit_is_undone_and_redone_with_one_typed_event_per_row(session: ReviewStore) -> None:
    key = key_of(session, "transit-multi-turn", 1, 1)
    seen: list[Change] = []
    unsubscribe = session.subscribe(seen.append)
    e1 = edits.set_verdict(session, key, "supported")
    assert seen == [AnnotationChanged("transit-multi-turn", key),
                    ReviewChanged("transit-multi-turn")]
    first = session.annotation(key)
    e2 = edits.set_verdict(session, key, "partially supported")
    e2.undo()
    assert session.annotation(key) == first
    e1.undo()
    assert session.annotation(key) is None
    assert session.review("transit-multi-turn").state is ReviewState.NOT_STARTED
    e1.redo()
    assert session.review("transit-multi-turn").state is ReviewState.IN_PROGRESS
    unsubscribe()
    n = len(seen)
    e1.undo()
    assert len(seen) == n


def test_an_empty_annotation_or_review_is_deleted(session: ReviewStore) -> None:
    key = key_of(session, "handbook-line-level")
    session.put_annotation(Annotation(key, "ana", "supported"))
    session.put_annotation(Annotation(key, "ana"))
    assert session.annotation(key) is None and session.annotations() == []
    session.put_review(CaseReview("handbook-line-level", "ana", ReviewState.DONE))
    session.put_review(CaseReview("handbook-line-level", "ana"))
    assert session.reviews() == []


def test_rows_for_an_unknown_case_are_refused_and_nothing_of_the_batch_is_kept(
        session: ReviewStore) -> None:
    key = key_of(session, "handbook-line-level")
    good = Annotation(key, "ana", "supported")
    bad = CaseReview("no-such-case", "ana", ReviewState.DONE)
    with pytest.raises(SessionError):
        session.apply([RowChange("annotation", key.case_id, "ana", key, False, good),
                       RowChange("review", "no-such-case", "ana", None, False, bad)])
    assert session.annotations() == [] and session.reviews() == []
    assert session.current_row(RowChange("annotation", key.case_id, "ana", key, False,
                                         None)) is None


def test_cases_are_added_and_a_changed_answer_reattaches_verdicts(session: ReviewStore) -> None:
    seen: list[Change] = []
    session.subscribe(seen.append)
    assert session.add_cases([Case("new", "Claim."), session.get_case("handbook-line-level")]) \
        == ["new"]
    assert seen == [CasesAdded()] and session.case_ids()[-1] == "new"
    key = key_of(session, "handbook-line-level")
    edits.set_verdict(session, key, "supported")
    old = session.get_case("handbook-line-level")
    changed = replace(old, answer="Nothing is cited here any more.")
    result = session.update_case(changed)
    assert [a.key for a in result.orphaned] == [key] and result.placed == []
    assert seen[-1] == CaseChanged("handbook-line-level")
    assert session.get_case("handbook-line-level").answer == changed.answer
    assert [a.key for a in session.orphans()] == [key]
    assert session.annotation(key) is None  # orphans are not placed annotations
    again = session.sync_from(ListDataset([old, Case("newer", "More.")], None, "jsonl"))
    assert list(again) == ["handbook-line-level"] and "newer" in session.case_ids()


def test_item_counts_are_recorded_once_and_dropped_with_new_families(
        session: ReviewStore) -> None:
    seen: list[Change] = []
    session.subscribe(seen.append)
    counts = session.analysed("transit-multi-turn").item_counts
    assert session.sizes()["transit-multi-turn"] == counts
    assert seen == [SizesKnown("transit-multi-turn")]
    session.analysed("transit-multi-turn")
    assert len(seen) == 1  # nothing new
    session.record_sizes_many({"handbook-line-level": (1, 1)})
    assert session.sizes()["handbook-line-level"] == (1, 1)
    session.set_meta("families", ["cite", "navlist"])
    assert session.sizes() == {} and session.families == ("cite", "navlist")
    assert session.analyser.families == ("cite", "navlist")


def test_one_writer_at_a_time_and_read_only_refuses_changes(
        backend: SessionBackend, session: ReviewStore, path: str) -> None:
    with pytest.raises(SessionInUse):
        backend.open(path)
    with backend.open(path, readonly=True) as reader:
        assert reader.readonly
        with pytest.raises(ReadOnlySession):
            reader.set_blind(True)
        reader.changed_elsewhere()
        edits.set_verdict(session, key_of(session, "handbook-line-level"), "supported")
        assert reader.changed_elsewhere() is True
        assert reader.changed_elsewhere() is False
        assert [a.verdict for a in reader.annotations()] == ["supported"]
    taken = backend.open(path, force=True)
    taken.close()
    assert session.integrity_check() == "ok"


def test_a_failing_listener_does_not_stop_the_others(session: ReviewStore) -> None:
    seen: list[Change] = []

    def broken(change: Change) -> None:
        raise RuntimeError("broken view")
    session.subscribe(broken)
    session.subscribe(seen.append)
    with pytest.raises(RuntimeError, match="broken view"):
        session.set_blind(True)
    assert seen == [MetaChanged()] and session.blind is True


def test_save_as_continues_in_the_copy_and_keeps_the_original(
        backend: SessionBackend, session: ReviewStore, path: str,
        place: Callable[[str], str]) -> None:
    key = key_of(session, "handbook-line-level")
    edits.set_verdict(session, key, "supported")
    seen: list[Change] = []
    session.subscribe(seen.append)
    copy = place("copy")
    session.save_as(copy)
    assert session.path == copy and seen == [MetaChanged()]
    edits.set_verdict(session, key, "unsupported")
    with backend.open(path, readonly=True) as original:
        assert original.annotation(key, "ana").verdict == "supported"  # type: ignore[union-attr]
    assert backend.exists(copy) and backend.exists(path)
    assert not backend.exists(place("never"))
    with pytest.raises(SessionError, match="already exists"):
        backend.create(copy, [Case("c", "Claim.")])


def _same_review_work(s: ReviewStore) -> None:
    """The same edits, in the same order, on any implementation."""
    ids = s.case_ids()
    s.set_labels(["supported", "unsupported", "unclear"])
    edits.set_verdict(s, key_of(s, "transit-multi-turn", 1, 1), "unsupported")
    edits.set_note(s, key_of(s, ids[0]), "block 2 says so")
    edits.set_verdict(s, key_of(s, ids[0]), "supported")
    edits.set_case(s, ids[0], state=ReviewState.DONE, verdict="supported", note="fine")
    # issue 30's rows: a reason, an evidence span, a correction
    s.set_reasons(["wrong source", "stale"])
    key = key_of(s, "transit-multi-turn", 1, 1)
    edits.annotation_edit(s, key, reasons=["stale"]).do()
    edits.evidence_edit(s, key, 0, 4, text="abcd").do()
    edits.relocate_edit(s, ids[0], s.analysed(ids[0]).citations[0], locator="L1").do()
    time.sleep(0.01)  # the report counts the most recent verdict (millisecond timestamps)
    s.annotator = "bob"
    edits.set_verdict(s, key_of(s, ids[0]), "unclear")


def _without_clock(doc: dict[str, object]) -> str:
    import json
    import re

    # Evidence and correction ids are made at random: blanked (case ids are kept).
    blanked = dict(doc)
    for kind in ("evidence", "corrections"):
        rows = doc.get(kind)
        if isinstance(rows, list):
            blanked[kind] = [{**row, "id": ""} for row in rows]
    text = json.dumps(blanked, sort_keys=True)
    return re.sub(r'"(created|timestamp)": "[^"]*"', r'"\1": ""', text)


def _available(request: pytest.FixtureRequest) -> list[str]:
    """The implementations to compare: the server's when a cluster runs (a missing one is a
    failure under CITEVIEW_REQUIRE_POSTGRES=1, through the fixture)."""
    try:
        request.getfixturevalue("pg")
    except pytest.skip.Exception:
        return [b for b in BACKENDS if not b.startswith("postgresql")]
    return list(BACKENDS)


def test_every_implementation_exports_and_reports_the_same(
        tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """What the commands read of a session (export document, rows, report) does not depend on
    where the session lives."""
    from citeview.session.interchange import export_document
    from citeview.session.report import render_text, summarize
    from citeview.session.rows import iter_rows

    docs, rows, reports = [], [], []
    names = _available(request)
    for name in names:
        backend = make_backend(name)
        (tmp_path / name).mkdir()
        where = (request.getfixturevalue("pg").address("s", user=server_user(request, name))
                 if name.startswith("postgresql") else str(tmp_path / name / "s.citeview"))
        with backend.create(where, ListDataset(sample_cases(), None, "jsonl"),
                            annotator="ana") as s:
            _same_review_work(s)
            docs.append(_without_clock(export_document(s)))
            rows.append([(r.case_id, r.number, r.source_id, r.verdict, r.annotator, r.status)
                         for r in iter_rows(s)])
            reports.append(render_text(summarize(s)))
        if name.startswith("postgresql"):  # the next one makes project "s" again
            import psycopg

            with psycopg.connect(request.getfixturevalue("pg").conninfo()) as admin:
                admin.execute("DELETE FROM citeview.projects")
    assert docs[0] == docs[1] and rows[0] == rows[1] and reports[0] == reports[1]
    assert all(d == docs[0] for d in docs) and all(r == rows[0] for r in rows)
    assert all(r == reports[0] for r in reports) and len(docs) == len(names)
    assert any(r[3] == "unclear" and r[4] == "bob" for r in rows[0])
    assert "unclear                1" in reports[0]  # bob's verdict, the most recent
    assert '"stale"' in docs[0] and '"text": "abcd"' in docs[0] and '"relocate"' in docs[0]


def test_sessions_of_any_implementation_merge_into_a_file(tmp_path: Path) -> None:
    from citeview.session.merge import merge_sessions

    mem = MemoryBackend()
    a = mem.create(str(tmp_path / "a.citeview"), sample_cases(), annotator="ana")
    b = SQLITE.create(str(tmp_path / "b.citeview"), sample_cases(), annotator="bo")
    key = key_of(a, "handbook-line-level")
    edits.set_verdict(a, key, "supported")
    edits.set_verdict(b, key, "unsupported")
    merged, _report = merge_sessions(a, b, str(tmp_path / "m.citeview"))
    with merged:
        assert {(x.annotator, x.verdict) for x in merged.annotations()} == {
            ("ana", "supported"), ("bo", "unsupported")}
    a.close()
    b.close()
    assert (tmp_path / "m.citeview").exists() and not (tmp_path / "a.citeview").exists()


# ---------------------------------------------------------------- issue 30: reasons, evidence,
# corrections on every store


def test_reasons_are_a_setting_and_stored_with_a_verdict(backend: SessionBackend,
                                                         session: ReviewStore,
                                                         path: str) -> None:
    from citeview.session.model import DEFAULT_REASONS

    assert session.reasons == DEFAULT_REASONS
    session.set_reasons(["wrong source", "stale"])
    with pytest.raises(SessionError):
        session.set_reasons(["same", "same"])
    key = key_of(session, session.case_ids()[0])
    edit = edits.annotation_edit(session, key, verdict="unsupported",
                                 reasons=["stale", "wrong source", "stale"])
    edit.do()
    with pytest.raises(SessionError, match="unknown reason"):
        edits.annotation_edit(session, key, reasons=["made up"])
    got = session.annotation(key)
    assert got is not None and got.reasons == ("stale", "wrong source")
    # Reasons alone keep an annotation (a reviewer may pick the reason before the verdict).
    edits.annotation_edit(session, key, verdict=None).do()
    assert session.annotation(key) is not None
    edit2 = edits.annotation_edit(session, key,
                                  reasons=edits.toggle_reason(("stale", "wrong source"), "stale"))
    edit2.do()
    got = session.annotation(key)
    assert got is not None and got.reasons == ("wrong source",)
    edit2.undo()
    got = session.annotation(key)
    assert got is not None and got.reasons == ("stale", "wrong source")
    session.close()
    with backend.open(path, readonly=True) as again:
        assert again.reasons == ("wrong source", "stale")
        got = again.annotation(key, "ana")
        assert got is not None and got.reasons == ("stale", "wrong source")


def test_evidence_spans_are_added_removed_and_undone(backend: SessionBackend,
                                                      session: ReviewStore, path: str) -> None:
    from citeview.session.events import EvidenceChanged

    case_id = session.case_ids()[0]
    key = key_of(session, case_id)
    seen: list[Change] = []
    session.subscribe(seen.append)
    first = edits.evidence_edit(session, key, 10, 25, first_line=2, last_line=2, text="x" * 15)
    second = edits.evidence_edit(session, key, 0, 5, first_line=1, last_line=1, text="abcde")
    assert session.evidence(case_id) == []  # nothing written before do()
    first.do()
    second.do()
    marks = session.evidence(key=key)
    assert [(e.start, e.end, e.lines) for e in marks] == [(0, 5, "L1"), (10, 25, "L2")]
    assert EvidenceChanged(case_id, key) in seen
    assert session.review(case_id).state is ReviewState.IN_PROGRESS  # work started
    removal = edits.remove_evidence_edit(session, marks[1])
    removal.do()
    assert [e.start for e in session.evidence(case_id)] == [0]
    removal.undo()
    assert session.evidence(key=key) == marks  # exactly as it was, id and time included
    second.undo()
    assert [e.start for e in session.evidence(case_id, annotator="ana")] == [10]
    assert session.evidence(case_id, annotator="bob") == []
    with pytest.raises(SessionError):
        edits.evidence_edit(session, key, 5, 5)  # nothing selected
    session.close()
    with backend.open(path, readonly=True) as again:
        assert again.evidence(key=key) == [marks[1]]
        with pytest.raises(ReadOnlySession):
            again.delete_evidence(marks[1])


def test_corrections_are_stored_beside_the_case_and_undone(backend: SessionBackend,
                                                           session: ReviewStore,
                                                           path: str) -> None:
    from citeview.core.corrections import CorrectionKind, apply_corrections
    from citeview.session.events import CorrectionChanged

    case_id = session.case_ids()[0]
    answer = session.get_case(case_id).answer
    cit = session.analysed(case_id).citations[0]
    sid = cit.source_ids[0]
    seen: list[Change] = []
    session.subscribe(seen.append)
    moved = edits.relocate_edit(session, case_id, cit, locator="L1")
    added = edits.add_citation_edit(session, case_id, (0, 4), sid, locator="L1")
    moved.do()
    added.do()
    made = session.corrections(case_id)
    assert [c.kind for c in made] == [CorrectionKind.RELOCATE, CorrectionKind.ADD]
    assert CorrectionChanged(case_id) in seen
    assert session.get_case(case_id).answer == answer  # the original is never changed
    corrected = apply_corrections(session.analysed(case_id), made)
    assert corrected.citations[-1] == ((sid,), "L1") or ((sid,), "L1") in corrected.citations
    removed = edits.remove_citation_edit(session, case_id, cit)
    removed.do()
    assert len(session.corrections(case_id)) == 3
    removed.undo()
    assert session.corrections(case_id) == made
    taken_back = edits.remove_correction_edit(session, made[0])
    taken_back.do()
    assert session.corrections(case_id) == made[1:]
    taken_back.undo()
    with pytest.raises(SessionError):
        edits.add_citation_edit(session, case_id, (3, 3), sid)  # no claim selected
    bad = replace(made[0], id="other", number=0)
    with pytest.raises(SessionError):
        session.put_correction(bad)
    assert session.corrections(case_id) == made  # the refused row changed nothing
    session.close()
    with backend.open(path, readonly=True) as again:
        assert again.corrections(case_id) == made
        assert again.corrections(annotator="bob") == []


def test_a_reword_is_stored_beside_the_case_replaced_and_undone(backend: SessionBackend,
                                                                 session: ReviewStore,
                                                                 path: str) -> None:
    """A reword (the answer's prose reworded) is kept on every store as a correction row:
    the original answer never changes, the corrected answer reads the new words, a second
    reword of the same span replaces the first (undo brings it back), and one that cuts
    through a marker is refused in one line."""
    from citeview.core.corrections import CorrectionKind, apply_corrections
    from citeview.session.events import CorrectionChanged

    case_id = session.case_ids()[0]
    answer = session.get_case(case_id).answer
    cit = session.analysed(case_id).citations[0]
    span = (cit.claim[0], cit.claim[0] + 4)
    assert cit.citation.end <= span[0] or span[1] <= cit.citation.start
    seen: list[Change] = []
    session.subscribe(seen.append)
    first = edits.reword_edit(session, case_id, span, "Reworded")
    first.do()
    [made] = session.corrections(case_id)
    assert (made.kind, made.claim, made.text, made.number) == (
        CorrectionKind.REWORD, span, "Reworded", 0)
    assert CorrectionChanged(case_id) in seen
    assert session.get_case(case_id).answer == answer  # the original is never changed
    corrected = apply_corrections(session.analysed(case_id), [made])
    assert "Reworded" + answer[span[1]:cit.citation.start] in corrected.corrected
    assert corrected.citations == apply_corrections(session.analysed(case_id), []).citations
    second = edits.reword_edit(session, case_id, span, "Again", replacing=made)
    second.do()
    [again_made] = session.corrections(case_id)
    assert again_made.id == made.id and again_made.text == "Again"
    second.undo()
    assert session.corrections(case_id) == [made]
    with pytest.raises(SessionError, match="cuts through the marker of citation 1"):
        edits.reword_edit(session, case_id, (cit.citation.start - 1, cit.citation.start + 1),
                          "x")
    with pytest.raises(SessionError, match="select the words"):
        edits.reword_edit(session, case_id, (3, 3), "x")
    with pytest.raises(SessionError, match="overlap ones you reworded before"):
        edits.reword_edit(session, case_id, (span[0] + 1, span[1] + 1), "x")
    session.close()
    with backend.open(path, readonly=True) as reopened:
        assert reopened.corrections(case_id) == [made]


def test_new_kinds_are_written_with_others_in_one_transaction(session: ReviewStore) -> None:
    from citeview.core.corrections import Correction, CorrectionKind
    from citeview.session.model import Evidence

    key = key_of(session, session.case_ids()[0])
    ev = Evidence(key, "ana", "e1", 0, 3, 1, 1, "abc")
    bad = Correction("k1", "no-such-case", "ana", CorrectionKind.REMOVE, 1, key.anchor)
    with pytest.raises(SessionError):
        session.apply([RowChange("evidence", key.case_id, "ana", key, False, ev, "e1"),
                       RowChange("correction", "no-such-case", "ana", None, False, bad, "k1")])
    assert session.evidence() == []


def test_evidence_and_corrections_follow_their_citation_when_the_answer_changes(
        session: ReviewStore) -> None:
    case_id = session.case_ids()[0]
    case = session.get_case(case_id)
    first = session.analysed(case_id).citations[0]
    key = key_of(session, case_id)
    edits.evidence_edit(session, key, 0, 3, text="abc").do()
    edits.relocate_edit(session, case_id, first, locator="L1").do()
    claim = (first.claim[0], first.claim[1])
    edits.add_citation_edit(session, case_id, claim, key.source_id).do()
    # A cited sentence is put before everything: each citation's number goes up by one.
    intro = f"A new first claim stands here.{first.citation.raw}\n\n"
    session.update_case(replace(case, answer=intro + case.answer))
    moved = session.evidence(case_id)
    assert [(e.key.number, e.key.anchor, e.text) for e in moved] == [
        (2, key.anchor, "abc")]
    fixes = session.corrections(case_id)
    assert [(c.kind.value, c.number) for c in fixes] == [("relocate", 2), ("add", 0)]
    assert fixes[1].claim == (claim[0] + len(intro), claim[1] + len(intro))


def test_ids_starting_lists_ids_with_the_typed_beginning_in_any_case(
        backend: SessionBackend, path: str) -> None:
    """Go to Case on a big session lists the ids that start with what is typed (letters of
    either case), in id order, at most the number asked for."""
    ids = ["Alpha-2", "alpha-1", "beta", "ALPHA-3", "alp", "gamma-alpha"]
    s = backend.create(path, ListDataset([Case(i, "a") for i in ids]), annotator="a")
    try:
        assert s.ids_starting("alpha", 10) == ["ALPHA-3", "Alpha-2", "alpha-1"]
        assert s.ids_starting("alp", 2) == ["ALPHA-3", "Alpha-2"]
        assert s.ids_starting("gamma-a", 10) == ["gamma-alpha"]
        assert s.ids_starting("zeta", 10) == []
        assert s.dataset().ids_starting("BETA", 5) == ["beta"]
        # What is typed is text, not a pattern (a server's LIKE would read _ and % as wildcards)
        assert s.ids_starting("alph_", 10) == [] and s.ids_starting("%", 10) == []
    finally:
        s.close()


# ---------------------------------------------------------------- the team's progress, one query


def test_annotator_progress_counts_each_annotators_cases_done_and_in_progress(
        backend: SessionBackend, session: ReviewStore, path: str) -> None:
    """What a team window shows of each reviewer (cases done, in progress) is one answer of
    the store, the same as counting every review it lists."""
    from citeview.session.model import ReviewTally, tally_reviews

    ids = session.case_ids()
    assert session.annotator_progress() == {}
    edits.set_case(session, ids[0], state=ReviewState.DONE)
    edits.set_verdict(session, key_of(session, ids[1]), "supported")  # starts the case
    assert session.annotator_progress() == {"ana": ReviewTally(done=1, in_progress=1)}
    session.close()
    with backend.open(path, annotator="bob") as s:
        edits.set_case(s, ids[0], state=ReviewState.DONE)
        edits.set_case(s, ids[2], state=ReviewState.DONE)
        edits.set_case(s, ids[1], state=ReviewState.IN_PROGRESS)
        progress = s.annotator_progress()
        assert progress == {"ana": (1, 1), "bob": (2, 1)}
        assert progress == tally_reviews(s.reviews())
        assert progress["bob"].done == 2 and progress["ana"].in_progress == 1


@pytest.mark.parametrize("overlap", [None, 1], ids=["outbox", "routed"])
def test_a_team_store_answers_progress_at_once_and_offline_from_its_copy(
        pg: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, overlap: int | None) -> None:
    """A reviewer's store on a team project (the outbox; routed: N per case) and a lead's: the
    progress right after another reviewer's verdict, from the server; while the server is
    away, the reviewer's own from the outbox's copy."""
    from citeview.session.model import tally_reviews
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member
    from citeview.session.routed import RoutedStore
    from citeview.session.team_client import open_team_project

    monkeypatch.setenv("CITEVIEW_DATA_DIR", str(tmp_path / "data"))
    lead_address = pg.address("progress")
    PgBackend().create_file(lead_address, sample_cases(), overlap=overlap)
    for who in ("ana", "ben"):
        add_member(lead_address, who)
    lead = open_team_project(lead_address, annotator="lead", ahead=0)
    ana = open_team_project(pg.address("progress", user="ana"))
    ben = open_team_project(pg.address("progress", user="ben"))
    try:
        assert isinstance(ana, RoutedStore) is (overlap is not None)
        a_case, b_case = ana.next_cases(1)[0], ben.next_cases(1)[0]
        edits.set_case(ana, a_case, state=ReviewState.DONE)
        assert lead.annotator_progress() == {"ana": (1, 0)}
        edits.set_verdict(ben, key_of(ben, b_case), "supported")  # starts ben's case
        assert lead.annotator_progress() == {"ana": (1, 0), "ben": (0, 1)}
        assert ana.annotator_progress() == {"ana": (1, 0), "ben": (0, 1)}  # not blind
        assert ana.annotator_progress() == tally_reviews(ana.reviews())
        pg.stop("immediate")
        try:
            assert ana.annotator_progress() == {"ana": (1, 0)}  # its own, from the copy
            assert not ana.online
        finally:
            pg.start()
    finally:
        for store in (lead, ana, ben):
            store.close()
