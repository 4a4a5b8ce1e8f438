"""A click on a citation brings the whole cited span onto the screen (issue #24), whatever the
wrapping, the window's width and the zoom: checked on the source viewport's geometry and on the
pixels grabbed from it, never on what the widgets say they highlighted. A span taller than the
pane shows from its first line, at the top."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, Qt

from citeview.core.markers import DELIMITER, START, STOP
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled, view_state
from tests.gui.helpers import cite, scroll_to_chip, shown_window, span_rows

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

LINES = 200_000
CITATIONS = 10_000
WIDTHS = (1024, 1280, 1920)
ZOOMS = (0, 3)  # zoom steps of the source pane
LONG = " ".join(["and the line goes on about the policy and its appendix"] * 6)


def header(sid: str, title: str) -> str:
    return f"Citation Marker: {START}cite{DELIMITER}{sid}{STOP}\nTitle: {title}\n\n"


def line_text(k: int) -> str:
    """Every fifth line wraps over several rows at any of the widths tested."""
    return f"line {k} of the log" + (f": {LONG}" if k % 5 == 0 else "")


@pytest.fixture(scope="module")
def big_case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One source of 200,000 labelled lines (every fifth one wraps) cited 10,000 times, one
    citation in three a range of three lines; the last citation cites the last two lines."""
    body = "\n".join(f"[L{k}] {line_text(k)}" for k in range(1, LINES + 1))
    parts = []
    for i in range(CITATIONS):
        line = 1 + i * 19 if i < CITATIONS - 1 else LINES - 1
        loc = f"L{line}" if i % 3 else f"L{line}-L{min(line + 2, LINES)}"
        if i == CITATIONS - 1:
            loc = f"L{LINES - 1}-L{LINES}"
        parts.append(f"Claim {i + 1}{cite('turn0file0', loc)}.")
        parts.append("\n\n" if i % 10 == 9 else " ")
    path = tmp_path_factory.mktemp("span") / "big.case.json"
    path.write_text(json.dumps({"id": "big", "tool_outputs": [header("turn0file0", "Big") + body],
                                "answer": "".join(parts)}, ensure_ascii=False),
                    encoding="utf-8")
    return path


# What the wrapped case cites, in chip order: (source, first line, last line).
WRAPPED_CITES = [
    ("turn0file0", 300, 300),  # the last line of a 300-line source, wrapped
    ("turn0file0", 299, 300),
    ("turn0file0", 1, 1),
    ("turn0file0", 150, 151),
    ("turn0file0", 10, 200),  # taller than the pane: its first line at the top
    ("turn0file1", 5000, 5000),  # the last lines of a long source
    ("turn0file1", 4997, 5000),
    ("turn0file1", 2500, 2500),
]


@pytest.fixture
def wrapped_case(tmp_path: Path) -> Path:
    """A 300-line source whose every line wraps and a 5,000-line one, cited as WRAPPED_CITES."""
    short = "\n".join(f"[L{k}] line {k}: {LONG}" for k in range(1, 301))
    long = "\n".join(f"[L{k}] {line_text(k)}" for k in range(1, 5001))
    answer = " ".join(f"Claim {n}{cite(sid, f'L{a}' if a == b else f'L{a}-L{b}')}."
                      for n, (sid, a, b) in enumerate(WRAPPED_CITES, 1))
    path = tmp_path / "wrapped.case.json"
    path.write_text(json.dumps({"id": "wrapped", "answer": answer, "tool_outputs": [
        header("turn0file0", "Wrapped") + short, header("turn0file1", "Long") + long]},
        ensure_ascii=False), encoding="utf-8")
    return path


def click_chip(qtbot, win: MainWindow, index: int) -> None:  # type: ignore[no-untyped-def]
    """Scroll the answer to chip ``index`` as a reader would, then click it with the mouse."""
    answer = win.answer
    scroll_to_chip(qtbot, win, index)
    pos = answer.chip_center(index)
    assert pos is not None and answer.viewport().rect().contains(pos)
    qtbot.mouseClick(answer.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert win.answer.active() == index
    if win.source.is_loading():  # a source shown for the first time: its lines go in first
        qtbot.waitUntil(lambda: win.source.highlighted_labels() is not None, timeout=10_000)


def assert_span_on_screen(win: MainWindow, what: str) -> None:
    """The whole span inside the source viewport (a taller one from its first row, at the top),
    by the layout's geometry and by the highlight colour in a grab of the viewport's pixels."""
    top, bottom, height, _ = span_rows(win)
    if bottom - top <= height:
        assert top > -1 and bottom < height + 1, (what, top, bottom, height)
    else:
        assert abs(top) < 1, (what, top, bottom, height)
    text = win.source.text_view()
    image = text.viewport().grab().toImage()
    dpr = image.devicePixelRatio()
    x = int((text.viewport().width() - 2) * dpr)  # right of the text: the row's background
    colour = text.roles.highlight
    inside = [y for y in range(int(top) + 2, int(bottom) - 1) if 0 <= y < height]
    assert inside, (what, top, bottom)
    wrong = [y for y in inside if image.pixelColor(x, int(y * dpr)) != colour]
    assert not wrong, (what, f"rows {wrong[:5]}... not highlighted", top, bottom, height)
    for y in (int(top) - 3, int(bottom) + 6):  # the rows just outside are not the span's
        if 0 <= y < height:
            assert image.pixelColor(x, int(y * dpr)) != colour, (what, y, top, bottom)
    assert view_state(win)["span_in_view"] is True, what


def sizes(qtbot, win: MainWindow):  # type: ignore[no-untyped-def]
    """Each window width with each zoom of the source pane."""
    for width in WIDTHS:
        win.resize(width, 800)
        qtbot.wait(20)
        for steps in ZOOMS:
            win.source.zoom(steps)
            qtbot.wait(10)
            yield width, steps
            win.source.zoom(-steps)


def test_100_random_citations_of_10000_show_their_span_at_every_width_and_zoom(
        qtbot, tmp_path: Path, big_case: Path) -> None:
    win = shown_window(qtbot, tmp_path)
    assert win.open_path(str(big_case))
    qtbot.waitUntil(lambda: is_settled(win), timeout=60_000)
    assert len(win.view.citations) == CITATIONS
    rnd = random.Random(24)
    picks = [CITATIONS - 1] + rnd.sample(range(CITATIONS - 1), 99)
    for width, steps in sizes(qtbot, win):
        wrapped = 0
        for index in picks:
            click_chip(qtbot, win, index)
            top, bottom, _, _ = span_rows(win)
            wrapped += bottom - top > 3 * win.source.text_view().fontMetrics().height() * 1.5
            assert_span_on_screen(win, f"citation {index + 1} at {width} px, zoom {steps}")
        assert wrapped, "no cited span wrapped: the case does not test wrapping"
    # The last citation cites the last two lines, the last one at the bottom of the pane.
    click_chip(qtbot, win, CITATIONS - 1)
    state = view_state(win)
    assert (state["first_line"], state["last_line"]) == (f"L{LINES - 1}", f"L{LINES}")
    assert state["visible_lines"][1] == f"L{LINES}"
    assert_span_on_screen(win, "the last citation")


def test_wrapped_lines_last_lines_and_a_tall_span_show_at_every_width_and_zoom(
        qtbot, tmp_path: Path, wrapped_case: Path) -> None:
    win = shown_window(qtbot, tmp_path)
    assert win.open_path(str(wrapped_case))
    qtbot.waitUntil(lambda: is_settled(win), timeout=20_000)
    for width, steps in sizes(qtbot, win):
        for index, (sid, a, b) in enumerate(WRAPPED_CITES):
            click_chip(qtbot, win, index)
            state = view_state(win)
            assert (state["source_id"], state["first_line"], state["last_line"]) == (
                sid, f"L{a}", f"L{b}")
            what = f"{sid} L{a}-L{b} at {width} px, zoom {steps}"
            assert_span_on_screen(win, what)
            top, bottom, height, _ = span_rows(win)
            row = win.source.text_view().fontMetrics().height()
            if (a, b) == (10, 200):
                assert bottom - top > height and state["visible_lines"][0] == "L10", what
            elif a != 1 and height - (bottom - top) > 4 * row:  # context above when it fits
                assert top >= row, what


def test_a_resize_keeps_the_span_on_screen(qtbot, tmp_path: Path, wrapped_case: Path) -> None:
    win = shown_window(qtbot, tmp_path)
    assert win.open_path(str(wrapped_case))
    qtbot.waitUntil(lambda: is_settled(win), timeout=20_000)
    click_chip(qtbot, win, 3)  # L150-L151 of the wrapped source
    for width in (1920, 1024, 1280):
        win.resize(width, 700)
        qtbot.wait(20)
        assert_span_on_screen(win, f"after a resize to {width} px")
    win.source.zoom(4)
    qtbot.wait(10)
    assert_span_on_screen(win, "after zooming in")


class FirstPaint(QObject):
    """What the source pane showed at its first paint of the cited source."""

    def __init__(self, win: MainWindow) -> None:
        super().__init__()
        self.win = win
        self.seen: dict[str, object] | None = None
        win.source.text_view().viewport().installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        if (event.type() == QEvent.Type.Paint and self.seen is None
                and self.win.source.shown_source_id() == "turn0file0"):
            self.seen = {"labels": self.win.source.highlighted_labels(),
                         "loading": self.win.source.is_loading(),
                         **self.win.source.span_on_screen()}
        return False


def test_the_first_highlight_paints_with_the_sources_first_lines_not_after_it_loads(
        qtbot, tmp_path: Path, big_case: Path) -> None:
    win = shown_window(qtbot, tmp_path)
    watch = FirstPaint(win)
    assert win.open_path(str(big_case))
    qtbot.waitUntil(lambda: watch.seen is not None, timeout=60_000)
    # The first citation cites L1-L3: highlighted and on screen at the very first paint,
    # while the rest of the 200,000 lines are still going in.
    assert watch.seen == {"labels": ("L1", "L3"), "loading": True, "span_in_view": True,
                          "visible_lines": watch.seen["visible_lines"]}
    assert watch.seen["visible_lines"][0] == "L1"
    qtbot.waitUntil(lambda: is_settled(win), timeout=60_000)
    assert_span_on_screen(win, "the first citation, once loaded")


def test_the_read_back_says_when_the_span_is_scrolled_out_of_view(
        qtbot, tmp_path: Path, wrapped_case: Path) -> None:
    win = shown_window(qtbot, tmp_path)
    assert win.open_path(str(wrapped_case))
    qtbot.waitUntil(lambda: is_settled(win), timeout=20_000)
    click_chip(qtbot, win, 0)  # L300, at the bottom
    assert view_state(win)["span_in_view"] is True
    bar = win.source.text_view().verticalScrollBar()
    bar.triggerAction(bar.SliderAction.SliderToMinimum)  # the reader scrolls to the top
    state = view_state(win)
    assert state["span_in_view"] is False and state["visible_lines"][0] == "L1"
    assert (state["first_line"], state["last_line"]) == ("L300", "L300")  # still highlighted
