"""The inspection window: click chips with the mouse and check what the source pane shows."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor

from citeview.core.cases import Case
from citeview.core.datasets import ListDataset
from citeview.core.inputs import load_input
from citeview.gui.app import demo_path
from citeview.gui.find import FindScope
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import chip_menu, is_ready, is_settled, view_state
from citeview.gui.tables import KEY_ROLE, CitationsModel
from tests.conftest import SAMPLES, load_sample
from tests.gui.helpers import cite, window_settings

# The offscreen platform cannot resize a top-level window to its size hints and says so.
TRANSIT_PATH = str(SAMPLES / "transit-multi-turn.case.json")

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return window_settings(tmp_path)


@pytest.fixture
def make_window(new_window, settings):
    def make(s: QSettings = settings) -> MainWindow:
        return new_window(s)

    return make


@pytest.fixture
def win(make_window) -> MainWindow:
    return make_window()


def open_cases(qtbot, win: MainWindow, *cases: Case, citation: int | None = 0) -> None:
    win.open_dataset(ListDataset(list(cases)), citation=citation)
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)


def open_sample(qtbot, win: MainWindow, name: str) -> None:
    open_cases(qtbot, win, Case.from_dict(load_sample(name)))


def click_chip(qtbot, win: MainWindow, number: int) -> None:
    """Click chip ``number`` (1-based) with the mouse where it is drawn."""
    view = win.answer
    chip = view.chip_range(number - 1)
    assert chip is not None
    pos = view.chip_center(number - 1)
    assert pos is not None and view.viewport().rect().contains(pos)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert win.active == number - 1


def test_line_source_highlights_the_cited_lines(qtbot, win) -> None:
    open_sample(qtbot, win, "handbook-line-level.case.json")
    click_chip(qtbot, win, 2)
    assert win.source.shown_source_id() == "turn0file0"
    assert win.source.highlighted_labels() == ("L2", "L5")
    assert win.source.highlighted_text() == (
        "Additional remote days require manager approval.\n"
        "Exceptions may apply for approved accommodations.\n"
        "Remote work requests are submitted through the HR portal.\n"
        "Managers respond to requests within five business days.")
    assert win.answer.highlighted_claim().startswith("Anything beyond that needs your manager")
    click_chip(qtbot, win, 1)
    assert win.source.highlighted_labels() == ("L1", "L1")
    assert win.answer.highlighted_claim() == "You may work remotely up to three days per week."


def test_block_source_is_highlighted_whole(qtbot, win) -> None:
    open_sample(qtbot, win, "contract-block-level.case.json")
    click_chip(qtbot, win, 2)
    assert win.source.shown_source_id() == "turn0file1"
    assert win.source.highlighted_text().startswith("Either party may terminate for material")
    assert win.source.highlighted_text().endswith("terminates for the provider’s breach.")


def test_context_source(qtbot, win) -> None:
    open_sample(qtbot, win, "opinion-injected-context.case.json")
    click_chip(qtbot, win, 2)
    assert win.source.shown_source_id() == "block4"
    assert win.source.highlighted_text() == (
        "The petitioner, a resident of Ohio, was served while traveling through Nevada.\n"
        "The District Court asserted jurisdiction on the basis of that service alone.")
    assert win.answer.highlighted_claim() == (
        "Service during a trip through Nevada was the only basis the lower court relied on.")


def test_document_source_from_the_demo(qtbot, win) -> None:
    win.open_path(str(demo_path()), case_id="demo-document-level")
    qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
    click_chip(qtbot, win, 1)
    assert win.source.shown_source_id() == "turn0file0"
    assert win.source.highlighted_text().startswith("From 1 June 2026 the Central Library")


def test_multi_source_chip_offers_each_source_in_turn(qtbot, win) -> None:
    open_sample(qtbot, win, "transit-multi-turn.case.json")
    click_chip(qtbot, win, 2)
    assert win.answer.chip_text(1) == "2+1"
    assert win.source.shown_source_id() == "turn0search1"
    click_chip(qtbot, win, 2)  # activating it again shows the next source
    assert win.source.shown_source_id() == "turn1news0"
    assert view_state(win)["source_of_citation"] == 2


def test_transit_each_chip_highlights_the_right_lines(qtbot, win) -> None:
    open_sample(qtbot, win, "transit-multi-turn.case.json")
    expected = [  # (source shown, first label, last label), from the answer's markers
        ("turn0search0", "L1", "L2"),
        ("turn0search1", "L1", "L2"),  # whole source
        ("turn0search1", "L2", "L2"),
        ("turn1news0", "L1", "L1"),
    ]
    for n, (sid, first, last) in enumerate(expected, 1):
        click_chip(qtbot, win, n)
        state = view_state(win)
        assert (state["source_id"], state["first_line"], state["last_line"]) == (sid, first, last)
    assert view_state(win)["highlighted_text"] == (
        "The council approved the transit budget, including the fare change, by a 7-2 vote.")
    assert view_state(win)["claim"] == "Rider groups objected to the timing."


def test_unknown_source_and_out_of_range(qtbot, win) -> None:
    open_sample(qtbot, win, "handbook-rule-breaking.case.json")
    click_chip(qtbot, win, 3)  # turn0file3 is not in the material
    assert win.source.is_missing_state()
    assert win.source.shown_source_id() is None
    assert "!" in win.answer.chip_text(2)
    click_chip(qtbot, win, 4)  # L12-L14 of a five-line source
    assert win.source.shown_source_id() == "turn0file0"
    assert not win.source.is_missing_state()
    assert win.source.highlighted_labels() is None
    assert win.source.highlighted_text() == ""
    # The sources list names the missing id, in red.
    model = win.sources_model
    rows = {model.index(r, 0).data(): r for r in range(model.rowCount())}
    assert "turn0file3" in rows
    colour = model.index(rows["turn0file3"], 0).data(Qt.ItemDataRole.ForegroundRole).color()
    assert colour == QColor("#c62828")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_emoji_and_crlf_keep_claim_and_source_highlight_right(qtbot, win, newline) -> None:
    doc = newline.join(["Rockets \U0001F680 launch at dawn.", "Crews \U0001F9D1\u200d\U0001F680 "
                        "board at 04:00.", "Weather \U0001F326 can delay launches."]) + newline
    answer = (f"Launch \U0001F680 at dawn, \U0001D49C\U0001D4B7 early.{cite('log', 'L1')}{newline}"
              f"{newline}Crews \U0001F9D1\u200d\U0001F680 board at four.{cite('log', 'L2-L3')}"
              f"{newline}")
    open_cases(qtbot, win, Case("emoji", answer, documents={"log": doc}))
    click_chip(qtbot, win, 1)
    assert win.answer.highlighted_claim() == (
        "Launch \U0001F680 at dawn, \U0001D49C\U0001D4B7 early.")
    assert win.source.highlighted_text() == "Rockets \U0001F680 launch at dawn."
    click_chip(qtbot, win, 2)
    assert win.answer.highlighted_claim() == "Crews \U0001F9D1\u200d\U0001F680 board at four."
    assert win.source.highlighted_labels() == ("L2", "L3")
    assert win.source.highlighted_text() == (
        "Crews \U0001F9D1\u200d\U0001F680 board at 04:00.\nWeather \U0001F326 can delay launches.")


def test_untrusted_text_in_title_source_and_tables_stays_text(qtbot, win) -> None:
    material = ("Citation Marker: " + cite("turn0file0") + "\nTitle: <b>Bold</b> <img src=http://x"
                ".example/t.png>\n\n[L1] <script>alert(1)</script> and <a href=\"file:///etc\">x</a>")
    case = Case("<i>id</i>[*]", f"Claim.{cite('turn0file0', 'L1')}", question="<b>q</b>",
                tool_outputs=[material])
    open_cases(qtbot, win, case)
    assert "<i>id</i>[*]" in win.windowTitle()
    assert win.question.text() == "<b>q</b>"
    assert win.question.textFormat() == Qt.TextFormat.PlainText
    assert win.source.highlighted_text() == (
        "<script>alert(1)</script> and <a href=\"file:///etc\">x</a>")
    title = win.sources_model.index(0, 3).data()
    assert title == "<b>Bold</b> <img src=http://x.example/t.png>"
    tip = win.sources_model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "<b>Bold</b>" not in tip and "&lt;b&gt;Bold&lt;/b&gt;" in tip


def test_citations_table_row_activates_the_citation(qtbot, win) -> None:
    open_sample(qtbot, win, "handbook-rule-breaking.case.json")
    table, proxy = win.citations_table, win.citations_proxy
    target = next(r for r in range(proxy.rowCount())
                  if proxy.index(r, 0).data(KEY_ROLE) == ("citation", 5))
    table.setFocus()
    table.selectRow(target)
    assert win.active == 5
    assert win.source.highlighted_labels() == ("L3", "L3")
    assert win.answer.highlighted_claim() == "Hotels follow the city rate."
    # A diagnostic row that no citation explains marks its spot in the answer.
    marked = {}
    for r in range(proxy.rowCount()):
        if proxy.index(r, 0).data(KEY_ROLE)[0] == "diagnostic":
            table.selectRow(r)
            code = proxy.index(r, CitationsModel.DIAGNOSTICS_COLUMN).data().split()[0]
            assert win.statusBar().currentMessage().startswith(code)
            selections = win.answer.extraSelections()
            marked[code] = selections[0].cursor.selectedText()
    assert marked["CV109"] == "turn0file1"  # the id written verbatim
    assert marked["CV308"] == "Hotels follow the city rate."  # the uncited paragraph


def test_keyboard_moves_between_citations(qtbot, win) -> None:
    open_sample(qtbot, win, "transit-multi-turn.case.json")
    assert win.active == 0  # the first citation is active on open
    win.answer.setFocus()
    qtbot.keyClick(win.answer, Qt.Key.Key_F8)
    assert win.active == 1
    qtbot.keyClick(win.answer, Qt.Key.Key_F8)
    qtbot.keyClick(win.answer, Qt.Key.Key_F8, Qt.KeyboardModifier.ShiftModifier)
    assert win.active == 1
    assert win.source.shown_source_id() == "turn0search1"


def test_demo_opens_with_the_first_citation_active(qtbot, win) -> None:
    assert win.open_path(str(demo_path()))
    qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
    assert len(win.dataset) >= 6
    assert win.cases_table.isVisible()
    state = view_state(win)
    assert state["active_citation"] == 1 and state["first_line"] == "L1"
    # Moving to another case keeps the raw view on.
    win.set_raw_mode(True)
    win.navigator.next_case()
    qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
    assert win.case_index == 1 and win.raw_mode
    assert "\u27e6cite|" in win.raw.shown_text()


def test_errors_are_one_line_messages(qtbot, win, tmp_path, messages) -> None:
    assert not win.open_path(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"answer": 3}', encoding="utf-8")
    assert not win.open_path(str(bad))
    assert len(messages.errors) == 2
    assert all("\n" not in e and e for e in messages.errors)


def test_file_rewritten_on_disk_reloads_keeping_case_and_citation(qtbot, win, tmp_path) -> None:
    path = tmp_path / "cases.jsonl"
    records = [load_sample("handbook-line-level.case.json"),
               load_sample("transit-multi-turn.case.json")]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert win.open_path(str(path), case_id="transit-multi-turn")
    qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
    click_chip(qtbot, win, 3)
    records[1]["answer"] = "Edited intro.\n\n" + records[1]["answer"]
    tmp = tmp_path / "cases.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    os.replace(tmp, path)  # how pipelines rewrite a file
    qtbot.waitUntil(lambda: is_ready(win) and win.view is not None
                    and win.view.case.answer.startswith("Edited"), timeout=5000)
    qtbot.waitUntil(lambda: win.active == 2, timeout=2000)
    assert win.view.case.id == "transit-multi-turn"
    assert win.source.highlighted_labels() == ("L2", "L2")


def test_geometry_and_splitters_are_restored(qtbot, make_window, settings) -> None:
    first = make_window(settings)
    first.split_panes.setSizes([700, 300])
    sizes = first.split_panes.sizes()
    first.close()
    second = make_window(settings)
    assert second.split_panes.sizes() == sizes


def test_zoom_changes_the_answer_font(qtbot, win) -> None:
    open_sample(qtbot, win, "transit-multi-turn.case.json")
    before = win.answer.font().pointSizeF()
    qtbot.keyClick(win.answer, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    assert win.answer.font().pointSizeF() > before
    qtbot.keyClick(win.answer, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert win.answer.font().pointSizeF() == before


def test_find_in_answer_and_across_cases(qtbot, win) -> None:
    win.open_dataset(load_input(str(SAMPLES / "policies.dataset.jsonl")))
    qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
    win.find_bar.open(FindScope.ALL_CASES)
    last = win.dataset.get(len(win.dataset) - 1)
    word = last.answer.split()[0]
    win.find_bar.edit.setText(word)
    assert win.find_bar.find_next()
    qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
    assert word.casefold() in win.view.case.answer.casefold()


def test_switching_cases_quickly_shows_the_last_one_asked_for(qtbot, win) -> None:
    win.open_path(str(demo_path()))
    for _ in range(5):
        win.navigator.next_case()  # each starts a build in the worker; only the last one may land
    qtbot.waitUntil(lambda: is_settled(win), timeout=10000)
    assert win.case_index == 5
    assert win.view.case.id == win.dataset.case_ids()[5]
    assert view_state(win)["case"] == "demo-rule-breaking"
    assert win.answer.chip_count() == len(win.view.citations)


def test_palette_change_rerenders_chips_and_keeps_the_citation(qtbot, win, qapp) -> None:
    from PySide6.QtGui import QPalette

    open_sample(qtbot, win, "transit-multi-turn.case.json")
    click_chip(qtbot, win, 3)
    light = qapp.palette()
    dark = QPalette(light)
    dark.setColor(QPalette.ColorRole.Base, QColor("#161719"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#dcdcdc"))
    try:
        qapp.setPalette(dark)
        qtbot.waitUntil(lambda: win.answer.dark and is_ready(win) and win.active == 2,
                        timeout=5000)
        fmt = win.answer.chip_format(2, 1)
        assert fmt is not None and fmt.background().color() == QColor("#24395e")  # dark chip
        assert win.source.highlighted_labels() == ("L2", "L2")
    finally:
        qapp.setPalette(light)


def test_a_verdict_turns_the_chip_annotated_in_place(qtbot, win) -> None:
    open_sample(qtbot, win, "transit-multi-turn.case.json")
    click_chip(qtbot, win, 2)
    win.view.citations[1].verdict = "supported"
    win.loader.refresh_citation(1)
    assert win.answer.chip_text(1) == "2+1\u2713"
    assert win.answer.chip_text(2) == "3"  # later chips still found where they are
    assert win.answer.highlighted_claim().startswith("It is the first increase since 2019")
    click_chip(qtbot, win, 3)
    assert win.source.highlighted_labels() == ("L2", "L2")
    row = win.citations_model.row_of_citation(1)
    assert win.citations_model.index(row, 4).data() == "supported"


def test_save_case_as_writes_the_case_json(qtbot, win, tmp_path) -> None:
    open_sample(qtbot, win, "transit-multi-turn.case.json")
    out = tmp_path / "copy.json"
    win.case_actions.save_case(str(out))
    assert json.loads(out.read_text(encoding="utf-8")) == load_sample(
        "transit-multi-turn.case.json")
    win.open_path(str(out))
    assert win.recent_files()[0] == str(out)


def test_run_gui_demo_opens_the_window_with_a_citation_active(qtbot, qapp, monkeypatch,
                                                              settings) -> None:
    import argparse

    from citeview.gui import app as app_mod

    shown: list[dict] = []

    def fake_exec() -> int:
        win = next(w for w in qapp.topLevelWidgets()
                   if isinstance(w, MainWindow) and w.isVisible())
        qtbot.addWidget(win)
        qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
        shown.append(view_state(win))
        win.close()
        return 0

    monkeypatch.setattr(qapp, "exec", fake_exec)
    monkeypatch.setattr(app_mod, "user_settings", lambda: settings)
    args = argparse.Namespace(file=None, demo=True, case="demo-file")
    assert app_mod.run_gui(args) == 0
    assert shown[0]["case"] == "demo-file" and shown[0]["active_citation"] == 1


def test_dropping_a_file_opens_it(qtbot, win) -> None:
    from PySide6.QtCore import QMimeData, QPoint, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(TRANSIT_PATH)])
    enter = QDragEnterEvent(QPoint(50, 50), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    enter.ignore()
    win.dragEnterEvent(enter)  # offscreen Qt has no drag manager to deliver these
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime,
                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    win.dropEvent(drop)
    qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
    assert win.view.case.id == "transit-multi-turn"


@pytest.mark.qt_log_ignore(r"This plugin does not support")
def test_right_click_on_a_multi_source_chip_offers_its_sources(qtbot, win) -> None:
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    open_sample(qtbot, win, "transit-multi-turn.case.json")
    pos = win.answer.chip_center(1)
    viewport = win.answer.viewport()
    # What the platform sends on a right click (QTest does not synthesise it).
    QApplication.sendEvent(viewport, QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, pos, viewport.mapToGlobal(pos)))
    menu = chip_menu(win)
    assert menu is not None and menu.isVisible()
    assert [a.text() for a in menu.actions()] == [
        "turn0search1 \u2014 Riders react to fare increase",
        "turn1news0 \u2014 Council approves transit budget"]
    menu.actions()[1].trigger()
    menu.close()
    assert win.active == 1 and win.source.shown_source_id() == "turn1news0"


def test_an_empty_dataset_clears_the_window(qtbot, win) -> None:
    open_sample(qtbot, win, "transit-multi-turn.case.json")
    win.open_dataset(ListDataset([]))
    assert win.view is None and win.citations_model.rowCount() == 0
    assert "no case" in win.answer.toPlainText()
    assert win.source.shown_source_id() is None


def test_plain_files_are_reviewed_in_a_session_and_reload_every_file(qtbot, win,
                                                                      tmp_path) -> None:
    """citeview open --material M --answer A: verdicts go to A's session, and a rewritten
    material file reloads with its new text (the answer alone would lose the material)."""
    from citeview.core.inputs import plain_files

    material = tmp_path / "m.txt"
    handbook = load_sample("handbook-line-level.case.json")["tool_outputs"][0]
    material.write_text(handbook, encoding="utf-8")
    answer = tmp_path / "a.txt"
    answer.write_text("Three days a week." + cite("turn0file0", "L1") + "\n", encoding="utf-8")
    dataset = plain_files([str(material)], [], {}, str(answer), "a")
    assert win.open_input(dataset)
    qtbot.waitUntil(lambda: is_ready(win), timeout=5000)
    assert win.review.session is not None
    assert win.review.session.path == str(tmp_path / "a.citeview")
    assert win.source.highlighted_text().startswith("Employees may work remotely up to three")
    tmp = tmp_path / "m.tmp"
    tmp.write_text(handbook.replace("up to three days", "up to four days"), encoding="utf-8")
    os.replace(tmp, material)
    qtbot.waitUntil(lambda: is_ready(win) and "four days" in win.source.highlighted_text(),
                    timeout=5000)
    assert win.view.case.tool_outputs  # the material is still there after the reload
    assert win.active == 0

