"""Beyond a verdict in the window (issue 30): evidence marked by selecting source text and a
key, error reasons from a picker that takes number keys, corrections of the active citation
(relocate, another source, remove, add), each undone; read back from the session and from
``citeview export``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from citeview.core.corrections import CorrectionKind
from citeview.gui.dialogs import SETTLE_MS, ReasonPicker, SummaryDialog
from citeview.gui.help_menu import shortcut_rows
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled, shown_dialog, view_state
from citeview.session.model import DEFAULT_REASONS
from tests.gui.conftest import BACKENDS, backend_named
from tests.gui.helpers import window_settings

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")

K = Qt.Key
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
NOMOD = Qt.KeyboardModifier.NoModifier


@pytest.fixture(params=BACKENDS)
def session_backend(request):  # type: ignore[no-untyped-def]
    """Every gesture here is checked against each implementation of the session interface."""
    return backend_named(request.param)


@pytest.fixture
def win(qtbot, new_window, messages, tmp_path, dataset) -> MainWindow:  # type: ignore[no-untyped-def]
    """The three-case dataset open for review; the first case (handbook-line-level: citation
    1 cites turn0file0 L1, citation 2 turn0file0 L2-L5) shown, citation 1 active."""
    w = new_window(window_settings(tmp_path, "ana", advance=False))
    assert w.open_path(str(dataset)), messages.errors
    qtbot.waitUntil(lambda: is_settled(w), timeout=5000)
    assert w.view is not None and w.view.case.id == "handbook-line-level"
    return w


def press(qtbot, win: MainWindow, k: Qt.Key, mod: Qt.KeyboardModifier = NOMOD) -> None:
    qtbot.keyClick(win, k, mod)


def session(win: MainWindow):  # type: ignore[no-untyped-def]
    s = win.review.session
    assert s is not None
    return s


def line_span(win: MainWindow, label: int) -> tuple[int, int]:
    """Code points of line ``label`` of the shown source's text."""
    source = win.source.shown_source()
    assert source is not None
    line = next(ln for ln in source.lines if ln.label == label)
    return line.start, line.end


def select_lines_with_keys(qtbot, win: MainWindow, first: int, last: int) -> None:
    """Select lines ``first..last`` in the source pane with the keyboard alone: the caret to
    the first line (Ctrl+Home, Down), then Shift+Down and Shift+End."""
    text = win.source.text_view()
    text.setFocus()
    qtbot.keyClick(text, K.Key_Home, CTRL)
    for _ in range(first - 1):
        qtbot.keyClick(text, K.Key_Down)
    qtbot.keyClick(text, K.Key_Home)
    for _ in range(last - first):
        qtbot.keyClick(text, K.Key_Down, SHIFT)
    qtbot.keyClick(text, K.Key_End, SHIFT)


def drag_select(qtbot, win: MainWindow, span: tuple[int, int]) -> None:
    """Select code points ``span`` of the shown source by dragging the mouse across them."""
    text = win.source.text_view()
    loaded = win.source.shown_prepared()
    assert loaded is not None

    def point(offset: int) -> QPoint:
        c = QTextCursor(text.document())
        c.setPosition(loaded.dtext.to_qt(offset))
        r = text.cursorRect(c)
        return QPoint(r.left() + 1, r.center().y())

    a, b = point(span[0]), point(span[1])
    vp = text.viewport()
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, NOMOD, a)
    qtbot.mouseMove(vp, b)
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, NOMOD, b)


def export(win: MainWindow, fmt: str = "json", *more: str) -> str:
    """What ``citeview export --format FMT`` writes of the window's session: the command
    itself on the SQLite file (read-only, beside the window that holds it); for a session kept
    in memory (no file to name) the writer the command calls, on the open store."""
    import io

    from citeview.session.store import SQLITE

    s = session(win)
    if win.sessions is SQLITE:
        from citeview.cli import main

        out = Path(s.path).with_suffix(f".{fmt}.out")
        assert main(["export", s.path, "--format", fmt, *more, "-o", str(out)]) == 0
        return out.read_text(encoding="utf-8")
    from citeview.session.corrected import write_corrections
    from citeview.session.interchange import write_json

    buf = io.StringIO()
    if fmt == "json":
        write_json(s, buf)
    else:
        write_corrections(s, buf, "pairs" if "pairs" in more else "sft")
    return buf.getvalue()


def exported(win: MainWindow, what: str) -> list[dict[str, object]]:
    """The session's ``evidence`` or ``corrections`` as ``citeview export`` writes them."""
    import json

    return list(json.loads(export(win)).get(what, []))


def pairs(win: MainWindow) -> list[dict[str, object]]:
    """``citeview export --format corrections --shape pairs``: one line per corrected case."""
    import json

    return [json.loads(line) for line in
            export(win, "corrections", "--shape", "pairs").splitlines()]


def chosen(win: MainWindow) -> str:
    [pair] = pairs(win)
    [turn] = pair["chosen"]  # type: ignore[misc]
    return str(turn["content"])


def marker(source_id: str, locator: str | None) -> str:
    """A citation marker in the guide's format."""
    return "\ue200cite\ue202" + source_id + (f"\ue202{locator}" if locator else "") + "\ue201"


def painted_evidence_colour(win: MainWindow):  # type: ignore[no-untyped-def]
    sels = win.source.text_view().extraSelections()
    return [s.format.background().color() for s in sels]


def test_evidence_selected_with_the_keyboard_then_e_is_kept_shown_and_undone(
        qtbot, win: MainWindow) -> None:
    press(qtbot, win, K.Key_J)  # citation 2: turn0file0 L2-L5
    assert win.active == 1 and win.source.shown_source_id() == "turn0file0"
    select_lines_with_keys(qtbot, win, 4, 4)
    assert win.source.selected_span() == line_span(win, 4)
    press(qtbot, win, K.Key_E)

    s = session(win)
    [ev] = s.evidence("handbook-line-level")
    assert (ev.key.number, ev.key.source_id) == (2, "turn0file0")
    assert (ev.start, ev.end) == line_span(win, 4)
    assert (ev.first_line, ev.last_line) == (4, 4)
    assert ev.text == "Remote work requests are submitted through the HR portal."
    [row] = exported(win, "evidence")
    assert (row["case_id"], row["number"], row["source_id"], row["annotator"]) == (
        "handbook-line-level", 2, "turn0file0", "ana")
    assert (row["start"], row["end"], row["first_line"], row["last_line"]) == (
        *line_span(win, 4), 4, 4)
    # Shown in the evidence colour, beside the cited span's highlight (a colour of its own).
    roles = win.source.text_view().roles
    assert win.source.evidence_spans() == [line_span(win, 4)]
    assert painted_evidence_colour(win) == [roles.highlight, roles.evidence]
    assert roles.evidence != roles.highlight

    # A second span of the same source: several per source.
    select_lines_with_keys(qtbot, win, 5, 5)
    press(qtbot, win, K.Key_E)
    assert len(s.evidence("handbook-line-level")) == 2
    assert win.source.evidence_spans() == [line_span(win, 4), line_span(win, 5)]
    assert view_state(win)["evidence"] == [list(line_span(win, 4)), list(line_span(win, 5))]
    assert "Evidence (turn0file0): L4, L5" in win.navigator.tooltip_for(1)

    press(qtbot, win, K.Key_Z, CTRL)  # undo the second
    assert [(e.first_line, e.last_line) for e in s.evidence("handbook-line-level")] == [(4, 4)]
    assert win.source.evidence_spans() == [line_span(win, 4)]
    press(qtbot, win, K.Key_Z, CTRL)  # and the first
    assert s.evidence("handbook-line-level") == []
    assert win.source.evidence_spans() == []
    assert not any(t.startswith("Evidence") for t in win.navigator.tooltip_for(1))
    assert exported(win, "evidence") == []
    press(qtbot, win, K.Key_Z, CTRL | SHIFT)  # redo: it is back, the same row
    assert s.evidence("handbook-line-level") == [ev]
    assert [r["id"] for r in exported(win, "evidence")] == [ev.id]

    # Going elsewhere and back shows it again; another citation does not show it.
    press(qtbot, win, K.Key_K)
    assert win.source.evidence_spans() == []
    press(qtbot, win, K.Key_J)
    assert win.source.evidence_spans() == [line_span(win, 4)]


def test_evidence_dragged_with_the_mouse_and_removed_with_shift_e(qtbot, win: MainWindow
                                                                  ) -> None:
    press(qtbot, win, K.Key_J)
    a, b = line_span(win, 2)
    words = (a + len("Additional "), a + len("Additional remote days"))
    drag_select(qtbot, win, words)
    assert win.source.selected_span() == words
    win.activateWindow()
    press(qtbot, win, K.Key_E)
    s = session(win)
    [ev] = s.evidence("handbook-line-level")
    assert ev.text == "remote days" and (ev.first_line, ev.last_line) == (2, 2)
    assert win.source.evidence_spans() == [words]

    # Shift+E removes the evidence at the caret (the end of the drag is inside it); undone.
    assert [(r["start"], r["end"], r["text"]) for r in exported(win, "evidence")] == [
        (*words, "remote days")]
    press(qtbot, win, K.Key_E, SHIFT)
    assert s.evidence("handbook-line-level") == []
    assert win.source.evidence_spans() == []
    assert exported(win, "evidence") == []
    press(qtbot, win, K.Key_Z, CTRL)
    assert s.evidence("handbook-line-level") == [ev]
    assert win.source.evidence_spans() == [words]


def test_no_selection_no_evidence_and_the_reviewer_is_told(qtbot, win: MainWindow,
                                                           messages) -> None:
    press(qtbot, win, K.Key_E)
    assert session(win).evidence("handbook-line-level") == []
    assert any("Select the text that supports the claim" in m for m in messages.texts)


def picker_keys(qtbot, early: list[Qt.Key], late: list[Qt.Key]) -> list[str]:
    """Drive the reason picker about to open: ``early`` keys at once (before it settled),
    ``late`` after; Enter. Returns the ticks seen after the early keys."""
    seen: list[str] = []

    def go() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, ReasonPicker)
        for k in early:
            qtbot.keyClick(dlg, k)
        seen.extend(dlg.chosen())
        qtbot.wait(SETTLE_MS + 150)
        for k in late:
            qtbot.keyClick(dlg, k)
        qtbot.keyClick(dlg, K.Key_Return)

    QTimer.singleShot(0, go)
    return seen


def test_reason_picker_takes_number_keys_never_early_ones_and_is_undone(
        qtbot, win: MainWindow) -> None:
    s = session(win)
    assert s.reasons == DEFAULT_REASONS
    press(qtbot, win, K.Key_3)  # unsupported
    seen = picker_keys(qtbot, early=[K.Key_2, K.Key_4], late=[K.Key_1, K.Key_3, K.Key_5,
                                                               K.Key_5])
    press(qtbot, win, K.Key_R)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    assert seen == []  # the keys typed as it opened ticked nothing
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)  # its keys work again
    key = win.review.key()
    assert key is not None
    ann = s.annotation(key[0])
    assert ann is not None and ann.verdict == "unsupported"
    assert ann.reasons == (DEFAULT_REASONS[0], DEFAULT_REASONS[2])  # 5 ticked and unticked
    tip = win.navigator.tooltip_for(0)
    said = f"Reasons (turn0file0): {DEFAULT_REASONS[0]}; {DEFAULT_REASONS[2]}"
    assert said in tip
    # The citation's row in the table says it too.
    model = win.citations_model
    row_tips = [str(model.index(0, col).data(Qt.ItemDataRole.ToolTipRole))
                for col in range(model.columnCount())]
    assert any(said in t for t in row_tips)
    import json

    [ann_row] = json.loads(export(win))["annotations"]
    assert (ann_row["verdict"], ann_row["reasons"]) == (
        "unsupported", [DEFAULT_REASONS[0], DEFAULT_REASONS[2]])

    press(qtbot, win, K.Key_Z, CTRL)
    ann = s.annotation(key[0])
    assert ann is not None and ann.reasons == () and ann.verdict == "unsupported"
    [ann_row] = json.loads(export(win))["annotations"]
    assert "reasons" not in ann_row or ann_row["reasons"] == []
    assert not any(line.startswith("Reasons") for line in win.navigator.tooltip_for(0))


def test_reason_picker_escape_changes_nothing(qtbot, win: MainWindow) -> None:
    def go() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, ReasonPicker)
        qtbot.wait(SETTLE_MS + 150)
        qtbot.keyClick(dlg, K.Key_1)
        qtbot.keyClick(dlg, K.Key_Escape)

    QTimer.singleShot(0, go)
    press(qtbot, win, K.Key_R)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    key = win.review.key()
    assert key is not None and session(win).annotation(key[0]) is None
    assert win.review.undo_stack.count() == 0


def chip_text(win: MainWindow, index: int) -> str:
    return win.answer.chip_text(index)


def test_relocate_to_selected_lines_marks_the_chip_and_is_undone(qtbot, win: MainWindow
                                                                  ) -> None:
    press(qtbot, win, K.Key_J)  # citation 2: L2-L5
    before = chip_text(win, 1)
    select_lines_with_keys(qtbot, win, 4, 5)
    press(qtbot, win, K.Key_L)
    s = session(win)
    [c] = s.corrections("handbook-line-level")
    assert (c.kind, c.number, c.locator) == (CorrectionKind.RELOCATE, 2, "L4-L5")
    assert c.anchor == win.view.citations[1].analysed.anchor
    assert chip_text(win, 1).endswith("\u00b1") and not before.endswith("\u00b1")
    assert "Correction: cite L4-L5 instead" in win.navigator.tooltip_for(1)
    assert win.marks.corrections_text() == ["Citation 2: cite L4-L5 instead"]
    # The corrected answer (core's apply_corrections over what the session holds).
    assert win.marks.corrected_citations() == ["turn0file0 L1", "turn0file0 L4-L5"]
    [row] = exported(win, "corrections")
    assert (row["kind"], row["number"], row["locator"]) == ("relocate", 2, "L4-L5")
    assert chosen(win).endswith(marker("turn0file0", "L4-L5") + "\n")

    press(qtbot, win, K.Key_Z, CTRL)
    assert s.corrections("handbook-line-level") == []
    assert chip_text(win, 1) == before
    assert exported(win, "corrections") == [] and pairs(win) == []
    assert not any(line.startswith("Correction") for line in win.navigator.tooltip_for(1))


def show_source_in_pane(qtbot, win: MainWindow, source_id: str) -> None:
    """Click the source's row in the sources list (it shows in the source pane)."""
    proxy, table = win.sources_proxy, win.sources_table
    for row in range(proxy.rowCount()):
        if proxy.index(row, 0).data() == source_id or source_id in str(
                [proxy.index(row, c).data() for c in range(proxy.columnCount())]):
            rect = table.visualRect(proxy.index(row, 0))
            qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, NOMOD,
                             rect.center())
            break
    qtbot.waitUntil(lambda: win.source.shown_source_id() == source_id)


def test_change_source_to_the_one_shown_with_its_lines_and_undo(qtbot, win: MainWindow
                                                                ) -> None:
    assert win.active == 0
    show_source_in_pane(qtbot, win, "turn0file1")
    select_lines_with_keys(qtbot, win, 2, 2)
    win.activateWindow()
    press(qtbot, win, K.Key_S)
    s = session(win)
    [c] = s.corrections("handbook-line-level")
    assert (c.kind, c.number, c.source_id, c.old_source_id, c.locator) == (
        CorrectionKind.CHANGE_SOURCE, 1, "turn0file1", "turn0file0", "L2")
    assert chip_text(win, 0).endswith("\u00b1")
    assert win.marks.corrected_citations() == ["turn0file1 L2", "turn0file0 L2-L5"]
    assert marker("turn0file1", "L2") in chosen(win)
    assert marker("turn0file0", "L1") not in chosen(win)
    press(qtbot, win, K.Key_Z, CTRL)
    assert s.corrections("handbook-line-level") == []
    assert not chip_text(win, 0).endswith("\u00b1")
    assert win.marks.corrected_citations() == ["turn0file0 L1", "turn0file0 L2-L5"]
    assert exported(win, "corrections") == [] and pairs(win) == []


def test_remove_citation_with_delete_and_undo(qtbot, win: MainWindow) -> None:
    press(qtbot, win, K.Key_Delete)
    s = session(win)
    [c] = s.corrections("handbook-line-level")
    assert (c.kind, c.number) == (CorrectionKind.REMOVE, 1)
    assert "Correction: remove this citation" in win.navigator.tooltip_for(0)
    assert win.marks.corrected_citations() == ["turn0file0 L2-L5"]
    win.marks.list_action.trigger()  # Review > Corrections of This Case
    listed = shown_dialog(win, SummaryDialog)
    assert listed is not None
    assert listed.view.toPlainText() == (
        "Citation 1: remove this citation\n\n"
        "The corrected answer cites, in reading order:\n1. turn0file0 L2-L5")
    listed.close()
    assert marker("turn0file0", "L1") not in chosen(win)
    assert chosen(win).count("\ue200cite") == 1
    press(qtbot, win, K.Key_Z, CTRL)
    assert s.corrections("handbook-line-level") == []
    assert pairs(win) == []
    press(qtbot, win, K.Key_Z, CTRL | SHIFT)
    assert [c2.kind for c2 in s.corrections("handbook-line-level")] == [CorrectionKind.REMOVE]


def select_in_answer(win: MainWindow, text: str) -> None:
    doc = win.answer.document()
    found = doc.find(text)
    assert not found.isNull()
    win.answer.setTextCursor(found)


@pytest.mark.parametrize("raw", [False, True])
def test_add_a_citation_to_a_claim_selected_in_the_answer_and_undo(qtbot, win: MainWindow,
                                                                   raw: bool) -> None:
    claim = "Anything beyond that needs your manager's approval"
    answer = win.view.case.answer
    if raw:
        press(qtbot, win, K.Key_R, CTRL)
        at = win.raw.document().find(claim)
        assert not at.isNull()
        win.raw.setTextCursor(at)
    else:
        select_in_answer(win, claim)
    show_source_in_pane(qtbot, win, "turn0file0")
    select_lines_with_keys(qtbot, win, 2, 2)
    win.activateWindow()
    press(qtbot, win, K.Key_A)
    s = session(win)
    [c] = s.corrections("handbook-line-level")
    start = answer.index(claim)
    assert (c.kind, c.claim, c.source_id, c.locator) == (
        CorrectionKind.ADD, (start, start + len(claim)), "turn0file0", "L2")
    assert win.marks.corrections_text() == [
        f"Added: a citation of turn0file0 (L2) at {start}\u2013{start + len(claim)} "
        f"\u2014 \u201c{claim}\u201d"]
    assert win.marks.corrected_citations() == [
        "turn0file0 L1", "turn0file0 L2", "turn0file0 L2-L5"]
    [row] = exported(win, "corrections")
    assert (row["kind"], row["claim"], row["locator"]) == (
        "add", [start, start + len(claim)], "L2")
    assert marker("turn0file0", "L2") in chosen(win)
    press(qtbot, win, K.Key_Z, CTRL)
    assert s.corrections("handbook-line-level") == []
    assert exported(win, "corrections") == []


def test_a_claim_holding_a_citation_is_not_a_claim_without_one(qtbot, win: MainWindow,
                                                               messages) -> None:
    select_in_answer(win, "per week.")
    win.answer.moveCursor(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
    show_source_in_pane(qtbot, win, "turn0file0")
    win.activateWindow()
    press(qtbot, win, K.Key_A)
    assert session(win).corrections("handbook-line-level") == []
    assert any("holds citation" in m for m in messages.texts)


def test_the_gestures_are_in_the_review_menu_and_the_shortcut_sheet(win: MainWindow) -> None:
    rows = {(r.what, r.keys, r.where) for r in shortcut_rows(win)}
    for what, keys in (("Mark Selection as Evidence", "E"), ("Remove Evidence", "Shift+E"),
                       ("Reasons", "R"), ("Cite Selected Lines Instead", "L"),
                       ("Cite Shown Source Instead", "S"), ("Remove Citation", "Del"),
                       ("Add Citation to Selected Claim", "A"),
                       ("Reword Selected Text", "W")):
        assert (what, keys, "Review") in rows, what


def test_presenting_records_no_evidence_nor_correction(qtbot, win: MainWindow) -> None:
    win.modes.set_presenting(True)
    press(qtbot, win, K.Key_Delete)
    press(qtbot, win, K.Key_L)
    win.modes.set_presenting(False)
    assert session(win).corrections("handbook-line-level") == []


def test_a_providers_citation_is_relocated_to_the_characters_selected(
        qtbot, new_window, messages, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A provider's citation has no locator: its new target is the selected span, in code
    points of the source's text (the source holds characters beyond the BMP before it, which
    count two in Qt)."""
    import shutil

    case = tmp_path / "anthropic-char.json"
    shutil.copy(Path(__file__).parent.parent / "data" / "providers" / "anthropic-char.json",
                case)
    w = new_window(window_settings(tmp_path, "ana", advance=False))
    assert w.open_path(str(case)), messages.errors
    qtbot.waitUntil(lambda: is_settled(w) and w.review.session is not None, timeout=5000)
    press(qtbot, w, K.Key_J)
    assert w.active == 1 and w.source.shown_source_id() == "doc1"
    source = w.source.shown_source()
    assert source is not None
    select_lines_with_keys(qtbot, w, 2, 2)  # (a wrapped line: Shift+End ends its first row)
    qtbot.keyClick(w.source.text_view(), K.Key_End, CTRL | SHIFT)
    start = source.text.index("Trains")
    assert w.source.selected_span() == (start, len(source.text))
    press(qtbot, w, K.Key_L)
    s = session(w)
    [c] = s.corrections()
    assert (c.kind, c.number, c.locator, c.target) == (
        CorrectionKind.RELOCATE, 2, None, (start, len(source.text)))
    assert c.anchor == w.view.citations[1].analysed.anchor
    assert w.answer.chip_text(1).endswith("\u00b1")
    [row] = exported(w, "corrections")
    assert (row["kind"], row["number"], row["target"]) == (
        "relocate", 2, [start, len(source.text)])
    press(qtbot, w, K.Key_Z, CTRL)
    assert s.corrections() == []
    assert exported(w, "corrections") == []


def test_another_annotator_sees_their_own_evidence_and_corrections(qtbot, win: MainWindow
                                                                    ) -> None:
    press(qtbot, win, K.Key_J)
    select_lines_with_keys(qtbot, win, 4, 4)
    press(qtbot, win, K.Key_E)
    press(qtbot, win, K.Key_Delete)
    assert win.source.evidence_spans() == [line_span(win, 4)]
    assert chip_text(win, 1).endswith("\u00b1")
    win.review_session.prompt_annotator = lambda: "bob"
    win.review.annotator_action.trigger()  # Review > Annotator Name: bob
    assert session(win).annotator == "bob"
    assert win.source.evidence_spans() == []
    assert not chip_text(win, 1).endswith("\u00b1")
    assert win.marks.corrections_text() == []
    win.review_session.prompt_annotator = lambda: "ana"
    win.review.annotator_action.trigger()
    assert win.source.evidence_spans() == [line_span(win, 4)]
    assert chip_text(win, 1).endswith("\u00b1")


def test_the_picker_lists_every_reason_and_keys_the_first_nine(qtbot) -> None:
    reasons = [f"reason {k}" for k in range(1, 12)]
    dlg = ReasonPicker(reasons, ["reason 11"], "Reasons")
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    assert [b.text() for b in dlg.boxes][8:] == ["9  reason 9", "   reason 10", "   reason 11"]
    qtbot.wait(SETTLE_MS + 150)
    qtbot.keyClick(dlg, K.Key_9)
    assert dlg.chosen() == ("reason 9", "reason 11")


@pytest.mark.parametrize("dark", [False, True])
def test_the_evidence_colour_reads_and_differs_from_the_cited_span(qapp, dark: bool) -> None:  # type: ignore[no-untyped-def]
    from citeview.gui.palette import color_roles, contrast
    from tests.gui.helpers import reading_palette

    roles = color_roles(reading_palette(dark))
    assert contrast(roles.text, roles.evidence) >= 4.5  # text on evidence reads
    # Told apart from the cited span's highlight, the other citations' tint and the page.
    for other in (roles.highlight, roles.tint, roles.base):
        assert abs(other.hueF() - roles.evidence.hueF()) > 0.1 or other.hueF() < 0, other.name()
    assert contrast(roles.evidence, roles.base) > 1.1


@given(st.lists(st.text(alphabet="ab \u00e9\U0001d517", max_size=6), min_size=1, max_size=12),
       st.data())
def test_the_lines_a_selection_touches_are_cores_answer(rows: list[str], data) -> None:  # type: ignore[no-untyped-def]
    """The window asks core's ``lines_of_span`` about the lines near a selection only (a big
    source): the same labels as asking it about every line, empty lines and spans at line
    breaks included."""
    from citeview.core.corrections import lines_of_span
    from citeview.core.material import Source, SourceKind, SourceLine, SourceLines
    from citeview.gui.review_marks import touched_lines

    text = "\n".join(rows)
    starts = [0]
    for row in rows[:-1]:
        starts.append(starts[-1] + len(row) + 1)
    lines = SourceLines.of(SourceLine(k + 7, s, s + len(r))
                           for k, (s, r) in enumerate(zip(starts, rows, strict=True)))
    source = Source("s", SourceKind.LINE, text, lines)
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, len(text)))
    whole = lines_of_span(lines, a, b)
    assert touched_lines(source, (a, b)) == (None if whole == (0, 0) else whole)


def test_marks_come_back_with_the_case(qtbot, win: MainWindow) -> None:
    """A case left and shown again (a new view of it) shows its corrections and evidence."""
    press(qtbot, win, K.Key_J)
    select_lines_with_keys(qtbot, win, 4, 4)
    press(qtbot, win, K.Key_E)
    press(qtbot, win, K.Key_Delete)
    press(qtbot, win, K.Key_PageDown, CTRL)
    qtbot.waitUntil(lambda: is_settled(win) and win.view.case.id == "contract-block-level")
    assert not any(chip_text(win, i).endswith("\u00b1") for i in range(2))
    press(qtbot, win, K.Key_PageUp, CTRL)
    qtbot.waitUntil(lambda: is_settled(win) and win.view.case.id == "handbook-line-level")
    assert chip_text(win, 1).endswith("\u00b1") and not chip_text(win, 0).endswith("\u00b1")
    assert "Evidence (turn0file0): L4" in win.navigator.tooltip_for(1)
    win.navigator.activate_citation(1)
    assert win.source.evidence_spans() == [line_span(win, 4)]


def test_keys_pressed_while_a_case_loads_are_kept_or_the_reviewer_is_told(
        qtbot, win: MainWindow, messages, monkeypatch) -> None:
    """Delete and R act on the active citation, as verdict keys do: kept for the case being
    built and done once it shows. E, Shift+E, L, S, A need a selection in the case, which a
    loading case cannot have: the status bar says the key was not applied."""
    import citeview.gui.case_loader as case_loader

    monkeypatch.setattr(case_loader, "TINY_CASE", 0)  # built in the worker, as a big case is
    s = session(win)
    picked: list[str] = []

    def pick(reasons, chosen, title):  # type: ignore[no-untyped-def]
        picked.append(title)
        return (reasons[0],)

    win.marks.prompt_reasons = pick
    win.loader.show_case(1)  # asked for, not built yet
    assert win.view is None
    press(qtbot, win, K.Key_Delete)
    press(qtbot, win, K.Key_R)
    for key, mod, name in ((K.Key_E, NOMOD, "E"), (K.Key_E, SHIFT, "Shift+E"),
                           (K.Key_L, NOMOD, "L"), (K.Key_S, NOMOD, "S"),
                           (K.Key_A, NOMOD, "A")):
        press(qtbot, win, key, mod)
        assert messages.texts[-1].startswith(f"{name} not applied: the case is still loading")
    assert s.corrections("contract-block-level") == [] and picked == []
    qtbot.waitUntil(lambda: len(s.corrections("contract-block-level")) == 1, timeout=5000)
    [c] = s.corrections("contract-block-level")
    assert (c.kind, c.number) == (CorrectionKind.REMOVE, 1)
    assert picked == ["Reasons: citation 1, " + win.view.citations[0].citation.source_ids[0]]
    [ann] = s.annotations("contract-block-level")
    assert ann.reasons == (DEFAULT_REASONS[0],)
    assert s.evidence("contract-block-level") == []


def _add_citation(qtbot, win: MainWindow, claim: str, first: int, last: int) -> None:
    """Select ``claim`` in the rendered answer and lines ``first..last`` of turn0file0, A."""
    select_in_answer(win, claim)
    show_source_in_pane(qtbot, win, "turn0file0")
    select_lines_with_keys(qtbot, win, first, last)
    win.activateWindow()
    press(qtbot, win, K.Key_A)


def test_an_added_citation_is_a_chip_of_its_own_that_shows_its_source(
        qtbot, win: MainWindow) -> None:
    claim = "Anything beyond that needs your manager's approval"
    answer = win.answer
    chips_before = [answer.chip_text(i) for i in range(answer.chip_count())]
    text_before = answer.document().toRawText()
    _add_citation(qtbot, win, claim, 3, 4)
    [c] = session(win).corrections("handbook-line-level")
    [(start, end, cid)] = answer.added_ranges()
    assert cid == c.id
    doc_text = answer.document().toRawText()
    label = doc_text[start:end]
    assert label.replace("\u00a0", " ").strip() == "+ turn0file0 L3-L4"
    # At the end of its claim, after the punctuation that ends it (as the guide places a
    # marker); never live markup.
    assert doc_text[:start].rstrip("\u00a0 ").endswith("approval,")
    fmt = QTextCursor(answer.document())
    fmt.setPosition(start + 2)
    look = fmt.charFormat()
    assert look.underlineStyle() == look.UnderlineStyle.DashUnderline and not look.isAnchor()
    # The model's chips still read and sit where they did (their positions moved along).
    assert [answer.chip_text(i) for i in range(answer.chip_count())] == chips_before
    for i in range(answer.chip_count()):
        r = answer.chip_range(i)
        assert r is not None and doc_text[r[0]:r[1]].strip("\u00a0 ") == chips_before[i]
    # Another citation shown first, its source scrolled away; then the added chip clicked.
    win.navigator.activate_citation(0, 0)
    qtbot.waitUntil(lambda: win.source.highlighted_labels() == ("L1", "L1"))
    win.source.text_view().verticalScrollBar().setValue(
        win.source.text_view().verticalScrollBar().maximum())
    at = answer.added_center(cid)
    assert at is not None
    qtbot.mouseClick(answer.viewport(), Qt.MouseButton.LeftButton, NOMOD, at)
    qtbot.waitUntil(lambda: win.source.highlighted_labels() == ("L3", "L4"))
    assert win.source.shown_source_id() == "turn0file0"
    assert win.source.span_in_view() is True
    source = win.source.shown_source()
    assert source is not None
    assert win.source.highlighted_text().strip() == source.text[
        line_span(win, 3)[0]:line_span(win, 4)[1]].strip()
    # A click on a model's chip still activates that chip.
    one = answer.chip_center(1)
    assert one is not None
    qtbot.mouseClick(answer.viewport(), Qt.MouseButton.LeftButton, NOMOD, one)
    qtbot.waitUntil(lambda: win.active == 1)
    # Undo takes the chip away, the answer as it was; redo brings it back.
    press(qtbot, win, K.Key_Z, CTRL)
    assert answer.added_ranges() == [] and answer.document().toRawText() == text_before
    assert [answer.chip_text(i) for i in range(answer.chip_count())] == chips_before
    press(qtbot, win, K.Key_Z, CTRL | SHIFT)
    assert [x[2] for x in answer.added_ranges()] == [cid]


def test_an_added_chip_comes_back_with_the_case_and_only_for_its_annotator(
        qtbot, win: MainWindow) -> None:
    _add_citation(qtbot, win, "Anything beyond that needs your manager's approval", 2, 2)
    [c] = session(win).corrections("handbook-line-level")
    win.loader.show_case(1)
    qtbot.waitUntil(lambda: win.view is not None and win.view.case.id != "handbook-line-level")
    assert win.answer.added_ranges() == []
    win.loader.show_case(0)
    qtbot.waitUntil(lambda: win.view is not None and win.view.case.id == "handbook-line-level")
    qtbot.waitUntil(lambda: [x[2] for x in win.answer.added_ranges()] == [c.id])


# ---------------------------------------------------------------------- rewords (W)


def reword_keys(qtbot, typed: str | None, seen: list[str]) -> None:
    """Drive the reword dialog about to open: note the text it offers in ``seen``, then type
    ``typed`` over it and press Enter (None: Escape)."""
    from PySide6.QtWidgets import QInputDialog, QLineEdit

    def go() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, QInputDialog) and dlg.objectName() == "rewordDialog"
        seen.append(dlg.textValue())
        if typed is None:
            qtbot.keyClick(dlg, K.Key_Escape)
            return
        edit = dlg.findChild(QLineEdit)
        assert edit is not None
        edit.selectAll()
        qtbot.keyClicks(edit, typed)
        qtbot.keyClick(edit, K.Key_Return)

    QTimer.singleShot(0, go)


def select_in_raw(qtbot, win: MainWindow, text: str) -> None:
    if not win.marks.raw_mode():
        press(qtbot, win, K.Key_R, CTRL)
    assert win.marks.raw_mode()
    at = win.raw.document().find(text)
    assert not at.isNull()
    win.raw.setTextCursor(at)


@pytest.mark.parametrize("raw", [False, True])
def test_reword_selected_words_with_w_shows_them_marked_exports_and_undoes(
        qtbot, win: MainWindow, raw: bool) -> None:
    old, new = "up to three days", "up to two days"
    answer_text = win.view.case.answer
    start = answer_text.index(old)
    pane = win.answer
    text_before = pane.document().toRawText()
    chips_before = [pane.chip_text(i) for i in range(pane.chip_count())]
    if raw:
        select_in_raw(qtbot, win, old)
    else:
        select_in_answer(win, old)
    seen: list[str] = []
    reword_keys(qtbot, new, seen)
    press(qtbot, win, K.Key_W)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)  # its keys work again
    assert seen == [old]  # the dialog held the words selected
    s = session(win)
    [c] = s.corrections("handbook-line-level")
    assert (c.kind, c.claim, c.text) == (CorrectionKind.REWORD, (start, start + len(old)), new)
    assert s.get_case("handbook-line-level").answer == answer_text  # never changed
    if raw:
        press(qtbot, win, K.Key_R, CTRL)  # back to the rendered answer
    # The rendered answer: the new words after the old ones, marked, plain text.
    [(a, b, cid)] = pane.added_ranges()
    assert cid == c.id
    doc_text = pane.document().toRawText()
    assert doc_text[a:b].replace("\u00a0", " ").strip() == f"\u270e {new}"
    assert doc_text[:a].endswith(old)
    look = QTextCursor(pane.document())
    look.setPosition(a + 3)
    fmt = look.charFormat()
    assert fmt.underlineStyle() == fmt.UnderlineStyle.DotLine and not fmt.isAnchor()
    assert [pane.chip_text(i) for i in range(pane.chip_count())] == chips_before
    assert win.marks.corrections_text() == [f"Reworded: \u201c{old}\u201d \u2192 \u201c{new}\u201d"]
    # The words it replaces are struck through (an overlay: the text stays the model's).
    assert [x.cursor.selectedText() for x in pane.extraSelections()
            if x.format.fontStrikeOut()] == [old]
    # Exported: the corrected answer reads the new words, its citations as they were.
    [row] = exported(win, "corrections")
    assert (row["kind"], row["claim"], row["text"]) == ("reword", [start, start + len(old)], new)
    corrected = chosen(win)
    assert f"You may work remotely {new} per week.{marker('turn0file0', 'L1')}" in corrected
    assert marker("turn0file0", "L2-L5") in corrected
    # Undo: gone from the session, the pane and the export; redo brings it back.
    press(qtbot, win, K.Key_Z, CTRL)
    assert s.corrections("handbook-line-level") == []
    assert pane.added_ranges() == [] and pane.document().toRawText() == text_before
    assert not any(x.format.fontStrikeOut() for x in pane.extraSelections())
    assert exported(win, "corrections") == []
    press(qtbot, win, K.Key_Z, CTRL | SHIFT)
    assert [x[2] for x in pane.added_ranges()] == [c.id]
    # The same words selected again: the dialog offers the reword's text; its row edited.
    select_in_answer(win, old)
    seen.clear()
    reword_keys(qtbot, "up to four days", seen)
    press(qtbot, win, K.Key_W)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)  # its keys work again
    assert seen == [new]
    [again] = s.corrections("handbook-line-level")
    assert (again.id, again.text) == (c.id, "up to four days")
    press(qtbot, win, K.Key_Z, CTRL)
    assert s.corrections("handbook-line-level") == [c]


def test_a_reword_across_a_chip_is_refused_and_escape_keeps_nothing(
        qtbot, win: MainWindow, messages) -> None:
    select_in_raw(qtbot, win, "per week.")
    win.raw.moveCursor(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
    press(qtbot, win, K.Key_W)  # no dialog: refused at once, said why
    assert QApplication.activeModalWidget() is None
    assert session(win).corrections("handbook-line-level") == []
    assert any("cuts through the marker of citation 1" in m for m in messages.texts)
    select_in_raw(qtbot, win, "three days")
    seen: list[str] = []
    reword_keys(qtbot, None, seen)
    press(qtbot, win, K.Key_W)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)  # its keys work again
    assert seen == ["three days"]
    assert session(win).corrections("handbook-line-level") == []
    win.raw.moveCursor(QTextCursor.MoveOperation.Start)  # nothing selected
    press(qtbot, win, K.Key_W)
    assert any("Select the words to reword" in m for m in messages.texts)


def test_the_locator_column_shows_a_relocation_and_its_undo(qtbot, win: MainWindow) -> None:
    model = win.citations_model

    def locator_cell() -> str:
        return str(model.index(model.row_of_citation(1), 2).data())

    press(qtbot, win, K.Key_J)  # citation 2: L2-L5
    assert locator_cell() == "L2-L5"
    select_lines_with_keys(qtbot, win, 4, 5)
    press(qtbot, win, K.Key_L)
    assert locator_cell() == "L2-L5 \u2192 L4-L5"
    # The column shows it whole (it was sized to "L2-L5" and cut the new lines off).
    from citeview.gui.tables import cell_text_width

    table = win.panes.citations_table
    assert (table.horizontalHeader().sectionSize(2)
            >= cell_text_width(table, "L2-L5 \u2192 L4-L5"))
    assert str(model.index(model.row_of_citation(0), 2).data()) == "L1"  # the other as it was
    select_lines_with_keys(qtbot, win, 3, 3)
    press(qtbot, win, K.Key_L)  # relocated again: the last lines given
    assert locator_cell() == "L2-L5 \u2192 L3"
    press(qtbot, win, K.Key_Z, CTRL)
    assert locator_cell() == "L2-L5 \u2192 L4-L5"
    press(qtbot, win, K.Key_Z, CTRL)
    assert locator_cell() == "L2-L5"


def test_an_added_chip_is_visited_by_the_next_and_previous_citation_keys(
        qtbot, win: MainWindow) -> None:
    _add_citation(qtbot, win, "Anything beyond that needs your manager's approval", 3, 4)
    [c] = session(win).corrections("handbook-line-level")
    win.navigator.activate_citation(0, 0)
    qtbot.waitUntil(lambda: win.source.highlighted_labels() == ("L1", "L1"))
    # Reading order: chip 1 (after "per week."), the added chip (after "approval,"), chip 2.
    press(qtbot, win, K.Key_J)
    qtbot.waitUntil(lambda: win.source.highlighted_labels() == ("L3", "L4"))
    assert win.source.shown_source_id() == "turn0file0"
    press(qtbot, win, K.Key_J)
    qtbot.waitUntil(lambda: win.active == 1)
    assert win.source.highlighted_labels() == ("L2", "L5")
    press(qtbot, win, K.Key_K)  # back: the added chip again
    qtbot.waitUntil(lambda: win.source.highlighted_labels() == ("L3", "L4"))
    press(qtbot, win, K.Key_K)
    qtbot.waitUntil(lambda: win.source.highlighted_labels() == ("L1", "L1"))
    assert win.active == 0
    # Left/Right in the answer pane step chip to chip the same way.
    win.answer.chipStep.emit(1)
    qtbot.waitUntil(lambda: win.source.highlighted_labels() == ("L3", "L4"))
    win.answer.chipStep.emit(1)
    qtbot.waitUntil(lambda: win.active == 1)
    # Taken back (undo): J/K step over where it was.
    press(qtbot, win, K.Key_Z, CTRL)
    assert session(win).corrections("handbook-line-level") == [] and c.id
    press(qtbot, win, K.Key_K)
    qtbot.waitUntil(lambda: win.active == 0)
