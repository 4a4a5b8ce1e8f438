"""Issue 26 at small sizes: the window makes a big input's session in a worker thread, in
bounded pieces; reopening an unchanged input reads none of it (its session is the review);
Go to Case on a big dataset lists the ids that start with what is typed, from the index."""

from __future__ import annotations

import sys
import threading
import types
from functools import partial
from pathlib import Path

import pytest
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit

from citeview.gui import dialogs
from citeview.gui.readback import is_settled
from citeview.session import store_file
from citeview.session.model import CaseReview, ReviewState
from tests.gui.helpers import shown_window

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from million_data import write_dataset  # noqa: E402

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")

# A reviewer's window, 1000x700.
window = partial(shown_window, name="qa", size=(1000, 700))


@pytest.fixture
def big(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """40 cases standing for a million: any file is "big" (first record shown at once)."""
    import citeview.core.datasets as datasets

    monkeypatch.setattr(datasets, "FIRST_RECORD_BYTES", 1)
    return write_dataset(tmp_path / "big.jsonl", 40)


def test_the_session_is_made_in_a_worker_in_bounded_pieces(
        qtbot, tmp_path: Path, big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made_in: list[str] = []
    pieces: list[int] = []
    real_make = store_file.SessionFile.make_file.__func__  # type: ignore[attr-defined]

    def make_file(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
        made_in.append(threading.current_thread().name)
        return real_make(cls, *args, **kwargs)

    def islice(rows, size):  # type: ignore[no-untyped-def]
        import itertools

        piece = list(itertools.islice(rows, size))
        pieces.append(len(piece))
        return iter(piece)

    monkeypatch.setattr(store_file.SessionFile, "make_file", classmethod(make_file))
    monkeypatch.setattr(store_file, "CASE_BATCH", 7)
    monkeypatch.setattr(store_file, "itertools", types.SimpleNamespace(islice=islice))
    win = window(qtbot, tmp_path)
    made = []
    win.opener.sessionMade.connect(lambda: made.append(True))
    assert win.open_path(str(big))
    assert win.view is not None or win.state.case_index == 0  # shown before the session
    qtbot.waitUntil(lambda: bool(made) and is_settled(win), timeout=20_000)
    assert made_in and all(name != threading.main_thread().name for name in made_in)
    assert max(pieces) == 7 and sum(pieces) == 40  # 40 cases in pieces of at most 7
    session = win.review_session.session
    assert session is not None and len(session) == 40
    assert session.case_at(39).id == "case-0000039"


def test_a_big_files_session_is_made_by_other_processes_while_the_window_waits(
        qtbot, tmp_path: Path, big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``copying.PROCESS_BYTES`` (any size here) the rows are read and written by a
    reader and a maker process: this process neither indexes the input nor writes a row, and
    the window reviews in the session they made, counted without a scan."""
    import citeview.core.datasets as datasets
    from citeview.core.datasets import JsonlDataset
    from citeview.session import copying

    monkeypatch.setattr(datasets, "INDEXED_BYTES", 1)  # read in pieces, as a big file is
    monkeypatch.setattr(copying, "PROCESS_BYTES", 0)
    written: list[str] = []
    indexed: list[str] = []
    real_make = store_file.SessionFile.make_file.__func__  # type: ignore[attr-defined]
    real_index = JsonlDataset._index_file

    def make_file(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
        written.append(threading.current_thread().name)
        return real_make(cls, *args, **kwargs)

    def index_file(self, path):  # type: ignore[no-untyped-def]
        indexed.append(path)
        return real_index(self, path)

    monkeypatch.setattr(store_file.SessionFile, "make_file", classmethod(make_file))
    monkeypatch.setattr(JsonlDataset, "_index_file", index_file)
    monkeypatch.setattr(JsonlDataset, "iter_case_texts", None)  # (the thread's copy)
    win = window(qtbot, tmp_path)
    made = []
    win.opener.sessionMade.connect(lambda: made.append(True))
    assert win.open_path(str(big))
    qtbot.waitUntil(lambda: bool(made) and is_settled(win), timeout=30_000)
    assert written == [] and indexed == []
    session = win.review_session.session
    assert session is not None and len(session) == 40
    assert session.case_at(39).id == "case-0000039"
    assert win.state.input_dataset is None  # (reloading reads the input again)
    session.put_review(CaseReview("case-0000000", "qa", ReviewState.DONE))
    assert session.first_not_done() == 1


def test_reopening_an_unchanged_input_reads_only_its_session(
        qtbot, tmp_path: Path, big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    win = window(qtbot, tmp_path)
    made = []
    win.opener.sessionMade.connect(lambda: made.append(True))
    assert win.open_path(str(big))
    qtbot.waitUntil(lambda: bool(made) and is_settled(win), timeout=20_000)
    session = win.review_session.session
    assert session is not None
    for i in range(3):
        session.put_review(CaseReview(f"case-{i:07d}", "qa", ReviewState.DONE))
    win.close()

    import citeview.core.inputs as inputs

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the input was read again")

    monkeypatch.setattr(inputs, "load_input", no_reading)
    again = window(qtbot, tmp_path)
    assert again.open_path(str(big))
    qtbot.waitUntil(lambda: is_settled(again), timeout=20_000)
    assert again.view is not None and again.view.case.id == "case-0000003"
    assert again.review_session.session is not None
    assert len(again.state.dataset) == 40
    again.close()

    # Once the input changes, it is read and compared again (a new case is reviewed).
    monkeypatch.undo()
    with big.open("a", encoding="utf-8") as fh:
        fh.write('{"id": "late", "answer": "added"}\n')
    third = window(qtbot, tmp_path)
    assert third.open_path(str(big))
    qtbot.waitUntil(lambda: is_settled(third), timeout=20_000)
    assert third.review_session.session is not None
    assert "late" in third.review_session.session.case_ids()


def test_go_to_case_on_a_big_dataset_lists_ids_from_the_index(
        qtbot, tmp_path: Path, big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dialogs, "CONTAINS_CASES", 10)  # 40 cases count as many here
    win = window(qtbot, tmp_path)
    made = []
    win.opener.sessionMade.connect(lambda: made.append(True))
    assert win.open_path(str(big))
    qtbot.waitUntil(lambda: bool(made) and is_settled(win), timeout=20_000)
    dataset = win.state.dataset
    assert dataset is not None and dataset.kind == "session"
    asked: list[str] = []
    real = dataset.ids_starting
    monkeypatch.setattr(dataset, "ids_starting",
                        lambda prefix, limit: asked.append(prefix) or real(prefix, limit))
    dlg = dialogs.case_dialog(win, dataset)
    dlg.show()
    edit = dlg.findChild(QLineEdit)
    assert edit is not None
    QTest.keyClicks(edit, "CASE-000003")
    completer = edit.completer()
    listed = [completer.model().index(r, 0).data() for r in range(completer.model().rowCount())]
    assert listed == [f"case-{i:07d}" for i in range(30, 40)]
    assert asked[-1] == "CASE-000003" and len(asked) == len("CASE-000003")  # one per key
    dlg.reject()


def test_reopening_reads_the_shown_case_and_the_queue_position_not_every_id(
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session of 600 cases standing for a million: reopening lists no id but those the
    case list paints (a page), reads the case shown and those the list paints, finds where
    to resume by a query, and the case list is listed in pieces from the event loop."""
    import re

    from citeview.gui import tables
    from citeview.session.store import SQLITE

    data = write_dataset(tmp_path / "many.jsonl", 600)
    win = window(qtbot, tmp_path)
    made = []
    win.opener.sessionMade.connect(lambda: made.append(True))
    assert win.open_path(str(data))
    qtbot.waitUntil(lambda: bool(made) and is_settled(win), timeout=30_000)
    session = win.review_session.session
    assert session is not None
    for i in range(5):
        session.put_review(CaseReview(f"case-{i:07d}", "qa", ReviewState.DONE))
    win.close()

    statements: list[str] = []
    real_connect = store_file.connect

    def traced(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        conn = real_connect(*args, **kwargs)  # type: ignore[arg-type]
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(store_file, "connect", traced)
    monkeypatch.setattr(tables, "LIST_PIECE", 128)
    again = window(qtbot, tmp_path)
    rows_seen: list[int] = []
    model = again.cases_model
    model.rowsInserted.connect(lambda *_: rows_seen.append(model.rowCount()))
    assert again.open_path(str(data))
    assert model.rowCount() == 128  # the first piece; the rest from the event loop
    qtbot.waitUntil(lambda: is_settled(again) and not model.listing(), timeout=30_000)
    assert again.view is not None and again.view.case.id == "case-0000005"
    assert rows_seen == [256, 384, 512, 600]
    store = again.review_session.session
    assert store is not None and SQLITE.exists(store.path)
    assert store._ids is None  # type: ignore[attr-defined]  # (the whole list never read)
    listing = [s for s in statements if re.search(r"SELECT (pos, )?id FROM cases", s)
               and "LIMIT" not in s and "pos >" not in s and "id >=" not in s]
    assert listing == []
    read_cases = [s for s in statements if s.startswith("SELECT data FROM cases")]
    assert 1 <= len(read_cases) <= 64  # the shown case and the rows painted, not 600
    assert len(store) == 600 and store.index_of("case-0000599") == 599
    again.close()


def test_progress_tells_how_far_the_background_count_is_until_every_case_is_counted(
        qtbot, tmp_path: Path, big: Path) -> None:
    win = window(qtbot, tmp_path)
    made = []
    win.opener.sessionMade.connect(lambda: made.append(True))
    assert win.open_path(str(big))
    qtbot.waitUntil(lambda: bool(made), timeout=20_000)
    label = win.progress_label.text()
    assert "Cases done 0/40" in label and "(counting: " in label and "/40 cases)" in label
    qtbot.waitUntil(lambda: "counting" not in win.progress_label.text(), timeout=30_000)
    label = win.progress_label.text()
    assert "Citations judged 0/120 " in label + " "  # 3 citations each, every case counted
    assert "+" not in label.split("\u00b7")[1]


def test_the_case_list_asks_no_row_of_python_without_a_filter(qtbot) -> None:  # type: ignore[no-untyped-def]
    from citeview.gui.tables import ACCEPT_ROLE, CasesModel, FilterProxy

    asked: list[int] = []

    class Counting(CasesModel):
        def data(self, index, role=0):  # type: ignore[no-untyped-def]
            if int(role) == int(ACCEPT_ROLE):
                asked.append(index.row())
            return super().data(index, role)

    model = Counting()
    proxy = FilterProxy()
    proxy.setSourceModel(model)
    model.set_ids([f"c{i}" for i in range(500)])
    assert proxy.rowCount() == 500 and asked == []  # no predicate: no row asked
    proxy.set_row_filter(lambda row: row[0] % 2 == 0)
    assert proxy.rowCount() == 250 and len(asked) == 500
    proxy.set_row_filter(None)
    asked.clear()
    model.set_ids([f"d{i}" for i in range(300)])
    assert proxy.rowCount() == 300 and asked == []


def test_a_big_session_is_counted_in_a_process_that_stores_every_cases_export_rows(
        qtbot, tmp_path: Path, big: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The background count of a big session file runs in a process of its own, which stores
    each case's export rows in the same pass: the window's progress tells the count as it
    goes, the window analyses no case to count it, and every case has its rows after it."""
    from citeview.core import analysis
    from citeview.gui import progress
    from citeview.session import Session
    from citeview.session.prefill import session_policy
    from citeview.session.rows import rows_key, stored_rows

    monkeypatch.setattr(progress, "BACKGROUND_MIN_CASES", 10)  # 40 cases count as many here
    here: list[str] = []
    real = analysis.Analyser.analysed_once

    def analysed_once(self, case, policy=None):  # type: ignore[no-untyped-def]
        here.append(case.id)
        return real(self, case, policy)

    monkeypatch.setattr(analysis.Analyser, "analysed_once", analysed_once)
    win = window(qtbot, tmp_path)
    made = []
    win.opener.sessionMade.connect(lambda: made.append(True))
    assert win.open_path(str(big))
    qtbot.waitUntil(lambda: bool(made), timeout=20_000)
    assert "(counting: " in win.progress_label.text()
    qtbot.waitUntil(lambda: "counting" not in win.progress_label.text(), timeout=60_000)
    label = win.progress_label.text()
    assert "Citations judged 0/120 " in label + " "  # 3 citations each, every case counted
    assert len(set(here)) < 10  # the cases shown and built ahead, not the 40 counted
    session = win.review_session.session
    assert session is not None
    path = session.path
    win.close()
    with Session.open(path, readonly=True) as s:
        ids = s.case_ids()
        assert set(stored_rows(s, ids, rows_key(s, session_policy(s)))) == set(ids)
