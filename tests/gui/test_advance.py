"""One key per verdict: a verdict moves on to the next unjudged source; the last one of a case
marks it done and opens the next case not done; undo, resume, Shift+J/K, Ctrl+Enter."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from citeview.gui.advance import ADVANCE_KEY, unjudged
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled
from citeview.gui.review_session import ANNOTATOR_KEY
from citeview.session.model import ReviewState
from tests.gui.conftest import BACKENDS, THREE, backend_named
from tests.gui.helpers import window_settings

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")


@pytest.fixture(params=BACKENDS)
def session_backend(request):  # type: ignore[no-untyped-def]
    """Every window test here runs against each implementation of the session interface."""
    return backend_named(request.param)

K = Qt.Key
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def settings(tmp_path: Path, name: str | None = "ana", advance: bool = True) -> QSettings:
    return window_settings(tmp_path, name, advance)


@pytest.fixture
def open_window(qtbot, new_window, messages):  # type: ignore[no-untyped-def]
    def make(s: QSettings, path: Path) -> MainWindow:
        win = new_window(s)
        assert win.open_path(str(path)), messages.errors
        ready(qtbot, win)
        return win
    return make


def ready(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: is_settled(win) and win.active is not None, timeout=5000)


def press(qtbot, win: MainWindow, k: Qt.Key, mod=Qt.KeyboardModifier.NoModifier) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(win, k, mod)


def where(win: MainWindow) -> tuple[str, int, int]:
    assert win.view is not None and win.active is not None
    return win.view.case.id, win.active, win.active_source


def test_one_key_per_verdict_through_every_case(qtbot, tmp_path, dataset, open_window,
                                                messages) -> None:
    win = open_window(settings(tmp_path), dataset)
    assert where(win) == ("handbook-line-level", 0, 0)
    keys = 0
    seen = []
    while win.review.session is not None and win.progress.progress()["cases_done"] < 3:
        seen.append(where(win))
        press(qtbot, win, K.Key_1)
        keys += 1
        if win.view is None or not is_settled(win):
            ready(qtbot, win)
        assert keys <= 9
    assert keys == 9  # nine sources, nine keys, no J and no Ctrl+Enter
    assert seen == [("handbook-line-level", 0, 0), ("handbook-line-level", 1, 0),
                    ("contract-block-level", 0, 0), ("contract-block-level", 1, 0),
                    ("transit-multi-turn", 0, 0), ("transit-multi-turn", 1, 0),
                    ("transit-multi-turn", 1, 1), ("transit-multi-turn", 2, 0),
                    ("transit-multi-turn", 3, 0)]
    s = win.review.session
    assert all(s.review(cid).state is ReviewState.DONE for cid in THREE)
    assert len([a for a in s.annotations() if a.verdict == "supported"]) == 9
    assert "All cases are done" in " ".join(messages.texts)


def test_one_undo_takes_back_the_verdict_and_the_automatic_done_together(
        qtbot, tmp_path, dataset, open_window) -> None:
    win = open_window(settings(tmp_path), dataset)
    press(qtbot, win, K.Key_1)
    press(qtbot, win, K.Key_3)  # the last of case 1: done, case 2 opens
    ready(qtbot, win)
    assert where(win) == ("contract-block-level", 0, 0)
    s = win.review.session
    assert s.review("handbook-line-level").state is ReviewState.DONE
    press(qtbot, win, K.Key_Z, CTRL)
    ready(qtbot, win)
    assert where(win) == ("handbook-line-level", 1, 0)  # back on the item it undid
    assert s.review("handbook-line-level").state is ReviewState.IN_PROGRESS
    assert win.view.citations[1].verdicts == (None,)
    assert win.view.citations[0].verdicts == ("supported",)


def test_ctrl_enter_with_unjudged_sources_goes_to_them_then_marks_done_anyway(
        qtbot, tmp_path, dataset, open_window, messages) -> None:
    win = open_window(settings(tmp_path), dataset)
    win.navigator.activate_citation(1)
    press(qtbot, win, K.Key_2)  # citation 2 judged; citation 1 is not
    assert where(win) == ("handbook-line-level", 0, 0)  # moved on, wrapping, to citation 1
    win.navigator.activate_citation(1)
    press(qtbot, win, K.Key_Return, CTRL)
    assert where(win) == ("handbook-line-level", 0, 0)
    assert "not judged: moved to the first" in messages.texts[-1]
    assert win.review.session.review("handbook-line-level").state is not ReviewState.DONE
    press(qtbot, win, K.Key_Return, CTRL)
    ready(qtbot, win)
    assert win.view.case.id == "contract-block-level"
    assert win.review.session.review("handbook-line-level").state is ReviewState.DONE


def test_ctrl_enter_on_a_full_disk_says_so_and_records_nothing(
        qtbot, tmp_path, dataset, open_window, messages, session_backend) -> None:
    """The next case opens while "done" is written; a failed write is told, the case stays
    not done, and no undo entry claims otherwise."""
    import sqlite3

    from citeview.session.store import SQLITE

    if session_backend is not SQLITE:
        pytest.skip("the full disk is played by the SQLite connection")
    win = open_window(settings(tmp_path), dataset)
    session = win.review.session
    real = session.conn

    class FullDisk:
        def execute(self, sql, *args):  # type: ignore[no-untyped-def]
            if sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
                raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, *args)

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(real, name)

    session.conn = FullDisk()
    try:
        win.review.done_action.trigger()
        win.review.done_action.trigger()  # done anyway, though unjudged
        ready(qtbot, win)
    finally:
        session.conn = real
    assert any("could not save" in e for e in messages.errors), messages.errors
    assert session.review("handbook-line-level").state is not ReviewState.DONE
    assert win.review.undo_stack.count() == 0
    assert win.progress.case_state("handbook-line-level") is not ReviewState.DONE


def test_resume_lands_on_the_first_unjudged_citation_of_the_first_case_not_done(
        qtbot, tmp_path, dataset, open_window) -> None:
    s = settings(tmp_path)
    win = open_window(s, dataset)
    for k in (K.Key_1, K.Key_1, K.Key_4):  # case 1 done, case 2 citation 1 judged
        press(qtbot, win, k)
        ready(qtbot, win)
    assert where(win) == ("contract-block-level", 1, 0)
    win.close()
    again = open_window(QSettings(s.fileName(), QSettings.Format.IniFormat), dataset)
    assert where(again) == ("contract-block-level", 1, 0)


def test_shift_j_and_shift_k_jump_to_unjudged_items_across_cases(
        qtbot, tmp_path, dataset, open_window) -> None:
    win = open_window(settings(tmp_path, advance=False), dataset)
    press(qtbot, win, K.Key_1)  # citation 1 of case 1, moving on is off: stays
    assert where(win) == ("handbook-line-level", 0, 0)
    press(qtbot, win, K.Key_J, SHIFT)
    assert where(win) == ("handbook-line-level", 1, 0)
    press(qtbot, win, K.Key_J, SHIFT)
    ready(qtbot, win)
    assert where(win) == ("contract-block-level", 0, 0)
    press(qtbot, win, K.Key_K, SHIFT)
    ready(qtbot, win)
    assert where(win) == ("handbook-line-level", 1, 0)  # the judged citation 1 is skipped
    press(qtbot, win, K.Key_K, SHIFT)
    ready(qtbot, win)
    assert where(win) == ("transit-multi-turn", 3, 0)  # wraps to the last unjudged


def test_cancelling_the_annotator_prompt_leaves_no_verdict_button_pressed(
        qtbot, tmp_path, dataset, open_window) -> None:
    win = open_window(settings(tmp_path, name=None), dataset)
    win.review_session.prompt_annotator = lambda: None  # the reviewer cancels
    press(qtbot, win, K.Key_3)
    assert win.review.session.annotations() == []
    assert not any(a.isChecked() for a in win.review.verdict_actions)
    win.review.verdict_actions[2].trigger()  # the toolbar button, clicked
    assert not any(a.isChecked() for a in win.review.verdict_actions)


def test_moving_on_can_be_turned_off_from_the_menu(qtbot, tmp_path, dataset,
                                                   open_window) -> None:
    s = settings(tmp_path)
    win = open_window(s, dataset)
    win.review.advance_action.setChecked(False)
    press(qtbot, win, K.Key_1)
    assert where(win) == ("handbook-line-level", 0, 0)
    assert s.value(ADVANCE_KEY) in (False, "false")
    assert unjudged(win.view) == [(1, 0)]


def test_find_counts_matches_says_not_found_and_escape_gives_the_keys_back(
        qtbot, tmp_path, dataset, open_window) -> None:
    win = open_window(settings(tmp_path, advance=False), dataset)
    qtbot.keyClick(win, K.Key_F, CTRL)
    bar = win.find_bar
    assert bar.isVisible() and bar.edit.hasFocus()
    answer_text = win.answer.toPlainText().casefold()
    word = "man"  # manager, managers
    n = answer_text.count(word)
    assert n >= 2
    qtbot.keyClicks(bar.edit, word)
    qtbot.keyClick(bar.edit, K.Key_Return)
    assert bar.status.text() == f"1 of {n}"
    qtbot.keyClick(bar.edit, K.Key_Return)
    assert bar.status.text() == f"2 of {n}"
    assert win.answer.textCursor().hasSelection()
    bar.edit.setText("no such words anywhere")
    qtbot.keyClick(bar.edit, K.Key_Return)
    assert bar.status.text() == "Not found"
    bar.edit.setText(word)
    qtbot.keyClick(bar.edit, K.Key_Return)
    qtbot.keyClick(bar.edit, K.Key_Escape)
    assert not bar.isVisible()
    assert win.answer.hasFocus()
    assert not win.answer.textCursor().hasSelection()  # the old match is not left highlighted
    qtbot.keyClick(win.answer, K.Key_2)  # a verdict again, not a letter in the field
    assert win.view.citations[0].verdicts == ("partially supported",)
    assert bar.edit.text() == word


def test_go_to_case_takes_an_id_a_unique_prefix_or_a_row_number() -> None:
    from citeview.gui.navigation import resolve_case

    ids = ["alpha-1", "alpha-2", "beta", "7", "gamma"]
    assert resolve_case(ids, "beta") == (2, "")
    assert resolve_case(ids, "GAM")[0] == 4  # a unique prefix, any case
    assert resolve_case(ids, "2")[0] == 1  # a bare number is the row number...
    assert resolve_case(ids, "7")[0] == 3  # ...unless a case has exactly that id
    index, why = resolve_case(ids, "alpha")
    assert index is None and "2 cases start with 'alpha'" in why
    assert resolve_case(ids, "9")[1] == "no case number 9 (the cases are 1\u20135)"
    assert resolve_case(ids, "amm")[0] == 4  # the one id that contains it (the completer's)
    assert resolve_case(ids, "zeta")[1] == "no case id starts with or contains 'zeta'"
    assert resolve_case(ids, "ha-")[1].startswith("2 cases contain 'ha-'")


def test_go_to_case_completes_ids_as_you_type(qtbot, tmp_path, dataset, open_window) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit

    win = open_window(settings(tmp_path, advance=False), dataset)
    seen: list[list[str]] = []

    def type_and_accept() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, QInputDialog)
        edit = dlg.findChild(QLineEdit)
        qtbot.keyClicks(edit, "block")
        completer = edit.completer()
        completer.setCompletionPrefix("block")
        model = completer.completionModel()
        seen.append([model.index(r, 0).data() for r in range(model.rowCount())])
        edit.setText("contr")
        qtbot.keyClick(edit, K.Key_Return)
    QTimer.singleShot(0, type_and_accept)
    qtbot.keyClick(win, K.Key_G, CTRL)
    ready(qtbot, win)
    assert seen == [["contract-block-level"]]
    assert win.view.case.id == "contract-block-level"


def test_tab_moves_between_the_four_panes_and_arrows_move_between_chips(
        qtbot, tmp_path, dataset, open_window) -> None:
    from PySide6.QtWidgets import QApplication

    win = open_window(settings(tmp_path, advance=False), dataset)
    order = [win.cases_table, win.answer, win.source.text_view(), win.citations_table]
    win.cases_table.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is win.cases_table)
    seen = []
    for _ in range(4):
        qtbot.keyClick(QApplication.focusWidget(), K.Key_Tab)
        seen.append(QApplication.focusWidget())
    assert seen == [*order[1:], order[0]]  # round and round, no hidden stop, no cell walk
    back = []
    for _ in range(4):
        qtbot.keyClick(QApplication.focusWidget(), K.Key_Backtab, SHIFT)
        back.append(QApplication.focusWidget())
    assert back == [order[3], order[2], order[1], order[0]]
    win.answer.setFocus()
    assert "border: 2px solid" in win.answer.styleSheet()  # the pane shows its focus
    assert win.active == 0
    qtbot.keyClick(win.answer, K.Key_Right)
    assert win.active == 1
    qtbot.keyClick(win.answer, K.Key_Left)
    assert win.active == 0


def test_a_read_only_window_follows_the_window_that_writes(qtbot, tmp_path, dataset,
                                                            open_window, session_backend
                                                            ) -> None:
    from citeview.gui.dialogs import InUse

    writer = open_window(settings(tmp_path, advance=False), dataset)
    other = tmp_path / "other.ini"
    s2 = QSettings(str(other), QSettings.Format.IniFormat)
    s2.setValue(ANNOTATOR_KEY, "ana")
    s2.setValue(ADVANCE_KEY, False)
    from citeview.gui.main_window import MainWindow

    reader = MainWindow(settings=s2, sessions=session_backend)
    qtbot.addWidget(reader)
    reader.show()
    reader.review_session.ask_in_use = lambda message: InUse.READ_ONLY
    assert reader.open_path(str(dataset))
    ready(qtbot, reader)
    assert reader.review.session.readonly
    writer.review.verdict_actions[2].trigger()  # the writer judges citation 1 of case 1
    qtbot.waitUntil(lambda: reader.view.citations[0].verdicts == ("unsupported",),
                    timeout=4000)  # followed within a few seconds, no key pressed
    assert "Citations judged 1/" in reader.progress_label.text()
    writer.review.done_action.trigger()
    writer.review.done_action.trigger()  # case 1 done anyway
    # ("done" is committed once the writer's next case is painted.)
    qtbot.waitUntil(lambda: is_settled(writer), timeout=5000)
    reader.watcher.reload()  # F5 takes it in at once
    assert reader.progress.case_state("handbook-line-level") is ReviewState.DONE


def test_a_merged_session_shows_both_annotators_verdicts_and_progress(
        qtbot, tmp_path, dataset, new_window, messages) -> None:
    from citeview.core.inputs import load_input
    from citeview.session.edits import set_verdict
    from citeview.session.merge import merge_sessions
    from citeview.session.model import citation_slots
    from citeview.session.store import Session

    cases = list(load_input(str(dataset)).iter_cases())
    a = Session.create(str(tmp_path / "a.citeview"), cases, annotator="ana")
    b = Session.create(str(tmp_path / "b.citeview"), cases, annotator="bo")
    for s, verdicts in ((a, ("supported", "supported")), (b, ("supported", "unsupported"))):
        slots = citation_slots(s.analysed(THREE[0]))
        for slot, v in zip(slots, verdicts, strict=True):
            set_verdict(s, slot.keys(THREE[0])[0], v)
    with a, b:
        merged, _report = merge_sessions(a, b, str(tmp_path / "m.citeview"))
    merged.close()
    win = new_window(settings(tmp_path, name="carl"))
    assert win.open_path(str(tmp_path / "m.citeview")), messages.errors
    ready(qtbot, win)
    chips = [c.chip for c in win.view.citations]
    assert [c.text for c in chips] == ["1\u2713|\u2713", "2\u2713|\u2717"]
    assert chips[0].tone == "good" and chips[1].tone == "mixed"
    assert win.answer.chip_text(1) == "2\u2713|\u2717"
    label = win.progress_label.text()
    assert "ana 2/" in label and "bo 2/" in label and "judged" in label


def test_keys_pressed_while_the_next_case_loads_are_kept_for_it(
        qtbot, tmp_path, dataset, open_window, monkeypatch) -> None:
    import citeview.gui.case_loader as case_loader

    monkeypatch.setattr(case_loader, "TINY_CASE", 0)  # built in the worker, as a big case is
    win = open_window(settings(tmp_path), dataset)
    s = win.review.session
    win.loader.show_case(1)  # asked for, not built yet
    assert win.view is None
    win.review.verdict_actions[1].trigger()  # "2", "2" pressed at once: both citations
    win.review.verdict_actions[1].trigger()
    qtbot.waitUntil(lambda: s.review("contract-block-level").state is ReviewState.DONE)
    assert [a.verdict for a in s.annotations("contract-block-level")] == [
        "partially supported"] * 2
    win.loader.show_case(2)
    assert win.view is None
    win.review.done_action.trigger()  # Ctrl+Enter twice: done anyway, though unjudged
    win.review.done_action.trigger()
    qtbot.waitUntil(lambda: s.review("transit-multi-turn").state is ReviewState.DONE)


def test_the_next_case_asked_for_while_it_is_built_ahead_shows_once_built_and_is_not_built_again(
        qtbot, tmp_path, dataset, open_window, monkeypatch) -> None:
    import threading

    import citeview.gui.case_loader as case_loader

    built: list[str] = []
    gate = threading.Event()
    real = case_loader.first_phase

    def gated(case, *args):  # type: ignore[no-untyped-def]
        built.append(case.id)
        if case.id == THREE[2]:
            gate.wait(10)
        return real(case, *args)

    monkeypatch.setattr(case_loader, "first_phase", gated)
    win = open_window(settings(tmp_path), dataset)
    press(qtbot, win, K.Key_PageDown, CTRL)
    ready(qtbot, win)
    # The reviewer reads the second case while the third is built ahead...
    qtbot.waitUntil(lambda: THREE[2] in built)
    press(qtbot, win, K.Key_PageDown, CTRL)  # ...and asks for it before it is ready
    assert win.view is None
    gate.set()
    qtbot.waitUntil(lambda: win.view is not None and is_settled(win))
    assert win.view.case.id == THREE[2] and win.active == 0
    assert built.count(THREE[2]) == 1  # shown from the build ahead, not built again


def test_walking_round_a_case_visits_every_item_once_in_reading_order() -> None:
    from types import SimpleNamespace

    from hypothesis import given
    from hypothesis import strategies as st

    from citeview.gui.advance import _around

    @given(st.lists(st.integers(1, 3), min_size=1, max_size=6), st.data(), st.booleans())
    def check(sizes, data, backward) -> None:  # type: ignore[no-untyped-def]
        view = SimpleNamespace(citations=[SimpleNamespace(
            citation=SimpleNamespace(source_ids=tuple(range(k)))) for k in sizes])
        every = [(i, k) for i, n in enumerate(sizes) for k in range(n)]
        start = data.draw(st.sampled_from(every))
        got = list(_around(view, start, backward, include_self=True))  # type: ignore[arg-type]
        order = every[::-1] if backward else every
        at = order.index(start)
        assert got == order[at + 1:] + order[:at + 1]
    check()


def test_copy_answer_as_text_markdown_html_and_raw(qtbot, tmp_path, dataset,
                                                   open_window) -> None:
    from PySide6.QtGui import QGuiApplication

    win = open_window(settings(tmp_path, advance=False), dataset)
    board = QGuiApplication.clipboard()
    markers = {"\ue200", "\ue201", "\ue202"}
    win.case_actions.copy_answer("text")
    assert board.text().startswith("You may work remotely") and not markers & set(board.text())
    win.case_actions.copy_answer("markdown")
    md = board.text()
    assert "[^1]" in md and "[^2]" in md and not markers & set(md)
    assert md.index("[^1]") < md.index("[^2]")  # footnotes numbered in reading order
    win.case_actions.copy_answer("html")
    html = board.mimeData().html()
    assert "<" in html and not markers & set(html)
    assert not markers & set(board.mimeData().text())
    win.case_actions.copy_answer("raw")
    assert "\ue200" in board.text()  # the engineers' copy keeps the markers


def test_the_first_verdict_after_the_name_prompt_counts_for_that_annotator(
        qtbot, tmp_path, dataset, new_window, messages) -> None:
    # (The name is asked when the input is opened now, not by the first verdict key: #25.)
    win = new_window(settings(tmp_path, name=None))  # fresh settings: no name yet
    asked = []

    def prompt() -> str:
        asked.append(win.view)  # what the window showed when the box was up
        return "qa"

    win.review_session.prompt_annotator = prompt
    assert win.open_path(str(dataset)), messages.errors
    ready(qtbot, win)
    assert asked == [None]  # asked once, before the first case showed
    press(qtbot, win, K.Key_1)
    assert "Citations judged 1/" in win.progress_label.text()
    assert "qa" in win.progress_label.text()
    assert win.progress.case_state("handbook-line-level") is ReviewState.IN_PROGRESS
    assert "in progress" in win.review.case_label.text()
    press(qtbot, win, K.Key_1)
    assert len(asked) == 1  # never again while typing verdicts


def test_what_the_model_saw_shows_material_and_recommended_instructions(
        qtbot, tmp_path, dataset, open_window) -> None:
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QPushButton

    win = open_window(settings(tmp_path, advance=False), dataset)
    dlg = win.case_actions.show_model_input()
    text = dlg.view.toPlainText()
    assert "recommended by citeview prompt" in text
    from citeview.core.model_input import model_input
    from citeview.lexers import visible_markers

    exact = model_input(win.view.case).text()
    assert win.view.case.tool_outputs[0] in exact  # the material exactly as given,
    assert visible_markers(win.view.case.tool_outputs[0])[0] in text  # its markers visible
    assert win.view.case.question in text
    copy = [b for b in dlg.findChildren(QPushButton) if b.text() == "Copy All"][0]
    copy.click()
    # Copied exactly as the model saw it (markers and all); shown with the markers visible.
    assert QGuiApplication.clipboard().text() == exact
    assert text == visible_markers(exact)[0]
    dlg.close()


def test_what_the_model_saw_shows_markers_as_the_raw_view_does_and_copies_them_exactly(
        qtbot, tmp_path, dataset, open_window) -> None:
    from PySide6.QtGui import QGuiApplication, QTextCursor

    win = open_window(settings(tmp_path, advance=False), dataset)
    win.view.case.extra["instructions"] = (
        "Cite like this: \ue200cite\ue202turn0file0\ue202L8-L13\ue201.")
    dlg = win.case_actions.show_model_input()
    shown = dlg.view.toPlainText()
    assert "\u27e6cite|turn0file0|L8-L13\u27e7" in shown  # not three empty boxes
    assert not {"\ue200", "\ue201", "\ue202"} & set(shown)
    start = shown.index("\u27e6")
    cursor = dlg.view.textCursor()
    cursor.setPosition(start)
    cursor.setPosition(shown.index("\u27e7") + 1, QTextCursor.MoveMode.KeepAnchor)
    dlg.view.setTextCursor(cursor)
    dlg.view.copy()  # a selection copied: the exact marker the model was shown
    assert QGuiApplication.clipboard().text() == "\ue200cite\ue202turn0file0\ue202L8-L13\ue201"
    dlg.close()


def test_presentation_mode_hides_the_panes_steps_with_keys_and_records_nothing(
        qtbot, tmp_path, dataset, open_window) -> None:
    win = open_window(settings(tmp_path), dataset)
    zoom = win.zoom
    press(qtbot, win, K.Key_F11)
    assert not win.split_left.isVisible() and not win.citations_table.isVisible()
    assert not win.review.toolbar.isVisible() and win.zoom > zoom
    assert win.windowTitle() == "handbook-line-level \u2014 citeview"
    press(qtbot, win, K.Key_1)  # a verdict key: nothing recorded while presenting
    assert win.review.session.annotations() == []
    press(qtbot, win, K.Key_J)
    assert win.active == 1
    press(qtbot, win, K.Key_Escape)
    assert win.split_left.isVisible() and win.citations_table.isVisible()
    assert win.review.toolbar.isVisible() and win.zoom == zoom
    press(qtbot, win, K.Key_1)
    assert len(win.review.session.annotations()) == 1


def test_the_next_case_is_built_ahead_and_used_only_while_nothing_changed(
        qtbot, tmp_path, dataset, open_window, monkeypatch) -> None:
    import citeview.gui.case_loader as case_loader

    built: list[str] = []
    real = case_loader.first_phase

    def counted(case, *args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(case.id)
        return real(case, *args, **kwargs)

    monkeypatch.setattr(case_loader, "first_phase", counted)
    win = open_window(settings(tmp_path), dataset)
    # Built ahead while case 1 is read (again once the review session is there: its policy).
    qtbot.waitUntil(lambda: built.count(THREE[1]) >= 1 and win.review.session is not None)
    qtbot.wait(300)
    before = built.count(THREE[1])
    press(qtbot, win, K.Key_PageDown, CTRL)
    ready(qtbot, win)
    assert win.view.case.id == THREE[1] and built.count(THREE[1]) == before  # not rebuilt
    assert win.answer.chip_count() == len(win.view.citations) > 0
    qtbot.waitUntil(lambda: built.count(THREE[2]) >= 1)
    qtbot.wait(100)
    before = built.count(THREE[2])
    win.set_zoom(3)  # the answer's type changed after case 3 was built ahead: built again
    press(qtbot, win, K.Key_PageDown, CTRL)
    ready(qtbot, win)
    assert win.view.case.id == THREE[2] and built.count(THREE[2]) == before + 1
    assert win.answer.document().defaultFont().pointSizeF() == win.answer.font().pointSizeF()


def test_the_next_case_is_built_ahead_only_after_the_shown_one_is_painted(
        qtbot, tmp_path, dataset, open_window, monkeypatch) -> None:
    """A worker building the next case while the window paints the shown one would share the
    GIL with that paint: the build starts after the paint."""
    from PySide6.QtCore import QEvent, QObject

    import citeview.gui.case_loader as case_loader

    order: list[str] = []
    real = case_loader.first_phase

    def counted(case, *args, **kwargs):  # type: ignore[no-untyped-def]
        order.append(f"build {case.id}")
        return real(case, *args, **kwargs)

    class Paints(QObject):
        def eventFilter(self, obj, ev):  # type: ignore[no-untyped-def]  # noqa: N802
            if ev.type() == QEvent.Type.Paint and win.view is not None:
                order.append(f"paint {win.view.case.id}")
            return False

    monkeypatch.setattr(case_loader, "first_phase", counted)
    win = open_window(settings(tmp_path), dataset)
    qtbot.waitUntil(lambda: f"build {THREE[1]}" in order and win.review.session is not None)
    # The case after the next one is built ahead too (a slow build finds it built).
    qtbot.waitUntil(lambda: f"build {THREE[2]}" in order)
    qtbot.wait(300)
    watch = Paints()
    win.answer.viewport().installEventFilter(watch)
    order.clear()
    press(qtbot, win, K.Key_PageDown, CTRL)
    ready(qtbot, win)
    # The next build (the case after the one now next: the first case, wrapping round) starts
    # once the case shown is painted.
    qtbot.waitUntil(lambda: any(o.startswith("build") for o in order))
    assert win.view.case.id == THREE[1]
    assert f"paint {THREE[1]}" in order
    first_build = next(o for o in order if o.startswith("build"))
    assert first_build == f"build {THREE[0]}"
    assert order.index(f"paint {THREE[1]}") < order.index(first_build)
    win.answer.viewport().removeEventFilter(watch)



def test_resume_lands_on_the_one_unjudged_citation_of_the_last_case_wherever_it_is(
        qtbot, tmp_path, dataset, open_window) -> None:
    """Every source judged but citation 3's of the last case: opening the session again shows
    that citation, not citation 1 of the case."""
    s = settings(tmp_path)
    win = open_window(s, dataset)
    for k in (K.Key_1,) * 7:  # cases 1 and 2 done; the last case's citations 1 and 2
        press(qtbot, win, k)
        ready(qtbot, win)
    assert where(win) == ("transit-multi-turn", 2, 0)
    press(qtbot, win, K.Key_J)  # citation 3 left for later
    press(qtbot, win, K.Key_1)  # citation 4 judged: moves back to citation 3
    assert where(win) == ("transit-multi-turn", 2, 0)
    assert win.progress.case_state("transit-multi-turn") is not ReviewState.DONE
    win.close()
    again = open_window(QSettings(s.fileName(), QSettings.Format.IniFormat), dataset)
    qtbot.wait(300)  # nothing moves it afterwards
    assert where(again) == ("transit-multi-turn", 2, 0)


def test_resume_when_every_case_is_done_lands_on_the_unjudged_citation_of_the_last_case(
        qtbot, tmp_path, dataset, open_window) -> None:
    """The last case marked done with citation 3 unjudged (Ctrl+Enter twice): resuming shows
    citation 3, not citation 1."""
    s = settings(tmp_path)
    win = open_window(s, dataset)
    for k in (K.Key_1,) * 7:
        press(qtbot, win, k)
        ready(qtbot, win)
    press(qtbot, win, K.Key_J)
    press(qtbot, win, K.Key_1)
    press(qtbot, win, K.Key_Return, CTRL)
    press(qtbot, win, K.Key_Return, CTRL)
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)  # ("done" follows the paint)
    assert win.progress.case_state("transit-multi-turn") is ReviewState.DONE
    win.close()
    again = open_window(QSettings(s.fileName(), QSettings.Format.IniFormat), dataset)
    qtbot.wait(300)
    assert where(again) == ("transit-multi-turn", 2, 0)


def test_a_cancelled_name_box_is_not_opened_again_by_verdict_keys(
        qtbot, tmp_path, dataset, new_window, messages) -> None:
    win = new_window(settings(tmp_path, name=None))
    asked = []
    win.review_session.prompt_annotator = lambda: asked.append(1)  # cancelled: None
    assert win.open_path(str(dataset)), messages.errors
    ready(qtbot, win)
    assert asked == [1]
    for _ in range(3):
        press(qtbot, win, K.Key_1)
    assert asked == [1]  # no box in the middle of typing verdicts
    assert win.review.session.annotations() == []
    assert "an annotator name is needed" in " ".join(messages.texts)
    win.review_session.prompt_annotator = lambda: "qa"
    win.review.annotator_action.trigger()  # Review > Annotator Name..., then the keys work
    press(qtbot, win, K.Key_1)
    assert [a.annotator for a in win.review.session.annotations()] == ["qa"]


@pytest.mark.qt_log_ignore(r"This plugin does not support")
def test_keys_typed_before_the_name_box_appeared_never_land_in_it(qtbot) -> None:
    from PySide6.QtWidgets import QLineEdit

    from citeview.gui.dialogs import SETTLE_MS, annotator_dialog

    dlg = annotator_dialog(None)
    qtbot.addWidget(dlg)
    dlg.show()
    edit = dlg.findChild(QLineEdit)
    qtbot.keyClicks(edit, "1111")  # verdict keys still on their way as the box shows
    assert dlg.textValue() == ""
    qtbot.wait(SETTLE_MS + 100)
    qtbot.keyClicks(edit, "qa")
    assert dlg.textValue() == "qa"


def test_resume_lands_on_the_last_citation_of_the_last_case_when_only_it_is_unjudged(
        qtbot, tmp_path, dataset, open_window) -> None:
    s = settings(tmp_path)
    win = open_window(s, dataset)
    for k in (K.Key_1,) * 8:  # everything but the last case's citation 4
        press(qtbot, win, k)
        ready(qtbot, win)
    assert where(win) == ("transit-multi-turn", 3, 0)
    win.close()
    again = open_window(QSettings(s.fileName(), QSettings.Format.IniFormat), dataset)
    qtbot.wait(300)
    assert where(again) == ("transit-multi-turn", 3, 0)


def test_a_window_closed_right_after_ctrl_enter_keeps_the_case_done(
        qtbot, tmp_path, dataset, open_window) -> None:
    """"Done" is written once the next case is painted; closed before that paint, the window
    writes it as it lets the session go: the case is done when the session is opened again."""
    s = settings(tmp_path)
    win = open_window(s, dataset)
    for k in (K.Key_1,) * 7:
        press(qtbot, win, k)
        ready(qtbot, win)
    press(qtbot, win, K.Key_J)
    press(qtbot, win, K.Key_1)
    press(qtbot, win, K.Key_Return, CTRL)
    press(qtbot, win, K.Key_Return, CTRL)
    win.close()  # no event loop turn in between: nothing painted yet
    again = open_window(QSettings(s.fileName(), QSettings.Format.IniFormat), dataset)
    qtbot.waitUntil(lambda: is_settled(again), timeout=5000)
    assert again.progress.case_state("transit-multi-turn") is ReviewState.DONE
