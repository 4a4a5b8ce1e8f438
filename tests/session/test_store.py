"""The SQLite session store: what a reviewer relies on when they open, annotate and reopen."""

from __future__ import annotations

import os
import socket
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from citeview.core.cases import Case
from citeview.core.datasets import ListDataset
from citeview.core.inputs import load_input
from citeview.session import (
    AnnotationKey,
    ReadOnlySession,
    ReviewState,
    Session,
    SessionError,
    SessionInUse,
    case_citations,
    edits,
    open_for_input,
    session_path_for,
)
from citeview.session.events import AnnotationChanged, ReviewChanged
from citeview.session.loader import SESSION_LOADERS
from citeview.session.migrations import SCHEMA_VERSION
from tests.session.conftest import key_of as first_key

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def test_cases_are_copied_in_and_survive_the_dataset_moving(tmp_path: Path) -> None:
    src = tmp_path / "policies.dataset.jsonl"
    src.write_bytes((SAMPLES / "policies.dataset.jsonl").read_bytes())
    ds = load_input(str(src))
    session = open_for_input(str(src), ds, annotator="ana")
    assert session.path == str(tmp_path / "policies.dataset.citeview")
    key = first_key(session, "handbook-line-level")
    edits.set_verdict(session, key, "supported")
    session.close()
    expected = ds.get(ds.index_of("transit-multi-turn")).tool_outputs
    src.unlink()
    moved = tmp_path / "elsewhere.citeview"
    os.replace(tmp_path / "policies.dataset.citeview", moved)
    with Session.open(str(moved), annotator="ana") as again:
        assert again.case_ids() == ds.case_ids()
        assert again.get_case("transit-multi-turn").tool_outputs == expected
        assert again.annotation(key).verdict == "supported"
        assert again.annotation(key).annotator == "ana"
        assert again.annotation(key).timestamp.endswith("Z")


def test_file_is_wal_with_foreign_keys_and_versioned(tmp_path: Path, dataset: ListDataset) -> None:
    path = str(tmp_path / "s.citeview")
    with Session.create(path, dataset) as s:
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert s.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        with pytest.raises(sqlite3.IntegrityError):  # annotations must belong to a case
            s.conn.execute("INSERT INTO annotations (case_id, number, raw, source_id, annotator)"
                           " VALUES ('nope', 1, 'r', 's', 'a')")


def test_every_edit_is_committed_at_once_and_visible_to_another_connection(
        tmp_path: Path, dataset: ListDataset) -> None:
    path = str(tmp_path / "s.citeview")
    s = Session.create(path, dataset, annotator="ana")
    key = first_key(s, "contract-block-level", 1)
    edits.set_verdict(s, key, "unsupported")
    edits.set_note(s, key, "refund is not in block 2 ✍️")
    other = sqlite3.connect(path)  # no close of s: the write must already be on disk
    row = other.execute("SELECT verdict, note FROM annotations").fetchone()
    assert row == ("unsupported", "refund is not in block 2 ✍️")
    other.close()
    s.close()


def test_undo_redo_restore_verdicts_notes_and_case_state(tmp_path: Path,
                                                         dataset: ListDataset) -> None:
    s = Session.create(str(tmp_path / "s.citeview"), dataset, annotator="ana")
    key = first_key(s, "transit-multi-turn", 1, 1)
    e1 = edits.set_verdict(s, key, "supported")
    first = s.annotation(key)
    e2 = edits.set_verdict(s, key, "partially supported")
    assert s.annotation(key).verdict == "partially supported"
    e2.undo()
    assert s.annotation(key) == first  # same verdict, annotator and timestamp
    e1.undo()
    assert s.annotation(key) is None
    assert s.review("transit-multi-turn").state is ReviewState.NOT_STARTED
    e1.redo()
    e2.redo()
    assert s.annotation(key).verdict == "partially supported"
    assert s.review("transit-multi-turn").state is ReviewState.IN_PROGRESS
    done = edits.set_case(s, "transit-multi-turn", state=ReviewState.DONE, verdict="supported",
                          note="fine")
    assert s.review("transit-multi-turn").state is ReviewState.DONE
    assert s.first_not_done() == 0
    done.undo()
    assert s.review("transit-multi-turn").state is ReviewState.IN_PROGRESS
    assert s.review("transit-multi-turn").verdict is None
    with pytest.raises(SessionError, match="unknown verdict 'great'"):
        edits.set_verdict(s, key, "great")
    s.close()


def test_change_callbacks_are_plain_callables(tmp_path: Path, dataset: ListDataset) -> None:
    s = Session.create(str(tmp_path / "s.citeview"), dataset, annotator="ana")
    seen = []
    key = first_key(s, "handbook-line-level")  # analyses the case: its counts are stored
    unsubscribe = s.subscribe(seen.append)
    edit = edits.set_verdict(s, key, "supported")
    assert [(type(c), c.case_id) for c in seen] == [
        (AnnotationChanged, "handbook-line-level"), (ReviewChanged, "handbook-line-level")]
    assert seen[0].key == key
    unsubscribe()
    edit.undo()
    assert len(seen) == 2
    s.close()


def test_rubric_and_blind_flag_are_kept(tmp_path: Path, dataset: ListDataset) -> None:
    path = str(tmp_path / "s.citeview")
    with Session.create(path, dataset, annotator="ana") as s:
        s.set_labels(["yes", "no"])
        s.set_blind(True)
        edits.set_verdict(s, first_key(s, "handbook-line-level"), "no")
    with Session.open(path) as s:
        assert s.labels == ("yes", "no") and s.blind is True
    with Session.open(path) as s, pytest.raises(SessionError, match="distinct"):
        s.set_labels(["a", "a"])


def test_several_annotators_side_by_side_and_resume(tmp_path: Path, dataset: ListDataset) -> None:
    path = str(tmp_path / "s.citeview")
    with Session.create(path, dataset, annotator="ana") as s:
        key = first_key(s, "handbook-line-level")
        edits.set_verdict(s, key, "supported")
        edits.set_case(s, "handbook-line-level", state=ReviewState.DONE)
    with Session.open(path, annotator="bob") as s:
        edits.set_verdict(s, key, "unsupported")
        assert s.annotation(key, "ana").verdict == "supported"
        assert s.annotation(key).verdict == "unsupported"
        assert len(s.annotations("handbook-line-level")) == 2
        assert s.first_not_done("ana") == 1 and s.first_not_done() == 0


def test_second_process_is_told_and_a_dead_ones_lock_is_taken_over(
        tmp_path: Path, dataset: ListDataset) -> None:
    path = str(tmp_path / "s.citeview")
    Session.create(path, dataset).close()
    with subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from citeview.session import Session
            s = Session.open({path!r}, annotator="other")
            print("open", flush=True)
            sys.stdin.read()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as holder:
        _check_lock_held(holder, path, len(dataset))
    with Session.open(path, annotator="me") as s:  # the killed holder's lock is stale
        assert s.integrity_check() == "ok"


def _check_lock_held(holder: subprocess.Popen[str], path: str, n_cases: int) -> None:
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(SessionInUse, match=rf"already open in another citeview \(pid "
                                               rf"{holder.pid} "):
            Session.open(path, annotator="me")
        with Session.open(path, readonly=True) as ro:  # reading is fine
            assert len(ro.case_ids()) == n_cases
            with pytest.raises(ReadOnlySession):
                edits.set_verdict(ro, first_key(ro, "handbook-line-level"), "supported")
    finally:
        holder.kill()
        holder.wait()


def test_newer_session_version_opens_read_only_and_is_not_changed(
        tmp_path: Path, dataset: ListDataset) -> None:
    path = str(tmp_path / "new.citeview")
    Session.create(path, dataset).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    before = Path(path).read_bytes()
    with Session.open(path) as s:
        assert s.readonly
        assert s.message == (f"made by a newer citeview (session version {SCHEMA_VERSION + 5}, "
                             f"this one knows up to {SCHEMA_VERSION}): opened read-only")
        assert len(s.case_ids()) == len(dataset)
        with pytest.raises(ReadOnlySession, match="newer citeview"):
            s.set_blind(True)
    assert Path(path).read_bytes() == before


@pytest.mark.parametrize(("content", "message"), [
    (b"", r"empty \(0 bytes\)"),
    (b"not a database at all\n", r"not a citeview session \(not an SQLite database\)"),
    (b"SQLite format 3\x00" + b"\xff" * 200, r"damaged session"),
])
def test_bad_session_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.citeview"
    path.write_bytes(content)
    with pytest.raises(SessionError, match=message) as info:
        Session.open(str(path))
    assert "\n" not in str(info.value)
    assert path.read_bytes() == content


def test_other_sqlite_databases_and_directories_are_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.citeview"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    before = other.read_bytes()
    with pytest.raises(SessionError, match="an SQLite database, but not a citeview session"):
        Session.open(str(other))
    assert other.read_bytes() == before
    with pytest.raises(SessionError, match="is a directory"):
        Session.open(str(tmp_path))


def test_save_as_copies_with_backup_and_continues_in_the_copy(
        tmp_path: Path, dataset: ListDataset) -> None:
    s = Session.create(str(tmp_path / "a.citeview"), dataset, annotator="ana")
    key = first_key(s, "handbook-line-level")
    edits.set_verdict(s, key, "supported")
    s.save_as(str(tmp_path / "b.citeview"))
    assert s.path == str(tmp_path / "b.citeview")
    edits.set_note(s, key, "after save as")
    s.close()
    with Session.open(str(tmp_path / "a.citeview")) as a:
        assert a.annotation(key, "ana").note == ""
    with Session.open(str(tmp_path / "b.citeview")) as b:
        assert b.annotation(key, "ana").note == "after save as"
        assert b.integrity_check() == "ok"



def test_save_as_takes_the_item_counts_not_written_yet(
        tmp_path: Path, dataset: ListDataset) -> None:
    s = Session.create(str(tmp_path / "a.citeview"), dataset, annotator="ana")
    s.record_sizes("handbook-line-level", (1, 2))  # kept back until the next write
    s.save_as(str(tmp_path / "b.citeview"))
    s.close()
    with Session.open(str(tmp_path / "b.citeview")) as b:
        assert b.sizes().get("handbook-line-level") == (1, 2)

def test_read_only_folder_puts_the_session_in_the_user_data_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    src = folder / "cases.jsonl"
    src.write_bytes((SAMPLES / "policies.dataset.jsonl").read_bytes())
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    if os.access(folder, os.W_OK):  # root ignores permissions: make the check say so
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: False if os.fspath(p) == str(folder)
                            else real(p, mode))
    try:
        path, in_data = session_path_for(str(src))
        assert in_data and path.startswith(str(tmp_path / "userdata"))
        s = open_for_input(str(src), load_input(str(src)))
        assert s.path == path and "read-only" in (s.message or "")
        s.close()
    finally:
        folder.chmod(stat.S_IRWXU)


def test_changed_answer_reattaches_by_marker_and_claim_and_keeps_orphans(
        tmp_path: Path, dataset: ListDataset) -> None:
    s = Session.create(str(tmp_path / "s.citeview"), dataset, annotator="ana")
    case = s.get_case("contract-block-level")
    slots = case_citations(case)
    k1, k2 = slots[0].keys(case.id)[0], slots[1].keys(case.id)[0]
    edits.set_verdict(s, k1, "supported", claim=slots[0].claim)
    edits.set_verdict(s, k2, "unsupported", claim=slots[1].claim)
    # A new first sentence with its own citation shifts the numbers; the second claim is
    # reworded, so its annotation cannot be placed any more.
    new_answer = ("Intro.\ue200cite\ue202turn0file9\ue201 " + case.answer[:slots[0].end]
                  + " It may also end early.\ue200cite\ue202turn0file1\ue201")
    result = s.update_case(Case(case.id, new_answer, case.question, case.tool_outputs))
    assert [a.key.number for a in result.placed] == [2]
    assert [a.verdict for a in result.orphaned] == ["unsupported"]
    moved = s.annotation(AnnotationKey(case.id, 2, k1.anchor, k1.source_id))
    assert moved is not None and moved.verdict == "supported"
    assert [a.verdict for a in s.orphans(case.id)] == ["unsupported"]
    # Changing the answer back places the orphan again.
    s.update_case(case)
    assert s.orphans() == []
    assert s.annotation(k2).verdict == "unsupported" and s.annotation(k1).verdict == "supported"
    s.close()


def test_reopening_the_input_syncs_new_and_changed_cases(tmp_path: Path) -> None:
    src = tmp_path / "d.jsonl"
    src.write_text('{"id": "a", "answer": "One.\ue200cite\ue202f0\ue201"}\n', encoding="utf-8")
    s = open_for_input(str(src), load_input(str(src)), annotator="ana")
    key = first_key(s, "a")
    edits.set_verdict(s, key, "supported")
    s.close()
    src.write_text('{"id": "a", "answer": "Zero.\ue200cite\ue202f1\ue201 One.\ue200cite\ue202f0'
                   '\ue201"}\n{"id": "b", "answer": "x"}\n', encoding="utf-8")
    s = open_for_input(str(src), load_input(str(src)), annotator="ana")
    assert s.case_ids() == ["a", "b"]
    assert s.annotation(AnnotationKey("a", 2, key.anchor, "f0")).verdict == "supported"
    s.close()


def test_duplicate_ids_and_existing_files_are_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "s.citeview")
    with pytest.raises(SessionError, match="duplicate case ids"):
        Session.create(path, [Case("a", "x"), Case("a", "y")])
    assert not os.path.exists(path)
    Session.create(path, [Case("a", "x")]).close()
    with pytest.raises(SessionError, match="already exists"):
        Session.create(path, [Case("b", "x")])


def test_load_input_reads_a_session_as_a_dataset(tmp_path: Path, dataset: ListDataset) -> None:
    path = str(tmp_path / "s.citeview")
    Session.create(path, dataset).close()
    ds = load_input(path, SESSION_LOADERS)
    assert ds.kind == "session" and ds.case_ids() == dataset.case_ids()
    assert ds.get(ds.index_of("opinion-injected-context")).context == \
        dataset.get(2).context
    ds.close()
    with Session.open(path) as s:  # reading took no lock
        assert not s.readonly


def test_a_lock_left_by_a_reused_pid_is_stale(tmp_path: Path, dataset: ListDataset) -> None:
    path = str(tmp_path / "s.citeview")
    Session.create(path, dataset).close()
    conn = sqlite3.connect(path)
    # A live pid (our parent) but another process identity: the pid was reused after the
    # process that opened the session died (or the machine rebooted).
    conn.execute("INSERT INTO lock VALUES (1, ?, ?, 'tok', 'then', 'old-boot:1')",
                 (os.getppid(), socket.gethostname()))
    conn.commit()
    conn.close()
    with Session.open(path) as s:
        assert not s.readonly
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO lock VALUES (1, ?, ?, 'tok', 'then', '')",
                 (os.getppid(), socket.gethostname()))
    conn.commit()
    conn.close()
    with pytest.raises(SessionInUse):  # no identity recorded: a live pid is taken as in use
        Session.open(path)


def test_an_existing_session_beside_an_input_in_a_read_only_folder_is_opened_not_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    src = folder / "cases.jsonl"
    src.write_bytes((SAMPLES / "policies.dataset.jsonl").read_bytes())
    with open_for_input(str(src), load_input(str(src)), annotator="ana") as s:
        key = first_key(s, s.case_ids()[0])
        edits.set_verdict(s, key, "supported")
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if os.fspath(p) in (
        str(folder), str(folder / "cases.citeview")) and mode & os.W_OK else real(p, mode))
    try:
        path, in_data = session_path_for(str(src))
        assert (path, in_data) == (str(folder / "cases.citeview"), False)
        with open_for_input(str(src), load_input(str(src)), annotator="ana") as s:
            assert s.readonly and "Save As" in (s.message or "")
            assert s.annotation(key) is not None and s.annotation(key).verdict == "supported"
    finally:
        folder.chmod(stat.S_IRWXU)


def test_a_failing_callback_does_not_stop_the_others(tmp_path: Path,
                                                     dataset: ListDataset) -> None:
    """Every listener hears of the change; then the error goes on (nothing is swallowed)."""
    s = Session.create(str(tmp_path / "s.citeview"), dataset, annotator="ana")
    seen: list[str] = []

    def broken(change: object) -> None:
        seen.append("broken")
        raise KeyError("a bug in a view")

    def also_broken(change: object) -> None:
        seen.append("also broken")
        raise ValueError("another bug")

    s.subscribe(broken)
    s.subscribe(lambda c: seen.append("fine"))
    s.subscribe(also_broken)
    with pytest.raises(ValueError, match="another bug") as info:
        s.set_labels(["yes", "no"])
    assert isinstance(info.value.__context__, KeyError)  # the first error is chained, not lost
    assert seen == ["broken", "fine", "also broken"]
    assert s.labels == ("yes", "no")  # committed before anyone was told
    s.close()
