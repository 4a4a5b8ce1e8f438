"""The review workflow in the window: judged with the keyboard alone, kept across restarts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication

from citeview.gui.dialogs import InUse, SummaryDialog
from citeview.gui.filters import Filter, FilterKind
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled, shown_dialog
from citeview.gui.watcher import SETTLE_MS
from citeview.session.model import ReviewState
from citeview.session.store import Session
from tests.conftest import load_sample
from tests.gui.conftest import BACKENDS, THREE, backend_named
from tests.gui.helpers import window_settings

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")


@pytest.fixture(params=BACKENDS)
def session_backend(request):  # type: ignore[no-untyped-def]
    """Every window test here runs against each implementation of the session interface."""
    return backend_named(request.param)


def sqlite_only(backend) -> None:  # type: ignore[no-untyped-def]
    """Skip for sessions kept in memory: the test plays another process through the SQLite
    file's lock row (the contract tests cover one writer at a time for every backend)."""
    from citeview.session.store import SQLITE

    if backend is not SQLITE:
        pytest.skip("another process holds the SQLite file's lock row")

K = Qt.Key
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
NOMOD = Qt.KeyboardModifier.NoModifier


def make_settings(tmp_path: Path, name: str | None = "ana", advance: bool = False
                  ) -> QSettings:
    """Settings of a reviewer; these tests drive each key by hand (moving on after a verdict
    off) unless ``advance`` (test_advance.py tests moving on)."""
    return window_settings(tmp_path, name, advance)


@pytest.fixture
def open_window(qtbot, new_window, messages):
    def make(settings: QSettings, path: Path | None = None) -> MainWindow:
        win = new_window(settings)
        if path is not None:
            assert win.open_path(str(path)), messages.errors
            ready(qtbot, win)
        return win

    return make


def ready(qtbot, win: MainWindow) -> None:
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)


def key(qtbot, win: MainWindow, k: Qt.Key, mod: Qt.KeyboardModifier = NOMOD
        ) -> None:
    qtbot.keyClick(win, k, mod)


def type_into_next_dialog(qtbot, text: str) -> None:
    """Type ``text`` into the modal note dialog about to open, then Ctrl+Enter (keyboard)."""
    def go() -> None:
        dlg = QApplication.activeModalWidget()
        assert dlg is not None
        qtbot.keyClicks(dlg.edit, text)
        qtbot.keyClick(dlg.edit, K.Key_Return, CTRL)
    QTimer.singleShot(0, go)


def verdicts(win: MainWindow) -> list[tuple[str | None, ...]]:
    assert win.view is not None
    return [c.verdicts for c in win.view.citations]


def test_annotate_three_cases_with_the_keyboard_alone_then_resume(qtbot, tmp_path, dataset,
                                                                   open_window) -> None:
    settings = make_settings(tmp_path)
    win = open_window(settings, dataset)
    assert win.view.case.id == "handbook-line-level" and win.active == 0
    assert win.review.toolbar.isVisible()
    assert [a.text() for a in win.review.verdict_actions] == [
        "1 \u2713 supported", "2 \u25d0 partially supported", "3 \u2717 unsupported",
        "4 ? cannot tell"]

    # Case 1: supported, then unsupported with a note; case verdict; done -> case 2.
    key(qtbot, win, K.Key_1)
    assert win.view.citations[0].chip.state == "annotated"
    key(qtbot, win, K.Key_J)
    assert win.active == 1
    assert "not judged (keys 1\u20134, N note)" in win.statusBar().currentMessage()
    key(qtbot, win, K.Key_3)
    type_into_next_dialog(qtbot, "L4 says five, not three")
    key(qtbot, win, K.Key_N)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)  # the dialog has closed
    key(qtbot, win, K.Key_2, SHIFT)
    assert verdicts(win) == [("supported",), ("unsupported",)]
    assert "3/" not in win.progress_label.text()
    key(qtbot, win, K.Key_Return, CTRL)
    ready(qtbot, win)
    assert win.view.case.id == "contract-block-level"
    assert win.progress_label.text().startswith("Cases done 1/3")

    # Case 2: partially supported, cannot tell; K goes back, 0 clears, 4 again.
    key(qtbot, win, K.Key_2)
    key(qtbot, win, K.Key_J)
    key(qtbot, win, K.Key_4)
    key(qtbot, win, K.Key_K)
    assert win.active == 0
    key(qtbot, win, K.Key_J)
    key(qtbot, win, K.Key_0)
    key(qtbot, win, K.Key_4)
    assert verdicts(win) == [("partially supported",), ("cannot tell",)]
    key(qtbot, win, K.Key_Return, CTRL)
    ready(qtbot, win)
    assert win.view.case.id == "transit-multi-turn"

    # Case 3: J visits each source of the two-source citation; left not done.
    key(qtbot, win, K.Key_1)
    key(qtbot, win, K.Key_J)
    assert (win.active, win.active_source) == (1, 0)
    key(qtbot, win, K.Key_1)
    key(qtbot, win, K.Key_J)
    assert (win.active, win.active_source) == (1, 1)
    key(qtbot, win, K.Key_3)
    key(qtbot, win, K.Key_F8)
    key(qtbot, win, K.Key_2)
    assert verdicts(win) == [("supported",), ("supported", "unsupported"),
                             ("partially supported",), (None,)]
    assert win.view.citations[1].chip.state == "annotated"
    assert "Citations judged 7/8" in win.progress_label.text()

    # Undo and redo restore verdicts (also across cases: undo reopens the case it touched).
    key(qtbot, win, K.Key_Z, CTRL)
    assert verdicts(win)[2] == (None,)
    key(qtbot, win, K.Key_Z, CTRL)
    assert verdicts(win)[1] == ("supported", None)
    key(qtbot, win, K.Key_Z, CTRL | SHIFT)
    key(qtbot, win, K.Key_Z, CTRL | SHIFT)
    assert verdicts(win)[1:3] == [("supported", "unsupported"), ("partially supported",)]
    session_path = win.review.session.path
    assert session_path == str(dataset.with_suffix(".citeview"))
    win.close()

    # Reopen: resume at the first case not done, every verdict and note there.
    win2 = open_window(settings, dataset)
    assert win2.view.case.id == "transit-multi-turn"
    assert verdicts(win2) == [("supported",), ("supported", "unsupported"),
                              ("partially supported",), (None,)]
    s = win2.review.session
    first = {(a.key.number, a.verdict, a.note, a.annotator)
             for a in s.annotations("handbook-line-level")}
    assert first == {(1, "supported", "", "ana"),
                     (2, "unsupported", "L4 says five, not three", "ana")}
    assert all(a.timestamp for a in s.annotations())
    review = s.review("handbook-line-level")
    assert (review.state, review.verdict) == (ReviewState.DONE, "partially supported")
    assert s.review("transit-multi-turn").state is ReviewState.IN_PROGRESS
    assert "Cases done 2/3" in win2.progress_label.text()


def test_the_annotator_is_asked_once_and_remembered(qtbot, tmp_path, dataset,
                                                    open_window) -> None:
    settings = make_settings(tmp_path, name=None)
    win = open_window(settings)
    asked: list[int] = []

    def ask() -> str:
        asked.append(1)
        return "bo"
    win.review_session.prompt_annotator = ask
    assert win.open_path(str(dataset))  # asked here, before the first case shows (#25)
    ready(qtbot, win)
    key(qtbot, win, K.Key_1)
    key(qtbot, win, K.Key_J)
    key(qtbot, win, K.Key_2)
    assert asked == [1]
    assert [a.annotator for a in win.review.session.annotations()] == ["bo", "bo"]
    win.close()
    again = open_window(QSettings(settings.fileName(), QSettings.Format.IniFormat))
    again.review_session.prompt_annotator = lambda: pytest.fail("asked again")  # type: ignore[assignment]
    assert again.open_path(str(dataset))
    ready(qtbot, again)
    key(qtbot, again, K.Key_3)
    assert again.review.session.annotation(again.review.key()[0]).annotator == "bo"


def test_no_name_no_verdict(qtbot, tmp_path, dataset, open_window) -> None:
    win = open_window(make_settings(tmp_path, name=None), dataset)
    win.review_session.prompt_annotator = lambda: None
    key(qtbot, win, K.Key_1)
    assert win.review.session.annotations() == []
    assert "annotator name" in win.statusBar().currentMessage()


def test_filters_not_judged_problems_and_verdict(qtbot, tmp_path, open_window) -> None:
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(load_sample(f"{n}.case.json")) + "\n"
                            for n in ("handbook-rule-breaking", "handbook-line-level")),
                    encoding="utf-8")
    win = open_window(make_settings(tmp_path), path)
    proxy = win.citations_proxy

    def shown() -> list[int]:
        keys = [proxy.index(r, 0).data(Qt.ItemDataRole.UserRole + 2) for r in
                range(proxy.rowCount())]
        return [k[1] + 1 for k in keys if k[0] == "citation"]

    assert shown() == list(range(1, 11))
    key(qtbot, win, K.Key_1)  # citation 1 supported
    key(qtbot, win, K.Key_J)
    key(qtbot, win, K.Key_3)  # citation 2 unsupported
    win.filters.set_citations_filter(FilterKind.NOT_JUDGED)
    assert shown() == list(range(3, 11))
    win.filters.set_citations_filter(Filter.verdict("unsupported"))
    assert shown() == [2]
    win.filters.set_citations_filter(FilterKind.PROBLEMS)
    problems = shown()
    assert problems and all(win.view.citations[n - 1].problem for n in problems)
    assert len(problems) < 10
    # J visits only what the filter shows.
    win.filters.set_citations_filter(FilterKind.NOT_JUDGED)
    win.navigator.activate_citation(0)
    key(qtbot, win, K.Key_J)
    assert win.active == 2
    # Cases: done / not done / problems (unjudged citations: a second Ctrl+Enter confirms).
    key(qtbot, win, K.Key_Return, CTRL)
    key(qtbot, win, K.Key_Return, CTRL)
    ready(qtbot, win)
    cases = win.cases_proxy

    def case_ids() -> list[str]:
        return [cases.index(r, 1).data() for r in range(cases.rowCount())]

    win.filters.set_cases_filter(FilterKind.DONE)
    assert case_ids() == ["handbook-rule-breaking"]
    win.filters.set_cases_filter(FilterKind.NOT_DONE)
    assert case_ids() == ["handbook-line-level"]
    win.filters.set_cases_filter(FilterKind.PROBLEMS)
    qtbot.waitUntil(lambda: case_ids() == ["handbook-rule-breaking"], timeout=5000)


def test_blind_mode_hides_lint_hints_and_others_and_is_remembered(qtbot, tmp_path, dataset,
                                                                  open_window,
                                                                  session_backend) -> None:
    settings = make_settings(tmp_path)
    win = open_window(settings, dataset)
    # Another annotator's verdict, written straight into the session.
    s = win.review.session
    s.annotator = "cy"
    from citeview.session.edits import set_verdict
    key0 = win.review.key()[0]
    set_verdict(s, key0, "unsupported")
    s.annotator = "ana"
    win.loader.show_case(0)
    ready(qtbot, win)
    tip = "\n".join(win.navigator.tooltip_for(0))
    assert "cy: unsupported" in tip and "Word-overlap hint" in tip
    assert not win.citations_table.isColumnHidden(5)
    win.review.blind_action.trigger()
    ready(qtbot, win)
    tip = "\n".join(win.navigator.tooltip_for(0))
    assert "cy:" not in tip and "hint" not in tip
    assert win.citations_table.isColumnHidden(5) and win.citations_table.isColumnHidden(6)
    assert all(not c.diagnostics or all(d.code < "CV2" for d in c.diagnostics)
               for c in win.view.citations)
    assert "BLIND" in win.progress_label.text()
    win.close()
    with session_backend.open(str(dataset.with_suffix(".citeview")), readonly=True) as again:
        assert again.blind
    win2 = open_window(settings, dataset)
    assert win2.review.blind and win2.review.blind_action.isChecked()


def test_support_hint_is_a_sortable_column_labelled_as_a_hint(qtbot, tmp_path, dataset,
                                                              open_window) -> None:
    win = open_window(make_settings(tmp_path), dataset)
    model = win.citations_model
    header = model.headerData(5, Qt.Orientation.Horizontal)
    tip = model.headerData(5, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert "hint" in header.lower() and "never a verdict" in tip
    values = [model.index(r, 5).data(Qt.ItemDataRole.UserRole + 1)
              for r in range(model.rowCount())]
    assert all(0 <= v <= 1 for v in values)
    win.citations_table.sortByColumn(5, Qt.SortOrder.DescendingOrder)
    proxy = win.citations_proxy
    got = [proxy.index(r, 5).data(Qt.ItemDataRole.UserRole + 1) for r in range(proxy.rowCount())]
    assert got == sorted(values, reverse=True)


def test_next_undone_case_skips_done_ones_and_wraps(qtbot, tmp_path, dataset,
                                                    open_window) -> None:
    win = open_window(make_settings(tmp_path), dataset)
    win.loader.show_case(2)
    ready(qtbot, win)
    key(qtbot, win, K.Key_Return, CTRL)  # unjudged citations: the first press goes to them
    assert win.case_index == 2
    key(qtbot, win, K.Key_Return, CTRL)  # case 3 done anyway -> wraps to case 1
    ready(qtbot, win)
    assert win.case_index == 0
    key(qtbot, win, K.Key_Z, CTRL)  # undo "done": back on case 3, not done any more
    ready(qtbot, win)
    assert win.case_index == 2
    assert win.progress.case_state("transit-multi-turn") is ReviewState.NOT_STARTED
    assert win.cases_model.index(2, 2).data() == ""
    key(qtbot, win, K.Key_Z, CTRL | SHIFT)
    win.loader.show_case(0)
    ready(qtbot, win)
    key(qtbot, win, K.Key_Return, CTRL)
    key(qtbot, win, K.Key_Return, CTRL)  # case 1 done -> case 2 (case 3 is done)
    ready(qtbot, win)
    assert win.case_index == 1
    key(qtbot, win, K.Key_Return, CTRL)
    key(qtbot, win, K.Key_Return, CTRL)
    assert "All cases are done" in win.statusBar().currentMessage()


def test_a_session_open_elsewhere_is_told_not_shared(qtbot, tmp_path, dataset,
                                                     open_window, messages,
                                                     session_backend) -> None:
    from citeview.core.inputs import load_input
    from citeview.session.location import open_for_input

    sqlite_only(session_backend)

    other = open_for_input(str(dataset), load_input(str(dataset)), annotator="zed")
    try:
        other._token = "another-process"  # the lock row now belongs to someone else
        other.conn.execute("UPDATE lock SET token = 'another-process'")
        win = open_window(make_settings(tmp_path))
        assert win.open_path(str(dataset))  # shown, not reviewed
        assert "already open in another citeview" in messages.texts[-1]
        assert "Not reviewing" in messages.texts[-1]
        assert win.review.session is None
    finally:
        other.close()


def test_demo_session_goes_to_the_user_data_folder(qtbot, tmp_path, open_window,
                                                   monkeypatch) -> None:
    from citeview.gui.app import demo_path
    from citeview.session import location

    monkeypatch.undo()  # the real location rule, with a temporary user data folder
    monkeypatch.setenv("CITEVIEW_DATA_DIR", str(tmp_path / "data"))
    path, where = location.session_location(str(demo_path()))
    assert path == str(tmp_path / "data" / "sessions" / "demo.citeview")
    assert "user data folder" in where
    win = open_window(make_settings(tmp_path), demo_path())
    assert win.review.session.path == path
    assert "user data folder" in win.review_session.label.text()
    assert not (demo_path().parent / "demo.citeview").exists()


def test_summary_shows_the_report_numbers(qtbot, tmp_path, dataset, open_window) -> None:
    from citeview.session.report import render_text, summarize

    win = open_window(make_settings(tmp_path), dataset)
    key(qtbot, win, K.Key_1)
    key(qtbot, win, K.Key_J)
    key(qtbot, win, K.Key_2)
    win.review.summary_action.trigger()
    dlg = shown_dialog(win, SummaryDialog)
    text = dlg.view.toPlainText()
    assert text == render_text(summarize(win.review.session))
    assert "Citation precision: 75.0%" in text
    dlg.close()


def test_save_as_continues_in_the_copy(qtbot, tmp_path, dataset, open_window,
                                       session_backend) -> None:
    win = open_window(make_settings(tmp_path), dataset)
    key(qtbot, win, K.Key_1)
    copy = tmp_path / "copy.citeview"
    win.review_session.save_as(str(copy))
    key(qtbot, win, K.Key_J)
    key(qtbot, win, K.Key_4)
    win.close()
    with session_backend.open(str(copy), readonly=True) as s:
        assert [a.verdict for a in s.annotations()] == ["supported", "cannot tell"]
    with session_backend.open(str(dataset.with_suffix(".citeview")), readonly=True) as s:
        assert [a.verdict for a in s.annotations()] == ["supported"]


def test_input_rewritten_on_disk_keeps_the_verdicts(qtbot, tmp_path, dataset,
                                                    open_window) -> None:
    win = open_window(make_settings(tmp_path), dataset)
    key(qtbot, win, K.Key_J)
    key(qtbot, win, K.Key_3)
    # A pipeline rewrites the dataset: a sentence is added before the cited ones.
    cases = [json.loads(line) for line in dataset.read_text(encoding="utf-8").splitlines()]
    cases[0]["answer"] = "Short summary first. " + cases[0]["answer"]
    dataset.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    win.watcher.reload()
    ready(qtbot, win)
    assert "Short summary first." in win.view.case.answer
    assert verdicts(win) == [(None,), ("unsupported",)]
    assert win.review.session.orphans() == []


def test_input_rewritten_while_its_session_is_made_is_reviewed_as_rewritten(
        qtbot, tmp_path, dataset, open_window, messages) -> None:
    """A file that changes just after it is first opened (its session still being made): the
    review starts anyway, on the answers as rewritten (the reload once the session is made
    syncs it; it used to drop the session as one of another input, and no verdict key did
    anything)."""
    win = open_window(make_settings(tmp_path))
    assert win.open_path(str(dataset)), messages.errors
    assert win.review_session.making()
    cases = [json.loads(line) for line in dataset.read_text(encoding="utf-8").splitlines()]
    cases[0]["answer"] = "Short summary first. " + cases[0]["answer"]
    dataset.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    win.watcher.reload()  # what the file watcher's timer does
    qtbot.waitUntil(lambda: win.review.session is not None and is_settled(win), timeout=10000)
    qtbot.waitUntil(lambda: "Short summary first." in win.view.case.answer, timeout=10000)
    ready(qtbot, win)
    key(qtbot, win, K.Key_J)
    key(qtbot, win, K.Key_3)
    assert verdicts(win)[1] == ("unsupported",)
    assert [a.verdict for a in win.review.session.annotations()] == ["unsupported"]
    assert "Short summary first." in win.review.session.get_case(win.view.case.id).answer
    assert messages.errors == []


def test_a_reload_of_the_input_left_does_not_reach_the_next_one(qtbot, tmp_path, dataset,
                                                                open_window, messages) -> None:
    """A file changed just before another input is opened: its reload, still pending, is
    not done on the new input (which used to lose its new session the same way)."""
    win = open_window(make_settings(tmp_path), dataset)
    other = tmp_path / "other.jsonl"
    other.write_text(dataset.read_text(encoding="utf-8"), encoding="utf-8")
    dataset.write_text(dataset.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    qtbot.waitUntil(win.watcher._timer.isActive, timeout=5000)  # the watcher saw the write
    assert win.open_path(str(other)), messages.errors
    qtbot.waitUntil(lambda: win.review.session is not None and is_settled(win), timeout=10000)
    qtbot.wait(2 * SETTLE_MS)
    assert win.review.session is not None
    assert not any(t.startswith("Reloaded") for t in messages.texts)
    key(qtbot, win, K.Key_J)
    key(qtbot, win, K.Key_1)
    assert [a.verdict for a in win.review.session.annotations()] == ["supported"]


def test_a_session_in_use_can_be_looked_at_read_only(qtbot, tmp_path, dataset,
                                                     open_window, session_backend) -> None:
    from citeview.core.inputs import load_input
    from citeview.session.location import open_for_input

    sqlite_only(session_backend)

    other = open_for_input(str(dataset), load_input(str(dataset)), annotator="zed")
    try:
        other.conn.execute("UPDATE lock SET token = 'another-process'")
        win = open_window(make_settings(tmp_path))
        asked: list[str] = []
        win.review_session.ask_in_use = lambda message: asked.append(message) or InUse.READ_ONLY
        assert win.open_path(str(dataset))
        ready(qtbot, win)
        assert "already open in another citeview" in asked[0]
        assert win.review.session.readonly
        assert "READ-ONLY" in win.review_session.label.text()
        assert not win.review.verdict_actions[0].isEnabled()
        key(qtbot, win, K.Key_1)
        assert win.review.session.annotations() == []
    finally:
        other.close()


def test_a_session_in_use_cancelled_still_shows_the_input_and_try_again_reviews_it(
        qtbot, tmp_path, dataset, open_window, messages, session_backend) -> None:
    from citeview.core.inputs import load_input
    from citeview.session.location import open_for_input

    sqlite_only(session_backend)
    other = open_for_input(str(dataset), load_input(str(dataset)), annotator="zed")
    other.conn.execute("UPDATE lock SET token = 'another-process'")
    win = open_window(make_settings(tmp_path))
    win.review_session.ask_in_use = lambda message: InUse.CANCEL
    assert win.open_path(str(dataset))
    ready(qtbot, win)
    assert win.view is not None and win.view.case.id == THREE[0]  # not an empty window
    assert win.review.session is None
    assert any("Not reviewing" in m for m in messages.texts)
    # The other one closes; "Try Again" then reviews it here.
    answers = iter([InUse.RETRY])

    def ask(message: str) -> InUse:
        other.conn.execute("DELETE FROM lock")  # the other citeview quits
        other.close()
        return next(answers)
    other.conn.execute("UPDATE lock SET token = 'another-process'")
    win.review_session.ask_in_use = ask
    assert win.open_path(str(dataset))
    ready(qtbot, win)
    assert win.review.session is not None and not win.review.session.readonly


def test_a_lock_held_by_a_zombie_process_is_stale(tmp_path) -> None:
    import os
    import signal
    import subprocess
    import sys


    path = str(tmp_path / "z.citeview")
    from citeview.core.cases import Case
    Session.create(path, [Case("c", "Claim.")]).close()
    child = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from citeview.session.store import Session; "
        f"s = Session.open({path!r}); print('ready', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        child.send_signal(signal.SIGKILL)
        import time
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # killed, not reaped: a zombie
            with open(f"/proc/{child.pid}/stat") as fh:
                if fh.read().split(") ")[1].startswith("Z"):
                    break
            time.sleep(0.02)
        with Session.open(path) as s:  # not "already open in another citeview"
            assert s.unclean
    finally:
        child.communicate()


def test_review_keys_work_from_the_tables_but_not_in_text_fields(qtbot, tmp_path, dataset,
                                                                 open_window) -> None:
    win = open_window(make_settings(tmp_path), dataset)
    win.citations_table.setFocus()
    qtbot.keyClick(win.citations_table, K.Key_J)
    assert win.active == 1
    qtbot.keyClick(win.citations_table, K.Key_2)
    assert verdicts(win)[1] == ("partially supported",)
    win.find_bar.open()
    qtbot.keyClick(win.find_bar.edit, K.Key_1)
    qtbot.keyClick(win.find_bar.edit, K.Key_J)
    assert win.find_bar.edit.text() == "1j"
    assert verdicts(win) == [(None,), ("partially supported",)] and win.active == 1


def test_the_window_keeps_its_session_where_its_entry_point_said(qtbot, tmp_path, dataset,
                                                                  open_window,
                                                                  session_backend) -> None:
    """The window opens sessions through the backend it is given (issue 23): in memory no
    file is written beside the input, yet verdicts outlive the window."""
    from citeview.session.memory import MemoryBackend

    win = open_window(make_settings(tmp_path), dataset)
    key(qtbot, win, K.Key_1)
    path = str(dataset.with_suffix(".citeview"))
    assert win.review.session.path == path and session_backend.exists(path)
    win.close()
    assert Path(path).exists() is not isinstance(session_backend, MemoryBackend)
    with session_backend.open(path, readonly=True) as s:
        assert [a.verdict for a in s.annotations()] == ["supported"]


def test_the_status_bar_says_the_review_session_is_being_made(qtbot, tmp_path, dataset,
                                                              open_window, messages) -> None:
    """A first opening shows the input at once and makes its session behind it (seconds for a
    big file): the status bar says so where the session's name goes, so review keys that do
    nothing yet are explained; once made, the session's file name is shown."""
    win = open_window(make_settings(tmp_path))
    assert win.open_path(str(dataset)), messages.errors
    assert win.review_session.making()
    assert win.review_session.label.text().startswith("making the review session")
    qtbot.waitUntil(lambda: win.review.session is not None and is_settled(win), timeout=10000)
    assert win.review_session.label.text() == os.path.basename(win.review.session.path)
