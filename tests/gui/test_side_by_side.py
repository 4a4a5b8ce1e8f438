"""Side by side: the rendered and the raw answer together, scrolled together by text position,
the active citation marked in both, no marker wrapped in the middle."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QKeySequence, QTextCursor
from PySide6.QtWidgets import QApplication

from citeview.core.cases import Case
from citeview.core.datasets import ListDataset
from citeview.core.markers import DELIMITER, START, STOP
from citeview.core.text import Utf16Map
from citeview.gui.app import demo_path
from citeview.gui.main_window import MainWindow
from citeview.gui.raw_answer_view import RawAnswerView
from citeview.gui.readback import is_settled, view_state
from citeview.gui.side_by_side import SIDE_BY_SIDE_KEY, PositionMap
from tests.gui.helpers import cite, window_settings

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

MARKER_RE = re.compile(f"{START}[^{START}{STOP}\n]*{STOP}")


def long_case(emoji: bool = False, case_id: str = "long") -> Case:
    """60 paragraphs, each with its number, Markdown the rendering removes (headings, bold,
    links, list items) and a citation; with ``emoji``, astral characters (two UTF-16 units
    each) in every paragraph."""
    lines = "\n".join(f"[L{k + 1}] Fact {k} of the handbook." for k in range(60))
    material = f"Citation Marker: {cite('turn0file0')}\nTitle: Handbook\n\n{lines}"
    parts = []
    for k in range(60):
        deco = " \U0001f680\U0001f600 rocket \U0001f44d\U0001f3fd" * 3 if emoji else ""
        if k % 10 == 0:
            parts.append(f"## Section {k // 10}\n\n")
        body = (f"Paragraph {k}: the **handbook** says [fact {k}](https://example.com/{k}) "
                f"holds{deco}, and a few more words to make the line wrap once or twice "
                f"in a narrow pane")
        if k % 7 == 3:
            parts.append(f"- {body}{cite('turn0file0', f'L{k + 1}')}.\n\n")
        else:
            parts.append(f"{body}{cite('turn0file0', f'L{k + 1}-L{k + 2}')}.\n\n")
    return Case(case_id, "".join(parts), question="What does the handbook say?",
                tool_outputs=[material])


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return window_settings(tmp_path)


@pytest.fixture
def win(new_window, settings) -> MainWindow:
    w: MainWindow = new_window(settings)
    return w


def open_cases(qtbot, win: MainWindow, *cases: Case) -> None:
    win.open_dataset(ListDataset(list(cases)), citation=0)
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)


def side_by_side(qtbot, win: MainWindow) -> None:
    win.modes.side_by_side_action.trigger()
    qtbot.waitUntil(lambda: win.answer.isVisible() and win.raw.isVisible(), timeout=3000)
    qtbot.wait(20)  # the panes are aligned from the event loop once laid out


def paragraph_at(text: str, offset: int) -> int:
    """Number of the paragraph on the line holding ``offset`` of ``text`` (else the last one
    before it; -1 before the first)."""
    start = max(text.rfind("\n", 0, offset), text.rfind("\u2029", 0, offset)) + 1
    line = re.split("[\n\u2029]", text[start:], maxsplit=1)[0]
    found = re.findall(r"Paragraph (\d+)", line) or re.findall(r"Paragraph (\d+)", text[:start])
    if not found:
        return -1
    return int(found[0] if re.search(r"Paragraph \d+", line) else found[-1])


def rendered_top(win: MainWindow) -> int:
    """The paragraph at the top of the rendered pane."""
    pos = win.answer.cursorForPosition(QPoint(0, 0)).position()
    text = win.answer.document().toRawText()
    return paragraph_at(text, Utf16Map(text).from_utf16(pos))


def raw_top(win: MainWindow) -> int:
    return paragraph_at(win.raw.answer(), win.raw.top_offset())


def chips_in_view(win: MainWindow) -> set[int]:
    view = win.answer
    out = set()
    for i in range(view.chip_count()):
        r = view.chip_range(i)
        if r is None:
            continue
        c = QTextCursor(view.document())
        c.setPosition(r[0])
        if view.viewport().rect().contains(view.cursorRect(c).center()):
            out.add(i)
    return out


def markers_in_view(win: MainWindow) -> set[int]:
    assert win.view is not None
    raw = win.raw
    out = set()
    for i, cv in enumerate(win.view.citations):
        c = QTextCursor(raw.document())
        c.setPosition(raw.position_of(cv.citation.start))
        if raw.viewport().rect().contains(raw.cursorRect(c).center()):
            out.add(i)
    return out


# ------------------------------------------------------------------------------ the toggle


def test_side_by_side_shows_both_and_is_remembered(qtbot, win, settings, new_window) -> None:
    open_cases(qtbot, win, long_case())
    assert QKeySequence("Ctrl+Shift+B") == win.modes.side_by_side_action.shortcut()
    side_by_side(qtbot, win)
    assert win.side_by_side.on and win.raw_mode and not win.modes.raw_action.isChecked()
    assert view_state(win)["side_by_side"] and view_state(win)["raw"]
    assert win.answer.isVisible() and win.raw.isVisible()
    assert win.answer.x() < win.raw.x()  # rendered left, raw right
    assert settings.value(SIDE_BY_SIDE_KEY) in (True, "true")
    win.close()
    again = new_window(settings)
    assert again.side_by_side.on and again.modes.side_by_side_action.isChecked()
    # Ctrl+R while side by side: side by side ends, the raw answer alone.
    again.modes.raw_action.trigger()
    assert not again.side_by_side.on and again.raw_mode and again.modes.raw_action.isChecked()
    assert again.raw.isVisible() and not again.answer.isVisible()
    assert settings.value(SIDE_BY_SIDE_KEY) in (False, "false")
    # On and off again: the pane shown alone before comes back.
    again.set_side_by_side(True)
    again.set_side_by_side(False)
    assert again.raw_mode and again.raw.isVisible() and not again.answer.isVisible()
    again.set_raw_mode(False)
    again.set_side_by_side(True)
    again.set_side_by_side(False)
    assert not again.raw_mode and again.answer.isVisible() and not again.raw.isVisible()


def test_ctrl_shift_b_key_toggles(qtbot, win) -> None:
    open_cases(qtbot, win, long_case())
    qtbot.keyClick(win.answer, Qt.Key.Key_B,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert win.side_by_side.on
    qtbot.keyClick(win.answer, Qt.Key.Key_B,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert not win.side_by_side.on and not win.raw_mode


# ------------------------------------------------------------------------------ scrolling


@pytest.mark.parametrize("emoji", [False, True], ids=["ascii", "emoji"])
def test_scrolling_either_pane_brings_the_other_to_the_same_text(qtbot, win, emoji) -> None:
    open_cases(qtbot, win, long_case(emoji))
    side_by_side(qtbot, win)
    rendered, raw = win.answer.verticalScrollBar(), win.raw.verticalScrollBar()
    for fraction in (0.3, 0.75, 0.1, 0.5):
        rendered.setValue(int(rendered.maximum() * fraction))
        here = rendered.value()
        qtbot.waitUntil(lambda: raw_top(win) == rendered_top(win), timeout=2000)
        qtbot.wait(20)
        assert rendered.value() == here  # the leader is not moved back (no feedback)
        assert raw_top(win) == rendered_top(win)
        assert chips_in_view(win) & markers_in_view(win)  # a citation shown in both
    for fraction in (0.6, 0.2, 0.9):
        raw.setValue(int(raw.maximum() * fraction))
        here = raw.value()
        qtbot.waitUntil(lambda: raw_top(win) == rendered_top(win), timeout=2000)
        qtbot.wait(20)
        assert raw.value() == here
        assert raw_top(win) == rendered_top(win)
        assert chips_in_view(win) & markers_in_view(win)


def test_position_map_interpolates_between_anchors_and_never_goes_back() -> None:
    pmap = PositionMap([(0, 0), (100, 50), (200, 150), (150, 10), (300, 160)])
    assert pmap.to_rendered(50) == 25 and pmap.to_rendered(150) == 100  # (150, 10) dropped
    assert pmap.to_raw(100) == 150 and pmap.to_raw(155) == 250
    assert pmap.to_rendered(1000) == 160 and pmap.to_raw(-5) == 0


# ------------------------------------------------------------------------------ the active citation


def test_active_citation_is_marked_and_shown_in_both(qtbot, win) -> None:
    case = long_case(emoji=True)
    open_cases(qtbot, win, case)
    side_by_side(qtbot, win)
    assert win.view is not None

    def marked_in_both(i: int) -> bool:
        cv = win.view.citations[i]  # type: ignore[union-attr]
        spans = win.raw.active_spans()
        return (win.answer.active() == i and bool(win.answer.highlighted_claim())
                and (cv.citation.start, cv.citation.end, "marker") in spans
                and any(r == "claim" and s <= cv.claim[0] for s, _e, r in spans)
                and i in chips_in_view(win) and i in markers_in_view(win))

    # A click on a chip.
    win.answer.verticalScrollBar().setValue(win.answer.verticalScrollBar().maximum() // 2)
    qtbot.wait(20)
    shown = sorted(chips_in_view(win))
    pos = win.answer.chip_center(shown[1])
    assert pos is not None
    qtbot.mouseClick(win.answer.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.wait(20)
    assert marked_in_both(shown[1])
    # Right: the next chip, far down the answer after a jump.
    win.navigator.activate_citation(40)
    qtbot.keyClick(win.answer, Qt.Key.Key_Right)
    qtbot.wait(20)
    assert marked_in_both(41)
    # A row of the citations table.
    row = win.citations_proxy.index_of_key(("citation", 5))
    win.citations_table.setCurrentIndex(row)
    qtbot.wait(20)
    assert marked_in_both(5)


# ------------------------------------------------------------------------------ wrapping


def marker_lines(raw: RawAnswerView) -> list[tuple[str, int]]:
    """Each marker of the raw pane (as shown) and how many lines its characters are drawn
    on, for the markers narrower than the pane."""
    out = []
    text = raw.answer()
    room = raw.viewport().width() - 2 * raw.document().documentMargin()
    for m in MARKER_RE.finditer(text):
        shown = raw.shown_text()[m.start():m.end()]
        # What may not begin a line (a full stop) stays with the marker.
        after = re.match(r"[^\s\w]*", text[m.end():])
        glued = shown + (after.group() if after else "")
        if raw.fontMetrics().horizontalAdvance(glued) >= room:
            continue  # longer than a line: it must break somewhere
        tops = set()
        for k in range(m.start(), m.end()):  # the left edge of each of its characters
            c = QTextCursor(raw.document())
            c.setPosition(raw.position_of(k))
            tops.add(raw.cursorRect(c).top())
        out.append((shown, len(tops)))
    return out


def test_no_marker_is_wrapped_in_the_middle(qtbot) -> None:
    from citeview.core.inputs import load_input

    answers = [c.answer for c in load_input(str(demo_path())).iter_cases()]
    answers.append(long_case(emoji=True).answer)
    # Degraded and spaced forms (whitespace inside a marker is allowed by the guide).
    answers.append("Spaced marker here" + START + "cite " + DELIMITER + " turn0file0  "
                   + DELIMITER + " L2 - L5 " + STOP + " and a slash one"
                   + cite("turn0file0/x", "L1,L2") + " end.")
    raw = RawAnswerView()
    qtbot.addWidget(raw)
    raw.show()
    checked = 0
    for answer in answers:
        raw.set_answer(answer, [])
        for width in (240, 333, 410, 512, 700, 1000):
            raw.resize(width, 300)
            QApplication.processEvents()
            for shown, lines in marker_lines(raw):
                assert lines == 1, (width, shown)
                checked += 1
    assert checked > 300


def test_markers_whole_in_a_1024_window_side_by_side(qtbot, win) -> None:
    win.resize(1024, 640)
    open_cases(qtbot, win, long_case(emoji=True))
    side_by_side(qtbot, win)
    lines = marker_lines(win.raw)
    assert len(lines) == 60 and all(n == 1 for _, n in lines)


def test_copying_from_the_raw_pane_gives_the_exact_answer(qtbot) -> None:
    raw = RawAnswerView()
    qtbot.addWidget(raw)
    answer = long_case(emoji=True).answer.replace("\n\n", "\r\n\r\n", 3)
    raw.set_answer(answer, [])
    raw.selectAll()
    data = raw.createMimeDataFromSelection()
    assert data is not None and data.text() == answer
    c = raw.textCursor()  # one marker, from its start to its end
    m = MARKER_RE.search(answer)
    assert m is not None
    c.setPosition(raw.position_of(m.start()))
    c.setPosition(raw.position_of(m.end(), end=True), QTextCursor.MoveMode.KeepAnchor)
    raw.setTextCursor(c)
    data = raw.createMimeDataFromSelection()
    assert data is not None and data.text() == m.group()
    # Finding goes across a marker's joiners.
    raw.moveCursor(QTextCursor.MoveOperation.Start)
    assert raw.find_text("|turn0file0|L1-L2\u27e7")
    assert raw.textCursor().selectedText().replace("\u2060", "") == "|turn0file0|L1-L2\u27e7"


# ------------------------------------------------------------------------------ robustness


def test_rapid_scrolling_resizing_and_case_switching_do_not_crash(qtbot, win) -> None:
    cases = [long_case(emoji=bool(k % 2), case_id=f"c{k}") for k in range(3)]
    open_cases(qtbot, win, *cases)
    side_by_side(qtbot, win)
    rendered, raw = win.answer.verticalScrollBar(), win.raw.verticalScrollBar()
    for k in range(200):  # both ways, interleaved, faster than the panes follow
        bar = rendered if k % 2 else raw
        bar.setValue((k * 37) % max(bar.maximum(), 1))
        if k % 5 == 0:
            QApplication.processEvents()
        if k % 40 == 0:
            win.resize(1024 + (k % 80) * 3, 640 + k % 50)
            win.side_by_side.splitter.setSizes([300 + k, 500 - k])
    QApplication.processEvents()
    for k in range(6):  # switching cases while scrolling
        win.navigator.next_case() if k % 2 == 0 else win.navigator.previous_case()
        rendered.setValue(rendered.maximum() // 2)
        raw.setValue(raw.maximum() // 3)
        QApplication.processEvents()
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    rendered.setValue(rendered.maximum() // 2)
    qtbot.waitUntil(lambda: raw_top(win) == rendered_top(win), timeout=2000)
    win.set_side_by_side(False)
    win.set_side_by_side(True)
    qtbot.wait(20)
    assert win.answer.isVisible() and win.raw.isVisible()


def test_the_keyboard_stays_with_the_answer_when_toggling(qtbot, win) -> None:
    open_cases(qtbot, win, long_case())
    win.answer.setFocus()
    qtbot.waitUntil(win.answer.hasFocus, timeout=2000)
    win.set_side_by_side(True)
    assert win.answer.hasFocus()
    win.raw.setFocus()
    win.set_side_by_side(False)  # back to the rendered answer alone; raw was focused
    qtbot.wait(10)
    assert win.focusWidget() is not win.source.text_view()
